/* Writer of FCLib local problems (doc/design.md, section 8)
 * through libfclib: W in CSR storage (what Siconos writes) holding every
 * value of A's stored 3 x 3 blocks, column indices sorted in each row; q;
 * mu; and, given impulses r, the solution r and u = W r + q.
 *
 * The file is written under a temporary name beside path and renamed
 * into place when complete (core/outfile.h): libfclib and HDF5 write the
 * temporary file by its name, created empty here (libfclib's writers
 * refuse a file that already holds a problem or a solution, and print
 * when they do). libfclib still exit(1)s if HDF5 fails half-way (a full
 * disk); path is then untouched, but the temporary file stays behind. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Create the temporary file of o as an empty HDF5 file. */
static int create_empty(const struct px_outfile *o, struct px_error *err)
{
	hid_t file = H5Fcreate(o->tmp ? o->tmp : o->path, H5F_ACC_TRUNC,
			       H5P_DEFAULT, H5P_DEFAULT);

	if (file < 0 || H5Fclose(file) < 0)
		return px_error_set(err, PX_ERR_IO,
				    "%s: cannot write: HDF5 could not create it",
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
	const char *name;
	int rc;

	if ((rc = px_outfile_open(&o, path, err)))
		return rc;
	name = o.tmp ? o.tmp : o.path;
	rc = create_empty(&o, err);
	if (!rc && !fclib_write_local(&local, name))
		rc = px_error_set(err, PX_ERR_IO,
				  "%s: libfclib could not write the problem",
				  path);
	if (!rc && r && !fclib_write_solution(&sol, name))
		rc = px_error_set(err, PX_ERR_IO,
				  "%s: libfclib could not write the solution",
				  path);
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
