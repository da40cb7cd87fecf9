/* One time step of the world (world.h): collision, warm start from the
 * contact cache (003 sec. 8), the velocity problem with restitution (001
 * eq. 14, 19) and Baumgarte feedback (003 sec. 4.2) or speculative gaps,
 * px_solve, integration (semi-implicit Euler, 003 sec. 6, or Moreau's
 * midpoint scheme, 001 sec. 4.3), post-stabilization (001 sec. 4.4); the
 * solve hook (world.h) sees each velocity solve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vec.h"
#include "world_problem.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void px_world_free_step(struct px_world *w)
{
	free(w->contacts);
	free(w->lambda);
	free(w->cache);
	w->contacts = NULL;
	w->lambda = NULL;
	w->cache = NULL;
	w->n_contacts = w->cap_contacts = w->n_cache = 0;
}

/* q <- q + h/2 (0, w) q, normalized: the orientation after turning at
 * angular velocity w (world) for h seconds, to first order. */
static void turn(double q[4], const double w[3], double h)
{
	const double wq[4] = {0.0, w[0], w[1], w[2]};
	double d[4];

	quat_mul(wq, q, d);
	for (int i = 0; i < 4; i++)
		q[i] += 0.5 * h * d[i];
	quat_normalize(q);
}

static void drift(struct px_world *w, double h)
{
	for (size_t i = 0; i < w->n_bodies; i++) {
		struct px_body *b = w->bodies + i;

		if (b->is_static)
			continue;
		v3_axpy(b->x, h, b->v, b->x);
		turn(b->q, b->w, h);
	}
}

/* The velocity of contact rows (bs values) for body velocities vel (6 per
 * dynamic body: v then w). */
static void rows_velocity(const struct px_contact_rows *r, uint32_t bs,
			  const double *vel, double *out)
{
	double ua[3] = {0, 0, 0}, ub[3] = {0, 0, 0};
	const double *wa = NULL, *wb = NULL;

	if (r->pa != PX_STATIC) {
		wa = vel + 6 * (size_t)r->pa + 3;
		v3_cross(wa, r->ra, ua);
		v3_axpy(ua, 1.0, vel + 6 * (size_t)r->pa, ua);
	}
	if (r->pb != PX_STATIC) {
		wb = vel + 6 * (size_t)r->pb + 3;
		v3_cross(wb, r->rb, ub);
		v3_axpy(ub, 1.0, vel + 6 * (size_t)r->pb, ub);
	}
	for (uint32_t row = 0; row < 3; row++)
		out[row] = v3_dot(r->frame + 3 * row, ua) -
			   v3_dot(r->frame + 3 * row, ub);
	if (bs == 4)
		out[3] = (wa ? v3_dot(r->frame, wa) : 0.0) -
			 (wb ? v3_dot(r->frame, wb) : 0.0);
}

/* Body velocities (6 per dynamic body) before the (sub)step, and free
 * ones: gravity and, if asked, the gyroscopic torque -w x I w for h. */
static void velocities(const struct px_world *w, const struct px_dynamics *d,
		       double h, double *vel, double *vfree)
{
	const struct px_world_settings *s = &w->settings;

	for (size_t k = 0; k < d->n; k++) {
		const struct px_body *b = w->bodies + d->world[k];
		double *u = vel + 6 * k, *f = vfree + 6 * k;

		memcpy(u, b->v, 3 * sizeof *u);
		memcpy(u + 3, b->w, 3 * sizeof *u);
		memcpy(f, u, 6 * sizeof *f);
		v3_axpy(f, h, s->gravity, f);
		if (s->gyroscopic) {
			double r[9], wl[3], lw[3], lww[3], tq[3], dw[3];

			/* I w = R diag(I) R^T w */
			quat_to_matrix(b->q, r);
			mat_tmul(r, b->w, wl);
			for (int i = 0; i < 3; i++)
				wl[i] *= b->inertia[i];
			mat_mul(r, wl, lw);
			v3_cross(b->w, lw, lww);
			for (int i = 0; i < 3; i++)
				tq[i] = -lww[i];
			mat_mul(d->inv_inertia + 9 * k, tq, dw);
			v3_axpy(f + 3, h, dw, f + 3);
		}
	}
}

/* b of the velocity problem of a (sub)step of h seconds: b = J u_free,
 * then per normal row either a Newton bounce e v_n^- (approach faster than
 * the threshold, contact touching or closing within h), or the
 * speculative gap / h, or the Baumgarte feedback -beta/h (depth - slop). */
static void velocity_b(const struct px_world *w, const double *depths,
		       const struct px_contact_rows *rows, size_t n,
		       uint32_t bs, double h, const double *vel,
		       const double *vfree, const double *e, double *b)
{
	const struct px_world_settings *s = &w->settings;

	for (size_t k = 0; k < n; k++) {
		double pre[4], *bk = b + bs * k;
		const double depth = depths[k];
		int bounce;

		rows_velocity(rows + k, bs, vfree, bk);
		if (e[k] > 0.0)
			rows_velocity(rows + k, bs, vel, pre);
		bounce = e[k] > 0.0 && -pre[0] > s->restitution_threshold &&
			 (depth >= 0.0 || pre[0] * h - depth <= 0.0);
		if (bounce)
			bk[0] += e[k] * pre[0];
		else if (depth < 0.0)
			bk[0] += -depth / h;
		else if (s->stabilization == PX_STAB_BAUMGARTE &&
			 depth > s->slop)
			bk[0] -= s->beta / h * (depth - s->slop);
	}
}

/* 001 sec. 4.4: the frictionless problem A lambda + (slop - depth) >= 0,
 * lambda >= 0, complementary, on the bodies' positions: each body moves
 * by M^-1 J^T lambda (turning by its angular part). */
static int post_stabilize(struct px_world *w, const struct px_config *cfg,
			  struct px_error *err)
{
	const struct px_world_settings *s = &w->settings;
	struct px_dynamics d;
	struct px_contact *c = NULL;
	struct px_contact_rows *rows = NULL;
	struct px_problem *p = NULL;
	struct px_report rep = {0};
	double *lambda = NULL, *dx = NULL, *b;
	size_t n = 0, cap = 0;
	int rc = px_dynamics_build(w, &d, err), deep = 0;

	if (rc)
		return rc;
	if (px_collide_all(w->bp, w->bodies, w->n_bodies, s->margin, &c, &n,
			    &cap)) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		deep |= c[k].depth > s->slop;
	if (!deep)
		goto out;
	rows = malloc((n + 1) * sizeof *rows);
	lambda = calloc(3 * n + 1, sizeof *lambda);
	dx = calloc(6 * d.n + 1, sizeof *dx);
	if (!rows || !lambda || !dx) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	px_contact_rows_build(w, &d, c, n, rows);
	rc = px_world_problem_build(w, &d, c, rows, n, 3, 1, &p, err);
	if (rc)
		goto out;
	b = px_problem_b(p);
	for (size_t k = 0; k < n; k++)
		b[3 * k] = s->slop - c[k].depth;
	rc = px_solve(p, cfg, lambda, &rep, err);
	if (rc)
		goto out;
	px_impulses_apply(&d, rows, n, 3, lambda, dx);
	for (size_t k = 0; k < d.n; k++) {
		struct px_body *bd = w->bodies + d.world[k];

		v3_axpy(bd->x, 1.0, dx + 6 * k, bd->x);
		turn(bd->q, dx + 6 * k + 3, 1.0);
	}
out:
	px_report_free(&rep);
	px_problem_destroy(p);
	free(c);
	free(rows);
	free(lambda);
	free(dx);
	px_dynamics_free(&d);
	return rc;
}

static uint32_t block_size(const struct px_world *w,
			   const struct px_contact *c, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (w->bodies[c[k].a].mu_tau > 0.0 &&
		    w->bodies[c[k].b].mu_tau > 0.0)
			return 4;
	return 3;
}

/* The buffers of one step, allocated once for its substeps. */
struct step {
	struct px_dynamics d;
	struct px_contact_rows *rows;
	struct px_problem *p;
	double *vel, *vfree;  /* 6 per dynamic body */
	double *lsub;         /* a substep's impulses (w->lambda when N = 1) */
	double *depth;        /* per contact, at the current substep */
	double *pose0;        /* x and q of every body at the collision */
	double *pose1;        /* their motion since (motions) */
	double *warm;         /* the hook's copy of the warm start */
	unsigned char *claimed;
};

static void step_free(struct step *t, const struct px_world *w)
{
	if (t->lsub != w->lambda)
		free(t->lsub);
	px_problem_destroy(t->p);
	free(t->rows);
	free(t->vel);
	free(t->vfree);
	free(t->depth);
	free(t->pose0);
	free(t->pose1);
	free(t->warm);
	free(t->claimed);
	px_dynamics_free(&t->d);
}

/* Per body, its motion since the collision (pose0: x and q of every body
 * then): into pose1, x - x0 and the rotation R R0^T (row-major), 12 per
 * body; zero and the identity for a static body. */
static void motions(const struct px_world *w, const double *pose0,
		    double *pose1)
{
	for (size_t i = 0; i < w->n_bodies; i++) {
		const struct px_body *b = w->bodies + i;
		const double *x0 = pose0 + 7 * i, *q0 = x0 + 3;
		const double q0c[4] = {q0[0], -q0[1], -q0[2], -q0[3]};
		double dq[4] = {1, 0, 0, 0}, *m = pose1 + 12 * i;

		if (!b->is_static) {
			quat_mul(b->q, q0c, dq);
			v3_sub(b->x, x0, m);
		} else {
			m[0] = m[1] = m[2] = 0.0;
		}
		quat_to_matrix(dq, m + 3);
	}
}

/* Each contact's depth after the bodies moved since the collision, from
 * the displacement of the point of each body that was at the contact
 * point p then, x - x0 + (R R0^T - 1)(p - x0): Box2D v3 updates a
 * contact's separation so in its substeps instead of colliding again. The
 * normal n points from a to b, so b moving along n opens the contact. */
static void depths_update(const struct px_world *w, const double *pose0,
			  const double *pose1, double *depth)
{
	const struct px_contact *c = w->contacts;

	for (size_t k = 0; k < w->n_contacts; k++) {
		const uint32_t ab[2] = {c[k].a, c[k].b};
		double d[2][3];

		for (int j = 0; j < 2; j++) {
			const double *m = pose1 + 12 * (size_t)ab[j];
			double a[3], ra[3];

			v3_sub(c[k].p, pose0 + 7 * (size_t)ab[j], a);
			mat_mul(m + 3, a, ra);
			for (int i = 0; i < 3; i++)
				d[j][i] = m[i] + ra[i] - a[i];
		}
		v3_sub(d[1], d[0], d[0]);
		depth[k] = c[k].depth - v3_dot(c[k].n, d[0]);
	}
}

static int step_alloc(struct step *t, struct px_world *w, uint32_t bs,
		      struct px_error *err)
{
	const size_t n = w->n_contacts, nb = w->n_bodies;
	const uint32_t substeps = w->settings.substeps ? w->settings.substeps : 1;
	int rc = px_dynamics_build(w, &t->d, err);

	if (rc)
		return rc;
	t->rows = malloc((n + 1) * sizeof *t->rows);
	t->vel = malloc((6 * t->d.n + 1) * sizeof *t->vel);
	t->vfree = malloc((6 * t->d.n + 1) * sizeof *t->vfree);
	t->depth = malloc((n + 1) * sizeof *t->depth);
	t->claimed = malloc(w->n_cache + 1);
	free(w->lambda);
	w->lambda = calloc(n * bs + 1, sizeof *w->lambda);
	w->bs = bs;
	t->lsub = substeps > 1 ? malloc((n * bs + 1) * sizeof *t->lsub)
			       : w->lambda;
	if (substeps > 1) {
		t->pose0 = malloc((7 * nb + 1) * sizeof *t->pose0);
		t->pose1 = malloc((12 * nb + 1) * sizeof *t->pose1);
	}
	if (w->hook)
		t->warm = malloc((n * bs + 1) * sizeof *t->warm);
	if (!t->rows || !t->vel || !t->vfree || !t->depth || !t->claimed ||
	    !w->lambda || !t->lsub || (substeps > 1 && (!t->pose0 || !t->pose1)) ||
	    (w->hook && !t->warm))
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; substeps > 1 && i < nb; i++) {
		memcpy(t->pose0 + 7 * i, w->bodies[i].x, 3 * sizeof *t->pose0);
		memcpy(t->pose0 + 7 * i + 3, w->bodies[i].q,
		       4 * sizeof *t->pose0);
	}
	for (size_t k = 0; k < n; k++)
		t->depth[k] = w->contacts[k].depth;
	return PX_OK;
}

/* The velocity solve of one substep: px_solve from t->lsub (the cache, or
 * the last substep's impulses), then the hook. */
static int substep_solve(struct px_world *w, struct step *t,
			 const struct px_config *cfg, struct px_report *rep,
			 double *hook_seconds, struct px_error *err)
{
	const size_t m = w->n_contacts * w->bs;
	double t0;
	int rc;

	if (w->hook)
		memcpy(t->warm, t->lsub, m * sizeof *t->warm);
	px_report_free(rep);
	rc = px_solve(t->p, cfg, t->lsub, rep, err);
	if (rc || !w->hook)
		return rc;
	t0 = now();
	{
		const struct px_step_solve view = {
			.step = w->step + 1,
			.problem = t->p,
			.warm_start = t->warm,
			.lambda = t->lsub,
			.report = rep,
		};

		rc = w->hook(w->hook_ctx, &view, err);
	}
	/* the hook's own work is not the step's */
	*hook_seconds += now() - t0;
	return rc;
}

int px_world_step(struct px_world *w, const struct px_config *cfg,
		   struct px_step_stats *st, struct px_error *err)
{
	const struct px_world_settings *s = &w->settings;
	const int moreau = s->stepping == PX_MOREAU;
	const uint32_t substeps = s->substeps ? s->substeps : 1;
	const double h = s->dt / substeps;
	const double t0 = now();
	struct step t = {0};
	struct px_report rep = {0};
	double t1, t2, ta, tb, t4, solve_s = 0.0, hook_s = 0.0;
	uint32_t bs;
	size_t n;
	int rc, converged = 1;

	memset(st, 0, sizeof *st);
	if (moreau)
		drift(w, 0.5 * h);
	if (px_collide_all(w->bp, w->bodies, w->n_bodies, s->margin,
			    &w->contacts, &w->n_contacts, &w->cap_contacts))
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	n = w->n_contacts;
	t1 = now();

	bs = block_size(w, w->contacts, n);
	rc = step_alloc(&t, w, bs, err);
	if (rc)
		goto out;
	px_contact_rows_build(w, &t.d, w->contacts, n, t.rows);
	if (n) {
		rc = px_world_problem_build(w, &t.d, w->contacts, t.rows, n, bs,
					    0, &t.p, err);
		if (rc)
			goto out;
		st->cache_hits = px_world_warm_start(
		    w, w->contacts, t.rows, n, bs, t.lsub, t.claimed);
	}
	t2 = now();
	for (uint32_t i = 0; i < substeps; i++) {
		if (i && moreau)
			drift(w, 0.5 * h);
		if (i && n) {
			motions(w, t.pose0, t.pose1);
			depths_update(w, t.pose0, t.pose1, t.depth);
		}
		velocities(w, &t.d, h, t.vel, t.vfree);
		if (n) {
			velocity_b(w, t.depth, t.rows, n, bs, h, t.vel, t.vfree,
				   px_problem_restitution(t.p),
				   px_problem_b(t.p));
			ta = now();
			rc = substep_solve(w, &t, cfg, &rep, &hook_s, err);
			if (rc)
				goto out;
			tb = now();
			solve_s += tb - ta;
			st->sweeps += rep.sweeps;
			converged &= rep.converged;
		}
		px_impulses_apply(&t.d, t.rows, n, bs, t.lsub, t.vfree);
		for (size_t k = 0; k < t.d.n; k++) {
			struct px_body *b = w->bodies + t.d.world[k];

			memcpy(b->v, t.vfree + 6 * k, 3 * sizeof *b->v);
			memcpy(b->w, t.vfree + 6 * k + 3, 3 * sizeof *b->w);
		}
		drift(w, moreau ? 0.5 * h : h);
		for (size_t k = 0; substeps > 1 && k < n * bs; k++)
			w->lambda[k] += t.lsub[k];
	}
	rc = px_world_cache_store(w, w->contacts, t.rows, n, bs, t.lsub, err);
	if (rc)
		goto out;
	if (s->stabilization == PX_STAB_POST) {
		rc = post_stabilize(w, cfg, err);
		if (rc)
			goto out;
	}
	t4 = now();

	w->step++;
	w->time = (double)w->step * s->dt;
	st->step = w->step;
	st->time = w->time;
	st->contacts = n;
	st->merit = n ? rep.merit : 0.0;
	st->converged = converged;
	st->seconds_collide = t1 - t0;
	st->seconds_solve = solve_s - hook_s;
	st->seconds_build = t2 - t1;
	st->seconds_stab = t4 - t2 - solve_s;
	st->seconds_total = t4 - t0 - hook_s;
	st->kinetic = px_world_kinetic_energy(w);
	st->potential = px_world_potential_energy(w);
	for (size_t k = 0; k < n; k++)
		st->max_depth = fmax(st->max_depth, w->contacts[k].depth);
out:
	px_report_free(&rep);
	step_free(&t, w);
	return rc;
}

void px_world_set_solve_hook(struct px_world *w, px_world_solve_hook fn,
			     void *ctx)
{
	w->hook = fn;
	w->hook_ctx = fn ? ctx : NULL;
}

size_t px_world_contacts(const struct px_world *w,
			  const struct px_contact **c, const double **lambda,
			  uint32_t *block_size_out)
{
	*c = w->contacts;
	*lambda = w->lambda;
	*block_size_out = w->bs;
	return w->n_contacts;
}
