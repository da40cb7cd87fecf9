/* Output files that are never half-written: written under a temporary
 * name in the target's folder (unique, created with O_EXCL), flushed and
 * fsync'ed, then renamed over the target, so that a crash leaves the
 * previous file or none, never a truncated one. A file that grows row by
 * row (a run's CSV) is "published" instead: renamed into place after its
 * header, then flushed after every row; a failed write truncates it back
 * to its last whole row. A target that exists and is not a regular file
 * (/dev/full, /dev/stdout, a FIFO) is written in place.
 *
 * Private (not installed): hidden in libproxima, and compiled into
 * sim/libpxsim.la for the command, as core/params.c is. Every failure is
 * one line in err, "PATH: cannot write: <the system's reason>". */
#ifndef PX_OUTFILE_H
#define PX_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#include <proxima/error.h>

struct px_outfile {
	FILE *f;	  /* write here */
	const char *path; /* the target, as given (the caller keeps it) */
	char *tmp;	  /* the temporary name until renamed, else NULL */
	int fd;		  /* f's file, kept past fclose to truncate it */
	int direct;	  /* not a regular file: written in place */
	int published;	  /* renamed into place: rows go to the target */
	off_t good;	  /* published: the end of the last whole row */
};

/* Open a temporary file beside path for writing (o->f, fully buffered).
 * Fails on a missing or unwritable folder, naming path. */
int px_outfile_open(struct px_outfile *o, const char *path,
		    struct px_error *err);

/* Flush, fsync and close, then rename over the target: PX_OK, or an error
 * (the temporary file removed, the target untouched unless published).
 * o is closed either way. */
int px_outfile_commit(struct px_outfile *o, struct px_error *err);

/* Close and remove the temporary file (a published file keeps its whole
 * rows). For an error path; no-op on a closed o. */
void px_outfile_abort(struct px_outfile *o);

/* After the header: flush, fsync and rename into place; from here every
 * px_outfile_row makes what was written since the last one visible. */
int px_outfile_publish(struct px_outfile *o, struct px_error *err);

/* A row is complete: flush it. On a failed write the file is truncated to
 * its previous whole row and closed (o too), and err says why. */
int px_outfile_row(struct px_outfile *o, struct px_error *err);

#endif
