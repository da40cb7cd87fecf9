/* Text tables for `proxima compare` (table.h): aligned for the terminal,
 * Markdown for table.md. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "table.h"

void px_table_init(struct px_table *t, size_t cols)
{
	memset(t, 0, sizeof *t);
	t->cols = cols;
}

void px_table_free(struct px_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cell[i]);
	free(t->cell);
	memset(t, 0, sizeof *t);
}

void px_table_add(struct px_table *t, const char *fmt, ...)
{
	va_list ap;
	char *s, **c;
	int len;

	if (t->failed)
		return;
	c = px_grow(t->cell, &t->cap, t->n, sizeof *c, 64);
	if (!c) {
		t->failed = 1;
		return;
	}
	t->cell = c;
	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = len < 0 ? NULL : malloc((size_t)len + 1);
	if (!s) {
		t->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	t->cell[t->n++] = s;
}

int px_table_failed(const struct px_table *t)
{
	return t->failed || t->cols == 0 || t->n % t->cols;
}

void px_table_print(const struct px_table *t, FILE *f)
{
	size_t width[64] = {0};

	if (px_table_failed(t) || t->cols > 64)
		return;
	for (size_t i = 0; i < t->n; i++) {
		const size_t len = strlen(t->cell[i]);

		if (len > width[i % t->cols])
			width[i % t->cols] = len;
	}
	for (size_t i = 0; i < t->n; i++) {
		const size_t c = i % t->cols;

		if (c == 0)
			fprintf(f, "%-*s", (int)width[c], t->cell[i]);
		else
			fprintf(f, "  %*s", (int)width[c], t->cell[i]);
		if (c == t->cols - 1)
			fputc('\n', f);
	}
}

void px_table_markdown(const struct px_table *t, FILE *f)
{
	if (px_table_failed(t))
		return;
	for (size_t i = 0; i < t->n; i++) {
		const size_t c = i % t->cols;

		fputs("| ", f);
		for (const char *s = t->cell[i]; *s; s++) {
			if (*s == '|')
				fputc('\\', f);
			fputc(*s, f);
		}
		fputc(' ', f);
		if (c == t->cols - 1) {
			fputs("|\n", f);
			if (i == t->cols - 1) {
				fputs("|---", f);
				for (size_t k = 1; k < t->cols; k++)
					fputs("|---:", f);
				fputs("|\n", f);
			}
		}
	}
}
