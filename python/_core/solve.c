/* _core.solve() and _core.Solver: px_solve and px_solver (solver.h) with
 * the GIL released. Ctrl-C: the config's monitor (px_config_set_monitor)
 * takes the GIL every MONITOR_SECONDS between sweeps and runs the
 * interpreter's signal handlers (PyErr_CheckSignals); when one raises
 * (KeyboardInterrupt) it keeps the exception and stops the solve, which
 * ends "interrupted", and the exception is raised again once the solve has
 * returned: the interpreter stays usable. A config or solver runs one
 * solve at a time (its plugins hold the solve's state): a second one
 * meanwhile, from another thread, is refused. A Python ordering or rfactor
 * (heuristics.c) that fails keeps its exception in the config's fault:
 * the monitor stops the solve at once, and the exception is raised. */
#include "core.h"

#include <math.h>
#include <string.h>
#include <time.h>

#define MONITOR_SECONDS 0.05

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

int px_py_monitor(const struct px_report *so_far, void *user)
{
	struct px_py_monitor *m = user;
	struct timespec now;
	PyGILState_STATE g;
	int stop = 0;

	(void)so_far;
	if (m->cfg && m->cfg->fault) /* a Python ordering or rfactor failed */
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&m->last, &now) < MONITOR_SECONDS)
		return 0;
	m->last = now;
	g = PyGILState_Ensure();
	if (PyErr_CheckSignals() < 0) {
		PyErr_Fetch(&m->type, &m->value, &m->tb);
		stop = 1;
	}
	PyGILState_Release(g);
	return stop;
}

/* lam0 (None: zeros) as a new array of m finite numbers, or NULL. */
static PyArrayObject *start(PyObject *lam0, size_t m)
{
	npy_intp dim = (npy_intp)m;
	PyArrayObject *a, *lam;
	const double *x;

	if (lam0 == Py_None)
		return (PyArrayObject *)PyArray_ZEROS(1, &dim, NPY_FLOAT64, 0);
	a = (PyArrayObject *)PyArray_FROMANY(lam0, NPY_FLOAT64, 1, 1,
					     NPY_ARRAY_IN_ARRAY |
						     NPY_ARRAY_FORCECAST);
	if (!a) {
		PyErr_Clear();
		return (PyArrayObject *)px_py_fail(
			"lam0: expected a 1-D array of %zu numbers", m);
	}
	if ((size_t)PyArray_SIZE(a) != m) {
		px_py_fail("lam0: expected %zu numbers (%zu contacts x 3 rows), got %zu",
			   m, m / 3, (size_t)PyArray_SIZE(a));
		Py_DECREF(a);
		return NULL;
	}
	x = PyArray_DATA(a);
	for (size_t i = 0; i < m; i++)
		if (!isfinite(x[i])) {
			px_py_fail("lam0[%zu] = %g: expected a finite number",
				   i, x[i]);
			Py_DECREF(a);
			return NULL;
		}
	/* a copy of our own: the solve writes into it */
	lam = (PyArrayObject *)PyArray_NewCopy(a, NPY_CORDER);
	Py_DECREF(a);
	return lam;
}

static PyObject *history(const struct px_report *rep)
{
	npy_intp n = (npy_intp)rep->n_history;
	PyObject *res = PyArray_SimpleNew(1, &n, NPY_FLOAT64);
	PyObject *merit = PyArray_SimpleNew(1, &n, NPY_FLOAT64);
	PyObject *sec = PyArray_SimpleNew(1, &n, NPY_FLOAT64);
	PyObject *acc = PyArray_SimpleNew(1, &n, NPY_BOOL);
	PyObject *part = PyArray_SimpleNew(1, &n, NPY_INT32);

	if (!res || !merit || !sec || !acc || !part) {
		Py_XDECREF(res);
		Py_XDECREF(merit);
		Py_XDECREF(sec);
		Py_XDECREF(acc);
		Py_XDECREF(part);
		return NULL;
	}
	for (npy_intp i = 0; i < n; i++) {
		const struct px_sweep_record *h = &rep->history[i];

		((double *)PyArray_DATA((PyArrayObject *)res))[i] = h->residual;
		((double *)PyArray_DATA((PyArrayObject *)merit))[i] = h->merit;
		((double *)PyArray_DATA((PyArrayObject *)sec))[i] = h->seconds;
		((npy_bool *)PyArray_DATA((PyArrayObject *)acc))[i] =
			h->accepted != 0;
		((int32_t *)PyArray_DATA((PyArrayObject *)part))[i] = h->part;
	}
	return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N}", "residual", res,
			     "merit", merit, "accepted", acc, "part", part,
			     "seconds", sec);
}

/* The result of a solve that returned PX_OK, as a dict (the package's
 * Result). Takes lam. */
static PyObject *result(const struct px_problem *p,
			const struct px_config *c, const struct px_report *rep,
			PyArrayObject *lam, int with_history)
{
	const size_t m = (size_t)PyArray_SIZE(lam);
	npy_intp dim = (npy_intp)m;
	char sched[512], accel[512];
	double fc3d, fc3d_abs;
	PyObject *u, *hist;

	u = PyArray_SimpleNew(1, &dim, NPY_FLOAT64);
	if (!u) {
		Py_DECREF(lam);
		return NULL;
	}
	px_problem_apply(p, PyArray_DATA(lam), PyArray_DATA((PyArrayObject *)u),
			 1);
	fc3d = px_merit_fc3d(p, PyArray_DATA(lam), &fc3d_abs);
	px_scheduler_describe(c, sched, sizeof sched);
	px_accelerator_describe(c, accel, sizeof accel);
	hist = with_history ? history(rep) : Py_NewRef(Py_None);
	if (!hist) {
		Py_DECREF(lam);
		Py_DECREF(u);
		return NULL;
	}
	return Py_BuildValue(
		"{s:N,s:N,s:i,s:s,s:O,s:K,s:K,s:d,s:d,s:d,s:d,s:d,s:s,s:s,"
		"s:N,s:i,s:O,s:K,s:K}",
		"lam", lam, "u", u, "stop", rep->stop, "status",
		px_stop_name(rep->stop), "converged",
		rep->converged ? Py_True : Py_False, "sweeps",
		(unsigned long long)rep->sweeps, "rejected",
		(unsigned long long)rep->rejected, "residual", rep->residual,
		"merit", rep->merit, "fc3d_error", fc3d, "fc3d_abs", fc3d_abs,
		"time", rep->seconds, "scheduler", sched, "accelerator", accel,
		"history", hist, "diverged", rep->diverged, "check_failed",
		rep->check_failed ? Py_True : Py_False, "accel_steps",
		(unsigned long long)rep->accel_steps, "best_sweep",
		(unsigned long long)rep->best_sweep);
}

int px_py_claim(struct px_py_config *cfg)
{
	if (cfg->busy) {
		px_py_fail("this config is in use by another solve (one solve at a time per config: build another Config for a solve in parallel)");
		return -1;
	}
	cfg->busy = 1;
	return 0;
}

/* Run one solve (px_solve, or s's when s is not NULL) with the GIL
 * released and the monitor set; returns the result dict or NULL. */
static PyObject *run(const struct px_problem *p, struct px_py_config *cfg,
		     struct px_solver *s, PyArrayObject *lam, int with_history)
{
	struct px_py_monitor m = {0};
	struct px_report rep = {0};
	struct px_error err = {0};
	PyObject *out;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &m.last);
	m.cfg = cfg;
	Py_CLEAR(cfg->fault);
	px_config_set_monitor(cfg->c, px_py_monitor, &m);
	Py_BEGIN_ALLOW_THREADS
	rc = s ? px_solver_solve(s, PyArray_DATA(lam), &rep, &err)
	       : px_solve(p, cfg->c, PyArray_DATA(lam), &rep, &err);
	Py_END_ALLOW_THREADS
	px_config_set_monitor(cfg->c, NULL, NULL);
	if (cfg->fault) {
		/* a Python ordering or rfactor failed: its exception, over
		 * anything else (the solve's own error repeats it) */
		px_py_fault_raise(cfg);
		Py_XDECREF(m.type);
		Py_XDECREF(m.value);
		Py_XDECREF(m.tb);
		out = NULL;
		Py_DECREF(lam);
	} else if (m.type) {
		/* Ctrl-C (or another handler's exception): raise it now */
		PyErr_Restore(m.type, m.value, m.tb);
		out = NULL;
		Py_DECREF(lam);
	} else if (rc) {
		out = px_py_raise(&err);
		Py_DECREF(lam);
	} else {
		out = result(p, cfg->c, &rep, lam, with_history);
	}
	px_report_free(&rep);
	return out;
}

PyObject *px_py_solve(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {(char *)"problem", (char *)"config",
				 (char *)"lam0", (char *)"history", NULL};
	struct px_py_problem *prob;
	struct px_py_config *cfg;
	PyObject *lam0 = Py_None, *out;
	PyArrayObject *lam;
	int with_history = 1;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|Op", kwlist,
					 &px_py_problem_type, &prob,
					 &px_py_config_type, &cfg, &lam0,
					 &with_history))
		return NULL;
	lam = start(lam0, px_problem_n_contacts(prob->p) *
				  px_problem_block_size(prob->p));
	if (!lam)
		return NULL;
	if (px_py_claim(cfg)) {
		Py_DECREF(lam);
		return NULL;
	}
	/* the arguments hold prob and cfg while the GIL is released */
	out = run(prob->p, cfg, NULL, lam, with_history);
	cfg->busy = 0;
	return out;
}

/* ---- _core.Solver ------------------------------------------------------ */

struct px_py_solver {
	PyObject_HEAD
	struct px_problem *p; /* a copy of the problem: solve(q=) changes b */
	struct px_py_config *cfg;
	struct px_solver *s;
	int busy;
};

static PyObject *solver_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {(char *)"problem", (char *)"config", NULL};
	struct px_py_problem *prob;
	struct px_py_config *cfg;
	struct px_py_solver *self;
	struct px_error err = {0};
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!", kwlist,
					 &px_py_problem_type, &prob,
					 &px_py_config_type, &cfg))
		return NULL;
	self = (struct px_py_solver *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	self->p = px_py_problem_copy(prob->p, &err);
	if (!self->p) {
		Py_DECREF(self);
		return px_py_raise(&err);
	}
	Py_INCREF(cfg);
	self->cfg = cfg;
	if (px_py_claim(cfg)) {
		Py_DECREF(self);
		return NULL;
	}
	Py_CLEAR(cfg->fault);
	Py_BEGIN_ALLOW_THREADS
	rc = px_solver_create(self->p, cfg->c, &self->s, &err);
	Py_END_ALLOW_THREADS
	cfg->busy = 0;
	if (cfg->fault) { /* a Python rfactor's init failed */
		px_py_fault_raise(cfg);
		Py_DECREF(self);
		return NULL;
	}
	if (rc) {
		Py_DECREF(self);
		return px_py_raise(&err);
	}
	return (PyObject *)self;
}

static void solver_dealloc(PyObject *obj)
{
	struct px_py_solver *self = (struct px_py_solver *)obj;

	px_solver_destroy(self->s);
	px_problem_destroy(self->p);
	Py_XDECREF(self->cfg);
	Py_TYPE(obj)->tp_free(obj);
}

/* solve(q=None, lam0=None, history=True) -> dict */
static PyObject *solver_solve(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {(char *)"q", (char *)"lam0", (char *)"history", NULL};
	struct px_py_solver *self = (struct px_py_solver *)obj;
	const size_t m = px_problem_n_contacts(self->p) *
			 px_problem_block_size(self->p);
	PyObject *o_q = Py_None, *lam0 = Py_None, *out;
	PyArrayObject *lam, *q = NULL;
	int with_history = 1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOp", kwlist, &o_q, &lam0,
					 &with_history))
		return NULL;
	if (self->busy)
		return px_py_fail("this solver is solving already (one solve at a time per solver)");
	if (o_q != Py_None) {
		q = (PyArrayObject *)PyArray_FROMANY(
			o_q, NPY_FLOAT64, 1, 1,
			NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
		if (!q) {
			PyErr_Clear();
			return px_py_fail("q: expected a 1-D array of %zu numbers",
					  m);
		}
		if ((size_t)PyArray_SIZE(q) != m) {
			Py_DECREF(q);
			return px_py_fail("q: expected %zu numbers (%zu contacts x 3 rows), got %zu",
					  m, m / 3, (size_t)PyArray_SIZE(q));
		}
		for (size_t i = 0; i < m; i++) {
			double x = ((const double *)PyArray_DATA(q))[i];

			if (!isfinite(x)) {
				Py_DECREF(q);
				return px_py_fail("q[%zu] = %g: expected a finite number",
						  i, x);
			}
		}
	}
	lam = start(lam0, m);
	if (!lam) {
		Py_XDECREF(q);
		return NULL;
	}
	if (px_py_claim(self->cfg)) {
		Py_XDECREF(q);
		Py_DECREF(lam);
		return NULL;
	}
	if (q) {
		memcpy(px_problem_b(self->p), PyArray_DATA(q), m * sizeof(double));
		Py_DECREF(q);
	}
	self->busy = 1;
	Py_INCREF(obj); /* held while the GIL is released */
	out = run(self->p, self->cfg, self->s, lam, with_history);
	self->busy = 0;
	self->cfg->busy = 0;
	Py_DECREF(obj);
	return out;
}

static PyObject *solver_q(PyObject *obj, PyObject *unused)
{
	struct px_py_solver *self = (struct px_py_solver *)obj;
	npy_intp dim = (npy_intp)(px_problem_n_contacts(self->p) *
				   px_problem_block_size(self->p));
	PyObject *a = PyArray_SimpleNew(1, &dim, NPY_FLOAT64);

	(void)unused;
	if (a)
		memcpy(PyArray_DATA((PyArrayObject *)a),
		       px_problem_b_const(self->p), (size_t)dim * sizeof(double));
	return a;
}

static PyMethodDef solver_methods[] = {
	{"solve", PX_PY_METH(solver_solve), METH_VARARGS | METH_KEYWORDS,
	 "solve(q=None, lam0=None, history=True) -> dict."},
	{"q", solver_q, METH_NOARGS, "q() -> a copy of the q of the last solve."},
	{NULL, NULL, 0, NULL},
};

PyTypeObject px_py_solver_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "proxima._core.Solver",
	.tp_basicsize = sizeof(struct px_py_solver),
	.tp_dealloc = solver_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A kept px_solver (use proxima.Solver).",
	.tp_methods = solver_methods,
	.tp_new = solver_new,
};
