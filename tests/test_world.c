/* The rigid-body world (sim/world.h): tests that would catch wrong physics.
 * A resting box carries m g dt per step; a box on an incline sticks or
 * slides with g (sin - mu cos); a bouncing sphere reaches e^2 h; free fall
 * is exact with Moreau's midpoint scheme; energy never grows in an
 * inelastic pile; torsional friction stops a spinning sphere at the rate
 * mu_tau m g / I; the contact cache carries impulses across steps; bodies
 * with bad numbers are refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../sim/scene.h"
#include "../sim/vec.h"
#include "../sim/world.h"
#include "helpers.h"

#define G 9.81

/* A tightly converged solver: tests check physics, not the iteration. */
static const char *const tight_ini = "[solver]\n"
				     "max_sweeps = 20000\n"
				     "merit = fc3d\n"
				     "abs_tol = 1e-13\n";

static struct px_world *world_n(double dt, enum px_stepping stepping,
				 enum px_stabilization stab, uint32_t substeps)
{
	struct px_world_settings s;
	struct px_world *w;
	struct px_error err = {0};

	px_world_settings_default(&s);
	s.dt = dt;
	s.stepping = stepping;
	s.stabilization = stab;
	s.substeps = substeps;
	cr_assert_eq(px_world_create(&s, &w, &err), PX_OK, "%s", err.msg);
	return w;
}

static struct px_world *world(double dt, enum px_stepping stepping,
			       enum px_stabilization stab)
{
	return world_n(dt, stepping, stab, 1);
}

static uint32_t add(struct px_world *w, struct px_body b)
{
	struct px_error err = {0};
	uint32_t i;

	cr_assert_eq(px_world_add_body(w, &b, &i, &err), PX_OK, "%s",
		     err.msg);
	return i;
}

static struct px_body ground_plane(const double normal[3], double mu)
{
	struct px_body b = {.shape = {.kind = PX_PLANE},
			     .q = {1, 0, 0, 0},
			     .mu = mu,
			     .is_static = 1};

	memcpy(b.shape.normal, normal, sizeof b.shape.normal);
	return b;
}

static struct px_body ground_box(double mu)
{
	return (struct px_body){.shape = {.kind = PX_BOX, .half = {50, 50, 1}},
				 .x = {0, 0, -1},
				 .q = {1, 0, 0, 0},
				 .mu = mu,
				 .is_static = 1};
}

static struct px_body box(double hx, double hy, double hz, double m,
			   double mu)
{
	return (struct px_body){
		.shape = {.kind = PX_BOX, .half = {hx, hy, hz}},
		.q = {1, 0, 0, 0},
		.mass = m,
		.inertia = {m / 3 * (hy * hy + hz * hz),
			    m / 3 * (hx * hx + hz * hz),
			    m / 3 * (hx * hx + hy * hy)},
		.mu = mu};
}

static struct px_body sphere(double r, double m, double mu)
{
	const double i = 0.4 * m * r * r;

	return (struct px_body){.shape = {.kind = PX_SPHERE, .radius = r},
				 .q = {1, 0, 0, 0},
				 .mass = m,
				 .inertia = {i, i, i},
				 .mu = mu};
}

static void step(struct px_world *w, const struct px_config *cfg,
		 struct px_step_stats *st)
{
	struct px_error err = {0};

	cr_assert_eq(px_world_step(w, cfg, st, &err), PX_OK, "%s", err.msg);
}

/* The sum of the normal impulses of the last step. */
static double normal_sum(const struct px_world *w)
{
	const struct px_contact *c;
	const double *l;
	uint32_t bs;
	const size_t n = px_world_contacts(w, &c, &l, &bs);
	double s = 0.0;

	for (size_t k = 0; k < n; k++)
		s += l[bs * k];
	return s;
}

/* With N substeps the step's impulses are their sum: still m g dt. */
static void resting_box_n(struct px_body ground, enum px_stepping stepping,
			  uint32_t substeps)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w =
	    world_n(0.01, stepping, PX_STAB_BAUMGARTE, substeps);
	struct px_body b = box(0.5, 0.4, 0.3, 7.0, 0.5);
	struct px_step_stats st;

	add(w, ground);
	b.x[2] = 0.3;
	add(w, b);
	for (int i = 0; i < 50; i++) {
		step(w, cfg, &st);
		cr_assert_eq(st.contacts, 4, "step %d: %zu contacts", i,
			     st.contacts);
		/* (a substep's solve may stop at 20000 sweeps a hair
		 * above abs_tol: the impulses below are what counts) */
		cr_assert(st.converged || substeps > 1);
		cr_assert_float_eq(normal_sum(w), 7.0 * G * 0.01,
				   1e-6 * 7.0 * G * 0.01, "step %d: %.17g", i,
				   normal_sum(w));
	}
	cr_assert_float_eq(px_world_bodies(w)[1].x[2], 0.3, 1e-9);
	px_world_destroy(w);
	px_config_free(cfg);
}

static void resting_box(struct px_body ground, enum px_stepping stepping)
{
	resting_box_n(ground, stepping, 1);
}

Test(world, resting_box_carries_m_g_dt_per_step)
{
	const double up[3] = {0, 0, 1};

	resting_box(ground_plane(up, 0.5), PX_SEMI_IMPLICIT);
	resting_box(ground_box(0.5), PX_SEMI_IMPLICIT);
	resting_box(ground_box(0.5), PX_MOREAU);
}

/* A box resting on a plane inclined by theta about y, mu 0.5, for t
 * seconds: returns the displacement along the slope (down is positive) and
 * the final speed along it. */
static void incline_n(double theta, double t, uint32_t substeps,
		      double *dist, double *speed)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w =
	    world_n(0.01, PX_SEMI_IMPLICIT, PX_STAB_BAUMGARTE, substeps);
	const double n[3] = {-sin(theta), 0, cos(theta)};
	const double down[3] = {-cos(theta), 0, -sin(theta)};
	struct px_body b = box(0.5, 0.5, 0.25, 2.0, 0.5);
	struct px_step_stats st;
	double x0[3];

	add(w, ground_plane(n, 0.5));
	/* turned by theta about y so that its -z face lies on the plane */
	b.q[0] = cos(-theta / 2);
	b.q[2] = sin(-theta / 2);
	for (int i = 0; i < 3; i++)
		b.x[i] = 0.25 * n[i];
	memcpy(x0, b.x, sizeof x0);
	add(w, b);
	for (int i = 0; i < (int)lround(t / 0.01); i++) {
		step(w, cfg, &st);
		cr_assert_eq(st.contacts, 4);
	}
	*dist = 0.0;
	*speed = v3_dot(px_world_bodies(w)[1].v, down);
	for (int i = 0; i < 3; i++)
		*dist += (px_world_bodies(w)[1].x[i] - x0[i]) * down[i];
	px_world_destroy(w);
	px_config_free(cfg);
}

static void incline(double theta, double t, double *dist, double *speed)
{
	incline_n(theta, t, 1, dist, speed);
}

Test(world, box_sticks_on_an_incline_flatter_than_atan_mu)
{
	double d, v;

	incline(atan(0.4), 2.0, &d, &v); /* tan = 0.4 < mu = 0.5 */
	cr_assert_lt(fabs(d), 1e-4, "drifted %g m", d);
}

Test(world, box_slides_down_a_steeper_incline_at_g_sin_minus_mu_cos)
{
	const double theta = atan(0.8), t = 1.0;
	const double a = G * (sin(theta) - 0.5 * cos(theta));
	double d, v;

	incline(theta, t, &d, &v);
	cr_assert_float_eq(v / t, a, 0.01 * a, "a = %g, expected %g", v / t, a);
	cr_assert_float_eq(d, 0.5 * a * t * t, 0.02 * 0.5 * a * t * t,
			   "d = %g", d);
}

/* Substeps (issue 23): the same physics, in N smaller solves. A wrong h
 * (gravity, gaps or feedback over dt instead of dt / N), impulses of one
 * substep reported as the step's, or depths not following the bodies would
 * each break these. */
Test(world, resting_box_carries_m_g_dt_per_step_whatever_the_substeps)
{
	const double up[3] = {0, 0, 1};

	resting_box_n(ground_plane(up, 0.5), PX_SEMI_IMPLICIT, 4);
	resting_box_n(ground_box(0.5), PX_SEMI_IMPLICIT, 10);
	resting_box_n(ground_box(0.5), PX_MOREAU, 4);
}

Test(world, incline_deceleration_with_4_substeps_as_with_1)
{
	const double theta = atan(0.8), t = 1.0;
	const double a = G * (sin(theta) - 0.5 * cos(theta));
	double d1, v1, d4, v4;

	incline_n(theta, t, 1, &d1, &v1);
	incline_n(theta, t, 4, &d4, &v4);
	cr_assert_float_eq(v4 / t, a, 0.01 * a, "a = %g, expected %g", v4 / t,
			   a);
	cr_assert_float_eq(v4, v1, 1e-3 * v1, "v = %g with 4, %g with 1", v4,
			   v1);
	cr_assert_float_eq(d4, 0.5 * a * t * t, 0.02 * 0.5 * a * t * t,
			   "d = %g", d4);
	incline_n(atan(0.4), 2.0, 4, &d4, &v4);
	cr_assert_lt(fabs(d4), 1e-4, "drifted %g m with 4 substeps", d4);
}

/* Baumgarte's beta is the fraction of the excess penetration removed per
 * step, not per substep: a box sunk 11 mm into the ground rises at about
 * beta / dt (depth - slop) = 0.05 m/s with 10 substeps as with 1 (beta / h
 * would give 0.5 m/s, and blows boxstacks and card houses up). */
Test(world, baumgarte_pushes_out_at_the_step_rate_whatever_the_substeps)
{
	struct px_config *cfg = config_from_text(tight_ini);
	double vz[2];

	for (int k = 0; k < 2; k++) {
		struct px_world *w = world_n(0.01, PX_SEMI_IMPLICIT,
					     PX_STAB_BAUMGARTE, k ? 10 : 1);
		struct px_body b = box(0.5, 0.4, 0.3, 7.0, 0.5);
		struct px_step_stats st;

		add(w, ground_box(0.5));
		b.x[2] = 0.3 - 0.011;
		add(w, b);
		step(w, cfg, &st);
		vz[k] = px_world_bodies(w)[1].v[2];
		px_world_destroy(w);
	}
	cr_assert_float_eq(vz[0], 0.05 * 0.010 / 0.01, 0.1 * 0.05, "%g", vz[0]);
	cr_assert_float_eq(vz[1], vz[0], 0.2 * vz[0], "%g with 10 substeps, %g with 1",
			   vz[1], vz[0]);
	px_config_free(cfg);
}

/* Soft contact: the box sinks into its spring until the bias holds it,
 * then carries m g dt per step, a substep's weight per substep. */
Test(world, soft_resting_box_settles_and_carries_m_g_dt)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w = world_n(0.01, PX_SEMI_IMPLICIT, PX_STAB_SOFT, 4);
	struct px_body b = box(0.5, 0.4, 0.3, 7.0, 0.5);
	struct px_step_stats st;
	const double slop = px_world_settings(w)->slop;

	add(w, ground_box(0.5));
	b.x[2] = 0.3;
	add(w, b);
	for (int i = 0; i < 200; i++)
		step(w, cfg, &st);
	cr_assert_eq(st.contacts, 4);
	cr_assert_float_eq(normal_sum(w), 7.0 * G * 0.01, 1e-6 * 7.0 * G * 0.01,
			   "%.17g", normal_sum(w));
	/* at rest a little past the slop, where the bias holds it */
	cr_assert_gt(st.max_depth, slop);
	cr_assert_lt(st.max_depth, slop + 1e-4, "depth %g", st.max_depth);
	cr_assert_lt(fabs(px_world_bodies(w)[1].v[2]), 1e-9);
	px_world_destroy(w);
	px_config_free(cfg);
}

/* Drop a sphere from height h (gap under it) with restitution e: the apex
 * of its first rebound. */
static double rebound(double h, double e, enum px_stabilization stab)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w = world(1e-3, PX_SEMI_IMPLICIT, stab);
	const double up[3] = {0, 0, 1};
	struct px_body s = sphere(0.5, 1.0, 0.5);
	struct px_step_stats st;
	double apex = 0.0;
	int bounced = 0;

	add(w, ground_plane(up, 0.5));
	s.restitution = e;
	s.x[2] = 0.5 + h;
	add(w, s);
	for (int i = 0; i < 5000; i++) {
		const struct px_body *b = px_world_bodies(w) + 1;

		step(w, cfg, &st);
		if (!bounced && b->v[2] > 0)
			bounced = 1;
		if (bounced) {
			apex = fmax(apex, b->x[2] - 0.5);
			if (b->v[2] < 0)
				break;
		}
	}
	cr_assert(bounced);
	px_world_destroy(w);
	px_config_free(cfg);
	return apex;
}

Test(world, sphere_rebounds_to_e2_h)
{
	const double h = 1.0;

	for (double e = 0.5; e < 1.0; e += 0.3) {
		const double apex = rebound(h, e, PX_STAB_POST);

		cr_assert_float_eq(apex, e * e * h, 0.02 * e * e * h,
				   "e %g: apex %g, expected %g", e, apex,
				   e * e * h);
		/* doc/world.md: "measured 0.2506 for e = 0.5" */
		if (e == 0.5)
			cr_assert_float_eq(apex, 0.2506, 5e-5, "apex %.6f", apex);
	}
	cr_assert_float_eq(rebound(h, 0.5, PX_STAB_BAUMGARTE), 0.25,
			   0.02 * 0.25);
}

Test(world, moreau_free_fall_is_exact_semi_implicit_is_first_order)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *m = world(0.01, PX_MOREAU, PX_STAB_NONE);
	struct px_world *s = world(0.01, PX_SEMI_IMPLICIT, PX_STAB_NONE);
	struct px_step_stats st;
	struct px_body b = sphere(0.5, 1.0, 0.5);

	b.x[2] = 100.0;
	add(m, b);
	add(s, b);
	for (int i = 1; i <= 100; i++) {
		const double t = 0.01 * i;

		step(m, cfg, &st);
		step(s, cfg, &st);
		cr_assert_float_eq(px_world_bodies(m)[0].x[2],
				   100.0 - 0.5 * G * t * t, 1e-10);
		/* symplectic Euler: z_k = z0 - g dt^2 k (k + 1) / 2 */
		cr_assert_float_eq(px_world_bodies(s)[0].x[2],
				   100.0 - 0.5 * G * t * (t + 0.01), 1e-10);
	}
	px_world_destroy(m);
	px_world_destroy(s);
	px_config_free(cfg);
}

/* Spheres dropped in a heap on the ground with restitution 0: total energy
 * never grows from step to step. */
Test(world, energy_never_grows_in_an_inelastic_pile)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w = world(0.01, PX_SEMI_IMPLICIT, PX_STAB_NONE);
	struct px_step_stats st;
	double e0;
	int contacts = 0;

	add(w, ground_box(0.5));
	for (int k = 0; k < 3; k++)
		for (int j = 0; j < 3; j++)
			for (int i = 0; i < 3; i++) {
				struct px_body b = sphere(0.5, 1.0, 0.5);

				b.x[0] = 1.02 * i + 0.13 * k;
				b.x[1] = 1.03 * j + 0.07 * k;
				b.x[2] = 0.5 + 1.1 * k;
				b.v[0] = 0.3 * (i - 1);
				add(w, b);
			}
	e0 = px_world_kinetic_energy(w) + px_world_potential_energy(w);
	for (int i = 0; i < 200; i++) {
		double e;

		step(w, cfg, &st);
		e = st.kinetic + st.potential;
		contacts += st.contacts > 0;
		cr_assert_leq(e, e0 + 1e-9 * fabs(e0), "step %d: %.12g > %.12g",
			      i, e, e0);
		e0 = e;
	}
	cr_assert_gt(contacts, 150);
	px_world_destroy(w);
	px_config_free(cfg);
}

/* A sphere spinning about z on the ground: with torsional friction mu_tau
 * its spin decays at mu_tau m g / I (a constant torque); without it, it
 * keeps spinning. */
static double spin_after(double mu_tau, int steps)
{
	struct px_config *cfg =
		config_from_text("[solver]\nmax_sweeps = 20000\nmerit = fc3d\n"
				 "abs_tol = 1e-13\n[friction]\nplugin = ellipsoid\n");
	struct px_world *w = world(0.01, PX_SEMI_IMPLICIT, PX_STAB_BAUMGARTE);
	const double up[3] = {0, 0, 1};
	struct px_body g = ground_plane(up, 0.5), s = sphere(0.5, 2.0, 0.5);
	struct px_step_stats st;
	double spin;

	g.mu_tau = s.mu_tau = mu_tau;
	add(w, g);
	s.x[2] = 0.5;
	s.w[2] = 10.0;
	add(w, s);
	for (int i = 0; i < steps; i++)
		step(w, cfg, &st);
	spin = px_world_bodies(w)[1].w[2];
	cr_assert_lt(v3_norm(px_world_bodies(w)[1].v), 1e-9);
	px_world_destroy(w);
	px_config_free(cfg);
	return spin;
}

Test(world, torsional_friction_slows_a_spinning_sphere)
{
	const double mu_tau = 0.01, i = 0.4 * 2.0 * 0.25;
	const double decel = mu_tau * 2.0 * G / i;

	cr_assert_float_eq(spin_after(0.0, 100), 10.0, 1e-12);
	cr_assert_float_eq(spin_after(mu_tau, 100), 10.0 - decel * 1.0,
			   1e-6 * 10.0, "expected %g", 10.0 - decel);
}

/* With the cache on, a resting box's second step starts from the first
 * step's impulses and needs (almost) no sweeps. */
Test(world, contact_cache_warm_starts_matched_contacts)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_step_stats st;
	uint64_t sweeps[2][3];

	for (int cache = 0; cache < 2; cache++) {
		struct px_world *w =
			world(0.01, PX_SEMI_IMPLICIT, PX_STAB_BAUMGARTE);
		struct px_body b = box(0.5, 0.5, 0.5, 1.0, 0.5);

		px_world_settings_mut(w)->warm_start = cache;
		add(w, ground_box(0.5));
		b.x[2] = 0.5;
		add(w, b);
		for (int i = 0; i < 3; i++) {
			step(w, cfg, &st);
			sweeps[cache][i] = st.sweeps;
			cr_assert_eq(st.cache_hits, cache && i ? 4 : 0);
		}
		px_world_destroy(w);
	}
	cr_assert_lt(sweeps[1][1], sweeps[0][1]);
	cr_assert_leq(sweeps[1][2], 2, "%llu sweeps",
		      (unsigned long long)sweeps[1][2]);
	px_config_free(cfg);
}

Test(world, bad_bodies_are_refused_with_the_field)
{
	struct px_world *w = world(0.01, PX_SEMI_IMPLICIT, PX_STAB_NONE);
	struct px_error err = {0};
	struct px_body b = sphere(0.5, 1.0, 0.5);

	b.x[1] = NAN;
	cr_assert_eq(px_world_add_body(w, &b, NULL, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "position is not finite");
	b = sphere(0.5, -1.0, 0.5);
	cr_assert_eq(px_world_add_body(w, &b, NULL, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "mass must be positive and finite");
	b = sphere(0.0, 1.0, 0.5);
	cr_assert_eq(px_world_add_body(w, &b, NULL, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "radius must be positive and finite");
	b = box(0.5, 0.0, 0.5, 1.0, 0.5);
	cr_assert_eq(px_world_add_body(w, &b, NULL, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "half extents must be positive and finite");
	cr_assert_eq(px_world_n_bodies(w), 0);
	px_world_destroy(w);
}

/* Catto 2005, sec. 9.1, Figs. 5-6, through the shipped scene: with the contact
 * cache the ten boxes dropped 0.06 m apart settle into a standing column
 * at 10 sweeps per step and stay there for 10 s; without it the column
 * falls down. */
static void stack_003(int cache, double *lowest_excess, double *top_z)
{
	struct px_config *cfg = config_from_text(
		"[solver]\nmax_sweeps = 10\nabs_tol = 0\nrel_tol = 0\n"
		"[rfactor]\nplugin = local\nnu = 1\n");
	struct px_world *w;
	struct px_step_stats st;
	struct px_error err = {0};
	size_t n;

	cr_assert_eq(px_scene_load(PX_TEST_SRCDIR "/scenes/boxstack-10-003.ini",
				   &w, &err),
		     PX_OK, "%s", err.msg);
	n = px_world_n_bodies(w);
	cr_assert_eq(n, 11);
	px_world_settings_mut(w)->warm_start = cache;
	for (uint64_t i = 0; i < px_world_settings(w)->steps; i++)
		step(w, cfg, &st);
	*lowest_excess = 0.0;
	for (size_t k = 1; k < n; k++) /* box k rests at 0.3 + 0.6 (k - 1) */
		*lowest_excess =
			fmax(*lowest_excess,
			     fabs(px_world_bodies(w)[k].x[2] - 0.3 - 0.6 * (k - 1)));
	*top_z = px_world_bodies(w)[n - 1].x[2];
	px_world_destroy(w);
	px_config_free(cfg);
}

Test(world, box_stack_of_003_stands_with_the_cache_and_falls_without)
{
	double excess, top;

	stack_003(1, &excess, &top);
	cr_assert_lt(excess, 0.02, "a box is %g m off its place in the column",
		     excess);
	stack_003(0, &excess, &top);
	cr_assert_lt(top, 5.7 - 1.0, "the top box stayed at %g m", top);
}

/* What the solve hook saw, copied. */
struct seen {
	struct px_config *cfg;
	int calls, fail, empty;
	uint64_t step, sweeps;
	size_t n;
	double warm[64], lambda[64], again[64];
};

static int record(void *ctx, const struct px_step_solve *s,
		  struct px_error *err)
{
	struct seen *v = ctx;
	const size_t m = px_problem_n_contacts(s->problem) *
			 px_problem_block_size(s->problem);
	struct px_report rep = {0};

	if (v->fail)
		return px_error_set(err, PX_ERR_INVALID, "hook says no");
	cr_assert_leq(m, 64);
	v->calls++;
	v->step = s->step;
	v->sweeps = s->report->sweeps;
	v->n = m;
	memcpy(v->warm, s->warm_start, m * sizeof *v->warm);
	memcpy(v->lambda, s->lambda, m * sizeof *v->lambda);
	/* the problem is the one the world solved: the same config from the
	 * same warm start gives the same impulses */
	memcpy(v->again, s->warm_start, m * sizeof *v->again);
	cr_assert_eq(px_solve(s->problem, v->cfg, v->again, &rep, err), PX_OK);
	px_report_free(&rep);
	return PX_OK;
}

/* Two identical worlds: a box 2 cm above the ground (steps without
 * contacts first), spinning at spin rad/s about z. */
static void dropped_box_twice(struct px_world *w[2], double spin)
{
	for (int k = 0; k < 2; k++) {
		struct px_body b = box(0.5, 0.4, 0.3, 7.0, 0.5);

		w[k] = world(0.01, PX_SEMI_IMPLICIT, PX_STAB_BAUMGARTE);
		add(w[k], ground_box(0.5));
		b.x[2] = 0.32;
		b.w[2] = spin;
		add(w[k], b);
	}
}

Test(world, solve_hook_sees_each_solve_and_changes_nothing)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w[2];
	struct px_step_stats st;
	struct px_error err = {0};
	struct seen v = {.cfg = config_from_text(tight_ini)};
	double prev[64] = {0};
	int free_steps = 0;

	dropped_box_twice(w, 0.0);
	px_world_set_solve_hook(w[1], record, &v);
	for (int i = 1; i <= 30; i++) {
		const struct px_contact *c;
		const double *l;
		uint32_t bs;
		const int calls = v.calls;

		step(w[0], cfg, &st);
		step(w[1], cfg, &st);
		/* the hooked world moves exactly as the other */
		cr_assert_eq(memcmp(px_world_bodies(w[0]), px_world_bodies(w[1]),
				    2 * sizeof(struct px_body)),
			     0, "step %d", i);
		if (!st.contacts) {
			cr_assert_eq(v.calls, calls, "step %d: no solve, no call", i);
			free_steps++;
			continue;
		}
		cr_assert_eq(v.calls, calls + 1);
		cr_assert_eq(v.step, (uint64_t)i);
		cr_assert_eq(v.sweeps, st.sweeps);
		cr_assert_eq(v.n, px_world_contacts(w[1], &c, &l, &bs) * bs);
		cr_assert_eq(memcmp(v.lambda, l, v.n * sizeof *l), 0);
		cr_assert_eq(memcmp(v.again, l, v.n * sizeof *l), 0);
		/* the warm start is the cache: the last step's impulses of
		 * the resting box (zero at its first contact) */
		for (size_t j = 0; j < v.n; j++)
			cr_assert_float_eq(v.warm[j], prev[j], 1e-12,
					   "step %d row %zu", i, j);
		memcpy(prev, l, v.n * sizeof *l);
	}
	/* the box falls free for its first steps, then touches at every
	 * step: the hook ran once per step with contacts, 24 times */
	cr_assert_eq(free_steps, 6, "%d steps without contacts", free_steps);
	cr_assert_eq(v.calls, 24, "the hook ran %d times", v.calls);
	/* a failing hook fails the step with its error */
	v.fail = 1;
	cr_assert_eq(px_world_step(w[1], cfg, &st, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "hook says no");
	px_world_destroy(w[0]);
	px_world_destroy(w[1]);
	px_config_free(v.cfg);
	px_config_free(cfg);
}

/* A solving hook: px_solve into the world's lambda, from the warm start
 * the world left there; called also where the world has no contact
 * (problem NULL: nothing to solve, counted apart). */
static int solve_in_hook(void *ctx, const struct px_step_solve *s,
			 struct px_error *err)
{
	struct seen *v = ctx;
	size_t m;
	struct px_report rep = {0};
	int rc;

	if (s->deep) { /* post-stabilization's: this world's the only one */
		v->fail++;
		if (!s->problem)
			return PX_OK;
		rc = px_solve(s->problem, v->cfg, s->lambda, &rep, err);
		px_report_free(&rep);
		return rc;
	}
	cr_assert_not_null(s->body_velocities);
	if (!s->problem) {
		v->empty++;
		return PX_OK;
	}
	m = px_problem_n_contacts(s->problem) * px_problem_block_size(s->problem);
	v->calls++;
	v->sweeps = s->report->sweeps;
	cr_assert_eq(memcmp(s->warm_start, s->lambda, m * sizeof *s->lambda), 0);
	rc = px_solve(s->problem, v->cfg, s->lambda, &rep, err);
	px_report_free(&rep);
	return rc;
}

/* px_world_hook_solves: the world does not solve, the bodies move by what
 * the hook leaves in lambda; a hook that runs px_solve moves them as the
 * world's own solve does, bit for bit. It is called at every solve, also
 * of a step without contacts (problem NULL): once per substep, and once
 * more for post-stabilization's position solve (s->deep set). */
Test(world, a_solving_hook_moves_the_bodies_by_its_impulses)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w[2];
	struct px_step_stats st;
	struct px_error err = {0};
	struct seen v = {.cfg = config_from_text(tight_ini)};

	dropped_box_twice(w, 0.5); /* a spin: friction matters */
	px_world_set_solve_hook(w[1], solve_in_hook, &v);
	px_world_hook_solves(w[1], 1);
	for (int i = 1; i <= 30; i++) {
		step(w[0], cfg, &st);
		step(w[1], cfg, &st);
		cr_assert_eq(memcmp(px_world_bodies(w[0]), px_world_bodies(w[1]),
				    2 * sizeof(struct px_body)),
			     0, "step %d", i);
		cr_assert_eq(st.sweeps, 0, "step %d: the world solved", i);
	}
	/* once per step with contacts: the 24 of the other hook test; and
	 * at the 6 steps without */
	cr_assert_eq(v.calls, 24, "the hook ran %d times", v.calls);
	cr_assert_eq(v.empty, 6, "the hook ran %d times without contacts", v.empty);
	cr_assert_eq(v.sweeps, 0);
	/* substeps: once per substep */
	px_world_settings_mut(w[1])->substeps = 2;
	v.calls = 0;
	step(w[1], cfg, &st);
	cr_assert_eq(v.calls, 2, "the hook ran %d times in 2 substeps", v.calls);
	/* post-stabilization: its solve through the hook as well */
	px_world_settings_mut(w[1])->substeps = 1;
	px_world_settings_mut(w[1])->stabilization = PX_STAB_POST;
	v.calls = 0;
	step(w[1], cfg, &st);
	cr_assert_eq(v.calls, 1);
	cr_assert_eq(v.fail, 1, "post-stabilization's solve: %d hook calls", v.fail);
	(void)err;
	px_world_destroy(w[0]);
	px_world_destroy(w[1]);
	px_config_free(v.cfg);
	px_config_free(cfg);
}

/* Two boxes on the ground box, 4 m apart, the second one spinning, after
 * `steps` steps of cfg. */
static struct px_world *two_boxes_after(const struct px_config *cfg,
					int steps)
{
	struct px_body a = box(0.5, 0.4, 0.3, 7.0, 0.5);
	struct px_body b = box(0.5, 0.4, 0.3, 3.0, 0.5);
	struct px_world *w = world(0.01, PX_SEMI_IMPLICIT, PX_STAB_BAUMGARTE);
	struct px_step_stats st;

	add(w, ground_box(0.5));
	a.x[0] = -2;
	b.x[0] = 2;
	b.w[2] = 0.3;
	add(w, a);
	add(w, b);
	for (int i = 0; i < steps; i++)
		step(w, cfg, &st);
	return w;
}

/* px_world_cache and px_world_set_cache (a distributed run's
 * re-partition): a world whose cache was emptied and set again from the
 * entries it had steps on bit for bit as the world it was copied from;
 * entries of bodies the world does not have, or out of pair order, are
 * refused and leave the cache as it was. */
Test(world, set_cache_restores_the_warm_start)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w[2];
	struct px_step_stats st[2];
	struct px_error err = {0};
	const struct px_cached *e;
	struct px_cached *copy, bad[2];
	size_t n;
	const uint32_t gone[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};

	for (int k = 0; k < 2; k++)
		w[k] = two_boxes_after(cfg, 20);
	n = px_world_cache(w[1], &e);
	cr_assert_eq(n, 8);
	copy = malloc(n * sizeof *copy);
	memcpy(copy, e, n * sizeof *copy);
	/* the same bodies, the cache emptied (every body renumbered "gone"
	 * keeps no entry), then set again */
	{
		struct px_body same[3];

		memcpy(same, px_world_bodies(w[1]), sizeof same);
		cr_assert_eq(px_world_set_bodies(w[1], same, 3, gone, &err), PX_OK, "%s", err.msg);
	}
	cr_assert_eq(px_world_cache(w[1], &e), 0);
	bad[0] = copy[0];
	bad[0].b = 3;
	cr_assert_eq(px_world_set_cache(w[1], bad, 1, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "a contact cache entry of bodies 0 and 3, of 3");
	bad[0] = copy[n - 1];
	bad[1] = copy[0];
	cr_assert_eq(px_world_set_cache(w[1], bad, 2, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "contact cache entries are not sorted by body pair");
	cr_assert_eq(px_world_cache(w[1], &e), 0);
	cr_assert_eq(px_world_set_cache(w[1], copy, n, &err), PX_OK, "%s", err.msg);
	for (int i = 0; i < 5; i++) {
		step(w[0], cfg, &st[0]);
		step(w[1], cfg, &st[1]);
		cr_assert_eq(st[1].cache_hits, st[0].cache_hits);
	}
	cr_assert_eq(st[1].cache_hits, 8);
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(memcmp(px_world_bodies(w[0])[i].x, px_world_bodies(w[1])[i].x,
				    sizeof px_world_bodies(w[0])[i].x), 0, "body %zu", i);
	/* a cache set smaller than the steps' contacts: the steps after it
	 * store all 8 in buffers of their own size (the set one becomes the
	 * spare of the next store; ASan in tests/hardening.sh checks) */
	cr_assert_eq(px_world_set_cache(w[1], copy, 1, &err), PX_OK, "%s", err.msg);
	for (int i = 0; i < 3; i++)
		step(w[1], cfg, &st[1]);
	cr_assert_eq(px_world_cache(w[1], &e), 8);
	free(copy);
	px_world_destroy(w[0]);
	px_world_destroy(w[1]);
	px_config_free(cfg);
}

/* px_world_set_bodies: a body gone, the others renumbered; the contact
 * cache follows them, so the next step warm starts the remaining box's
 * four corners and it moves as it does beside the other box. */
Test(world, set_bodies_renumbers_the_cache)
{
	struct px_config *cfg = config_from_text(tight_ini);
	struct px_world *w[2];
	struct px_step_stats st;
	struct px_error err = {0};
	struct px_body kept[2];
	const uint32_t renumber[3] = {0, UINT32_MAX, 1};

	for (int k = 0; k < 2; k++)
		w[k] = two_boxes_after(cfg, 20);
	kept[0] = px_world_bodies(w[1])[0];
	kept[1] = px_world_bodies(w[1])[2];
	cr_assert_eq(px_world_set_bodies(w[1], kept, 2, renumber, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(px_world_n_bodies(w[1]), 2);
	step(w[0], cfg, &st);
	step(w[1], cfg, &st);
	cr_assert_eq(st.contacts, 4);
	cr_assert_eq(st.cache_hits, 4);
	for (int q = 0; q < 3; q++) {
		cr_assert_float_eq(px_world_bodies(w[1])[1].x[q],
				   px_world_bodies(w[0])[2].x[q], 1e-12);
		cr_assert_float_eq(px_world_bodies(w[1])[1].w[q],
				   px_world_bodies(w[0])[2].w[q], 1e-9);
	}
	/* the bodies are checked as px_world_add_body checks them */
	kept[1].mass = -1;
	cr_assert_eq(px_world_set_bodies(w[1], kept, 2, renumber, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "mass must be positive and finite");
	px_world_destroy(w[0]);
	px_world_destroy(w[1]);
	px_config_free(cfg);
}
