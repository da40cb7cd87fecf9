/* The configuration reference as man(7) text, the generated part of
 * proxima.conf(5): the sections as a tagged list, then a subsection per
 * section and plugin (.SS "[solver]", .SS "[KIND] plugin = NAME") with its
 * documentation (paragraphs filled, displays kept as written) and a tag
 * .BI "KEY = " VALUE per parameter, as tests/test_man.c reads them. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "reference.h"

/* s[0..n) as roff text: a backslash printed, every - a minus. */
static void text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else if (s[i] == '"')
			fputs("\\(dq", f);
		else
			fputc(s[i], f);
	}
}

static void textz(FILE *f, const char *s)
{
	text(f, s, strlen(s));
}

/* One text line: a leading . or ' would make it a request. */
static void line(FILE *f, const char *s, size_t n)
{
	if (n && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", f);
	text(f, s, n);
	fputc('\n', f);
}

/* The lines of s[0..len), each without its first skip characters. */
static void lines(FILE *f, const char *s, size_t len, size_t skip)
{
	const char *end = s + len;

	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		const size_t n = eol ? (size_t)(eol - s) : (size_t)(end - s);

		line(f, s + skip, n - skip);
		s += n + 1;
	}
}

static void para(FILE *f, const char *s, size_t len)
{
	fputs(".PP\n", f);
	lines(f, s, len, 0);
}

static void display(FILE *f, const char *s, size_t len, size_t indent)
{
	fputs(".PP\n.RS 4\n.nf\n", f);
	lines(f, s, len, indent);
	fputs(".fi\n.RE\n", f);
}

static const struct px_ref_blocks blocks = {para, display};

static void intro(FILE *f, const struct px_ref_section *s, size_t n)
{
	fputs(".PP\nThe sections:\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs(".TP\n.B ", f);
		textz(f, s[i].title);
		fputc('\n', f);
		fputc(toupper((unsigned char)s[i].what[0]), f);
		textz(f, s[i].what + 1);
		fputs(".\n", f);
		if (!s[i].plugin_default)
			continue;
		fputs("Default:\n.BR \"plugin\\ =\\ ", f);
		textz(f, s[i].plugin_default);
		if (strcmp(s[i].plugin_default, PX_ACCELERATOR_NONE) == 0)
			fprintf(f, "\" ,\nno %s.\n", px_kind_name(s[i].kind));
		else
			fputs("\" .\n", f);
		if (!s[i].n_plugins) {
			fputs("No plugin of this kind was found.\n", f);
			continue;
		}
		fputs("Plugins:\n", f);
		for (size_t j = 0; j < s[i].n_plugins; j++) {
			fputs(".BR ", f);
			textz(f, s[i].plugins[j]);
			fputs(j + 1 < s[i].n_plugins ? " ,\n" : " .\n", f);
		}
	}
	fputs(".PP\n"
	      "The plugins documented here are those found on the plugin search\n"
	      "path when the page was made;\n"
	      ".B proxima plugins \\-\\-describe\n"
	      ".I NAME\n"
	      "documents any plugin found now.\n",
	      f);
}

static void section(FILE *f, const struct px_ref_section *s)
{
	if (!s->kind) /* a plugin's subsection names its kind */
		fprintf(f, ".SS \"%s\"\n", s->title);
}

/* A parameter's tag .BI "KEY = " VALUE: a choice's words, else a word
 * for its type. */
static void tag(FILE *f, const struct px_param_decl *d)
{
	static const char *const value[] = {"", "N", "X", "BOOL", "", "TEXT"};

	fputs(".TP\n.BI \"", f);
	textz(f, d->key);
	fputs(" = \" ", f);
	if (d->type == PX_PARAM_CHOICE) {
		for (const char *c = d->choices; *c; c++)
			if (*c == '|')
				fputs("\\fR|\\fP", f);
			else
				text(f, c, 1);
	} else {
		fputs(value[d->type <= PX_PARAM_STRING ? d->type : 0], f);
	}
	fputc('\n', f);
}

static void item(FILE *f, const struct px_ref_item *it)
{
	char buf[96];

	if (it->title) {
		fputs(".SS \"", f);
		textz(f, it->title);
		fputs("\"\n", f);
	}
	if (it->summary && *it->summary)
		line(f, it->summary, strlen(it->summary));
	if (it->doc)
		px_ref_doc(f, it->doc, &blocks);
	else
		fputs(".PP\nNo documentation.\n", f);
	if (!it->n_params)
		fputs(".PP\nNo keys.\n", f);
	for (size_t i = 0; i < it->n_params; i++) {
		const struct px_param_decl *d = &it->params[i];
		const char *range = px_cli_range_text(d, buf, sizeof buf);

		tag(f, d);
		textz(f, px_param_type_name(d->type));
		if (d->type != PX_PARAM_CHOICE && strcmp(range, "-") != 0) {
			fputs(" in ", f);
			textz(f, range);
		}
		if (*d->def) {
			fputs(", default ", f);
			textz(f, d->def);
		}
		fputs(".\n", f);
		if (d->help && *d->help) {
			fputs(".br\n", f);
			line(f, d->help, strlen(d->help));
		}
	}
}

const struct px_ref_format px_ref_man = {intro, section, item};
