/* Parsing of declared, typed parameters (private to the core). */
#ifndef PX_PARAMS_H
#define PX_PARAMS_H

#include <stddef.h>

#include <proxima/error.h>
#include <proxima/loader.h>
#include <proxima/plugin.h>

/* Fill values[n_decl] from the defaults, then from settings. Every setting
 * must name a declared key; `section` and `owner` (e.g. "friction plugin
 * 'disc'") name things in messages. Strings point into settings/decl. */
int px_params_parse(const struct px_param_decl *decl, size_t n_decl,
		    const struct px_setting *settings, size_t n_settings,
		    const char *section, const char *owner,
		    union px_value *values, struct px_error *err);

/* Check that every declared default parses; `where` names the plugin file. */
int px_params_check_decl(const struct px_param_decl *decl, size_t n_decl,
			 const char *where, struct px_error *err);

#endif
