/* `proxima compare`: solve one problem, or the problems of a scene, with
 * several configs and put the results side by side: the residual history
 * of each (CSV, as `proxima solve --history`), a table (stdout and
 * DIR/table.md) and gnuplot plots (DIR/NAME.gp, drawn as PDF, PNG and SVG
 * when gnuplot is there; no PDF, and a note saying so, when it lacks the
 * pdfcairo terminal). This file reads the options, names the configs,
 * dispatches on the target (compare.h) and draws. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "compare.h"
#include "plot.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: proxima compare -c A.ini [-c B.ini ...] TARGET [--label NAME ...]\n"
		"                       [--base CONFIG ...] [--set SECTION.KEY=VALUE ...]\n"
		"                       [--out DIR] [--tol T[,T...]] [--steps N]\n"
		"                       [--at K[,K...]] [--whole] [--drive CONFIG] [--no-plot]\n"
		"                       [--json]\n");
}

int px_cmp_config_build(const struct px_cmp *c, const char *path,
			struct px_config **cfg, struct px_error *err)
{
	struct px_cli_config one = {0};
	int rc = px_cli_config_add(&one, PX_LAYER_FILE, path);

	for (size_t i = 0; !rc && i < c->sets.n; i++)
		rc = px_cli_config_add(&one, PX_LAYER_SET, c->sets.l[i].text);
	rc = rc ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
		: px_cli_config_build(&c->base, &one, cfg, err);
	px_cli_config_free(&one);
	return rc;
}

/* One error line about the command line; returns EXIT_BAD_INPUT. */
static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad(const char *fmt, ...)
{
	va_list ap;

	fputs("proxima compare: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_BAD_INPUT;
}

/* A label names files and lines of a plot: letters, digits, . _ + -. */
static int label_ok(const char *s)
{
	const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._+-";

	return *s && *s != '.' && strlen(s) < PX_CMP_LABEL_MAX - 8 &&
	       strspn(s, ok) == strlen(s);
}

/* The default label: the config's file name without directory and .ini,
 * other characters as '_'. */
static void default_label(const char *path, char *out)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".ini") == 0)
		n -= 4;
	if (n > PX_CMP_LABEL_MAX - 9)
		n = PX_CMP_LABEL_MAX - 9;
	for (size_t i = 0; i < n; i++) {
		const char ch[2] = {base[i], '\0'};

		out[i] = label_ok(ch) || (i && base[i] == '.') ? base[i] : '_';
	}
	out[n] = '\0';
	if (!n)
		strcpy(out, "config");
}

static int label_taken(const struct px_cmp *c, size_t upto, const char *l)
{
	for (size_t j = 0; j < upto; j++)
		if (strcmp(c->c[j].label, l) == 0)
			return 1;
	return 0;
}

/* The second of two equal labels gets -2, the third -3, ... (labels are at
 * most PX_CMP_LABEL_MAX - 9 characters: the suffix always fits) */
static void unique_labels(struct px_cmp *c)
{
	for (size_t i = 1; i < c->n; i++) {
		char base[PX_CMP_LABEL_MAX];

		if (!label_taken(c, i, c->c[i].label))
			continue;
		strcpy(base, c->c[i].label);
		for (unsigned k = 2;; k++) {
			int len = snprintf(c->c[i].label, sizeof c->c[i].label,
					   "%s-%u", base, k);

			if (len < (int)sizeof c->c[i].label &&
			    !label_taken(c, i, c->c[i].label))
				break;
		}
	}
}

/* --tol: positive finite numbers separated by commas. */
static int parse_tols(const char *v, struct px_cmp *c)
{
	const char *s = v;

	c->n_tol = 0;
	for (;;) {
		char *end;
		double t;

		if (c->n_tol == PX_CMP_MAX_TOLS)
			return bad("--tol '%s': more than 16 tolerances", v);
		errno = 0;
		t = strtod(s, &end);
		if (end == s || errno || !isfinite(t) || !(t > 0.0) ||
		    (*end && *end != ','))
			return bad("--tol '%s': expected positive numbers separated by commas",
				   v);
		c->tol[c->n_tol++] = t;
		if (!*end)
			return 0;
		s = end + 1;
	}
}

static int cmp_ull(const void *a, const void *b)
{
	const unsigned long long x = *(const unsigned long long *)a,
				 y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* --at: positive step numbers separated by commas; sorted, repeats
 * dropped. */
static int parse_at(const char *v, struct px_cmp *c)
{
	const char *s = v;
	size_t n = 0;

	free(c->at);
	c->at = malloc((strlen(v) / 2 + 1) * sizeof *c->at);
	if (!c->at)
		return bad("out of memory");
	for (;;) {
		char *end;
		unsigned long long k;

		errno = 0;
		k = strtoull(s, &end, 10);
		if (end == s || errno || k == 0 || *s == '-' || *s == '+' ||
		    (*end && *end != ','))
			return bad("--at '%s': expected positive step numbers separated by commas",
				   v);
		c->at[n++] = k;
		if (!*end)
			break;
		s = end + 1;
	}
	qsort(c->at, n, sizeof *c->at, cmp_ull);
	c->n_at = 0;
	for (size_t i = 0; i < n; i++)
		if (!c->n_at || c->at[c->n_at - 1] != c->at[i])
			c->at[c->n_at++] = c->at[i];
	return 0;
}

static int parse_steps(const char *v, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 10);
	if (errno || end == v || *end || *out == 0 || *v == '-' || *v == '+')
		return bad("--steps '%s': expected a positive integer", v);
	return 0;
}

static int is_scene(const char *path)
{
	const size_t n = strlen(path);

	return n > 4 && strcmp(path + n - 4, ".ini") == 0;
}

/* Draw every script written, or say how to. Returns 0, or EXIT_BAD_INPUT
 * when gnuplot ran and failed. */
static int draw(struct px_cmp *c)
{
	char gnuplot[4096], msg[1024];
	/* --no-plot's line goes with the text report */
	FILE *says = c->no_plot ? (c->json ? NULL : stdout) : stderr;
	int found;

	if (!c->n_scripts)
		return 0;
	found = !c->no_plot && px_plot_find(gnuplot, sizeof gnuplot);
	if (!found) {
		if (c->json)
			px_cmp_json_plots(c, NULL, 0, 0);
		if (!says)
			return 0;
		if (c->no_plot)
			fprintf(says, "plots       not drawn (--no-plot); to draw: gnuplot");
		else
			fprintf(says, "proxima compare: gnuplot not found; to draw: gnuplot");
		for (size_t i = 0; i < c->n_scripts; i++)
			fprintf(says, " %s", c->scripts[i]);
		fputc('\n', says);
		return 0;
	}
	for (size_t i = 0; i < c->n_scripts; i++) {
		const int n = (int)strlen(c->scripts[i]) - 3;
		char pdf[4096];
		int has_pdf;

		snprintf(pdf, sizeof pdf, "%.*s.pdf", n, c->scripts[i]);
		if (px_plot_run(gnuplot, c->scripts[i], msg, sizeof msg)) {
			fprintf(stderr, "proxima compare: %s: %s\n",
				c->scripts[i], msg);
			return EXIT_BAD_INPUT;
		}
		/* the script skips the PDF when gnuplot has no pdfcairo */
		has_pdf = access(pdf, F_OK) == 0;
		if (c->json)
			px_cmp_json_plots(c, c->scripts[i], 1, has_pdf);
		else if (has_pdf)
			printf("plot        %s %.*s.png %.*s.svg\n", pdf, n,
			       c->scripts[i], n, c->scripts[i]);
		else
			printf("plot        %.*s.png %.*s.svg (no PDF: %s has no pdfcairo terminal)\n",
			       n, c->scripts[i], n, c->scripts[i], gnuplot);
	}
	return 0;
}

/* A problem file: every config from zero. */
static int compare_file(struct px_cmp *c, size_t *unconverged,
			struct px_error *err)
{
	struct px_problem *p = NULL;
	int rc = px_problem_read(c->target, &p, PX_FCLIB_R_NONE, NULL, err);

	if (rc)
		return rc;
	rc = px_cmp_mkdir(c->out, err);
	if (rc)
		goto out;
	if (c->json) {
		px_cmp_json_problem(c, c->target, p);
	} else {
		printf("problem     %s: %zu contacts, %u rows each, %s A; every config from zero\n",
		       c->target, px_problem_n_contacts(p),
		       px_problem_block_size(p),
		       px_problem_form(p) == PX_FORM_ASSEMBLED ? "assembled"
							       : "factorized");
		px_cmp_describe(c);
	}
	rc = px_cmp_problem(c, c->out, c->target, p, NULL, unconverged,
				    err);
out:
	px_problem_destroy(p);
	return rc;
}

static int run(struct px_cmp *c, const char **labels, size_t n_labels,
	       int json)
{
	struct px_error err = {0};
	size_t unconverged = 0;
	int rc, st;

	for (size_t i = 0; i < c->n; i++) {
		if (i < n_labels)
			strcpy(c->c[i].label, labels[i]);
		else
			default_label(c->c[i].path, c->c[i].label);
	}
	unique_labels(c);
	for (size_t i = 0; i < c->n; i++)
		if (px_cmp_config_build(c, c->c[i].path, &c->c[i].cfg, &err))
			goto fail;
	if (json && px_cmp_json_begin(c, !is_scene(c->target) ? "problem"
					    : c->whole	       ? "whole"
								: "at")) {
		px_error_set(&err, PX_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (!is_scene(c->target))
		rc = compare_file(c, &unconverged, &err);
	else if (c->whole)
		rc = px_cmp_whole(c, &err);
	else
		rc = px_cmp_at(c, &unconverged, &err);
	if (rc)
		goto fail;
	st = draw(c);
	if (!st)
		st = unconverged ? EXIT_NOT_CONVERGED : EXIT_CONVERGED;
	if (c->json && px_cmp_json_end(c, st))
		st = EXIT_BAD_INPUT;
	return st;
fail:
	fprintf(stderr, "proxima: %s\n", err.msg);
	return EXIT_BAD_INPUT;
}

int px_cli_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"base", required_argument, NULL, 'b'},
		{"set", required_argument, NULL, 's'},
		{"label", required_argument, NULL, 'l'},
		{"out", required_argument, NULL, 'o'},
		{"tol", required_argument, NULL, 't'},
		{"steps", required_argument, NULL, 'n'},
		{"at", required_argument, NULL, 'a'},
		{"whole", no_argument, NULL, 'w'},
		{"drive", required_argument, NULL, 'd'},
		{"no-plot", no_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct px_cmp c = {0};
	const char *labels[PX_CMP_MAX_CONFIGS];
	size_t n_labels = 0;
	int opt, st = EXIT_BAD_INPUT, has_steps = 0, has_tol = 0, json = 0;

	c.out = "compare";
	c.tol[0] = 1e-4;
	c.tol[1] = 1e-6;
	c.tol[2] = 1e-8;
	c.n_tol = 3;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (c.n == PX_CMP_MAX_CONFIGS) {
				bad("more than %d configs", PX_CMP_MAX_CONFIGS);
				goto out;
			}
			c.c[c.n++].path = optarg;
			break;
		case 'b':
		case 's':
			if (px_cli_config_add(opt == 'b' ? &c.base : &c.sets,
					      opt == 'b' ? PX_LAYER_FILE
							 : PX_LAYER_SET,
					      optarg))
				goto out;
			break;
		case 'l':
			if (!label_ok(optarg)) {
				bad("--label '%s': expected up to 55 letters, digits, '.', '_', '+' or '-', not starting with '.'",
				    optarg);
				goto out;
			}
			if (n_labels == PX_CMP_MAX_CONFIGS) {
				bad("more than %d labels", PX_CMP_MAX_CONFIGS);
				goto out;
			}
			labels[n_labels++] = optarg;
			break;
		case 'o': c.out = optarg; break;
		case 't':
			if (parse_tols(optarg, &c))
				goto out;
			has_tol = 1;
			break;
		case 'n':
			if (parse_steps(optarg, &c.steps))
				goto out;
			has_steps = 1;
			break;
		case 'a':
			if (parse_at(optarg, &c))
				goto out;
			break;
		case 'w': c.whole = 1; break;
		case 'd': c.drive = optarg; break;
		case 'P': c.no_plot = 1; break;
		case 'j': json = 1; break;
		case 'h': usage(stdout); st = 0; goto out;
		case ':':
			bad("%s: expected a value (try 'proxima compare --help')",
			    argv[optind - 1]);
			goto out;
		default:
			bad("bad option '%s' (try 'proxima compare --help')",
			    argv[optind - 1]);
			goto out;
		}
	}
	if (!c.n) {
		bad("expected at least one -c CONFIG (try 'proxima compare --help')");
		goto out;
	}
	if (argc - optind != 1) {
		bad("expected one TARGET (a problem file, or a scene .ini), got %d",
		    argc - optind);
		goto out;
	}
	c.target = argv[optind];
	if (n_labels > c.n) {
		bad("%zu --label for %zu -c configs", n_labels, c.n);
		goto out;
	}
	if (!is_scene(c.target)) {
		const char *opt_ = c.n_at ? "--at" : c.whole ? "--whole"
				   : has_steps ? "--steps"
				   : c.drive ? "--drive" : NULL;

		if (opt_) {
			bad("%s needs a scene TARGET (.ini), not the problem file %s",
			    opt_, c.target);
			goto out;
		}
	} else {
		if (c.n_at && c.whole) {
			bad("--at and --whole exclude each other");
			goto out;
		}
		if (!c.n_at)
			c.whole = 1;
		if (c.whole && c.drive) {
			bad("--drive goes with --at (with --whole each config drives its own run)");
			goto out;
		}
		if (c.whole && has_tol) {
			bad("--tol goes with a problem file or --at (--whole summarizes the final merits)");
			goto out;
		}
	}
	st = run(&c, labels, n_labels, json);
out:
	json_object_put(c.json);
	for (size_t i = 0; i < c.n; i++)
		px_config_free(c.c[i].cfg);
	px_cli_config_free(&c.base);
	px_cli_config_free(&c.sets);
	for (size_t i = 0; i < c.n_scripts; i++)
		free(c.scripts[i]);
	free(c.scripts);
	free(c.at);
	return st;
}
