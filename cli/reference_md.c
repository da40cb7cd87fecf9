/* The configuration reference in Markdown as GitHub shows it: a table of
 * the sections, then a heading per section and per plugin; documentation
 * paragraphs as text, its indented displays as code blocks, parameters as
 * a table. Text is escaped so that it shows as written (no emphasis,
 * lists, HTML or math made of a formula's characters). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "reference.h"

static int alnum(const char *s, size_t i, size_t n)
{
	return i < n && isalnum((unsigned char)s[i]);
}

/* s[0..n) as Markdown text; cell: inside a table row. A backtick is kept:
 * the plugins' docs write `key` for code. */
static void text(FILE *f, const char *s, size_t n, int cell)
{
	for (size_t i = 0; i < n; i++) {
		const char c = s[i];
		const int in_word = i > 0 && alnum(s, i - 1, n) && alnum(s, i + 1, n);

		if (strchr("\\*~$", c) || (c == '_' && !in_word) ||
		    (c == '|' && cell) ||
		    (c == '<' && i + 1 < n &&
		     (isalpha((unsigned char)s[i + 1]) || strchr("/!?", s[i + 1]))))
			fputc('\\', f);
		fputc(c, f);
	}
}

/* One line of a paragraph: what would make it start a heading, quote,
 * list, rule or heading underline is escaped. */
static void line(FILE *f, const char *s, size_t n)
{
	size_t digits = 0, same = 0;

	while (digits < n && isdigit((unsigned char)s[digits]))
		digits++;
	while (same < n && (s[same] == s[0] || s[same] == ' '))
		same++;
	if (n && (s[0] == '#' || s[0] == '>' ||
		  (strchr("-+", s[0]) && (n == 1 || s[1] == ' ')) ||
		  (strchr("-=", s[0]) && same == n))) {
		fputc('\\', f);
	} else if (digits && digits < n &&
		   (s[digits] == '.' || s[digits] == ')') &&
		   (digits + 1 == n || s[digits + 1] == ' ')) {
		fwrite(s, 1, digits, f);
		fputc('\\', f);
		s += digits;
		n -= digits;
	}
	text(f, s, n, 0);
	fputc('\n', f);
}

static void para(FILE *f, const char *s, size_t len)
{
	const char *end = s + len;

	fputc('\n', f);
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		const size_t n = eol ? (size_t)(eol - s) : (size_t)(end - s);

		line(f, s, n);
		s += n + 1;
	}
}

/* An indented code block, its least indentation made four spaces. */
static void display(FILE *f, const char *s, size_t len, size_t indent)
{
	const char *end = s + len;

	fputc('\n', f);
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		const size_t n = eol ? (size_t)(eol - s) : (size_t)(end - s);

		fprintf(f, "    %.*s\n", (int)(n - indent), s + indent);
		s += n + 1;
	}
}

static const struct px_ref_blocks blocks = {para, display};

/* GitHub's anchor of a heading: lower case, spaces to hyphens, other
 * punctuation dropped ("[friction] plugin = box": friction-plugin--box). */
static void anchor(FILE *f, const char *title)
{
	for (; *title; title++) {
		const unsigned char c = (unsigned char)*title;

		if (isalnum(c) || c == '_' || c == '-')
			fputc(tolower(c), f);
		else if (c == ' ')
			fputc('-', f);
	}
}

static void intro(FILE *f, const struct px_ref_section *s, size_t n)
{
	fputs("# Configuration reference\n\n"
	      "The sections and keys of a solver configuration, as the core's\n"
	      "`[solver]` section and the plugins declare them, with their\n"
	      "documentation. A section names its plugin with `plugin = NAME`;\n"
	      "its other keys are that plugin's own. A section or key left out\n"
	      "takes its default.\n\n"
	      "| Section | Default | Sets | Plugins |\n"
	      "| --- | --- | --- | --- |\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "| [`%s`](#", s[i].title);
		anchor(f, s[i].title);
		fputs(") | ", f);
		if (s[i].plugin_default)
			fprintf(f, "`plugin = %s`", s[i].plugin_default);
		fputs(" | ", f);
		text(f, s[i].what, strlen(s[i].what), 1);
		fputs(" |", f);
		for (size_t j = 0; j < s[i].n_plugins; j++) {
			char title[320];

			snprintf(title, sizeof title, "%s plugin = %s",
				 s[i].title, s[i].plugins[j]);
			fprintf(f, "%s[`%s`](#", j ? ", " : " ", s[i].plugins[j]);
			anchor(f, title);
			fputs(")", f);
		}
		fputs(" |\n", f);
	}
	fputs("\nThe plugins documented here are those found on the plugin\n"
	      "search path when the reference was made; `proxima plugins\n"
	      "--describe NAME` documents any plugin found now.\n",
	      f);
}

static void section(FILE *f, const struct px_ref_section *s)
{
	fprintf(f, "\n## `%s`\n", s->title);
	if (!s->kind)
		return;
	fputc('\n', f);
	fputc(toupper((unsigned char)s->what[0]), f);
	text(f, s->what + 1, strlen(s->what + 1), 0);
	fprintf(f, ". Default: `plugin = %s`", s->plugin_default);
	if (strcmp(s->plugin_default, PX_ACCELERATOR_NONE) == 0)
		fprintf(f, ", no %s", px_kind_name(s->kind));
	if (!s->n_plugins)
		fprintf(f, ". No plugin of this kind was found");
	fputs(".\n", f);
}

static void item(FILE *f, const struct px_ref_item *it)
{
	char buf[96];

	if (it->title)
		fprintf(f, "\n### `%s`\n", it->title);
	if (it->summary && *it->summary) {
		fputs("\n*", f);
		text(f, it->summary, strlen(it->summary), 0);
		fputs("*\n", f);
	}
	if (it->doc)
		px_ref_doc(f, it->doc, &blocks);
	else
		fputs("\nNo documentation.\n", f);
	if (!it->n_params) {
		fputs("\nNo keys.\n", f);
		return;
	}
	fputs("\n| Key | Type | Default | Range or choices | Description |\n"
	      "| --- | --- | --- | --- | --- |\n",
	      f);
	for (size_t i = 0; i < it->n_params; i++) {
		const struct px_param_decl *d = &it->params[i];
		const char *range = px_cli_range_text(d, buf, sizeof buf);

		fprintf(f, "| `%s` | %s | ", d->key, px_param_type_name(d->type));
		if (*d->def)
			fprintf(f, "`%s`", d->def);
		fputs(" | ", f);
		text(f, range, strlen(range), 1);
		fputs(" | ", f);
		if (d->help)
			text(f, d->help, strlen(d->help), 1);
		fputs(" |\n", f);
	}
}

const struct px_ref_format px_ref_markdown = {intro, section, item};
