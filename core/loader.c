/* The plugin loader: find <kind>_<name>.so on the search path, dlopen it,
 * check its header against the host's ABI, parse its declared parameters and
 * create it. doc/design.md, section 5; the version rule (major equal, plugin
 * minor not newer than the host's) is the one Varnish VMODs and hwloc use. */
#include <dirent.h>
#include <stddef.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxima/loader.h>

#include "loader_impl.h"

#include "params.h"

#ifndef PX_PLUGINDIR
#error "PX_PLUGINDIR must be defined by the build"
#endif

struct px_plugin {
	void *handle;
	const struct px_plugin_header *h;
	void *state;
	union px_value *values;
	int owns_strings; /* string values were copied */
	char *path;
	/* the solver whose create last prepared this plugin (solver.c numbers
	 * its solvers from 1; 0: none) */
	uint64_t prepared_for;
};

static const char *const kind_names[] = {NULL,	     "friction",
					 "ordering", "rfactor",
					 "scheduler", "accelerator"};
#define N_KINDS 5u

/* Smallest ops struct the host accepts per kind: the size at ABI 1.0. When
 * fields are appended (a minor bump), keep these and check the new fields
 * against the plugin's minor before use. */
static const size_t min_ops_size[] = {
	0,
	offsetof(struct px_friction_ops, project_metric),
	offsetof(struct px_ordering_ops, doc),
	offsetof(struct px_rfactor_ops, doc),
	offsetof(struct px_scheduler_ops, describe),
	/* a kind since 1.3: all of it as it was then */
	offsetof(struct px_accelerator_ops, doc),
};

/* Where each kind's doc (ABI 1.4) sits in its ops struct. */
static const size_t doc_offset[] = {
	0,
	offsetof(struct px_friction_ops, doc),
	offsetof(struct px_ordering_ops, doc),
	offsetof(struct px_rfactor_ops, doc),
	offsetof(struct px_scheduler_ops, doc),
	offsetof(struct px_accelerator_ops, doc),
};

/* Where each kind's persist (ABI 1.8) sits in its ops struct. */
static const size_t persist_offset[] = {
	0,
	offsetof(struct px_friction_ops, persist),
	offsetof(struct px_ordering_ops, persist),
	offsetof(struct px_rfactor_ops, persist),
	offsetof(struct px_scheduler_ops, persist),
	offsetof(struct px_accelerator_ops, persist),
};

/* The first minor version that knows each kind. */
static const uint32_t kind_since_minor[] = {0, 0, 0, 0, 0, 3};

const char *px_kind_name(unsigned kind)
{
	return kind >= 1 && kind <= N_KINDS ? kind_names[kind] : NULL;
}

const char *px_plugin_dir(void)
{
	return PX_PLUGINDIR;
}

/* The search path: PROXIMA_PLUGIN_PATH entries, then the installed dir. */
static void search_path(char *buf, size_t len)
{
	const char *env = getenv("PROXIMA_PLUGIN_PATH");

	if (env && *env)
		snprintf(buf, len, "%s:%s", env, PX_PLUGINDIR);
	else
		snprintf(buf, len, "%s", PX_PLUGINDIR);
}

static int find_file(const char *file, char *out, size_t len,
		     const char *path)
{
	const char *dir = path;

	while (*dir) {
		const char *colon = strchr(dir, ':');
		size_t dl = colon ? (size_t)(colon - dir) : strlen(dir);

		if (dl > 0) {
			snprintf(out, len, "%.*s/%s", (int)dl, dir, file);
			if (access(out, R_OK) == 0)
				return 1;
		}
		if (!colon)
			break;
		dir = colon + 1;
	}
	return 0;
}

/* Check a plugin's header h against the host's ABI; `where` names it in
 * messages (its file, or "in-process plugin 'NAME'"), expect_kind and
 * expect_name come from its file name (expect_name NULL: an in-process
 * plugin, whose name is its own). */
static int check_header(const struct px_plugin_header *h, const char *where,
			unsigned expect_kind, const char *expect_name,
			struct px_error *err)
{
	if (h->abi_major != PX_ABI_MAJOR)
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s: ABI major version %u, expected %u",
				    where, h->abi_major, PX_ABI_MAJOR);
	if (h->abi_minor > PX_ABI_MINOR)
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s: ABI minor version %u is newer than the host's %u",
				    where, h->abi_minor, PX_ABI_MINOR);
	if (h->kind != expect_kind) {
		const char *found = px_kind_name(h->kind);

		if (found)
			return px_error_set(err, PX_ERR_PLUGIN,
					    "%s: kind '%s', expected '%s'",
					    where, found,
					    kind_names[expect_kind]);
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s: unknown kind %u, expected '%s'", where,
				    h->kind, kind_names[expect_kind]);
	}
	if (h->abi_minor < kind_since_minor[expect_kind])
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s: ABI %u.%u has no kind '%s' (it came with %u.%u)",
				    where, h->abi_major, h->abi_minor,
				    kind_names[expect_kind], PX_ABI_MAJOR,
				    kind_since_minor[expect_kind]);
	if (h->ops_size < min_ops_size[expect_kind])
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s: ops size %u bytes, expected at least %zu for kind '%s'",
				    where, h->ops_size,
				    min_ops_size[expect_kind],
				    kind_names[expect_kind]);
	if (expect_name && (!h->name || strcmp(h->name, expect_name) != 0))
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s: plugin name '%s', expected '%s' (from the file name)",
				    where, h->name ? h->name : "(null)",
				    expect_name);
	return px_params_check_decl(h->params, h->n_params, where, err);
}

/* dlopen path and check its header. expect_kind/expect_name come from the
 * file name. On success *handle and *hdr are set. */
static int open_checked(const char *path, unsigned expect_kind,
			const char *expect_name, void **handle,
			const struct px_plugin_header **hdr,
			struct px_error *err)
{
	const struct px_plugin_header *h;
	px_plugin_query_fn query;
	void *dl;

	dlerror();
	/* RTLD_NODELETE: a plugin that uses OpenMP leaves libgomp's worker
	 * threads parked in libgomp's code; unmapping it on dlclose would
	 * pull the code from under them. Plugins stay mapped until exit. */
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!dl)
		return px_error_set(err, PX_ERR_PLUGIN, "%s: cannot load: %s",
				    path, dlerror());
	*(void **)&query = dlsym(dl, PX_PLUGIN_QUERY_SYMBOL);
	if (!query) {
		px_error_set(err, PX_ERR_PLUGIN,
			     "%s: no symbol '%s': not a proxima plugin", path,
			     PX_PLUGIN_QUERY_SYMBOL);
		goto refuse;
	}
	h = query();
	if (!h) {
		px_error_set(err, PX_ERR_PLUGIN, "%s: %s() returned NULL", path,
			     PX_PLUGIN_QUERY_SYMBOL);
		goto refuse;
	}
	if (check_header(h, path, expect_kind, expect_name, err))
		goto refuse;
	*handle = dl;
	*hdr = h;
	return PX_OK;
refuse:
	dlclose(dl);
	return err ? err->code : PX_ERR_PLUGIN;
}

/* The per-kind ops a host calls must be present. */
static int check_ops(const struct px_plugin_header *h, const char *path,
		     struct px_error *err)
{
	int ok = 1;

	switch (h->kind) {
	case PX_KIND_FRICTION:
		ok = ((const struct px_friction_ops *)h)->project != NULL;
		break;
	case PX_KIND_ORDERING:
		ok = ((const struct px_ordering_ops *)h)->prepare &&
		     ((const struct px_ordering_ops *)h)->next;
		break;
	case PX_KIND_RFACTOR: {
		const struct px_rfactor_ops *o = (const void *)h;

		ok = o->init && o->adapt &&
		     (o->shape == PX_R_DIAGONAL || o->shape == PX_R_BLOCK);
		break;
	}
	case PX_KIND_SCHEDULER:
		ok = ((const struct px_scheduler_ops *)h)->prepare &&
		     ((const struct px_scheduler_ops *)h)->sweep;
		break;
	case PX_KIND_ACCELERATOR:
		ok = ((const struct px_accelerator_ops *)h)->prepare &&
		     ((const struct px_accelerator_ops *)h)->step;
		break;
	}
	if (!ok)
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s: a required %s operation is missing",
				    path, kind_names[h->kind]);
	return PX_OK;
}

/* Split "kind_name.so" into kind and name; 0 if it is not a plugin file. */
static unsigned parse_file_name(const char *file, char *name, size_t len)
{
	size_t fl = strlen(file);

	if (fl < 4 || strcmp(file + fl - 3, ".so") != 0)
		return 0;
	for (unsigned k = 1; k <= N_KINDS; k++) {
		size_t kl = strlen(kind_names[k]);

		if (strncmp(file, kind_names[k], kl) == 0 && file[kl] == '_' &&
		    fl - 3 > kl + 1 && fl - 3 - kl - 1 < len) {
			memcpy(name, file + kl + 1, fl - 3 - kl - 1);
			name[fl - 3 - kl - 1] = '\0';
			return k;
		}
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The plugin files (KIND_NAME.so) of the search path sp into files (at
 * most max, malloc'd names, sorted, each once: the first directory wins).
 * Returns their number, or -1 out of memory (files freed). */
static long collect_files(const char *sp, char **files, size_t max)
{
	size_t nfiles = 0;

	for (const char *dir = sp; dir && *dir;) {
		const char *colon = strchr(dir, ':');
		size_t dl = colon ? (size_t)(colon - dir) : strlen(dir);
		char dname[4096];
		struct dirent *e;
		DIR *d;

		snprintf(dname, sizeof dname, "%.*s", (int)dl, dir);
		d = dl ? opendir(dname) : NULL;
		while (d && (e = readdir(d)) && nfiles < max) {
			char name[256];
			size_t i;

			if (!parse_file_name(e->d_name, name, sizeof name))
				continue;
			for (i = 0; i < nfiles; i++)
				if (strcmp(files[i], e->d_name) == 0)
					break;
			if (i == nfiles && !(files[nfiles++] = strdup(e->d_name))) {
				closedir(d);
				for (i = 0; i + 1 < nfiles; i++)
					free(files[i]);
				return -1;
			}
		}
		if (d)
			closedir(d);
		dir = colon ? colon + 1 : NULL;
	}
	qsort(files, nfiles, sizeof *files, cmp_str);
	return (long)nfiles;
}

/* "; there: NAME, NAME, ..." for the kind's plugin files on the search
 * path sp ("; there are none there" when it has none) into buf. */
static void kind_files(unsigned kind, const char *sp, char *buf, size_t len)
{
	char *files[1024];
	long n = collect_files(sp, files, sizeof files / sizeof *files);
	size_t used = 0;
	int listed = 0;

	buf[0] = '\0';
	for (long i = 0; i < n; i++) {
		char name[256];

		if (parse_file_name(files[i], name, sizeof name) == kind &&
		    used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 listed++ ? ", " : "; there: ",
						 name);
		free(files[i]);
	}
	if (!listed)
		snprintf(buf, len, "; there are none there");
}

int px_plugin_load(unsigned kind, const char *name,
		   const struct px_setting *settings, size_t n_settings,
		   struct px_plugin **out, struct px_error *err)
{
	char file[256], path[4096], sp[4096], owner[320], msg[512] = "";
	struct px_plugin *pl;
	int rc;

	*out = NULL;
	if (!px_kind_name(kind))
		return px_error_set(err, PX_ERR_INVALID, "unknown plugin kind %u",
				    kind);
	if (strncmp(name, PX_IN_PROCESS, strlen(PX_IN_PROCESS)) == 0 &&
	    strlen(name) <= 200)
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s plugin '%s' was given in-process by the program that wrote this config (from Python, a callable): no file holds it, so a config cannot load it; name a plugin file, or give it again from the program",
				    kind_names[kind], name);
	if (strchr(name, '/') && strlen(name) <= 200)
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s plugin name '%s' is a path: put its folder in PROXIMA_PLUGIN_PATH and name the plugin by its word (%s_WORD.so is WORD)",
				    kind_names[kind], name, kind_names[kind]);
	if (!*name || strpbrk(name, "_.") || strlen(name) > 200)
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s plugin name '%s' is not valid (a plain word without '/', '_' or '.')",
				    kind_names[kind], name);
	snprintf(file, sizeof file, "%s_%s.so", kind_names[kind], name);
	search_path(sp, sizeof sp);
	if (!find_file(file, path, sizeof path, sp)) {
		char known[1024];

		kind_files(kind, sp, known, sizeof known);
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s plugin '%s' not found: no %s in %s%s",
				    kind_names[kind], name, file, sp, known);
	}
	pl = calloc(1, sizeof *pl);
	if (!pl || !(pl->path = strdup(path))) {
		free(pl);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	rc = open_checked(path, kind, name, &pl->handle, &pl->h, err);
	if (rc)
		goto fail;
	rc = check_ops(pl->h, path, err);
	if (rc)
		goto fail;
	pl->values = calloc(pl->h->n_params + 1, sizeof *pl->values);
	if (!pl->values) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto fail;
	}
	snprintf(owner, sizeof owner, "%s plugin '%s'", kind_names[kind], name);
	rc = px_params_parse(pl->h->params, pl->h->n_params, settings,
			     n_settings, kind_names[kind], owner, pl->values,
			     err);
	if (rc)
		goto fail;
	/* String values must outlive the settings: copy them. */
	for (uint32_t i = 0; i < pl->h->n_params; i++)
		if (pl->h->params[i].type == PX_PARAM_STRING)
			pl->values[i].s = strdup(pl->values[i].s);
	pl->owns_strings = 1;
	for (uint32_t i = 0; i < pl->h->n_params; i++)
		if (pl->h->params[i].type == PX_PARAM_STRING && !pl->values[i].s) {
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
			goto fail;
		}
	if (pl->h->create &&
	    pl->h->create(pl->values, &pl->state, msg, sizeof msg) != 0) {
		rc = px_error_set(err, PX_ERR_PLUGIN, "%s: create failed: %s",
				  path, *msg ? msg : "(no message)");
		goto fail;
	}
	*out = pl;
	return PX_OK;
fail:
	px_plugin_unload(pl);
	return rc;
}

int px_plugin_wrap(const struct px_plugin_header *h, void *state,
		   struct px_plugin **out, struct px_error *err)
{
	char where[320];
	struct px_plugin *pl;
	int rc;

	*out = NULL;
	if (!h || !h->name || !*h->name || strlen(h->name) > 200 ||
	    strpbrk(h->name, "\n\r"))
		return px_error_set(err, PX_ERR_PLUGIN,
				    "in-process plugin: its header needs a name of one line (at most 200 characters)");
	snprintf(where, sizeof where, "in-process plugin '%s'", h->name);
	if (!px_kind_name(h->kind))
		return px_error_set(err, PX_ERR_PLUGIN,
				    "%s: unknown kind %u", where, h->kind);
	rc = check_header(h, where, h->kind, NULL, err);
	if (!rc)
		rc = check_ops(h, where, err);
	if (rc)
		return rc;
	pl = calloc(1, sizeof *pl);
	if (pl)
		pl->values = calloc(h->n_params + 1, sizeof *pl->values);
	if (!pl || !pl->values) {
		free(pl);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	pl->h = h;
	/* the defaults; a string's points into h's declarations */
	rc = px_params_parse(h->params, h->n_params, NULL, 0,
			     kind_names[h->kind], where, pl->values, err);
	if (rc) {
		free(pl->values);
		free(pl);
		return rc;
	}
	pl->state = state;
	*out = pl;
	return PX_OK;
}

void px_plugin_unload(struct px_plugin *pl)
{
	if (!pl)
		return;
	if (pl->h && pl->state && pl->h->destroy)
		pl->h->destroy(pl->state);
	if (pl->owns_strings)
		for (uint32_t i = 0; i < pl->h->n_params; i++)
			if (pl->h->params[i].type == PX_PARAM_STRING)
				free((char *)pl->values[i].s);
	free(pl->values);
	if (pl->handle)
		dlclose(pl->handle);
	free(pl->path);
	free(pl);
}

const struct px_plugin_header *px_plugin_header(const struct px_plugin *pl)
{
	return pl->h;
}

void *px_plugin_state(const struct px_plugin *pl)
{
	return pl->state;
}

const union px_value *px_plugin_values(const struct px_plugin *pl)
{
	return pl->values;
}

uint64_t px_plugin_prepared_for(const struct px_plugin *pl)
{
	return pl->prepared_for;
}

void px_plugin_mark_prepared(const struct px_plugin *pl, uint64_t solver)
{
	/* the loaded plugin is the core's, its state mutable like the
	 * plugin's own state behind px_plugin_state */
	((struct px_plugin *)pl)->prepared_for = solver;
}

const char *px_plugin_path(const struct px_plugin *pl)
{
	return pl->path;
}

const char *px_plugin_doc(const struct px_plugin_header *h)
{
	const char *doc;

	if (!h || !px_kind_name(h->kind) || h->abi_minor < 4 ||
	    h->ops_size < doc_offset[h->kind] + sizeof doc)
		return NULL;
	memcpy(&doc, (const char *)h + doc_offset[h->kind], sizeof doc);
	return doc && *doc ? doc : NULL;
}

const struct px_persist_ops *px_plugin_persist(const struct px_plugin_header *h)
{
	const struct px_persist_ops *persist;

	if (!h || !px_kind_name(h->kind) || h->abi_minor < 8 ||
	    h->ops_size < persist_offset[h->kind] + sizeof persist)
		return NULL;
	memcpy(&persist, (const char *)h + persist_offset[h->kind],
	       sizeof persist);
	return persist && persist->size && persist->save && persist->load
		       ? persist
		       : NULL;
}

int px_plugin_foreach(void (*fn)(const struct px_plugin_header *h,
				 const char *path, void *user),
		      void (*bad)(const char *path, const char *msg, void *user),
		      void *user, struct px_error *err)
{
	char sp[4096], *files[1024];
	size_t nfiles;
	long n;

	search_path(sp, sizeof sp);
	n = collect_files(sp, files, sizeof files / sizeof *files);
	if (n < 0)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	nfiles = (size_t)n;
	for (size_t i = 0; i < nfiles; i++) {
		char name[256], path[4096];
		const struct px_plugin_header *h;
		struct px_error e = {0};
		unsigned kind = parse_file_name(files[i], name, sizeof name);
		void *handle;

		find_file(files[i], path, sizeof path, sp);
		if (open_checked(path, kind, name, &handle, &h, &e) == PX_OK) {
			if (check_ops(h, path, &e) == PX_OK)
				fn(h, path, user);
			dlclose(handle);
		}
		if (e.code != PX_OK && bad)
			bad(path, e.msg, user);
		free(files[i]);
	}
	return PX_OK;
}
