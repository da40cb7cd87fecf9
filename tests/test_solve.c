/* The solve driver on real and hand-made problems: Siconos's error and the
 * contact laws at the solution, factorized and assembled A giving the same
 * answer, warm starts, the sweep limit, the history and back-tracking. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "helpers.h"
#include "oracle.h"

/* Coulomb's law per contact (tests/oracle.h): the solutions here were
 * within 2.6e-10 of each contact's own scale */
#define LAW_REL 1e-8

static struct px_config *defaults(void)
{
	return config_from_text("");
}

/* Solve path with the default config; assert fc3d < 1e-8 and the laws. */
static void solve_file(const char *path)
{
	struct px_config *cfg = defaults();
	struct px_problem *p;
	struct px_report rep;
	struct px_error err = {0};
	double *lambda;

	cr_assert_eq(px_dat_read(path, &p, &err), PX_OK, "%s", err.msg);
	lambda = calloc(px_problem_n_contacts(p) * px_problem_block_size(p),
			sizeof *lambda);
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, &err), PX_OK, "%s",
		     err.msg);
	cr_assert(rep.converged, "%s: not converged after %llu sweeps", path,
		  (unsigned long long)rep.sweeps);
	assert_solution(p, lambda, LAW_REL, 0.0, 1e-8, path);
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
}

Test(solve, one_contact)
{
	char path[4096];

	solve_file(shared_problem("FrictionContact3D_1c.dat", path, sizeof path));
}

Test(solve, three_decoupled_contacts_dense)
{
	char path[4096];

	solve_file(shared_problem("FC3D_Example1.dat", path, sizeof path));
}

Test(solve, three_decoupled_contacts_sparse_block)
{
	char path[4096];

	solve_file(shared_problem("FC3D_Example1_SBM.dat", path, sizeof path));
}

Test(solve, newton_euler_spheres)
{
	char path[4096];

	solve_file(shared_problem("NESpheres_10_1.dat", path, sizeof path));
}

Test(solve, bundled_two_boxes)
{
	solve_file(PX_TEST_SRCDIR "/scenes/two-boxes.dat");
}

/* One contact against the identity: the solution is known in closed form.
 * b = (-1, -3, 4), mu = 0.5: lambda_n = 1 and the friction impulse, pushed
 * by (3, -4) of length 5, saturates at 0.5 along (3, -4) / 5. */
Test(solve, closed_form_sliding_contact)
{
	const size_t rowptr[] = {0, 1};
	const uint32_t cols[] = {0};
	const double eye[] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	struct px_config *cfg = defaults();
	struct px_problem *p;
	struct px_report rep;
	double lambda[3] = {0, 0, 0};

	cr_assert_eq(px_problem_create(1, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, eye, NULL), PX_OK);
	px_problem_b(p)[0] = -1;
	px_problem_b(p)[1] = -3;
	px_problem_b(p)[2] = 4;
	px_problem_friction(p)[0].mu = 0.5;
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, NULL), PX_OK);
	cr_assert(rep.converged);
	cr_assert_float_eq(lambda[0], 1.0, 1e-14);
	cr_assert_float_eq(lambda[1], 0.5 * 3 / 5, 1e-14);
	cr_assert_float_eq(lambda[2], -0.5 * 4 / 5, 1e-14);
	px_report_free(&rep);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* 4-row contacts (n, s, t, tau): the disc carries no torsional impulse. */
Test(solve, four_row_contact_with_disc)
{
	const size_t rowptr[] = {0, 1};
	const uint32_t cols[] = {0};
	double eye[16] = {0};
	struct px_config *cfg = defaults();
	struct px_problem *p;
	struct px_report rep;
	double lambda[4] = {0};

	for (int i = 0; i < 4; i++)
		eye[i * 5] = 2.0;
	cr_assert_eq(px_problem_create(1, 4, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, eye, NULL), PX_OK);
	memcpy(px_problem_b(p), (double[]){-2, 0.5, 0, 0.3}, 4 * sizeof(double));
	px_problem_friction(p)[0].mu = 1.0;
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, NULL), PX_OK);
	cr_assert(rep.converged);
	cr_assert_float_eq(lambda[0], 1.0, 1e-14);
	cr_assert_float_eq(lambda[1], -0.25, 1e-14); /* sticks: A_ss l_s = -b_s */
	cr_assert_float_eq(lambda[2], 0.0, 1e-14);
	cr_assert_float_eq(lambda[3], 0.0, 1e-14);
	px_report_free(&rep);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* A box resting on the ground with four corner contacts plus a second box on
 * top, factorized: per contact J (bs x 6) and M^-1 J^T for each body. */
static void build_stack(struct px_problem **fact, struct px_problem **asm_)
{
	enum { NC = 8 };
	const double inv_i = 6.0; /* unit cube, 1 kg: I = 1/6 */
	const double centers[2][3] = {{0, 0, 0.5}, {0.1, 0, 1.5}};
	uint32_t ba[NC], bb[NC];
	double jac[NC * 36], minv[NC * 36], *dense;
	size_t rowptr[NC + 1];
	uint32_t cols[NC * NC];
	double *blocks;
	const size_t m = 3 * NC;

	for (int k = 0; k < NC; k++) {
		const double x = k & 1 ? 0.5 : -0.5, y = k & 2 ? 0.5 : -0.5;
		const double z = k < 4 ? 0.0 : 1.0;
		const double d[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};

		ba[k] = k < 4 ? PX_STATIC : 0;
		bb[k] = k < 4 ? 0 : 1;
		for (int side = 0; side < 2; side++) {
			uint32_t body = side ? bb[k] : ba[k];
			double sign = side ? 1.0 : -1.0;
			double *j = jac + k * 36 + side * 18;
			double *mi = minv + k * 36 + side * 18;
			double r[3];

			if (body == PX_STATIC) {
				memset(j, 0, 18 * sizeof *j);
				memset(mi, 0, 18 * sizeof *mi);
				continue;
			}
			r[0] = x - centers[body][0];
			r[1] = y - centers[body][1];
			r[2] = z - centers[body][2];
			for (int row = 0; row < 3; row++) {
				const double *dd = d[row];
				double rx[3] = {r[1] * dd[2] - r[2] * dd[1],
						r[2] * dd[0] - r[0] * dd[2],
						r[0] * dd[1] - r[1] * dd[0]};

				for (int c = 0; c < 3; c++) {
					j[row * 6 + c] = sign * dd[c];
					j[row * 6 + 3 + c] = sign * rx[c];
				}
			}
			/* M^-1 J^T: 6 x 3, unit mass, inertia 1/6 */
			for (int dof = 0; dof < 6; dof++)
				for (int row = 0; row < 3; row++)
					mi[dof * 3 + row] = j[row * 6 + dof] *
							    (dof < 3 ? 1.0 : inv_i);
		}
	}
	cr_assert_eq(px_problem_create(NC, 3, fact, NULL), PX_OK);
	cr_assert_eq(px_problem_set_factorized(*fact, 2, ba, bb, jac, minv, NULL),
		     PX_OK);
	for (int k = 0; k < NC; k++) {
		/* gravity over one step, and the top box sliding along x */
		px_problem_b(*fact)[3 * k] = -0.0981 * (k < 4 ? 1.0 : 0.0);
		px_problem_b(*fact)[3 * k + 1] = k < 4 ? 0.0 : 0.3;
		px_problem_friction(*fact)[k].mu = 0.4;
	}
	/* The same A, assembled densely by blocks. */
	dense = malloc(m * m * sizeof *dense);
	blocks = malloc(NC * NC * 9 * sizeof *blocks);
	cr_assert_eq(px_problem_to_dense(*fact, dense), PX_OK);
	for (int i = 0; i < NC; i++) {
		rowptr[i] = (size_t)i * NC;
		for (int jb = 0; jb < NC; jb++) {
			cols[i * NC + jb] = (uint32_t)jb;
			for (int r = 0; r < 3; r++)
				for (int c = 0; c < 3; c++)
					blocks[(i * NC + jb) * 9 + r * 3 + c] =
						dense[(3 * i + r) * m + 3 * jb + c];
		}
	}
	rowptr[NC] = NC * NC;
	cr_assert_eq(px_problem_create(NC, 3, asm_, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(*asm_, rowptr, cols, blocks, NULL),
		     PX_OK);
	memcpy(px_problem_b(*asm_), px_problem_b(*fact), m * sizeof(double));
	memcpy(px_problem_friction(*asm_), px_problem_friction(*fact),
	       NC * sizeof(struct px_friction_params));
	free(dense);
	free(blocks);
}

Test(solve, factorized_and_assembled_agree)
{
	struct px_problem *f, *a;
	struct px_config *cfg = defaults();
	struct px_report rf, ra;
	double lf[24] = {0}, la[24] = {0};

	build_stack(&f, &a);
	/* the Delassus diagonal of a ground contact: n row = 1/m + (r x n)^2/I */
	{
		double d[9];

		px_problem_diag_block(f, 0, d);
		cr_assert_float_eq(d[0], 1.0 + 6.0 * 0.5, 1e-12);
	}
	cr_assert_eq(px_solve(f, cfg, lf, &rf, NULL), PX_OK);
	cr_assert_eq(px_solve(a, cfg, la, &ra, NULL), PX_OK);
	cr_assert(rf.converged && ra.converged, "%d %d: sweeps %llu, check %g, merit %g", rf.converged, ra.converged, (unsigned long long)rf.sweeps, rf.check, rf.merit);
	assert_solution(f, lf, LAW_REL, 0.0, 1e-8, "lf");
	cr_assert_eq(rf.sweeps, ra.sweeps);
	for (int i = 0; i < 24; i++)
		cr_assert_float_eq(lf[i], la[i], 1e-10, "lambda[%d]: %g vs %g",
				   i, lf[i], la[i]);
	/* the whole stack's weight is carried: sum of ground normals = 2 m g dt */
	cr_assert_float_eq(lf[0] + lf[3] + lf[6] + lf[9], 2 * 0.0981, 1e-9);
	px_report_free(&rf);
	px_report_free(&ra);
	px_problem_destroy(f);
	px_problem_destroy(a);
	px_config_free(cfg);
}

/* px_problem_assemble and px_problem_copy keep A: the same dense matrix
 * as the factorized original, a normal shift included, and the assembled
 * one stores only the blocks of contacts sharing a dynamic body. */
Test(solve, assemble_and_copy_keep_the_operator)
{
	enum { M = 24 };
	const double gamma[8] = {0.5, 0, 0, 0, 0, 0, 0, 0.25};
	struct px_problem *f, *a, *asm_, *copy;
	double *df = malloc(M * M * sizeof *df), *dx = malloc(M * M * sizeof *dx);
	const size_t *rowptr;
	const uint32_t *cols;
	const double *blocks;

	build_stack(&f, &a);
	cr_assert_eq(px_problem_set_normal_shift(f, gamma, NULL), PX_OK);
	cr_assert_eq(px_problem_to_dense(f, df), PX_OK);
	cr_assert_eq(px_problem_assemble(f, &asm_, NULL), PX_OK);
	cr_assert_eq(px_problem_form(asm_), PX_FORM_ASSEMBLED);
	cr_assert_eq(px_problem_to_dense(asm_, dx), PX_OK);
	cr_assert_eq(memcmp(df, dx, M * M * sizeof *df), 0);
	cr_assert_eq(memcmp(px_problem_b(asm_), px_problem_b(f),
			    M * sizeof(double)), 0);
	/* ground contacts 0-3 touch box 0 only, 4-7 boxes 0 and 1: rows of
	 * contacts 0-3 hold all 8 blocks (box 0), as do rows 4-7 */
	cr_assert_eq(px_problem_assembled(asm_, &rowptr, &cols, &blocks), PX_OK);
	cr_assert_eq(rowptr[8], 64);
	cr_assert_eq(px_problem_copy(f, &copy, NULL), PX_OK);
	cr_assert_eq(px_problem_form(copy), PX_FORM_FACTORIZED);
	cr_assert_eq(px_problem_to_dense(copy, dx), PX_OK);
	cr_assert_eq(memcmp(df, dx, M * M * sizeof *df), 0);
	cr_assert_eq(memcmp(px_problem_normal_shift(copy), gamma, sizeof gamma),
		     0);
	px_problem_destroy(copy);
	px_problem_destroy(asm_);
	px_problem_destroy(f);
	px_problem_destroy(a);
	free(df);
	free(dx);
}

Test(solve, warm_start_from_solution_is_immediate)
{
	char path[4096];
	struct px_config *cfg = defaults();
	struct px_problem *p;
	struct px_report rep;
	double *lambda;
	size_t m;

	cr_assert_eq(px_dat_read(shared_problem("NESpheres_10_1.dat", path,
						sizeof path),
				 &p, NULL),
		     PX_OK);
	m = px_problem_n_contacts(p) * 3;
	lambda = calloc(m, sizeof *lambda);
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, NULL), PX_OK);
	cr_assert(rep.converged);
	cr_assert_gt(rep.sweeps, 5);
	px_report_free(&rep);
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, NULL), PX_OK);
	cr_assert(rep.converged);
	cr_assert_eq(rep.sweeps, 1);
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
}

Test(solve, sweep_limit_and_history)
{
	char path[4096];
	struct px_config *cfg = defaults();
	struct px_problem *p;
	struct px_report rep;
	double lambda[27] = {0};

	cr_assert_eq(px_dat_read(shared_problem("NESpheres_10_1.dat", path,
						sizeof path),
				 &p, NULL),
		     PX_OK);
	px_config_settings_mut(cfg)->max_sweeps = 3;
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, NULL), PX_OK);
	cr_assert_not(rep.converged);
	cr_assert_eq(rep.sweeps, 3);
	cr_assert_eq(rep.n_history, 3);
	for (size_t i = 0; i < 3; i++) {
		cr_assert(rep.history[i].accepted);
		cr_assert_eq(rep.history[i].part, PX_PART_FULL);
		cr_assert(i == 0 || rep.history[i].seconds >= rep.history[i - 1].seconds);
		/* fc3d is the default merit: the history holds it */
		cr_assert_gt(rep.history[i].merit, 1e-8);
	}
	cr_assert_eq(rep.residual, rep.history[2].residual);
	px_report_free(&rep);
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* 4000 sweeps on Capsules with the defaults but Erleben's (2017) back-tracking
 * (any growth of delta rejects: growth = 1) and max_backtracks; the caller
 * frees rep. */
static void solve_capsules_growth(uint64_t max_backtracks, double growth,
				  struct px_report *rep)
{
	char path[4096], text[128];
	struct px_config *cfg;
	struct px_problem *p;
	double *lambda;

	cr_assert_eq(px_dat_read(shared_problem("Capsules-i122-1617.dat", path,
						sizeof path),
				 &p, NULL),
		     PX_OK);
	snprintf(text, sizeof text, "[rfactor]\nplugin = local\ngrowth = %g\n",
		 growth);
	cfg = config_from_text(text);
	lambda = calloc(px_problem_n_contacts(p) * 3, sizeof *lambda);
	px_config_settings_mut(cfg)->max_sweeps = 4000;
	px_config_settings_mut(cfg)->max_backtracks = max_backtracks;
	cr_assert_eq(px_solve(p, cfg, lambda, rep, NULL), PX_OK);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
}

static void solve_capsules(uint64_t max_backtracks, struct px_report *rep)
{
	solve_capsules_growth(max_backtracks, 1.0, rep);
}

/* Issue 20: with Erleben's (2017) rule (growth = 1) the local strategy rejects
 * a sweep whenever delta wobbles up on its plateau, 100 times in 4000
 * sweeps on Capsules, and r shrinks to 0.9^100 of its start; with the
 * default growth = 1.1 a rejected sweep is the exception. */
Test(solve, backtracking_growth_keeps_plateau_sweeps)
{
	struct px_report strict, tolerant;

	solve_capsules_growth(100, 1.0, &strict);
	solve_capsules_growth(100, 1.1, &tolerant);
	cr_assert_eq(strict.rejected, 100);
	cr_assert_leq(tolerant.rejected, 2, "%llu rejected",
		      (unsigned long long)tolerant.rejected);
	px_report_free(&strict);
	px_report_free(&tolerant);
}

/* On Capsules the local strategy rejects sweeps: every rejected sweep had a
 * larger residual than the last accepted one, the count matches, and the
 * iterate after a rejection is the one before it (the next sweep's delta is
 * measured from it). */
Test(solve, backtracking_rejects_growing_sweeps)
{
	struct px_report rep;
	double last = HUGE_VAL;
	uint64_t rejected = 0;

	solve_capsules(100000, &rep);
	for (size_t i = 0; i < rep.n_history; i++) {
		if (rep.history[i].accepted) {
			cr_assert_leq(rep.history[i].residual, last);
			last = rep.history[i].residual;
		} else {
			cr_assert_gt(rep.history[i].residual, last);
			cr_assert(isnan(rep.history[i].merit));
			rejected++;
		}
	}
	cr_assert_gt(rejected, 0);
	cr_assert_eq(rejected, rep.rejected);
	px_report_free(&rep);
}

/* max_backtracks caps the rejections: after it, R stays and growing sweeps
 * are kept. */
Test(solve, backtracking_limit)
{
	struct px_report rep;
	size_t grew_and_kept = 0;

	solve_capsules(5, &rep);
	cr_assert_eq(rep.rejected, 5);
	for (size_t i = 1, seen = 0; i < rep.n_history; i++) {
		seen += !rep.history[i].accepted;
		if (seen == 5 && rep.history[i].accepted &&
		    rep.history[i].residual > rep.history[i - 1].residual) {
			grew_and_kept++;
		}
	}
	cr_assert_gt(grew_and_kept, 0, "no growing sweep was kept after the limit");
	px_report_free(&rep);
}

Test(solve, refuses_non_finite_warm_start)
{
	char path[4096];
	struct px_config *cfg = defaults();
	struct px_problem *p;
	struct px_report rep;
	struct px_error err = {0};
	double lambda[3] = {0, NAN, 0};

	cr_assert_eq(px_dat_read(shared_problem("FrictionContact3D_1c.dat", path,
						sizeof path),
				 &p, NULL),
		     PX_OK);
	cr_assert_eq(px_solve(p, cfg, lambda, &rep, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "warm start lambda[1] is not finite");
	px_problem_destroy(p);
	px_config_free(cfg);
}

/* ---- a solver kept across solves (px_solver_*) ------------------------- */

/* b of every contact's normal row moved by shift: what a world's substep
 * or a distributed round changes between two solves */
static void shift_normals(struct px_problem *p, double shift)
{
	double *b = px_problem_b(p);

	for (size_t k = 0; k < px_problem_n_contacts(p); k++)
		b[k * px_problem_block_size(p)] += shift;
}

/* One contact pressed into the ground: A = I, b = (-1, 0, 0), mu = 0.5. */
static struct px_problem *one_contact(void)
{
	static const size_t rowptr[2] = {0, 1};
	static const uint32_t cols[1] = {0};
	static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	struct px_problem *p;
	struct px_friction_params *fr;

	cr_assert_eq(px_problem_create(1, 3, &p, NULL), PX_OK);
	px_problem_b(p)[0] = -1.0;
	fr = px_problem_friction(p);
	fr->mu = fr->mu_s = fr->mu_t = 0.5;
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, eye, NULL),
		     PX_OK);
	return p;
}

/* sf just solved f into lambda: solving again from there, untouched,
 * starts from the body velocities it ended with (no refresh); they are
 * M^-1 J^T lambda to rounding (a new solver's, which computes them), and
 * the solve stays at the solution. */
static void kept_start_is_the_end(struct px_problem *f, struct px_config *cfg,
				  struct px_solver *sf, double *lambda)
{
	struct px_solver_settings *set = px_config_settings_mut(cfg);
	const uint64_t max_sweeps = set->max_sweeps;
	struct px_solver *fresh;
	struct px_report rep;
	double again[24];

	cr_assert_eq(px_solver_solve(sf, lambda, &rep, NULL), PX_OK);
	cr_assert(rep.converged);
	assert_solution(f, lambda, LAW_REL, 0.0, 1e-8, "lambda");
	px_report_free(&rep);
	/* no sweep: the new solver only computes w from lambda */
	memcpy(again, lambda, sizeof again);
	set->max_sweeps = 0;
	cr_assert_eq(px_solver_create(f, cfg, &fresh, NULL), PX_OK);
	cr_assert_eq(px_solver_solve(fresh, again, &rep, NULL), PX_OK);
	set->max_sweeps = max_sweeps;
	px_report_free(&rep);
	for (int i = 0; i < 12; i++)
		cr_assert_float_eq(px_solver_body_velocities(sf)[i],
				   px_solver_body_velocities(fresh)[i], 1e-12,
				   "w[%d]", i);
	px_solver_destroy(fresh);
}

/* Two solves by one solver, b changed between them, are bit for bit two
 * px_solve calls; a second solver on another problem (one contact) with
 * the same config, so the same scheduler state, runs in between, and the
 * first one's scheduler is prepared again for it. */
static void kept_solver_matches(const char *config)
{
	struct px_config *cfg = config ? config_from_text(config) : defaults();
	struct px_problem *f, *a, *one = one_contact();
	struct px_solver *sf, *sa;
	struct px_report r1, r2;
	struct px_error err = {0};
	double l1[24] = {0}, l2[24], m1[24] = {0}, m2[24], la[3] = {0};

	build_stack(&f, &a);
	cr_assert_eq(px_solve(f, cfg, l1, &r1, &err), PX_OK, "%s", err.msg);
	shift_normals(f, -0.05);
	memcpy(l2, l1, sizeof l2);
	cr_assert_eq(px_solve(f, cfg, l2, &r2, &err), PX_OK, "%s", err.msg);
	cr_assert(r1.converged && r2.converged);
	assert_solution(f, l2, LAW_REL, 0.0, 1e-8, "l2");
	shift_normals(f, 0.05);

	cr_assert_eq(px_solver_create(f, cfg, &sf, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(px_solver_create(one, cfg, &sa, &err), PX_OK, "%s",
		     err.msg);
	px_report_free(&r1);
	cr_assert_eq(px_solver_solve(sf, m1, &r1, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(memcmp(l1, m1, sizeof l1), 0);
	px_report_free(&r1);
	cr_assert_eq(px_solver_solve(sa, la, &r1, &err), PX_OK, "%s", err.msg);
	cr_assert(r1.converged);
	cr_assert_float_eq(la[0], 1.0, 1e-12);
	px_report_free(&r1);
	shift_normals(f, -0.05);
	memcpy(m2, m1, sizeof m2);
	cr_assert_eq(px_solver_solve(sf, m2, &r1, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(r1.sweeps, r2.sweeps);
	cr_assert_eq(memcmp(l2, m2, sizeof l2), 0);
	px_report_free(&r1);
	px_report_free(&r2);
	kept_start_is_the_end(f, cfg, sf, m2);
	px_solver_destroy(sf);
	px_solver_destroy(sa);
	px_problem_destroy(f);
	px_problem_destroy(a);
	px_problem_destroy(one);
	px_config_free(cfg);
}

Test(solve, kept_solver_is_px_solve_after_b_changes)
{
	kept_solver_matches(NULL);
	kept_solver_matches("[ordering]\nplugin = ipp\n"
			    "[scheduler]\nplugin = colored\nthreads = 2\n");
	kept_solver_matches("[rfactor]\nplugin = blocked\n"
			    "[scheduler]\nplugin = jacobi\n");
}

/* px_solver_resume from where the last solve of its solver left lambda is
 * px_solver_solve from there, bit for bit (b changed between them); from
 * another array, or first, it computes the body velocities anew, as
 * px_solver_solve does. */
Test(solve, resume_is_solve_from_where_it_stopped)
{
	struct px_config *cfg = defaults();
	struct px_problem *f, *a;
	struct px_solver *s1, *s2;
	struct px_report r1, r2;
	struct px_error err = {0};
	double l1[24] = {0}, l2[24] = {0}, o1[24], o2[24];

	build_stack(&f, &a);
	cr_assert_eq(px_solver_create(f, cfg, &s1, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(px_solver_create(f, cfg, &s2, &err), PX_OK, "%s", err.msg);
	/* round 2: both from a copy, both compute the velocities anew */
	for (int round = 0; round < 3; round++) {
		double *k = round < 2 ? l1 : o1, *l = round < 2 ? l2 : o2;

		memcpy(o1, l1, sizeof o1);
		memcpy(o2, l2, sizeof o2);
		cr_assert_eq(px_solver_solve(s1, k, &r1, &err), PX_OK, "%s",
			     err.msg);
		cr_assert_eq(px_solver_resume(s2, l, &r2, &err), PX_OK, "%s",
			     err.msg);
		cr_assert(r1.converged && r2.converged);
		cr_assert_eq(r1.sweeps, r2.sweeps, "round %d", round);
		cr_assert_eq(memcmp(k, l, sizeof o1), 0, "round %d", round);
		cr_assert_eq(memcmp(px_solver_body_velocities(s1),
				    px_solver_body_velocities(s2),
				    12 * sizeof(double)),
			     0, "round %d", round);
		px_report_free(&r1);
		px_report_free(&r2);
		shift_normals(f, round ? 0.05 : -0.05);
	}
	px_solver_destroy(s1);
	px_solver_destroy(s2);
	px_problem_destroy(f);
	px_problem_destroy(a);
	px_config_free(cfg);
}

/* A failed solve (a warm start that is not finite) leaves the solver
 * usable, a resume after it included; destroying NULL does nothing. */
Test(solve, kept_solver_survives_a_failed_solve)
{
	struct px_config *cfg = defaults();
	struct px_problem *f, *a;
	struct px_solver *sf;
	struct px_report rep;
	struct px_error err = {0};
	double l[24] = {0};

	build_stack(&f, &a);
	cr_assert_eq(px_solver_create(f, cfg, &sf, &err), PX_OK, "%s", err.msg);
	l[5] = INFINITY;
	cr_assert_eq(px_solver_solve(sf, l, &rep, &err), PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "warm start lambda[5] is not finite");
	l[5] = 0.0;
	cr_assert_eq(px_solver_solve(sf, l, &rep, &err), PX_OK, "%s", err.msg);
	cr_assert(rep.converged);
	assert_solution(f, l, LAW_REL, 0.0, 1e-8, "l");
	px_report_free(&rep);
	/* a failed solve leaves nothing to resume from: resume then checks
	 * lambda and computes the body velocities from it (l[5] is no longer
	 * where the last success left it; taken on trust, the stale
	 * velocities would lead elsewhere) */
	l[5] = NAN;
	cr_assert_eq(px_solver_solve(sf, l, &rep, &err), PX_ERR_INVALID);
	l[5] = 0.0;
	cr_assert_eq(px_solver_resume(sf, l, &rep, &err), PX_OK, "%s", err.msg);
	cr_assert(rep.converged);
	assert_solution(f, l, LAW_REL, 0.0, 1e-8, "l");
	px_report_free(&rep);
	px_solver_destroy(sf);
	px_solver_destroy(NULL);
	px_problem_destroy(f);
	px_problem_destroy(a);
	px_config_free(cfg);
}
