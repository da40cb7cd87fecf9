/* px_fclib_read: fc_read (fclib_read.c) in a child process. libhdf5 1.10
 * crashes on some corrupt files (SIGFPE in H5D__chunk_set_info, SIGSEGV in
 * H5F__accum_read: tests/fuzz/regress/hdf5-*.hdf5) in ways no check before
 * it can foresee, so the child reads the file and sends the problem back
 * through a pipe; a child killed by a signal becomes one error line naming
 * the file, and the caller's process never runs libhdf5's code on the
 * file's bytes.
 *
 * The message on the pipe, in this machine's byte order (both ends are the
 * same program): a header, then either the error's text or the problem's
 * arrays (b, friction, A's BSR arrays, the impulses when asked for). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "assemble.h"
#include "fclib_io.h"

struct header {
	int32_t rc;       /* fc_read's status */
	uint32_t msg_len; /* the error's text, when rc != PX_OK */
	uint64_t nc;      /* contacts */
	uint64_t nnzb;    /* A's stored blocks */
	uint32_t has_r;   /* 3 nc impulses follow */
};

/* ---- the child's side ---------------------------------------------------- */

static int put(int fd, const void *data, size_t n)
{
	const char *c = data;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int send_problem(int fd, const struct px_problem *p, const double *r)
{
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;
	struct header h;
	size_t nc = px_problem_n_contacts(p);

	memset(&h, 0, sizeof h); /* its padding too: it goes down the pipe */
	px_problem_assembled(p, &rowptr, &cols, &blocks);
	h.rc = PX_OK;
	h.has_r = r != NULL;
	h.nc = nc;
	h.nnzb = rowptr[nc];
	return put(fd, &h, sizeof h) ||
	       put(fd, px_problem_b_const(p), 3 * nc * sizeof(double)) ||
	       put(fd, px_problem_friction_const(p),
		   nc * sizeof(struct px_friction_params)) ||
	       put(fd, rowptr, (nc + 1) * sizeof *rowptr) ||
	       put(fd, cols, rowptr[nc] * sizeof *cols) ||
	       put(fd, blocks, 9 * rowptr[nc] * sizeof *blocks) ||
	       (r && put(fd, r, 3 * nc * sizeof *r));
}

/* Runs in the child: never returns. The crash signals take their default
 * action (a sanitizer's handler would print a report and exit normally),
 * and a crash leaves no core file behind. */
static void child(int fd, const char *path, enum px_fclib_r which, int want_r)
{
	static const int crashes[] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT};
	const struct rlimit no_core = {0, 0};
	struct px_problem *p = NULL;
	struct px_error err = {0};
	double *r = NULL;
	int rc, bad;

	for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
		signal(crashes[i], SIG_DFL);
	setrlimit(RLIMIT_CORE, &no_core);
	rc = fc_read(path, &p, which, want_r ? &r : NULL, &err);
	if (rc) {
		struct header h;

		memset(&h, 0, sizeof h);
		h.rc = rc;
		h.msg_len = (uint32_t)strlen(err.msg);
		bad = put(fd, &h, sizeof h) || put(fd, err.msg, h.msg_len);
	} else {
		bad = send_problem(fd, p, r);
	}
	_exit(bad ? 1 : 0); /* no atexit handlers: they are the parent's */
}

/* ---- the parent's side --------------------------------------------------- */

struct inbox {
	char *data;
	size_t len, at; /* bytes received, bytes taken */
};

/* Everything the child sends, until it closes the pipe. */
static int receive(int fd, struct inbox *in)
{
	size_t cap = 0;

	for (;;) {
		ssize_t got;

		if (in->len == cap) {
			char *d = realloc(in->data, cap = cap ? 2 * cap : 65536);

			if (!d)
				return PX_ERR_NOMEM;
			in->data = d;
		}
		got = read(fd, in->data + in->len, cap - in->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return PX_ERR_IO;
		if (got == 0)
			return PX_OK;
		in->len += (size_t)got;
	}
}

/* The next n bytes, or NULL when the message is shorter. */
static const void *take(struct inbox *in, size_t n)
{
	const void *at = in->data + in->at;

	if (n > in->len - in->at)
		return NULL;
	in->at += n;
	return at;
}

static int short_message(const char *path, struct px_error *err)
{
	return px_error_set(err, PX_ERR_IO,
			    "%s: the FCLib reader process sent an incomplete answer",
			    path);
}

/* Copy of n bytes from the inbox into a malloc'd block. */
static int take_copy(struct inbox *in, size_t n, double **out)
{
	const void *src = take(in, n);

	if (!src)
		return PX_ERR_IO;
	if (!(*out = malloc(n ? n : 1)))
		return PX_ERR_NOMEM;
	memcpy(*out, src, n);
	return PX_OK;
}

static int rebuild(const char *path, struct inbox *in, struct px_problem **out,
		   double **r, struct px_error *err)
{
	const struct header *h = take(in, sizeof *h);
	const size_t *rowptr;
	const uint32_t *cols;
	const double *b, *blocks;
	const struct px_friction_params *fr;
	struct px_problem *p = NULL;
	struct px_error sub;
	int rc;

	if (!h)
		return short_message(path, err);
	if (h->rc) {
		const char *msg = take(in, h->msg_len);

		if (!msg || h->msg_len >= PX_ERROR_MSG_MAX)
			return short_message(path, err);
		return px_error_set(err, h->rc, "%.*s", (int)h->msg_len, msg);
	}
	b = take(in, 3 * h->nc * sizeof *b);
	fr = take(in, h->nc * sizeof *fr);
	rowptr = take(in, (h->nc + 1) * sizeof *rowptr);
	cols = take(in, h->nnzb * sizeof *cols);
	blocks = take(in, 9 * h->nnzb * sizeof *blocks);
	if (!b || !fr || !rowptr || !cols || !blocks)
		return short_message(path, err);
	if ((rc = px_problem_create(h->nc, 3, &p, &sub)))
		return io_core_error(path, rc, &sub, err);
	memcpy(px_problem_b(p), b, 3 * h->nc * sizeof *b);
	memcpy(px_problem_friction(p), fr, h->nc * sizeof *fr);
	if ((rc = io_assemble(path, p, rowptr, cols, blocks, err)))
		goto fail;
	if (h->has_r && (rc = take_copy(in, 3 * h->nc * sizeof **r, r))) {
		if (rc == PX_ERR_IO)
			short_message(path, err);
		else
			px_error_set(err, rc, "%s: out of memory", path);
		goto fail;
	}
	*out = p;
	return PX_OK;
fail:
	px_problem_destroy(p);
	return rc;
}

/* What became of the child, as an error when it did not finish. */
static int reaped(const char *path, pid_t pid, struct px_error *err)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return px_error_set(err, PX_ERR_IO,
					    "%s: lost the FCLib reader process: %s",
					    path, strerror(errno));
	if (WIFSIGNALED(status))
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: libhdf5 crashed reading this file (%s, signal %d): the file is damaged",
				    path, strsignal(WTERMSIG(status)),
				    WTERMSIG(status));
	if (WEXITSTATUS(status))
		return px_error_set(err, PX_ERR_IO,
				    "%s: the FCLib reader process failed (exit status %d)",
				    path, WEXITSTATUS(status));
	return PX_OK;
}

int px_fclib_read(const char *path, struct px_problem **out,
		  enum px_fclib_r which, double **r, struct px_error *err)
{
	struct inbox in = {NULL, 0, 0};
	int fds[2], rc, got;
	pid_t pid;

	*out = NULL;
	if (r)
		*r = NULL;
	else if (which != PX_FCLIB_R_NONE)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: impulses asked for but r is NULL", path);
	if (pipe(fds))
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot start the FCLib reader process: %s",
				    path, strerror(errno));
	pid = fork();
	if (pid < 0) {
		rc = errno;
		close(fds[0]);
		close(fds[1]);
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot start the FCLib reader process: %s",
				    path, strerror(rc));
	}
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], path, which, r != NULL);
	}
	close(fds[1]);
	got = receive(fds[0], &in);
	close(fds[0]);
	/* the child's fate first: a crash explains a short message */
	if ((rc = reaped(path, pid, err)))
		goto out;
	if (got) {
		rc = got == PX_ERR_NOMEM ? px_error_set(err, PX_ERR_NOMEM,
							"%s: out of memory", path)
					 : short_message(path, err);
		goto out;
	}
	rc = rebuild(path, &in, out, r, err);
out:
	free(in.data);
	return rc;
}
