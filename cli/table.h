/* A table of text cells printed two ways: aligned columns for the
 * terminal, and a Markdown table for a file. The first column (a name) is
 * left-aligned, the others right-aligned. A failed allocation makes the
 * table print nothing and px_table_failed say so. */
#ifndef PX_CLI_TABLE_H
#define PX_CLI_TABLE_H

#include <stdio.h>

struct px_table {
	size_t cols, n, cap; /* n cells so far, row by row */
	char **cell;
	int failed;
};

void px_table_init(struct px_table *t, size_t cols);
void px_table_free(struct px_table *t);

/* Append one cell (printf format) to the current row; rows wrap every
 * cols cells. The first row is the header. */
void px_table_add(struct px_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int px_table_failed(const struct px_table *t);
void px_table_print(const struct px_table *t, FILE *f);
void px_table_markdown(const struct px_table *t, FILE *f);

#endif
