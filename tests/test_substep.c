/* Substepping in the world (issue 23): one substep is today's step bit for
 * bit; the hash of every body state of three scenes (semi-implicit with
 * Baumgarte, Moreau without stabilization and with a torsional row,
 * post-stabilization) was taken with the code before substeps existed
 * (fb2105e), and beside it the run's momentum and energy balances are
 * checked here. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "../sim/scene.h"
#include "../sim/world.h"
#include "helpers.h"

/* growth = 1: the back-tracking rule of fb2105e (issue 20 made 1.1 the
 * default), under which the hashes were taken */
static const char *const sweeps10_ini = "[solver]\n"
					"max_sweeps = 10\n"
					"abs_tol = 0\n"
					"rel_tol = 0\n"
					"[rfactor]\n"
					"plugin = local\n"
					"growth = 1\n";

static struct px_world *load(const char *name)
{
	char path[512];
	struct px_world *w = NULL;
	struct px_error err = {0};

	snprintf(path, sizeof path, "%s/scenes/%s", PX_TEST_SRCDIR, name);
	cr_assert_eq(px_scene_load(path, &w, &err), PX_OK, "%s", err.msg);
	return w;
}

/* Kinetic plus potential energy of the dynamic bodies, computed here from
 * their states (not by the world): 1/2 m v^2 + 1/2 w_b^T I w_b with w_b
 * the angular velocity in the body frame (q^-1 w q), and -m g.x. */
static double energy_here(const struct px_world *w)
{
	const struct px_body *b = px_world_bodies(w);
	const double *g = px_world_settings(w)->gravity;
	double e = 0.0;

	for (size_t k = 0; k < px_world_n_bodies(w); k++) {
		const double *q = b[k].q, *v = b[k].v, *om = b[k].w;
		/* t = 2 (u x om) with u = -(q1, q2, q3): om_b = om + q0 t + u x t */
		const double u[3] = {-q[1], -q[2], -q[3]};
		double t[3], wb[3];

		if (b[k].is_static)
			continue;
		t[0] = 2 * (u[1] * om[2] - u[2] * om[1]);
		t[1] = 2 * (u[2] * om[0] - u[0] * om[2]);
		t[2] = 2 * (u[0] * om[1] - u[1] * om[0]);
		wb[0] = om[0] + q[0] * t[0] + u[1] * t[2] - u[2] * t[1];
		wb[1] = om[1] + q[0] * t[1] + u[2] * t[0] - u[0] * t[2];
		wb[2] = om[2] + q[0] * t[2] + u[0] * t[1] - u[1] * t[0];
		e += 0.5 * b[k].mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		for (int i = 0; i < 3; i++)
			e += 0.5 * b[k].inertia[i] * wb[i] * wb[i];
		e -= b[k].mass * (g[0] * b[k].x[0] + g[1] * b[k].x[1] +
				  g[2] * b[k].x[2]);
	}
	return e;
}

/* The impulses of a step as its velocity solve left them (the hook runs
 * before they move the bodies): lambda and each contact's frame and
 * point. */
struct impulses {
	size_t n;
	uint32_t bs;
	double *lambda, *frame, *point;
};

static int keep_impulses(void *ctx, const struct px_step_solve *s,
			 struct px_error *err)
{
	struct impulses *im = ctx;
	const size_t n = px_problem_n_contacts(s->problem);

	im->n = n;
	im->bs = px_problem_block_size(s->problem);
	cr_assert_not_null(px_problem_frames(s->problem));
	cr_assert_not_null(px_problem_positions(s->problem));
	im->lambda = realloc(im->lambda, (n * im->bs + 1) * sizeof(double));
	im->frame = realloc(im->frame, (9 * n + 1) * sizeof(double));
	im->point = realloc(im->point, (3 * n + 1) * sizeof(double));
	cr_assert(im->lambda && im->frame && im->point);
	memcpy(im->lambda, s->lambda, n * im->bs * sizeof(double));
	memcpy(im->frame, px_problem_frames(s->problem), 9 * n * sizeof(double));
	memcpy(im->point, px_problem_positions(s->problem),
	       3 * n * sizeof(double));
	(void)err;
	return PX_OK;
}

/* Linear momentum, body by body, over one step from the velocities v0
 * (3 per body) before it: m (v - v0) = m g dt + the sum of the impulses
 * F_k = frame_k^T (lambda_n, lambda_s, lambda_t) of its contacts, each
 * with the sign that makes its normal part push the body away from the
 * contact point. Returns the largest mismatch over the scale of the
 * step's impulses (m g dt and the |F_k|). */
static double momentum_mismatch(const struct px_world *w, const double *v0,
				const double *x0, const struct impulses *im)
{
	const size_t nb = px_world_n_bodies(w);
	const struct px_body *b = px_world_bodies(w);
	const double *g = px_world_settings(w)->gravity;
	const double dt = px_world_settings(w)->dt;
	const struct px_contact *c;
	const double *wl;
	uint32_t bs;
	double *res = calloc(3 * nb + 1, sizeof *res), scale = 0.0, worst = 0.0;
	const size_t n = px_world_contacts(w, &c, &wl, &bs);

	cr_assert_not_null(res);
	cr_assert_eq(n, im->n, "the hook saw %zu contacts, the step has %zu",
		     im->n, n);
	for (size_t i = 0; i < nb; i++)
		for (int d = 0; d < 3 && !b[i].is_static; d++) {
			res[3 * i + d] = b[i].mass * (b[i].v[d] - v0[3 * i + d] -
						      g[d] * dt);
			scale = fmax(scale, fabs(b[i].mass * g[d] * dt));
		}
	for (size_t k = 0; k < n; k++) {
		const double *fr = im->frame + 9 * k, *l = im->lambda + im->bs * k;
		const uint32_t body[2] = {c[k].a, c[k].b};
		double f[3];

		/* the hook's contact k is the step's */
		cr_assert_float_eq(fabs(fr[0] * c[k].n[0] + fr[1] * c[k].n[1] +
					fr[2] * c[k].n[2]),
				   1.0, 1e-12, "contact %zu", k);
		for (int d = 0; d < 3; d++)
			f[d] = fr[d] * l[0] + fr[3 + d] * l[1] + fr[6 + d] * l[2];
		scale = fmax(scale, hypot(hypot(f[0], f[1]), f[2]));
		for (int j = 0; j < 2; j++) {
			const uint32_t i = body[j];
			double away = 0.0;

			if (i >= nb || b[i].is_static)
				continue;
			for (int d = 0; d < 3; d++)
				away += fr[d] * (x0[3 * i + d] - im->point[3 * k + d]);
			for (int d = 0; d < 3; d++)
				res[3 * i + d] -= (away > 0.0 ? 1.0 : -1.0) * f[d];
		}
	}
	for (size_t i = 0; i < 3 * nb; i++)
		worst = fmax(worst, fabs(res[i]));
	free(res);
	return scale > 0.0 ? worst / scale : worst;
}

/* What a run does, measured here beside its hash: the largest rise of
 * energy_here above its start over the steps (J) and the worst linear
 * momentum mismatch of a step (momentum_mismatch). */
struct rest {
	double e0, rise, momentum;
};

/* FNV-1a over the bytes of every body's x, q, v, w after each step; what
 * the run does into *r. */
static uint64_t trajectory_hash(struct px_world *w, const struct px_config *cfg,
				int steps, struct rest *r)
{
	uint64_t h = 1469598103934665603u;
	struct px_step_stats st;
	struct px_error err = {0};
	const size_t nb = px_world_n_bodies(w);
	struct impulses im = {0};
	double *v0 = malloc(6 * nb * sizeof *v0), *x0 = v0 + 3 * nb;

	cr_assert_not_null(v0);
	*r = (struct rest){energy_here(w), -HUGE_VAL, 0.0};
	px_world_set_solve_hook(w, keep_impulses, &im);
	for (int i = 0; i < steps; i++) {
		const struct px_body *b = px_world_bodies(w);

		for (size_t k = 0; k < nb; k++) {
			memcpy(v0 + 3 * k, b[k].v, 3 * sizeof *v0);
			memcpy(x0 + 3 * k, b[k].x, 3 * sizeof *x0);
		}
		im.n = 0;
		cr_assert_eq(px_world_step(w, cfg, &st, &err), PX_OK, "%s",
			     err.msg);
		r->momentum = fmax(r->momentum, momentum_mismatch(w, v0, x0, &im));
		r->rise = fmax(r->rise, energy_here(w) - r->e0);
		for (size_t k = 0; k < nb; k++) {
			double s[13];
			const unsigned char *p = (const unsigned char *)s;

			memcpy(s, b[k].x, 3 * sizeof *s);
			memcpy(s + 3, b[k].q, 4 * sizeof *s);
			memcpy(s + 7, b[k].v, 3 * sizeof *s);
			memcpy(s + 10, b[k].w, 3 * sizeof *s);
			for (size_t j = 0; j < sizeof s; j++)
				h = (h ^ p[j]) * 1099511628211u;
		}
	}
	px_world_set_solve_hook(w, NULL, NULL);
	free(im.lambda);
	free(im.frame);
	free(im.point);
	free(v0);
	return h;
}

static uint64_t scene_hash(const char *name, enum px_stabilization stab,
			   int steps, struct rest *r)
{
	struct px_config *cfg = config_from_text(sweeps10_ini);
	struct px_world *w = load(name);
	uint64_t h;

	px_world_settings_mut(w)->stabilization = stab;
	h = trajectory_hash(w, cfg, steps, r);
	px_world_destroy(w);
	px_config_free(cfg);
	return h;
}

/* Beside each pinned hash, what the hashed run does, computed here from
 * the bodies and the impulses the hook saw: every step changes each
 * body's linear momentum by gravity's impulse and its contacts' impulses
 * (to rounding: 1e-12 of the step's largest impulse; measured 8e-16), and
 * the energy never rises above its start without stabilization or with
 * post-stabilization (measured: it falls by 0.05 J and 1.3 J), nor by more
 * than 0.2 % under Baumgarte's feedback, which pushes bodies apart
 * (measured 0.08 %, 27 J of 32373 J). */
Test(substep, one_substep_is_the_step_of_before_bit_for_bit)
{
	static const struct {
		const char *scene;
		enum px_stabilization stab;
		int steps;
		uint64_t hash;
		double rise; /* the energy's largest rise, of its start */
	} runs[] = {
		{"boxstack-10.ini", PX_STAB_BAUMGARTE, 60, 0x675adbbe002b6a6eu,
		 2e-3},
		{"tower.ini", PX_STAB_NONE, 30, 0xc561f886350b0326u, 0.0},
		{"heavyonlight.ini", PX_STAB_POST, 30, 0x83ed5a88efefd66eu, 0.0},
	};

	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		struct rest r;
		const uint64_t h =
			scene_hash(runs[i].scene, runs[i].stab, runs[i].steps, &r);

		cr_log_info("%s: energy %.6g J, rises by at most %.3e J; momentum balance to %.3e",
			    runs[i].scene, r.e0, r.rise, r.momentum);
		cr_assert_eq(h, runs[i].hash, "%s: %#llx", runs[i].scene,
			     (unsigned long long)h);
		cr_assert_leq(r.momentum, 1e-12, "%s: a step's momentum is off by %g of its impulses",
			      runs[i].scene, r.momentum);
		cr_assert_leq(r.rise, runs[i].rise * r.e0,
			      "%s: the energy rose by %g J from %g J",
			      runs[i].scene, r.rise, r.e0);
	}
}

/* A box of half extents (0.7, 0.7, hz) and mass m (static if 0) centred
 * at (0, 0, z); the static one is the ground, 50 m wide, top face at 0. */
static void add_box(struct px_world *w, double m, double hz, double z)
{
	struct px_body b = {.shape = {.kind = PX_BOX, .half = {0.7, 0.7, hz}},
			    .x = {0, 0, z},
			    .q = {1, 0, 0, 0},
			    .mu = 0.5};
	struct px_error err = {0};
	uint32_t i;

	if (m > 0.0) {
		b.mass = m;
		b.inertia[0] = b.inertia[1] = m / 3 * (0.49 + hz * hz);
		b.inertia[2] = m / 3 * 0.98;
	} else {
		b.is_static = 1;
		b.shape.half[0] = b.shape.half[1] = 50;
		b.x[2] = -hz;
	}
	cr_assert_eq(px_world_add_body(w, &b, &i, &err), PX_OK, "%s",
		     err.msg);
}

/* Dense A of the solves of one step, in the order of the hook's calls. */
struct dense_seen {
	int calls;
	size_t m;
	double a[2][64 * 64];
};

static int keep_dense(void *ctx, const struct px_step_solve *s,
		      struct px_error *err)
{
	struct dense_seen *v = ctx;

	v->m = px_problem_n_contacts(s->problem) *
	       px_problem_block_size(s->problem);
	cr_assert_leq(v->m, 64);
	if (v->calls < 2)
		cr_assert_eq(px_problem_to_dense(s->problem, v->a[v->calls]),
			     PX_OK);
	v->calls++;
	(void)err;
	return PX_OK;
}

/* A box resting on another on the ground (boxstack's boxes), soft
 * contact, one step: the hook sees the soft solve's A + Gamma, then the
 * relaxation's A. */
static void soft_step(double hertz, struct dense_seen *v)
{
	struct px_config *cfg = config_from_text(sweeps10_ini);
	struct px_world_settings s;
	struct px_world *w;
	struct px_step_stats st;
	struct px_error err = {0};

	px_world_settings_default(&s);
	s.dt = 1.0 / 60.0;
	s.stabilization = PX_STAB_SOFT;
	s.contact_hertz = hertz;
	cr_assert_eq(px_world_create(&s, &w, &err), PX_OK, "%s", err.msg);
	add_box(w, 0, 1.0, 0.0);      /* the ground, static */
	add_box(w, 110, 0.3, 0.3);
	add_box(w, 110, 0.3, 0.9);
	px_world_set_solve_hook(w, keep_dense, v);
	cr_assert_eq(px_world_step(w, cfg, &st, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(v->calls, 2, "a soft step solves twice, not %d",
		     v->calls);
	px_world_destroy(w);
	px_config_free(cfg);
}

Test(substep, soft_solve_is_a_plus_gamma_on_the_normal_diagonal)
{
	static struct dense_seen v;
	const double h = 1.0 / 60.0, omega = 2 * M_PI * 30.0;

	/* 0 Hz: no softness, the assembled A is the rigid one */
	soft_step(0.0, &v);
	for (size_t i = 0; i < v.m * v.m; i++)
		cr_assert_float_eq(v.a[0][i], v.a[1][i],
				   1e-12 * (1 + fabs(v.a[1][i])), "entry %zu",
				   i);
	memset(&v, 0, sizeof v);
	/* 30 Hz (2 x 30 for the ground's contacts, capped at 0.25 / h = 15):
	 * A_nn (1 + 1 / (h omega (2 zeta + h omega))), zeta 10, on the
	 * normal diagonal; A elsewhere */
	soft_step(30.0, &v);
	for (size_t i = 0; i < v.m; i++)
		for (size_t j = 0; j < v.m; j++) {
			const double a = v.a[1][i * v.m + j];
			double want = a;

			if (i == j && i % 3 == 0) {
				const double hz = i < 12 ? 2 * 15.0 : 15.0;
				const double om = 2 * M_PI * hz;

				want = a * (1 + 1 / (h * om * (20 + h * om)));
			}
			cr_assert_float_eq(v.a[0][i * v.m + j], want,
					   1e-12 * (1 + fabs(want)),
					   "entry (%zu, %zu)", i, j);
		}
	(void)omega;
}

/* Substeps do not collide again: a box stack keeps doc/scenes.md's 4 points
 * per touching pair at every step with 4 and 10 substeps of 10 sweeps,
 * and stands (one solve of 40 sweeps, the work of 4 x 10, tilts a box
 * enough to lose a point at step 35). */
Test(substep, stack_contact_count_unchanged_by_substeps)
{
	static const uint32_t subs[2] = {4, 10};
	struct px_config *cfg = config_from_text(sweeps10_ini);
	struct px_error err = {0};

	for (int j = 0; j < 2; j++) {
		struct px_world *w = load("boxstack-10.ini");
		struct px_step_stats st;

		px_world_settings_mut(w)->substeps = subs[j];
		for (int i = 0; i < 60; i++) {
			cr_assert_eq(px_world_step(w, cfg, &st, &err),
				     PX_OK, "%s", err.msg);
			cr_assert_eq(st.contacts, 40, "%u substeps, step %d: %zu",
				     subs[j], i + 1, st.contacts);
			cr_assert_eq(st.sweeps, 10 * subs[j]);
		}
		/* each contact below box k may sink to the slop, 1 mm */
		for (size_t k = 1; k < px_world_n_bodies(w); k++)
			cr_assert_float_eq(px_world_bodies(w)[k].x[2],
					   0.3 + 0.6 * (double)(k - 1),
					   1e-3 * (double)(k + 1),
					   "%u substeps, box %zu: z %g", subs[j],
					   k, px_world_bodies(w)[k].x[2]);
		px_world_destroy(w);
	}
	px_config_free(cfg);
}

/* What doc/world.md and the shipped files promise a user (issue 23): with
 * conf/substeps.ini (5 sweeps, random ordering) the 20 substeps of
 * scenes/boxstack-40-substeps.ini hold the 40-box column for its 10 s, the
 * top box within 1 cm of its start at every step, all 160 contacts kept,
 * the energy within 0.1 %. (One solve of 100 sweeps loses the column.) */
Test(substep, shipped_substeps_files_hold_the_40_box_column)
{
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	struct px_world *w = load("boxstack-40-substeps.ini");
	const size_t top = px_world_n_bodies(w) - 1;
	double top0[3], e0, e1;
	struct px_step_stats st;

	cr_assert_eq(px_config_read(PX_TEST_SRCDIR "/conf/substeps.ini", &cfg,
				    &err),
		     PX_OK, "%s", err.msg);
	cr_assert_eq(px_world_settings(w)->substeps, 20);
	memcpy(top0, px_world_bodies(w)[top].x, sizeof top0);
	e0 = px_world_kinetic_energy(w) + px_world_potential_energy(w);
	for (int i = 0; i < 600; i++) {
		const double *x = px_world_bodies(w)[top].x;
		double d;

		cr_assert_eq(px_world_step(w, cfg, &st, &err), PX_OK, "%s",
			     err.msg);
		d = sqrt((x[0] - top0[0]) * (x[0] - top0[0]) +
			 (x[1] - top0[1]) * (x[1] - top0[1]) +
			 (x[2] - top0[2]) * (x[2] - top0[2]));
		cr_assert_leq(d, 0.01, "step %d: the top box is %g m off", i + 1,
			      d);
		cr_assert_eq(st.contacts, 160, "step %d: %zu contacts", i + 1,
			     st.contacts);
		cr_assert_eq(st.sweeps, 100);
	}
	e1 = px_world_kinetic_energy(w) + px_world_potential_energy(w);
	cr_assert_leq(fabs(e1 - e0), 1e-3 * e0, "energy %g J, then %g J", e0,
		      e1);
	px_world_destroy(w);
	px_config_free(cfg);
}

/* The [world] keys of issue 23: exact errors for bad values. */
static void bad_world(const char *line, const char *want_fmt)
{
	char text[256], path[32], want[512];
	struct px_world_settings s;
	struct px_body *b = NULL;
	size_t n = 7;
	struct px_error err = {0};

	snprintf(text, sizeof text, "[world]\n%s\n", line);
	write_temp_ini(text, path, sizeof path);
	snprintf(want, sizeof want, want_fmt, path);
	cr_assert_neq(px_scene_read(path, &s, &b, &n, &err), PX_OK, "%s",
		      line);
	cr_assert_eq(err.code, PX_ERR_CONFIG);
	cr_assert_str_eq(err.msg, want);
	cr_assert_null(b);
	unlink(path);
}

Test(substep, bad_substep_and_soft_keys_are_refused_exactly)
{
	struct px_world_settings s;
	struct px_world *w = NULL;
	struct px_error err = {0};

	bad_world("substeps = 0",
		  "%s:2: [world] substeps: '0' is out of range [1, 1000]");
	bad_world("substeps = 1001",
		  "%s:2: [world] substeps: '1001' is out of range [1, 1000]");
	bad_world("substeps = 2.5",
		  "%s:2: [world] substeps: '2.5' is not an integer");
	bad_world("stabilization = sof",
		  "%s:2: [world] stabilization: 'sof' is not one of baumgarte|post|none|soft");
	bad_world("contact_hertz = -1",
		  "%s:2: [world] contact_hertz: '-1' is out of range [0, 1e+300]");
	bad_world("contact_damping_ratio = x",
		  "%s:2: [world] contact_damping_ratio: 'x' is not a finite number");
	bad_world("contact_push_velocity = 0",
		  "%s:2: [world] contact_push_velocity: '0' is not positive (expected a number > 0)");
	/* and settings made in code */
	px_world_settings_default(&s);
	s.substeps = 0;
	cr_assert_eq(px_world_create(&s, &w, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "substeps must be in [1, 1000]");
	px_world_settings_default(&s);
	s.contact_hertz = NAN;
	cr_assert_eq(px_world_create(&s, &w, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "contact_hertz must be >= 0 and finite");
	cr_assert_null(w);
}
