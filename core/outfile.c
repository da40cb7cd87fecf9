/* Output files written under a temporary name and renamed into place
 * (outfile.h). rename(2) within one folder replaces the target atomically
 * (POSIX), so a reader or a crash sees the old file or the new one; the
 * fsync before it makes the new one's data reach the disk before its
 * name, and the folder's fsync after it the new name itself. The fsyncs
 * cost little beside the writing: on ballgrid-24's 35 MB VTK frames,
 * 0.09 s per frame (its file, its contacts' file and their folder)
 * against 0.35 s of CPU to format it and 8 s for the step's solve (2026-11,
 * two shared cores under load 9; `strace -f -T -e trace=fsync proxima
 * run scenes/ballgrid-24.ini --steps 3 --vtk DIR --quiet`). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

/* Unique names: how many suffixes to try before giving up (each taken
 * one fails with EEXIST; the next is another). */
#define TRIES 64

static int fail(const struct px_outfile *o, int e, struct px_error *err)
{
	return px_error_set(err, PX_ERR_IO, "%s: cannot write: %s", o->path,
			    strerror(e ? e : EIO));
}

/* Forget o's file: closed (f, fd), the temporary name removed. */
static void drop(struct px_outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	else if (o->published && !o->direct)
		(void)!ftruncate(o->fd, o->good);
	if (o->fd >= 0)
		close(o->fd);
	free(o->tmp);
	o->f = NULL;
	o->tmp = NULL;
	o->fd = -1;
}

/* The folder of path, for the temporary name and its fsync: path up to
 * its last '/' (dir_len bytes; 0: the current folder). */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Create DIR/.BASE.XXXXXX (X: hexadecimal) with O_EXCL: its fd, or -1
 * with errno. */
static int create_tmp(struct px_outfile *o)
{
	const size_t d = dir_len(o->path), len = strlen(o->path);
	struct timespec ts;
	int fd = -1;

	o->tmp = malloc(len + 16);
	if (!o->tmp) {
		errno = ENOMEM;
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned i = 0; i < TRIES; i++) {
		const uint32_t x = (uint32_t)ts.tv_nsec ^
				   (uint32_t)getpid() * 2654435761u ^
				   i * 40503u;

		snprintf(o->tmp, len + 16, "%.*s.%s.%06x", (int)d, o->path,
			 o->path + d, (unsigned)(x & 0xffffff));
		fd =
		    open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
	}
	return fd;
}

int px_outfile_open(struct px_outfile *o, const char *path,
		    struct px_error *err)
{
	struct stat st;
	int fd;

	*o = (struct px_outfile){.path = path, .fd = -1};
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->direct = 1;
		o->f = fopen(path, "w");
		return o->f ? PX_OK : fail(o, errno, err);
	}
	fd = create_tmp(o);
	if (fd < 0)
		return fail(o, errno, err);
	o->fd = dup(fd);
	o->f = o->fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!o->f) {
		const int e = errno;

		close(fd);
		drop(o);
		return fail(o, e, err);
	}
	return PX_OK;
}

/* The folder's entry for the new name on the disk too; EINVAL: a file
 * system that cannot sync a folder. */
static int sync_dir(const char *path)
{
	const size_t d = dir_len(path);
	char *dir = malloc(d + 2);
	int fd, rc = 0;

	if (!dir)
		return ENOMEM;
	memcpy(dir, d ? path : ".", d ? d : 1);
	dir[d ? d : 1] = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (fsync(fd) && errno != EINVAL))
		rc = errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

/* f's buffer written and its data on the disk: 0, or errno. */
static int flush_sync(const struct px_outfile *o)
{
	if (fflush(o->f) || ferror(o->f))
		return errno ? errno : EIO;
	if (!o->direct && fsync(o->fd))
		return errno;
	return 0;
}

int px_outfile_commit(struct px_outfile *o, struct px_error *err)
{
	int e = flush_sync(o);

	if (fclose(o->f) && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (!e && o->tmp && rename(o->tmp, o->path))
		e = errno;
	else if (!e && o->tmp) {
		free(o->tmp);
		o->tmp = NULL;
		e = sync_dir(o->path);
	}
	if (!e && o->published)
		o->published = 0; /* its rows are whole: keep them all */
	drop(o);
	return e ? fail(o, e, err) : PX_OK;
}

void px_outfile_abort(struct px_outfile *o)
{
	if (o->f || o->fd >= 0)
		drop(o);
}

int px_outfile_publish(struct px_outfile *o, struct px_error *err)
{
	int e = flush_sync(o);

	if (!e && o->tmp && rename(o->tmp, o->path))
		e = errno;
	if (e) {
		drop(o);
		return fail(o, e, err);
	}
	free(o->tmp);
	o->tmp = NULL;
	o->published = 1;
	o->good = o->direct ? 0 : ftello(o->f);
	return PX_OK;
}

int px_outfile_row(struct px_outfile *o, struct px_error *err)
{
	int e = 0;

	if (fflush(o->f) || ferror(o->f))
		e = errno ? errno : EIO;
	if (e) {
		drop(o); /* back to the last whole row */
		return fail(o, e, err);
	}
	if (!o->direct)
		o->good = ftello(o->f);
	return PX_OK;
}
