/* One time step of the world (world.h): collision, warm start from the
 * contact cache (Catto 2005, sec. 8), the velocity problem with restitution
 * (Erleben 2017 eq. 14, 19) and Baumgarte feedback (Catto 2005, sec. 4.2) or
 * speculative gaps, px_solve, integration (semi-implicit Euler, Catto 2005,
 * sec. 6, or Moreau's midpoint scheme, Erleben 2017, sec. 4.3),
 * post-stabilization (Erleben 2017, sec. 4.4); the solve hook (world.h) sees
 * each velocity solve. Substeps (issue 23, world.h): the solve and the
 * integration N times per collision, each contact's depth following the bodies'
 * motion (Box2D v3); soft contact's soft solve and relaxation per substep
 * (world_soft.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vec.h"
#include "world_problem.h"
#include "world_soft.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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

/* The velocity of a body's point at r (world offset from its centre) for
 * body velocities u (v then w): v + w x r, in that order of rounding. */
static inline void point_velocity(const double *u, const double r[3],
				  double o[3])
{
	const double *w = u + 3;

	o[0] = (w[1] * r[2] - w[2] * r[1]) + u[0];
	o[1] = (w[2] * r[0] - w[0] * r[2]) + u[1];
	o[2] = (w[0] * r[1] - w[1] * r[0]) + u[2];
}

/* The velocity of contact rows (bs values) for body velocities vel (6 per
 * dynamic body: v then w): each frame row times a's contact point
 * velocity, minus the same for b. */
static void rows_velocity(const struct px_contact_rows *r, uint32_t bs,
			  const double *vel, double *out)
{
	const double *f = r->frame;
	const double *ua = r->pa != PX_STATIC ? vel + 6 * (size_t)r->pa : NULL;
	const double *ub = r->pb != PX_STATIC ? vel + 6 * (size_t)r->pb : NULL;
	double pa[3] = {0, 0, 0}, pb[3] = {0, 0, 0};

	if (ua)
		point_velocity(ua, r->ra, pa);
	if (ub)
		point_velocity(ub, r->rb, pb);
	out[0] = v3_dot(f, pa) - v3_dot(f, pb);
	out[1] = v3_dot(f + 3, pa) - v3_dot(f + 3, pb);
	out[2] = v3_dot(f + 6, pa) - v3_dot(f + 6, pb);
	if (bs == 4)
		out[3] = (ua ? v3_dot(f, ua + 3) : 0.0) -
			 (ub ? v3_dot(f, ub + 3) : 0.0);
}

/* rows_velocity's value rounded otherwise: each frame row times the
 * contact point's relative velocity (three products where it takes six),
 * for substeps, whose trajectories no hash pins. a is dynamic. */
static inline void rows_velocity_relative(const struct px_contact_rows *r,
					  uint32_t bs, const double *vel,
					  double *out)
{
	const double *f = r->frame, *ua = vel + 6 * (size_t)r->pa;
	double u[3];

	point_velocity(ua, r->ra, u);
	if (r->pb != PX_STATIC) {
		const double *ub = vel + 6 * (size_t)r->pb;
		double pb[3];

		point_velocity(ub, r->rb, pb);
		u[0] -= pb[0];
		u[1] -= pb[1];
		u[2] -= pb[2];
	}
	out[0] = v3_dot(f, u);
	out[1] = v3_dot(f + 3, u);
	out[2] = v3_dot(f + 6, u);
	if (bs == 4)
		out[3] = v3_dot(f, ua + 3) -
			 (r->pb != PX_STATIC
				  ? v3_dot(f, vel + 6 * (size_t)r->pb + 3)
				  : 0.0);
}

/* Free body velocities (6 per dynamic body) for h: gravity and, if
 * asked, the gyroscopic torque -w x I w; and, if vel is not NULL (a
 * bounce needs them), the velocities before the (sub)step. */
static void velocities(const struct px_world *w, const struct px_dynamics *d,
		       double h, double *vel, double *vfree)
{
	const struct px_world_settings *s = &w->settings;

	for (size_t k = 0; k < d->n; k++) {
		const struct px_body *b = w->bodies + d->world[k];
		double *f = vfree + 6 * k;

		if (vel) {
			memcpy(vel + 6 * k, b->v, 3 * sizeof *vel);
			memcpy(vel + 6 * k + 3, b->w, 3 * sizeof *vel);
		}
		v3_axpy(b->v, h, s->gravity, f);
		memcpy(f + 3, b->w, 3 * sizeof *f);
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

/* Erleben 2017, sec. 4.4: the frictionless problem A lambda + (slop - depth) >=
 * 0, lambda >= 0, complementary, on the bodies' positions: each body moves
 * by M^-1 J^T lambda (turning by its angular part). With a solving hook
 * (px_world_hook_solves) the substep hook first brings other worlds'
 * bodies up to date, and the hook solves, called whatever this world's
 * contacts (s->deep: whether some contact here is deeper than the slop,
 * and back whether one is in any world: none, nothing moves). */
static int post_stabilize(struct px_world *w, const struct px_config *cfg,
			  struct px_error *err)
{
	const struct px_world_settings *s = &w->settings;
	const int hooked = w->hook_solves;
	struct px_dynamics d = {0};
	struct px_contact *c = NULL;
	struct px_contact_rows *rows = NULL;
	struct px_problem *p = NULL;
	struct px_report rep = {0};
	double *lambda = NULL, *dx = NULL, *b;
	size_t n = 0, cap = 0;
	int rc = PX_OK, deep = 0;

	if (hooked && w->substep_hook &&
	    (rc = w->substep_hook(w->hook_ctx,
				  s->substeps ? s->substeps : 1, err)))
		return rc;
	if ((rc = px_dynamics_build(w, &d, err)))
		return rc;
	if (px_collide_all(w->bp, w->bodies, w->n_bodies, s->margin, &c, &n,
			    &cap)) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		deep |= c[k].depth > s->slop;
	if (!deep && !hooked)
		goto out;
	rows = malloc((n + 1) * sizeof *rows);
	lambda = calloc(3 * n + 1, sizeof *lambda);
	dx = calloc(6 * d.n + 1, sizeof *dx);
	if (!rows || !lambda || !dx) {
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	px_contact_rows_build(w, &d, c, n, rows);
	if (n) {
		rc = px_world_problem_build(w, &d, c, rows, n, 3, 1, &p, err);
		if (rc)
			goto out;
		b = px_problem_b(p);
		for (size_t k = 0; k < n; k++)
			b[3 * k] = s->slop - c[k].depth;
	}
	if (hooked) {
		const struct px_step_solve view = {
			.step = w->step + 1,
			.problem = p,
			.warm_start = lambda, /* zero */
			.lambda = lambda,
			.report = &rep,
			.dynamics = &d,
			.rows = rows,
			.contacts = c,
			.n_contacts = n,
			.deep = &deep,
		};

		rc = w->hook(w->hook_ctx, &view, err);
	} else {
		rc = px_solve(p, cfg, lambda, &rep, err);
	}
	if (rc || !deep)
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
	size_t i = 0;

	/* no body with torsional friction (the usual world): no contact
	 * has it, and the bodies' sequential scan is cheaper than the
	 * contacts' two indirect loads each */
	while (i < w->n_bodies && !(w->bodies[i].mu_tau > 0.0))
		i++;
	if (i == w->n_bodies)
		return 3;
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
	struct px_problem *ps; /* soft: A + Gamma (world_soft.c) */
	/* their solvers, kept across the substeps: A does not change within
	 * a step, only b */
	struct px_solver *sv, *svs;
	struct px_softness soft[2];
	double *vel, *vfree;  /* 6 per dynamic body; vel only if bounce */
	int bounce;           /* some contact has restitution */
	double *vsoft;        /* soft: the free velocities, for the relaxation */
	double *lsub;         /* a substep's impulses (w->lambda when N = 1) */
	double *depth;        /* per contact, at the current substep */
	double *anchor;       /* 7 per contact (anchors_set) */
	double *rot;          /* 9 per dynamic body: its rotation now */
	double *warm;         /* the hook's copy of the warm start */
	const double *hook_dv; /* a solving hook's M^-1 J^T lambda, or NULL */
	unsigned char *claimed;
};

static void step_free(struct step *t, const struct px_world *w)
{
	if (t->lsub != w->lambda)
		free(t->lsub);
	px_solver_destroy(t->sv);
	px_solver_destroy(t->svs);
	px_problem_destroy(t->p);
	px_problem_destroy(t->ps);
	/* rows, vel, vfree, depth and claimed are the world's (w->keep) */
	free(t->vsoft);
	free(t->anchor);
	free(t->rot);
	free(t->warm);
	px_dynamics_free(&t->d);
}

/* Into t->anchor, per contact, the points of its bodies that were at the
 * contact point at the collision, in body coordinates (anchor[7k..]: a's,
 * b's, unused for a static b) and, in anchor[7k + 6], the depth then plus,
 * for a static b, n . p, which the current depth subtracts the points'
 * separation along n from. The frame's n points from b to a, so a moving
 * along n opens it. */
static void anchors_set(const struct px_world *w, struct step *t)
{
	for (size_t k = 0; k < w->n_contacts; k++) {
		const struct px_contact_rows *r = t->rows + k;
		double *l = t->anchor + 7 * k, rot[9];

		quat_to_matrix(w->bodies[r->world_a].q, rot);
		mat_tmul(rot, r->ra, l);
		l[6] = w->contacts[k].depth;
		if (r->pb != PX_STATIC) {
			quat_to_matrix(w->bodies[r->world_b].q, rot);
			mat_tmul(rot, r->rb, l + 3);
		} else {
			l[6] += v3_dot(r->frame, w->contacts[k].p);
		}
	}
}

/* Each dynamic body's rotation matrix now, for depth_now. */
static void rotations_now(const struct px_world *w, struct step *t)
{
	for (size_t i = 0; i < t->d.n; i++)
		quat_to_matrix(w->bodies[t->d.world[i]].q, t->rot + 9 * i);
}

/* What the contacts of one manifold (the same two bodies, the same
 * normal n; the collision gives them in a row) share in depth_now: each
 * body's R^T n, and n . (x_a - x_b). */
struct manifold {
	uint32_t pa, pb;
	double n[3], ga[3], gb[3], c;
};

/* o = R^T n, R row-major */
static inline void turned_normal(const double *rot, const double *n,
				 double *o)
{
	o[0] = rot[0] * n[0] + rot[3] * n[1] + rot[6] * n[2];
	o[1] = rot[1] * n[0] + rot[4] * n[1] + rot[7] * n[2];
	o[2] = rot[2] * n[0] + rot[5] * n[1] + rot[8] * n[2];
}

/* Contact k's depth after the bodies moved since the collision: the depth
 * then less the separation along n that its bodies' anchor points
 * (anchors_set) have now, at x + R l (R from rotations_now), as n . x +
 * (R^T n) . l, the manifold's m shared by the contacts that follow while
 * their bodies and normal are the same. Box2D v3 updates a contact's
 * separation so in its substeps instead of colliding again. */
static double depth_now(const struct px_world *w, const struct step *t,
			size_t k, struct manifold *m)
{
	const struct px_contact_rows *r = t->rows + k;
	const double *f = r->frame, *l = t->anchor + 7 * k;
	const int dyn_b = r->pb != PX_STATIC;

	if (r->pa != m->pa || r->pb != m->pb || f[0] != m->n[0] ||
	    f[1] != m->n[1] || f[2] != m->n[2]) {
		m->pa = r->pa;
		m->pb = r->pb;
		memcpy(m->n, f, sizeof m->n);
		turned_normal(t->rot + 9 * (size_t)r->pa, f, m->ga);
		m->c = v3_dot(f, w->bodies[r->world_a].x);
		if (dyn_b) {
			turned_normal(t->rot + 9 * (size_t)r->pb, f, m->gb);
			m->c -= v3_dot(f, w->bodies[r->world_b].x);
		}
	}
	return l[6] - (m->c + v3_dot(m->ga, l) - (dyn_b ? v3_dot(m->gb, l + 3)
							  : 0.0));
}

static int step_alloc(struct step *t, struct px_world *w, uint32_t bs,
		      struct px_error *err)
{
	struct px_step_buffers *kb = &w->keep;
	const size_t n = w->n_contacts;
	const uint32_t substeps = w->settings.substeps ? w->settings.substeps : 1;
	const int soft = w->settings.stabilization == PX_STAB_SOFT;
	const int moves = substeps > 1 || soft; /* depths updated */
	int rc = px_dynamics_build(w, &t->d, err);

	if (rc)
		return rc;
	t->rows = px_world_kept(&kb->rows, &kb->rows_cap, n + 1, sizeof *t->rows);
	t->vel = px_world_kept(&kb->vel, &kb->vel_cap, 6 * t->d.n + 1, sizeof *t->vel);
	t->vfree =
	    px_world_kept(&kb->vfree, &kb->vfree_cap, 6 * t->d.n + 1, sizeof *t->vfree);
	t->depth = px_world_kept(&kb->depth, &kb->depth_cap, n + 1, sizeof *t->depth);
	t->claimed = px_world_kept(&kb->claimed, &kb->claimed_cap, w->n_cache + 1, 1);
	free(w->lambda);
	w->lambda = calloc(n * bs + 1, sizeof *w->lambda);
	w->bs = bs;
	t->lsub = substeps > 1 ? malloc((n * bs + 1) * sizeof *t->lsub)
			       : w->lambda;
	if (moves) {
		t->anchor = malloc((7 * n + 1) * sizeof *t->anchor);
		t->rot = malloc((9 * t->d.n + 1) * sizeof *t->rot);
	}
	if (soft)
		t->vsoft = malloc((6 * t->d.n + 1) * sizeof *t->vsoft);
	if (w->hook)
		t->warm = malloc((n * bs + 1) * sizeof *t->warm);
	if (!t->rows || !t->vel || !t->vfree || !t->depth || !t->claimed ||
	    !w->lambda || !t->lsub || (moves && (!t->anchor || !t->rot)) ||
	    (soft && !t->vsoft) || (w->hook && !t->warm))
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	for (size_t k = 0; k < n; k++)
		t->depth[k] = w->contacts[k].depth;
	return PX_OK;
}

/* The velocity solve of one substep: with substeps, p's solver (made at
 * its first solve in the step), else px_solve, whose memory is freed
 * before the hook runs; from t->lsub (the cache, or the last substep's
 * impulses), then the hook. */
static int substep_solve(struct px_world *w, struct step *t,
			 struct px_problem *p, const struct px_config *cfg,
			 struct px_report *rep, double *hook_seconds,
			 struct px_error *err)
{
	const size_t m = w->n_contacts * w->bs;
	struct px_solver **sv = p == t->p ? &t->sv : &t->svs;
	double t0;
	int rc;

	if (w->hook)
		memcpy(t->warm, t->lsub, m * sizeof *t->warm);
	t->hook_dv = NULL;
	px_report_free(rep);
	if (w->hook_solves) { /* the hook solves */
		*rep = (struct px_report){.merit = NAN, .check = NAN};
		rc = PX_OK;
	} else if (w->settings.substeps <= 1) /* one solve: nothing to keep */
		rc = px_solve(p, cfg, t->lsub, rep, err);
	else if (!*sv && (rc = px_solver_create(p, cfg, sv, err)))
		return rc;
	else if (w->settings.stabilization != PX_STAB_SOFT)
		/* t->lsub is where the last substep's solve left it */
		rc = px_solver_resume(*sv, t->lsub, rep, err);
	else /* the other solver of the step moved t->lsub since */
		rc = px_solver_solve(*sv, t->lsub, rep, err);
	if (rc || !w->hook)
		return rc;
	t0 = now();
	{
		const struct px_step_solve view = {
			.step = w->step + 1,
			.problem = p,
			.warm_start = t->warm,
			.lambda = t->lsub,
			.report = rep,
			.body_velocities = w->hook_solves ? &t->hook_dv : NULL,
			.dynamics = &t->d,
			.rows = t->rows,
		};

		rc = w->hook(w->hook_ctx, &view, err);
	}
	/* the hook's own work is not the step's */
	*hook_seconds += now() - t0;
	return rc;
}

/* What the substeps of a step add up to. */
struct tally {
	struct px_report rep; /* the last solve's */
	double solve_s, hook_s;
	double b_s, solve_wall; /* velocity_b's, tally_solve's wall time */
	uint64_t sweeps;
	int converged;
};

/* One velocity solve of a substep, counted; its time is the report's. */
static int tally_solve(struct px_world *w, struct step *t,
		       struct px_problem *p, const struct px_config *cfg,
		       struct tally *y, struct px_error *err)
{
	const double t0 = now();
	const int rc = substep_solve(w, t, p, cfg, &y->rep, &y->hook_s, err);

	y->solve_wall += now() - t0;
	if (rc)
		return rc;
	y->solve_s += y->rep.seconds;
	y->sweeps += y->rep.sweeps;
	y->converged &= y->rep.converged;
	return PX_OK;
}

/* The bodies' velocities: free ones (6 per dynamic body) plus the
 * impulses t->lsub. With substeps, sv solved them (substep_solve) and the
 * velocity change is the one it ended with (it keeps M^-1 J^T lambda for
 * its sweeps); without (sv NULL: one step, or no contacts) the impulses
 * are applied anew, the arithmetic of before substeps existed, bit for
 * bit. */
static void set_velocities(struct px_world *w, struct step *t, double *v,
			   const struct px_solver *sv)
{
	const double *dv = sv ? px_solver_body_velocities(sv) : t->hook_dv;

	if (dv)
		for (size_t i = 0; i < 6 * t->d.n; i++)
			v[i] += dv[i];
	else
		px_impulses_apply(&t->d, t->rows, w->n_contacts, w->bs,
				  t->lsub, v);
	for (size_t k = 0; k < t->d.n; k++) {
		struct px_body *b = w->bodies + t->d.world[k];

		memcpy(b->v, v + 6 * k, 3 * sizeof *b->v);
		memcpy(b->w, v + 6 * k + 3, 3 * sizeof *b->w);
	}
}

/* What b does about a penetration deeper than the slop: the settings'
 * (Baumgarte's feedback, or nothing), soft contact's bias, or nothing (the
 * soft step's relaxation). */
enum feedback { FEED_SETTINGS, FEED_SOFT, FEED_NONE };

/* b of p, the velocity problem of a (sub)step of h seconds, for free
 * velocities vfree, with each contact's depth updated first if the bodies
 * moved since the collision (depth_now): b = J u_free, then per normal row either a Newton bounce e v_n^- (approach faster than
 * the threshold, contact touching or closing within h), or the
 * speculative gap / h, or the feedback f: Baumgarte's -beta/dt (depth -
 * slop), at the step's rate whatever the substeps (beta/h would remove the
 * fraction beta per substep: N times as stiff, and 100 substeps blow the
 * card house up), or the soft bias -bias_rate (depth - slop) capped at
 * the push velocity (t->soft[1] for a contact with a static body). */
static void velocity_b(const struct px_world *w, struct step *t,
		       struct px_problem *p, double h, enum feedback f,
		       const double *vfree, int moved)
{
	const struct px_world_settings *s = &w->settings;
	const struct px_contact_rows *rows = t->rows;
	const double *e = px_problem_restitution(p), *vel = t->vel;
	const uint32_t bs = w->bs;
	double *b = px_problem_b(p);
	const int relative = s->substeps > 1;
	struct manifold m = {.pa = PX_STATIC}; /* a is dynamic: no match */

	if (moved)
		rotations_now(w, t);
	for (size_t k = 0; k < w->n_contacts; k++) {
		double pre[4], *bk = b + bs * k;
		const double depth =
		    moved ? (t->depth[k] = depth_now(w, t, k, &m)) : t->depth[k];
		int bounce;

		if (relative)
			rows_velocity_relative(rows + k, bs, vfree, bk);
		else
			rows_velocity(rows + k, bs, vfree, bk);
		if (e[k] > 0.0)
			rows_velocity(rows + k, bs, vel, pre);
		bounce = e[k] > 0.0 && -pre[0] > s->restitution_threshold &&
			 (depth >= 0.0 || pre[0] * h - depth <= 0.0);
		if (bounce)
			bk[0] += e[k] * pre[0];
		else if (depth < 0.0)
			bk[0] += -depth / h;
		else if (f == FEED_SETTINGS &&
			 s->stabilization == PX_STAB_BAUMGARTE &&
			 depth > s->slop)
			bk[0] -= s->beta / s->dt * (depth - s->slop);
		else if (f == FEED_SOFT && depth > s->slop)
			bk[0] -= fmin(t->soft[rows[k].pb == PX_STATIC].bias_rate *
					  (depth - s->slop),
				      s->contact_push_velocity);
	}
}

/* A solving hook's call where this world has no contact (problem NULL):
 * the hook solves with other worlds (a distributed run's ranks), which
 * meet it at each of their solves. */
static int empty_solve(struct px_world *w, struct step *t,
		       struct px_error *err)
{
	const struct px_step_solve view = {
		.step = w->step + 1,
		.warm_start = t->warm,
		.lambda = t->lsub,
		.body_velocities = &t->hook_dv,
	};

	t->hook_dv = NULL;
	return w->hook(w->hook_ctx, &view, err);
}

/* Substep i of h seconds (world.h); soft contact (world_soft.c): the soft
 * solve, the integration, then the relaxation of the rigid problem from
 * the soft impulses, which changes the velocities only (Box2D v3). */
static int substep(struct px_world *w, struct step *t, uint32_t i, double h,
		   const struct px_config *cfg, struct tally *y,
		   struct px_error *err)
{
	const int moreau = w->settings.stepping == PX_MOREAU;
	const int soft = w->settings.stabilization == PX_STAB_SOFT;
	const size_t n = w->n_contacts;
	int rc = PX_OK;

	if (i && w->substep_hook &&
	    (rc = w->substep_hook(w->hook_ctx, i, err)))
		return rc;
	if (i && moreau)
		drift(w, 0.5 * h);
	velocities(w, &t->d, h, t->bounce ? t->vel : NULL, t->vfree);
	if (n) {
		struct px_problem *p = soft ? t->ps : t->p;
		const double t0 = now();

		velocity_b(w, t, p, h, soft ? FEED_SOFT : FEED_SETTINGS,
			   t->vfree, i > 0);
		y->b_s += now() - t0;
		rc = tally_solve(w, t, p, cfg, y, err);
		if (rc)
			return rc;
	} else if (w->hook_solves && (rc = empty_solve(w, t, err))) {
		return rc;
	}
	if (soft)
		memcpy(t->vsoft, t->vfree, 6 * t->d.n * sizeof *t->vsoft);
	set_velocities(w, t, t->vfree, soft ? t->svs : t->sv);
	drift(w, moreau ? 0.5 * h : h);
	if (soft && n) {
		const double t0 = now();

		velocity_b(w, t, t->p, h, FEED_NONE, t->vsoft, 1);
		y->b_s += now() - t0;
		rc = tally_solve(w, t, t->p, cfg, y, err);
		if (rc)
			return rc;
		set_velocities(w, t, t->vsoft, t->sv);
	} else if (soft && w->hook_solves) {
		rc = empty_solve(w, t, err);
	}
	return rc;
}

/* a += b, n values */
static void add_to(double *restrict a, const double *restrict b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		a[k] += b[k];
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

/* The rows and the problems of a step: the rigid one, and for soft
 * contact A + Gamma. */
static int problems(struct px_world *w, struct step *t, double h,
		    struct px_error *err)
{
	const size_t n = w->n_contacts;
	int rc = px_world_rows_problem_build(w, &t->d, w->contacts, t->rows,
					     n, w->bs, 0, &t->p, err);

	if (rc || w->settings.stabilization != PX_STAB_SOFT)
		return rc;
	px_soft_pair(&w->settings, h, t->soft);
	rc = px_world_problem_build(w, &t->d, w->contacts, t->rows, n, w->bs,
				    0, &t->ps, err);
	return rc ? rc
		  : px_world_soft_problem(t->rows, t->soft, t->ps, err);
}

int px_world_step(struct px_world *w, const struct px_config *cfg,
		   struct px_step_stats *st, struct px_error *err)
{
	const struct px_world_settings *s = &w->settings;
	const uint32_t substeps = s->substeps ? s->substeps : 1;
	const double h = s->dt / substeps;
	const double t0 = now();
	struct step t = {0};
	struct tally y = {.converged = 1};
	double t1, t2, t3, t4, tm, tc, tp, ws = 0.0, bn[2] = {0.0, 0.0};
	size_t n;
	int rc;

	memset(st, 0, sizeof *st);
	if (w->hook_solves && !w->hook)
		return px_error_set(err, PX_ERR_INVALID,
				    "a solving hook needs a hook");
	if (s->stepping == PX_MOREAU)
		drift(w, 0.5 * h);
	tm = now();
	if (px_collide_all_timed(w->bp, w->bodies, w->n_bodies, s->margin,
				 &w->contacts, &w->n_contacts,
				 &w->cap_contacts, bn))
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	n = w->n_contacts;
	t1 = now();

	rc = step_alloc(&t, w, block_size(w, w->contacts, n), err);
	if (rc)
		goto out;
	if (n) {
		const double *e;

		/* the rows too (px_world_rows_problem_build) */
		rc = problems(w, &t, h, err);
		if (rc)
			goto out;
		if (t.anchor)
			anchors_set(w, &t);
		e = px_problem_restitution(t.p);
		for (size_t k = 0; k < n; k++)
			t.bounce |= e[k] > 0.0;
		ws = now();
		st->cache_hits = px_world_warm_start(
		    w, w->contacts, t.rows, n, w->bs, t.lsub, t.claimed);
		ws = now() - ws;
	}
	t2 = now();
	for (uint32_t i = 0; i < substeps; i++) {
		rc = substep(w, &t, i, h, cfg, &y, err);
		if (rc)
			goto out;
		if (substeps > 1)
			add_to(w->lambda, t.lsub, n * w->bs);
	}
	t3 = now();
	rc = px_world_cache_store(w, w->contacts, t.rows, n, w->bs, t.lsub,
				  err);
	if (rc)
		goto out;
	tc = now();
	if (s->stabilization == PX_STAB_POST) {
		rc = post_stabilize(w, cfg, err);
		if (rc)
			goto out;
	}
	tp = now();
	rc = check_finite(w, err);
	if (rc)
		goto out;
	t4 = now();
	st->kinetic = px_world_kinetic_energy(w);
	st->potential = px_world_potential_energy(w);
	if (!isfinite(st->kinetic) || !isfinite(st->potential)) {
		rc = px_error_set(err, PX_ERR_DIVERGED,
				  "the bodies' %s energy is not finite (%g J): their state overflows it (diverged)",
				  isfinite(st->kinetic) ? "potential" : "kinetic",
				  isfinite(st->kinetic) ? st->potential
							: st->kinetic);
		goto out;
	}

	w->step++;
	w->time = (double)w->step * s->dt;
	st->step = w->step;
	st->time = w->time;
	st->contacts = n;
	st->sweeps = y.sweeps;
	st->merit = n ? y.rep.merit : 0.0;
	st->converged = y.converged;
	st->seconds_collide = t1 - t0;
	st->seconds_solve = y.solve_s;
	st->seconds_build = t2 - t1;
	st->seconds_stab = t4 - t2 - y.solve_s - y.hook_s;
	st->seconds_total = t4 - t0 - y.hook_s;
	/* the stages, which add up to seconds_total: the solver's set-up in
	 * px_solve (outside its report's seconds) is the problem's; the
	 * substeps' time outside b and the solves is the integration's */
	st->seconds_broad = bn[0];
	st->seconds_narrow = (t1 - tm) - bn[0];
	st->seconds_cache = ws + (tc - t3);
	st->seconds_problem =
	    (t2 - t1 - ws) + y.b_s + (y.solve_wall - y.solve_s - y.hook_s);
	st->seconds_integrate =
	    (tm - t0) + (t3 - t2 - y.b_s - y.solve_wall) + (t4 - tp);
	st->seconds_post = s->stabilization == PX_STAB_POST ? tp - tc : 0.0;
	st->seconds_integrate += tp - tc - st->seconds_post;
	for (size_t k = 0; k < n; k++)
		st->max_depth = fmax(st->max_depth, w->contacts[k].depth);
out:
	px_report_free(&y.rep);
	step_free(&t, w);
	return rc;
}

void px_world_set_solve_hook(struct px_world *w, px_world_solve_hook fn,
			     void *ctx)
{
	w->hook = fn;
	w->hook_ctx = fn ? ctx : NULL;
}

void px_world_hook_solves(struct px_world *w, int on)
{
	w->hook_solves = on != 0;
}

void px_world_set_substep_hook(struct px_world *w, px_world_substep_hook fn)
{
	w->substep_hook = fn;
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
