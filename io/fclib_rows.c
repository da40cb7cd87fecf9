/* Sparse matrices as libfclib returns them (CSparse's layout: p, i, x with
 * nz = -1 for CSC, -2 for CSR, >= 0 for nz triplets), checked and regrouped
 * by row, then cut into the 3 x 3 blocks of A.
 *
 * Index conventions (doc/design.md, section 8): CSR: p row
 * pointers, i column indices; CSC: p column pointers, i row indices;
 * triplet: i row index, p column index of each entry (CSparse's meaning;
 * fclib.h's comment says the opposite, the files do not).
 *
 * An entry stored twice is refused: the tools disagree on what it means
 * (Siconos keeps the last one, CSparse's products add them), and a guess
 * would give a wrong answer for one of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fclib_io.h"

/* The matrix being checked, and what messages name. */
struct walk {
	const char *path, *name;
	const struct fclib_matrix *a;
	struct px_error *err;
};

static int index_error(const struct walk *w, const char *arr, size_t k,
		       int v, const char *what, int limit)
{
	return px_error_set(w->err, PX_ERR_FORMAT,
			    "%s: %s/%s[%zu] = %d: %s index out of range 0 .. %d",
			    w->path, w->name, arr, k, v, what, limit - 1);
}

/* Compressed pointers p[0 .. len]: from 0, never decreasing, at most
 * nzmax; the number of entries into *nnz. */
static int check_pointers(const struct walk *w, int len, size_t *nnz)
{
	const int *p = w->a->p;

	if (p[0] != 0)
		return px_error_set(w->err, PX_ERR_FORMAT,
				    "%s: %s/p[0] = %d, expected 0", w->path,
				    w->name, p[0]);
	for (int k = 0; k < len; k++)
		if (p[k + 1] < p[k])
			return px_error_set(w->err, PX_ERR_FORMAT,
					    "%s: %s/p[%d] = %d is less than p[%d] = %d",
					    w->path, w->name, k + 1, p[k + 1],
					    k, p[k]);
	if (p[len] > w->a->nzmax)
		return px_error_set(w->err, PX_ERR_FORMAT,
				    "%s: %s/p[%d] = %d exceeds nzmax = %d",
				    w->path, w->name, len, p[len], w->a->nzmax);
	*nnz = (size_t)p[len];
	return PX_OK;
}

/* Row and column of every entry into row[], col[] (nnz of them). */
static int entries(const struct walk *w, size_t nnz, uint32_t *row,
		   uint32_t *col)
{
	const struct fclib_matrix *a = w->a;
	const int csc = a->nz == -1, outer_n = csc ? a->n : a->m;
	const int inner_lim = csc ? a->m : a->n;
	const char *inner_what = csc ? "row" : "column";

	if (a->nz >= 0) { /* triplet: i row, p column */
		for (size_t k = 0; k < nnz; k++) {
			if (a->i[k] < 0 || a->i[k] >= a->m)
				return index_error(w, "i", k, a->i[k], "row",
						   a->m);
			if (a->p[k] < 0 || a->p[k] >= a->n)
				return index_error(w, "p", k, a->p[k],
						   "column", a->n);
			row[k] = (uint32_t)a->i[k];
			col[k] = (uint32_t)a->p[k];
		}
		return PX_OK;
	}
	for (int o = 0; o < outer_n; o++) {
		for (size_t k = (size_t)a->p[o]; k < (size_t)a->p[o + 1]; k++) {
			if (a->i[k] < 0 || a->i[k] >= inner_lim)
				return index_error(w, "i", k, a->i[k],
						   inner_what, inner_lim);
			row[k] = csc ? (uint32_t)a->i[k] : (uint32_t)o;
			col[k] = csc ? (uint32_t)o : (uint32_t)a->i[k];
		}
	}
	return PX_OK;
}

void fc_rows_free(struct fc_rows *r)
{
	free(r->start);
	free(r->col);
	free(r->val);
	memset(r, 0, sizeof *r);
}

/* Counting sort of the entries by row, then refuse a column seen twice in
 * one row. */
static int group_rows(const struct walk *w, size_t nnz, const uint32_t *row,
		      const uint32_t *col, struct fc_rows *out)
{
	size_t *seen = malloc(((size_t)out->n + 1) * sizeof *seen);

	if (!seen)
		return PX_ERR_NOMEM;
	for (size_t k = 0; k < nnz; k++)
		out->start[row[k] + 1]++;
	for (uint32_t r = 0; r < out->m; r++)
		out->start[r + 1] += out->start[r];
	for (size_t k = 0; k < nnz; k++) { /* start[r] runs ahead, then back */
		size_t at = out->start[row[k]]++;

		out->col[at] = col[k];
		out->val[at] = w->a->x[k];
	}
	memmove(out->start + 1, out->start, out->m * sizeof *out->start);
	out->start[0] = 0;
	for (uint32_t c = 0; c < out->n; c++)
		seen[c] = SIZE_MAX;
	for (uint32_t r = 0; r < out->m; r++)
		for (size_t k = out->start[r]; k < out->start[r + 1]; k++) {
			if (seen[out->col[k]] == r) {
				free(seen);
				return px_error_set(w->err, PX_ERR_FORMAT,
						    "%s: %s: entry (%u, %u) is stored twice (refused: Siconos keeps the last, CSparse adds them)",
						    w->path, w->name, r,
						    out->col[k]);
			}
			seen[out->col[k]] = r;
		}
	free(seen);
	return PX_OK;
}

int fc_rows_from_fclib(const char *path, const char *name,
		       const struct fclib_matrix *a, struct fc_rows *out,
		       struct px_error *err)
{
	const struct walk w = {path, name, a, err};
	char xname[128];
	uint32_t *row = NULL, *col = NULL;
	size_t nnz = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (a->nz >= 0)
		nnz = (size_t)a->nz;
	else if ((rc = check_pointers(&w, a->nz == -1 ? a->n : a->m, &nnz)))
		return rc;
	snprintf(xname, sizeof xname, "%s/x", name);
	if ((rc = fc_check_finite(path, xname, a->x, nnz, err)))
		return rc;
	out->m = (uint32_t)a->m;
	out->n = (uint32_t)a->n;
	row = malloc((nnz ? nnz : 1) * sizeof *row);
	col = malloc((nnz ? nnz : 1) * sizeof *col);
	out->start = calloc((size_t)a->m + 1, sizeof *out->start);
	out->col = malloc((nnz ? nnz : 1) * sizeof *out->col);
	out->val = malloc((nnz ? nnz : 1) * sizeof *out->val);
	if (!row || !col || !out->start || !out->col || !out->val)
		rc = PX_ERR_NOMEM;
	else if (!(rc = entries(&w, nnz, row, col)))
		rc = group_rows(&w, nnz, row, col, out);
	free(row);
	free(col);
	if (rc == PX_ERR_NOMEM)
		px_error_set(err, rc, "%s: out of memory for %s", path, name);
	if (rc)
		fc_rows_free(out);
	return rc;
}

void fc_bsr_free(struct fc_bsr *b)
{
	free(b->rowptr);
	free(b->cols);
	free(b->blocks);
	memset(b, 0, sizeof *b);
}

/* Give each block of block row bi that holds a non-zero a slot (owner[bc]
 * = bi, at[bc] its index from *next), recording its column when cols is
 * not NULL. */
static void claim_blocks(const struct fc_rows *a, size_t bi, size_t *owner,
			 size_t *at, size_t *next, uint32_t *cols)
{
	for (size_t r = 3 * bi; r < 3 * bi + 3; r++)
		for (size_t k = a->start[r]; k < a->start[r + 1]; k++) {
			uint32_t bc = a->col[k] / 3;

			if (a->val[k] == 0.0 || owner[bc] == bi)
				continue;
			owner[bc] = bi;
			at[bc] = (*next)++;
			if (cols)
				cols[at[bc]] = bc;
		}
}

int fc_bsr_from_rows(const char *path, const struct fc_rows *a, size_t nc,
		     struct fc_bsr *out, struct px_error *err)
{
	size_t *owner = malloc(nc * sizeof *owner);
	size_t *at = malloc(nc * sizeof *at);
	size_t nb = 0;

	memset(out, 0, sizeof *out);
	out->rowptr = malloc((nc + 1) * sizeof *out->rowptr);
	if (!owner || !at || !out->rowptr)
		goto nomem;
	/* Pass 1 counts the blocks of each row, pass 2 fills them. */
	for (size_t j = 0; j < nc; j++)
		owner[j] = SIZE_MAX;
	for (size_t bi = 0; bi < nc; bi++) {
		out->rowptr[bi] = nb;
		claim_blocks(a, bi, owner, at, &nb, NULL);
	}
	out->rowptr[nc] = nb;
	out->cols = malloc((nb ? nb : 1) * sizeof *out->cols);
	out->blocks = calloc((nb ? nb : 1) * 9, sizeof *out->blocks);
	if (!out->cols || !out->blocks)
		goto nomem;
	nb = 0;
	for (size_t j = 0; j < nc; j++)
		owner[j] = SIZE_MAX;
	for (size_t bi = 0; bi < nc; bi++) {
		claim_blocks(a, bi, owner, at, &nb, out->cols);
		/* zeros too: a stored block keeps every value, signs of
		 * zeros included */
		for (size_t r = 3 * bi; r < 3 * bi + 3; r++)
			for (size_t k = a->start[r]; k < a->start[r + 1]; k++) {
				uint32_t c = a->col[k];

				if (owner[c / 3] == bi)
					out->blocks[9 * at[c / 3] +
						    3 * (r % 3) + c % 3] =
						a->val[k];
			}
	}
	free(owner);
	free(at);
	return PX_OK;
nomem:
	free(owner);
	free(at);
	fc_bsr_free(out);
	return px_error_set(err, PX_ERR_NOMEM,
			    "%s: out of memory for the blocks of W", path);
}
