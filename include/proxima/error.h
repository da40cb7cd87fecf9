/* Status codes and the caller-owned error record (doc/style.md, rule 4).
 * Library code never prints or exits: a failing function returns one of the
 * codes below and writes one line into the record naming the file, section,
 * key or plugin, with the expected and the found value. */
#ifndef PROXIMA_ERROR_H
#define PROXIMA_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

enum px_status {
	PX_OK = 0,
	PX_ERR_NOMEM = 1,   /* out of memory */
	PX_ERR_IO = 2,      /* a file could not be opened or read */
	PX_ERR_FORMAT = 3,  /* a problem file is malformed */
	PX_ERR_CONFIG = 4,  /* a config file is malformed or names bad values */
	PX_ERR_PLUGIN = 5,  /* a plugin was not found or was refused */
	PX_ERR_INVALID = 6, /* an argument or a problem is not valid */
	PX_ERR_UNSUPPORTED = 7, /* this build lacks the feature (FCLib) */
	PX_ERR_DIVERGED = 8, /* a computation turned non-finite (a world's
				bodies): it stopped, nothing was written */
};

#define PX_ERROR_MSG_MAX 1024

struct px_error {
	int code;
	char msg[PX_ERROR_MSG_MAX];
};

/* Record code and message (printf-style) into err (may be NULL); returns code. */
int px_error_set(struct px_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

const char *px_status_string(int code);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
