/* Exact local solves ([solver] local_solve = newton, issue 20): the
 * one-contact Newton satisfies the contact law to tolerance on random
 * blocks (separation, sticking, sliding), and the driver with it solves
 * real problems with every ordering and the colored scheduler, and refuses
 * friction sets it does not support. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "oracle.h"
#include "../core/kernel.h"

/* Uniform in [lo, hi) from a fixed linear congruential sequence. */
static double uniform(unsigned long *s, double lo, double hi)
{
	*s = *s * 6364136223846793005ul + 1442695040888963407ul;
	return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

/* A random diagonal block D = J J^T + 1e-3 I (SPD, coupled), its first
 * row of J scaled by `scale` (badly scaled at times), and a velocity v0
 * whose friction part is 0.3 of its normal part's range. */
static void random_block(unsigned long *s, double scale, double *D,
			 double *v0)
{
	double J[9];

	for (int i = 0; i < 9; i++)
		J[i] = uniform(s, -1, 1) * (i < 3 ? scale : 1.0);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			D[3 * i + j] = 0.0;
			for (int k = 0; k < 3; k++)
				D[3 * i + j] += J[3 * i + k] * J[3 * j + k];
		}
	for (int i = 0; i < 3; i++) {
		D[4 * i] += 1e-3;
		v0[i] = uniform(s, -1, 1) * (i ? 0.3 : 1.0);
	}
}

/* The Coulomb law of one contact at x, u = v0 + D (x - lam0), to tol
 * relative to the scales of x and u: the number of violations. */
static int law_violations(const double *D, const double *v0,
			  const double *lam0, double mu, const double *x,
			  double tol)
{
	double u[3], sl, su;
	int bad = 0;

	for (int i = 0; i < 3; i++)
		u[i] = v0[i] + D[3 * i] * (x[0] - lam0[0]) +
		       D[3 * i + 1] * (x[1] - lam0[1]) +
		       D[3 * i + 2] * (x[2] - lam0[2]);
	sl = fmax(1e-300, fmax(fabs(x[0]), hypot(x[1], x[2])));
	su = fmax(fabs(u[0]), hypot(u[1], u[2])) +
	     fmax(fabs(v0[0]), hypot(v0[1], v0[2]));
	bad += x[0] < 0.0;
	bad += u[0] < -tol * su;
	bad += fabs(x[0] * u[0]) > tol * sl * su;
	bad += hypot(x[1], x[2]) > mu * x[0] * (1 + tol) + tol * sl;
	if (hypot(u[1], u[2]) > tol * su) { /* sliding: opposes u_f */
		const double vf = hypot(u[1], u[2]);

		bad += hypot(x[1] + mu * x[0] * u[1] / vf,
			     x[2] + mu * x[0] * u[2] / vf) > tol * sl;
	}
	return bad;
}

Test(local, newton_meets_the_contact_law_on_random_blocks)
{
	unsigned long s = 20;
	int sliding = 0, sticking = 0, open = 0;

	for (int c = 0; c < 2000; c++) {
		double D[9], v0[3], lam0[3] = {0, 0, 0}, x[3];
		const double mu = uniform(&s, 0.05, 1.5);
		const double scale = uniform(&s, 0.2, 5.0);

		random_block(&s, scale, D, v0);
		memcpy(x, lam0, sizeof x);
		px_local_newton(D, v0, lam0, mu, PX_PART_FULL, 1e-13, 0.0, 50,
				x);
		cr_assert_eq(law_violations(D, v0, lam0, mu, x, 1e-8), 0,
			     "case %d: x = (%g, %g, %g)", c, x[0], x[1], x[2]);
		if (x[0] == 0.0)
			open++;
		else if (hypot(x[1], x[2]) < mu * x[0] * (1 - 1e-9))
			sticking++;
		else
			sliding++;
	}
	/* the cases cover the three branches of the law */
	cr_log_info("open %d, sticking %d, sliding %d", open, sticking,
		    sliding);
	cr_assert_gt(open, 100);
	cr_assert_gt(sticking, 100);
	cr_assert_gt(sliding, 100);
}

/* The closed form answers exactly where it answers (open, sticking: the
 * law to rounding), leaves out untouched where it declines, and declines
 * only where the Newton's answer slides: it misses no open or sticking
 * contact on SPD blocks. With D^-1 from px_local_inverse (D D^-1 = I to
 * rounding) it gives the same verdicts and, to rounding, the same x as
 * with the elimination. */
Test(local, closed_form_is_exact_and_declines_only_sliding)
{
	unsigned long s = 21;
	int open = 0, sticking = 0, declined = 0;

	for (int c = 0; c < 2000; c++) {
		double D[9], inv[9], v0[3], lam0[3], x[3], xi[3];
		const double mu = uniform(&s, 0.05, 1.5);
		int answered;

		random_block(&s, 1.0, D, v0);
		for (int i = 0; i < 3; i++)
			lam0[i] = uniform(&s, 0, 1) * (i ? 0.2 : 1.0);
		cr_assert(px_local_inverse(D, inv));
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				cr_assert(fabs(D[3 * i] * inv[j] +
					       D[3 * i + 1] * inv[3 + j] +
					       D[3 * i + 2] * inv[6 + j] -
					       (i == j)) < 1e-10,
					  "case %d: (D D^-1)_%d%d", c, i, j);
		x[0] = x[1] = x[2] = 7.0;
		xi[0] = xi[1] = xi[2] = 7.0;
		answered = px_local_closed_form(D, NULL, v0, lam0, mu, x);
		cr_assert_eq(px_local_closed_form(D, inv, v0, lam0, mu, xi),
			     answered, "case %d", c);
		for (int i = 0; i < 3; i++)
			cr_assert(fabs(xi[i] - x[i]) <=
					  1e-10 * (1 + fabs(x[0])),
				  "case %d: x_%d %.17g with D^-1, %.17g", c,
				  i, xi[i], x[i]);
		if (answered) {
			cr_assert_eq(law_violations(D, v0, lam0, mu, x, 1e-12),
				     0, "case %d: x = (%g, %g, %g)", c, x[0],
				     x[1], x[2]);
			cr_assert_eq(law_violations(D, v0, lam0, mu, xi, 1e-12),
				     0, "case %d: x = (%g, %g, %g) with D^-1",
				     c, xi[0], xi[1], xi[2]);
			if (x[0] == 0.0)
				open++;
			else
				sticking++;
			continue;
		}
		cr_assert(x[0] == 7.0 && x[1] == 7.0 && x[2] == 7.0);
		memcpy(x, lam0, sizeof x);
		px_local_newton(D, v0, lam0, mu, PX_PART_FULL, 1e-13, 0.0, 50,
				x);
		cr_assert_eq(law_violations(D, v0, lam0, mu, x, 1e-8), 0);
		cr_assert(x[0] > 0.0 &&
				  hypot(x[1], x[2]) >= mu * x[0] * (1 - 1e-9),
			  "case %d declined, Newton: x = (%g, %g, %g)", c,
			  x[0], x[1], x[2]);
		declined++;
	}
	cr_log_info("open %d, sticking %d, declined %d", open, sticking,
		    declined);
	{ /* a rank-one block has no inverse */
		const double D[9] = {1, 2, 3, 2, 4, 6, 3, 6, 9};
		double inv[9];

		cr_assert_not(px_local_inverse(D, inv));
	}
	cr_assert_gt(open, 100);
	cr_assert_gt(sticking, 100);
	cr_assert_gt(declined, 100);
}

/* local_forcing on sliding contacts (the others end in the closed form):
 * a visit may stop once its residual is at most forcing times its change
 * to the impulse, so from a far start it may stop short of the solution
 * x*, but from a start near x* (the sweeps settling) its error is at
 * most forcing times the start's distance (7e-5 times at most here: the
 * Newton step it takes converges quadratically). Each one-contact problem
 * is kept (its velocity at 0, q = v0 - D lam0) as the start moves. */
Test(local, forcing_is_exact_as_the_change_vanishes)
{
	unsigned long s = 22;
	int stopped_short = 0, sliding = 0;
	double worst = 0.0;

	for (int c = 0; c < 2000; c++) {
		double D[9], q[3], v0[3], lam0[3] = {0, 0, 0}, xs[3], x[3];
		const double mu = uniform(&s, 0.05, 1.5);
		double dist = 0.0, err = 0.0;

		random_block(&s, 1.0, D, q);
		if (px_local_closed_form(D, NULL, q, lam0, mu, xs))
			continue; /* open or sticking: no Newton, no forcing */
		memcpy(xs, lam0, sizeof xs); /* x* exactly, from 0 */
		px_local_newton(D, q, lam0, mu, PX_PART_FULL, 1e-13, 0.0, 50,
				xs);
		memcpy(x, lam0, sizeof x); /* from 0 with forcing 0.5 */
		px_local_newton(D, q, lam0, mu, PX_PART_FULL, 1e-13, 0.5, 50,
				x);
		cr_assert_eq(law_violations(D, q, lam0, mu, xs, 1e-8), 0,
			     "case %d", c);
		sliding++;
		stopped_short += hypot(x[0] - xs[0], hypot(x[1] - xs[1],
							  x[2] - xs[2])) >
				 1e-9 * (1 + xs[0]);
		/* a start 1e-6 (relative) off x*, the velocity it gives */
		for (int i = 0; i < 3; i++) {
			lam0[i] = xs[i] +
				  1e-6 * (1 + xs[0]) * uniform(&s, -1, 1);
			dist = fmax(dist, fabs(lam0[i] - xs[i]));
		}
		for (int i = 0; i < 3; i++)
			v0[i] = q[i] + D[3 * i] * lam0[0] +
				D[3 * i + 1] * lam0[1] + D[3 * i + 2] * lam0[2];
		memcpy(x, lam0, sizeof x);
		px_local_newton(D, v0, lam0, mu, PX_PART_FULL, 1e-13, 0.1, 50,
				x);
		for (int i = 0; i < 3; i++)
			err = fmax(err, fabs(x[i] - xs[i]));
		cr_assert_leq(err, 0.1 * dist,
			      "case %d: %g from x*, started %g from it", c,
			      err, dist);
		worst = fmax(worst, err / dist);
	}
	cr_log_info("sliding %d, forcing 0.5 from 0 stopped short on %d; from near x*, forcing 0.1 ends at most %.3g times the start's distance from x*",
		    sliding, stopped_short, worst);
	cr_assert_gt(sliding, 100);
	cr_assert_gt(stopped_short, sliding / 2); /* it does stop early */
}

Test(local, newton_sticking_closed_form)
{
	/* D = I, v0 = (-1, 0.1, 0), mu = 1: lambda = (1, -0.1, 0), u = 0 */
	const double D[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	const double v0[3] = {-1, 0.1, 0}, lam0[3] = {0, 0, 0};
	double x[3] = {0, 0, 0};

	px_local_newton(D, v0, lam0, 1.0, PX_PART_FULL, 1e-14, 0.0, 20, x);
	cr_assert_float_eq(x[0], 1.0, 1e-14);
	cr_assert_float_eq(x[1], -0.1, 1e-14);
	cr_assert_float_eq(x[2], 0.0, 1e-14);
}

Test(local, newton_normal_part_is_the_exact_row)
{
	const double D[9] = {2, 0.5, 0, 0.5, 1, 0, 0, 0, 1};
	const double v0[3] = {-3, 0, 0}, lam0[3] = {0.5, 0, 0};
	double x[3] = {0.5, 0, 0};

	px_local_newton(D, v0, lam0, 1.0, PX_PART_NORMAL, 0.0, 0.0, 0, x);
	cr_assert_float_eq(x[0], 2.0, 1e-15); /* 0.5 + 3 / 2 */
}

static double solve_with(const char *file, const char *ini, int *converged)
{
	char path[4096];
	struct px_config *cfg = config_from_text(ini);
	struct px_problem *p;
	struct px_report rep;
	struct px_error err = {0};
	double *lambda, e;

	cr_assert_eq(px_dat_read(shared_problem(file, path, sizeof path), &p,
				 &err),
		     PX_OK, "%s", err.msg);
	lambda = calloc(px_problem_n_contacts(p) * 3, sizeof *lambda);
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, &err), PX_OK, "%s",
		     err.msg);
	e = oracle_fc3d(p, lambda);
	*converged = rep.converged;
	/* Coulomb's law per contact (tests/oracle.h), relative to each
	 * contact's own scale: at fc3d < 1e-8 on NESpheres_10_1 the worst
	 * contact was within 8.5e-8 with every ordering */
	if (rep.converged)
		cr_assert_eq(oracle_contact_laws(p, lambda, 1e-6, 0.0, file), 0,
			     "%s: Coulomb's law violated (see above)", file);
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
	return e;
}

Test(local, one_contact_in_one_sweep)
{
	int conv;
	const double e = solve_with(
		"FrictionContact3D_1c.dat",
		"[solver]\nmerit = fc3d\nabs_tol = 1e-12\nmax_sweeps = 1\nlocal_solve = newton\n",
		&conv);

	cr_assert(conv);
	cr_assert_lt(e, 1e-12);
}

/* NESpheres_10_1 with staggered sweeps stalls at 6.5e-8 with projections
 * (issue 20); with exact local solves every ordering and the colored
 * scheduler reach 1e-8. */
Test(local, every_ordering_and_the_colored_scheduler)
{
	static const char *const variants[] = {
		"[ordering]\nplugin = identity\n",
		"[ordering]\nplugin = staggered\n",
		"[ordering]\nplugin = random\n",
		"[ordering]\nplugin = ipp\n",
		"[scheduler]\nplugin = colored\nthreads = 2\n",
	};

	for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
		char ini[512];
		int conv;
		double e;

		snprintf(ini, sizeof ini,
			 "[solver]\nmerit = fc3d\nabs_tol = 1e-8\nmax_sweeps = 20000\nlocal_solve = newton\n%s",
			 variants[i]);
		e = solve_with("NESpheres_10_1.dat", ini, &conv);
		cr_assert(conv, "%s: fc3d %g", variants[i], e);
		cr_assert_leq(e, 1e-8, "%s", variants[i]);
	}
}

/* A one-contact assembled problem with D = diag(2, 0.5, 0.5 + tilt) and
 * free velocity b, its contact sliding, sticking or open (by b); mu 0.5. */
static struct px_problem *one_contact(const double *b, double tilt)
{
	const size_t rowptr[] = {0, 1};
	const uint32_t cols[] = {0};
	const double D[9] = {2, 0, 0, 0, 0.5, 0, 0, 0, 0.5 + tilt};
	struct px_problem *p;

	cr_assert_eq(px_problem_create(1, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, D, NULL), PX_OK);
	memcpy(px_problem_b(p), b, 3 * sizeof *b);
	px_problem_friction(p)[0].mu = 0.5;
	return p;
}

/* A contact whose diagonal block has uncoupled rows and equal friction
 * rows takes one projection with r = 1/D instead of the Newton (the
 * kernel's LOCAL_PROJECTION): still the exact local solve, so one sweep
 * meets the law to rounding whether the contact slides, sticks or
 * separates, and the answer is the Newton's on a block 1e-9 away from
 * that case (which takes the closed forms and the Newton). */
Test(local, uncoupled_blocks_are_solved_by_one_exact_projection)
{
	static const double cases[][3] = {
		{-1, 0.8, -0.3}, /* sliding: |b_f| / 0.5 > mu * 1 / 2 */
		{-1, 0.05, 0.02}, /* sticking */
		{0.4, 0.3, 0.1},  /* open */
	};
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 0\nmax_sweeps = 1\nlocal_solve = newton\n");

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		double x[3] = {0}, y[3] = {0};
		struct px_problem *p = one_contact(cases[i], 0.0);
		struct px_problem *q = one_contact(cases[i], 1e-9);
		struct px_report rep;
		struct px_error err = {0};

		cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s",
			     err.msg);
		px_report_free(&rep);
		cr_assert_eq(px_solve(q, cfg, y, &rep, &err), PX_OK, "%s",
			     err.msg);
		px_report_free(&rep);
		cr_assert_eq(oracle_contact_laws(p, x, 1e-14, 0.0, "one"), 0,
			     "case %zu", i);
		cr_assert_lt(oracle_fc3d(p, x), 1e-14, "case %zu", i);
		for (int j = 0; j < 3; j++)
			cr_assert_float_eq(x[j], y[j], 1e-8,
					   "case %zu row %d: %g against %g", i,
					   j, x[j], y[j]);
		px_problem_destroy(p);
		px_problem_destroy(q);
	}
	px_config_free(cfg);
}

Test(local, refuses_friction_sets_other_than_the_disc)
{
	char path[4096];
	struct px_config *cfg = config_from_text(
		"[solver]\nlocal_solve = newton\n[friction]\nplugin = box\n");
	struct px_problem *p;
	struct px_report rep;
	struct px_error err = {0};
	double lambda[3] = {0, 0, 0};

	cr_assert_eq(px_dat_read(shared_problem("FrictionContact3D_1c.dat",
						path, sizeof path),
				 &p, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, &err), PX_ERR_CONFIG);
	cr_assert(strstr(err.msg, "local_solve = newton") &&
			  strstr(err.msg, "'box'"),
		  "%s", err.msg);
	px_problem_destroy(p);
	px_config_free(cfg);
}
