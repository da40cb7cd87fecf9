/* `proxima plugins`: every plugin on the search path with its kind, name,
 * summary and declared parameters; refused files are reported on stderr.
 * `proxima plugins --describe NAME` is describe.c, `proxima plugins
 * --reference` reference.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "cli.h"

static void print_params(const struct px_param_decl *d, size_t n)
{
	char buf[96];

	for (size_t i = 0; i < n; i++) {
		const char *range = px_cli_range_text(&d[i], buf, sizeof buf);

		printf("    %-12s %-6s default %-10s %s", d[i].key,
		       px_param_type_name(d[i].type), d[i].def, d[i].help);
		if (d[i].type == PX_PARAM_CHOICE)
			printf(" [%s]", range);
		else if (strcmp(range, "-") != 0)
			printf(" %s", range);
		printf("\n");
	}
}

static void show(const struct px_plugin_header *h, const char *path,
		 void *user)
{
	int *count = user;

	printf("%-10s %-12s %s\n", px_kind_name(h->kind), h->name, h->summary);
	printf("    (%s)\n", path);
	print_params(h->params, h->n_params);
	(*count)++;
}

static void refused(const char *path, const char *msg, void *user)
{
	(void)path;
	(void)user;
	fprintf(stderr, "proxima: refused plugin: %s\n", msg);
}

int px_cli_plugins(int argc, char **argv)
{
	struct px_error err = {0};
	const struct px_param_decl *sd;
	int count = 0;
	size_t n;

	if (argc > 1 && strcmp(argv[1], "--describe") == 0) {
		if (argc != 3) {
			fprintf(stderr,
				"proxima plugins: --describe takes one NAME, got %d (try 'proxima --help')\n",
				argc - 2);
			return EXIT_BAD_INPUT;
		}
		return px_cli_describe(argv[2]);
	}
	if (argc > 1 && strcmp(argv[1], "--reference") == 0)
		return px_cli_reference(argc - 1, argv + 1);
	if (argc > 1) {
		fprintf(stderr, "proxima plugins: unexpected argument '%s'\n",
			argv[1]);
		return EXIT_BAD_INPUT;
	}
	if (px_plugin_foreach(show, refused, &count, &err)) {
		fprintf(stderr, "proxima: %s\n", err.msg);
		return EXIT_BAD_INPUT;
	}
	sd = px_config_solver_params(&n);
	printf("%-10s %-12s %s\n", "solver", "(core)", PX_CLI_SOLVER_SUMMARY);
	print_params(sd, n);
	if (count == 0) {
		fprintf(stderr, "proxima: no plugins found in %s%s%s\n",
			getenv("PROXIMA_PLUGIN_PATH") ? getenv("PROXIMA_PLUGIN_PATH") : "",
			getenv("PROXIMA_PLUGIN_PATH") ? ":" : "", px_plugin_dir());
		return EXIT_BAD_INPUT;
	}
	return 0;
}
