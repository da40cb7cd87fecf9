/* Copies of a problem: the same problem in its own storage
 * (px_problem_copy), and the assembled problem of any form
 * (px_problem_assemble): A's block (i, j) is non-zero only where contacts
 * i and j share a dynamic body, and is the velocity at contact i of unit
 * impulses at contact j, through the same products as px_problem_apply. */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "problem_impl.h"

/* dst's per-contact data (b, friction, restitution, geometry) from src:
 * both have src's n and bs. */
static int copy_contacts(const struct px_problem *src, struct px_problem *dst,
			 struct px_error *err)
{
	const size_t n = src->n;

	memcpy(dst->b, src->b, n * src->bs * sizeof *src->b);
	memcpy(dst->friction, src->friction, n * sizeof *src->friction);
	memcpy(dst->restitution, src->restitution,
	       n * sizeof *src->restitution);
	if (!src->position)
		return PX_OK;
	dst->position = malloc(3 * n * sizeof *dst->position);
	dst->frame = malloc(9 * n * sizeof *dst->frame);
	if (!dst->position || !dst->frame)
		return px_error_set(err, PX_ERR_NOMEM,
				    "out of memory for contact geometry");
	memcpy(dst->position, src->position, 3 * n * sizeof *src->position);
	memcpy(dst->frame, src->frame, 9 * n * sizeof *src->frame);
	return PX_OK;
}

int px_problem_copy(const struct px_problem *p, struct px_problem **out,
		    struct px_error *err)
{
	struct px_problem *c = NULL;
	double ii[9];
	double *inv_inertia = NULL;
	int rc;

	*out = NULL;
	if ((rc = px_problem_create(p->n, p->bs, &c, err)) ||
	    (rc = copy_contacts(p, c, err)))
		goto fail;
	switch (p->form) {
	case PX_FORM_ASSEMBLED:
		rc = px_problem_set_assembled(c, p->rowptr, p->cols, p->blocks,
					      err);
		break;
	case PX_FORM_FACTORIZED:
		rc = px_problem_set_factorized(c, p->n_bodies, p->body_a,
					       p->body_b, p->jac, p->minv_jt,
					       err);
		break;
	case PX_FORM_RIGID:
		/* the stored upper triangles, as set_rigid takes them: 3 x 3 */
		inv_inertia = malloc((p->n_bodies ? p->n_bodies : 1) * 9 *
				     sizeof *inv_inertia);
		if (!inv_inertia) {
			rc = px_error_set(err, PX_ERR_NOMEM,
					  "out of memory for a copy of %zu bodies",
					  p->n_bodies);
			goto fail;
		}
		for (size_t b = 0; b < p->n_bodies; b++) {
			const double *u = p->inv_inertia + 6 * b;

			ii[0] = u[0];
			ii[1] = ii[3] = u[1];
			ii[2] = ii[6] = u[2];
			ii[4] = u[3];
			ii[5] = ii[7] = u[4];
			ii[8] = u[5];
			memcpy(inv_inertia + 9 * b, ii, sizeof ii);
		}
		rc = px_problem_set_rigid(c, p->n_bodies, p->inv_mass,
					  inv_inertia, p->body_a, p->body_b,
					  p->lever, err);
		break;
	case PX_FORM_NONE:
		break;
	}
	if (!rc && p->shift)
		rc = px_problem_set_normal_shift(c, p->shift, err);
	if (rc)
		goto fail;
	free(inv_inertia);
	*out = c;
	return PX_OK;
fail:
	free(inv_inertia);
	px_problem_destroy(c);
	return rc;
}

/* Contacts per dynamic body (px_problem_incidence): entries k << 1 | side. */
struct incidence {
	size_t *at;
	uint32_t *list;
};

static int cmp_u32(const void *a, const void *b)
{
	const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The contacts sharing a dynamic body with contact k, k included, sorted,
 * into out (room for the incidence of k's two bodies + 1); stamp[j] ==
 * k + 1 marks the ones taken. Returns how many. */
static size_t neighbours(const struct px_problem *p,
			 const struct incidence *inc, size_t k, size_t *stamp,
			 uint32_t *out)
{
	size_t m = 0;

	stamp[k] = k + 1;
	out[m++] = (uint32_t)k;
	for (int side = 0; side < 2; side++) {
		const uint32_t b = side ? p->body_b[k] : p->body_a[k];

		if (b == PX_STATIC)
			continue;
		for (size_t e = inc->at[b]; e < inc->at[b + 1]; e++) {
			const uint32_t j = inc->list[e] >> 1;

			if (stamp[j] != k + 1) {
				stamp[j] = k + 1;
				out[m++] = j;
			}
		}
	}
	qsort(out, m, sizeof *out, cmp_u32);
	return m;
}

/* w += the body velocities of impulse d (bs rows) at contact j. */
static void impulse(const struct px_problem *p, size_t j, const double *d,
		    double *w)
{
	const size_t per = 6 * (size_t)p->bs;

	if (p->form == PX_FORM_RIGID) {
		px_rigid_add(p, j, w, d, 0, 3);
		return;
	}
	if (p->body_a[j] != PX_STATIC)
		px_body_add(w + 6 * (size_t)p->body_a[j],
			    p->minv_jt + 2 * per * j, d, p->bs, 0, p->bs);
	if (p->body_b[j] != PX_STATIC)
		px_body_add(w + 6 * (size_t)p->body_b[j],
			    p->minv_jt + 2 * per * j + per, d, p->bs, 0, p->bs);
}

/* v += the velocity at contact i of the body velocities w. */
static void velocity(const struct px_problem *p, size_t i, const double *w,
		     double *v)
{
	const size_t per = 6 * (size_t)p->bs;

	if (p->form == PX_FORM_RIGID) {
		px_rigid_velocity(p, i, w, 0, 3, v);
		return;
	}
	if (p->body_a[i] != PX_STATIC)
		px_jac_mul(v, p->jac + 2 * per * i,
			   w + 6 * (size_t)p->body_a[i], 0, p->bs);
	if (p->body_b[i] != PX_STATIC)
		px_jac_mul(v, p->jac + 2 * per * i + per,
			   w + 6 * (size_t)p->body_b[i], 0, p->bs);
}

/* BSR arrays of a factorized or rigid A (plus its normal shift). */
static int assemble_bodies(const struct px_problem *p, size_t **rowptr_out,
			   uint32_t **cols_out, double **blocks_out)
{
	const size_t n = p->n, bs = p->bs, bb = bs * bs;
	struct incidence inc = {0};
	size_t *rowptr = NULL, *stamp = NULL, nnz = 0, most = 1;
	uint32_t *cols = NULL, *nb = NULL;
	double *blocks = NULL, *w = NULL;
	int rc = PX_ERR_NOMEM;

	if (px_problem_incidence(p, &inc.at, &inc.list))
		goto out;
	for (size_t b = 0; b < p->n_bodies; b++)
		if (inc.at[b + 1] - inc.at[b] > most)
			most = inc.at[b + 1] - inc.at[b];
	rowptr = malloc((n + 1) * sizeof *rowptr);
	stamp = calloc(n, sizeof *stamp);
	nb = malloc((2 * most + 1) * sizeof *nb);
	w = calloc((p->n_bodies ? p->n_bodies : 1) * 6, sizeof *w);
	if (!rowptr || !stamp || !nb || !w)
		goto out;
	rowptr[0] = 0;
	for (size_t i = 0; i < n; i++) {
		nnz += neighbours(p, &inc, i, stamp, nb);
		rowptr[i + 1] = nnz;
	}
	cols = malloc(nnz * sizeof *cols);
	blocks = calloc(nnz * bb, sizeof *blocks);
	if (!cols || !blocks)
		goto out;
	memset(stamp, 0, n * sizeof *stamp);
	for (size_t i = 0; i < n; i++)
		neighbours(p, &inc, i, stamp, cols + rowptr[i]);
	/* column block j: unit impulses at j seen at its neighbours i */
	for (size_t j = 0; j < n; j++) {
		const size_t m = rowptr[j + 1] - rowptr[j];
		const uint32_t *near = cols + rowptr[j];

		for (size_t c = 0; c < bs; c++) {
			double e[4] = {0.0, 0.0, 0.0, 0.0};

			e[c] = 1.0;
			impulse(p, j, e, w);
			for (size_t q = 0; q < m; q++) {
				const size_t i = near[q];
				const uint32_t *row = cols + rowptr[i];
				const uint32_t *at = bsearch(
					&(uint32_t){(uint32_t)j}, row,
					rowptr[i + 1] - rowptr[i], sizeof *row,
					cmp_u32);
				double v[4] = {0.0, 0.0, 0.0, 0.0};
				double *blk;

				velocity(p, i, w, v);
				blk = blocks + (rowptr[i] + (size_t)(at - row)) * bb;
				for (size_t r = 0; r < bs; r++)
					blk[r * bs + c] = v[r];
			}
			/* only j's bodies were touched: clear them */
			if (p->body_a[j] != PX_STATIC)
				memset(w + 6 * (size_t)p->body_a[j], 0,
				       6 * sizeof *w);
			if (p->body_b[j] != PX_STATIC)
				memset(w + 6 * (size_t)p->body_b[j], 0,
				       6 * sizeof *w);
		}
		if (p->shift) {
			const uint32_t *at = bsearch(&(uint32_t){(uint32_t)j},
						     near, m, sizeof *near,
						     cmp_u32);

			blocks[(rowptr[j] + (size_t)(at - near)) * bb] +=
				p->shift[j];
		}
	}
	*rowptr_out = rowptr;
	*cols_out = cols;
	*blocks_out = blocks;
	rowptr = NULL;
	cols = NULL;
	blocks = NULL;
	rc = PX_OK;
out:
	free(inc.at);
	free(inc.list);
	free(rowptr);
	free(stamp);
	free(nb);
	free(cols);
	free(blocks);
	free(w);
	return rc;
}

int px_problem_assemble(const struct px_problem *p, struct px_problem **out,
			struct px_error *err)
{
	struct px_problem *c = NULL;
	size_t *rowptr = NULL;
	uint32_t *cols = NULL;
	double *blocks = NULL;
	int rc;

	*out = NULL;
	if (p->form == PX_FORM_NONE)
		return px_error_set(err, PX_ERR_INVALID,
				    "the problem has no Delassus operator A");
	if (p->form == PX_FORM_ASSEMBLED)
		return px_problem_copy(p, out, err);
	if ((rc = px_problem_create(p->n, p->bs, &c, err)) ||
	    (rc = copy_contacts(p, c, err)))
		goto fail;
	if (assemble_bodies(p, &rowptr, &cols, &blocks)) {
		rc = px_error_set(err, PX_ERR_NOMEM,
				  "out of memory for an assembled A of %zu contacts",
				  p->n);
		goto fail;
	}
	rc = px_problem_set_assembled(c, rowptr, cols, blocks, err);
	free(rowptr);
	free(cols);
	free(blocks);
	if (rc)
		goto fail;
	*out = c;
	return PX_OK;
fail:
	px_problem_destroy(c);
	return rc;
}
