/* The HDF5 side of reading an FCLib file (doc/design.md, section 8) that
 * libfclib 3.1.0 does not do safely, so we do it by hand with the HDF5 C
 * API, errors silenced:
 *
 * - Structure checks before fclib_read_local / fclib_read_global. Those
 *   wrap every HDF5 call in an assertion that prints and calls exit(1) (a
 *   missing dataset, or one whose data cannot be read, ends the process:
 *   so each dataset is read here once, into scratch), allocate each array from the sizes
 *   m, n, nz, nzmax they read and then read the whole dataset into it (a
 *   longer dataset overruns the heap), and divide by spacedim unchecked. So
 *   every group and dataset they read is checked here first: present, of
 *   the right class, of the length they will allocate.
 * - The impulses r of /guesses/1 or /solution. fclib_read_guesses opens the
 *   file read-write (it fails on a read-only file and may touch a shared
 *   one) and reads every guess; we read one dataset, read-only. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fclib_io.h"

enum kind { K_INT, K_REAL, K_STRING };

static const char *const kind_name[] = {"integers", "reals",
					"a fixed-length string"};

struct chk {
	hid_t file;
	const char *path;
	struct px_error *err;
};

/* A sparse matrix group's sizes, as read_matrix in libfclib reads them. */
struct dims {
	int m, n, nz, nzmax;
};

void fc_quiet_begin(struct fc_quiet *q)
{
	H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void fc_quiet_end(const struct fc_quiet *q)
{
	H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

static int fail(const struct chk *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "<path>: <fmt>" */
static int fail(const struct chk *c, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return px_error_set(c->err, PX_ERR_FORMAT, "%s: %s", c->path, what);
}

/* An error counts as present: libfclib, which tests links the same way,
 * would then go on and exit, and opening it here fails with a message. */
static int exists(const struct chk *c, const char *name)
{
	return H5Lexists(c->file, name, H5P_DEFAULT) != 0;
}


/* Open name, which must be an object of type want (a group or a dataset);
 * callers check parents first, so "missing" names the first one absent. */
static int open_node(const struct chk *c, const char *name, H5I_type_t want,
		     hid_t *id)
{
	const char *what = want == H5I_GROUP ? "group" : "dataset";

	if (!exists(c, name))
		return fail(c, "missing %s %s", what, name);
	*id = H5Oopen(c->file, name, H5P_DEFAULT);
	if (*id < 0)
		return fail(c, "%s: cannot open the %s", name, what);
	if (H5Iget_type(*id) != want) {
		H5Oclose(*id);
		return fail(c, "%s is not a %s", name, what);
	}
	return PX_OK;
}

static int group(const struct chk *c, const char *name)
{
	hid_t id;
	int rc = open_node(c, name, H5I_GROUP, &id);

	if (!rc)
		H5Oclose(id);
	return rc;
}

static int class_ok(hid_t type, enum kind k)
{
	switch (H5Tget_class(type)) {
	case H5T_INTEGER: return k == K_INT;
	case H5T_FLOAT: return k == K_REAL;
	case H5T_STRING: return k == K_STRING && H5Tis_variable_str(type) == 0;
	default: return 0;
	}
}

/* Read the count values of dataset id (of file type type) as libfclib
 * will, into a scratch buffer (the one integer into *ival when not NULL):
 * its header may be sound and its data still cut off or corrupt, and
 * libfclib exits on a read that fails. Returns 0 or -1. */
static int read_all(hid_t id, hid_t type, enum kind k, long long count,
		    int *ival)
{
	const hid_t mem = k == K_INT ? H5T_NATIVE_INT
			: k == K_REAL ? H5T_NATIVE_DOUBLE : type;
	const size_t size = k == K_STRING ? H5Tget_size(type) : 8;
	void *buf;
	int rc;

	if (size == 0 || (size_t)count > SIZE_MAX / size / 2)
		return -1;
	buf = malloc(count ? (size_t)count * size : 1);
	if (!buf)
		return -1;
	rc = H5Dread(id, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0 ? -1 : 0;
	if (!rc && ival)
		*ival = *(const int *)buf;
	free(buf);
	return rc;
}

/* The values of dataset id are elements of a sane size, and the file holds
 * them (their bytes at most STORED_RATIO times what the file stores for the
 * dataset, plus a mebibyte: compressed data may be smaller): a file of a
 * few kilobytes that declares gigabytes would have HDF5 and libfclib
 * allocate them, and libfclib exits when that fails. */
#define STORED_RATIO 1024
#define MAX_STRING 65536
static int stored(const struct chk *c, const char *name, hid_t id,
		  hid_t type, enum kind k, long long count)
{
	const size_t size = H5Tget_size(type);
	const hsize_t have = H5Dget_storage_size(id);

	if (size == 0 || size > (k == K_STRING ? MAX_STRING : 16))
		return fail(c, "%s: elements of %zu bytes, expected at most %d",
			    name, size, k == K_STRING ? MAX_STRING : 16);
	if ((double)count * (double)size >
	    (double)have * STORED_RATIO + 1048576.0)
		return fail(c, "%s: %lld values of %zu bytes, but the file stores %llu bytes of them",
			    name, count, size, (unsigned long long)have);
	return PX_OK;
}

/* Listing a group: is `want` among its links, as H5LTfind_dataset (HDF5
 * 1.10) decides it: some link's name starts with it ("titleX" is "title")? */
struct listing {
	const char *want;
	int found;
};

static herr_t note(hid_t g, const char *name, const H5L_info_t *i, void *d)
{
	struct listing *l = d;

	(void)g;
	(void)i;
	/* as H5LTfind_dataset compares: a name that starts with want */
	if (l->want && strncmp(name, l->want, strlen(l->want)) == 0)
		l->found = 1;
	return 0;
}

/* List grp (want: a member to look for, or NULL); -1 when that fails. */
static int list(const struct chk *c, const char *grp, struct listing *l)
{
	hsize_t idx = 0;

	return H5Literate_by_name(c->file, grp, H5_INDEX_NAME, H5_ITER_NATIVE,
				  &idx, note, l, H5P_DEFAULT) < 0 ? -1 : 0;
}

/* libfclib finds optional members by listing their group
 * (H5LTfind_dataset), and exits when that fails: list it here first. */
static int listable(const struct chk *c, const char *grp)
{
	struct listing l = {NULL, 0};

	if (list(c, grp, &l))
		return fail(c, "%s: cannot list its members", grp);
	return PX_OK;
}

/* Open grp/field relative to grp and read its one value of kind k, as
 * libfclib does after listing it (H5LTget_dataset_info and H5LTread_*
 * open it so): 0, or -1 when any of that fails. */
static int open_relative(const struct chk *c, const char *grp,
			 const char *field, enum kind k)
{
	const hid_t g = H5Gopen2(c->file, grp, H5P_DEFAULT);
	const hid_t d = g < 0 ? -1 : H5Dopen2(g, field, H5P_DEFAULT);
	const hid_t t = d < 0 ? -1 : H5Dget_type(d);
	int rc = t >= 0 && class_ok(t, k) &&
			 H5Tget_size(t) <= (k == K_STRING ? MAX_STRING : 16)
		 ? read_all(d, t, k, 1, NULL)
		 : -1;

	if (t >= 0)
		H5Tclose(t);
	if (d >= 0)
		H5Dclose(d);
	if (g >= 0)
		H5Gclose(g);
	return rc;
}

/* Whether the optional member grp/field (one value of kind k) is there, as
 * libfclib decides it (listed in grp); *rc an error when it is listed but
 * HDF5 then cannot find it by name or read it (a corrupt group: libfclib
 * would fail there and exit), or found by name but not listed. name gets
 * "grp/field". */
static int present(const struct chk *c, const char *grp, const char *field,
		   enum kind k, char *name, size_t len, int *rc)
{
	struct listing l = {field, 0};

	snprintf(name, len, "%s/%s", grp, field);
	*rc = PX_OK;
	if (list(c, grp, &l)) {
		*rc = fail(c, "%s: cannot list its members", grp);
		return 0;
	}
	if (l.found != exists(c, name) ||
	    (l.found && open_relative(c, grp, field, k))) {
		*rc = fail(c, "%s: %s", name,
			   l.found ? "listed in its group but cannot be found by name or read (a corrupt group)"
				   : "found by name but not listed in its group (a corrupt group)");
		return 0;
	}
	return l.found;
}

/* Dataset name holds `count` values of kind k (why says where count comes
 * from); with ival not NULL, its one integer goes into *ival. */
static int dataset(const struct chk *c, const char *name, enum kind k,
		   long long count, const char *why, int *ival)
{
	hid_t id, type = -1, space = -1;
	hssize_t got;
	int rc;

	if ((rc = open_node(c, name, H5I_DATASET, &id)))
		return rc;
	type = H5Dget_type(id);
	space = H5Dget_space(id);
	got = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
	if (type < 0 || !class_ok(type, k))
		rc = fail(c, "%s: expected %s", name, kind_name[k]);
	else if (got < 0 || H5Sget_simple_extent_ndims(space) > 1)
		rc = fail(c, "%s: expected a 1-D dataset", name);
	else if (got != count)
		rc = fail(c, "%s: %lld values, expected %lld (%s)", name,
			  (long long)got, count, why);
	else if ((rc = stored(c, name, id, type, k, count)))
		;
	else if (read_all(id, type, k, count, ival) < 0)
		rc = fail(c, "%s: cannot read its values", name);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	H5Dclose(id);
	return rc;
}

static int scalar_int(const struct chk *c, const char *name, int *v)
{
	return dataset(c, name, K_INT, 1, "a scalar", v);
}

/* "<group>/<member>" into buf. */
static const char *member(char *buf, size_t len, const char *grp,
			  const char *name)
{
	snprintf(buf, len, "%s/%s", grp, name);
	return buf;
}

/* The matrix group grp, as libfclib's read_matrix reads it. */
static int matrix(const struct chk *c, const char *grp, struct dims *d)
{
	static const char *const info_real[] = {"conditioning", "determinant"};
	char name[128];
	long long np, ni;
	const char *why;
	int rc;

	if ((rc = group(c, grp)) ||
	    (rc = scalar_int(c, member(name, sizeof name, grp, "nzmax"),
			     &d->nzmax)) ||
	    (rc = scalar_int(c, member(name, sizeof name, grp, "m"), &d->m)) ||
	    (rc = scalar_int(c, member(name, sizeof name, grp, "n"), &d->n)) ||
	    (rc = scalar_int(c, member(name, sizeof name, grp, "nz"), &d->nz)))
		return rc;
	if (d->m < 0 || d->n < 0 || d->nzmax < 0)
		return fail(c, "%s: negative size (m = %d, n = %d, nzmax = %d)",
			    grp, d->m, d->n, d->nzmax);
	if (d->nz < -2)
		return fail(c, "%s/nz = %d: expected -1 (CSC), -2 (CSR) or a triplet count >= 0",
			    grp, d->nz);
	if (d->nz >= 0 && d->nz > d->nzmax)
		return fail(c, "%s/nz = %d exceeds nzmax = %d", grp, d->nz,
			    d->nzmax);
	if (d->nz >= 0) {
		np = ni = d->nz;
		why = "nz, triplet storage";
	} else {
		np = (d->nz == -1 ? (long long)d->n : (long long)d->m) + 1;
		ni = d->nzmax;
		why = d->nz == -1 ? "n + 1 and nzmax, CSC storage"
				  : "m + 1 and nzmax, CSR storage";
	}
	if ((rc = dataset(c, member(name, sizeof name, grp, "p"), K_INT, np,
			  why, NULL)) ||
	    (rc = dataset(c, member(name, sizeof name, grp, "i"), K_INT, ni,
			  why, NULL)) ||
	    (rc = dataset(c, member(name, sizeof name, grp, "x"), K_REAL,
			  d->nzmax, "nzmax", NULL)))
		return rc;
	/* Optional matrix info: libfclib reads all of it once conditioning
	 * is there. */
	if (!present(c, grp, "conditioning", K_REAL, name, sizeof name, &rc))
		return rc;
	for (int k = 0; k < 2; k++)
		if ((rc = dataset(c, member(name, sizeof name, grp, info_real[k]),
				  K_REAL, 1, "a scalar", NULL)))
			return rc;
	if ((rc = dataset(c, member(name, sizeof name, grp, "rank"), K_INT, 1,
			  "a scalar", NULL)))
		return rc;
	if (present(c, grp, "comment", K_STRING, name, sizeof name, &rc))
		return dataset(c, name, K_STRING, 1, "one string", NULL);
	if (rc)
		return rc;
	return PX_OK;
}

/* spacedim must be 3; libfclib divides by it. */
static int spacedim(const struct chk *c, const char *name)
{
	int d, rc = scalar_int(c, name, &d);

	if (rc)
		return rc;
	if (d == 2)
		return fail(c, "%s = 2: 2D problems are not supported (proxima solves 3D contacts)",
			    name);
	if (d != 3)
		return fail(c, "%s = %d, expected 3", name, d);
	return PX_OK;
}

/* The optional info group of title, description, math_info strings. */
static int info(const struct chk *c, const char *grp)
{
	static const char *const fields[] = {"title", "description",
					     "math_info"};
	char name[128];
	int rc;

	if (!exists(c, grp))
		return PX_OK;
	if ((rc = group(c, grp)))
		return rc;
	for (int k = 0; k < 3; k++)
		if ((present(c, grp, fields[k], K_STRING, name, sizeof name, &rc) &&
		     (rc = dataset(c, name, K_STRING, 1, "one string", NULL))) ||
		    rc)
			return rc;
	return PX_OK;
}

/* Rows (or columns) of a contact-space dimension: a positive multiple of 3. */
static int contact_rows(const struct chk *c, const char *what, int rows)
{
	if (rows <= 0)
		return fail(c, "%s = %d: no contacts", what, rows);
	if (rows % 3)
		return fail(c, "%s = %d is not a multiple of spacedim = 3",
			    what, rows);
	return PX_OK;
}

int fc_check_local(hid_t file, const char *path, size_t *nc,
		   struct px_error *err)
{
	const struct chk c = {file, path, err};
	struct dims w;
	int rc;

	if ((rc = group(&c, "/fclib_local")) ||
	    (rc = listable(&c, "/fclib_local")) ||
	    (rc = spacedim(&c, "/fclib_local/spacedim")) ||
	    (rc = matrix(&c, "/fclib_local/W", &w)))
		return rc;
	if (exists(&c, "/fclib_local/V") || exists(&c, "/fclib_local/R"))
		return fail(&c, "/fclib_local/V, /fclib_local/R: mixed problems (V, R, s) are not supported");
	if (w.m != w.n)
		return fail(&c, "/fclib_local/W is %d x %d, expected a square matrix",
			    w.m, w.n);
	if ((rc = contact_rows(&c, "/fclib_local/W/m", w.m)) ||
	    (rc = group(&c, "/fclib_local/vectors")) ||
	    (rc = dataset(&c, "/fclib_local/vectors/q", K_REAL, w.m,
			  "the rows of W", NULL)) ||
	    (rc = dataset(&c, "/fclib_local/vectors/mu", K_REAL, w.m / 3,
			  "one per contact", NULL)))
		return rc;
	*nc = (size_t)w.m / 3;
	return info(&c, "/fclib_local/info");
}

int fc_check_global(hid_t file, const char *path, size_t *nc,
		    struct px_error *err)
{
	const struct chk c = {file, path, err};
	struct dims m, h;
	int rc;

	if ((rc = group(&c, "/fclib_global")) ||
	    (rc = listable(&c, "/fclib_global")) ||
	    (rc = spacedim(&c, "/fclib_global/spacedim")) ||
	    (rc = matrix(&c, "/fclib_global/M", &m)) ||
	    (rc = matrix(&c, "/fclib_global/H", &h)))
		return rc;
	if (exists(&c, "/fclib_global/G"))
		return fail(&c, "/fclib_global/G: equality constraints (G, b) are not supported");
	if (m.m != m.n || m.m == 0)
		return fail(&c, "/fclib_global/M is %d x %d, expected a non-empty square matrix",
			    m.m, m.n);
	if (h.m != m.m)
		return fail(&c, "/fclib_global/H has %d rows, expected %d (the rows of M)",
			    h.m, m.m);
	if ((rc = contact_rows(&c, "/fclib_global/H/n", h.n)) ||
	    (rc = group(&c, "/fclib_global/vectors")) ||
	    (rc = dataset(&c, "/fclib_global/vectors/f", K_REAL, m.m,
			  "the rows of M", NULL)) ||
	    (rc = dataset(&c, "/fclib_global/vectors/w", K_REAL, h.n,
			  "the columns of H", NULL)) ||
	    (rc = dataset(&c, "/fclib_global/vectors/mu", K_REAL, h.n / 3,
			  "one per contact", NULL)))
		return rc;
	*nc = (size_t)h.n / 3;
	return info(&c, "/fclib_global/info");
}

int fc_check_finite(const char *path, const char *name, const double *x,
		    size_t n, struct px_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return px_error_set(err, PX_ERR_FORMAT,
					    "%s: %s[%zu] is not finite (%g)",
					    path, name, i, x[i]);
	return PX_OK;
}

int fc_read_r(hid_t file, const char *path, enum px_fclib_r which, size_t m,
	      double **r, struct px_error *err)
{
	const struct chk c = {file, path, err};
	const char *grp = which == PX_FCLIB_R_GUESS ? "/guesses/1" : "/solution";
	const char *name = which == PX_FCLIB_R_GUESS ? "/guesses/1/r"
						     : "/solution/r";
	double *x;
	hid_t id;
	int rc;

	*r = NULL;
	if (which == PX_FCLIB_R_GUESS && !exists(&c, "/guesses"))
		return fail(&c, "no initial guess (missing group /guesses)");
	if (which == PX_FCLIB_R_SOLUTION && !exists(&c, grp))
		return fail(&c, "no solution (missing group /solution)");
	if ((rc = group(&c, grp)) ||
	    (rc = dataset(&c, name, K_REAL, (long long)m, "the contact rows",
			  NULL)))
		return rc;
	x = malloc((m ? m : 1) * sizeof *x);
	if (!x)
		return px_error_set(err, PX_ERR_NOMEM, "%s: out of memory for %s",
				    path, name);
	id = H5Dopen2(file, name, H5P_DEFAULT);
	if (id < 0 || H5Dread(id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL,
			      H5P_DEFAULT, x) < 0)
		rc = fail(&c, "%s: cannot read", name);
	else
		rc = fc_check_finite(path, name, x, m, err);
	if (id >= 0)
		H5Dclose(id);
	if (rc)
		free(x);
	else
		*r = x;
	return rc;
}
