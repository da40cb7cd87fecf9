/* Reader of FCLib HDF5 problem files (doc/design.md, section 8)
 * into an assembled problem: a local problem's W, q, mu as A, b, mu; a
 * global problem condensed first (fclib_global.c).
 *
 * libfclib (fclib_read_local, fclib_read_global) reads the problem, after
 * fclib_check.c has made sure it will not exit or overrun a buffer on this
 * file; what libfclib does not check at all (pointers, indices in range,
 * finite values, duplicates, mu >= 0) is checked on what it returns.
 * This is fc_read, the reader itself; px_fclib_read runs it in a child
 * process (fclib_child.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "fclib_io.h"

/* The problem in libfclib's form, local or global. */
struct source {
	struct fclib_local *local;
	struct fclib_global *global;
	size_t nc;
};

/* Open path read-only as HDF5; a missing or unreadable file is reported
 * with the system's reason, like the .dat reader does. */
static int open_file(const char *path, hid_t *file, struct px_error *err)
{
	FILE *f = fopen(path, "rb");

	if (!f)
		return px_error_set(err, PX_ERR_IO, "%s: cannot open: %s", path,
				    strerror(errno));
	fclose(f);
	if (H5Fis_hdf5(path) <= 0)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: not an HDF5 file (expected an FCLib problem)",
				    path);
	*file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (*file < 0)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: cannot open as HDF5 (damaged or truncated?)",
				    path);
	return PX_OK;
}

/* Check the file's structure, read the impulses asked for, then let
 * libfclib read the problem. */
static int load(const char *path, enum px_fclib_r which, struct source *src,
		double **r, struct px_error *err)
{
	hid_t file = H5I_INVALID_HID;
	int local, rc;

	if ((rc = open_file(path, &file, err)))
		return rc;
	local = H5Lexists(file, "/fclib_local", H5P_DEFAULT) > 0;
	if (!local && H5Lexists(file, "/fclib_global", H5P_DEFAULT) <= 0)
		rc = px_error_set(err, PX_ERR_FORMAT,
				  "%s: missing group /fclib_local (or /fclib_global): not an FCLib problem",
				  path);
	else if (local)
		rc = fc_check_local(file, path, &src->nc, err);
	else
		rc = fc_check_global(file, path, &src->nc, err);
	if (!rc && which != PX_FCLIB_R_NONE)
		rc = fc_read_r(file, path, which, 3 * src->nc, r, err);
	H5Fclose(file);
	if (rc)
		return rc;
	if (local)
		src->local = fclib_read_local(path);
	else
		src->global = fclib_read_global(path);
	if (!src->local && !src->global)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: libfclib could not read the %s problem",
				    path, local ? "local" : "global");
	return PX_OK;
}

/* Every value finite, mu >= 0. */
static int check_vectors(const char *path, const struct source *src,
			 struct px_error *err)
{
	const size_t m = 3 * src->nc;
	const struct fclib_local *l = src->local;
	const struct fclib_global *g = src->global;
	const char *mu_name = l ? "/fclib_local/vectors/mu"
				: "/fclib_global/vectors/mu";
	const double *mu = l ? l->mu : g->mu;
	int rc;

	if (l)
		rc = fc_check_finite(path, "/fclib_local/vectors/q", l->q, m,
				     err);
	else if (!(rc = fc_check_finite(path, "/fclib_global/vectors/f", g->f,
					(size_t)g->M->m, err)))
		rc = fc_check_finite(path, "/fclib_global/vectors/w", g->w, m,
				     err);
	if (rc || (rc = fc_check_finite(path, mu_name, mu, src->nc, err)))
		return rc;
	for (size_t k = 0; k < src->nc; k++)
		if (mu[k] < 0)
			return px_error_set(err, PX_ERR_FORMAT,
					    "%s: %s[%zu] = %g is negative", path,
					    mu_name, k, mu[k]);
	return PX_OK;
}

/* The assembled problem: W as blocks (condensed from a global problem),
 * q as b, mu on s and t. */
static int build(const char *path, const struct source *src,
		 struct px_problem **out, struct px_error *err)
{
	const size_t nc = src->nc;
	const double *mu = src->local ? src->local->mu : src->global->mu;
	struct fc_rows w_rows = {0};
	struct fc_bsr w = {0};
	struct px_problem *p = NULL;
	struct px_friction_params *fr;
	struct px_error sub;
	int rc;

	if ((rc = check_vectors(path, src, err)))
		return rc;
	if ((rc = px_problem_create(nc, 3, &p, &sub)))
		return io_core_error(path, rc, &sub, err);
	if (src->local) {
		if ((rc = fc_rows_from_fclib(path, "/fclib_local/W",
					     src->local->W, &w_rows, err)) ||
		    (rc = fc_bsr_from_rows(path, &w_rows, nc, &w, err)))
			goto out;
		memcpy(px_problem_b(p), src->local->q, 3 * nc * sizeof(double));
	} else if ((rc = fc_condense(path, src->global, nc, &w,
				     px_problem_b(p), err))) {
		goto out;
	}
	fr = px_problem_friction(p);
	for (size_t k = 0; k < nc; k++) {
		fr[k].mu = fr[k].mu_s = fr[k].mu_t = mu[k];
		fr[k].mu_tau = 0.0;
	}
	/* a condensed W that overflowed is caught here */
	if ((rc = io_assemble(path, p, w.rowptr, w.cols, w.blocks, err)))
		goto out;
	*out = p;
	p = NULL;
out:
	px_problem_destroy(p);
	fc_rows_free(&w_rows);
	fc_bsr_free(&w);
	return rc;
}

int fc_read(const char *path, struct px_problem **out, enum px_fclib_r which,
	    double **r, struct px_error *err)
{
	struct source src = {NULL, NULL, 0};
	struct fc_quiet quiet;
	int rc;

	*out = NULL;
	if (r)
		*r = NULL;
	else if (which != PX_FCLIB_R_NONE)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: impulses asked for but r is NULL", path);
	fc_quiet_begin(&quiet);
	rc = load(path, which, &src, r, err);
	if (!rc)
		rc = build(path, &src, out, err);
	fc_quiet_end(&quiet);
	/* libfclib's delete functions free what the problem points to, not
	 * the problem itself. */
	if (src.local) {
		fclib_delete_local(src.local);
		free(src.local);
	}
	if (src.global) {
		fclib_delete_global(src.global);
		free(src.global);
	}
	if (rc && r) {
		free(*r);
		*r = NULL;
	}
	return rc;
}
