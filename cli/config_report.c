/* The report's config lines, shared by proxima and proxima-mpi: where the
 * config came from, its plugins, and every parameter in effect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "config_args.h"

void px_cli_print_config(FILE *f, const struct px_config *cfg)
{
	const struct px_plugin *acc = px_config_plugin(cfg, PX_KIND_ACCELERATOR);

	fprintf(f, "config      %s: friction %s, ordering %s, rfactor %s, scheduler %s%s%s\n",
		px_config_source(cfg),
		px_plugin_header(px_config_plugin(cfg, PX_KIND_FRICTION))->name,
		px_plugin_header(px_config_plugin(cfg, PX_KIND_ORDERING))->name,
		px_plugin_header(px_config_plugin(cfg, PX_KIND_RFACTOR))->name,
		px_plugin_header(px_config_plugin(cfg, PX_KIND_SCHEDULER))->name,
		acc ? ", accelerator " : "", acc ? px_plugin_header(acc)->name : "");
	for (unsigned k = 0; k <= PX_KIND_ACCELERATOR; k++) {
		const struct px_param_decl *d;
		size_t n = px_config_params(cfg, k, &d, NULL, 0);
		union px_value *v = malloc((n + 1) * sizeof *v);

		if (!n || !v) {
			free(v);
			continue;
		}
		px_config_params(cfg, k, &d, v, n);
		fprintf(f, "            [%s]", k ? px_kind_name(k) : "solver");
		for (size_t i = 0; i < n; i++) {
			char text[256]; /* as the INI says it: exact */

			if (px_param_format(&d[i], &v[i], text, sizeof text))
				strcpy(text, "?");
			fprintf(f, "%s %s %s", i ? "," : "", d[i].key, text);
		}
		fprintf(f, "\n");
		free(v);
	}
}
