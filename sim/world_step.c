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

/* Body velocities (6 per dynamic body) before the step, and free ones:
 * gravity and, if asked, the gyroscopic torque -w x I w for dt. */
static void velocities(const struct px_world *w, const struct px_dynamics *d,
		       double *vel, double *vfree)
{
	const struct px_world_settings *s = &w->settings;

	for (size_t k = 0; k < d->n; k++) {
		const struct px_body *b = w->bodies + d->world[k];
		double *u = vel + 6 * k, *f = vfree + 6 * k;

		memcpy(u, b->v, 3 * sizeof *u);
		memcpy(u + 3, b->w, 3 * sizeof *u);
		memcpy(f, u, 6 * sizeof *f);
		v3_axpy(f, s->dt, s->gravity, f);
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
			v3_axpy(f + 3, s->dt, dw, f + 3);
		}
	}
}

/* b of the velocity problem: b = J u_free, then per normal row either a
 * Newton bounce e v_n^- (approach faster than the threshold, contact
 * touching or closing within the step), or the speculative gap / dt, or
 * the Baumgarte feedback -beta/dt (depth - slop). */
static void velocity_b(const struct px_world *w, const struct px_contact *c,
		       const struct px_contact_rows *rows, size_t n,
		       uint32_t bs, const double *vel, const double *vfree,
		       const double *e, double *b)
{
	const struct px_world_settings *s = &w->settings;

	for (size_t k = 0; k < n; k++) {
		double pre[4], *bk = b + bs * k;
		const double depth = c[k].depth;
		int bounce;

		rows_velocity(rows + k, bs, vfree, bk);
		rows_velocity(rows + k, bs, vel, pre);
		bounce = e[k] > 0.0 && -pre[0] > s->restitution_threshold &&
			 (depth >= 0.0 || pre[0] * s->dt - depth <= 0.0);
		if (bounce)
			bk[0] += e[k] * pre[0];
		else if (depth < 0.0)
			bk[0] += -depth / s->dt;
		else if (s->stabilization == PX_STAB_BAUMGARTE &&
			 depth > s->slop)
			bk[0] -= s->beta / s->dt * (depth - s->slop);
	}
}

static int pair_cmp(uint32_t a1, uint32_t b1, uint32_t a2, uint32_t b2)
{
	if (b1 != b2)
		return b1 < b2 ? -1 : 1;
	if (a1 != a2)
		return a1 < a2 ? -1 : 1;
	return 0;
}

/* The first cache entry of pair (a, b), or n_cache. */
static size_t cache_find(const struct px_world *w, uint32_t a, uint32_t b)
{
	size_t lo = 0, hi = w->n_cache;

	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		const struct px_cached *e = w->cache + mid;

		if (pair_cmp(e->a, e->b, a, b) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->n_cache && !pair_cmp(w->cache[lo].a, w->cache[lo].b, a, b))
		return lo;
	return w->n_cache;
}

/* Cached entry i's impulse in contact k's frame into l (normal clamped). */
static void take(const struct px_cached *e, const struct px_contact_rows *r,
		 uint32_t bs, double *l)
{
	const double sgn = r->flipped ? -1.0 : 1.0;

	for (int row = 0; row < 3; row++)
		l[row] = sgn * v3_dot(r->frame + 3 * row, e->impulse);
	l[0] = fmax(l[0], 0.0);
	if (bs == 4)
		l[3] = sgn * e->tau;
}

static double dist2(const double a[3], const double b[3])
{
	double d[3];

	v3_sub(a, b, d);
	return v3_dot(d, d);
}

/* lambda of the matched contacts from the cache (zero elsewhere): the
 * cached world impulse in the new frame, the normal part clamped at 0.
 * Within a pair, a contact takes the entry of its feature id (003 sec.
 * 8.2); one left without takes the nearest unclaimed entry closer than a
 * quarter of the spacing of the pair's cached points (0.05 m for a single
 * point): a corner of two equal faces is a box corner in one step and a
 * clipped edge in the next, under another id. */
static size_t warm_start(const struct px_world *w, const struct px_contact *c,
			 const struct px_contact_rows *rows, size_t n,
			 uint32_t bs, double *lambda, unsigned char *claimed)
{
	size_t hits = 0;

	memset(lambda, 0, n * bs * sizeof *lambda);
	if (!w->settings.warm_start || !w->cache)
		return 0;
	memset(claimed, 0, w->n_cache);
	for (size_t k0 = 0, k1; k0 < n; k0 = k1) {
		const size_t i0 = cache_find(w, c[k0].a, c[k0].b);
		unsigned char got[PX_MAX_POINTS] = {0};
		double tol = 0.05 * 0.05;
		size_t i1 = i0;

		for (k1 = k0; k1 < n && k1 - k0 < PX_MAX_POINTS &&
			      c[k1].a == c[k0].a && c[k1].b == c[k0].b;)
			k1++;
		while (i1 < w->n_cache && w->cache[i1].a == c[k0].a &&
		       w->cache[i1].b == c[k0].b)
			i1++;
		for (size_t k = k0; k < k1; k++)
			for (size_t i = i0; i < i1 && !got[k - k0]; i++)
				if (!claimed[i] &&
				    w->cache[i].feature == c[k].feature) {
					claimed[i] = got[k - k0] = 1;
					take(w->cache + i, rows + k, bs,
					     lambda + bs * k);
					hits++;
				}
		for (size_t i = i0; i < i1; i++)
			for (size_t j = i + 1; j < i1; j++)
				tol = fmin(tol, 0.0625 * dist2(w->cache[i].p,
							       w->cache[j].p));
		for (size_t k = k0; k < k1; k++) {
			size_t best = i1;
			double bd = tol;

			if (got[k - k0])
				continue;
			for (size_t i = i0; i < i1; i++)
				if (!claimed[i] &&
				    dist2(w->cache[i].p, c[k].p) < bd) {
					bd = dist2(w->cache[i].p, c[k].p);
					best = i;
				}
			if (best < i1) {
				claimed[best] = 1;
				take(w->cache + best, rows + k, bs,
				     lambda + bs * k);
				hits++;
			}
		}
	}
	return hits;
}

static int cache_store(struct px_world *w, const struct px_contact *c,
		       const struct px_contact_rows *rows, size_t n,
		       uint32_t bs, const double *lambda, struct px_error *err)
{
	struct px_cached *cache = malloc((n + 1) * sizeof *cache);

	if (!cache)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	for (size_t k = 0; k < n; k++) {
		const double *l = lambda + bs * k;
		const double sgn = rows[k].flipped ? -1.0 : 1.0;
		struct px_cached *e = cache + k;

		e->a = c[k].a;
		e->b = c[k].b;
		e->feature = c[k].feature;
		memcpy(e->p, c[k].p, sizeof e->p);
		px_contact_rows_impulse(rows + k, l, e->impulse);
		for (int i = 0; i < 3; i++)
			e->impulse[i] *= sgn;
		e->tau = bs == 4 ? sgn * l[3] : 0.0;
	}
	/* the collision's order is by pair; keep the cache sorted */
	for (size_t k = 1; k < n; k++)
		if (pair_cmp(cache[k - 1].a, cache[k - 1].b, cache[k].a,
			     cache[k].b) > 0) {
			free(cache);
			return px_error_set(err, PX_ERR_INVALID,
					    "contacts are not sorted by body pair");
		}
	free(w->cache);
	w->cache = cache;
	w->n_cache = n;
	return PX_OK;
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

static int finite_n(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

/* Every body's state finite after the step, or PX_ERR_DIVERGED naming the
 * first body that is not (the run must stop: the next collision and solve
 * would only spread it). */
static int check_finite(const struct px_world *w, struct px_error *err)
{
	for (size_t i = 0; i < w->n_bodies; i++) {
		const struct px_body *b = w->bodies + i;
		const char *what = !finite_n(b->v, 3)	? "velocity"
				   : !finite_n(b->w, 3) ? "angular velocity"
				   : !finite_n(b->x, 3) ? "position"
				   : !finite_n(b->q, 4) ? "orientation"
							: NULL;

		if (what)
			return px_error_set(err, PX_ERR_DIVERGED,
					    "body %zu: its %s is not finite (diverged)", i,
					    what);
	}
	return PX_OK;
}

int px_world_step(struct px_world *w, const struct px_config *cfg,
		   struct px_step_stats *st, struct px_error *err)
{
	const struct px_world_settings *s = &w->settings;
	const int moreau = s->stepping == PX_MOREAU;
	const double t0 = now();
	struct px_dynamics d = {0};
	struct px_contact_rows *rows = NULL;
	struct px_problem *p = NULL;
	struct px_report rep = {0};
	double *vel = NULL, *vfree = NULL, *warm = NULL, t1, t2, t3, t4;
	double hook_seconds = 0.0;
	unsigned char *claimed = NULL;
	uint32_t bs;
	size_t n;
	int rc;

	memset(st, 0, sizeof *st);
	if (moreau)
		drift(w, 0.5 * s->dt);
	if (px_collide_all(w->bp, w->bodies, w->n_bodies, s->margin,
			    &w->contacts, &w->n_contacts, &w->cap_contacts))
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	n = w->n_contacts;
	t1 = now();

	rc = px_dynamics_build(w, &d, err);
	if (rc)
		return rc;
	bs = block_size(w, w->contacts, n);
	rows = malloc((n + 1) * sizeof *rows);
	vel = malloc((6 * d.n + 1) * sizeof *vel);
	vfree = malloc((6 * d.n + 1) * sizeof *vfree);
	free(w->lambda);
	w->lambda = malloc((n * bs + 1) * sizeof *w->lambda);
	w->bs = bs;
	if (!rows || !vel || !vfree || !w->lambda) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	px_contact_rows_build(w, &d, w->contacts, n, rows);
	velocities(w, &d, vel, vfree);
	if (n) {
		rc = px_world_problem_build(w, &d, w->contacts, rows, n, bs, 0, &p,
				       err);
		if (rc)
			goto out;
		velocity_b(w, w->contacts, rows, n, bs, vel, vfree,
			   px_problem_restitution(p), px_problem_b(p));
		claimed = malloc(w->n_cache + 1);
		if (!claimed) {
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
			goto out;
		}
		st->cache_hits = warm_start(w, w->contacts, rows, n, bs,
					    w->lambda, claimed);
	}
	if (n && w->hook) {
		warm = malloc(n * bs * sizeof *warm);
		if (!warm) {
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
			goto out;
		}
		memcpy(warm, w->lambda, n * bs * sizeof *warm);
	}
	t2 = now();
	if (n) {
		rc = px_solve(p, cfg, w->lambda, &rep, err);
		if (rc)
			goto out;
	}
	t3 = now();
	if (n && w->hook) {
		const struct px_step_solve view = {
			.step = w->step + 1,
			.problem = p,
			.warm_start = warm,
			.lambda = w->lambda,
			.report = &rep,
		};

		rc = w->hook(w->hook_ctx, &view, err);
		if (rc)
			goto out;
		/* the hook's own work is not the step's */
		hook_seconds = now() - t3;
	}
	px_impulses_apply(&d, rows, n, bs, w->lambda, vfree);
	for (size_t k = 0; k < d.n; k++) {
		struct px_body *b = w->bodies + d.world[k];

		memcpy(b->v, vfree + 6 * k, 3 * sizeof *b->v);
		memcpy(b->w, vfree + 6 * k + 3, 3 * sizeof *b->w);
	}
	drift(w, moreau ? 0.5 * s->dt : s->dt);
	rc = cache_store(w, w->contacts, rows, n, bs, w->lambda, err);
	if (rc)
		goto out;
	if (s->stabilization == PX_STAB_POST) {
		rc = post_stabilize(w, cfg, err);
		if (rc)
			goto out;
	}
	rc = check_finite(w, err);
	if (rc)
		goto out;
	t4 = now();

	w->step++;
	w->time = (double)w->step * s->dt;
	st->step = w->step;
	st->time = w->time;
	st->contacts = n;
	st->sweeps = rep.sweeps;
	st->merit = n ? rep.merit : 0.0;
	st->converged = n ? rep.converged : 1;
	st->seconds_collide = t1 - t0;
	st->seconds_build = t2 - t1;
	st->seconds_solve = t3 - t2;
	st->seconds_stab = t4 - t3 - hook_seconds;
	st->seconds_total = t4 - t0 - hook_seconds;
	st->kinetic = px_world_kinetic_energy(w);
	st->potential = px_world_potential_energy(w);
	for (size_t k = 0; k < n; k++)
		st->max_depth = fmax(st->max_depth, w->contacts[k].depth);
out:
	px_report_free(&rep);
	px_problem_destroy(p);
	free(rows);
	free(vel);
	free(vfree);
	free(claimed);
	free(warm);
	px_dynamics_free(&d);
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
