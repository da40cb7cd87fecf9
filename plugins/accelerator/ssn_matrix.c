/* The block-sparse A the semismooth Newton accelerator (ssn.c) builds its
 * Jacobians on, from what the host gives (plugin ABI 1.7):
 *
 *   - an assembled problem: its block CSR (px_accel_host.a_rowptr, a_cols,
 *     a_blocks), copied, with a zero diagonal block added to any row that
 *     lacks one;
 *   - a factorized or rigid one: the pattern of contacts sharing a dynamic
 *     body (body_a, body_b), and the values by probing A through the
 *     host's product: the contacts are colored so that no two of a color
 *     share a neighbour (a distance-2 coloring of the contact graph), and
 *     one product per color and row gives every block of those columns
 *     (Curtis, Powell and Reid's grouping). Products: bs times the colors.
 */
#include <stdlib.h>
#include <string.h>

#include "ssn_matrix.h"

void ssn_matrix_free(struct ssn_matrix *a)
{
	free(a->ptr);
	free(a->col);
	free(a->blk);
	free(a->diag);
	memset(a, 0, sizeof *a);
}

void ssn_matrix_pattern(const struct ssn_matrix *a, int *jp, int *ji)
{
	size_t at = 0;

	for (size_t i = 0; i < a->n; i++)
		for (int r = 0; r < 3; r++) {
			jp[3 * i + r] = (int)at;
			for (size_t q = a->ptr[i]; q < a->ptr[i + 1]; q++)
				for (int c = 0; c < 3; c++)
					ji[at++] = (int)(3 * a->col[q] + c);
		}
	jp[3 * a->n] = (int)at;
}

static int cmp_u32(const void *x, const void *y)
{
	const uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return (a > b) - (a < b);
}

/* Index of contact k's diagonal block in each row (the pattern must hold
 * it). */
static int find_diagonals(struct ssn_matrix *a)
{
	a->diag = malloc((a->n + 1) * sizeof *a->diag);
	if (!a->diag)
		return -1;
	for (size_t k = 0; k < a->n; k++) {
		a->diag[k] = SIZE_MAX;
		for (size_t q = a->ptr[k]; q < a->ptr[k + 1]; q++)
			if (a->col[q] == k)
				a->diag[k] = q;
		if (a->diag[k] == SIZE_MAX)
			return -1;
	}
	return 0;
}

static int from_blocks(struct ssn_matrix *a, const struct px_accel_host *h)
{
	const size_t n = a->n, bb = 9;
	size_t at = 0;

	a->ptr = malloc((n + 1) * sizeof *a->ptr);
	a->col = malloc((h->a_rowptr[n] + n + 1) * sizeof *a->col);
	a->blk = calloc((h->a_rowptr[n] + n + 1) * bb, sizeof *a->blk);
	if (!a->ptr || !a->col || !a->blk)
		return -1;
	for (size_t k = 0; k < n; k++) {
		int have = 0;

		a->ptr[k] = at;
		for (size_t q = h->a_rowptr[k]; q < h->a_rowptr[k + 1]; q++) {
			const uint32_t j = h->a_cols[q];

			if (!have && j > k) { /* the missing diagonal, in order */
				a->col[at++] = (uint32_t)k;
				have = 1;
			}
			have |= j == k;
			a->col[at] = j;
			memcpy(a->blk + at * bb, h->a_blocks + q * bb,
			       bb * sizeof *a->blk);
			at++;
		}
		if (!have)
			a->col[at++] = (uint32_t)k;
	}
	a->ptr[n] = at;
	return find_diagonals(a);
}

/* Body -> contacts incidence (CSR over n_bodies), the static world left
 * out. */
static int incidence(const struct px_problem_info *p, size_t **iptr,
		     uint32_t **inc)
{
	const size_t nb = p->n_bodies;

	*iptr = calloc(nb + 2, sizeof **iptr);
	*inc = malloc((2 * p->n_contacts + 1) * sizeof **inc);
	if (!*iptr || !*inc)
		return -1;
	for (size_t k = 0; k < p->n_contacts; k++) {
		if (p->body_a[k] != PX_STATIC)
			(*iptr)[p->body_a[k] + 2]++;
		if (p->body_b[k] != PX_STATIC && p->body_b[k] != p->body_a[k])
			(*iptr)[p->body_b[k] + 2]++;
	}
	for (size_t b = 0; b < nb; b++)
		(*iptr)[b + 2] += (*iptr)[b + 1];
	for (size_t k = 0; k < p->n_contacts; k++) {
		if (p->body_a[k] != PX_STATIC)
			(*inc)[(*iptr)[p->body_a[k] + 1]++] = (uint32_t)k;
		if (p->body_b[k] != PX_STATIC && p->body_b[k] != p->body_a[k])
			(*inc)[(*iptr)[p->body_b[k] + 1]++] = (uint32_t)k;
	}
	return 0;
}

/* The contacts sharing a dynamic body with k, k included, sorted, into
 * out (marks: a scratch of n, mark value k + 1). Returns their count. */
static size_t neighbours(const struct px_problem_info *p, const size_t *iptr,
			 const uint32_t *inc, uint32_t k, uint32_t *mark,
			 uint32_t *out)
{
	size_t c = 0;

	mark[k] = k + 1;
	out[c++] = k;
	for (int side = 0; side < 2; side++) {
		const uint32_t b = side ? p->body_b[k] : p->body_a[k];

		if (b == PX_STATIC)
			continue;
		for (size_t q = iptr[b]; q < iptr[b + 1]; q++)
			if (mark[inc[q]] != k + 1) {
				mark[inc[q]] = k + 1;
				out[c++] = inc[q];
			}
	}
	qsort(out, c, sizeof *out, cmp_u32);
	return c;
}

/* The pattern from the bodies, then a distance-2 coloring into color[]
 * (returns the number of colors, 0 on failure). */
static uint32_t pattern_and_colors(struct ssn_matrix *a,
				   const struct px_problem_info *p,
				   uint32_t *color)
{
	const size_t n = a->n;
	size_t *iptr = NULL, cap = 0, at = 0;
	uint32_t *inc = NULL, *mark = calloc(n + 1, sizeof *mark);
	uint32_t *row = malloc((n + 1) * sizeof *row), *used = NULL;
	uint32_t ncolors = 0;

	if (!mark || !row || incidence(p, &iptr, &inc))
		goto out;
	a->ptr = malloc((n + 1) * sizeof *a->ptr);
	if (!a->ptr)
		goto out;
	for (size_t k = 0; k < n; k++) {
		const size_t c = neighbours(p, iptr, inc, (uint32_t)k, mark,
					    row);

		if (at + c > cap) {
			uint32_t *g;

			cap = 2 * (at + c) + 64;
			g = realloc(a->col, cap * sizeof *g);
			if (!g)
				goto out;
			a->col = g;
		}
		a->ptr[k] = at;
		memcpy(a->col + at, row, c * sizeof *row);
		at += c;
	}
	a->ptr[n] = at;
	a->blk = calloc(at * 9 + 1, sizeof *a->blk);
	used = calloc(n + 1, sizeof *used); /* used[c] = k + 1: taken */
	if (!a->blk || !used)
		goto out;
	/* greedy distance-2 coloring: k avoids the colors of every contact
	 * within two steps (a neighbour of a neighbour) */
	for (size_t k = 0; k < n; k++)
		color[k] = UINT32_MAX;
	for (size_t k = 0; k < n; k++) {
		uint32_t c = 0;

		for (size_t q = a->ptr[k]; q < a->ptr[k + 1]; q++) {
			const uint32_t j = a->col[q];

			for (size_t r = a->ptr[j]; r < a->ptr[j + 1]; r++)
				if (color[a->col[r]] != UINT32_MAX)
					used[color[a->col[r]]] = (uint32_t)k + 1;
		}
		while (used[c] == k + 1)
			c++;
		color[k] = c;
		if (c + 1 > ncolors)
			ncolors = c + 1;
	}
	if (find_diagonals(a))
		ncolors = 0;
out:
	free(iptr);
	free(inc);
	free(mark);
	free(row);
	free(used);
	return ncolors;
}

/* Block (i, j)'s index in row i (the pattern holds it). */
static size_t block_at(const struct ssn_matrix *a, uint32_t i, uint32_t j)
{
	size_t lo = a->ptr[i], hi = a->ptr[i + 1];

	while (lo + 1 < hi) {
		const size_t mid = (lo + hi) / 2;

		if (a->col[mid] <= j)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int by_probing(struct ssn_matrix *a, const struct px_problem_info *p)
{
	const size_t n = a->n, m = 3 * n;
	uint32_t *color = malloc((n + 1) * sizeof *color), ncolors;
	double *x = calloc(m + 1, sizeof *x), *y = malloc((m + 1) * sizeof *y);
	int rc = -1;

	if (!color || !x || !y)
		goto out;
	ncolors = pattern_and_colors(a, p, color);
	if (!ncolors)
		goto out;
	for (uint32_t c = 0; c < ncolors; c++)
		for (uint32_t r = 0; r < 3; r++) {
			for (size_t k = 0; k < n; k++)
				x[3 * k + r] = color[k] == c;
			p->apply(p->ctx, x, y, 0);
			a->products++;
			/* y_i = A_ij e_r for the one j of color c next to i */
			for (size_t j = 0; j < n; j++) {
				if (color[j] != c)
					continue;
				for (size_t q = a->ptr[j]; q < a->ptr[j + 1];
				     q++) {
					const uint32_t i = a->col[q];
					double *blk = a->blk +
						      9 * block_at(a, i, (uint32_t)j);

					for (int s = 0; s < 3; s++)
						blk[3 * s + r] = y[3 * i + s];
				}
			}
			for (size_t k = 0; k < n; k++)
				x[3 * k + r] = 0.0;
		}
	a->colors = ncolors;
	rc = 0;
out:
	free(color);
	free(x);
	free(y);
	return rc;
}

int ssn_matrix_build(struct ssn_matrix *a, const struct px_accel_host *h)
{
	memset(a, 0, sizeof *a);
	a->n = h->p->n_contacts;
	if (h->a_rowptr && h->a_cols && h->a_blocks) {
		if (!from_blocks(a, h))
			return 0;
	} else if (h->p->body_a && h->p->body_b) {
		if (!by_probing(a, h->p))
			return 0;
	}
	ssn_matrix_free(a);
	return -1;
}
