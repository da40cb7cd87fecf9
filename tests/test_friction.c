/* Friction sets: the projection lies in the set, is idempotent, and
 * satisfies the variational inequality (y - x).(z - x) <= 0 for every y in
 * the set (x = P(z)), the optimality condition of a Euclidean projection. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include <proxima/proxima.h>

struct rng {
	uint64_t s;
};

/* xorshift64*: a test's own deterministic generator. */
static double uniform(struct rng *r, double lo, double hi)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return lo + (hi - lo) * (double)((r->s * 2685821657736338717ull) >> 11) *
			    0x1.0p-53;
}

static struct px_plugin *disc;
static const struct px_friction_ops *ops;

static void load_disc(void)
{
	struct px_error err = {0};

	cr_assert_eq(px_plugin_load(PX_KIND_FRICTION, "disc", NULL, 0, &disc,
				    &err),
		     PX_OK, "%s", err.msg);
	ops = (const void *)px_plugin_header(disc);
}

static void unload_disc(void)
{
	px_plugin_unload(disc);
}

static void project(double mu, double ln, double *z, uint32_t nf)
{
	struct px_friction_params fp = {mu, mu, mu, 0};

	ops->project(px_plugin_state(disc), &fp, ln, z, nf);
}

TestSuite(friction, .init = load_disc, .fini = unload_disc);

Test(friction, disc_projection_is_optimal)
{
	struct rng r = {0x9e3779b97f4a7c15ull};

	cr_assert_eq(ops->flags & PX_FRICTION_SEPARABLE, 0,
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
