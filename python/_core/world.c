/* _core.World: a rigid-body world (struct px_sim, proxima/sim.h), read
 * from a scene file or built body by body, stepped with a config with the
 * GIL released. It keeps every step's statistics (struct px_sim_stats
 * and its stages' times, 184 bytes a step) for stats(); states(), contacts() and body() copy
 * what the world holds into new arrays. Ctrl-C: the config's monitor cuts
 * the running step's solves short (the step ends as `proxima run`'s does
 * on SIGINT), the steps stop and KeyboardInterrupt is raised; the steps
 * done stay done. The world is busy while it steps: another thread's call
 * meanwhile is refused. */
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One step's statistics, as `proxima run --csv` has them. */
struct step_row {
	struct px_sim_stats st;
	double stage[PX_SIM_N_STAGES]; /* px_sim_stage_seconds */
};

struct px_py_world {
	PyObject_HEAD
	struct px_sim *s;
	struct step_row *stats; /* every step taken, in order */
	size_t n_stats, cap_stats;
	int busy;
};

/* The settings' keys, as a scene's [world] names them. */
static const char *const setting_keys[] = {
	"gravity", "dt", "steps", "stepping", "stabilization", "beta", "slop",
	"margin", "restitution_threshold", "warm_start", "gyroscopic",
	"substeps", "contact_hertz", "contact_damping_ratio",
	"contact_push_velocity", NULL,
};

static PyObject *settings_dict(const struct px_sim_settings *s)
{
	return Py_BuildValue(
		"{s:(ddd),s:d,s:K,s:i,s:i,s:d,s:d,s:d,s:d,s:O,s:O,s:I,s:d,s:d,"
		"s:d}",
		"gravity", s->gravity[0], s->gravity[1], s->gravity[2], "dt",
		s->dt, "steps", (unsigned long long)s->steps, "stepping",
		s->stepping, "stabilization", s->stabilization, "beta", s->beta,
		"slop", s->slop, "margin", s->margin, "restitution_threshold",
		s->restitution_threshold, "warm_start",
		s->warm_start ? Py_True : Py_False, "gyroscopic",
		s->gyroscopic ? Py_True : Py_False, "substeps",
		(unsigned)s->substeps, "contact_hertz", s->contact_hertz,
		"contact_damping_ratio", s->contact_damping_ratio,
		"contact_push_velocity", s->contact_push_velocity);
}

/* n numbers of the sequence o into x; NULL o leaves x alone. Messages
 * name body (unless < 0) and what. */
static int numbers(PyObject *o, Py_ssize_t body, const char *what, double *x,
		   Py_ssize_t n)
{
	char name[64];

	PyObject *fast;

	if (!o || o == Py_None)
		return 0;
	if (body >= 0)
		snprintf(name, sizeof name, "body %zd: %s", body, what);
	else
		snprintf(name, sizeof name, "%s", what);
	what = name;
	fast = PySequence_Fast(o, "");
	if (!fast || PySequence_Fast_GET_SIZE(fast) != n) {
		Py_XDECREF(fast);
		PyErr_Clear();
		px_py_fail("%s: expected %zd numbers", what, n);
		return -1;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		x[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
		if (x[i] == -1.0 && PyErr_Occurred()) {
			Py_DECREF(fast);
			PyErr_Clear();
			px_py_fail("%s[%zd]: expected a number", what, i);
			return -1;
		}
	}
	Py_DECREF(fast);
	return 0;
}

/* A number of the settings dict d under key, or -1 with an error set. */
static int setting(PyObject *d, const char *key, double *x)
{
	PyObject *v = PyDict_GetItemString(d, key);

	if (!v)
		return 0; /* not given: the default */
	*x = PyFloat_AsDouble(v);
	if (*x == -1.0 && PyErr_Occurred()) {
		PyErr_Clear();
		px_py_fail("%s: expected a number", key);
		return -1;
	}
	return 0;
}

static PyObject *wrap(PyTypeObject *type, struct px_sim *s)
{
	struct px_py_world *self = (struct px_py_world *)type->tp_alloc(type, 0);

	if (!self) {
		px_sim_destroy(s);
		return NULL;
	}
	self->s = s;
	return (PyObject *)self;
}

/* World(settings: dict of setting_keys, each optional) */
static PyObject *world_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {(char *)"settings", NULL};
	struct px_sim_settings st;
	struct px_error err = {0};
	struct px_sim *s;
	PyObject *d, *key, *value;
	Py_ssize_t pos = 0;
	double x;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!", kwlist, &PyDict_Type,
					 &d))
		return NULL;
	while (PyDict_Next(d, &pos, &key, &value)) {
		const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
		int known = 0;

		for (int i = 0; k && setting_keys[i]; i++)
			known |= !strcmp(k, setting_keys[i]);
		if (!known)
			return px_py_fail("%s: not a setting of a world",
					  k ? k : "(not a string)");
	}
	px_sim_settings_default(&st);
	if (numbers(PyDict_GetItemString(d, "gravity"), -1, "gravity",
		    st.gravity, 3))
		return NULL;
#define REAL(k)                                                             \
	if (setting(d, #k, &st.k))                                          \
		return NULL;
#define WHOLE(k, T)                                                         \
	x = (double)st.k;                                                   \
	if (setting(d, #k, &x))                                             \
		return NULL;                                                \
	st.k = (T)x;
	REAL(dt) REAL(beta) REAL(slop) REAL(margin) REAL(restitution_threshold)
	REAL(contact_hertz) REAL(contact_damping_ratio)
	REAL(contact_push_velocity)
	WHOLE(steps, uint64_t) WHOLE(stepping, int) WHOLE(stabilization, int)
	WHOLE(warm_start, int) WHOLE(gyroscopic, int) WHOLE(substeps, uint32_t)
#undef REAL
#undef WHOLE
	if (px_sim_create(&st, &s, &err))
		return px_py_raise(&err);
	return wrap(type, s);
}

/* World.read(path) */
static PyObject *world_read(PyObject *cls, PyObject *args)
{
	struct px_error err = {0};
	struct px_sim *s;
	const char *path;
	int rc;

	if (!PyArg_ParseTuple(args, "s", &path))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = px_sim_read(path, &s, &err);
	Py_END_ALLOW_THREADS
	if (rc)
		return px_py_raise(&err);
	return wrap((PyTypeObject *)cls, s);
}

static void world_dealloc(PyObject *obj)
{
	struct px_py_world *self = (struct px_py_world *)obj;

	px_sim_destroy(self->s);
	free(self->stats);
	Py_TYPE(obj)->tp_free(obj);
}

/* 0 when the world is not stepping, else -1 with proxima.Error. */
static int idle(const struct px_py_world *self)
{
	if (!self->busy)
		return 0;
	px_py_fail("this world is stepping in another thread (one call at a time per world)");
	return -1;
}

static PyObject *world_add_body(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {
		(char *)"shape", (char *)"radius", (char *)"half",
		(char *)"half_length", (char *)"normal", (char *)"position",
		(char *)"orientation", (char *)"velocity",
		(char *)"angular_velocity", (char *)"mass", (char *)"density",
		(char *)"inertia", (char *)"mu", (char *)"mu_tau",
		(char *)"restitution", (char *)"static", NULL};
	struct px_py_world *self = (struct px_py_world *)obj;
	PyObject *half = NULL, *normal = NULL, *pos = NULL, *ori = NULL,
		 *vel = NULL, *ang = NULL, *inertia = NULL;
	struct px_sim_body b;
	struct px_error err = {0};
	size_t index;
	Py_ssize_t i;
	int is_static = 0;

	if (idle(self))
		return NULL;
	px_sim_body_default(&b);
	if (!PyArg_ParseTupleAndKeywords(
		    args, kw, "i|dOdOOOOOddOdddp", kwlist, &b.shape, &b.radius,
		    &half, &b.half_length, &normal, &pos, &ori, &vel, &ang,
		    &b.mass, &b.density, &inertia, &b.mu, &b.mu_tau,
		    &b.restitution, &is_static))
		return NULL;
	b.is_static = is_static;
	i = (Py_ssize_t)px_sim_n_bodies(self->s);
	if (numbers(half, i, "half", b.half, 3) ||
	    numbers(normal, i, "normal", b.normal, 3) ||
	    numbers(pos, i, "position", b.position, 3) ||
	    numbers(ori, i, "orientation", b.orientation, 4) ||
	    numbers(vel, i, "velocity", b.velocity, 3) ||
	    numbers(ang, i, "angular_velocity", b.angular_velocity, 3) ||
	    numbers(inertia, i, "inertia", b.inertia, 3))
		return NULL;
	if (px_sim_add_body(self->s, &b, &index, &err))
		return px_py_raise(&err);
	return PyLong_FromSize_t(index);
}

static PyObject *vector(const double *x, int n)
{
	PyObject *t = PyTuple_New(n);

	for (int i = 0; t && i < n; i++) {
		PyObject *f = PyFloat_FromDouble(x[i]);

		if (!f) {
			Py_DECREF(t);
			return NULL;
		}
		PyTuple_SET_ITEM(t, i, f);
	}
	return t;
}

/* body(i) -> dict of add_body's keys (mass and inertia as held) */
static PyObject *world_body(PyObject *obj, PyObject *arg)
{
	struct px_py_world *self = (struct px_py_world *)obj;
	struct px_sim_body b;
	struct px_error err = {0};
	Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_OverflowError);

	if ((i == -1 && PyErr_Occurred()) || idle(self))
		return NULL;
	if (i < 0 || px_sim_body(self->s, (size_t)i, &b, &err)) {
		PyErr_Format(PyExc_IndexError, "body %zd: the world has %zu bodies",
			     i, px_sim_n_bodies(self->s));
		return NULL;
	}
	return Py_BuildValue(
		"{s:i,s:d,s:N,s:d,s:N,s:N,s:N,s:N,s:N,s:d,s:N,s:d,s:d,s:d,s:O}",
		"shape", b.shape, "radius", b.radius, "half", vector(b.half, 3),
		"half_length", b.half_length, "normal", vector(b.normal, 3),
		"position", vector(b.position, 3), "orientation",
		vector(b.orientation, 4), "velocity", vector(b.velocity, 3),
		"angular_velocity", vector(b.angular_velocity, 3), "mass",
		b.mass, "inertia", vector(b.inertia, 3), "mu", b.mu, "mu_tau",
		b.mu_tau, "restitution", b.restitution, "static",
		b.is_static ? Py_True : Py_False);
}

static PyObject *array2(size_t n, npy_intp cols, int type)
{
	npy_intp dim[2] = {(npy_intp)n, cols};

	return PyArray_ZEROS(cols ? 2 : 1, dim, type, 0);
}

#define DATA(a) PyArray_DATA((PyArrayObject *)(a))

/* states() -> (positions, orientations, velocities, angular velocities):
 * new arrays n x 3, n x 4, n x 3, n x 3 */
static PyObject *world_states(PyObject *obj, PyObject *unused)
{
	struct px_py_world *self = (struct px_py_world *)obj;
	const size_t n = px_sim_n_bodies(self->s);
	PyObject *x, *q, *v, *w;

	(void)unused;
	if (idle(self))
		return NULL;
	x = array2(n, 3, NPY_FLOAT64);
	q = array2(n, 4, NPY_FLOAT64);
	v = array2(n, 3, NPY_FLOAT64);
	w = array2(n, 3, NPY_FLOAT64);
	if (!x || !q || !v || !w) {
		Py_XDECREF(x);
		Py_XDECREF(q);
		Py_XDECREF(v);
		Py_XDECREF(w);
		return NULL;
	}
	px_sim_states(self->s, DATA(x), DATA(q), DATA(v), DATA(w));
	return Py_BuildValue("(NNNN)", x, q, v, w);
}

/* contacts() -> dict of new arrays, one row per contact of the last step */
static PyObject *world_contacts(PyObject *obj, PyObject *unused)
{
	struct px_py_world *self = (struct px_py_world *)obj;
	const size_t n = px_sim_contacts(self->s, NULL, 0);
	struct px_sim_contact *c = malloc((n + 1) * sizeof *c);
	PyObject *ab = array2(n, 2, NPY_UINT32), *p = array2(n, 3, NPY_FLOAT64),
		 *nr = array2(n, 3, NPY_FLOAT64), *d = array2(n, 0, NPY_FLOAT64),
		 *f = array2(n, 3, NPY_FLOAT64), *t = array2(n, 0, NPY_FLOAT64),
		 *mu = array2(n, 0, NPY_FLOAT64);

	(void)unused;
	if (!c || !ab || !p || !nr || !d || !f || !t || !mu) {
		free(c);
		Py_XDECREF(ab);
		Py_XDECREF(p);
		Py_XDECREF(nr);
		Py_XDECREF(d);
		Py_XDECREF(f);
		Py_XDECREF(t);
		Py_XDECREF(mu);
		return c ? NULL : PyErr_NoMemory();
	}
	px_sim_contacts(self->s, c, n);
	for (size_t k = 0; k < n; k++) {
		((uint32_t *)DATA(ab))[2 * k] = c[k].a;
		((uint32_t *)DATA(ab))[2 * k + 1] = c[k].b;
		memcpy((double *)DATA(p) + 3 * k, c[k].point, 3 * sizeof(double));
		memcpy((double *)DATA(nr) + 3 * k, c[k].normal, 3 * sizeof(double));
		memcpy((double *)DATA(f) + 3 * k, c[k].impulse, 3 * sizeof(double));
		((double *)DATA(d))[k] = c[k].depth;
		((double *)DATA(t))[k] = c[k].torsion;
		((double *)DATA(mu))[k] = c[k].mu;
	}
	free(c);
	return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "bodies", ab,
			     "points", p, "normals", nr, "depths", d,
			     "impulses", f, "torsion", t, "mu", mu);
}

/* step(config, n) -> None: n steps, or fewer on Ctrl-C (raised) */
static PyObject *world_step(PyObject *obj, PyObject *args)
{
	struct px_py_world *self = (struct px_py_world *)obj;
	struct px_py_config *cfg;
	struct px_py_monitor m = {0};
	struct px_error err = {0};
	unsigned long long n;
	int rc = PX_OK;

	if (!PyArg_ParseTuple(args, "O!K", &px_py_config_type, &cfg, &n) ||
	    idle(self))
		return NULL;
	if (self->n_stats + n > self->cap_stats) {
		size_t cap = self->n_stats + n + self->cap_stats / 2;
		struct step_row *st;

		if (n > ((size_t)PY_SSIZE_T_MAX / sizeof *st) - self->n_stats)
			return PyErr_NoMemory();
		st = realloc(self->stats, cap * sizeof *st);
		if (!st)
			return PyErr_NoMemory();
		self->stats = st;
		self->cap_stats = cap;
	}
	if (px_py_claim(cfg))
		return NULL;
	self->busy = 1;
	Py_INCREF(obj); /* held while the GIL is released */
	clock_gettime(CLOCK_MONOTONIC, &m.last);
	m.cfg = cfg;
	Py_CLEAR(cfg->fault);
	px_config_set_monitor(cfg->c, px_py_monitor, &m);
	for (unsigned long long i = 0; i < n && !m.type && !cfg->fault; i++) {
		Py_BEGIN_ALLOW_THREADS
		rc = px_sim_step(self->s, cfg->c, &self->stats[self->n_stats].st,
				 &err);
		Py_END_ALLOW_THREADS
		if (rc)
			break;
		px_sim_stage_seconds(self->s, self->stats[self->n_stats].stage);
		self->n_stats++;
		/* between steps: Ctrl-C during a step without a solve */
		if (!m.type && PyErr_CheckSignals() < 0)
			PyErr_Fetch(&m.type, &m.value, &m.tb);
	}
	px_config_set_monitor(cfg->c, NULL, NULL);
	cfg->busy = 0;
	self->busy = 0;
	Py_DECREF(obj);
	if (px_py_fault_raise(cfg)) { /* a Python ordering or rfactor */
		Py_XDECREF(m.type);
		Py_XDECREF(m.value);
		Py_XDECREF(m.tb);
		return NULL;
	}
	if (m.type) {
		PyErr_Restore(m.type, m.value, m.tb);
		return NULL;
	}
	if (rc)
		return px_py_raise(&err);
	Py_RETURN_NONE;
}

/* stats(first=0) -> dict of arrays, the columns of `proxima run --csv`,
 * of the steps from first (0: the world's first) on */
static PyObject *world_stats(PyObject *obj, PyObject *args)
{
	struct px_py_world *self = (struct px_py_world *)obj;
	static const char *const real[] = {
		"time", "merit", "collide_s", "build_s", "solve_s", "stab_s",
		"total_s", "kinetic", "potential", "max_depth", "broad_s",
		"narrow_s", "cache_s", "problem_s", "integrate_s", "post_s"};
	enum { N_REAL = sizeof real / sizeof *real };
	static const char *const whole[] = {"step", "contacts", "cache_hits",
					    "sweeps"};
	Py_ssize_t first = 0;
	size_t n;
	PyObject *d, *a;

	if (!PyArg_ParseTuple(args, "|n", &first) || idle(self))
		return NULL;
	if (first < 0 || (size_t)first > self->n_stats)
		first = (Py_ssize_t)self->n_stats;
	n = self->n_stats - (size_t)first;
	d = PyDict_New();
	for (size_t c = 0; d && c < 5 + N_REAL; c++) {
		const char *name;
		int type;

		if (c < 4) {
			name = whole[c];
			type = NPY_UINT64;
		} else if (c == 4) {
			name = "converged";
			type = NPY_BOOL;
		} else {
			name = real[c - 5];
			type = NPY_FLOAT64;
		}
		a = array2(n, 0, type);
		if (!a || PyDict_SetItemString(d, name, a)) {
			Py_XDECREF(a);
			Py_CLEAR(d);
			break;
		}
		for (size_t k = 0; k < n; k++) {
			const struct step_row *row = self->stats + first + k;
			const struct px_sim_stats *s = &row->st;
			const double *g = row->stage;
			const double r[N_REAL] = {
				s->time, s->merit, s->collide_s, s->build_s,
				s->solve_s, s->stab_s, s->total_s, s->kinetic,
				s->potential, s->max_depth,
				g[PX_SIM_STAGE_BROAD], g[PX_SIM_STAGE_NARROW],
				g[PX_SIM_STAGE_CACHE], g[PX_SIM_STAGE_PROBLEM],
				g[PX_SIM_STAGE_INTEGRATE], g[PX_SIM_STAGE_POST]};
			const uint64_t u[] = {s->step, s->contacts,
					      s->cache_hits, s->sweeps};

			if (c < 4)
				((uint64_t *)DATA(a))[k] = u[c];
			else if (c == 4)
				((npy_bool *)DATA(a))[k] = s->converged != 0;
			else
				((double *)DATA(a))[k] = r[c - 5];
		}
		Py_DECREF(a);
	}
	return d;
}

static PyObject *world_info(PyObject *obj, PyObject *unused)
{
	struct px_py_world *self = (struct px_py_world *)obj;

	(void)unused;
	if (idle(self))
		return NULL;
	return Py_BuildValue("{s:N,s:n,s:K,s:d,s:d,s:d}", "settings",
			     settings_dict(px_sim_settings(self->s)),
			     "bodies", (Py_ssize_t)px_sim_n_bodies(self->s),
			     "steps_done",
			     (unsigned long long)px_sim_steps_done(self->s),
			     "time", px_sim_time(self->s), "kinetic",
			     px_sim_kinetic_energy(self->s), "potential",
			     px_sim_potential_energy(self->s));
}

static PyObject *world_defaults(PyObject *cls, PyObject *unused)
{
	struct px_sim_settings s;

	(void)cls;
	(void)unused;
	px_sim_settings_default(&s);
	return settings_dict(&s);
}

static PyMethodDef world_methods[] = {
	{"read", world_read, METH_VARARGS | METH_CLASS,
	 "read(path) -> the world of a scene file (px_sim_read)."},
	{"defaults", world_defaults, METH_NOARGS | METH_CLASS,
	 "defaults() -> the settings of a world without [world] (a dict)."},
	{"add_body", PX_PY_METH(world_add_body), METH_VARARGS | METH_KEYWORDS,
	 "add_body(shape, ...) -> its index (px_sim_add_body)."},
	{"body", world_body, METH_O, "body(i) -> dict: body i now."},
	{"states", world_states, METH_NOARGS,
	 "states() -> (x, q, v, w): new arrays of every body's state."},
	{"contacts", world_contacts, METH_NOARGS,
	 "contacts() -> dict of new arrays: the last step's contacts."},
	{"step", world_step, METH_VARARGS,
	 "step(config, n) -> None: n steps (the GIL released)."},
	{"stats", world_stats, METH_VARARGS,
	 "stats(first=0) -> dict of arrays: the steps' statistics."},
	{"info", world_info, METH_NOARGS,
	 "info() -> dict: settings, bodies, steps_done, time, energies."},
	{NULL, NULL, 0, NULL},
};

PyTypeObject px_py_world_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "proxima._core.World",
	.tp_basicsize = sizeof(struct px_py_world),
	.tp_dealloc = world_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A struct px_sim (use proxima.World).",
	.tp_methods = world_methods,
	.tp_new = world_new,
};
