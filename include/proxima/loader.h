/* Plugin loader (doc/design.md, section 5).
 *
 * A plugin of kind K and name N lives in the file K_N.so, searched in the
 * colon-separated directories of PROXIMA_PLUGIN_PATH, then in the installed
 * plugin directory. The loader refuses a plugin whose ABI major differs,
 * whose minor is newer than the host's, whose kind or name does not match its
 * file, whose ops struct is too small or that lacks px_plugin_query; each
 * refusal names the file, what was expected and what was found. */
#ifndef PROXIMA_LOADER_H
#define PROXIMA_LOADER_H

#include <stddef.h>

#include <proxima/error.h>
#include <proxima/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* One key = value setting for a plugin, with where it came from. */
struct px_setting {
	const char *key;
	const char *value;
	const char *file; /* for messages; may be NULL */
	unsigned line;
};

/* A loaded and created plugin instance. */
struct px_plugin;

/* "friction", "ordering", ... or NULL for an unknown kind. */
const char *px_kind_name(unsigned kind);

/* "int", "real", "bool", "choice" or "string". */
const char *px_param_type_name(enum px_param_type t);

/* A parameter's value as INI text that reads back to the same value (reals
 * with 17 significant digits, booleans as on/off, a choice by its word).
 * Returns 0, or -1 when buf is too small. */
int px_param_format(const struct px_param_decl *d, const union px_value *v,
		    char *buf, size_t len);

/* The search path in use: PROXIMA_PLUGIN_PATH then the installed directory. */
const char *px_plugin_dir(void);

/* Load kind_name.so, check it, parse settings against its declared
 * parameters (defaults for the rest) and create it. `section` names the INI
 * section in messages. */
int px_plugin_load(unsigned kind, const char *name,
		   const struct px_setting *settings, size_t n_settings,
		   struct px_plugin **out, struct px_error *err);
void px_plugin_unload(struct px_plugin *pl);

/* What a config's text says for an in-process plugin (px_plugin_wrap):
 * px_config_write writes "plugin = in-process:NAME" after a comment, and
 * px_plugin_load refuses such a name with a message saying why (no file
 * holds the plugin). */
#define PX_IN_PROCESS "in-process:"

/* An in-process plugin: ops a program holds in memory rather than a file
 * (proxima's Python module wraps Python callables this way; a C host may
 * give its own ops too). h is the ops struct's header, checked as the
 * loader checks a file's (ABI version, kind, ops size, the required
 * operations, the declared parameters); its name is any non-empty line
 * (messages and px_config_write use it). The parameters take their
 * declared defaults (px_plugin_values); h->create is not called: state,
 * the caller's, is the plugin's state. px_plugin_unload calls
 * h->destroy(state) when both are non-NULL, as the last use of h, which
 * destroy may free; until then h must stay valid. On failure nothing is
 * taken (the caller keeps h and state). Put it into a config with
 * px_config_set_plugin. */
int px_plugin_wrap(const struct px_plugin_header *h, void *state,
		   struct px_plugin **out, struct px_error *err);

const struct px_plugin_header *px_plugin_header(const struct px_plugin *pl);
void *px_plugin_state(const struct px_plugin *pl);
/* The plugin's parameters in effect, one per declared parameter
 * (px_plugin_header(pl)->params), in declaration order. */
const union px_value *px_plugin_values(const struct px_plugin *pl);
/* The file the plugin was loaded from; NULL for an in-process plugin
 * (px_plugin_wrap). */
const char *px_plugin_path(const struct px_plugin *pl);

/* The documentation of the plugin whose header is h (the doc member that
 * ABI 1.4 appended to every per-kind ops struct), or NULL when it has none:
 * a plugin built against ABI 1.0-1.3, whose ops struct ends before doc, or
 * a NULL or empty doc. Reads only what h's ops_size covers. */
const char *px_plugin_doc(const struct px_plugin_header *h);

/* The persist ops (ABI 1.8) of the plugin whose header is h, or NULL when
 * it keeps no state across solves: a plugin built against ABI 1.0-1.7, a
 * NULL persist, or one without all three operations. Reads only what h's
 * ops_size covers. */
const struct px_persist_ops *px_plugin_persist(const struct px_plugin_header *h);

/* Call fn for every loadable plugin file found on the search path (first
 * occurrence of each file name wins). Files that are refused are reported
 * through bad (may be NULL) with the refusal message. */
int px_plugin_foreach(void (*fn)(const struct px_plugin_header *h,
				 const char *path, void *user),
		      void (*bad)(const char *path, const char *msg, void *user),
		      void *user, struct px_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
