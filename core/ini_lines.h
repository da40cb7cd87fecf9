/* INI files parsed by inih, line by line from our own line source: one
 * reader for the solver configs (core/config.c) and the scene files
 * (sim/scene_read.c), private (not installed; hidden in libproxima, and
 * compiled into sim/libpxsim.la beside core/params.c).
 *
 * inih reports neither line numbers nor section headers (it skips an empty
 * section); the line source counts the lines and tells the caller of each
 * header line as inih will read it: after a UTF-8 byte order mark on the
 * first line and any leading blanks, '[' NAME ']', unless the line is
 * indented and a key came since the last header (inih then continues that
 * key's value). CRLF line ends and a last line without one read as any
 * other. A line longer than PX_INI_LINE_MAX bytes before its '\n' (a CR
 * counts) is an error naming the file and line. */
#ifndef PX_INI_LINES_H
#define PX_INI_LINES_H

#include <stddef.h>
#include <stdio.h>

#include <proxima/error.h>

/* inih's INI_MAX_LINE as Debian builds it, less the line end and the NUL */
#define PX_INI_LINE_MAX 198

struct px_ini {
	const char *path;     /* the file in messages: PATH:LINE: ... */
	struct px_error *err; /* the first error wins */
	void *user;
	/* A header line: NAME is the text between '[' and ']' (len bytes,
	 * not NUL-terminated, blanks kept). */
	void (*section)(void *user, unsigned line, const char *name,
			size_t len);
	/* inih's handler, with the line: 0 stops at an error (err set). */
	int (*value)(void *user, unsigned line, const char *section,
		     const char *key, const char *value);

	/* the line source's own */
	FILE *f;
	unsigned line; /* being parsed, from 1 */
	char *buf;
	size_t cap;
	int key_seen; /* since the last header (inih's continuation rule) */
};

/* The first error of a file, as "PATH:LINE: msg" in err; nothing when err
 * holds one already. */
void px_ini_fail(struct px_error *err, const char *path, unsigned line,
		 int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Parse f (left open) as ini->path: PX_OK, or the code of the first error,
 * whose one line is in ini->err ("PATH:LINE: ..."). */
int px_ini_parse(struct px_ini *ini, FILE *f);

#endif
