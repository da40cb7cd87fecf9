/* `proxima plugins --reference`: the configuration reference. reference.c
 * finds the plugins and puts the parts in order; reference_md.c writes them
 * as Markdown, reference_man.c as man(7) text for proxima.conf(5). */
#ifndef PX_CLI_REFERENCE_H
#define PX_CLI_REFERENCE_H

#include <stddef.h>
#include <stdio.h>

#include <proxima/proxima.h>

/* A section of a configuration: [solver] (kind 0) or a plugin kind's. */
struct px_ref_section {
	unsigned kind;              /* 0: [solver], else enum px_kind */
	const char *title;          /* "[solver]", "[friction]", ... */
	const char *what;           /* what it sets, a short line */
	const char *plugin_default; /* NULL for [solver] */
	const char *const *plugins; /* the plugins found, by name */
	size_t n_plugins;
};

/* What is documented of [solver] or of one plugin. */
struct px_ref_item {
	const char *title;   /* "[friction] plugin = box"; NULL for [solver] */
	const char *summary; /* NULL for [solver] */
	const char *doc;     /* NULL: the plugin has none */
	const struct px_param_decl *params;
	size_t n_params;
};

struct px_ref_format {
	/* The opening: what the reference holds, the sections, their
	 * defaults and plugins (s[0] is [solver]). */
	void (*intro)(FILE *f, const struct px_ref_section *s, size_t n);
	/* A section's heading and text, before its plugins (or, for
	 * [solver], its own item). */
	void (*section)(FILE *f, const struct px_ref_section *s);
	void (*item)(FILE *f, const struct px_ref_item *it);
};

extern const struct px_ref_format px_ref_markdown, px_ref_man;

/* The blocks of a plugin's documentation: paragraphs (lines starting with
 * no blank) and indented displays (tables, formulas), as runs of whole
 * lines without their final newline; indent is the display's least
 * indentation. Blank lines separate blocks. */
struct px_ref_blocks {
	void (*para)(FILE *f, const char *text, size_t len);
	void (*display)(FILE *f, const char *text, size_t len, size_t indent);
};
void px_ref_doc(FILE *f, const char *doc, const struct px_ref_blocks *b);

#endif
