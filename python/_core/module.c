/* The module proxima._core: its types, functions and exceptions. Errors
 * of libproxima come back as proxima.Error (a ValueError) with the
 * library's one-line message, or proxima.FileError (also an OSError) when
 * a file could not be opened or read (PX_ERR_IO). */
#define PX_PY_MODULE_C
#include "core.h"

#include <stdarg.h>
#include <stdio.h>

PyObject *px_py_error;
PyObject *px_py_file_error;

PyObject *px_py_raise(const struct px_error *err)
{
	if (err->code == PX_ERR_NOMEM)
		return PyErr_NoMemory();
	PyErr_SetString(err->code == PX_ERR_IO ? px_py_file_error
					       : px_py_error,
			err->msg[0] ? err->msg : px_status_string(err->code));
	return NULL;
}

PyObject *px_py_fail(const char *fmt, ...)
{
	char msg[PX_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	PyErr_SetString(px_py_error, msg);
	return NULL;
}

static PyObject *stop_name(PyObject *self, PyObject *arg)
{
	long stop = PyLong_AsLong(arg);
	const char *name;

	(void)self;
	if (stop == -1 && PyErr_Occurred())
		return NULL;
	name = px_stop_name((int)stop);
	if (!name)
		return px_py_fail("stop %ld: not a stop of a solve", stop);
	return PyUnicode_FromString(name);
}

static PyMethodDef methods[] = {
	{"plugins", px_py_plugins, METH_NOARGS,
	 "plugins() -> list of dicts: every plugin on the search path."},
	{"solve", PX_PY_METH(px_py_solve), METH_VARARGS | METH_KEYWORDS,
	 "solve(problem, config, lam0, history) -> dict (see proxima.solve)."},
	{"stop_name", stop_name, METH_O,
	 "stop_name(stop) -> the name of a stop (px_stop_name)."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "proxima._core",
	.m_doc = "The C extension of the package proxima (use proxima).",
	.m_size = -1,
	.m_methods = methods,
};

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
	if (PyType_Ready(t) < 0)
		return -1;
	Py_INCREF(t);
	if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
		Py_DECREF(t);
		return -1;
	}
	return 0;
}

PyMODINIT_FUNC PyInit__core(void);
PyMODINIT_FUNC PyInit__core(void)
{
	PyObject *m, *bases;

	import_array();
	m = PyModule_Create(&module);
	if (!m)
		return NULL;
	px_py_error = PyErr_NewExceptionWithDoc(
		"proxima.Error",
		"A bad value, problem, config or file: the message is one line "
		"naming what is wrong.",
		PyExc_ValueError, NULL);
	if (!px_py_error)
		goto fail;
	bases = PyTuple_Pack(2, px_py_error, PyExc_OSError);
	if (!bases)
		goto fail;
	px_py_file_error = PyErr_NewExceptionWithDoc(
		"proxima.FileError",
		"A file could not be opened, read or written (a proxima.Error "
		"and an OSError).",
		bases, NULL);
	Py_DECREF(bases);
	if (!px_py_file_error)
		goto fail;
	Py_INCREF(px_py_error);
	Py_INCREF(px_py_file_error);
	if (PyModule_AddObject(m, "Error", px_py_error) < 0 ||
	    PyModule_AddObject(m, "FileError", px_py_file_error) < 0 ||
	    add_type(m, &px_py_problem_type, "Problem") < 0 ||
	    add_type(m, &px_py_config_type, "Config") < 0 ||
	    add_type(m, &px_py_solver_type, "Solver") < 0 ||
	    add_type(m, &px_py_world_type, "World") < 0 ||
	    add_type(m, &px_py_info_type, "Info") < 0 ||
	    PyModule_AddIntConstant(m, "KIND_ORDERING", PX_KIND_ORDERING) < 0 ||
	    PyModule_AddIntConstant(m, "KIND_RFACTOR", PX_KIND_RFACTOR) < 0 ||
	    PyModule_AddIntConstant(m, "ABI_MAJOR", PX_ABI_MAJOR) < 0 ||
	    PyModule_AddIntConstant(m, "ABI_MINOR", PX_ABI_MINOR) < 0 ||
	    PyModule_AddIntConstant(m, "LAYER_FILE", PX_LAYER_FILE) < 0 ||
	    PyModule_AddIntConstant(m, "LAYER_TEXT", PX_LAYER_TEXT) < 0 ||
	    PyModule_AddIntConstant(m, "LAYER_SET", PX_LAYER_SET) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
