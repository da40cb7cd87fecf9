/* The scenes built in code (bench/scene.[ch]) and the rigid form of A:
 * SCENES.md's contact counts, the rigid form equal to the factorized one
 * of the same scene, its refusals, and a solve on it meeting the contact
 * laws. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "../bench/scene.h"
#include "../bench/stack.h"
#include "helpers.h"

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
	cr_assert_lt(px_merit_fc3d(r, xr, NULL), 1e-10);
	cr_assert_eq(check_contact_laws(r, xr, 1e-6), 0);
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
