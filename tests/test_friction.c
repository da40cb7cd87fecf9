/* Friction sets disc, box and ellipsoid: each projection lies in its set, is
 * idempotent, leaves inside points alone and satisfies the variational
 * inequality (y - x).(z - x) <= 0 for every y in the set (x = P(z)), the
 * optimality condition of a Euclidean projection; project_metric satisfies
 * (y - x)^T g (z - x) <= 0 and its KKT conditions, and equals project for
 * g = I. The ellipsoid agrees with an independent closest point
 * (closest_ref.h) and with disc on circles; box's constant bound is Catto's
 * (2005). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "closest_ref.h"
#include "friction_sets.h"

static struct px_plugin *disc, *box, *ellipsoid;

/* Load friction plugin `name` with n settings; err receives the refusal
 * (NULL: the load must succeed). */
static struct px_plugin *load(const char *name, const struct px_setting *set,
			      size_t n, struct px_error *refusal)
{
	struct px_plugin *pl;
	struct px_error err = {0};
	int rc = px_plugin_load(PX_KIND_FRICTION, name, set, n, &pl, &err);

	if (refusal) {
		cr_assert_neq(rc, PX_OK, "%s loaded", name);
		*refusal = err;
		return NULL;
	}
	cr_assert_eq(rc, PX_OK, "%s", err.msg);
	return pl;
}

static void load_sets(void)
{
	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH", PX_PLUGIN_BUILD_DIR, 1), 0);
	disc = load("disc", NULL, 0, NULL);
	box = load("box", NULL, 0, NULL);
	ellipsoid = load("ellipsoid", NULL, 0, NULL);
}

static void unload_sets(void)
{
	px_plugin_unload(disc);
	px_plugin_unload(box);
	px_plugin_unload(ellipsoid);
}

static const struct px_friction_ops *ops_of(const struct px_plugin *pl)
{
	return (const void *)px_plugin_header(pl);
}

static void proj(const struct px_plugin *pl,
		 const struct px_friction_params *fp, double ln, double *z,
		 uint32_t nf)
{
	ops_of(pl)->project(px_plugin_state(pl), fp, ln, z, nf);
}

static void proj_g(const struct px_plugin *pl,
		   const struct px_friction_params *fp, double ln,
		   const double *g, double *z, uint32_t nf)
{
	ops_of(pl)->project_metric(px_plugin_state(pl), fp, ln, g, z, nf);
}

static void project(double mu, double ln, double *z, uint32_t nf)
{
	struct px_friction_params fp = {mu, mu, mu, 0};

	proj(disc, &fp, ln, z, nf);
}

TestSuite(friction, .init = load_sets, .fini = unload_sets);

/* ---- the set each plugin documents ---------------------------------------- */

/* The sets' documented coefficients: mu_s, mu_t, mu_tau where non-zero,
 * else mu for s and t and the plugin's mu_tau for tau; disc is mu, mu, 0. */
static struct set set_of(const struct px_plugin *pl,
			 const struct px_friction_params *fp, double ln,
			 uint32_t nf, double mu_tau)
{
	struct set s = {pl != box, nf, {0, 0, 0}};

	if (pl == disc) {
		s.b[0] = s.b[1] = fp->mu * ln;
		return s;
	}
	s.b[0] = (fp->mu_s > 0 ? fp->mu_s : fp->mu) * ln;
	s.b[1] = (fp->mu_t > 0 ? fp->mu_t : fp->mu) * ln;
	if (nf > 2)
		s.b[2] = (fp->mu_tau > 0 ? fp->mu_tau : mu_tau) * ln;
	return s;
}

/* In the set, idempotent, z kept when inside, and the variational
 * inequality over sampled y: (y - x)^T g (z - x) <= vi_tol * size^2 * |g|.
 * Returns the largest relative VI value seen. */
static double check_projection(const struct px_plugin *pl, const struct set *s,
			       const struct px_friction_params *fp, double ln,
			       const double *z, const double *g, struct rng *r,
			       double vi_tol)
{
	const uint32_t nf = s->nf;
	const double size = size_of(s, z);
	double x[3], x2[3], gmax = g ? 0 : 1, worst = -INFINITY;

	memcpy(x, z, sizeof x);
	g ? proj_g(pl, fp, ln, g, x, nf) : proj(pl, fp, ln, x, nf);
	if (size == 0) {
		cr_assert(x[0] == 0 && x[1] == 0 && (nf < 3 || x[2] == 0));
		return 0;
	}
	cr_assert(in_set(s, x, 1e-12), "not in the set: x = %g %g %g",
		  x[0], x[1], nf > 2 ? x[2] : 0);
	memcpy(x2, x, sizeof x2);
	g ? proj_g(pl, fp, ln, g, x2, nf) : proj(pl, fp, ln, x2, nf);
	for (uint32_t i = 0; i < nf; i++)
		cr_assert_leq(fabs(x2[i] - x[i]), 1e-13 * size,
			      "not idempotent: row %u %.17g -> %.17g", i, x[i],
			      x2[i]);
	if (in_set(s, z, 0))
		cr_assert(memcmp(x, z, nf * sizeof *x) == 0,
			  "an inside point moved");
	for (uint32_t i = 0; g && i < nf * nf; i++)
		gmax = fmax(gmax, fabs(g[i]));
	for (int k = 0; k < 24; k++) {
		double y[3], vi;

		sample(s, r, k < 8 ? 1 : (k < 12 && !s->round) ? 2 : 0, y);
		vi = form(g, y, x, z, x, nf) / (size * size * gmax);
		worst = fmax(worst, vi);
		cr_assert_leq(vi, vi_tol,
			      "VI violated: %g (z = %g %g %g, b = %g %g %g)",
			      vi, z[0], z[1], nf > 2 ? z[2] : 0, s->b[0],
			      s->b[1], s->b[2]);
	}
	return worst;
}

/* ---- disc ---------------------------------------------------------------- */

Test(friction, disc_projection_is_optimal)
{
	struct rng r = {0x9e3779b97f4a7c15ull};

	cr_assert_eq(ops_of(disc)->flags & PX_FRICTION_SEPARABLE, 0,
		     "the disc is not a product of intervals");
	for (int trial = 0; trial < 20000; trial++) {
		double scale = pow(10.0, uniform(&r, -12, 12));
		double mu = uniform(&r, 0, 2), ln = scale * uniform(&r, 0, 1);
		double z[2] = {scale * uniform(&r, -3, 3),
			       scale * uniform(&r, -3, 3)};
		double x[2] = {z[0], z[1]}, x2[2];
		double radius = mu * ln;

		project(mu, ln, x, 2);
		cr_assert(isfinite(x[0]) && isfinite(x[1]));
		/* in the set */
		cr_assert_leq(hypot(x[0], x[1]), radius * (1 + 1e-15) + 1e-300);
		/* idempotent */
		x2[0] = x[0];
		x2[1] = x[1];
		project(mu, ln, x2, 2);
		cr_assert_float_eq(x2[0], x[0], 1e-15 * scale);
		cr_assert_float_eq(x2[1], x[1], 1e-15 * scale);
		/* inside points are returned unchanged */
		if (hypot(z[0], z[1]) <= radius)
			cr_assert(x[0] == z[0] && x[1] == z[1]);
		/* variational inequality over sampled y in the disc, rim included */
		for (int s = 0; s < 20; s++) {
			double a = uniform(&r, 0, 2 * M_PI);
			double rr = radius * (s < 4 ? 1.0 : sqrt(uniform(&r, 0, 1)));
			double y[2] = {rr * cos(a), rr * sin(a)};
			double vi = (y[0] - x[0]) * (z[0] - x[0]) +
				    (y[1] - x[1]) * (z[1] - x[1]);

			cr_assert_leq(vi, 1e-12 * scale * scale,
				      "VI violated: %g (z = %g %g, r = %g)", vi,
				      z[0], z[1], radius);
		}
	}
}

Test(friction, disc_degenerate_cases)
{
	double z[2] = {3, -4};

	project(0.5, 0.0, z, 2); /* no normal impulse: no friction */
	cr_assert(z[0] == 0.0 && z[1] == 0.0);
	z[0] = 3;
	z[1] = -4;
	project(0.0, 10.0, z, 2); /* frictionless */
	cr_assert(z[0] == 0.0 && z[1] == 0.0);
	z[0] = 3;
	z[1] = -4;
	project(1.0, 2.5, z, 2); /* |z| = 5 onto radius 2.5: halved */
	cr_assert_float_eq(z[0], 1.5, 1e-15);
	cr_assert_float_eq(z[1], -2.0, 1e-15);
	z[0] = 0;
	z[1] = 0;
	project(1.0, 0.0, z, 2);
	cr_assert(z[0] == 0.0 && z[1] == 0.0 && !isnan(z[0]));
}

Test(friction, disc_has_no_torsional_friction)
{
	double z[3] = {0.1, 0.1, 7.0};

	project(1.0, 1.0, z, 3);
	cr_assert_float_eq(z[0], 0.1, 0);
	cr_assert_float_eq(z[1], 0.1, 0);
	cr_assert_float_eq(z[2], 0.0, 0);
}

/* The projection onto the disc as written before the fast path: hypot
 * always. */
static void disc_reference(double radius, double *z)
{
	const double len = hypot(z[0], z[1]);

	if (len > radius && len > 0.0) {
		z[0] = z[0] / len * radius;
		z[1] = z[1] / len * radius;
	}
}

/* PX_FRICTION_KEEPS_DISC (ABI 1.5): disc declares it, and a point
 * px_disc_surely_inside accepts is one hypot finds inside, which project
 * leaves alone; disc's projection with that test in front is the
 * reference's bit for bit, on the rim to the last ulp and at extreme
 * magnitudes; and the test is not needlessly timid (2^-40 inside is
 * inside). */
Test(friction, keeps_disc_is_exact)
{
	static const double radii[] = {1.0, 0.3, 1e-150, 1e-160, 0x1p-1030,
				       1e150, 1e154, 1e200, 0.0};
	struct px_friction_params fp = {1.0, 1.0, 1.0, 0};
	uint64_t state = 7;
	long inside = 0;

	cr_assert(ops_of(disc)->flags & PX_FRICTION_KEEPS_DISC);
	cr_assert_not(ops_of(box)->flags & PX_FRICTION_KEEPS_DISC);
	cr_assert_not(ops_of(ellipsoid)->flags & PX_FRICTION_KEEPS_DISC);
	for (size_t i = 0; i < sizeof radii / sizeof *radii; i++)
		for (int k = -64; k <= 64; k++)
			for (int a = 0; a < 16; a++) {
				const double rad = radii[i];
				const double len = rad * (1.0 + k * 0x1p-52) +
						   (k == 64 ? rad * 0x1p-40 : 0.0);
				double th, z[2], ref[2];
				int sure;

				state = state * 6364136223846793005u +
					1442695040888963407u;
				th = 6.283185307179586 *
				     (double)(state >> 11) * 0x1p-53;
				z[0] = ref[0] = len * cos(th);
				z[1] = ref[1] = len * sin(th);
				sure = px_disc_surely_inside(z[0], z[1], rad);
				if (sure)
					cr_assert_leq(hypot(z[0], z[1]), rad);
				disc_reference(rad, ref);
				proj(disc, &fp, rad, z, 2);
				cr_assert(memcmp(z, ref, sizeof z) == 0,
					  "rad %g, k %d: (%a, %a) against (%a, %a)",
					  rad, k, z[0], z[1], ref[0], ref[1]);
				if (sure)
					cr_assert(z[0] == len * cos(th) &&
						  z[1] == len * sin(th));
				inside += sure;
			}
	/* well inside, at ordinary magnitudes: surely inside */
	cr_assert(px_disc_surely_inside(0.6, 0.8, 1.0 + 0x1p-40));
	cr_assert(px_disc_surely_inside(0.0, 0.0, 1e-150));
	cr_assert_gt(inside, 0);
	/* undecidable without a square root, or not a number: the call */
	cr_assert_not(px_disc_surely_inside(0.6, 0.8, 1.0));
	cr_assert_not(px_disc_surely_inside(0.0, 0.0, 0.0));
	cr_assert_not(px_disc_surely_inside(0.0, 0.0, 1e-160));
	cr_assert_not(px_disc_surely_inside(1.0, 0.0, 1e160));
	cr_assert_not(px_disc_surely_inside(1.0, 0.0, INFINITY));
	cr_assert_not(px_disc_surely_inside(NAN, 0.0, 1.0));
	cr_assert_not(px_disc_surely_inside(0.0, 0.0, NAN));
}

/* PX_FRICTION_IS_DISC (ABI 1.6): disc declares it, and px_disc_project is
 * the reference projection bit for bit, also at radius 0 (every contact
 * without a normal impulse), where it skips hypot: zeros of either sign,
 * subnormal, huge, infinite and NaN components, radii +0 and -0, tiny,
 * ordinary, huge, infinite and NaN; and it is what disc's project gives,
 * also for the friction of the normal impulses 0, 1 and 1e-300 with
 * mu = 0.5. */
Test(friction, is_disc_is_the_reference_projection)
{
	static const double v[] = {0.0,    -0.0,   0x1p-1074, -0x1p-1074,
				   1e-300, -0.75,  1.0,       3.0,
				   1e300,  -1e308, DBL_MAX,   INFINITY,
				   -INFINITY, NAN};
	static const double radii[] = {0.0, -0.0, 0x1p-1074, 0.5, 1e300,
				       INFINITY, NAN};
	const size_t nv = sizeof v / sizeof *v;
	struct px_friction_params fp = {0.5, 0.5, 0.5, 0};

	cr_assert(ops_of(disc)->flags & PX_FRICTION_IS_DISC);
	cr_assert_not(ops_of(box)->flags & PX_FRICTION_IS_DISC);
	cr_assert_not(ops_of(ellipsoid)->flags & PX_FRICTION_IS_DISC);
	for (size_t i = 0; i < nv; i++)
		for (size_t j = 0; j < nv; j++) {
			for (size_t r = 0; r < sizeof radii / sizeof *radii; r++) {
				double z[2] = {v[i], v[j]}, ref[2] = {v[i], v[j]};

				px_disc_project(z, radii[r]);
				disc_reference(radii[r], ref);
				cr_assert(memcmp(z, ref, sizeof z) == 0,
					  "rad %a: (%a, %a) gives (%a, %a), the reference (%a, %a)",
					  radii[r], v[i], v[j], z[0], z[1],
					  ref[0], ref[1]);
			}
			for (int k = 0; k < 3; k++) {
				const double ln = k == 0 ? 0.0 : k == 1 ? 1.0 : 1e-300;
				double z[3] = {v[i], v[j], 7.0},
				       ref[2] = {v[i], v[j]};

				px_disc_project(ref, fp.mu * ln);
				proj(disc, &fp, ln, z, 2);
				cr_assert(memcmp(z, ref, sizeof ref) == 0 &&
						  z[2] == 7.0,
					  "lambda_n %g: (%a, %a)", ln, v[i], v[j]);
			}
		}
}

/* ---- all three sets ------------------------------------------------------ */

Test(friction, projections_are_optimal)
{
	struct px_plugin *const sets[] = {disc, box, ellipsoid};
	struct rng r = {0x2545f4914f6cdd1dull};

	cr_assert_eq(ops_of(box)->flags & PX_FRICTION_SEPARABLE,
		     PX_FRICTION_SEPARABLE,
		     "the box is a product of intervals");
	cr_assert_eq(ops_of(ellipsoid)->flags & PX_FRICTION_SEPARABLE, 0);
	for (int k = 0; k < 3; k++) {
		double worst = -INFINITY;

		for (int i = 0; i < 4000; i++) {
			struct trial t = random_trial(&r);
			struct set s = set_of(sets[k], &t.fp, t.ln, t.nf, 0);

			worst = fmax(worst, check_projection(sets[k], &s, &t.fp,
							     t.ln, t.z, NULL,
							     &r, 1e-12));
		}
		cr_log_info("%s: largest VI / size^2 %g",
			    px_plugin_header(sets[k])->name, worst);
	}
}

Test(friction, metric_projections_are_optimal)
{
	struct px_plugin *const sets[] = {disc, box, ellipsoid};
	struct rng r = {0x853c49e6748fea9bull};

	for (int k = 0; k < 3; k++) {
		double worst = -INFINITY, kkt = 0;

		cr_assert_not_null(ops_of(sets[k])->project_metric);
		for (int i = 0; i < 3000; i++) {
			struct trial t = random_trial(&r);
			struct set s = set_of(sets[k], &t.fp, t.ln, t.nf, 0);
			double x[3];

			worst = fmax(worst, check_projection(sets[k], &s, &t.fp,
							     t.ln, t.z, t.g,
							     &r, 1e-12));
			if (in_set(&s, t.z, 0))
				continue;
			memcpy(x, t.z, sizeof x);
			proj_g(sets[k], &t.fp, t.ln, t.g, x, t.nf);
			kkt = fmax(kkt, kkt_residual(&s, t.g, t.z, x));
			cr_assert_leq(kkt, 1e-12,
				      "%s: KKT residual %g, z = %a %a %a",
				      px_plugin_header(sets[k])->name, kkt,
				      t.z[0], t.z[1], t.z[2]);
		}
		cr_log_info("%s metric: largest VI / (size^2 |g|) %g, KKT %g",
			    px_plugin_header(sets[k])->name, worst, kkt);
	}
}

Test(friction, metric_with_identity_is_project)
{
	struct px_plugin *const sets[] = {disc, box, ellipsoid};
	struct rng r = {0xda3e39cb94b95bdbull};

	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < 2000; i++) {
			struct trial t = random_trial(&r);
			struct set s = set_of(sets[k], &t.fp, t.ln, t.nf, 0);
			const double c = pow(10, uniform(&r, -6, 6));
			double x[3], xg[3], xp[3], g[9] = {0};

			for (uint32_t j = 0; j < t.nf; j++)
				g[j * t.nf + j] = i % 2 ? c : 1.0;
			memcpy(x, t.z, sizeof x);
			memcpy(xg, t.z, sizeof x);
			proj(sets[k], &t.fp, t.ln, x, t.nf);
			proj_g(sets[k], &t.fp, t.ln, g, xg, t.nf);
			cr_assert(memcmp(x, xg, t.nf * sizeof *x) == 0,
				  "g = %g I differs from project", g[0]);
			/* off the I shortcut: the general path, 1e-13 away */
			g[1] = g[t.nf] = 1e-13 * g[0];
			memcpy(xp, t.z, sizeof x);
			proj_g(sets[k], &t.fp, t.ln, g, xp, t.nf);
			for (uint32_t j = 0; j < t.nf; j++)
				cr_assert_leq(fabs(xp[j] - x[j]),
					      1e-9 * size_of(&s, t.z),
					      "%s row %u: %.17g vs %.17g",
					      px_plugin_header(sets[k])->name,
					      j, xp[j], x[j]);
		}
	}
}

/* ---- ellipsoid ----------------------------------------------------------- */

/* project agrees with ref_closest row by row to 1e-9 of its semi-axis
 * (in practice ~1e-14; rows of zero semi-axis exactly). */
static void check_against_ref(const struct px_plugin *pl, const struct set *s,
			      const struct px_friction_params *fp, double ln,
			      const double *z)
{
	double x[3], ref[3];

	memcpy(x, z, sizeof x);
	proj(pl, fp, ln, x, s->nf);
	ref_closest(s->b, z, s->nf, ref);
	for (uint32_t i = 0; i < s->nf; i++)
		cr_assert_leq(fabs(x[i] - ref[i]), 1e-9 * s->b[i],
			      "row %u: %.17g, reference %.17g (z = %g %g %g, "
			      "b = %g %g %g)",
			      i, x[i], ref[i], z[0], z[1], s->nf > 2 ? z[2] : 0,
			      s->b[0], s->b[1], s->b[2]);
}

Test(friction, ellipsoid_matches_independent_closest_point)
{
	struct rng r = {0x6a09e667f3bcc909ull};

	for (int i = 0; i < 3000; i++) {
		struct trial t = random_trial(&r);
		struct set s = set_of(ellipsoid, &t.fp, t.ln, t.nf, 0);

		check_against_ref(ellipsoid, &s, &t.fp, t.ln, t.z);
	}
}

Test(friction, ellipsoid_degenerate_cases)
{
	/* semi-axes (1, 2, 3) unless said otherwise: mu_s, mu_t, mu_tau */
	const struct px_friction_params fp = {1, 1, 2, 3};
	const struct px_friction_params flat = {1, 1, 1e-8, 1e-8};
	const struct px_friction_params needle = {1, 1e-8, 1e-8, 1};
	const struct {
		const struct px_friction_params *fp;
		double ln, z[3], x[3]; /* expected x, NAN: see the reference */
	} c[] = {
		{&fp, 0, {3, -4, 5}, {0, 0, 0}},        /* lambda_n = 0 */
		{&fp, 1, {0, 0, 0}, {0, 0, 0}},         /* z = 0 */
		{&fp, 1, {5, 0, 0}, {1, 0, 0}},         /* on the axes */
		{&fp, 1, {-5, 0, 0}, {-1, 0, 0}},
		{&fp, 1, {0, 7, 0}, {0, 2, 0}},
		{&fp, 1, {0, 0, -1e6}, {0, 0, -3}},
		{&fp, 1, {0.5, 1, 1.5}, {0.5, 1, 1.5}}, /* inside */
		{&fp, 1e-12, {3e-12, 3e-12, 3e-12}, {NAN}},
		{&fp, 1e12, {3e12, -3e12, 9e12}, {NAN}},
		{&fp, 1e-12, {1e12, -1e12, 1e12}, {NAN}},
		{&fp, 1e12, {1e-12, 1e-12, 1e-12}, {1e-12, 1e-12, 1e-12}},
		{&flat, 1, {2, 0, 1}, {NAN}},           /* a disc of 1e-8 */
		{&flat, 1, {0.5, 0.5, 1}, {NAN}},       /* above the face */
		{&flat, 1, {0, 0, 1}, {0, 0, 1e-8}},
		{&flat, 1e-12, {1e-12, 1e-13, 1e-12}, {NAN}},
		{&needle, 1, {0.5, 3, 0}, {NAN}},       /* a needle of 1e-8 */
		{&needle, 1, {2, 1e-9, 1e-9}, {NAN}},
		{&needle, 1e12, {3e11, 5e11, 1e4}, {NAN}},
	};

	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
		struct set s = set_of(ellipsoid, c[k].fp, c[k].ln, 3, 0);
		double x[3] = {c[k].z[0], c[k].z[1], c[k].z[2]};

		check_against_ref(ellipsoid, &s, c[k].fp, c[k].ln, c[k].z);
		proj(ellipsoid, c[k].fp, c[k].ln, x, 3);
		if (isnan(c[k].x[0]))
			continue;
		for (int i = 0; i < 3; i++)
			cr_assert_leq(fabs(x[i] - c[k].x[i]),
				      4e-16 * fabs(c[k].x[i]),
				      "case %zu row %d: %.17g, expected %.17g",
				      k, i, x[i], c[k].x[i]);
	}
}

/* With mu_s = mu_t and no torsion the ellipsoid is the disc, bit for bit,
 * in project and in project_metric. */
Test(friction, ellipsoid_circle_is_disc)
{
	struct rng r = {0xbb67ae8584caa73bull};

	for (int i = 0; i < 5000; i++) {
		struct trial t = random_trial(&r);
		const double mu = t.fp.mu;
		struct px_friction_params fp = {mu, mu, mu, 0};
		double xd[3], xe[3];

		memcpy(xd, t.z, sizeof xd);
		memcpy(xe, t.z, sizeof xe);
		proj(disc, &fp, t.ln, xd, t.nf);
		proj(ellipsoid, &fp, t.ln, xe, t.nf);
		cr_assert(memcmp(xd, xe, t.nf * sizeof *xd) == 0,
			  "project: disc %.17g %.17g, ellipsoid %.17g %.17g",
			  xd[0], xd[1], xe[0], xe[1]);
		memcpy(xd, t.z, sizeof xd);
		memcpy(xe, t.z, sizeof xe);
		proj_g(disc, &fp, t.ln, t.g, xd, t.nf);
		proj_g(ellipsoid, &fp, t.ln, t.g, xe, t.nf);
		cr_assert(memcmp(xd, xe, t.nf * sizeof *xd) == 0,
			  "project_metric: disc and ellipsoid differ");
	}
}

/* The parameter mu_tau serves contacts whose mu_tau is 0. */
Test(friction, ellipsoid_torsion_parameter)
{
	const struct px_setting set = {"mu_tau", "0.5", NULL, 0};
	struct px_plugin *spin = load("ellipsoid", &set, 1, NULL);
	struct px_friction_params one_mu = {0.4, 0.4, 0.4, 0};
	struct px_friction_params own = {0.4, 0.4, 0.4, 0.1};
	const struct set s1 = {1, 3, {0.8, 0.8, 1.0}};
	const struct set s2 = {1, 3, {0.8, 0.8, 0.2}};
	const double z[3] = {0.1, -0.1, 7};
	double x[3] = {0.1, -0.1, 7};

	check_against_ref(spin, &s1, &one_mu, 2, z);
	/* the problem's own mu_tau wins */
	check_against_ref(spin, &s2, &own, 2, z);
	proj(ellipsoid, &one_mu, 2, x, 3); /* default mu_tau = 0: no spin */
	cr_assert(x[0] == 0.1 && x[1] == -0.1 && x[2] == 0);
	px_plugin_unload(spin);
}

/* ---- box ----------------------------------------------------------------- */

Test(friction, box_clamps_each_row)
{
	const struct px_setting set = {"mu_tau", "0.05", NULL, 0};
	struct px_plugin *spin = load("box", &set, 1, NULL);
	const struct px_friction_params one_mu = {0.5, 0.5, 0.5, 0};
	const struct px_friction_params aniso = {0.5, 0.25, 0, 0.1};
	double z[3] = {3, -0.5, -7}, x[3];

	memcpy(x, z, sizeof x);
	proj(box, &one_mu, 2, x, 3); /* [-1, 1] each, no torsion by default */
	cr_assert(x[0] == 1 && x[1] == -0.5 && x[2] == 0);
	memcpy(x, z, sizeof x);
	proj(spin, &one_mu, 2, x, 3); /* the plugin's mu_tau */
	cr_assert(x[0] == 1 && x[1] == -0.5 && x[2] == -0.1);
	memcpy(x, z, sizeof x);
	proj(spin, &aniso, 2, x, 3); /* mu_s, mu_t = 0 -> mu, the own mu_tau */
	cr_assert(x[0] == 0.5 && x[1] == -0.5 && x[2] == -0.2);
	memcpy(x, z, sizeof x);
	proj(box, &one_mu, 0, x, 2); /* lambda_n = 0: no friction */
	cr_assert(x[0] == 0 && x[1] == 0 && x[2] == -7);
	px_plugin_unload(spin);
}

/* Catto 2005, eq. 24-25: the tangential rows bounded by a constant whatever the
 * normal impulse; the torsional row keeps mu_tau lambda_n. */
Test(friction, box_constant_bound_is_catto)
{
	const struct px_setting set[] = {{"bound", "constant", NULL, 0},
					 {"limit", "0.25", NULL, 0},
					 {"mu_tau", "0.1", NULL, 0}};
	struct px_plugin *catto = load("box", set, 3, NULL);
	const struct px_friction_params fp = {0.5, 0.5, 0.5, 0};
	const double ln[] = {0, 1e-12, 1, 1e12};
	struct rng r = {0x3c6ef372fe94f82bull};

	for (size_t k = 0; k < sizeof ln / sizeof ln[0]; k++) {
		double x[3] = {1, -0.1, -7};

		proj(catto, &fp, ln[k], x, 3);
		cr_assert(x[0] == 0.25 && x[1] == -0.1,
			  "lambda_n = %g: %g %g", ln[k], x[0], x[1]);
		cr_assert_float_eq(x[2], fmax(-0.1 * ln[k], -7), 1e-15 * ln[k]);
	}
	for (int i = 0; i < 500; i++) {
		struct trial t = random_trial(&r);
		struct set s = {0, t.nf, {0.25, 0.25, 0.1 * t.ln}};

		check_projection(catto, &s, &fp, t.ln, t.z, NULL, &r, 1e-12);
		check_projection(catto, &s, &fp, t.ln, t.z, t.g, &r, 1e-12);
	}
	px_plugin_unload(catto);
}

static void box_refused(const struct px_setting *set, size_t n,
			const char *why)
{
	struct px_error err;
	char msg[1024];

	load("box", set, n, &err);
	snprintf(msg, sizeof msg, "%s/friction_box.so: create failed: %s",
		 PX_PLUGIN_BUILD_DIR, why);
	cr_assert_str_eq(err.msg, msg);
}

Test(friction, box_refuses_a_missing_or_stray_limit)
{
	const struct px_setting constant = {"bound", "constant", NULL, 0};
	const struct px_setting negative[] = {constant,
					      {"limit", "-0.5", NULL, 0}};
	const struct px_setting stray = {"limit", "0.5", NULL, 0};

	box_refused(&constant, 1,
		    "bound = constant needs limit, the constant friction bound (an impulse >= 0, Catto 2005, eq. 24-25); found limit = -1 (unset)");
	box_refused(negative, 2,
		    "bound = constant needs limit, the constant friction bound (an impulse >= 0, Catto 2005, eq. 24-25); found limit = -0.5");
	box_refused(&stray, 1,
		    "limit = 0.5 is only used with bound = constant (bound is proportional)");
}

/* ---- all sets: degenerate metrics and extreme inputs --------------------- */

/* A g that is not SPD (singular, indefinite, not finite) gives the
 * Euclidean projection. */
Test(friction, metric_falls_back_when_not_spd)
{
	struct px_plugin *const sets[] = {disc, box, ellipsoid};
	const double bad[][9] = {
		{1, 1, 0, 1, 1, 0, 0, 0, 1},   /* singular */
		{1, 2, 0, 2, 1, 0, 0, 0, 1},   /* indefinite */
		{0, 0, 0, 0, 0, 0, 0, 0, 0},   /* zero */
		{-1, 0, 0, 0, -1, 0, 0, 0, -1}, /* negative */
		{1, 0, 0, 0, INFINITY, 0, 0, 0, 1},
		{1, 0, 0, 0, NAN, 0, 0, 0, 1},
	};
	const struct px_friction_params fp = {0.5, 0.3, 0.7, 0.2};

	for (int k = 0; k < 3; k++)
		for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
			double x[3] = {3, -2, 1}, xg[3] = {3, -2, 1};

			proj(sets[k], &fp, 1.5, x, 3);
			proj_g(sets[k], &fp, 1.5, bad[b], xg, 3);
			cr_assert(memcmp(x, xg, sizeof x) == 0, "%s, metric %zu",
				  px_plugin_header(sets[k])->name, b);
		}
}

/* Huge, tiny and mixed magnitudes: finite, in the set, never NaN. */
Test(friction, extreme_inputs_stay_finite)
{
	struct px_plugin *const sets[] = {disc, box, ellipsoid};
	const double mag[] = {0, 1e-300, 1e-12, 1, 1e12, 1e300};
	const double mu[][3] = {{0.5, 0.5, 0}, {1, 1e-8, 0.3}, {2, 0.1, 1e-8}};
	struct rng r = {0xa54ff53a5f1d36f1ull};

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 3000; i++) {
			const struct px_friction_params fp = {
				mu[i % 3][0], mu[i % 3][0], mu[i % 3][1],
				mu[i % 3][2]};
			const double ln = mag[(int)uniform(&r, 0, 6)];
			const uint32_t nf = i % 2 ? 3 : 2;
			struct set s = set_of(sets[k], &fp, ln, nf, 0);
			double z[3], x[3], g[9];

			for (uint32_t j = 0; j < nf; j++)
				z[j] = mag[(int)uniform(&r, 0, 6)] *
				       (uniform(&r, 0, 1) < 0.5 ? -1 : 1);
			random_metric(&r, nf, g);
			memcpy(x, z, sizeof x);
			proj(sets[k], &fp, ln, x, nf);
			cr_assert(in_set(&s, x, 1e-12), "%s: z = %a %a %a",
				  px_plugin_header(sets[k])->name, z[0], z[1],
				  nf > 2 ? z[2] : 0);
			memcpy(x, z, sizeof x);
			proj_g(sets[k], &fp, ln, g, x, nf);
			cr_assert(in_set(&s, x, 1e-12), "%s metric: z = %a %a %a",
				  px_plugin_header(sets[k])->name, z[0], z[1],
				  nf > 2 ? z[2] : 0);
		}
}
