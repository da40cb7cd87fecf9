/* The config options of the proxima command (cli/config_args.c). */
#ifndef PX_CLI_CONFIG_ARGS_H
#define PX_CLI_CONFIG_ARGS_H

#include <stdio.h>

#include <proxima/proxima.h>

/* -c and --set in the order given. */
struct px_cli_config {
	struct px_config_layer *l;
	size_t n, cap;
};

/* Append a layer (PX_LAYER_FILE for -c, PX_LAYER_SET for --set); text
 * must outlive cc (argv does). 0, or -1 out of memory (said on stderr). */
int px_cli_config_add(struct px_cli_config *cc, int kind, const char *text);
/* Build base's layers (may be NULL) then cc's over the defaults. */
int px_cli_config_build(const struct px_cli_config *base,
			const struct px_cli_config *cc,
			struct px_config **cfg, struct px_error *err);
void px_cli_config_free(struct px_cli_config *cc);
/* The report's config lines: where it came from and its plugins, then one
 * line per section with every parameter in effect. */
void px_cli_print_config(FILE *f, const struct px_config *cfg);

#endif
