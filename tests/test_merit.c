/* The merit functions on the one-contact problem of the shared data
 * (W = [[15,-1,-2],[-1,14,1],[-2,1,16]], q = (-1,2,3), mu = 0.1), by hand:
 * at lambda = 0, v = q, so
 *   natural (r_c = 1, disc): prox(-q) = (1, 0.1 (-2,-3)/sqrt 13), value
 *     1/2 (1 + 0.01) = 0.505;
 *   minmap: H = (0 - mid(0, 1, inf), 0 - mid(0, -2, 0), 0 - mid(0, -3, 0))
 *     = (-1, 0, 0), value 0.5;
 * and at the solution of the box model all three vanish. The merits are
 * private to libproxima, so their sources are compiled in. */
#include <criterion/criterion.h>
#include <math.h>

#include <proxima/proxima.h>

#include "merit.h"
#include "one_contact.h"

static void disc(const void *state, const struct px_friction_params *fp,
		 double lambda_n, double *z, uint32_t nf)
{
	double len = hypot(z[0], z[1]), rad = fp->mu * lambda_n;

	(void)state;
	(void)nf;
	if (len > rad) {
		z[0] *= rad / len;
		z[1] *= rad / len;
	}
}


Test(merit, values_at_zero)
{
	struct px_problem *p = shared_one_contact();
	double lambda[3] = {0}, u[3];

	cr_assert_float_eq(px_merit_natural_ws(p, lambda, u, 1.0, disc, NULL),
			   0.505, 1e-15);
	cr_assert_float_eq(px_merit_minmap_ws(p, lambda, u), 0.5, 1e-15);
	px_problem_destroy(p);
}

/* The box-model solution of the one-contact problem: the normal row alone
 * gives lambda_n; then s and t sit at their bounds -mu lambda_n (both
 * friction velocities are positive with lambda_f = 0 and stay so). It
 * satisfies the box model exactly, not the disc: minmap is 0, natural with
 * the disc set is not. */
Test(merit, minmap_vanishes_at_box_solution)
{
	struct px_problem *p = shared_one_contact();
	double lambda[3], u[3], ln;

	/* with lambda_f = -0.1 ln (1, 1): v_n = 15 ln + 0.1 ln + 0.2 ln - 1 = 0 */
	ln = 1.0 / 15.3;
	lambda[0] = ln, lambda[1] = -0.1 * ln, lambda[2] = -0.1 * ln;
	px_problem_apply(p, lambda, u, 1);
	cr_assert_float_eq(u[0], 0.0, 1e-15);
	cr_assert_gt(u[1], 0.0);
	cr_assert_gt(u[2], 0.0);
	cr_assert_lt(px_merit_minmap_ws(p, lambda, u), 1e-30);
	cr_assert_gt(px_merit_natural_ws(p, lambda, u, 1.0, disc, NULL), 1e-6);
	px_problem_destroy(p);
}

/* An iterate so large that the sums of squares overflow has an unknown
 * error, not 0 (inf / inf): a diverged Jacobi run once stopped as
 * "converged" on it. */
Test(merit, fc3d_of_an_overflowing_iterate_is_infinite)
{
	struct px_problem *p = shared_one_contact();
	const double huge[3] = {1e160, -2e159, 1e159};
	double abs_f;

	cr_assert(isinf(px_merit_fc3d(p, huge, &abs_f)));
	cr_assert_gt(abs_f, 1e150);
	px_problem_destroy(p);
}
