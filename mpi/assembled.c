/* Assembled parts (issue 21): rank 0 cuts a problem file's W by contacts;
 * rank r gets its rows, split into the blocks among its own contacts (its
 * local problem) and the blocks W_kj on contacts j of other ranks (ghost
 * contacts, folded into b each round). See dist.h for the combination
 * rules. */
#include <stdlib.h>
#include <string.h>

#include "dist.h"

/* (rank, contact): contact is a ghost of rank. */
struct ghost_pair {
	int32_t rank;
	uint32_t contact;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct ghost_pair *x = a, *y = b;

	if (x->rank != y->rank)
		return (x->rank > y->rank) - (x->rank < y->rank);
	return (x->contact > y->contact) - (x->contact < y->contact);
}

/* Every (rank, ghost contact) pair, sorted and unique. */
static struct ghost_pair *ghost_pairs(size_t n, const size_t *rowptr,
				      const uint32_t *cols, const int32_t *part,
				      size_t *n_out)
{
	struct ghost_pair *g = malloc((rowptr[n] + 1) * sizeof *g);
	size_t m = 0, u = 0;

	if (!g)
		return NULL;
	for (size_t i = 0; i < n; i++)
		for (size_t e = rowptr[i]; e < rowptr[i + 1]; e++)
			if (part[cols[e]] != part[i])
				g[m++] = (struct ghost_pair){part[i], cols[e]};
	qsort(g, m, sizeof *g, cmp_pair);
	for (size_t i = 0; i < m; i++)
		if (i == 0 || cmp_pair(&g[i], &g[i - 1]) != 0)
			g[u++] = g[i];
	*n_out = u;
	return g;
}

/* Index of the first pair of rank r (pairs sorted). */
static size_t first_of(const struct ghost_pair *g, size_t m, int32_t r)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g[mid].rank < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void put_u64(struct px_wire *w, uint64_t v) { px_wire_put(w, &v, sizeof v); }
static void put_u32(struct px_wire *w, uint32_t v) { px_wire_put(w, &v, sizeof v); }

int px_dist_pack_assembled(const struct px_problem *p, const int32_t *part,
			   int r, int nparts, struct px_wire *w,
			   struct px_error *err)
{
	const size_t n = px_problem_n_contacts(p);
	const uint32_t bs = px_problem_block_size(p), bb = bs * bs;
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks, *b = px_problem_b_const(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	const double *pos = px_problem_positions(p), *frm = px_problem_frames(p);
	struct ghost_pair *g = NULL;
	uint32_t *loc = malloc(n * sizeof *loc); /* index within its part */
	uint32_t *cnt = calloc((size_t)nparts, sizeof *cnt);
	size_t m = 0, n_own = 0, nnz = 0, n_cpl = 0, g0, g1, n_links = 0;
	int rc = PX_OK;

	if (px_problem_assembled(p, &rowptr, &cols, &blocks))
		return px_error_set(err, PX_ERR_INVALID,
				    "the distributed solve of a problem file needs an assembled W");
	g = ghost_pairs(n, rowptr, cols, part, &m);
	if (!loc || !cnt || !g) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory partitioning");
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		loc[i] = cnt[part[i]]++;
	g0 = first_of(g, m, r);
	g1 = first_of(g, m, r + 1);
	for (size_t i = 0; i < n; i++) {
		if (part[i] != r)
			continue;
		n_own++;
		for (size_t e = rowptr[i]; e < rowptr[i + 1]; e++)
			if (part[cols[e]] == r)
				nnz++;
			else
				n_cpl++;
	}
	/* neighbours: ranks s with a ghost on r, or ghosting a contact of r */
	for (int s = 0; s < nparts; s++) {
		size_t t0 = first_of(g, m, s), t1 = first_of(g, m, s + 1);
		int linked = 0;

		if (s == r)
			continue;
		for (size_t e = g0; e < g1 && !linked; e++)
			linked = part[g[e].contact] == s;
		for (size_t e = t0; e < t1 && !linked; e++)
			linked = part[g[e].contact] == r;
		cnt[s] = (uint32_t)linked; /* reused: 1 if s is a neighbour */
		n_links += (size_t)linked;
	}
	put_u64(w, n_own);
	put_u32(w, bs);
	put_u32(w, pos && frm);
	put_u64(w, nnz);
	put_u64(w, g1 - g0);
	put_u64(w, n_cpl);
	put_u64(w, n_links);
	for (size_t i = 0; i < n; i++)
		if (part[i] == r)
			put_u64(w, i);
	/* own rows: local blocks, then data per contact, then coupling */
	for (size_t i = 0, at = 0; i < n; i++) {
		if (part[i] != r)
			continue;
		put_u64(w, at);
		for (size_t e = rowptr[i]; e < rowptr[i + 1]; e++)
			at += part[cols[e]] == r;
	}
	put_u64(w, nnz);
	for (size_t i = 0; i < n; i++)
		if (part[i] == r)
			for (size_t e = rowptr[i]; e < rowptr[i + 1]; e++)
				if (part[cols[e]] == r) {
					put_u32(w, loc[cols[e]]);
					px_wire_put(w, blocks + e * bb, bb * sizeof *blocks);
				}
	for (size_t i = 0; i < n; i++) {
		if (part[i] != r)
			continue;
		px_wire_put(w, b + i * bs, bs * sizeof *b);
		px_wire_put(w, fr + i, sizeof *fr);
		if (pos && frm) {
			px_wire_put(w, pos + 3 * i, 3 * sizeof *pos);
			px_wire_put(w, frm + 9 * i, 9 * sizeof *frm);
		}
	}
	for (size_t e = g0; e < g1; e++)
		put_u64(w, g[e].contact);
	/* coupling blocks: column = index in r's ghost list (sorted) */
	for (size_t i = 0, at = 0; i < n; i++) {
		if (part[i] != r)
			continue;
		put_u64(w, at);
		for (size_t e = rowptr[i]; e < rowptr[i + 1]; e++)
			at += part[cols[e]] != r;
	}
	put_u64(w, n_cpl);
	for (size_t i = 0; i < n; i++) {
		if (part[i] != r)
			continue;
		for (size_t e = rowptr[i]; e < rowptr[i + 1]; e++) {
			struct ghost_pair key = {r, cols[e]};
			const struct ghost_pair *hit;

			if (part[cols[e]] == r)
				continue;
			hit = bsearch(&key, g + g0, g1 - g0, sizeof *g, cmp_pair);
			put_u32(w, (uint32_t)(hit - (g + g0)));
			px_wire_put(w, blocks + e * bb, bb * sizeof *blocks);
		}
	}
	/* links: mine = r's contacts ghosted by s (local index); theirs = r's
	 * ghosts owned by s (ghost index); both in contact order */
	for (int s = 0; s < nparts; s++) {
		size_t t0 = first_of(g, m, s), t1 = first_of(g, m, s + 1);
		uint32_t nm = 0, nt = 0;

		if (s == r || !cnt[s])
			continue;
		for (size_t e = t0; e < t1; e++)
			nm += part[g[e].contact] == r;
		for (size_t e = g0; e < g1; e++)
			nt += part[g[e].contact] == s;
		px_wire_put(w, &s, sizeof s);
		put_u32(w, nm);
		put_u32(w, nt);
		for (size_t e = t0; e < t1; e++)
			if (part[g[e].contact] == r)
				put_u32(w, loc[g[e].contact]);
		for (size_t e = g0; e < g1; e++)
			if (part[g[e].contact] == s)
				put_u32(w, (uint32_t)(e - g0));
	}
	if (w->bad)
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory packing part %d", r);
done:
	free(g);
	free(loc);
	free(cnt);
	return rc;
}

static uint64_t get_u64(struct px_wire *w) { uint64_t v; px_wire_get(w, &v, sizeof v); return v; }
static uint32_t get_u32(struct px_wire *w) { uint32_t v; px_wire_get(w, &v, sizeof v); return v; }

/* k of the split rule: 1 + the neighbours whose contacts row k couples
 * with, or that ghost contact k. */
static void split_counts(struct px_dist_part *d)
{
	for (size_t k = 0; k < d->n_own; k++)
		d->mult[k] = 1;
	for (size_t l = 0; l < d->n_links; l++) {
		const struct px_dist_link *L = &d->links[l];
		unsigned char *hit = calloc(d->n_own ? d->n_own : 1, 1);
		unsigned char *gh = calloc(d->n_ghost ? d->n_ghost : 1, 1);

		if (!hit || !gh) { /* leave k at 1: a slower, still exact, rule */
			free(hit);
			free(gh);
			return;
		}
		for (uint32_t i = 0; i < L->n_mine; i++)
			hit[L->mine[i]] = 1;
		for (uint32_t i = 0; i < L->n_theirs; i++)
			gh[L->theirs[i]] = 1;
		for (size_t k = 0; k < d->n_own; k++)
			for (size_t e = d->cpl_ptr[k]; e < d->cpl_ptr[k + 1] && !hit[k]; e++)
				hit[k] = gh[d->cpl_col[e]];
		for (size_t k = 0; k < d->n_own; k++)
			d->mult[k] += hit[k];
		free(hit);
		free(gh);
	}
}

static int build_problem(struct px_dist_part *d, const size_t *rowptr,
			 const uint32_t *cols, double *blocks,
			 const struct px_friction_params *fr, const double *geom,
			 struct px_error *err)
{
	const uint32_t bs = d->bs, bb = bs * bs;
	int rc;

	/* keep the true diagonal blocks; scale the local ones (split) */
	for (size_t k = 0; k < d->n_own; k++)
		for (size_t e = rowptr[k]; e < rowptr[k + 1]; e++)
			if (cols[e] == k) {
				memcpy(d->diag + k * bb, blocks + e * bb, bb * sizeof *blocks);
				if (d->combine == PX_DIST_SPLIT && d->mult[k] > 1)
					for (uint32_t q = 0; q < bb; q++)
						blocks[e * bb + q] *= d->mult[k];
			}
	rc = px_problem_create(d->n_own, bs, &d->p, err);
	if (rc)
		return rc;
	rc = px_problem_set_assembled(d->p, rowptr, cols, blocks, err);
	if (rc)
		return rc;
	memcpy(px_problem_b(d->p), d->b0, d->n_own * bs * sizeof *d->b0);
	memcpy(px_problem_friction(d->p), fr, d->n_own * sizeof *fr);
	for (size_t k = 0; geom && k < d->n_own && !rc; k++)
		rc = px_problem_set_geometry(d->p, k, geom + 12 * k,
					     geom + 12 * k + 3, err);
	return rc;
}

int px_dist_unpack_assembled(struct px_wire *w, enum px_dist_combine combine,
			     struct px_dist_part *d, struct px_error *err)
{
	size_t nnz, n_cpl, *rowptr = NULL;
	uint32_t *cols = NULL, bs, has_geom;
	double *blocks = NULL, *geom = NULL;
	struct px_friction_params *fr = NULL;
	int rc = PX_OK;

	*d = (struct px_dist_part){0};
	d->kind = PX_DIST_ASSEMBLED;
	d->combine = combine;
	d->n_own = get_u64(w);
	d->bs = bs = get_u32(w);
	d->width = bs;
	has_geom = get_u32(w);
	nnz = get_u64(w);
	d->n_ghost = get_u64(w);
	n_cpl = get_u64(w);
	d->n_links = get_u64(w);
	if (w->bad || (bs != 3 && bs != 4))
		goto bad;
	d->gid = px_wire_take(w, d->n_own, sizeof *d->gid);
	rowptr = malloc((d->n_own + 1) * sizeof *rowptr);
	cols = malloc((nnz + 1) * sizeof *cols);
	blocks = malloc((nnz * bs * bs + 1) * sizeof *blocks);
	d->b0 = malloc((d->n_own * bs + 1) * sizeof *d->b0);
	fr = malloc((d->n_own + 1) * sizeof *fr);
	geom = has_geom ? malloc((12 * d->n_own + 1) * sizeof *geom) : NULL;
	d->mult = malloc((d->n_own + 1) * sizeof *d->mult);
	d->diag = calloc(d->n_own * bs * bs + 1, sizeof *d->diag);
	d->cpl_ptr = malloc((d->n_own + 1) * sizeof *d->cpl_ptr);
	d->cpl_col = malloc((n_cpl + 1) * sizeof *d->cpl_col);
	d->cpl_blk = malloc((n_cpl * bs * bs + 1) * sizeof *d->cpl_blk);
	d->ghost_lambda = calloc(d->n_ghost * bs + 1, sizeof *d->ghost_lambda);
	d->links = calloc(d->n_links + 1, sizeof *d->links);
	if (!rowptr || !cols || !blocks || !d->b0 || !fr || (has_geom && !geom) ||
	    !d->mult || !d->diag || !d->cpl_ptr || !d->cpl_col || !d->cpl_blk ||
	    !d->ghost_lambda || !d->links) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for a part of %zu contacts",
				  d->n_own);
		goto done;
	}
	for (size_t k = 0; k <= d->n_own; k++)
		rowptr[k] = get_u64(w);
	for (size_t e = 0; e < nnz; e++) {
		cols[e] = get_u32(w);
		px_wire_get(w, blocks + e * bs * bs, bs * bs * sizeof *blocks);
	}
	for (size_t k = 0; k < d->n_own; k++) {
		px_wire_get(w, d->b0 + k * bs, bs * sizeof *d->b0);
		px_wire_get(w, fr + k, sizeof *fr);
		if (has_geom)
			px_wire_get(w, geom + 12 * k, 12 * sizeof *geom);
	}
	d->ghost_gid = px_wire_take(w, d->n_ghost, sizeof *d->ghost_gid);
	for (size_t k = 0; k <= d->n_own; k++)
		d->cpl_ptr[k] = get_u64(w);
	for (size_t e = 0; e < n_cpl; e++) {
		d->cpl_col[e] = get_u32(w);
		px_wire_get(w, d->cpl_blk + e * bs * bs, bs * bs * sizeof *d->cpl_blk);
	}
	for (size_t l = 0; l < d->n_links; l++) {
		struct px_dist_link *L = &d->links[l];
		size_t most;

		px_wire_get(w, &L->rank, sizeof L->rank);
		L->n_mine = get_u32(w);
		L->n_theirs = get_u32(w);
		L->mine = px_wire_take(w, L->n_mine, sizeof *L->mine);
		L->theirs = px_wire_take(w, L->n_theirs, sizeof *L->theirs);
		most = L->n_mine > L->n_theirs ? L->n_mine : L->n_theirs;
		L->sbuf = malloc((most * bs + 1) * sizeof *L->sbuf);
		L->rbuf = malloc((most * bs + 1) * sizeof *L->rbuf);
		if (!L->sbuf || !L->rbuf)
			w->bad = 1;
	}
	if (w->bad || w->pos != w->n)
		goto bad;
	split_counts(d);
	if (d->n_own)
		rc = build_problem(d, rowptr, cols, blocks, fr, geom, err);
	goto done;
bad:
	rc = px_error_set(err, PX_ERR_FORMAT, "a part arrived truncated or malformed");
done:
	free(rowptr);
	free(cols);
	free(blocks);
	free(fr);
	free(geom);
	return rc;
}
