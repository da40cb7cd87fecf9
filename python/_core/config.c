/* _core.Config: a struct px_config built by px_config_build (config.h)
 * from a list of layers, each (kind, text, name) with kind one of
 * LAYER_FILE (a path or an installed config's name), LAYER_TEXT (INI
 * text, name its name in messages or None) and LAYER_SET (SECTION.KEY=
 * VALUE). Immutable once built: the package builds a new one for every
 * change, so a solve running without the GIL never sees its config
 * change or go away. */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Put the Python orderings and r-factor strategies of heur, a sequence
 * of (kind, object), into cfg's sections. 0, or -1 with an exception. */
static int add_heuristics(struct px_py_config *cfg, PyObject *heur)
{
	PyObject *fast = PySequence_Fast(heur, "heuristics: expected a sequence of (kind, object)");
	int rc = -1;

	if (!fast)
		return -1;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
		struct px_error err = {0};
		struct px_plugin *pl;
		unsigned kind;
		PyObject *obj;

		if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i),
				      "IO;heuristics: expected (kind, object)",
				      &kind, &obj))
			goto out;
		if (kind != PX_KIND_ORDERING && kind != PX_KIND_RFACTOR) {
			px_py_fail("heuristics: kind %u: only orderings and r-factor strategies can be Python objects",
				   kind);
			goto out;
		}
		pl = px_py_heur_wrap(cfg, kind, obj);
		if (!pl)
			goto out;
		if (px_config_set_plugin(cfg->c, pl, &err)) {
			px_plugin_unload(pl);
			px_py_raise(&err);
			goto out;
		}
	}
	rc = 0;
out:
	Py_DECREF(fast);
	return rc;
}

static PyObject *config_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {(char *)"layers", (char *)"heuristics", NULL};
	PyObject *seq, *heur = Py_None, *fast = NULL, *out = NULL;
	struct px_config_layer *layers = NULL;
	struct px_config *c = NULL;
	struct px_error err = {0};
	Py_ssize_t n;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &seq, &heur))
		return NULL;
	fast = PySequence_Fast(seq, "layers: expected a sequence of (kind, text, name)");
	if (!fast)
		return NULL;
	n = PySequence_Fast_GET_SIZE(fast);
	layers = calloc((size_t)n + 1, sizeof *layers);
	if (!layers) {
		PyErr_NoMemory();
		goto out;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
		const char *text, *name = NULL;
		int kind;

		/* the strings stay valid while fast holds the items */
		if (!PyArg_ParseTuple(item, "isz;layers: expected (kind, text, name)",
				      &kind, &text, &name))
			goto out;
		if (kind < PX_LAYER_FILE || kind > PX_LAYER_SET) {
			px_py_fail("layers: kind %d is not a layer kind", kind);
			goto out;
		}
		layers[i] = (struct px_config_layer){kind, text, name};
	}
	Py_BEGIN_ALLOW_THREADS
	rc = px_config_build(layers, (size_t)n, &c, &err);
	Py_END_ALLOW_THREADS
	if (rc) {
		px_py_raise(&err);
		goto out;
	}
	out = type->tp_alloc(type, 0);
	if (!out) {
		px_config_free(c);
		goto out;
	}
	((struct px_py_config *)out)->c = c;
	if (heur != Py_None && add_heuristics((struct px_py_config *)out, heur))
		Py_CLEAR(out);
out:
	free(layers);
	Py_DECREF(fast);
	return out;
}

static void config_dealloc(PyObject *obj)
{
	px_config_free(((struct px_py_config *)obj)->c);
	Py_XDECREF(((struct px_py_config *)obj)->fault);
	Py_TYPE(obj)->tp_free(obj);
}

/* write() -> the config in effect as INI (px_config_write) */
static PyObject *config_write(PyObject *obj, PyObject *unused)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	PyObject *s;
	int rc;

	(void)unused;
	if (!f)
		return PyErr_NoMemory();
	rc = px_config_write(((struct px_py_config *)obj)->c, f);
	if (fclose(f) || rc) {
		free(text);
		return px_py_fail("the config could not be written as INI");
	}
	s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
	free(text);
	return s;
}

/* One value as a Python value of its declared type. */
static PyObject *typed(const struct px_param_decl *d, const union px_value *v)
{
	switch (d->type) {
	case PX_PARAM_INT:
		return PyLong_FromLong(v->i);
	case PX_PARAM_REAL:
		return PyFloat_FromDouble(v->r);
	case PX_PARAM_BOOL:
		return PyBool_FromLong(v->b);
	case PX_PARAM_CHOICE: {
		const char *w = d->choices ? d->choices : "";

		for (int i = 0; i < v->choice && w; i++) {
			w = strchr(w, '|');
			if (w)
				w++;
		}
		if (!w)
			return px_py_fail("%s: choice %d out of range", d->key,
					  v->choice);
		return PyUnicode_FromStringAndSize(w, (Py_ssize_t)strcspn(w, "|"));
	}
	case PX_PARAM_STRING:
		return PyUnicode_FromString(v->s ? v->s : "");
	}
	return px_py_fail("%s: unknown parameter type %d", d->key, (int)d->type);
}

/* params(section) -> list of (key, type, value) of a section (0: solver,
 * else a plugin kind), the parameters in effect (px_config_params). */
static PyObject *config_params(PyObject *obj, PyObject *args)
{
	const struct px_config *c = ((struct px_py_config *)obj)->c;
	const struct px_param_decl *d = NULL;
	union px_value *v;
	unsigned section;
	PyObject *list;
	size_t n;

	if (!PyArg_ParseTuple(args, "I", &section))
		return NULL;
	if (section > PX_KIND_ACCELERATOR)
		return px_py_fail("section %u: not a config section", section);
	n = px_config_params(c, section, &d, NULL, 0);
	v = calloc(n + 1, sizeof *v);
	if (!v)
		return PyErr_NoMemory();
	px_config_params(c, section, &d, v, n);
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *item = typed(&d[i], &v[i]);

		if (item)
			item = Py_BuildValue("(ssN)", d[i].key,
					     px_param_type_name(d[i].type), item);
		if (!item) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, item);
	}
	free(v);
	return list;
}

/* plugin(kind) -> the name of the section's plugin, None for no
 * accelerator */
static PyObject *config_plugin(PyObject *obj, PyObject *args)
{
	const struct px_plugin *pl;
	unsigned kind;

	if (!PyArg_ParseTuple(args, "I", &kind))
		return NULL;
	if (kind < PX_KIND_FRICTION || kind > PX_KIND_ACCELERATOR)
		return px_py_fail("kind %u: not a plugin kind", kind);
	pl = px_config_plugin(((struct px_py_config *)obj)->c, kind);
	if (!pl)
		Py_RETURN_NONE;
	return PyUnicode_FromString(px_plugin_header(pl)->name);
}

static PyObject *config_source(PyObject *obj, void *unused)
{
	(void)unused;
	return PyUnicode_FromString(
		px_config_source(((struct px_py_config *)obj)->c));
}

static PyObject *config_friction_is_disc(PyObject *obj, void *unused)
{
	(void)unused;
	return PyBool_FromLong(
		px_config_friction_is_disc(((struct px_py_config *)obj)->c));
}

/* find(name) -> the path of a config's name (px_config_find) */
static PyObject *config_find(PyObject *cls, PyObject *args)
{
	char path[4096];
	struct px_error err = {0};
	const char *name;

	(void)cls;
	if (!PyArg_ParseTuple(args, "s", &name))
		return NULL;
	if (px_config_find(name, path, sizeof path, &err))
		return px_py_raise(&err);
	return PyUnicode_DecodeFSDefault(path);
}

static PyMethodDef config_methods[] = {
	{"write", config_write, METH_NOARGS,
	 "write() -> the config in effect as INI text."},
	{"params", config_params, METH_VARARGS,
	 "params(section) -> [(key, type, value)] of a section."},
	{"plugin", config_plugin, METH_VARARGS,
	 "plugin(kind) -> the section's plugin name (None: no accelerator)."},
	{"find", config_find, METH_VARARGS | METH_CLASS,
	 "find(name) -> the file of a config's name or path."},
	{NULL, NULL, 0, NULL},
};

static PyGetSetDef config_getset[] = {
	{"source", config_source, NULL, "the layers' names", NULL},
	{"friction_is_disc", config_friction_is_disc, NULL,
	 "the friction set is the Coulomb disc", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject px_py_config_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "proxima._core.Config",
	.tp_basicsize = sizeof(struct px_py_config),
	.tp_dealloc = config_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A solver config built by libproxima (use proxima.Config).",
	.tp_methods = config_methods,
	.tp_getset = config_getset,
	.tp_new = config_new,
};
