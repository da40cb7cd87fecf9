/* Orderings and r-factor strategies written in Python (issue 31 item 5):
 * in-process plugins (px_plugin_wrap, loader.h) whose state holds the
 * Python object, put into a config's section (px_config_set_plugin).
 *
 *   ordering  order(perm, info) -> None or a part, before every sweep;
 *             order.prepare(perm, info), when it has one, once per solve
 *             after perm was set to the identity
 *   rfactor   init(r, info) once per solver (a function, or an object's
 *             init), then adapt(r, residual_prev, residual_new) -> True
 *             or None (accept), False (reject: r shrunk in place), after
 *             every sweep when the object has one
 *
 * perm (uint32, n) and r (float64, n x bs) are writable numpy arrays that
 * hold a copy of the solver's, made before each call and copied back
 * after it when the answer is good; info (_core.Info) holds lam, a
 * read-only copy of the current iterate made before each call, and
 * read-only copies of q, diag and mu made once per solve. The arrays own
 * their memory, never the solver's: whatever a callable keeps of them (the
 * arrays, slices, info) stays valid after the solver is gone, and an array
 * it kept is not reused (stage). The copies cost 8 + 24 bytes per contact
 * and call, against the hundreds a sweep reads per contact. The solve runs
 * without the GIL (solve.c, world.c): every call takes it
 * (PyGILState_Ensure).
 *
 * The hot path cannot fail, so a callable's exception or a wrong answer
 * (a part that is no part, perm no longer a permutation, an r not finite
 * or not > 0) is kept in the config's fault record and not copied back
 * (perm and r stay as they were before the call); the monitor (solve.c) then stops the
 * solve at the next sweep boundary and proxima.solve raises it. prepare
 * and init can fail: they return their message as well. */
#include "core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <structmember.h>

/* ---- _core.Info ----------------------------------------------------- */

struct px_py_info {
	PyObject_HEAD
	Py_ssize_t n_contacts;
	int block_size;
	unsigned long long sweep;
	double delta_normal, delta_friction;
	int separable;
	PyObject *lam, *q, *diag, *mu; /* read-only arrays, or None */
	const struct px_problem_info *p; /* during a call only, else NULL */
};

static void info_clear_views(struct px_py_info *in)
{
	Py_XSETREF(in->lam, Py_NewRef(Py_None));
	Py_XSETREF(in->q, Py_NewRef(Py_None));
	Py_XSETREF(in->diag, Py_NewRef(Py_None));
	Py_XSETREF(in->mu, Py_NewRef(Py_None));
}

static void info_dealloc(PyObject *obj)
{
	struct px_py_info *in = (struct px_py_info *)obj;

	Py_XDECREF(in->lam);
	Py_XDECREF(in->q);
	Py_XDECREF(in->diag);
	Py_XDECREF(in->mu);
	Py_TYPE(obj)->tp_free(obj);
}

/* apply(x, add_q=False) -> W x (+ q), a new array */
static PyObject *info_apply(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {(char *)"x", (char *)"add_q", NULL};
	struct px_py_info *in = (struct px_py_info *)obj;
	const size_t m = (size_t)in->n_contacts * (size_t)in->block_size;
	PyObject *o_x, *y;
	PyArrayObject *x;
	npy_intp dim = (npy_intp)m;
	int add_q = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p", kwlist, &o_x, &add_q))
		return NULL;
	if (!in->p)
		return px_py_fail("info.apply: only during a call from the solve (info is not valid after it)");
	x = (PyArrayObject *)PyArray_FROMANY(o_x, NPY_FLOAT64, 1, 2,
					     NPY_ARRAY_CARRAY_RO |
						     NPY_ARRAY_FORCECAST);
	if (!x) {
		PyErr_Clear();
		return px_py_fail("info.apply: x: expected an array of %zu numbers", m);
	}
	if ((size_t)PyArray_SIZE(x) != m) {
		Py_DECREF(x);
		return px_py_fail("info.apply: x: expected %zu numbers, got %zu",
				  m, (size_t)PyArray_SIZE(x));
	}
	y = PyArray_SimpleNew(1, &dim, NPY_FLOAT64);
	if (y)
		in->p->apply(in->p->ctx, PyArray_DATA(x),
			     PyArray_DATA((PyArrayObject *)y), add_q);
	Py_DECREF(x);
	return y;
}

static PyMethodDef info_methods[] = {
	{"apply", PX_PY_METH(info_apply), METH_VARARGS | METH_KEYWORDS,
	 "apply(x, add_q=False) -> W x (+ q) as a new array of n * 3 numbers "
	 "(only during the call)."},
	{NULL, NULL, 0, NULL},
};

static PyMemberDef info_members[] = {
	{"n_contacts", T_PYSSIZET, offsetof(struct px_py_info, n_contacts),
	 READONLY, "the number of contacts n"},
	{"block_size", T_INT, offsetof(struct px_py_info, block_size), READONLY,
	 "rows per contact (3)"},
	{"sweep", T_ULONGLONG, offsetof(struct px_py_info, sweep), READONLY,
	 "the index of the sweep about to run (0-based; 0 in prepare and init)"},
	{"delta_normal", T_DOUBLE, offsetof(struct px_py_info, delta_normal),
	 READONLY,
	 "||change|| of the normal rows in the last accepted sweep that visited them (inf before)"},
	{"delta_friction", T_DOUBLE,
	 offsetof(struct px_py_info, delta_friction), READONLY,
	 "the same for the friction rows"},
	{"separable", T_BOOL, offsetof(struct px_py_info, separable), READONLY,
	 "rfactor init: the friction set lets each friction row have its own r"},
	{"lam", T_OBJECT, offsetof(struct px_py_info, lam), READONLY,
	 "the current iterate, n x 3, read-only, copied before each call (None in rfactor init)"},
	{"q", T_OBJECT, offsetof(struct px_py_info, q), READONLY,
	 "q, n x 3, read-only"},
	{"diag", T_OBJECT, offsetof(struct px_py_info, diag), READONLY,
	 "the diagonal blocks of W, n x 3 x 3, read-only"},
	{"mu", T_OBJECT, offsetof(struct px_py_info, mu), READONLY,
	 "the friction coefficients, n, read-only"},
	{NULL, 0, 0, 0, NULL},
};

PyTypeObject px_py_info_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "proxima.Info",
	.tp_basicsize = sizeof(struct px_py_info),
	.tp_dealloc = info_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "What a Python ordering or r-factor strategy sees of the "
		  "solve (proxima.Config(ordering=..., rfactor=...)): "
		  "n_contacts, block_size, sweep, delta_normal, "
		  "delta_friction, separable, and read-only arrays lam (the "
		  "current iterate), q, diag, mu; apply(x).",
	.tp_methods = info_methods,
	.tp_members = info_members,
};

/* A view of data (nd dims, C order, or strides when given). */
static PyObject *view(int nd, const npy_intp *dims, int type,
		      const npy_intp *strides, const void *data, int writable)
{
	int flags = NPY_ARRAY_ALIGNED |
		    (strides ? 0 : NPY_ARRAY_C_CONTIGUOUS) |
		    (writable ? NPY_ARRAY_WRITEABLE : 0);

	return PyArray_New(&PyArray_Type, nd, (npy_intp *)dims, type,
			   (npy_intp *)strides, (void *)data, 0, flags, NULL);
}

/* A read-only copy of the array v (taken), or NULL. */
static PyObject *read_only_copy(PyObject *v)
{
	PyObject *c;

	if (!v)
		return NULL;
	c = PyArray_NewCopy((PyArrayObject *)v, NPY_CORDER);
	Py_DECREF(v);
	if (c)
		PyArray_CLEARFLAGS((PyArrayObject *)c, NPY_ARRAY_WRITEABLE);
	return c;
}

/* *slot as an array of its own (nd dims, type) holding a copy of src's
 * bytes: the array it holds when nobody else holds that one (a callable
 * kept nothing of the last call) and it has the shape, else a new one.
 * Returns its data, or NULL (an exception set). */
static void *stage(PyObject **slot, int nd, const npy_intp *dims, int type,
		   const void *src, int writable)
{
	PyArrayObject *a = (PyArrayObject *)*slot;

	if (!a || a == (PyArrayObject *)Py_None || Py_REFCNT(a) > 1 ||
	    !PyArray_Check(a) || PyArray_NDIM(a) != nd ||
	    PyArray_TYPE(a) != type ||
	    !PyArray_CompareLists(PyArray_DIMS(a), (npy_intp *)dims, nd)) {
		a = (PyArrayObject *)PyArray_SimpleNew(nd, (npy_intp *)dims,
						       type);
		if (!a)
			return NULL;
		if (!writable)
			PyArray_CLEARFLAGS(a, NPY_ARRAY_WRITEABLE);
		Py_XSETREF(*slot, (PyObject *)a);
	}
	memcpy(PyArray_DATA(a), src, (size_t)PyArray_NBYTES(a));
	return PyArray_DATA(a);
}

/* Copies of p's q, diag and mu into in (lam: stage_lam, per call).
 * Returns 0 or -1 (an exception set). */
static int info_load(struct px_py_info *in, const struct px_problem_info *p)
{
	const npy_intp n = (npy_intp)p->n_contacts, bs = p->bs;
	const npy_intp d2[2] = {n, bs}, d3[3] = {n, bs, bs};
	const npy_intp mu_stride = sizeof *p->friction;
	PyObject *lam = Py_NewRef(Py_None), *q, *diag, *mu;

	q = read_only_copy(view(2, d2, NPY_FLOAT64, NULL, p->b, 0));
	diag = read_only_copy(view(3, d3, NPY_FLOAT64, NULL, p->diag, 0));
	mu = read_only_copy(
		view(1, &n, NPY_FLOAT64, &mu_stride, &p->friction[0].mu, 0));
	if (!q || !diag || !mu) {
		Py_XDECREF(lam);
		Py_XDECREF(q);
		Py_XDECREF(diag);
		Py_XDECREF(mu);
		return -1;
	}
	Py_XSETREF(in->lam, lam);
	Py_XSETREF(in->q, q);
	Py_XSETREF(in->diag, diag);
	Py_XSETREF(in->mu, mu);
	in->n_contacts = n;
	in->block_size = (int)bs;
	in->sweep = 0;
	in->delta_normal = in->delta_friction = HUGE_VAL;
	return 0;
}

/* ---- the in-process plugins ----------------------------------------- */

struct px_py_heur {
	union {
		struct px_plugin_header h;
		struct px_ordering_ops o;
		struct px_rfactor_ops r;
	} ops;
	struct px_py_config *owner; /* its fault record; owns this plugin */
	const char *kind;           /* "ordering" or "rfactor" */
	PyObject *call;    /* ordering: the callable; rfactor: init */
	PyObject *prepare; /* ordering: its prepare, or NULL */
	PyObject *adapt;   /* rfactor: its adapt, or NULL */
	struct px_py_info *info;
	const struct px_problem_info *p; /* the solve's, from prepare on */
	PyObject *arg;        /* perm or r as the callable gets it (stage) */
	unsigned char *seen;  /* ordering: n bytes, the permutation check */
	size_t cap;           /* entries seen holds */
	size_t n;             /* ordering: contacts of the solve running */
	char name[160], init_name[170], adapt_name[170], prepare_name[170];
	char summary[400];
};

static void fault_keep(struct px_py_config *c, PyObject *exc)
{
	if (c->fault) {
		Py_DECREF(exc);
		return;
	}
	c->fault = exc;
}

/* Keep the exception the callable raised, with a note saying where. */
static void fault_raised(struct px_py_heur *h, const char *fmt, ...)
{
	PyObject *t, *v, *tb, *note;
	char where[400];
	va_list ap;

	PyErr_Fetch(&t, &v, &tb);
	PyErr_NormalizeException(&t, &v, &tb);
	if (!v) {
		Py_XDECREF(t);
		Py_XDECREF(tb);
		return;
	}
	if (tb)
		PyException_SetTraceback(v, tb);
	va_start(ap, fmt);
	vsnprintf(where, sizeof where, fmt, ap);
	va_end(ap);
	note = PyObject_CallMethod(v, "add_note", "s", where);
	if (!note)
		PyErr_Clear();
	Py_XDECREF(note);
	Py_XDECREF(t);
	Py_XDECREF(tb);
	fault_keep(h->owner, v);
}

/* Keep a proxima.Error of the formatted message, which also goes into
 * msg[len] when msg is not NULL. */
static void fault_wrong(struct px_py_heur *h, char *msg, size_t len,
			const char *fmt, ...)
{
	char text[PX_ERROR_MSG_MAX];
	PyObject *exc;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (msg)
		snprintf(msg, len, "%s", text);
	exc = PyObject_CallFunction(px_py_error, "s", text);
	if (!exc) {
		PyErr_Clear();
		return;
	}
	fault_keep(h->owner, exc);
}

/* repr(o), at most 60 characters, into buf. */
static const char *short_repr(PyObject *o, char *buf, size_t len)
{
	PyObject *r = PyObject_Repr(o);
	const char *s = r ? PyUnicode_AsUTF8(r) : NULL;

	if (!s) {
		PyErr_Clear();
		s = "(an object without repr)";
	}
	if (strlen(s) > 60)
		snprintf(buf, len, "%.57s...", s);
	else
		snprintf(buf, len, "%s", s);
	Py_XDECREF(r);
	return buf;
}

/* The first entry of perm that breaks a permutation of n, into a message;
 * 0 when perm is one. */
static int perm_broken(struct px_py_heur *h, const uint32_t *perm,
		       char *buf, size_t len)
{
	const size_t n = h->n;

	memset(h->seen, 0, n);
	for (size_t i = 0; i < n; i++) {
		if (perm[i] >= n) {
			snprintf(buf, len, "perm[%zu] = %u is not a contact (%zu contacts)",
				 i, perm[i], n);
			return 1;
		}
		if (h->seen[perm[i]]) {
			size_t j = 0;

			while (perm[j] != perm[i])
				j++;
			snprintf(buf, len, "perm[%zu] = %u repeats perm[%zu]",
				 i, perm[i], j);
			return 1;
		}
		h->seen[perm[i]] = 1;
	}
	return 0;
}

/* The first r that is not finite and > 0, into a message; 0 if none. */
static int r_broken(const double *r, size_t nr, uint32_t bs, char *buf,
		    size_t len)
{
	for (size_t i = 0; i < nr; i++)
		if (!isfinite(r[i]) || !(r[i] > 0.0)) {
			snprintf(buf, len, "r[%zu, %zu] = %g: expected a finite number > 0",
				 i / bs, i % bs, r[i]);
			return 1;
		}
	return 0;
}

/* Room for n entries in seen. Several solvers may share the plugin (kept
 * solvers of one config, of other problems): it grows to the largest. */
static int grow_seen(struct px_py_heur *h, size_t n)
{
	unsigned char *b;

	if (n <= h->cap && h->seen)
		return 0;
	b = realloc(h->seen, n + 1);
	if (!b)
		return -1;
	h->seen = b;
	h->cap = n;
	return 0;
}

/* info's lam, a copy of the iterate, for the next call. 0 or -1. */
static int stage_lam(struct px_py_heur *h)
{
	const npy_intp d2[2] = {(npy_intp)h->p->n_contacts, h->p->bs};

	if (!h->p->lambda)
		return 0;
	return stage(&h->info->lam, 2, d2, NPY_FLOAT64, h->p->lambda, 0)
		       ? 0
		       : -1;
}

static int order_prepare(void *state, const struct px_problem_info *p,
			 uint32_t *perm, char *err, size_t errlen)
{
	struct px_py_heur *h = state;
	const npy_intp n = (npy_intp)p->n_contacts;
	PyGILState_STATE g = PyGILState_Ensure();
	uint32_t *arg;
	char why[256];
	PyObject *res;
	int rc = -1;

	for (size_t k = 0; k < p->n_contacts; k++)
		perm[k] = (uint32_t)k;
	h->p = p;
	h->n = p->n_contacts;
	if (grow_seen(h, p->n_contacts) || info_load(h->info, p)) {
		PyErr_Clear();
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!h->prepare) {
		rc = 0;
		goto out;
	}
	if (!(arg = stage(&h->arg, 1, &n, NPY_UINT32, perm, 1)) ||
	    stage_lam(h)) {
		PyErr_Clear();
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	h->info->p = p;
	res = PyObject_CallFunctionObjArgs(h->prepare, h->arg,
					   (PyObject *)h->info, NULL);
	h->info->p = NULL;
	if (!res) {
		fault_raised(h, "in the ordering %s", h->prepare_name);
		snprintf(err, errlen, "%s raised an exception", h->prepare_name);
		goto out;
	}
	Py_DECREF(res);
	if (perm_broken(h, arg, why, sizeof why)) {
		fault_wrong(h, err, errlen,
			    "the ordering %s left perm no longer a permutation: %s",
			    h->prepare_name, why);
		goto out;
	}
	memcpy(perm, arg, h->n * sizeof *perm);
	rc = 0;
out:
	PyGILState_Release(g);
	return rc;
}

static int order_next(void *state, const struct px_sweep_state *s,
		      uint32_t *perm, int *changed)
{
	struct px_py_heur *h = state;
	const npy_intp n = (npy_intp)h->n;
	const size_t bytes = h->n * sizeof *perm;
	PyGILState_STATE g;
	char why[256], got[64];
	PyObject *res;
	uint32_t *arg;
	int part = PX_PART_FULL;

	if (h->owner->fault) /* the monitor stops the solve after this sweep */
		return PX_PART_FULL;
	g = PyGILState_Ensure();
	if (!(arg = stage(&h->arg, 1, &n, NPY_UINT32, perm, 1)) ||
	    stage_lam(h)) {
		fault_raised(h, "in the ordering %s, before sweep %llu",
			     h->name, (unsigned long long)s->sweep);
		goto out;
	}
	h->info->sweep = (unsigned long long)s->sweep;
	h->info->delta_normal = s->delta_normal;
	h->info->delta_friction = s->delta_friction;
	h->info->p = h->p; /* apply, between sweeps (plugin.h) */
	res = PyObject_CallFunctionObjArgs(h->call, h->arg,
					   (PyObject *)h->info, NULL);
	h->info->p = NULL;
	if (!res) {
		fault_raised(h, "in the ordering %s, before sweep %llu",
			     h->name, (unsigned long long)s->sweep);
		goto out;
	}
	if (res != Py_None) {
		Py_ssize_t v = -1;

		if (PyIndex_Check(res) && !PyBool_Check(res)) {
			v = PyNumber_AsSsize_t(res, NULL);
			if (v == -1 && PyErr_Occurred())
				PyErr_Clear();
		}
		if (v < PX_PART_FULL || v > PX_PART_FRICTION) {
			fault_wrong(h, NULL, 0,
				    "the ordering %s returned %s: expected None, proxima.FULL (0), proxima.NORMAL (1) or proxima.FRICTION (2)",
				    h->name, short_repr(res, got, sizeof got));
			Py_DECREF(res);
			goto out;
		}
		part = (int)v;
	}
	Py_DECREF(res);
	if (perm_broken(h, arg, why, sizeof why)) {
		fault_wrong(h, NULL, 0,
			    "the ordering %s left perm no longer a permutation: %s",
			    h->name, why);
		part = PX_PART_FULL;
		goto out;
	}
	if (memcmp(arg, perm, bytes) != 0) {
		memcpy(perm, arg, bytes);
		*changed = 1;
	}
out:
	PyGILState_Release(g);
	return part;
}

static int r_init(void *state, const struct px_problem_info *p,
		  int separable, double *r, char *err, size_t errlen)
{
	struct px_py_heur *h = state;
	const npy_intp dims[2] = {(npy_intp)p->n_contacts, p->bs};
	const size_t nr = p->n_contacts * p->bs;
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *res;
	double *arg;
	char why[256];
	int rc = -1;

	for (size_t i = 0; i < nr; i++)
		r[i] = NAN; /* what init leaves unset is caught below */
	if (info_load(h->info, p) ||
	    !(arg = stage(&h->arg, 2, dims, NPY_FLOAT64, r, 1))) {
		PyErr_Clear();
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	h->info->separable = separable;
	h->info->p = p;
	res = PyObject_CallFunctionObjArgs(h->call, h->arg,
					   (PyObject *)h->info, NULL);
	h->info->p = NULL;
	if (!res) {
		fault_raised(h, "in the rfactor %s", h->init_name);
		snprintf(err, errlen, "%s raised an exception", h->init_name);
		goto out;
	}
	Py_DECREF(res);
	if (r_broken(arg, nr, p->bs, why, sizeof why)) {
		fault_wrong(h, err, errlen, "the rfactor %s left %s",
			    h->init_name, why);
		goto out;
	}
	memcpy(r, arg, nr * sizeof *r);
	rc = 0;
out:
	PyGILState_Release(g);
	return rc;
}

static int r_adapt(void *state, double residual_prev, double residual_new,
		   double *r, size_t n_r)
{
	struct px_py_heur *h = state;
	const uint32_t bs = (uint32_t)h->info->block_size;
	const npy_intp dims[2] = {(npy_intp)(n_r / bs), bs};
	int verdict = PX_SWEEP_ACCEPT;
	PyGILState_STATE g;
	char why[256], got[64];
	PyObject *res;
	double *arg;

	if (!h->adapt || h->owner->fault)
		return PX_SWEEP_ACCEPT;
	g = PyGILState_Ensure();
	if (!(arg = stage(&h->arg, 2, dims, NPY_FLOAT64, r, 1))) {
		fault_raised(h, "in the rfactor %s", h->adapt_name);
		goto out;
	}
	res = PyObject_CallFunction(h->adapt, "Odd", h->arg, residual_prev,
				    residual_new);
	if (!res) {
		fault_raised(h, "in the rfactor %s", h->adapt_name);
		goto out;
	}
	if (res == Py_False || (PyArray_IsScalar(res, Bool) &&
				!PyObject_IsTrue(res))) {
		verdict = PX_SWEEP_REJECT;
	} else if (res != Py_None && res != Py_True &&
		   !PyArray_IsScalar(res, Bool)) {
		fault_wrong(h, NULL, 0,
			    "the rfactor %s returned %s: expected True or None (accept the sweep) or False (reject it)",
			    h->adapt_name, short_repr(res, got, sizeof got));
		Py_DECREF(res);
		goto out;
	}
	Py_DECREF(res);
	if (r_broken(arg, n_r, bs, why, sizeof why)) {
		fault_wrong(h, NULL, 0, "the rfactor %s left %s", h->adapt_name,
			    why);
		verdict = PX_SWEEP_ACCEPT;
		goto out;
	}
	memcpy(r, arg, n_r * sizeof *r);
out:
	PyGILState_Release(g);
	return verdict;
}

/* The core unloads the plugin with the config (config_dealloc: the GIL
 * is held). */
static void heur_destroy(void *state)
{
	struct px_py_heur *h = state;

	Py_XDECREF(h->call);
	Py_XDECREF(h->prepare);
	Py_XDECREF(h->adapt);
	Py_XDECREF((PyObject *)h->info);
	Py_XDECREF(h->arg);
	free(h->seen);
	free(h);
}

int px_py_fault_raise(struct px_py_config *cfg)
{
	PyObject *e = cfg->fault;

	if (!e)
		return 0;
	cfg->fault = NULL;
	PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(e)), e,
		      PyException_GetTraceback(e));
	return 1;
}

static const char order_doc[] =
	"An ordering written in Python: order(perm, info) before every\n"
	"sweep, with perm a writable array of the permutation, returns None or\n"
	"the part to visit (proxima.FULL, NORMAL or FRICTION).\n";

static const char rfactor_doc[] =
	"An r-factor strategy written in Python: init(r, info) fills r once\n"
	"per solver, adapt(r, residual_prev, residual_new) after every sweep\n"
	"returns True or None (accept) or False (reject, r shrunk in place).\n";

/* getattr(o, name) when it is callable, NULL when o has no such attribute
 * (no exception), or -1 through *bad (an exception set) when it is not
 * callable. */
static PyObject *method(PyObject *o, const char *name, int *bad)
{
	PyObject *m = PyObject_GetAttrString(o, name);

	if (!m) {
		PyErr_Clear();
		return NULL;
	}
	if (!PyCallable_Check(m)) {
		px_py_fail("%s: not callable", name);
		Py_DECREF(m);
		*bad = 1;
		return NULL;
	}
	return m;
}

/* The object's name for messages: its __qualname__, or its class's; and
 * its module. */
static void name_of(PyObject *o, char *buf, size_t len, char *mod,
		    size_t mlen)
{
	PyObject *q = PyObject_GetAttrString(o, "__qualname__");
	PyObject *m;

	if (!q) { /* an instance: its class's */
		PyErr_Clear();
		q = PyObject_GetAttrString((PyObject *)Py_TYPE(o),
					   "__qualname__");
	}
	m = PyObject_GetAttrString(o, "__module__");
	const char *s = q && PyUnicode_Check(q) ? PyUnicode_AsUTF8(q) : NULL;
	const char *ms = m && PyUnicode_Check(m) ? PyUnicode_AsUTF8(m) : NULL;

	PyErr_Clear();
	snprintf(buf, len, "%s", s ? s : Py_TYPE(o)->tp_name);
	snprintf(mod, mlen, "%s", ms ? ms : "?");
	Py_XDECREF(q);
	Py_XDECREF(m);
}

struct px_plugin *px_py_heur_wrap(struct px_py_config *owner,
				  unsigned kind, PyObject *obj)
{
	struct px_py_heur *h = calloc(1, sizeof *h);
	struct px_plugin *pl = NULL;
	struct px_error err = {0};
	char mod[160];
	int bad = 0;

	if (!h)
		return (struct px_plugin *)PyErr_NoMemory();
	h->owner = owner;
	name_of(obj, h->name, sizeof h->name, mod, sizeof mod);
	h->ops.h = (struct px_plugin_header){
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = kind,
		.name = h->name,
		.summary = h->summary,
		.destroy = heur_destroy,
	};
	if (kind == PX_KIND_ORDERING) {
		h->kind = "ordering";
		h->ops.h.ops_size = sizeof h->ops.o;
		h->ops.o.prepare = order_prepare;
		h->ops.o.next = order_next;
		h->ops.o.doc = order_doc;
		h->call = Py_NewRef(obj);
		h->prepare = method(obj, "prepare", &bad);
		snprintf(h->prepare_name, sizeof h->prepare_name, "%s.prepare",
			 h->name);
	} else {
		h->kind = "rfactor";
		h->ops.h.ops_size = sizeof h->ops.r;
		h->ops.r.shape = PX_R_DIAGONAL;
		h->ops.r.init = r_init;
		h->ops.r.adapt = r_adapt;
		h->ops.r.doc = rfactor_doc;
		h->call = method(obj, "init", &bad);
		h->adapt = bad ? NULL : method(obj, "adapt", &bad);
		if (h->call) {
			snprintf(h->init_name, sizeof h->init_name, "%s.init",
				 h->name);
		} else if (!bad) {
			h->call = Py_NewRef(obj); /* a function: init alone */
			snprintf(h->init_name, sizeof h->init_name, "%s",
				 h->name);
		}
		snprintf(h->adapt_name, sizeof h->adapt_name, "%s.adapt",
			 h->name);
	}
	snprintf(h->summary, sizeof h->summary, "the Python %s %s.%s", h->kind,
		 mod, h->name);
	h->info = PyObject_New(struct px_py_info, &px_py_info_type);
	if (h->info) {
		h->info->lam = h->info->q = h->info->diag = h->info->mu = NULL;
		info_clear_views(h->info);
		h->info->p = NULL;
		h->info->separable = 0;
		h->info->n_contacts = 0;
		h->info->block_size = 0;
		h->info->sweep = 0;
		h->info->delta_normal = h->info->delta_friction = HUGE_VAL;
	}
	if (bad || !h->info) {
		heur_destroy(h);
		return NULL;
	}
	if (px_plugin_wrap(&h->ops.h, h, &pl, &err)) {
		heur_destroy(h);
		return (struct px_plugin *)px_py_raise(&err);
	}
	return pl;
}
