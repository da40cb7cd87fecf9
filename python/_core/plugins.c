/* _core.plugins(): every plugin file found on the search path
 * (px_plugin_foreach, loader.h) as a dict of its kind, name, summary,
 * documentation, path and declared parameters, and the files the loader
 * refused with its reason. */
#include "core.h"

struct walk {
	PyObject *found;   /* list of dicts */
	PyObject *refused; /* list of (path, message) */
	int failed;        /* a Python error is set */
};

static PyObject *param(const struct px_param_decl *d)
{
	int ranged = (d->type == PX_PARAM_INT || d->type == PX_PARAM_REAL) &&
		     d->min <= d->max;
	PyObject *lo = ranged ? PyFloat_FromDouble(d->min) : Py_NewRef(Py_None);
	PyObject *hi = ranged ? PyFloat_FromDouble(d->max) : Py_NewRef(Py_None);

	return Py_BuildValue("{s:s,s:s,s:z,s:z,s:N,s:N,s:z}", "key", d->key,
			     "type", px_param_type_name(d->type), "default",
			     d->def, "help", d->help, "min", lo, "max", hi,
			     "choices",
			     d->type == PX_PARAM_CHOICE ? d->choices : NULL);
}

static void on_plugin(const struct px_plugin_header *h, const char *path,
		      void *user)
{
	struct walk *w = user;
	PyObject *params, *item;

	if (w->failed)
		return;
	params = PyList_New(h->n_params);
	for (uint32_t i = 0; params && i < h->n_params; i++) {
		PyObject *p = param(&h->params[i]);

		if (!p) {
			Py_CLEAR(params);
			break;
		}
		PyList_SET_ITEM(params, i, p);
	}
	item = params ? Py_BuildValue("{s:z,s:s,s:z,s:z,s:s,s:N}", "kind",
				      px_kind_name(h->kind), "name", h->name,
				      "summary", h->summary, "doc",
				      px_plugin_doc(h), "path", path,
				      "params", params)
		      : NULL;
	if (!item || PyList_Append(w->found, item) < 0)
		w->failed = 1;
	Py_XDECREF(item);
}

static void on_refused(const char *path, const char *msg, void *user)
{
	struct walk *w = user;
	PyObject *item;

	if (w->failed)
		return;
	item = Py_BuildValue("(ss)", path, msg);
	if (!item || PyList_Append(w->refused, item) < 0)
		w->failed = 1;
	Py_XDECREF(item);
}

PyObject *px_py_plugins(PyObject *self, PyObject *args)
{
	struct walk w = {PyList_New(0), PyList_New(0), 0};
	struct px_error err = {0};

	(void)self;
	(void)args;
	if (!w.found || !w.refused)
		goto fail;
	if (px_plugin_foreach(on_plugin, on_refused, &w, &err)) {
		if (!w.failed)
			px_py_raise(&err);
		goto fail;
	}
	if (w.failed)
		goto fail;
	return Py_BuildValue("(NN)", w.found, w.refused);
fail:
	Py_XDECREF(w.found);
	Py_XDECREF(w.refused);
	return NULL;
}
