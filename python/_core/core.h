/* proxima._core: the C extension under the Python package proxima (issue
 * 31), over libproxima's public API (proxima/proxima.h) and numpy's C API.
 * The package (python/proxima/__init__.py) is the public API; this module
 * holds what needs C: problems, configs, solves and the plugin list.
 *
 *   module.c   the module, its exceptions and the error helpers
 *   problem.c  _core.Problem: a struct px_problem
 *   config.c   _core.Config: a struct px_config built from layers
 *   plugins.c  _core.plugins(): every plugin found on the search path
 *   solve.c    _core.solve() and _core.Solver: px_solve and px_solver,
 *              the GIL released, Ctrl-C through the config's monitor
 *   world.c    _core.World: a struct px_sim (proxima/sim.h) stepped with
 *              the GIL released, its bodies and contacts as arrays
 *   heuristics.c  orderings and r-factor strategies written in Python:
 *              in-process plugins (px_plugin_wrap), _core.Info */
#ifndef PX_PY_CORE_H
#define PX_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL px_py_array_api
#ifndef PX_PY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <time.h>

#include <proxima/proxima.h>

/* A method table entry's function of any signature, without
 * -Wcast-function-type's warning. */
#define PX_PY_METH(f) ((PyCFunction)(void (*)(void))(f))

struct px_py_problem {
	PyObject_HEAD
	struct px_problem *p;
};

struct px_py_config {
	PyObject_HEAD
	struct px_config *c;
	int busy; /* a solve runs on it (the GIL released) */
	/* The first exception or proxima.Error of its Python ordering or
	 * rfactor (heuristics.c) in the solve running, else NULL: the
	 * monitor stops the solve, which then raises it. */
	PyObject *fault;
};

extern PyTypeObject px_py_problem_type;
extern PyTypeObject px_py_config_type;
extern PyTypeObject px_py_solver_type;
extern PyTypeObject px_py_world_type;
extern PyTypeObject px_py_info_type;

/* proxima.Error (a ValueError) and proxima.FileError (also an OSError). */
extern PyObject *px_py_error;
extern PyObject *px_py_file_error;

/* Raise the exception of err's code with err's message; returns NULL. */
PyObject *px_py_raise(const struct px_error *err);
/* Raise proxima.Error with a formatted message; returns NULL. */
PyObject *px_py_fail(const char *fmt, ...);

/* A copy of p (px_problem_copy: any form), or NULL. */
struct px_problem *px_py_problem_copy(const struct px_problem *p,
				      struct px_error *err);

/* plugins.c */
PyObject *px_py_plugins(PyObject *self, PyObject *args);

/* heuristics.c: an in-process plugin of kind (PX_KIND_ORDERING or
 * PX_KIND_RFACTOR) over the Python object obj, whose faults go to
 * owner->fault; NULL with an exception set. */
struct px_plugin *px_py_heur_wrap(struct px_py_config *owner,
				  unsigned kind, PyObject *obj);

/* heuristics.c: raise cfg's fault (its Python ordering's or rfactor's
 * exception or proxima.Error) and clear it: 1, or 0 when it has none. */
int px_py_fault_raise(struct px_py_config *cfg);

/* solve.c */
PyObject *px_py_solve(PyObject *self, PyObject *args, PyObject *kw);
/* The config's monitor (px_config_set_monitor, user a struct
 * px_py_monitor, its clock set) while a solve runs with the GIL released:
 * every 50 ms it runs the signal handlers; one that raises stops the
 * solve, its exception kept in type, value, tb to be restored. It stops
 * the solve at once when cfg (may be NULL) holds a fault of its Python
 * ordering or rfactor (heuristics.c), which the caller raises. */
struct px_py_monitor {
	struct timespec last;
	PyObject *type, *value, *tb;
	const struct px_py_config *cfg;
};
int px_py_monitor(const struct px_report *so_far, void *user);
/* Claim cfg for one solve (busy), or refuse with proxima.Error. */
int px_py_claim(struct px_py_config *cfg);

#endif
