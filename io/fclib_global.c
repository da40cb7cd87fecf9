/* Condensation of an FCLib global problem (fclib.h: M v = H r + f,
 * u = H^T v + w) into its local form u = W r + q with
 *
 *     W = H^T M^-1 H,   q = H^T M^-1 f + w,
 *
 * the Delassus operator of doc/design.md, section 2 with J^T = H.
 *
 * M is cut into its finest block-diagonal partition: contiguous diagonal
 * blocks with no non-zero entry outside them. Explicit zeros do not couple
 * rows; any non-zero does, however small, since dropping it would change
 * the problem. Each block is inverted densely by Gauss-Jordan elimination
 * with partial pivoting (no symmetry assumed). A block of more than
 * PX_FCLIB_MAX_M_BLOCK rows means M is not the block-diagonal mass matrix
 * of bodies; it is refused rather than inverted as a dense matrix.
 *
 * Contact block I of W couples with J when H has non-zeros of both in the
 * rows of one M block; for each M block b with contact list L_b, W_IJ +=
 * H_bI^T (M_b^-1 H_bJ) for I, J in L_b. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fclib_io.h"

struct condense {
	const char *path;
	struct px_error *err;
	struct fc_rows m, h;
	size_t nc;
	size_t nblk, *bound;  /* M block k: rows [bound[k], bound[k + 1]) */
	size_t *lptr;         /* contacts of M block k: lidx[lptr[k] ..] */
	uint32_t *lidx;
	size_t t_max, s_max;  /* longest contact list, largest M block */
	size_t *owner, *pos;  /* per contact: stamp and place in a list */
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void reset_owner(struct condense *c)
{
	for (size_t j = 0; j < c->nc; j++)
		c->owner[j] = SIZE_MAX;
}

/* The finest block-diagonal partition of M into c->bound. */
static int partition(struct condense *c)
{
	const struct fc_rows *m = &c->m;
	size_t *reach = malloc(m->m * sizeof *reach), start = 0, end = 0;

	c->bound = malloc((m->m + 1) * sizeof *c->bound);
	if (!reach || !c->bound) {
		free(reach);
		return PX_ERR_NOMEM;
	}
	for (size_t r = 0; r < m->m; r++)
		reach[r] = r;
	for (size_t r = 0; r < m->m; r++)
		for (size_t k = m->start[r]; k < m->start[r + 1]; k++) {
			size_t lo = r < m->col[k] ? r : m->col[k];
			size_t hi = r < m->col[k] ? m->col[k] : r;

			if (m->val[k] != 0.0 && reach[lo] < hi)
				reach[lo] = hi;
		}
	c->bound[0] = 0;
	c->nblk = 0;
	for (size_t r = 0; r < m->m; r++) {
		end = reach[r] > end ? reach[r] : end;
		if (r < end)
			continue;
		if (r + 1 - start > PX_FCLIB_MAX_M_BLOCK) {
			free(reach);
			return px_error_set(c->err, PX_ERR_FORMAT,
					    "%s: /fclib_global/M is not block-diagonal: rows %zu .. %zu form one coupled block of %zu rows (proxima inverts M block by block, at most %d rows each)",
					    c->path, start, r, r + 1 - start,
					    PX_FCLIB_MAX_M_BLOCK);
		}
		if (r + 1 - start > c->s_max)
			c->s_max = r + 1 - start;
		c->bound[++c->nblk] = r + 1;
		start = r + 1;
	}
	free(reach);
	return PX_OK;
}

/* The contacts with a non-zero of H in the rows of M block k, in list
 * (stamping owner with k + 1 and their place in pos); returns how many. */
static size_t touched(struct condense *c, size_t k, uint32_t *list)
{
	const struct fc_rows *h = &c->h;
	size_t t = 0;

	for (size_t r = c->bound[k]; r < c->bound[k + 1]; r++)
		for (size_t e = h->start[r]; e < h->start[r + 1]; e++) {
			uint32_t j = h->col[e] / 3;

			if (h->val[e] == 0.0 || c->owner[j] == k + 1)
				continue;
			c->owner[j] = k + 1;
			c->pos[j] = t;
			list[t++] = j;
		}
	return t;
}

/* Every M block's contact list, then W's block structure: row I holds the
 * contacts of every list that holds I, sorted. */
static int structure(struct condense *c, struct fc_bsr *w)
{
	const size_t nc = c->nc;
	size_t *cptr = NULL, *cidx = NULL, total = 0, nb = 0;
	int rc = PX_ERR_NOMEM;

	c->lptr = malloc((c->nblk + 1) * sizeof *c->lptr);
	c->lidx = malloc((c->h.start[c->h.m] + 1) * sizeof *c->lidx);
	w->rowptr = malloc((nc + 1) * sizeof *w->rowptr);
	cptr = calloc(nc + 1, sizeof *cptr);
	if (!c->lptr || !c->lidx || !w->rowptr || !cptr)
		goto out;
	reset_owner(c);
	for (size_t k = 0; k < c->nblk; k++) { /* at most one per H entry */
		size_t t = touched(c, k, c->lidx + total);

		c->lptr[k] = total;
		total += t;
		c->t_max = t > c->t_max ? t : c->t_max;
	}
	c->lptr[c->nblk] = total;
	/* The M blocks of each contact (cidx), to visit a row of W. */
	cidx = malloc((total + 1) * sizeof *cidx);
	if (!cidx)
		goto out;
	for (size_t e = 0; e < total; e++)
		cptr[c->lidx[e] + 1]++;
	for (size_t i = 0; i < nc; i++)
		cptr[i + 1] += cptr[i];
	for (size_t k = 0; k < c->nblk; k++)
		for (size_t e = c->lptr[k]; e < c->lptr[k + 1]; e++)
			cidx[cptr[c->lidx[e]]++] = k;
	memmove(cptr + 1, cptr, nc * sizeof *cptr);
	cptr[0] = 0;

	/* Count, then fill, the distinct contacts of each row. */
	for (int fill = 0; fill < 2; fill++) {
		nb = 0;
		reset_owner(c);
		for (size_t i = 0; i < nc; i++) {
			w->rowptr[i] = nb;
			for (size_t e = cptr[i]; e < cptr[i + 1]; e++) {
				size_t k = cidx[e];

				for (size_t l = c->lptr[k]; l < c->lptr[k + 1];
				     l++) {
					uint32_t j = c->lidx[l];

					if (c->owner[j] == i)
						continue;
					c->owner[j] = i;
					if (fill)
						w->cols[nb] = j;
					nb++;
				}
			}
		}
		w->rowptr[nc] = nb;
		if (!fill) {
			w->cols = malloc((nb ? nb : 1) * sizeof *w->cols);
			w->blocks = calloc((nb ? nb : 1) * 9, sizeof *w->blocks);
			if (!w->cols || !w->blocks)
				goto out;
		}
	}
	for (size_t i = 0; i < nc; i++)
		qsort(w->cols + w->rowptr[i], w->rowptr[i + 1] - w->rowptr[i],
		      sizeof *w->cols, cmp_u32);
	rc = PX_OK;
out:
	free(cptr);
	free(cidx);
	return rc;
}

/* inv = a^-1 (s x s, row-major) by Gauss-Jordan elimination with partial
 * pivoting; a is overwritten. Returns 0 when a pivot is not above
 * s eps max|a|: a is then singular to working precision. */
static int invert(double *a, size_t s, double *inv)
{
	double amax = 0.0;

	for (size_t i = 0; i < s * s; i++)
		amax = fmax(amax, fabs(a[i]));
	for (size_t i = 0; i < s; i++)
		for (size_t j = 0; j < s; j++)
			inv[i * s + j] = i == j;
	for (size_t j = 0; j < s; j++) {
		size_t p = j;
		double d;

		for (size_t i = j + 1; i < s; i++)
			if (fabs(a[i * s + j]) > fabs(a[p * s + j]))
				p = i;
		if (!(fabs(a[p * s + j]) > (double)s * DBL_EPSILON * amax))
			return 0;
		for (size_t k = 0; k < s && p != j; k++) {
			double t = a[p * s + k], u = inv[p * s + k];

			a[p * s + k] = a[j * s + k];
			a[j * s + k] = t;
			inv[p * s + k] = inv[j * s + k];
			inv[j * s + k] = u;
		}
		d = a[j * s + j];
		for (size_t k = 0; k < s; k++) {
			a[j * s + k] /= d;
			inv[j * s + k] /= d;
		}
		for (size_t i = 0; i < s; i++) {
			double f = a[i * s + j];

			if (i == j || f == 0.0)
				continue;
			for (size_t k = 0; k < s; k++) {
				a[i * s + k] -= f * a[j * s + k];
				inv[i * s + k] -= f * inv[j * s + k];
			}
		}
	}
	return 1;
}

/* Block (i, j) of W; structure() made it. */
static double *w_block(const struct fc_bsr *w, uint32_t i, uint32_t j)
{
	const uint32_t *row = w->cols + w->rowptr[i];
	const uint32_t *at = bsearch(&j, row, w->rowptr[i + 1] - w->rowptr[i],
				     sizeof *row, cmp_u32);

	return w->blocks + 9 * (size_t)(at - w->cols);
}

/* Workspace of one M block: its inverse and, per contact of its list, the
 * s x 3 columns of H (hb) and M_b^-1 times them (y). */
struct work {
	double *mb, *inv, *hb, *y, *g;
	uint32_t *list;
};

/* M block k's contributions to W and to q (before + w). */
static int add_block(struct condense *c, size_t k, struct work *wk,
		     const double *f, struct fc_bsr *w, double *q)
{
	const size_t a = c->bound[k], s = c->bound[k + 1] - a;
	const struct fc_rows *m = &c->m, *h = &c->h;
	size_t t;

	memset(wk->mb, 0, s * s * sizeof *wk->mb);
	for (size_t r = a; r < a + s; r++)
		for (size_t e = m->start[r]; e < m->start[r + 1]; e++)
			if (m->col[e] >= a && m->col[e] < a + s)
				wk->mb[(r - a) * s + m->col[e] - a] = m->val[e];
	if (!invert(wk->mb, s, wk->inv))
		return px_error_set(c->err, PX_ERR_FORMAT,
				    "%s: /fclib_global/M: the diagonal block of rows %zu .. %zu is singular",
				    c->path, a, a + s - 1);
	t = touched(c, k, wk->list);
	memset(wk->hb, 0, t * s * 3 * sizeof *wk->hb);
	for (size_t r = a; r < a + s; r++)
		for (size_t e = h->start[r]; e < h->start[r + 1]; e++) {
			uint32_t j = h->col[e] / 3;

			if (c->owner[j] == k + 1)
				wk->hb[(c->pos[j] * s + r - a) * 3 +
				       h->col[e] % 3] = h->val[e];
		}
	/* y_l = M_b^-1 hb_l; g = M_b^-1 f_b */
	for (size_t r = 0; r < s; r++) {
		wk->g[r] = 0.0;
		for (size_t x = 0; x < s; x++)
			wk->g[r] += wk->inv[r * s + x] * f[a + x];
		for (size_t l = 0; l < t; l++)
			for (int col = 0; col < 3; col++) {
				double sum = 0.0;

				for (size_t x = 0; x < s; x++)
					sum += wk->inv[r * s + x] *
					       wk->hb[(l * s + x) * 3 + col];
				wk->y[(l * s + r) * 3 + col] = sum;
			}
	}
	for (size_t r = a; r < a + s; r++)
		for (size_t e = h->start[r]; e < h->start[r + 1]; e++)
			q[h->col[e]] += h->val[e] * wk->g[r - a];
	for (size_t li = 0; li < t; li++)
		for (size_t lj = 0; lj < t; lj++) {
			double *blk = w_block(w, wk->list[li], wk->list[lj]);

			for (int x = 0; x < 3; x++)
				for (int z = 0; z < 3; z++)
					for (size_t r = 0; r < s; r++)
						blk[3 * x + z] +=
							wk->hb[(li * s + r) * 3 + x] *
							wk->y[(lj * s + r) * 3 + z];
		}
	return PX_OK;
}

int fc_condense(const char *path, const struct fclib_global *g, size_t nc,
		struct fc_bsr *w, double *q, struct px_error *err)
{
	struct condense c = {.path = path, .err = err, .nc = nc};
	struct work wk = {0};
	int rc;

	memset(w, 0, sizeof *w);
	if ((rc = fc_rows_from_fclib(path, "/fclib_global/M", g->M, &c.m,
				     err)) ||
	    (rc = fc_rows_from_fclib(path, "/fclib_global/H", g->H, &c.h,
				     err)))
		goto out;
	c.owner = malloc(nc * sizeof *c.owner);
	c.pos = malloc(nc * sizeof *c.pos);
	if (!c.owner || !c.pos || (rc = partition(&c)) ||
	    (rc = structure(&c, w)))
		goto out;
	wk.mb = malloc(c.s_max * c.s_max * sizeof *wk.mb);
	wk.inv = malloc(c.s_max * c.s_max * sizeof *wk.inv);
	wk.hb = malloc((c.t_max * c.s_max * 3 + 1) * sizeof *wk.hb);
	wk.y = malloc((c.t_max * c.s_max * 3 + 1) * sizeof *wk.y);
	wk.g = malloc(c.s_max * sizeof *wk.g);
	wk.list = malloc((c.t_max + 1) * sizeof *wk.list);
	if (!wk.mb || !wk.inv || !wk.hb || !wk.y || !wk.g || !wk.list) {
		rc = PX_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < 3 * nc; i++)
		q[i] = 0.0;
	reset_owner(&c);
	for (size_t k = 0; k < c.nblk && !rc; k++)
		rc = add_block(&c, k, &wk, g->f, w, q);
	for (size_t i = 0; i < 3 * nc && !rc; i++)
		q[i] += g->w[i];
out:
	if (rc == PX_ERR_NOMEM)
		px_error_set(err, rc, "%s: out of memory condensing the global problem",
			     path);
	if (rc)
		fc_bsr_free(w);
	free(wk.mb);
	free(wk.inv);
	free(wk.hb);
	free(wk.y);
	free(wk.g);
	free(wk.list);
	free(c.owner);
	free(c.pos);
	free(c.bound);
	free(c.lptr);
	free(c.lidx);
	fc_rows_free(&c.m);
	fc_rows_free(&c.h);
	return rc;
}
