/* A command's config options, shared by solve, run, compare and config:
 * -c NAME (a path or an installed config) and --set SECTION.KEY=VALUE, kept
 * in the order given and built into one config by px_config_build, later
 * keys winning. `proxima config` prints the result as INI. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "cli.h"
#include "config_args.h"

int px_cli_config_add(struct px_cli_config *cc, int kind, const char *text)
{
	if (cc->n == cc->cap) {
		size_t cap = cc->cap ? 2 * cc->cap : 8;
		struct px_config_layer *l = realloc(cc->l, cap * sizeof *l);

		if (!l) {
			fprintf(stderr, "proxima: out of memory\n");
			return -1;
		}
		cc->l = l;
		cc->cap = cap;
	}
	cc->l[cc->n++] = (struct px_config_layer){kind, text, NULL};
	return 0;
}

int px_cli_config_build(const struct px_cli_config *base,
			const struct px_cli_config *cc,
			struct px_config **cfg, struct px_error *err)
{
	struct px_cli_config all = {0};
	int rc = PX_OK;

	for (size_t i = 0; base && i < base->n && !rc; i++)
		rc = px_cli_config_add(&all, base->l[i].kind, base->l[i].text);
	for (size_t i = 0; i < cc->n && !rc; i++)
		rc = px_cli_config_add(&all, cc->l[i].kind, cc->l[i].text);
	if (rc)
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
	else
		rc = px_config_build(all.l, all.n, cfg, err);
	px_cli_config_free(&all);
	return rc;
}

void px_cli_config_free(struct px_cli_config *cc)
{
	free(cc->l);
	*cc = (struct px_cli_config){0};
}

int px_cli_config(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct px_cli_config cc = {0};
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	int c, st = EXIT_BAD_INPUT;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
		case 's':
			if (px_cli_config_add(&cc, c == 'c' ? PX_LAYER_FILE
							    : PX_LAYER_SET,
					      optarg))
				goto out;
			break;
		case 'h':
			printf("Usage: proxima config [-c CONFIG ...] [--set SECTION.KEY=VALUE ...]\n"
			       "Print the config in effect as INI: every section, its plugin and every\n"
			       "parameter; it reads back to the same config.\n");
			st = EXIT_CONVERGED;
			goto out;
		default:
			fprintf(stderr, "proxima config: bad option '%s' (try 'proxima config --help')\n",
				argv[optind - 1]);
			goto out;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "proxima config: unexpected argument '%s' (configs are given with -c)\n",
			argv[optind]);
		goto out;
	}
	if (px_cli_config_build(NULL, &cc, &cfg, &err)) {
		fprintf(stderr, "proxima: %s\n", err.msg);
		goto out;
	}
	if (px_config_write(cfg, stdout) == 0 && fflush(stdout) == 0)
		st = EXIT_CONVERGED;
	else
		fprintf(stderr, "proxima config: cannot write the config\n");
out:
	px_config_free(cfg);
	px_cli_config_free(&cc);
	return st;
}
