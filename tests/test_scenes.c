/* The scenes built in code (sim/scene_problems.[ch]) and the rigid form of A:
 * doc/scenes.md's contact counts, the rigid form equal to the factorized one
 * of the same scene, its refusals, and a solve on it meeting the contact
 * laws. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../sim/scene_problems.h"
#include "../sim/stack_problem.h"
#include "helpers.h"
#include "oracle.h"

/* Coulomb's law per contact (tests/oracle.h): the solutions here were
 * within 5.7e-10 of each contact's own scale */
#define LAW_REL 1e-8

/* max |A_rigid - A_factorized| relative to max |A|, and the same for b. */
static void assert_same_operator(struct px_problem *r, struct px_problem *f)
{
	const size_t m = px_problem_n_contacts(r) * 3;
	double *ar = malloc(m * m * sizeof *ar), *af = malloc(m * m * sizeof *af);
	double diff = 0.0, scale = 0.0;

	cr_assert(ar && af);
	cr_assert_eq(px_problem_form(r), PX_FORM_RIGID);
	cr_assert_eq(px_problem_form(f), PX_FORM_FACTORIZED);
	cr_assert_eq(px_problem_to_dense(r, ar), PX_OK);
	cr_assert_eq(px_problem_to_dense(f, af), PX_OK);
	for (size_t i = 0; i < m * m; i++) {
		diff = fmax(diff, fabs(ar[i] - af[i]));
		scale = fmax(scale, fabs(af[i]));
	}
	cr_assert_leq(diff, 1e-14 * scale, "A differs by %g (max %g)", diff, scale);
	cr_assert_arr_eq(px_problem_b_const(r), px_problem_b_const(f),
			 m * sizeof(double));
	for (size_t k = 0; k < m / 3; k++) {
		double dr[9], df[9];

		px_problem_diag_block(r, k, dr);
		px_problem_diag_block(f, k, df);
		for (int i = 0; i < 9; i++)
			cr_assert_float_eq(dr[i], df[i], 1e-14 * scale);
	}
	free(ar);
	free(af);
}

Test(scenes, contact_counts_of_scenes_md)
{
	struct px_problem *p;

	cr_assert_eq(scene_ballgrid(8, PX_FORM_RIGID, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_n_contacts(p), 1408);
	cr_assert_eq(px_problem_n_bodies(p), 512); /* and the static ground */
	px_problem_destroy(p);
	/* ballpile: all N^2 of the bottom plane touch the ground, and about
	 * 37.5 % of the in-plane neighbour pairs touch */
	cr_assert_eq(scene_ballpile(8, PX_FORM_RIGID, &p, NULL), PX_OK);
	cr_assert_geq(px_problem_n_contacts(p), 64 + 896 * 30 / 100);
	cr_assert_leq(px_problem_n_contacts(p), 64 + 896 * 45 / 100);
	px_problem_destroy(p);
}

Test(scenes, rigid_form_is_the_factorized_operator)
{
	struct px_problem *r, *f;

	cr_assert_eq(scene_ballgrid(3, PX_FORM_RIGID, &r, NULL), PX_OK);
	cr_assert_eq(scene_ballgrid(3, PX_FORM_FACTORIZED, &f, NULL), PX_OK);
	assert_same_operator(r, f);
	px_problem_destroy(r);
	px_problem_destroy(f);
	cr_assert_eq(scene_ballpile(4, PX_FORM_RIGID, &r, NULL), PX_OK);
	cr_assert_eq(scene_ballpile(4, PX_FORM_FACTORIZED, &f, NULL), PX_OK);
	assert_same_operator(r, f);
	cr_assert_lt(px_problem_bytes(r), px_problem_bytes(f) / 2);
	px_problem_destroy(r);
	px_problem_destroy(f);
	cr_assert_eq(stack_problem_create(4, 0.5, 0.1, PX_FORM_RIGID, &r, NULL), PX_OK);
	cr_assert_eq(stack_problem_create(4, 0.5, 0.1, PX_FORM_FACTORIZED, &f, NULL), PX_OK);
	assert_same_operator(r, f);
	px_problem_destroy(r);
	px_problem_destroy(f);
}

Test(scenes, rigid_and_factorized_solves_agree)
{
	struct px_problem *r, *f;
	struct px_config *cfg = config_from_text(
		"[solver]\nmerit = fc3d\nabs_tol = 1e-10\nmax_sweeps = 100000\n"
		"[rfactor]\nplugin = local\nnu = 1\n");
	struct px_report rr, rf;
	double xr[3 * 24] = {0}, xf[3 * 24] = {0};

	cr_assert_eq(stack_problem_create(6, 0.5, 0.1, PX_FORM_RIGID, &r, NULL), PX_OK);
	cr_assert_eq(stack_problem_create(6, 0.5, 0.1, PX_FORM_FACTORIZED, &f, NULL), PX_OK);
	cr_assert_eq(px_solve(r, cfg, xr, &rr, NULL), PX_OK);
	cr_assert_eq(px_solve(f, cfg, xf, &rf, NULL), PX_OK);
	cr_assert(rr.converged && rf.converged);
	assert_solution(r, xr, LAW_REL, 0.0, 1e-10, "xr");
	/* the same iteration up to rounding: sweep counts within 1 % */
	cr_assert_leq(fabs((double)rr.sweeps - (double)rf.sweeps),
		      0.01 * (double)rf.sweeps, "%llu against %llu sweeps",
		      (unsigned long long)rr.sweeps,
		      (unsigned long long)rf.sweeps);
	px_report_free(&rr);
	px_report_free(&rf);
	px_config_free(cfg);
	px_problem_destroy(r);
	px_problem_destroy(f);
}

/* 40 sweeps from zero of p with the config "[solver] ... kernel = K" and
 * then `more` (which may go on in [solver]), for K = auto and generic: the
 * rigid kernel runs with auto exactly when `rigid`; the largest difference
 * of the two lambdas relative to the generic one's size, and whether they
 * are the same bit for bit. */
static double auto_vs_generic(struct px_problem *p, const char *more,
			      int rigid, int *same)
{
	const size_t m = 3 * px_problem_n_contacts(p);
	double *x[2], diff = 0.0, scale = 0.0;
	struct px_report rep[2];

	for (int generic = 0; generic < 2; generic++) {
		char text[512];
		struct px_config *cfg;

		snprintf(text, sizeof text,
			 "[solver]\nmax_sweeps = 40\nabs_tol = 0\nrel_tol = 0\nkernel = %s\n%s",
			 generic ? "generic" : "auto", more);
		cfg = config_from_text(text);
		x[generic] = calloc(m, sizeof(double));
		cr_assert_not_null(x[generic]);
		cr_assert_eq(px_solve(p, cfg, x[generic], &rep[generic], NULL), PX_OK);
		cr_assert_eq(rep[generic].rigid_kernel, !generic && rigid, "%s", text);
		px_report_free(&rep[generic]);
		px_config_free(cfg);
	}
	for (size_t j = 0; j < m; j++) {
		diff = fmax(diff, fabs(x[0][j] - x[1][j]));
		scale = fmax(scale, fabs(x[1][j]));
	}
	cr_assert_gt(scale, 0.0);
	*same = memcmp(x[0], x[1], m * sizeof(double)) == 0;
	free(x[0]);
	free(x[1]);
	return diff / scale;
}

/* The kernel of rigid 3-row contacts is the general kernel's iteration up
 * to rounding: on a pile and a grid, 40 sweeps of each from
 * zero agree to 1e-12 of lambda's size, with sequential and colored
 * schedulers; with box friction (separable) or a factorized A it stays
 * off. */
Test(scenes, rigid_kernel_is_the_general_iteration)
{
	static const char *const sections[] = {
		"[scheduler]\nplugin = sequential\n",
		"[scheduler]\nplugin = colored\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = colored\npatches = 3\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = colored\npatches = 4\nlanes = 4\nthreads = 1\n",
		"[scheduler]\nplugin = naive\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = jacobi\nthreads = 2\nserial_below = 0\n",
	};
	struct px_problem *ps[2];

	cr_assert_eq(scene_ballpile(5, PX_FORM_RIGID, &ps[0], NULL), PX_OK);
	cr_assert_eq(scene_ballgrid(4, PX_FORM_RIGID, &ps[1], NULL), PX_OK);
	for (int q = 0; q < 2; q++)
		for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
			char more[256];
			int same;
			double d;

			snprintf(more, sizeof more,
				 "[rfactor]\nplugin = local\nnu = 1\n%s", sections[i]);
			d = auto_vs_generic(ps[q], more, 1, &same);
			cr_assert(same, "scene %d, %s: %g of lambda's size", q,
				  sections[i], d);
		}
	for (int q = 0; q < 2; q++)
		px_problem_destroy(ps[q]);
}

/* Exact local solves on balls: every contact's diagonal block is
 * uncoupled with equal friction rows, so one projection with r = 1/D is
 * the exact local solve and the rigid kernel runs it (px_kernel_set_local)
 * whatever the r-factors are; it gives the general kernel's local Newton
 * to 1e-12 of lambda's size. Boxes' corner contacts couple their rows:
 * there the general kernel's Newton stays. */
Test(scenes, exact_local_solves_on_balls_take_the_rigid_kernel)
{
	struct px_problem *ps[3];

	cr_assert_eq(scene_ballpile(5, PX_FORM_RIGID, &ps[0], NULL), PX_OK);
	cr_assert_eq(scene_ballgrid(4, PX_FORM_RIGID, &ps[1], NULL), PX_OK);
	cr_assert_eq(scene_incline(3, 20.0, 0.3, PX_FORM_RIGID, &ps[2], NULL),
		     PX_OK);
	for (int q = 0; q < 3; q++) {
		int same;
		const double d = auto_vs_generic(
			ps[q],
			"local_solve = newton\n[rfactor]\nplugin = global\nr = 5\nnu = 0.5\n",
			q < 2, &same);

		cr_assert_leq(d, 1e-12, "scene %d: %g of lambda's size", q, d);
		px_problem_destroy(ps[q]);
	}
}

Test(scenes, rigid_kernel_stays_off_where_it_does_not_apply)
{
	static const char *const configs[] = {
		"[friction]\nplugin = box\n",
		"[rfactor]\nplugin = blocked\n",
	};
	struct px_problem *r, *f;
	struct px_report rep;
	double x[3 * 200];

	cr_assert_eq(scene_ballpile(3, PX_FORM_RIGID, &r, NULL), PX_OK);
	cr_assert_eq(scene_ballpile(3, PX_FORM_FACTORIZED, &f, NULL), PX_OK);
	cr_assert_leq(3 * px_problem_n_contacts(r), sizeof x / sizeof *x);
	for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
		struct px_config *cfg = config_from_text(configs[i]);

		memset(x, 0, sizeof x);
		cr_assert_eq(px_solve(r, cfg, x, &rep, NULL), PX_OK);
		cr_assert_eq(rep.rigid_kernel, 0, "%s", configs[i]);
		px_report_free(&rep);
		px_config_free(cfg);
	}
	memset(x, 0, sizeof x);
	{
		struct px_config *cfg = config_from_text("[solver]\nmax_sweeps = 5\n");

		cr_assert_eq(px_solve(f, cfg, x, &rep, NULL), PX_OK);
		cr_assert_eq(rep.rigid_kernel, 0, "factorized");
		px_report_free(&rep);
		memset(x, 0, sizeof x);
		cr_assert_eq(px_solve(r, cfg, x, &rep, NULL), PX_OK);
		cr_assert_eq(rep.rigid_kernel, 1, "rigid, disc, local");
		px_report_free(&rep);
		px_config_free(cfg);
	}
	px_problem_destroy(r);
	px_problem_destroy(f);
}

Test(scenes, rigid_form_refusals)
{
	const double frame[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
	const double skew[9] = {0, 0, 1, 1, 0, 0.1, 0, 1, 0};
	const double at[3] = {0, 0, 0}, lever[12] = {0};
	const uint32_t ba[2] = {0, 0}, bb[2] = {PX_STATIC, 1};
	double im[2] = {1, 1}, ii[18] = {1, 0, 0, 0, 1, 0, 0, 0, 1,
					 1, 0, 0, 0, 1, 0, 0, 0, 1};
	struct px_problem *p;
	struct px_error err = {0};

	cr_assert_eq(px_problem_create(2, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_rigid(p, 2, im, ii, ba, bb, lever, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "contact 0: no orthonormal frame (set its geometry first)");
	cr_assert_eq(px_problem_set_geometry(p, 0, at, frame, NULL), PX_OK);
	cr_assert_eq(px_problem_set_geometry(p, 1, at, skew, NULL), PX_OK);
	cr_assert_eq(px_problem_set_rigid(p, 2, im, ii, ba, bb, lever, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "contact 1: no orthonormal frame (set its geometry first)");
	cr_assert_eq(px_problem_set_geometry(p, 1, at, frame, NULL), PX_OK);
	im[1] = -1;
	cr_assert_eq(px_problem_set_rigid(p, 2, im, ii, ba, bb, lever, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "body 1: inverse mass -1 is not finite and >= 0");
	im[1] = 1;
	ii[9 + 1] = 0.5; /* xy without yx */
	cr_assert_eq(px_problem_set_rigid(p, 2, im, ii, ba, bb, lever, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "body 1: the inverse inertia is not finite and symmetric");
	ii[9 + 3] = 0.5;
	cr_assert_eq(px_problem_set_rigid(p, 2, im, ii, ba, bb, lever, &err), PX_OK);
	cr_assert_eq(px_problem_form(p), PX_FORM_RIGID);
	px_problem_destroy(p);
	cr_assert_eq(px_problem_create(1, 4, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_rigid(p, 1, im, ii, ba, bb, lever, &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "the rigid form has 3-row contacts, not 4");
	px_problem_destroy(p);
}

/* The rigid form's checks run in one pass over the contacts, but a problem
 * with several faults still gets the first of the check order (bodies,
 * frames, masses and inertias, lever arms), and a refused form leaves the
 * one set before as it was. */
Test(scenes, rigid_form_refusal_keeps_form)
{
	const double frame[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
	const double at[3] = {0, 0, 0};
	const double lever[12] = {0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
	double bad_lever[12];
	const uint32_t ba[2] = {0, 0}, bb[2] = {PX_STATIC, 1};
	const uint32_t far_b[2] = {PX_STATIC, 7};
	const double im[2] = {1, 0.5}, ii[18] = {1, 0, 0, 0, 2, 0, 0, 0, 3,
						 2, 0, 0, 0, 2, 0, 0, 0, 2};
	double before[9], after[9];
	struct px_problem *p;
	struct px_error err = {0};

	memcpy(bad_lever, lever, sizeof lever);
	bad_lever[7] = NAN;
	cr_assert_eq(px_problem_create(2, 3, &p, NULL), PX_OK);
	for (size_t k = 0; k < 2; k++)
		cr_assert_eq(px_problem_set_geometry(p, k, at, frame, NULL),
			     PX_OK);
	cr_assert_eq(px_problem_set_rigid(p, 2, im, ii, ba, bb, lever, &err),
		     PX_OK);
	px_problem_diag_block(p, 1, before);
	cr_assert_eq(px_problem_set_rigid(p, 2, im, ii, ba, far_b, bad_lever,
					  &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "contact 1: body out of range (2 bodies)");
	cr_assert_eq(px_problem_set_rigid(p, 2, im, ii, ba, bb, bad_lever,
					  &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "contact 1: a lever arm is not finite");
	cr_assert_eq(px_problem_form(p), PX_FORM_RIGID);
	cr_assert_eq(px_problem_n_bodies(p), 2);
	px_problem_diag_block(p, 1, after);
	cr_assert(memcmp(before, after, sizeof before) == 0,
		  "the form set before is kept");
	cr_assert_gt(after[0], 0.0);
	px_problem_destroy(p);
}

/* A solve from zero stopping on rel_tol alone (the certificate passes
 * whatever it is), at most max_sweeps; the caller frees the result and rep. */
static double *solve_rel_tol(const struct px_problem *p, const char *cfg_text,
			     double rel_tol, uint64_t max_sweeps,
			     struct px_report *rep)
{
	char text[1024];
	struct px_config *cfg;
	double *x = calloc(3 * px_problem_n_contacts(p), sizeof *x);

	cr_assert_not_null(x);
	snprintf(text, sizeof text,
		 "[solver]\nmax_sweeps = %llu\nabs_tol = 0\nrel_tol = %.17g\ncheck_tol = 1e300\n%s",
		 (unsigned long long)max_sweeps, rel_tol, cfg_text);
	cfg = config_from_text(text);
	cr_assert_eq(px_solve(p, cfg, x, rep, NULL), PX_OK);
	px_config_free(cfg);
	return x;
}

/* lambda after `sweeps` sweeps of cfg_text from zero (no stop test: the
 * tolerances are 0); the caller frees it and rep. */
static double *sweeps_from_zero(const struct px_problem *p, const char *cfg_text,
				uint64_t sweeps, struct px_report *rep)
{
	return solve_rel_tol(p, cfg_text, 0.0, sweeps, rep);
}

/* The driver takes the iterate before a sweep from the kernel's writes
 * (each contact's old impulse is saved as the sweep overwrites it), not
 * from a copy: a rejected sweep must still put back exactly that iterate,
 * with every scheduler and both kernels. Sweep j + 1 is rejected: lambda
 * after j + 1 sweeps is lambda after j, bit for bit. */
Test(scenes, rejected_sweep_restores_the_iterate_before_it)
{
	static const char *const sched[] = {
		"[scheduler]\nplugin = sequential\n",
		"[scheduler]\nplugin = colored\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = colored\npatches = 3\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = colored\nmerge_below = 1000\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = naive\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = jacobi\nthreads = 2\nserial_below = 0\n",
	};
	/* an r far too large: sweeps grow and are rolled back */
	static const char *const kernels[] = {"auto", "generic"};
	struct px_problem *p;

	cr_assert_eq(scene_ballpile(5, PX_FORM_RIGID, &p, NULL), PX_OK);
	for (size_t i = 0; i < sizeof sched / sizeof *sched; i++)
		for (int g = 0; g < 2; g++) {
			const size_t m = 3 * px_problem_n_contacts(p);
			char text[512];
			struct px_report rep, a, b;
			double *x, *xa, *xb;
			size_t j = 0;

			snprintf(text, sizeof text,
				 "kernel = %s\n[rfactor]\nplugin = global\nr = 5\nnu = 0.5\n%s",
				 kernels[g], sched[i]);
			x = sweeps_from_zero(p, text, 60, &rep);
			cr_assert_eq(rep.rigid_kernel, g == 0, "%s", text);
			while (j < rep.n_history && rep.history[j].accepted)
				j++;
			cr_assert_lt(j, rep.n_history, "no sweep rejected: %s", text);
			cr_assert_gt(j, 0);
			xa = sweeps_from_zero(p, text, j, &a);
			xb = sweeps_from_zero(p, text, j + 1, &b);
			cr_assert_eq(b.rejected, 1, "%s", text);
			cr_assert_eq(memcmp(xa, xb, m * sizeof *xa), 0,
				     "sweep %zu rejected, %s", j + 1, text);
			free(x);
			free(xa);
			free(xb);
			px_report_free(&rep);
			px_report_free(&a);
			px_report_free(&b);
		}
	px_problem_destroy(p);
}

/* The stop test's figures of a sweep come from the kernel's tally when the
 * scheduler relaxed every contact through relax_lists (sequential and
 * colored, both kernels, the colored threads' maxima merged), else from a
 * pass over lambda (jacobi). Either way they must be what lambda before
 * and after the sweep give: the recorded delta is max |after - before|,
 * and the relative tolerance compares it with max |after|: rel_tol just
 * above delta / max |after| stops the solve at that sweep, just below does
 * not. */
Test(scenes, sweep_change_is_what_lambda_gives)
{
	static const char *const setups[] = {
		"[scheduler]\nplugin = sequential\n",
		"kernel = generic\n[scheduler]\nplugin = sequential\n",
		"[scheduler]\nplugin = colored\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = colored\npatches = 3\nthreads = 2\nserial_below = 0\n",
		"kernel = generic\n[scheduler]\nplugin = colored\nthreads = 2\nserial_below = 0\n",
		"[scheduler]\nplugin = jacobi\nthreads = 2\nserial_below = 0\n",
	};
	const uint64_t j = 7;
	struct px_problem *p;

	cr_assert_eq(scene_ballpile(5, PX_FORM_RIGID, &p, NULL), PX_OK);
	for (size_t i = 0; i < sizeof setups / sizeof *setups; i++) {
		const size_t m = 3 * px_problem_n_contacts(p);
		struct px_report a, b, hi, lo;
		double *xa = sweeps_from_zero(p, setups[i], j, &a);
		double *xb = sweeps_from_zero(p, setups[i], j + 1, &b);
		double delta = 0.0, amax = 0.0;

		for (size_t q = 0; q < m; q++) {
			delta = fmax(delta, fabs(xb[q] - xa[q]));
			amax = fmax(amax, fabs(xb[q]));
		}
		cr_assert_eq(b.n_history, j + 1);
		cr_assert(b.history[j].accepted, "%s", setups[i]);
		cr_assert(delta > 0.0 && b.history[j].residual == delta,
			  "%s: recorded %.17g, lambda gives %.17g", setups[i],
			  b.history[j].residual, delta);
		free(solve_rel_tol(p, setups[i], delta / amax * (1 + 1e-12),
				   j + 3, &hi));
		cr_assert_eq(hi.sweeps, j + 1, "%s: rel_tol above", setups[i]);
		free(solve_rel_tol(p, setups[i], delta / amax * (1 - 1e-9),
				   j + 3, &lo));
		cr_assert_gt(lo.sweeps, j + 1, "%s: rel_tol below", setups[i]);
		free(xa);
		free(xb);
		px_report_free(&a);
		px_report_free(&b);
		px_report_free(&hi);
		px_report_free(&lo);
	}
	px_problem_destroy(p);
}
