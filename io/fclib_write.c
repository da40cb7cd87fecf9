/* Writer of FCLib local problems (doc/design.md, section 8)
 * through libfclib: W in CSR storage (what Siconos writes) holding every
 * value of A's stored 3 x 3 blocks, column indices sorted in each row; q;
 * mu; and, given impulses r, the solution r and u = W r + q.
 *
 * libfclib's writers refuse a file that already holds a problem or a
 * solution, and print when they do, so the file is first created empty
 * (truncated) here. They still exit(1) if HDF5 fails half-way (a full
 * disk); we cannot prevent that without writing HDF5 by hand. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fclib_io.h"

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

/* Create path as an empty HDF5 file, replacing what was there. */
static int create_empty(const char *path, struct px_error *err)
{
	FILE *f = fopen(path, "wb"); /* for the system's reason if it fails */
	hid_t file;

	if (!f)
		return px_error_set(err, PX_ERR_IO, "%s: cannot create: %s",
				    path, strerror(errno));
	fclose(f);
	file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (file < 0)
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot create an HDF5 file", path);
	H5Fclose(file);
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
	int rc;

	if ((rc = create_empty(path, err)))
		return rc;
	if (!fclib_write_local(&local, path))
		return px_error_set(err, PX_ERR_IO,
				    "%s: libfclib could not write the problem",
				    path);
	if (r && !fclib_write_solution(&sol, path))
		return px_error_set(err, PX_ERR_IO,
				    "%s: libfclib could not write the solution",
				    path);
	return PX_OK;
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
