/* Writer of FCLib local problems (doc/design.md, section 8)
 * through libfclib: W in CSR storage (what Siconos writes) holding every
 * value of A's stored 3 x 3 blocks, column indices sorted in each row; q;
 * mu; and, given impulses r, the solution r and u = W r + q.
 *
 * The file is written under a temporary name beside path and renamed
 * into place when complete (core/outfile.h). libfclib exit(1)s when an
 * HDF5 call fails half-way (a full disk) and prints as it does, so it
 * writes in a child process whose exit status tells the parent what
 * failed; the parent then removes the temporary file and path is left
 * as it was. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fclib_io.h"
#include "outfile.h"

/* W's CSR arrays in libfclib's int form. */
struct csr {
	int *p, *i;
	double *x;
};

static int to_csr(const struct px_problem *p, struct csr *w)
{
	const size_t nc = px_problem_n_contacts(p);
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;
	size_t at = 0;

	px_problem_assembled(p, &rowptr, &cols, &blocks);
	w->p = malloc((3 * nc + 1) * sizeof *w->p);
	w->i = malloc(9 * rowptr[nc] * sizeof *w->i);
	w->x = malloc(9 * rowptr[nc] * sizeof *w->x);
	if (!w->p || !w->i || !w->x)
		return PX_ERR_NOMEM;
	for (size_t bi = 0; bi < nc; bi++)
		for (int a = 0; a < 3; a++) {
			w->p[3 * bi + (size_t)a] = (int)at;
			for (size_t b = rowptr[bi]; b < rowptr[bi + 1]; b++)
				for (int c = 0; c < 3; c++) {
					w->i[at] = (int)(3 * cols[b]) + c;
					w->x[at++] = blocks[9 * b + 3 * (size_t)a + (size_t)c];
				}
		}
	w->p[3 * nc] = (int)at;
	return PX_OK;
}

/* The child's exit status for errno e: 100 + e, the reason of the write
 * that failed, or 1 when errno says nothing. */
static int errno_status(int e)
{
	return e > 0 && e < 100 ? 100 + e : 1;
}

/* libfclib's exit(1) after a failed HDF5 call ends here. */
static void exit_with_errno(void)
{
	_exit(errno_status(errno));
}

/* The child: libfclib writes the problem (and the solution) to the file
 * name, created empty first (libfclib's writers refuse a file that
 * already holds a problem or a solution); exits 0, or errno_status.
 * libfclib prints on failure: its stderr goes nowhere. */
static void child(const char *name, struct fclib_local *local,
		  struct fclib_solution *sol)
{
	const int null = open("/dev/null", O_WRONLY);
	hid_t file;

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	atexit(exit_with_errno);
	errno = 0;
	file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (file < 0 || H5Fclose(file) < 0 || !fclib_write_local(local, name) ||
	    (sol && !fclib_write_solution(sol, name)))
		_exit(errno_status(errno));
	_exit(0);
}

/* What became of the child writing o's temporary file: PX_OK, or why it
 * failed, naming the target. */
static int reaped(const struct px_outfile *o, pid_t pid, struct px_error *err)
{
	int status, code;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return px_error_set(err, PX_ERR_IO,
					    "%s: cannot write: lost the HDF5 writer process: %s",
					    o->path, strerror(errno));
	if (WIFSIGNALED(status))
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot write: the HDF5 writer process died (%s)",
				    o->path, strsignal(WTERMSIG(status)));
	code = WEXITSTATUS(status);
	if (code > 100)
		return px_error_set(err, PX_ERR_IO, "%s: cannot write: %s",
				    o->path, strerror(code - 100));
	if (code)
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot write: libfclib could not write it",
				    o->path);
	return PX_OK;
}

/* libfclib takes non-const pointers but only reads them. */
static int write_all(const char *path, const struct px_problem *p,
		     const struct csr *w, double *mu, const double *r,
		     double *u, struct px_error *err)
{
	static char title[] = "proxima", description[] =
		"written by proxima (px_fclib_write)", math_info[] = "";
	const int m = (int)(3 * px_problem_n_contacts(p));
	struct fclib_info info = {title, description, math_info};
	struct fclib_matrix wm = {
		.nzmax = w->p[m], .m = m, .n = m, .p = w->p, .i = w->i,
		.x = w->x, .nz = -2, .info = NULL,
	};
	struct fclib_local local = {
		.W = &wm, .mu = mu, .q = (double *)px_problem_b_const(p),
		.spacedim = 3, .info = &info,
	};
	struct fclib_solution sol = {.u = u, .r = (double *)r};
	struct px_outfile o;
	pid_t pid;
	int rc;

	if ((rc = px_outfile_open(&o, path, err)))
		return rc;
	if (o.direct) { /* HDF5 seeks and reads back: a file it must be */
		px_outfile_abort(&o);
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot write: not a regular file (HDF5 writes only to one)",
				    path);
	}
	pid = fork();
	if (pid == 0)
		child(o.tmp, &local, r ? &sol : NULL);
	rc = pid < 0 ? px_error_set(err, PX_ERR_IO,
				    "%s: cannot write: cannot start the HDF5 writer process: %s",
				    path, strerror(errno))
		     : reaped(&o, pid, err);
	if (rc) {
		px_outfile_abort(&o);
		return rc;
	}
	return px_outfile_commit(&o, err);
}

int px_fclib_write(const char *path, const struct px_problem *p,
		   const double *r, struct px_error *err)
{
	const size_t nc = px_problem_n_contacts(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	struct csr w = {NULL, NULL, NULL};
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;
	double *mu = NULL, *u = NULL;
	struct fc_quiet quiet;
	int rc;

	if (px_problem_block_size(p) != 3 ||
	    px_problem_assembled(p, &rowptr, &cols, &blocks))
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: an FCLib local problem holds an assembled A of 3-row contacts only",
				    path);
	if (3 * nc >= INT_MAX || rowptr[nc] >= INT_MAX / 9)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: the problem is too large for FCLib's int indices",
				    path);
	mu = malloc(nc * sizeof *mu);
	u = r ? malloc(3 * nc * sizeof *u) : NULL;
	if (!mu || (r && !u) || to_csr(p, &w)) {
		rc = px_error_set(err, PX_ERR_NOMEM,
				  "%s: out of memory writing the problem", path);
		goto out;
	}
	for (size_t k = 0; k < nc; k++)
		mu[k] = fr[k].mu;
	if (r)
		px_problem_apply(p, r, u, 1);
	fc_quiet_begin(&quiet);
	rc = write_all(path, p, &w, mu, r, u, err);
	fc_quiet_end(&quiet);
out:
	free(w.p);
	free(w.i);
	free(w.x);
	free(mu);
	free(u);
	return rc;
}
