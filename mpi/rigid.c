/* Rigid parts (issue 21): a rank's contacts of a generated scene's step,
 * taken from the velocity problem its local world (own region and ghost
 * layer) built, with the ghost bodies they share with other ranks.
 *
 * Ownership, decided alike on every rank without a message: a body
 * belongs to the rank whose box holds its centre (region.c), a contact to
 * the owner of its dynamic body of smallest global id. A rank sees every
 * contact of its own bodies (the ghost layer is wide enough), so the
 * owner of a body knows which ranks hold copies of it, and a rank holding
 * a ghost knows its owner. */
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "rigid.h"
#include "world_problem.h"

struct share {
	int32_t rank;
	int theirs; /* 0: own body held by rank; 1: ghost owned by rank */
	uint64_t gid;
	uint32_t body; /* local (dynamic) index */
};

static int cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	if (x->rank != y->rank)
		return (x->rank > y->rank) - (x->rank < y->rank);
	if (x->theirs != y->theirs)
		return x->theirs - y->theirs;
	return (x->gid > y->gid) - (x->gid < y->gid);
}

/* (body, rank): rank has contacts on own body. */
struct holder {
	uint32_t body;
	int32_t rank;
};

static int cmp_holder(const void *a, const void *b)
{
	const struct holder *x = a, *y = b;

	if (x->body != y->body)
		return (x->body > y->body) - (x->body < y->body);
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The owner of its dynamic body of smallest global id (the same on every
 * rank). */
static int contact_owner(const struct px_region *reg, const struct px_contact *c)
{
	int32_t oa = reg->owner[c->a], ob = reg->owner[c->b];

	if (oa < 0)
		return ob;
	if (ob < 0)
		return oa;
	return reg->gid[c->a] < reg->gid[c->b] ? oa : ob;
}

static int build_links(struct px_dist_part *d, struct share *sh, size_t m)
{
	size_t u = 0;

	qsort(sh, m, sizeof *sh, cmp_share);
	for (size_t i = 0; i < m; i++)
		if (i == 0 || cmp_share(&sh[i], &sh[i - 1]))
			sh[u++] = sh[i];
	for (size_t i = 0; i < u; i++)
		d->n_links += i == 0 || sh[i].rank != sh[i - 1].rank;
	d->links = calloc(d->n_links + 1, sizeof *d->links);
	if (!d->links)
		return PX_ERR_NOMEM;
	for (size_t i = 0, l = 0; i < u; l++) {
		struct px_dist_link *L = &d->links[l];
		size_t j = i, most;

		L->rank = sh[i].rank;
		while (j < u && sh[j].rank == L->rank) {
			if (sh[j].theirs)
				L->n_theirs++;
			else
				L->n_mine++;
			j++;
		}
		most = L->n_mine > L->n_theirs ? L->n_mine : L->n_theirs;
		L->mine = malloc((L->n_mine + 1) * sizeof *L->mine);
		L->theirs = malloc((L->n_theirs + 1) * sizeof *L->theirs);
		L->sbuf = malloc((6 * most + 1) * sizeof *L->sbuf);
		L->rbuf = malloc((6 * most + 1) * sizeof *L->rbuf);
		if (!L->mine || !L->theirs || !L->sbuf || !L->rbuf)
			return PX_ERR_NOMEM;
		for (uint32_t a = 0, b = 0; i < j; i++) {
			if (sh[i].theirs)
				L->theirs[b++] = sh[i].body;
			else
				L->mine[a++] = sh[i].body;
			d->shared[sh[i].body] = 1;
		}
	}
	for (size_t i = 0; i < d->n_bodies; i++)
		d->n_shared += d->shared[i];
	return PX_OK;
}

/* copies of own bodies: the distinct ranks with contacts on them. */
static void count_copies(struct px_dist_part *d, struct holder *h, size_t m)
{
	qsort(h, m, sizeof *h, cmp_holder);
	for (size_t i = 0; i < d->n_bodies; i++)
		d->copies[i] = 1;
	for (size_t i = 0, run = 0; i < m; i++) {
		run = i == 0 || h[i].body != h[i - 1].body ? 1 :
		      run + (h[i].rank != h[i - 1].rank);
		d->copies[h[i].body] = (uint32_t)run;
	}
}

int px_dist_rigid_capture(const struct px_world *w, const struct px_problem *p,
			  const struct px_dynamics *wdyn,
			  const struct px_contact_rows *wrows,
			  const struct px_contact *wc, size_t wn,
			  const struct px_region *reg, enum px_dist_combine combine,
			  struct px_dist_part *d, struct px_error *err)
{
	const struct px_contact *c;
	const double *lam;
	uint32_t bs;
	size_t n = wc ? (c = wc, bs = 3, wn) : px_world_contacts(w, &c, &lam, &bs);
	size_t m = 0, mh = 0, j = 0;
	struct px_dynamics own_dyn = {0};
	const struct px_dynamics *dp = wdyn ? wdyn : &own_dyn;
	struct px_contact_rows *made = wrows ? NULL : malloc((n + 1) * sizeof *made);
	const struct px_contact_rows *rows = wrows ? wrows : made;
	struct share *sh = malloc((4 * n + 1) * sizeof *sh);
	struct holder *ho = malloc((2 * n + 1) * sizeof *ho);
	const double *b = px_problem_b_const(p), *pos = px_problem_positions(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	/* soft contact: Gamma, per contact of its two bodies alone (gamma
	 * A_nn), the same on every rank that holds the contact */
	const double *shift = px_problem_normal_shift(p);
	int rc;

	*d = (struct px_dist_part){.kind = PX_DIST_RIGID, .combine = combine,
				   .bs = 3, .width = 6};
	if (bs != 3) {
		rc = px_error_set(err, PX_ERR_INVALID,
				  "the distributed solve of a scene needs 3-row contacts (this scene has torsional friction)");
		goto done;
	}
	rc = rows && sh && ho ? PX_OK
			      : px_error_set(err, PX_ERR_NOMEM, "out of memory");
	if (!rc && !wdyn)
		rc = px_dynamics_build(w, &own_dyn, err);
	if (rc)
		goto done;
	if (!wrows)
		px_contact_rows_build(w, dp, c, n, made);
	d->n_bodies = dp->n;
	for (size_t k = 0; k < n; k++)
		d->n_own += contact_owner(reg, &c[k]) == reg->rank;
	d->gid = malloc((d->n_own + 1) * sizeof *d->gid);
	d->world_contact = malloc((d->n_own + 1) * sizeof *d->world_contact);
	d->b0 = malloc((3 * d->n_own + 1) * sizeof *d->b0);
	d->frame = malloc((9 * d->n_own + 1) * sizeof *d->frame);
	d->lever = malloc((6 * d->n_own + 1) * sizeof *d->lever);
	d->body_a = malloc((d->n_own + 1) * sizeof *d->body_a);
	d->body_b = malloc((d->n_own + 1) * sizeof *d->body_b);
	d->body_gid = malloc((d->n_bodies + 1) * sizeof *d->body_gid);
	d->body_owner = malloc((d->n_bodies + 1) * sizeof *d->body_owner);
	d->inv_mass = malloc((d->n_bodies + 1) * sizeof *d->inv_mass);
	d->inv_inertia = malloc((9 * d->n_bodies + 1) * sizeof *d->inv_inertia);
	d->copies = malloc((d->n_bodies + 1) * sizeof *d->copies);
	d->shared = calloc(d->n_bodies + 1, 1);
	d->vbar = calloc(6 * d->n_bodies + 1, sizeof *d->vbar);
	d->self = calloc(6 * d->n_bodies + 1, sizeof *d->self);
	d->du = calloc(6 * d->n_bodies + 1, sizeof *d->du);
	d->total = calloc(6 * d->n_bodies + 1, sizeof *d->total);
	d->fric = malloc((d->n_own + 1) * sizeof *d->fric);
	d->point = malloc((3 * d->n_own + 1) * sizeof *d->point);
	if (shift)
		d->shift = malloc((d->n_own + 1) * sizeof *d->shift);
	if (!d->gid || !d->world_contact || !d->b0 || !d->frame || !d->lever || !d->body_a ||
	    !d->body_b || !d->fric || !d->point || (shift && !d->shift) ||
	    !d->body_gid || !d->body_owner ||
	    !d->inv_mass || !d->inv_inertia || !d->copies || !d->shared ||
	    !d->vbar || !d->self || !d->du || !d->total) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for a part");
		goto done;
	}
	for (size_t i = 0; i < dp->n; i++) {
		d->body_gid[i] = reg->gid[dp->world[i]];
		d->body_owner[i] = reg->owner[dp->world[i]];
	}
	memcpy(d->inv_mass, dp->inv_mass, dp->n * sizeof *d->inv_mass);
	memcpy(d->inv_inertia, dp->inv_inertia, 9 * dp->n * sizeof *d->inv_inertia);
	for (size_t k = 0; k < n; k++) {
		const int oc = contact_owner(reg, &c[k]);
		const uint32_t ends[2] = {rows[k].pa, rows[k].pb};

		for (int e = 0; e < 2; e++) {
			const uint32_t x = ends[e];

			if (x == PX_STATIC)
				continue;
			if (d->body_owner[x] == reg->rank)
				ho[mh++] = (struct holder){x, oc};
			if (oc == reg->rank && d->body_owner[x] != reg->rank)
				sh[m++] = (struct share){d->body_owner[x], 1, d->body_gid[x], x};
			if (oc != reg->rank && d->body_owner[x] == reg->rank)
				sh[m++] = (struct share){oc, 0, d->body_gid[x], x};
		}
		if (oc != reg->rank)
			continue;
		d->n_cut += (rows[k].pa != PX_STATIC && d->body_owner[rows[k].pa] != reg->rank) ||
			    (rows[k].pb != PX_STATIC && d->body_owner[rows[k].pb] != reg->rank);
		d->world_contact[j] = (uint32_t)k;
		d->gid[j] = reg->gid[c[k].a] < reg->gid[c[k].b] ?
			    reg->gid[c[k].a] << 32 | reg->gid[c[k].b] :
			    reg->gid[c[k].b] << 32 | reg->gid[c[k].a];
		memcpy(d->b0 + 3 * j, b + 3 * k, 3 * sizeof *b);
		memcpy(d->frame + 9 * j, rows[k].frame, 9 * sizeof *d->frame);
		memcpy(d->lever + 6 * j, rows[k].ra, 3 * sizeof *d->lever);
		memcpy(d->lever + 6 * j + 3, rows[k].rb, 3 * sizeof *d->lever);
		d->body_a[j] = rows[k].pa;
		d->body_b[j] = rows[k].pb;
		d->fric[j] = fr[k];
		if (shift)
			d->shift[j] = shift[k];
		memcpy(d->point + 3 * j, pos ? pos + 3 * k : c[k].p, 3 * sizeof *d->point);
		j++;
	}
	count_copies(d, ho, mh);
	if (build_links(d, sh, m))
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the links");
done:
	px_dynamics_free(&own_dyn);
	free(made);
	free(sh);
	free(ho);
	return rc;
}

int px_dist_rigid_build(struct px_dist_part *d, struct px_error *err)
{
	double *im = NULL, *ii = NULL;
	int rc;

	if (!d->n_own)
		return PX_OK;
	im = malloc(d->n_bodies * sizeof *im + 1);
	ii = malloc(9 * d->n_bodies * sizeof *ii + 1);
	if (!im || !ii) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto done;
	}
	/* split: a body with contacts on k ranks weighs m / k on each */
	for (size_t i = 0; i < d->n_bodies; i++) {
		double k = d->combine == PX_DIST_SPLIT ? d->copies[i] : 1;

		im[i] = k * d->inv_mass[i];
		for (int q = 0; q < 9; q++)
			ii[9 * i + q] = k * d->inv_inertia[9 * i + q];
	}
	rc = px_problem_create(d->n_own, 3, &d->p, err);
	if (!rc)
		memcpy(px_problem_friction(d->p), d->fric, d->n_own * sizeof *d->fric);
	for (size_t k = 0; !rc && k < d->n_own; k++)
		rc = px_problem_set_geometry(d->p, k, d->point + 3 * k,
					     d->frame + 9 * k, err);
	if (!rc)
		rc = px_problem_set_rigid(d->p, d->n_bodies, im, ii, d->body_a,
					  d->body_b, d->lever, err);
	if (!rc && d->shift)
		rc = px_problem_set_normal_shift(d->p, d->shift, err);
	if (!rc)
		memcpy(px_problem_b(d->p), d->b0, 3 * d->n_own * sizeof *d->b0);
done:
	free(im);
	free(ii);
	return rc;
}
