/* A step of a generated scene's world across ranks (issue 21, step.h):
 * the distributed solve inside the world's solve hook, then the cut
 * impulses, so that each rank's world moves its own bodies by every
 * contact on them. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "mesh.h"
#include "rigid.h"
#include "step.h"

enum { TAG_CUT = 11, TAG_SUBSTEP = 13 };

/* The impulse of a contact on a body of another rank, for its owner:
 * keyed by the global ids of its two bodies (in the pair's order, the
 * same on every rank: the worlds keep their bodies by ascending id), the
 * collision's feature id and the contact point (every rank's copies of
 * the two bodies are the same to the bit, and so are their contacts). */
struct cut {
	uint64_t ga, gb;
	uint64_t feature;
	double p[3];
	double l[3];
};

static int cmp_cut(const void *x, const void *y)
{
	const struct cut *a = x, *b = y;

	if (a->ga != b->ga)
		return a->ga < b->ga ? -1 : 1;
	if (a->gb != b->gb)
		return a->gb < b->gb ? -1 : 1;
	if (a->feature != b->feature)
		return a->feature < b->feature ? -1 : 1;
	for (int i = 0; i < 3; i++)
		if (a->p[i] != b->p[i])
			return a->p[i] < b->p[i] ? -1 : 1;
	return 0;
}

static struct cut cut_key(const struct px_region *reg,
			  const struct px_contact *c)
{
	return (struct cut){reg->gid[c->a], reg->gid[c->b], c->feature,
			    {c->p[0], c->p[1], c->p[2]}, {0}};
}

/* Whether body (an end of a contact, static or not) is rank q's. */
static int of_rank(const struct px_region *reg, uint32_t body, int q)
{
	return reg->owner[body] == q;
}

int px_dist_outbox_init(struct px_dist_outbox *o,
			const struct px_dist_world *dw, size_t cap)
{
	o->n = dw->n_nbr;
	o->buf = calloc(o->n + 1, sizeof *o->buf);
	o->bytes = calloc(o->n + 1, sizeof *o->bytes);
	if (!o->buf || !o->bytes)
		return PX_ERR_NOMEM;
	for (size_t q = 0; q < o->n; q++)
		if (!(o->buf[q] = malloc(cap + 1)))
			return PX_ERR_NOMEM;
	return PX_OK;
}

void px_dist_outbox_free(struct px_dist_outbox *o)
{
	for (size_t q = 0; o->buf && q < o->n; q++)
		free(o->buf[q]);
	free(o->buf);
	free(o->bytes);
	*o = (struct px_dist_outbox){0};
}

int px_dist_world_swap(struct px_dist_world *dw, int tag, int rc,
		       const struct px_dist_outbox *out, unsigned char **in,
		       size_t *in_bytes, struct px_error *err)
{
	const size_t m = dw->n_nbr;
	uint64_t *cnt = dw->cnt;
	MPI_Request *req = dw->req;
	size_t total = 0;

	*in = NULL;
	*in_bytes = 0;
	for (size_t q = 0; q < m; q++) {
		cnt[q] = rc ? 0 : out->bytes[q];
		MPI_Isend(cnt + q, 1, MPI_UINT64_T, dw->nbr[q], tag, MPI_COMM_WORLD,
			  req + q);
		MPI_Irecv(cnt + m + q, 1, MPI_UINT64_T, dw->nbr[q], tag,
			  MPI_COMM_WORLD, req + m + q);
		dw->traffic.messages++;
		dw->traffic.bytes += sizeof *cnt;
	}
	MPI_Waitall((int)(2 * m), req, MPI_STATUSES_IGNORE);
	for (size_t q = 0; q < m; q++)
		total += cnt[m + q];
	if (!rc && !(*in = malloc(total + 1)))
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the neighbours' messages",
				  dw->rank);
	rc = px_dist_agree(rc, err);
	if (rc) {
		free(*in);
		*in = NULL;
		return rc;
	}
	for (size_t q = 0, at = 0; q < m; q++) {
		MPI_Irecv(*in + at, (int)cnt[m + q], MPI_BYTE, dw->nbr[q], tag,
			  MPI_COMM_WORLD, req + m + q);
		at += cnt[m + q];
		MPI_Isend(out->buf[q], (int)out->bytes[q], MPI_BYTE, dw->nbr[q],
			  tag, MPI_COMM_WORLD, req + q);
		dw->traffic.messages++;
		dw->traffic.bytes += out->bytes[q];
	}
	MPI_Waitall((int)(2 * m), req, MPI_STATUSES_IGNORE);
	*in_bytes = total;
	return PX_OK;
}

/* The index in dw->nbr of rank r, or n_nbr. */
static size_t nbr_index(const struct px_dist_world *dw, int r)
{
	size_t q = 0;

	while (q < dw->n_nbr && dw->nbr[q] != r)
		q++;
	return q;
}

/* Into out's buffer q the impulse of every own contact (of part d, its
 * contacts c) on a body of neighbour q (each contact once per
 * neighbour). */
static void cuts_out(const struct px_dist_world *dw,
		     const struct px_dist_part *d, const struct px_contact *c,
		     const double *own, struct px_dist_outbox *out)
{
	const struct px_region *reg = dw->reg;

	for (size_t j = 0; j < d->n_own; j++) {
		const struct px_contact *ck = c + d->world_contact[j];
		const int32_t oa = reg->owner[ck->a], ob = reg->owner[ck->b];

		for (int e = 0; e < 2; e++) {
			const int32_t o = e ? ob : oa;
			struct cut cut;
			size_t q;

			if (o < 0 || o == dw->rank || (e && ob == oa))
				continue;
			q = nbr_index(dw, o);
			if (q == dw->n_nbr) /* cannot be: the owner of a body
					       this rank keeps is a neighbour */
				continue;
			cut = cut_key(reg, ck);
			memcpy(cut.l, own + 3 * j, sizeof cut.l);
			px_dist_outbox_put(out, q, &cut, sizeof cut);
		}
	}
}

/* Send every neighbour the impulses of own contacts on its bodies, take
 * theirs: into lambda (every contact of the world, bs 3) the own
 * contacts' (own, in order) and, for the others on an own body, what
 * their owners sent; zero for the rest. */
static int cut_exchange_of(struct px_dist_world *dw,
			   const struct px_dist_part *d,
			   const struct px_contact *c, size_t n,
			   const double *own, double *lambda,
			   struct px_error *err)
{
	const struct px_region *reg = dw->reg;
	struct px_dist_outbox out;
	struct cut *in;
	size_t n_in = 0;
	unsigned char *got_bytes = NULL, *mine = malloc(n + 1);
	int rc = px_dist_outbox_init(&out, dw, d->n_own * sizeof *in);

	if (rc || !mine)
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the cut impulses",
				  dw->rank);
	else
		cuts_out(dw, d, c, own, &out);
	rc = px_dist_world_swap(dw, TAG_CUT, rc, &out, &got_bytes, &n_in, err);
	in = (struct cut *)got_bytes;
	n_in /= sizeof *in;
	if (n_in)
		qsort(in, n_in, sizeof *in, cmp_cut);
	if (!rc && lambda) { /* NULL: no contact in this rank's world */
		memset(lambda, 0, 3 * n * sizeof *lambda);
		memset(mine, 0, n);
		for (size_t j = 0; j < d->n_own; j++) {
			memcpy(lambda + 3 * d->world_contact[j], own + 3 * j,
			       3 * sizeof *own);
			mine[d->world_contact[j]] = 1;
		}
	}
	for (size_t k = 0; !rc && k < n; k++) {
		const struct cut key = cut_key(reg, c + k), *got;

		if (mine[k] || (!of_rank(reg, c[k].a, dw->rank) &&
				!of_rank(reg, c[k].b, dw->rank)))
			continue; /* own, or between ghosts: their owners' */
		got = n_in ? bsearch(&key, in, n_in, sizeof *in, cmp_cut) : NULL;
		if (!got)
			rc = px_error_set(err, PX_ERR_INVALID,
					  "rank %d: no impulse came for the contact of bodies %llu and %llu (feature %llu)",
					  dw->rank, (unsigned long long)key.ga,
					  (unsigned long long)key.gb,
					  (unsigned long long)key.feature);
		else
			memcpy(lambda + 3 * k, got->l, sizeof got->l);
	}
	px_dist_outbox_free(&out);
	free(got_bytes);
	free(mine);
	return px_dist_agree(rc, err);
}

/* cut_exchange_of the step's part dw->d and the world's contacts (none
 * when lambda is NULL). */
static int cut_exchange(struct px_dist_world *dw, const double *own,
			double *lambda, struct px_error *err)
{
	const struct px_contact *c = NULL;
	const double *unused;
	uint32_t bs;
	const size_t n = lambda ? px_world_contacts(dw->w, &c, &unused, &bs) : 0;

	return cut_exchange_of(dw, &dw->d, c, n, own, lambda, err);
}

/* Static body s of the world's bodies (its world index): its place in
 * dw->static_gid. */
static size_t static_index(const struct px_dist_world *dw, uint32_t s)
{
	const uint64_t g = dw->reg->gid[s];
	size_t lo = 0, hi = dw->n_static;

	while (hi - lo > 1) {
		const size_t mid = lo + (hi - lo) / 2;

		if (dw->static_gid[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* What the step's own contacts did: their impulse on static bodies (the
 * momentum check; the run's per static body too), from the world's
 * impulses of the step (summed over its substeps, each substep's last
 * solve: with soft contact the relaxation's, which moved the bodies), and
 * their deepest penetration. */
static void own_tally(struct px_dist_world *dw)
{
	const struct px_dist_part *d = &dw->d;
	const struct px_body *b = px_world_bodies(dw->w);
	const struct px_contact *c;
	const double *wl;
	uint32_t bs;

	px_world_contacts(dw->w, &c, &wl, &bs);
	for (size_t j = 0; j < d->n_own; j++) {
		const double *fr = d->frame + 9 * j;
		const double *l = wl + 3 * (size_t)d->world_contact[j];
		const struct px_contact *cj = c + d->world_contact[j];

		for (int e = 0; e < 2; e++) {
			const uint32_t x = e ? d->body_b[j] : d->body_a[j];
			const uint32_t y = e ? d->body_a[j] : d->body_b[j];
			double f[3];
			size_t k;

			if (x == PX_STATIC || y != PX_STATIC)
				continue;
			k = static_index(dw, b[cj->a].is_static ? cj->a : cj->b);
			for (int q = 0; q < 3; q++) {
				f[q] = (e ? -1 : 1) * (l[0] * fr[q] + l[1] * fr[3 + q] +
						       l[2] * fr[6 + q]);
				dw->static_impulse[q] += f[q];
				dw->static_j[3 * k + q] += f[q];
			}
		}
		if (cj->depth > dw->max_depth)
			dw->max_depth = cj->depth;
	}
}

/* The step's kept parts (keep) and solvers, freed. */
static void keep_reset(struct px_dist_world *dw)
{
	px_solver_destroy(dw->sv);
	px_solver_destroy(dw->spare.sv);
	free(dw->kl);
	free(dw->spare.kl);
	px_dist_part_free(&dw->spare.d);
	dw->sv = dw->spare.sv = NULL;
	dw->kl = dw->spare.kl = NULL;
	dw->d_p = dw->spare.p = NULL;
}

/* The step's solve on every rank: inside the hook (s: the world's
 * problem) or, on a rank whose world has no contact or failed before its
 * hook, after the world's step (s NULL, rc its status). */
static int solve_step(struct px_dist_world *dw, const struct px_step_solve *s,
		      int rc, unsigned call, struct px_error *err)
{
	struct px_dist_part *d = &dw->d;
	double *lambda = NULL;

	px_dist_part_free(d);
	free(dw->res.history);
	dw->res = (struct px_dist_result){0};
	*d = (struct px_dist_part){.kind = PX_DIST_RIGID, .combine = dw->o.combine,
				   .bs = 3, .width = 6};
	if (s && !s->problem) /* no contact in this rank's world */
		s = NULL;
	if (!rc && s &&
	    (rc = px_dist_rigid_capture(dw->w, s->problem, s->dynamics, s->rows, NULL, 0, dw->reg,
					dw->o.combine, d, err)))
		px_dist_prefix_rank(err, dw->rank);
	if (!rc) {
		lambda = calloc(3 * d->n_own + 1, sizeof *lambda);
		if (!lambda)
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	for (size_t j = 0; !rc && j < d->n_own; j++) {
		/* the world's warm start of the own contacts */
		memcpy(lambda + 3 * j, s->warm_start + 3 * d->world_contact[j],
		       3 * sizeof *lambda);
		dw->warm += call == 0 && lambda[3 * j] != 0.0;
	}
	rc = px_dist_agree(rc, err);
	if (!rc && px_dist_share_copies(d, &dw->traffic))
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the copies");
	if (!rc)
		rc = px_dist_rigid_build(d, err);
	rc = px_dist_agree(rc, err);
	if (!rc)
		rc = px_dist_solve(d, dw->cfg, &dw->o, lambda, &dw->res, err);
	if (!rc)
		rc = cut_exchange(dw, lambda, s ? s->lambda : NULL, err);
	free(lambda);
	return rc;
}

/* One rank with substeps: the solve of s's problem through the part and
 * solver kept for it in the step (keep), made at its first solve, its b
 * the substep's; the world then moves the bodies by the solver's body
 * velocities, as the serial world does with its own kept solver. */
static int solve_kept(struct px_dist_world *dw, const struct px_step_solve *s,
		      unsigned call, struct px_error *err)
{
	struct px_dist_part *d = &dw->d;
	const int soft = px_world_settings(dw->w)->stabilization == PX_STAB_SOFT;
	const double *b = px_problem_b_const(s->problem);
	int rc = PX_OK;

	free(dw->res.history);
	dw->res = (struct px_dist_result){0};
	if (s->problem != dw->d_p && s->problem == dw->spare.p) {
		const struct px_dist_part t = *d;
		struct px_solver *sv = dw->sv;
		double *kl = dw->kl;

		*d = dw->spare.d;
		dw->sv = dw->spare.sv;
		dw->kl = dw->spare.kl;
		dw->spare.d = t;
		dw->spare.sv = sv;
		dw->spare.kl = kl;
		dw->spare.p = dw->d_p;
		dw->d_p = s->problem;
	} else if (s->problem != dw->d_p) {
		px_dist_part_free(&dw->spare.d);
		px_solver_destroy(dw->spare.sv);
		free(dw->spare.kl);
		dw->spare.d = *d;
		dw->spare.sv = dw->sv;
		dw->spare.kl = dw->kl;
		dw->spare.p = dw->d_p;
		dw->sv = NULL;
		dw->kl = NULL;
		dw->d_p = s->problem;
		*d = (struct px_dist_part){.kind = PX_DIST_RIGID,
					   .combine = dw->o.combine, .bs = 3,
					   .width = 6};
		rc = px_dist_rigid_capture(dw->w, s->problem, s->dynamics, s->rows, NULL, 0, dw->reg,
					   dw->o.combine, d, err);
		if (!rc && !(dw->kl = calloc(3 * d->n_own + 1, sizeof *dw->kl)))
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		if (!rc && px_dist_share_copies(d, &dw->traffic))
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the copies");
		if (!rc)
			rc = px_dist_rigid_build(d, err);
		if (rc) { /* not kept half made */
			dw->d_p = NULL;
			px_dist_prefix_rank(err, dw->rank);
		}
	}
	rc = px_dist_agree(rc, err);
	if (rc)
		return rc;
	for (size_t j = 0; j < d->n_own; j++) {
		/* the substep's b; the warm start (the last substep's impulses:
		 * where the solver left them) */
		memcpy(d->b0 + 3 * j, b + 3 * d->world_contact[j], 3 * sizeof *b);
		memcpy(dw->kl + 3 * j, s->warm_start + 3 * d->world_contact[j],
		       3 * sizeof *dw->kl);
		dw->warm += call == 0 && dw->kl[3 * j] != 0.0;
	}
	if (d->p)
		memcpy(px_problem_b(d->p), d->b0, 3 * d->n_own * sizeof *d->b0);
	rc = px_dist_solve_kept(d, dw->cfg, &dw->sv, !soft, dw->kl, &dw->res, err);
	if (!rc)
		rc = cut_exchange(dw, dw->kl, s->lambda, err);
	if (!rc && s->body_velocities && dw->sv)
		*s->body_velocities = px_solver_body_velocities(dw->sv);
	return rc;
}

/* Post-stabilization's position solve (s->deep): whether a contact of
 * any rank is deeper than the slop (one reduction), and if so the
 * frictionless problem of the moved bodies' contacts solved distributed
 * from zero, its own contacts' impulses and those on own bodies in
 * s->lambda, as a velocity solve's; its part is its own (dw->d stays the
 * step's, for the tally and the frames) and its sweeps are not the
 * step's (serially neither). */
static int post_solve(struct px_dist_world *dw, const struct px_step_solve *s,
		      struct px_error *err)
{
	struct px_dist_part d = {.kind = PX_DIST_RIGID, .combine = dw->o.combine,
				 .bs = 3, .width = 6};
	struct px_dist_result res = {0};
	double *lambda = NULL;
	int rc = PX_OK, any = *s->deep;

	MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	*s->deep = any;
	if (!any)
		return PX_OK;
	if (s->problem &&
	    (rc = px_dist_rigid_capture(dw->w, s->problem, s->dynamics, s->rows,
					s->contacts, s->n_contacts, dw->reg,
					dw->o.combine, &d, err)))
		px_dist_prefix_rank(err, dw->rank);
	if (!rc && !(lambda = calloc(3 * d.n_own + 1, sizeof *lambda)))
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
	rc = px_dist_agree(rc, err);
	if (!rc && px_dist_share_copies(&d, &dw->traffic))
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the copies");
	if (!rc)
		rc = px_dist_rigid_build(&d, err);
	rc = px_dist_agree(rc, err);
	if (!rc)
		rc = px_dist_solve(&d, dw->cfg, &dw->o, lambda, &res, err);
	if (!rc)
		rc = cut_exchange_of(dw, &d, s->contacts,
				     s->problem ? s->n_contacts : 0, lambda,
				     s->problem ? s->lambda : NULL, err);
	free(res.history);
	free(lambda);
	px_dist_part_free(&d);
	return rc;
}

static int hook(void *ctx, const struct px_step_solve *s, struct px_error *err)
{
	struct px_dist_world *dw = ctx;
	unsigned call;
	int rc;

	if (s->deep)
		return post_solve(dw, s, err);
	call = dw->calls++;
	dw->solved = 1;
	rc = dw->keep && s->problem ? solve_kept(dw, s, call, err)
				    : solve_step(dw, s, PX_OK, call, err);
	dw->sweeps += dw->res.sweeps;
	dw->converged &= dw->res.converged;
	dw->solve_seconds += dw->res.seconds;
	return rc;
}

/* A ghost's state, from its owner, between substeps. */
struct ghost_state {
	uint64_t gid;
	double x[3], q[4], v[3], w[3];
};

static int cmp_u64(const void *x, const void *y)
{
	const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Before substep i >= 1 (the world's substep hook, collective): every
 * rank sends the bodies it owns to the neighbours whose worlds hold them
 * (those whose regions kept them at the step's start, as the last
 * refresh sent them), and takes its ghosts' positions, orientations and
 * velocities, so that the substep's free velocities and depths of the
 * contacts on ghosts are their owners'. One rank: nothing to do. */
static int substep_sync(void *ctx, uint32_t i, struct px_error *err)
{
	struct px_dist_world *dw = ctx;
	const struct px_region *reg = dw->reg;
	const size_t n = px_world_n_bodies(dw->w);
	struct px_body *b = px_world_bodies_mut(dw->w);
	struct px_dist_outbox out;
	unsigned char *in = NULL;
	size_t got = 0, mine = 0;
	int rc;

	(void)i;
	if (dw->size == 1)
		return PX_OK;
	for (size_t k = 0; k < n; k++)
		mine += dw->own[k];
	rc = px_dist_outbox_init(&out, dw, mine * sizeof(struct ghost_state));
	if (rc)
		rc = px_error_set(err, PX_ERR_NOMEM, "rank %d: out of memory for the ghosts' states",
				  dw->rank);
	for (size_t k = 0; !rc && k < n; k++) {
		struct ghost_state g = {.gid = reg->gid[k]};

		if (!dw->own[k])
			continue;
		memcpy(g.x, b[k].x, sizeof g.x);
		memcpy(g.q, b[k].q, sizeof g.q);
		memcpy(g.v, b[k].v, sizeof g.v);
		memcpy(g.w, b[k].w, sizeof g.w);
		for (size_t q = 0; q < dw->n_nbr; q++)
			if (px_region_keeps(reg, dw->nbr[q], dw->x0 + 3 * k))
				px_dist_outbox_put(&out, q, &g, sizeof g);
	}
	rc = px_dist_world_swap(dw, TAG_SUBSTEP, rc, &out, &in, &got, err);
	for (size_t m = 0; !rc && m < got / sizeof(struct ghost_state); m++) {
		struct ghost_state g;
		const uint64_t *at;

		memcpy(&g, in + m * sizeof g, sizeof g);
		at = bsearch(&g.gid, reg->gid, n, sizeof *reg->gid, cmp_u64);
		if (!at || dw->own[at - reg->gid])
			continue; /* not held here, or own (cannot be) */
		memcpy(b[at - reg->gid].x, g.x, sizeof g.x);
		memcpy(b[at - reg->gid].q, g.q, sizeof g.q);
		memcpy(b[at - reg->gid].v, g.v, sizeof g.v);
		memcpy(b[at - reg->gid].w, g.w, sizeof g.w);
	}
	px_dist_outbox_free(&out);
	free(in);
	return px_dist_agree(rc, err);
}

/* After the step, before the refresh renumbers the bodies: the own
 * contacts as the serial VTK frames draw them (px_world_vtk_contacts),
 * their bodies by scene index, into dw->vtk. */
static int vtk_contacts(struct px_dist_world *dw, struct px_error *err)
{
	const struct px_dist_part *d = &dw->d;
	struct px_vtk_contact *c = NULL;
	size_t n = 0;
	int rc = px_world_vtk_contacts(dw->w, &c, &n, err);

	free(dw->vtk);
	dw->vtk = NULL;
	dw->n_vtk = 0;
	if (rc)
		return rc;
	for (size_t j = 0; j < d->n_own; j++) {
		struct px_vtk_contact *x = c + d->world_contact[j];

		x->body = (int32_t)dw->reg->gid[x->body];
		x->other = x->other < 0 ? x->other : (int32_t)dw->reg->gid[x->other];
		c[dw->n_vtk++] = *x; /* world_contact ascends: no overwrite */
	}
	dw->vtk = c;
	return PX_OK;
}

int px_dist_world_neighbours(struct px_dist_world *dw, struct px_error *err)
{
	free(dw->nbr);
	free(dw->req);
	free(dw->cnt);
	dw->req = NULL;
	dw->cnt = NULL;
	if (px_region_neighbours(dw->reg, &dw->nbr, &dw->n_nbr))
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	dw->req = malloc((2 * dw->n_nbr + 1) * sizeof *dw->req);
	dw->cnt = malloc((2 * dw->n_nbr + 1) * sizeof *dw->cnt);
	if (!dw->req || !dw->cnt)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	return PX_OK;
}

int px_dist_world_create(struct px_dist_world *dw, struct px_region *reg,
			 const struct px_world_settings *s,
			 const struct px_body *bodies, size_t n,
			 struct px_config *cfg, const struct px_dist_opts *o,
			 struct px_error *err)
{
	int rc;

	*dw = (struct px_dist_world){.reg = reg, .cfg = cfg, .o = *o,
				     .rank = reg->rank, .size = reg->size};
	/* one rank keeps its parts and solvers across a step's substeps,
	 * as the serial world does */
	dw->keep = reg->size == 1 && s->substeps > 1;
	rc = px_world_create(s, &dw->w, err);
	for (size_t i = 0; !rc && i < n; i++)
		rc = px_world_add_body(dw->w, bodies + i, NULL, err);
	if (!rc)
		rc = px_dist_world_neighbours(dw, err);
	for (size_t i = 0; !rc && i < n; i++)
		dw->n_static += reg->owner[i] < 0;
	if (!rc) {
		dw->static_gid = malloc((dw->n_static + 1) * sizeof *dw->static_gid);
		dw->static_j = calloc(3 * dw->n_static + 1, sizeof *dw->static_j);
		if (!dw->static_gid || !dw->static_j)
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	/* kept in the scene's order: ascending */
	for (size_t i = 0, k = 0; !rc && i < n; i++)
		if (reg->owner[i] < 0)
			dw->static_gid[k++] = reg->gid[i];
	if (rc)
		return rc;
	px_world_set_solve_hook(dw->w, hook, dw);
	px_world_hook_solves(dw->w, 1);
	px_world_set_substep_hook(dw->w, substep_sync);
	return PX_OK;
}

int px_dist_world_step(struct px_dist_world *dw, struct px_error *err)
{
	const size_t n = px_world_n_bodies(dw->w);
	struct px_step_stats st;
	const struct px_body *b = px_world_bodies(dw->w);
	unsigned char *own = realloc(dw->own, n + 1);
	double *x0 = own ? realloc(dw->x0, (3 * n + 1) * sizeof *x0) : NULL;
	int rc = x0 ? PX_OK : px_error_set(err, PX_ERR_NOMEM, "out of memory");

	if (own)
		dw->own = own;
	if (x0) {
		dw->x0 = x0;
		for (size_t i = 0; i < n; i++) {
			own[i] = dw->reg->owner[i] == dw->rank;
			memcpy(x0 + 3 * i, b[i].x, 3 * sizeof *x0);
		}
	}
	dw->solved = 0;
	dw->calls = 0;
	dw->sweeps = 0;
	dw->converged = 1;
	dw->solve_seconds = 0;
	dw->warm = 0;
	dw->max_depth = 0;
	memset(dw->static_impulse, 0, sizeof dw->static_impulse);
	keep_reset(dw);
	if (!rc)
		rc = px_world_step(dw->w, dw->cfg, &st, err);
	keep_reset(dw);
	if (!rc)
		own_tally(dw);
	if (!rc && dw->vtk_want)
		rc = vtk_contacts(dw, err);
	if (!dw->solved) { /* failed before the hook */
		const int was = rc;

		rc = solve_step(dw, NULL, rc, 0, err);
		dw->sweeps += dw->res.sweeps;
		dw->converged &= dw->res.converged;
		if (!rc && was)
			rc = was;
	}
	rc = px_dist_agree(rc, err);
	if (rc)
		return rc;
	return dw->rebalance_due ? px_dist_rebalance(dw, err)
				 : px_dist_refresh(dw, err);
}

void px_dist_world_sums(const struct px_dist_world *dw, double p[3],
			double e[2])
{
	const struct px_body *b = px_world_bodies(dw->w);
	const size_t n = px_world_n_bodies(dw->w);
	unsigned char *own = malloc(n + 1);

	memset(p, 0, 3 * sizeof *p);
	for (size_t i = 0; i < n; i++) {
		const int mine = dw->reg->owner[i] == dw->rank;

		if (own)
			own[i] = (unsigned char)mine;
		for (int q = 0; mine && q < 3; q++)
			p[q] += b[i].mass * b[i].v[q];
	}
	e[0] = own ? px_world_kinetic_energy_of(dw->w, own) : NAN;
	e[1] = own ? px_world_potential_energy_of(dw->w, own) : NAN;
	free(own);
}

void px_dist_world_free(struct px_dist_world *dw)
{
	keep_reset(dw);
	free(dw->vtk);
	px_world_destroy(dw->w);
	px_dist_part_free(&dw->d);
	free(dw->res.history);
	free(dw->nbr);
	free(dw->req);
	free(dw->cnt);
	free(dw->own);
	free(dw->x0);
	free(dw->static_gid);
	free(dw->static_j);
	*dw = (struct px_dist_world){0};
}
