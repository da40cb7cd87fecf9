/* `proxima plugins --describe NAME`: one plugin's header (name, kind, file,
 * the ABI it declares, summary), its documentation as written (ABI 1.4,
 * px_plugin_doc) and its parameter table; `solver` is the core's [solver]
 * section. NAME is a plugin name, or KIND/NAME (KIND_NAME, as in the file
 * name) when the name exists in more than one kind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "grow.h"
#include "cli.h"

#define ME "proxima plugins"

/* What the search path holds and what it found for the wanted name. */
struct scan {
	unsigned kind;     /* wanted kind, 0: any */
	const char *name;  /* wanted name */
	char **known;      /* "kind/name" of every loadable plugin */
	size_t n_known, cap;
	size_t n_match;
	char *text;        /* the first match's description */
	char matched[512]; /* "kind/name, kind/name" of the matches */
	char refused[PX_ERROR_MSG_MAX]; /* a refusal of a wanted file */
	int nomem;
};

/* A parameter's range ("[min, max]"), its choices ("a|b") or "-". */
const char *px_cli_range_text(const struct px_param_decl *d, char *buf,
			      size_t len)
{
	if (d->type == PX_PARAM_CHOICE)
		return d->choices;
	if ((d->type == PX_PARAM_INT || d->type == PX_PARAM_REAL) &&
	    d->min <= d->max) {
		snprintf(buf, len, "[%g, %g]", d->min, d->max);
		return buf;
	}
	return "-";
}

/* The table: key, type, default, range or choices, help; columns as wide
 * as their widest entry. */
static void print_table(FILE *f, const struct px_param_decl *d, size_t n)
{
	size_t wk = strlen("key"), wt = strlen("type"), wd = strlen("default");
	size_t wr = strlen("range");
	char buf[96];

	if (n == 0) {
		fprintf(f, "parameters  none\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const size_t r = strlen(px_cli_range_text(&d[i], buf, sizeof buf));

		wk = strlen(d[i].key) > wk ? strlen(d[i].key) : wk;
		wt = strlen(px_param_type_name(d[i].type)) > wt
			     ? strlen(px_param_type_name(d[i].type))
			     : wt;
		wd = strlen(d[i].def) > wd ? strlen(d[i].def) : wd;
		wr = r > wr ? r : wr;
	}
	fprintf(f, "parameters\n");
	fprintf(f, "  %-*s  %-*s  %-*s  %-*s  %s\n", (int)wk, "key", (int)wt,
		"type", (int)wd, "default", (int)wr, "range", "help");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-*s  %-*s  %-*s  %-*s  %s\n", (int)wk, d[i].key,
			(int)wt, px_param_type_name(d[i].type), (int)wd,
			d[i].def, (int)wr, px_cli_range_text(&d[i], buf, sizeof buf),
			d[i].help ? d[i].help : "");
}

/* The doc as written, one blank line before and after. */
static void print_doc(FILE *f, const char *doc)
{
	const size_t n = strlen(doc);

	fprintf(f, "\n%s%s\n", doc, n && doc[n - 1] == '\n' ? "" : "\n");
}

static void describe_plugin(FILE *f, const struct px_plugin_header *h,
			    const char *path)
{
	const char *doc = px_plugin_doc(h);

	fprintf(f, "name        %s\n", h->name);
	fprintf(f, "kind        %s\n", px_kind_name(h->kind));
	fprintf(f, "file        %s\n", path);
	fprintf(f, "ABI         %u.%u\n", h->abi_major, h->abi_minor);
	fprintf(f, "summary     %s\n", h->summary ? h->summary : "");
	if (doc)
		print_doc(f, doc);
	else if (h->abi_minor < 4)
		fprintf(f, "\n(no documentation: plugin built for ABI %u.%u)\n\n",
			h->abi_major, h->abi_minor);
	else
		fprintf(f, "\n(no documentation)\n\n");
	print_table(f, h->params, h->n_params);
}

static void describe_solver(FILE *f)
{
	const struct px_param_decl *d;
	size_t n;

	d = px_config_solver_params(&n);
	fprintf(f, "name        solver\n");
	fprintf(f, "kind        core section [solver]\n");
	fprintf(f, "file        (built into libproxima)\n");
	fprintf(f, "ABI         %u.%u (the host's)\n", PX_ABI_MAJOR,
		PX_ABI_MINOR);
	fprintf(f, "summary     %s\n", PX_CLI_SOLVER_SUMMARY);
	print_doc(f, px_config_solver_doc());
	print_table(f, d, n);
}

static void add_known(struct scan *s, const char *kind, const char *name)
{
	char *entry, **grown;

	grown = px_grow(s->known, &s->cap, s->n_known, sizeof *grown, 32);
	if (!grown) {
		s->nomem = 1;
		return;
	}
	s->known = grown;
	entry = malloc(strlen(kind) + strlen(name) + 2);
	if (!entry) {
		s->nomem = 1;
		return;
	}
	sprintf(entry, "%s/%s", kind, name);
	s->known[s->n_known++] = entry;
}

static void on_plugin(const struct px_plugin_header *h, const char *path,
		      void *user)
{
	struct scan *s = user;
	size_t len;
	FILE *f;

	add_known(s, px_kind_name(h->kind), h->name);
	if (strcmp(h->name, s->name) != 0 || (s->kind && h->kind != s->kind))
		return;
	len = strlen(s->matched);
	snprintf(s->matched + len, sizeof s->matched - len, "%s%s/%s",
		 len ? ", " : "", px_kind_name(h->kind), h->name);
	if (s->n_match++ > 0)
		return;
	/* the header is only valid during this call: print it now */
	f = open_memstream(&s->text, &len);
	if (!f) {
		s->nomem = 1;
		return;
	}
	describe_plugin(f, h, path);
	if (fclose(f))
		s->nomem = 1;
}

/* A refused file of the wanted name: keep its message. */
static void on_refused(const char *path, const char *msg, void *user)
{
	struct scan *s = user;
	const char *file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *under = strchr(file, '_');
	const size_t nl = strlen(s->name);

	if (!under || strncmp(under + 1, s->name, nl) != 0 ||
	    strcmp(under + 1 + nl, ".so") != 0)
		return;
	if (s->kind && (strncmp(file, px_kind_name(s->kind),
				(size_t)(under - file)) != 0 ||
			strlen(px_kind_name(s->kind)) != (size_t)(under - file)))
		return;
	if (!s->refused[0])
		snprintf(s->refused, sizeof s->refused, "%s", msg);
}

/* The known names, comma-separated: a name alone when one kind has it,
 * KIND/NAME otherwise; the core's solver last. */
static void print_known(const struct scan *s)
{
	for (size_t i = 0; i < s->n_known; i++) {
		const char *name = strchr(s->known[i], '/') + 1;
		int twice = 0;

		for (size_t j = 0; j < s->n_known; j++)
			twice |= j != i &&
				 strcmp(strchr(s->known[j], '/') + 1, name) == 0;
		fprintf(stderr, "%s", twice ? s->known[i] : name);
		fprintf(stderr, ", ");
	}
	fprintf(stderr, "solver");
}

/* KIND/NAME, KIND_NAME or NAME into s->kind, s->name. -1 for a bad KIND. */
static int parse_name(const char *arg, struct scan *s, char *name, size_t len)
{
	const char *sep = strchr(arg, '/');

	if (!sep) {
		sep = strchr(arg, '_');
		if (sep) { /* KIND_NAME only when KIND is a kind */
			unsigned k;

			for (k = 1; px_kind_name(k); k++)
				if (strlen(px_kind_name(k)) == (size_t)(sep - arg) &&
				    strncmp(arg, px_kind_name(k),
					    (size_t)(sep - arg)) == 0)
					break;
			if (!px_kind_name(k))
				sep = NULL;
		}
	}
	snprintf(name, len, "%s", sep ? sep + 1 : arg);
	s->name = name;
	if (!sep)
		return 0;
	for (unsigned k = 1; px_kind_name(k); k++)
		if (strlen(px_kind_name(k)) == (size_t)(sep - arg) &&
		    strncmp(arg, px_kind_name(k), (size_t)(sep - arg)) == 0) {
			s->kind = k;
			return 0;
		}
	fprintf(stderr,
		ME ": '%s': unknown kind '%.*s' (expected friction, ordering, rfactor, scheduler or accelerator)\n",
		arg, (int)(sep - arg), arg);
	return -1;
}

int px_cli_describe(const char *arg)
{
	struct scan s = {0};
	struct px_error err = {0};
	char name[256];
	int rc = EXIT_BAD_INPUT;

	if (strcmp(arg, "solver") == 0) {
		describe_solver(stdout);
		return 0;
	}
	if (parse_name(arg, &s, name, sizeof name))
		return EXIT_BAD_INPUT;
	if (px_plugin_foreach(on_plugin, on_refused, &s, &err)) {
		fprintf(stderr, "proxima: %s\n", err.msg);
		goto out;
	}
	if (s.nomem) {
		fprintf(stderr, "proxima: out of memory\n");
	} else if (s.n_match == 1) {
		fputs(s.text, stdout);
		rc = 0;
	} else if (s.n_match > 1) {
		fprintf(stderr,
			ME ": '%s' is ambiguous: %s (name one as KIND/NAME)\n",
			arg, s.matched);
	} else if (s.refused[0]) {
		fprintf(stderr, "proxima: refused plugin: %s\n", s.refused);
	} else {
		fprintf(stderr, ME ": unknown plugin '%s' (known: ", arg);
		print_known(&s);
		fprintf(stderr, ")\n");
	}
out:
	for (size_t i = 0; i < s.n_known; i++)
		free(s.known[i]);
	free(s.known);
	free(s.text);
	return rc;
}
