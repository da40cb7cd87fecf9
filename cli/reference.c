/* `proxima plugins --reference [--format=markdown|man] [--path-only]`: the
 * configuration reference, made from the declarations alone: the core's
 * [solver] section (px_config_solver_params, px_config_solver_doc), then
 * each plugin kind in the order of enum px_kind (the config's sections),
 * its default plugin and every plugin of that kind on the search path by
 * name, each with its summary, documentation (px_plugin_doc) and parameter
 * table. Nothing of the machine appears (no file names), so the same
 * plugins give the same text anywhere: make reference writes
 * doc/config-reference.md and doc/proxima.conf.5 with it
 * (tools/reference.sh), and tests/reference.sh keeps them current. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "grow.h"
#include "cli.h"
#include "reference.h"

#define ME "proxima plugins"
#define N_KINDS 5u /* enum px_kind's, as core/loader.c counts them */

/* What each section sets ([solver], then the kinds'): the one place that
 * says it. */
static const char *const kind_what[N_KINDS + 1] = {
	"the driver: sweep limit and stop test",
	"the friction set: each contact's prox operator",
	"the contacts of each sweep, their order and part",
	"the r-factors, and back-tracking",
	"how a sweep runs on the cores",
	"optional: a step between sweeps that may replace the iterate",
};

static const char *const kind_default[N_KINDS + 1] = {
	NULL,
	PX_DEFAULT_FRICTION,
	PX_DEFAULT_ORDERING,
	PX_DEFAULT_RFACTOR,
	PX_DEFAULT_SCHEDULER,
	PX_DEFAULT_ACCELERATOR,
};

struct entry {
	unsigned kind;
	char *name;
	char *text; /* the item, written while the plugin was loaded */
};

struct scan {
	const struct px_ref_format *fmt;
	const char *only;  /* --path-only: PROXIMA_PLUGIN_PATH, else NULL */
	struct entry *e;
	size_t n, cap;
	int nomem;
};

/* Whether path's folder is one of the colon-separated folders of dirs. */
static int in_dirs(const char *path, const char *dirs)
{
	for (const char *d = dirs; d && *d;) {
		const char *colon = strchr(d, ':');
		const size_t len = colon ? (size_t)(colon - d) : strlen(d);

		if (len && strncmp(path, d, len) == 0 && path[len] == '/' &&
		    !strchr(path + len + 1, '/'))
			return 1;
		d = colon ? colon + 1 : NULL;
	}
	return 0;
}

static void on_plugin(const struct px_plugin_header *h, const char *path,
		      void *user)
{
	struct scan *s = user;
	struct px_ref_item it = {0};
	char title[320];
	struct entry *grown, *e;
	size_t len;
	FILE *f;

	if (s->only && !in_dirs(path, s->only))
		return;
	grown = px_grow(s->e, &s->cap, s->n, sizeof *grown, 32);
	if (!grown) {
		s->nomem = 1;
		return;
	}
	s->e = grown;
	e = &s->e[s->n];
	e->kind = h->kind;
	e->name = strdup(h->name);
	e->text = NULL;
	if (!e->name) {
		s->nomem = 1;
		return;
	}
	s->n++;
	snprintf(title, sizeof title, "[%s] plugin = %s", px_kind_name(h->kind),
		 h->name);
	it.title = title;
	it.summary = h->summary ? h->summary : "";
	it.doc = px_plugin_doc(h);
	it.params = h->params;
	it.n_params = h->n_params;
	/* the header is only valid during this call: write the item now */
	f = open_memstream(&e->text, &len);
	if (!f) {
		s->nomem = 1;
		return;
	}
	s->fmt->item(f, &it);
	if (fclose(f))
		s->nomem = 1;
}

static void on_refused(const char *path, const char *msg, void *user)
{
	const struct scan *s = user;

	if (!s->only || in_dirs(path, s->only))
		fprintf(stderr, "proxima: refused plugin: %s\n", msg);
}

/* Whether the line at p is empty or spaces, or p is the end. */
static int blank(const char *p)
{
	p += strspn(p, " ");
	return *p == '\n' || !*p;
}

void px_ref_doc(FILE *f, const char *doc, const struct px_ref_blocks *b)
{
	const char *at = doc;

	while (*at) {
		const char *start, *end;
		size_t indent = (size_t)-1;
		int display;

		while (*at && blank(at))
			at += strspn(at, " ") + (at[strspn(at, " ")] == '\n');
		if (!*at)
			break;
		/* a run of lines of one sort: indented or not, up to a blank */
		display = *at == ' ';
		start = end = at;
		while (!blank(end) && (*end == ' ') == display) {
			const char *eol = strchr(end, '\n');
			const size_t ind = strspn(end, " ");

			indent = ind < indent ? ind : indent;
			end = eol ? eol : end + strlen(end);
			if (*end)
				end++;
		}
		at = end;
		if (end > start && end[-1] == '\n')
			end--;
		if (display)
			b->display(f, start, (size_t)(end - start), indent);
		else
			b->para(f, start, (size_t)(end - start));
	}
}

static int by_kind_name(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The sections, the [solver] item, then per kind its section and items. */
static int print(const struct scan *s)
{
	struct px_ref_section sec[N_KINDS + 1];
	char titles[N_KINDS + 1][32];
	static const char *const none[1] = {NULL};
	const char **names = malloc((s->n ? s->n : 1) * sizeof *names);
	struct px_ref_item solver = {0};
	size_t at = 0;

	if (!names)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		names[i] = s->e[i].name;
	for (unsigned k = 0; k <= N_KINDS; k++) {
		snprintf(titles[k], sizeof titles[k], "[%s]",
			 k ? px_kind_name(k) : "solver");
		sec[k] = (struct px_ref_section){k, titles[k], kind_what[k],
						 kind_default[k], none, 0};
		if (k)
			sec[k].plugins = names + at;
		while (k && at < s->n && s->e[at].kind == k) {
			sec[k].n_plugins++;
			at++;
		}
	}
	solver.doc = px_config_solver_doc();
	solver.params = px_config_solver_params(&solver.n_params);
	s->fmt->intro(stdout, sec, N_KINDS + 1);
	s->fmt->section(stdout, &sec[0]);
	s->fmt->item(stdout, &solver);
	at = 0;
	for (unsigned k = 1; k <= N_KINDS; k++) {
		s->fmt->section(stdout, &sec[k]);
		for (; at < s->n && s->e[at].kind == k; at++)
			fputs(s->e[at].text, stdout);
	}
	free(names);
	return 0;
}

/* --format=FMT or --format FMT at argv[*i]; NULL (with the error said) for
 * an unknown one. */
static const struct px_ref_format *format_arg(int argc, char **argv, int *i)
{
	const char *v = argv[*i] + strlen("--format");

	if (*v == '=') {
		v++;
	} else if (*i + 1 < argc) {
		v = argv[++*i];
	} else {
		fprintf(stderr, ME ": --format takes markdown or man\n");
		return NULL;
	}
	if (strcmp(v, "markdown") == 0)
		return &px_ref_markdown;
	if (strcmp(v, "man") == 0)
		return &px_ref_man;
	fprintf(stderr,
		ME ": unknown --format '%s' (expected markdown or man)\n", v);
	return NULL;
}

int px_cli_reference(int argc, char **argv)
{
	struct scan s = {&px_ref_markdown, NULL, NULL, 0, 0, 0};
	struct px_error err = {0};
	int rc = EXIT_BAD_INPUT, path_only = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--format") == 0 ||
		    strncmp(argv[i], "--format=", 9) == 0) {
			s.fmt = format_arg(argc, argv, &i);
			if (!s.fmt)
				return EXIT_BAD_INPUT;
		} else if (strcmp(argv[i], "--path-only") == 0) {
			path_only = 1;
		} else {
			fprintf(stderr,
				ME ": --reference: unexpected argument '%s' (try 'proxima --help')\n",
				argv[i]);
			return EXIT_BAD_INPUT;
		}
	}
	if (path_only) {
		s.only = getenv("PROXIMA_PLUGIN_PATH");
		if (!s.only || !*s.only) {
			fprintf(stderr,
				ME ": --path-only: PROXIMA_PLUGIN_PATH is not set\n");
			return EXIT_BAD_INPUT;
		}
	}
	if (px_plugin_foreach(on_plugin, on_refused, &s, &err)) {
		fprintf(stderr, "proxima: %s\n", err.msg);
		goto out;
	}
	if (s.nomem) {
		fprintf(stderr, "proxima: out of memory\n");
		goto out;
	}
	if (s.n == 0) {
		const char *env = getenv("PROXIMA_PLUGIN_PATH");

		if (path_only)
			fprintf(stderr, "proxima: no plugins found in %s\n", env);
		else
			fprintf(stderr, "proxima: no plugins found in %s%s%s\n",
				env ? env : "", env ? ":" : "", px_plugin_dir());
		goto out;
	}
	qsort(s.e, s.n, sizeof *s.e, by_kind_name);
	if (print(&s) || fflush(stdout)) {
		fprintf(stderr, "proxima: cannot write the reference\n");
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; i < s.n; i++) {
		free(s.e[i].name);
		free(s.e[i].text);
	}
	free(s.e);
	return rc;
}
