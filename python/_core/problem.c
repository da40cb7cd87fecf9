/* _core.Problem: a struct px_problem (problem.h) with 3-row contacts, made
 * from BSR arrays (the package converts dense and scipy.sparse matrices to
 * them), from the rigid or factorized form of A (per-body inverse masses
 * and inertias, per-contact frames and lever arms; or per-contact J and
 * M^-1 J^T blocks), or read from a .dat or FCLib file (io.h), written back
 * to either by the file's name (a rigid or factorized A assembled first).
 * Every array handed in is copied: the core keeps its own arrays. The
 * package checks every input and names what is wrong; the checks here
 * keep a direct call from reading past an array's end. */
#include "core.h"

#include <math.h>
#include <string.h>

/* obj as a C-contiguous 1-D array of type t (a new reference), or NULL
 * with proxima.Error naming what. */
static PyArrayObject *vector(PyObject *obj, int t, const char *what)
{
	PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(
		obj, t, 1, 1, NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);

	if (!a) {
		PyErr_Clear();
		px_py_fail("%s: expected a 1-D array of numbers", what);
	}
	return a;
}

static PyObject *wrap(struct px_problem *p)
{
	struct px_py_problem *self = PyObject_New(struct px_py_problem,
						  &px_py_problem_type);

	if (!self) {
		px_problem_destroy(p);
		return NULL;
	}
	self->p = p;
	return (PyObject *)self;
}

/* q and mu into p (3n and n numbers, sizes checked), then validate. */
static int fill(struct px_problem *p, PyArrayObject *q, PyArrayObject *mu,
		struct px_error *err)
{
	const size_t n = px_problem_n_contacts(p);

	memcpy(px_problem_b(p), PyArray_DATA(q), 3 * n * sizeof(double));
	for (size_t k = 0; k < n; k++) {
		double m = ((const double *)PyArray_DATA(mu))[k];

		px_problem_friction(p)[k] = (struct px_friction_params){m, m, m, 0};
	}
	return px_problem_validate(p, err);
}

/* 0 when a holds `want` elements, else proxima.Error naming it. */
static int sized(PyArrayObject *a, size_t want, const char *what)
{
	if ((size_t)PyArray_SIZE(a) == want)
		return 0;
	px_py_fail("%s: expected %zu numbers, got %zu", what, want,
		   (size_t)PyArray_SIZE(a));
	return -1;
}

/* Problem(rowptr, cols, blocks, q, mu): rowptr (n + 1 block-row
 * pointers), cols (block columns), blocks (3x3 row-major each), q (3n),
 * mu (n). */
static PyObject *problem_new(PyTypeObject *type, PyObject *args,
			     PyObject *kw)
{
	static char *kwlist[] = {(char *)"rowptr", (char *)"cols",
				 (char *)"blocks", (char *)"q",
				 (char *)"mu", NULL};
	PyObject *o_rowptr, *o_cols, *o_blocks, *o_q, *o_mu;
	PyArrayObject *rowptr = NULL, *cols = NULL, *blocks = NULL, *q = NULL,
		      *mu = NULL;
	struct px_problem *p = NULL;
	struct px_error err = {0};
	PyObject *out = NULL;
	size_t n, nnzb;

	(void)type;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO", kwlist, &o_rowptr,
					 &o_cols, &o_blocks, &o_q, &o_mu))
		return NULL;
	if (!(rowptr = vector(o_rowptr, NPY_UINTP, "rowptr")) ||
	    !(cols = vector(o_cols, NPY_UINT32, "cols")) ||
	    !(blocks = vector(o_blocks, NPY_FLOAT64, "blocks")) ||
	    !(q = vector(o_q, NPY_FLOAT64, "q")) ||
	    !(mu = vector(o_mu, NPY_FLOAT64, "mu")))
		goto out;
	n = (size_t)PyArray_SIZE(mu);
	nnzb = (size_t)PyArray_SIZE(cols);
	if ((size_t)PyArray_SIZE(rowptr) != n + 1) {
		px_py_fail("rowptr: expected %zu block-row pointers (%zu contacts + 1), got %zu",
			   n + 1, n, (size_t)PyArray_SIZE(rowptr));
		goto out;
	}
	if ((size_t)PyArray_SIZE(q) != 3 * n) {
		px_py_fail("q: expected %zu numbers (%zu contacts x 3 rows), got %zu",
			   3 * n, n, (size_t)PyArray_SIZE(q));
		goto out;
	}
	if ((size_t)PyArray_SIZE(blocks) != 9 * nnzb) {
		px_py_fail("blocks: expected %zu numbers (%zu blocks of 3 x 3), got %zu",
			   9 * nnzb, nnzb, (size_t)PyArray_SIZE(blocks));
		goto out;
	}
	if (((const size_t *)PyArray_DATA(rowptr))[n] != nnzb) {
		px_py_fail("rowptr: the last pointer is %zu, expected the number of blocks, %zu",
			   ((const size_t *)PyArray_DATA(rowptr))[n], nnzb);
		goto out;
	}
	if (n == 0) {
		px_py_fail("W: a problem needs at least one contact, got a 0 x 0 matrix");
		goto out;
	}
	if (px_problem_create(n, 3, &p, &err) ||
	    px_problem_set_assembled(p, PyArray_DATA(rowptr),
				     PyArray_DATA(cols), PyArray_DATA(blocks),
				     &err)) {
		px_py_raise(&err);
		goto out;
	}
	if (fill(p, q, mu, &err)) {
		px_py_raise(&err);
		goto out;
	}
	out = wrap(p);
	p = NULL;
out:
	px_problem_destroy(p);
	Py_XDECREF(rowptr);
	Py_XDECREF(cols);
	Py_XDECREF(blocks);
	Py_XDECREF(q);
	Py_XDECREF(mu);
	return out;
}

/* rigid(inv_mass, inv_inertia, body_a, body_b, frames, lever, q, mu,
 * positions) -> Problem, flat arrays: inv_mass (nb), inv_inertia (9 nb,
 * row-major), body_a and body_b (n, PX_STATIC for the static world),
 * frames (9 n, rows n, s, t), lever (6 n: r_a, r_b), q (3n), mu (n),
 * positions (3n) or None (zeros). */
static PyObject *problem_rigid(PyObject *cls, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {(char *)"inv_mass", (char *)"inv_inertia",
				 (char *)"body_a", (char *)"body_b",
				 (char *)"frames", (char *)"lever", (char *)"q",
				 (char *)"mu", (char *)"positions", NULL};
	PyObject *o[9] = {NULL};
	PyArrayObject *a[9] = {NULL};
	static const int type[9] = {NPY_FLOAT64, NPY_FLOAT64, NPY_UINT32,
				    NPY_UINT32,  NPY_FLOAT64, NPY_FLOAT64,
				    NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64};
	struct px_problem *p = NULL;
	struct px_error err = {0};
	PyObject *out = NULL;
	size_t n, nb;

	(void)cls;
	o[8] = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOOOO|O", kwlist, &o[0],
					 &o[1], &o[2], &o[3], &o[4], &o[5],
					 &o[6], &o[7], &o[8]))
		return NULL;
	for (int i = 0; i < 9; i++)
		if ((i < 8 || o[i] != Py_None) &&
		    !(a[i] = vector(o[i], type[i], kwlist[i])))
			goto out;
	n = (size_t)PyArray_SIZE(a[7]);
	nb = (size_t)PyArray_SIZE(a[0]);
	if (n == 0) {
		px_py_fail("mu: a problem needs at least one contact");
		goto out;
	}
	if (sized(a[1], 9 * nb, "inv_inertia") ||
	    sized(a[2], n, "body_a") || sized(a[3], n, "body_b") ||
	    sized(a[4], 9 * n, "frames") || sized(a[5], 6 * n, "lever") ||
	    sized(a[6], 3 * n, "q") || (a[8] && sized(a[8], 3 * n, "positions")))
		goto out;
	if (px_problem_create(n, 3, &p, &err))
		goto fail;
	for (size_t k = 0; k < n; k++) {
		static const double origin[3] = {0.0, 0.0, 0.0};
		const double *at = a[8] ? (const double *)PyArray_DATA(a[8]) + 3 * k
					: origin;

		if (px_problem_set_geometry(
			    p, k, at, (const double *)PyArray_DATA(a[4]) + 9 * k,
			    &err))
			goto fail;
	}
	if (px_problem_set_rigid(p, nb, PyArray_DATA(a[0]), PyArray_DATA(a[1]),
				 PyArray_DATA(a[2]), PyArray_DATA(a[3]),
				 PyArray_DATA(a[5]), &err) ||
	    fill(p, a[6], a[7], &err))
		goto fail;
	out = wrap(p);
	p = NULL;
	goto out;
fail:
	px_py_raise(&err);
out:
	px_problem_destroy(p);
	for (int i = 0; i < 9; i++)
		Py_XDECREF(a[i]);
	return out;
}

/* factorized(n_bodies, body_a, body_b, jac, minv_jt, q, mu) -> Problem,
 * flat arrays: jac per contact J_a then J_b (3 x 6 row-major each), minv_jt
 * per contact (M^-1 J^T)_a then _b (6 x 3 row-major each). */
static PyObject *problem_factorized(PyObject *cls, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = {(char *)"n_bodies", (char *)"body_a",
				 (char *)"body_b", (char *)"jac",
				 (char *)"minv_jt", (char *)"q", (char *)"mu",
				 NULL};
	PyObject *o[6];
	PyArrayObject *a[6] = {NULL};
	static const int type[6] = {NPY_UINT32,  NPY_UINT32,  NPY_FLOAT64,
				    NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64};
	struct px_problem *p = NULL;
	struct px_error err = {0};
	PyObject *out = NULL;
	Py_ssize_t nb;
	size_t n;

	(void)cls;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "nOOOOOO", kwlist, &nb,
					 &o[0], &o[1], &o[2], &o[3], &o[4],
					 &o[5]))
		return NULL;
	if (nb < 0)
		return px_py_fail("n_bodies: expected a count >= 0, got %zd", nb);
	for (int i = 0; i < 6; i++)
		if (!(a[i] = vector(o[i], type[i], kwlist[i + 1])))
			goto out;
	n = (size_t)PyArray_SIZE(a[5]);
	if (n == 0) {
		px_py_fail("mu: a problem needs at least one contact");
		goto out;
	}
	if (sized(a[0], n, "body_a") || sized(a[1], n, "body_b") ||
	    sized(a[2], 36 * n, "jac") || sized(a[3], 36 * n, "minv_jt") ||
	    sized(a[4], 3 * n, "q"))
		goto out;
	if (px_problem_create(n, 3, &p, &err) ||
	    px_problem_set_factorized(p, (size_t)nb, PyArray_DATA(a[0]),
				      PyArray_DATA(a[1]), PyArray_DATA(a[2]),
				      PyArray_DATA(a[3]), &err) ||
	    fill(p, a[4], a[5], &err)) {
		px_py_raise(&err);
		goto out;
	}
	out = wrap(p);
	p = NULL;
out:
	px_problem_destroy(p);
	for (int i = 0; i < 6; i++)
		Py_XDECREF(a[i]);
	return out;
}

/* assemble() -> Problem: the assembled problem of any form. */
static PyObject *problem_assemble(PyObject *obj, PyObject *unused)
{
	const struct px_problem *p = ((struct px_py_problem *)obj)->p;
	struct px_problem *a = NULL;
	struct px_error err = {0};
	int rc;

	(void)unused;
	Py_BEGIN_ALLOW_THREADS
	rc = px_problem_assemble(p, &a, &err);
	Py_END_ALLOW_THREADS
	if (rc)
		return px_py_raise(&err);
	return wrap(a);
}

static void problem_dealloc(PyObject *obj)
{
	px_problem_destroy(((struct px_py_problem *)obj)->p);
	PyObject_Free(obj);
}

static PyObject *problem_read(PyObject *cls, PyObject *args)
{
	PyObject *path_obj;
	struct px_problem *p = NULL;
	struct px_error err = {0};
	int rc;

	(void)cls;
	if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = px_problem_read(PyBytes_AS_STRING(path_obj), &p, PX_FCLIB_R_NONE,
			     NULL, &err);
	Py_END_ALLOW_THREADS
	Py_DECREF(path_obj);
	if (rc)
		return px_py_raise(&err);
	return wrap(p);
}

static PyObject *problem_write(PyObject *obj, PyObject *args)
{
	const struct px_problem *p = ((struct px_py_problem *)obj)->p;
	struct px_problem *assembled = NULL;
	PyObject *path_obj;
	struct px_error err = {0};
	enum px_file_format to;
	const char *path;
	int rc;

	if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
		return NULL;
	path = PyBytes_AS_STRING(path_obj);
	to = px_file_format_of_name(path);
	if (to == PX_FILE_UNKNOWN) {
		px_py_fail("%s: unknown output format (expected a name ending in .dat, .hdf5 or .h5)",
			   path);
		Py_DECREF(path_obj);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	rc = px_problem_form(p) == PX_FORM_ASSEMBLED
		     ? PX_OK
		     : px_problem_assemble(p, &assembled, &err);
	if (!rc) {
		const struct px_problem *w = assembled ? assembled : p;

		rc = to == PX_FILE_DAT ? px_dat_write(path, w, &err)
				       : px_fclib_write(path, w, NULL, &err);
	}
	px_problem_destroy(assembled);
	Py_END_ALLOW_THREADS
	Py_DECREF(path_obj);
	if (rc)
		return px_py_raise(&err);
	Py_RETURN_NONE;
}

static PyObject *new_vector(size_t n, int type, const void *src, size_t elsize)
{
	npy_intp dim = (npy_intp)n;
	PyObject *a = PyArray_SimpleNew(1, &dim, type);

	if (a && n)
		memcpy(PyArray_DATA((PyArrayObject *)a), src, n * elsize);
	return a;
}

static PyObject *problem_q(PyObject *obj, PyObject *unused)
{
	const struct px_problem *p = ((struct px_py_problem *)obj)->p;

	(void)unused;
	return new_vector(px_problem_n_contacts(p) * px_problem_block_size(p),
			  NPY_FLOAT64, px_problem_b_const(p), sizeof(double));
}

static PyObject *problem_mu(PyObject *obj, PyObject *unused)
{
	const struct px_problem *p = ((struct px_py_problem *)obj)->p;
	const struct px_friction_params *f = px_problem_friction_const(p);
	size_t n = px_problem_n_contacts(p);
	npy_intp dim = (npy_intp)n;
	PyObject *a = PyArray_SimpleNew(1, &dim, NPY_FLOAT64);

	(void)unused;
	for (size_t k = 0; a && k < n; k++)
		((double *)PyArray_DATA((PyArrayObject *)a))[k] = f[k].mu;
	return a;
}

/* (rowptr, cols, blocks) copies of the stored BSR arrays: blocks of
 * shape (nnzb, bs, bs). */
static PyObject *problem_bsr(PyObject *obj, PyObject *unused)
{
	const struct px_problem *p = ((struct px_py_problem *)obj)->p;
	const size_t n = px_problem_n_contacts(p), bs = px_problem_block_size(p);
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;
	PyObject *r, *c, *b;
	npy_intp dims[3];

	(void)unused;
	if (px_problem_assembled(p, &rowptr, &cols, &blocks))
		return px_py_fail("W: the problem's A is not assembled");
	dims[0] = (npy_intp)rowptr[n];
	dims[1] = dims[2] = (npy_intp)bs;
	r = new_vector(n + 1, NPY_UINTP, rowptr, sizeof *rowptr);
	c = new_vector(rowptr[n], NPY_UINT32, cols, sizeof *cols);
	b = PyArray_SimpleNew(3, dims, NPY_FLOAT64);
	if (!r || !c || !b) {
		Py_XDECREF(r);
		Py_XDECREF(c);
		Py_XDECREF(b);
		return NULL;
	}
	memcpy(PyArray_DATA((PyArrayObject *)b), blocks,
	       rowptr[n] * bs * bs * sizeof *blocks);
	return Py_BuildValue("(NNN)", r, c, b);
}

static PyObject *problem_dense(PyObject *obj, PyObject *unused)
{
	const struct px_problem *p = ((struct px_py_problem *)obj)->p;
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	npy_intp dims[2] = {(npy_intp)m, (npy_intp)m};
	PyObject *a = PyArray_ZEROS(2, dims, NPY_FLOAT64, 0);

	(void)unused;
	if (a && px_problem_to_dense(p, PyArray_DATA((PyArrayObject *)a))) {
		Py_DECREF(a);
		return PyErr_NoMemory();
	}
	return a;
}

/* apply(x, add_q) -> W x (+ q) */
static PyObject *problem_apply(PyObject *obj, PyObject *args)
{
	const struct px_problem *p = ((struct px_py_problem *)obj)->p;
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	PyObject *o_x, *y;
	PyArrayObject *x;
	int add_q = 0;
	npy_intp dim = (npy_intp)m;

	if (!PyArg_ParseTuple(args, "O|p", &o_x, &add_q))
		return NULL;
	if (!(x = vector(o_x, NPY_FLOAT64, "x")))
		return NULL;
	if ((size_t)PyArray_SIZE(x) != m) {
		Py_DECREF(x);
		return px_py_fail("x: expected %zu numbers, got %zu", m,
				  (size_t)PyArray_SIZE(x));
	}
	y = PyArray_SimpleNew(1, &dim, NPY_FLOAT64);
	if (y)
		px_problem_apply(p, PyArray_DATA(x),
				 PyArray_DATA((PyArrayObject *)y), add_q);
	Py_DECREF(x);
	return y;
}

static PyObject *problem_n_contacts(PyObject *obj, void *unused)
{
	(void)unused;
	return PyLong_FromSize_t(
		px_problem_n_contacts(((struct px_py_problem *)obj)->p));
}

static PyObject *problem_block_size(PyObject *obj, void *unused)
{
	(void)unused;
	return PyLong_FromUnsignedLong(
		px_problem_block_size(((struct px_py_problem *)obj)->p));
}

static PyObject *problem_nbytes(PyObject *obj, void *unused)
{
	(void)unused;
	return PyLong_FromSize_t(
		px_problem_bytes(((struct px_py_problem *)obj)->p));
}

static PyObject *problem_form(PyObject *obj, void *unused)
{
	static const char *const names[] = {"none", "assembled", "factorized",
					    "rigid"};

	(void)unused;
	return PyUnicode_FromString(
		names[px_problem_form(((struct px_py_problem *)obj)->p)]);
}

static PyObject *problem_n_bodies(PyObject *obj, void *unused)
{
	(void)unused;
	return PyLong_FromSize_t(
		px_problem_n_bodies(((struct px_py_problem *)obj)->p));
}

struct px_problem *px_py_problem_copy(const struct px_problem *p,
				      struct px_error *err)
{
	struct px_problem *c;

	return px_problem_copy(p, &c, err) ? NULL : c;
}

static PyMethodDef problem_methods[] = {
	{"read", problem_read, METH_VARARGS | METH_CLASS,
	 "read(path) -> Problem: a .dat or FCLib file (px_problem_read)."},
	{"rigid", PX_PY_METH(problem_rigid),
	 METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	 "rigid(inv_mass, inv_inertia, body_a, body_b, frames, lever, q, mu, "
	 "positions=None) -> Problem (px_problem_set_rigid), flat arrays."},
	{"factorized", PX_PY_METH(problem_factorized),
	 METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	 "factorized(n_bodies, body_a, body_b, jac, minv_jt, q, mu) -> Problem "
	 "(px_problem_set_factorized), flat arrays."},
	{"assemble", problem_assemble, METH_NOARGS,
	 "assemble() -> Problem: the assembled problem (px_problem_assemble)."},
	{"write", problem_write, METH_VARARGS,
	 "write(path): .dat, .hdf5 or .h5 by the name (assembled first)."},
	{"q", problem_q, METH_NOARGS, "q() -> a copy of q."},
	{"mu", problem_mu, METH_NOARGS, "mu() -> a copy of mu."},
	{"bsr", problem_bsr, METH_NOARGS,
	 "bsr() -> (rowptr, cols, blocks): copies of the stored BSR arrays."},
	{"dense", problem_dense, METH_NOARGS, "dense() -> W as a dense array."},
	{"apply", problem_apply, METH_VARARGS,
	 "apply(x, add_q=False) -> W x (+ q)."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef problem_getset[] = {
	{"n_contacts", problem_n_contacts, NULL, "contacts", NULL},
	{"block_size", problem_block_size, NULL, "rows per contact", NULL},
	{"nbytes", problem_nbytes, NULL, "bytes the core holds", NULL},
	{"form", problem_form, NULL, "A's form: assembled, factorized, rigid",
	 NULL},
	{"n_bodies", problem_n_bodies, NULL, "bodies of a factorized or rigid A",
	 NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject px_py_problem_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "proxima._core.Problem",
	.tp_basicsize = sizeof(struct px_py_problem),
	.tp_dealloc = problem_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A contact problem held by libproxima (use proxima.Problem).",
	.tp_methods = problem_methods,
	.tp_getset = problem_getset,
	.tp_new = problem_new,
};
