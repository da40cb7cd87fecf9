/* The accelerator kind and its plugin pgssm (Silcowitz et al. 2010, PGS
 * subspace minimization): a call never leaves a worse iterate than it was given
 * (recomputed here, not taken from the plugin), on Silcowitz et al.'s (2010)
 * test cases it reaches what PGS does not at equal work, indefinite reduced
 * systems are detected and dropped, config errors are exact, without an
 * accelerator the solve is bit for bit what it was before ABI 1.3, and a
 * time limit stops it between CG iterations (issue 33). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../sim/scene_problems.h"
#include "../sim/stack_problem.h"
#include "fake_clock.h"
#include "helpers.h"
#include "oracle.h"

#define SOLVER "[solver]\nmax_sweeps = %d\nmerit = %s\nabs_tol = %g\n" \
	       "[friction]\nplugin = %s\n[rfactor]\nplugin = local\nnu = 1\n"

/* Solve p from lambda (warm start, or 0 when zero) with the text's config;
 * the report stays for the caller to free. */
static void solve(const struct px_problem *p, const char *text,
		  double *lambda, int zero, struct px_report *rep)
{
	struct px_config *cfg = config_from_text(text);
	struct px_error err = {0};

	if (zero)
		memset(lambda, 0,
		       px_problem_n_contacts(p) * 3 * sizeof *lambda);
	cr_assert_eq(px_solve(p, cfg, lambda, rep, &err), PX_OK, "%s", err.msg);
	px_config_free(cfg);
}

/* The plugin's merit, recomputed for the disc set: ||lambda - prox(lambda
 * - (A lambda + b))||_2 with unit r. */
static double natural_disc(const struct px_problem *p, const double *x)
{
	const size_t n = px_problem_n_contacts(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	double *v = malloc(3 * n * sizeof *v), sum = 0.0;

	cr_assert_not_null(v);
	px_problem_apply(p, x, v, 1);
	for (size_t k = 0; k < n; k++) {
		double z[3], radius, len;

		for (int i = 0; i < 3; i++)
			z[i] = x[3 * k + i] - v[3 * k + i];
		z[0] = fmax(z[0], 0.0);
		radius = fr[k].mu * z[0];
		len = hypot(z[1], z[2]);
		if (len > radius && len > 0.0) {
			z[1] = z[1] / len * radius;
			z[2] = z[2] / len * radius;
		}
		for (int i = 0; i < 3; i++)
			sum += (x[3 * k + i] - z[i]) * (x[3 * k + i] - z[i]);
	}
	free(v);
	return sqrt(sum);
}

/* The box friction law (Poulsen et al. 2010, eq. 4) contact by contact, written
 * here from the dense A (oracle.h's Coulomb check is for the disc): with u = A
 * lambda + b, d = A_nn of the contact and s = max(||lambda_k||, ||b_k|| /
 * d) its own scale (from b alone: oracle.h's scale also counts the sizes
 * of the terms u sums, so this bound is no looser than its), residuals in
 * impulse units, each at most rel s + abs:
 *   normal        |min(lambda_n, u_n / d)|;
 *   per friction axis i (s, t), with the bound c = mu_i max(lambda_n, 0)
 *   (mu_s, mu_t when set, else mu, as the box plugin reads them):
 *     bound       max(0, |lambda_i| - c);
 *     dissipation |lambda_i - mid(-c, lambda_i - u_i / d, c)|: zero iff
 *                 u_i = 0 inside, u_i <= 0 at +c, u_i >= 0 at -c (1-D
 *                 maximal dissipation).
 * Prints each violation and returns their number; the largest residual
 * over s goes into *worst. */
static int box_law_violations(const struct px_problem *p, const double *x,
			      double rel, double abs, const char *what,
			      double *worst)
{
	static const char *const name[5] = {"normal", "s bound", "s dissipation",
					    "t bound", "t dissipation"};
	const size_t n = px_problem_n_contacts(p), m = 3 * n;
	const double *b = px_problem_b_const(p);
	const struct px_friction_params *fr = px_problem_friction_const(p);
	double *a, *u = oracle_velocity(p, x, &a);
	int bad = 0;

	cr_assert_eq(px_problem_block_size(p), 3);
	*worst = 0.0;
	for (size_t k = 0; k < n; k++) {
		const double *l = x + 3 * k, *v = u + 3 * k, *bk = b + 3 * k;
		const double d = a[3 * k * m + 3 * k];
		const double mu[2] = {fr[k].mu_s != 0.0 ? fr[k].mu_s : fr[k].mu,
				      fr[k].mu_t != 0.0 ? fr[k].mu_t : fr[k].mu};
		double r[5], s;

		cr_assert_gt(d, 0.0, "%s: contact %zu: A_nn = %g", what, k, d);
		s = fmax(sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]),
			 sqrt(bk[0] * bk[0] + bk[1] * bk[1] + bk[2] * bk[2]) / d);
		r[0] = fabs(fmin(l[0], v[0] / d));
		for (int i = 1; i < 3; i++) {
			const double c = mu[i - 1] * fmax(l[0], 0.0);

			r[2 * i - 1] = fmax(0.0, fabs(l[i]) - c);
			r[2 * i] = fabs(l[i] - fmin(c, fmax(-c, l[i] - v[i] / d)));
		}
		for (int i = 0; i < 5; i++) {
			if (s > 0.0)
				*worst = fmax(*worst, r[i] / s);
			if (!(r[i] <= rel * s + abs)) {
				fprintf(stderr,
					"%s: contact %zu: box law, %s residual %.3e > %.1e x scale %.3e + %.1e (lambda %g %g %g, u %g %g %g)\n",
					what, k, name[i], r[i], rel, s, abs, l[0],
					l[1], l[2], v[0], v[1], v[2]);
				bad++;
			}
		}
	}
	free(a);
	free(u);
	return bad;
}

/* Silcowitz et al.'s (2010) test cases and a box column, as built in code. */
enum { HEAVY, SLIDING, INCLINE, N_CASES };

static struct px_problem *test_case(int which)
{
	struct px_problem *p = NULL;
	int rc = which == HEAVY	    ? scene_heavy_on_light(1000.0, 0.5,
							   PX_FORM_FACTORIZED, &p, NULL)
		 : which == SLIDING ? stack_problem_create(5, 0.5, 0.1,
							   PX_FORM_FACTORIZED, &p, NULL)
				    : scene_incline(3, 20.0, 0.5, PX_FORM_RIGID,
						    &p, NULL);

	cr_assert_eq(rc, PX_OK);
	return p;
}

/* Every call returns the best iterate it saw: its merit is at most that of
 * the iterate it was given and of the last one it tried, and it replaces
 * lambda only when strictly better; the end of the solve puts back the
 * best iterate of the solve. The last two are recomputed from lambda. */
Test(pgssm, never_returns_a_worse_iterate)
{
	int fallbacks = 0;

	for (int c = 0; c < N_CASES; c++) {
		struct px_problem *p = test_case(c);
		const size_t m = 3 * px_problem_n_contacts(p);
		double *sm = malloc(m * sizeof *sm), *pgs = malloc(m * sizeof *pgs);
		double best = HUGE_VAL;
		struct px_report rep;
		char text[512];

		cr_assert(sm && pgs);
		/* 60 sweeps: calls after 25 and 50, then finish at 60 (the
		 * iterate reaches rounding before: no stall stop) */
		snprintf(text, sizeof text,
			 SOLVER "[solver]\nstall_sweeps = 0\n"
				"[accelerator]\nplugin = pgssm\nbackoff = no\n",
			 60, "fc3d", 1e-300, "disc");
		solve(p, text, sm, 1, &rep);
		cr_assert_eq(rep.sweeps, 60);
		cr_assert_eq(rep.accel_steps, 2);
		cr_assert_eq(rep.n_accel, 3, "two calls and finish");
		for (size_t i = 0; i < rep.n_accel; i++) {
			const struct px_accel_record *a = &rep.accel[i];

			cr_assert_eq(a->finish, i == 2);
			cr_assert_eq(a->after_sweep, i == 0 ? 25u : i == 1 ? 50u : 60u);
			cr_assert_leq(a->merit_out, a->merit_in, "case %d call %zu", c, i);
			if (a->substeps) /* else it tried nothing: NAN */
				cr_assert_leq(a->merit_out, a->merit_last);
			cr_assert_eq(a->replaced, a->merit_out < a->merit_in);
			if (a->merit_last > a->merit_out) {
				cr_assert(a->flags & PX_ACCEL_FALLBACK);
				fallbacks++;
			}
			cr_assert_gt(a->products, 0);
			best = fmin(best, fmin(a->merit_in, a->merit_out));
		}
		/* the end of the solve: the best iterate seen */
		cr_assert_leq(natural_disc(p, sm), best * (1 + 1e-12),
			      "case %d: %g > %g", c, natural_disc(p, sm), best);
		cr_assert_eq(rep.accel_restored, rep.accel[2].replaced);
		px_report_free(&rep);

		/* one call after 25 sweeps, then finish: what it returns is no
		 * worse than the 25 PGS sweeps it was given */
		snprintf(text, sizeof text, SOLVER, 25, "delta", 0.0, "disc");
		solve(p, text, pgs, 1, &rep);
		px_report_free(&rep);
		snprintf(text, sizeof text,
			 SOLVER "[accelerator]\nplugin = pgssm\n", 25, "delta", 0.0,
			 "disc");
		solve(p, text, sm, 1, &rep);
		cr_assert_eq(rep.accel_steps, 1);
		cr_assert_leq(natural_disc(p, sm), natural_disc(p, pgs));
		cr_log_info("case %d: natural residual after 25 PGS sweeps %.3e, after the subspace steps %.3e (%llu products)",
			    c, natural_disc(p, pgs), natural_disc(p, sm),
			    (unsigned long long)rep.accel_products);
		px_report_free(&rep);
		free(sm);
		free(pgs);
		px_problem_destroy(p);
	}
	cr_assert_gt(fallbacks, 0, "no call fell back: the property was not exercised");
}

/* Silcowitz et al. 2010, sec. 5: on small configurations PGS-SM reaches what
 * PGS does not. PGS-SM to an fc3d error of 1e-12; then PGS with as many sweeps
 * as PGS-SM's sweeps plus its products with A (sweep equivalents). */
/* What the converged solves below achieve contact by contact, measured:
 * at most 7e-14 (disc) and 1.6e-13 (box) of the contact's scale; the
 * bound leaves a factor of 60. */
#define SOLVED_REL 1e-11

Test(pgssm, beats_pgs_at_equal_work)
{
	static const char *const friction[] = {"disc", "box"};
	static const char *const merit[] = {"fc3d", "minmap"};
	/* minmap is 1/2 |H|^2: 1e-24 is |H| ~ 1e-12. "Clearly worse": PGS
	 * stays at least 1e4 times (|H|: 1e2 times) above. */
	static const double tol[] = {1e-12, 1e-24}, pgs_worse[] = {1e-8, 1e-20};

	for (int c = 0; c < 2; c++)
		for (int f = 0; f < 2; f++) {
			struct px_problem *p = test_case(c);
			const size_t m = 3 * px_problem_n_contacts(p);
			double *x = malloc(m * sizeof *x);
			struct px_report rep;
			uint64_t work;
			char text[512];

			cr_assert_not_null(x);
			snprintf(text, sizeof text,
				 SOLVER "[accelerator]\nplugin = pgssm\n", 2000,
				 merit[f], tol[f], friction[f]);
			solve(p, text, x, 1, &rep);
			cr_assert(rep.converged, "case %d %s: %s %g after %llu sweeps",
				  c, friction[f], merit[f], rep.merit,
				  (unsigned long long)rep.sweeps);
			/* checked outside the solver: the disc by Coulomb's
			 * law and Siconos's error, the box by its own law;
			 * both contact by contact to SOLVED_REL of the
			 * contact's scale */
			if (f == 0) {
				const double worst = assert_solution(
					p, x, SOLVED_REL, 0.0, 1e-12, "PGS-SM, disc");

				cr_log_info("case %d disc: worst Coulomb residual %.2e of the contact's scale",
					    c, worst);
			} else {
				double worst;

				cr_assert_eq(box_law_violations(p, x, SOLVED_REL, 0.0,
								"PGS-SM, box", &worst),
					     0, "case %d: box law violated (see above)", c);
				cr_log_info("case %d box: worst box-law residual %.2e of the contact's scale",
					    c, worst);
			}
			work = rep.sweeps + rep.accel_products;
			cr_log_info("case %d %s: PGS-SM %s %.3e after %llu sweeps + %llu products",
				    c, friction[f], merit[f], rep.merit,
				    (unsigned long long)rep.sweeps,
				    (unsigned long long)rep.accel_products);
			px_report_free(&rep);
			snprintf(text, sizeof text, SOLVER, (int)work, merit[f],
				 tol[f], friction[f]);
			solve(p, text, x, 1, &rep);
			cr_assert_not(rep.converged);
			cr_assert_gt(rep.merit, pgs_worse[f],
				     "case %d %s: PGS reached %g in %llu sweeps",
				     c, friction[f], rep.merit,
				     (unsigned long long)work);
			cr_log_info("case %d %s: PGS %s %.3e after %llu sweeps",
				    c, friction[f], merit[f], rep.merit,
				    (unsigned long long)work);
			px_report_free(&rep);
			free(x);
			px_problem_destroy(p);
		}
}

/* An assembled problem of n contacts from dense 3x3 blocks (row-major,
 * n x n of them, zero blocks left out), mu = 1, and b = -A lambda_star. */
static struct px_problem *dense_problem(size_t n, const double *blocks,
					const double *lambda_star)
{
	size_t rowptr[3] = {0}, q = 0;
	uint32_t cols[4];
	double bl[36], *b;
	struct px_problem *p;

	cr_assert_leq(n, 2);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			const double *blk = blocks + 9 * (i * n + j);
			int any = 0;

			for (int e = 0; e < 9; e++)
				any |= blk[e] != 0.0;
			if (!any)
				continue;
			cols[q] = (uint32_t)j;
			memcpy(bl + 9 * q, blk, 9 * sizeof *bl);
			q++;
		}
		rowptr[i + 1] = q;
	}
	cr_assert_eq(px_problem_create(n, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, bl, NULL), PX_OK);
	for (size_t k = 0; k < n; k++)
		px_problem_friction(p)[k] = (struct px_friction_params){1, 1, 1, 0};
	b = px_problem_b(p);
	px_problem_apply(p, lambda_star, b, 0);
	for (size_t i = 0; i < 3 * n; i++)
		b[i] = -b[i];
	return p;
}

/* One sweep from the warm start, then one call; its reduced system is
 * indefinite: the call is flagged and leaves lambda as the sweep did. */
static void expect_indefinite(const struct px_problem *p, const double *warm,
			      const char *precond)
{
	const size_t m = 3 * px_problem_n_contacts(p);
	double *x = malloc(m * sizeof *x), *ref = malloc(m * sizeof *ref);
	struct px_report rep;
	char text[512];

	cr_assert(x && ref);
	snprintf(text, sizeof text, SOLVER, 1, "delta", 1e-10, "disc");
	memcpy(ref, warm, m * sizeof *ref);
	solve(p, text, ref, 0, &rep);
	px_report_free(&rep);
	snprintf(text, sizeof text,
		 SOLVER "[accelerator]\nplugin = pgssm\nk_pgs = 1\nprecond = %s\n",
		 1, "delta", 1e-10, "disc", precond);
	memcpy(x, warm, m * sizeof *x);
	solve(p, text, x, 0, &rep);
	cr_assert_eq(rep.accel_steps, 1);
	cr_assert_eq(rep.accel_not_spd, 1);
	cr_assert(rep.accel[0].flags & PX_ACCEL_NOT_SPD);
	cr_assert_not(rep.accel[0].replaced);
	cr_assert_eq(rep.accel[0].substeps, 0, "the step was dropped");
	cr_assert_not(rep.accel_restored);
	cr_assert_arr_eq(x, ref, m * sizeof *x, "lambda is the sweep's");
	px_report_free(&rep);
	free(x);
	free(ref);
}

/* A contact whose diagonal block is indefinite in its friction rows
 * (eigenvalues 3 and -1), sticking: the preconditioner's Cholesky of that
 * block fails, whatever the preconditioner. */
Test(pgssm, indefinite_diagonal_block_is_detected)
{
	static const double a[9] = {1, 0, 0, 0, 1, 2, 0, 2, 1};
	static const double star[3] = {1, 0.1, 0.1}, warm[3] = {1, 0.11, 0.1};
	struct px_problem *p = dense_problem(1, a, star);

	expect_indefinite(p, warm, "block");
	expect_indefinite(p, warm, "none");
	px_problem_destroy(p);
}

/* Two contacts with positive definite diagonal blocks coupled by 2 I:
 * A = [[I, 2I], [2I, I]] has eigenvalues 3 and -1. Every row is free;
 * CG meets the negative curvature at its second iteration. */
Test(pgssm, indefinite_coupling_is_detected_by_cg)
{
	static const double a[36] = {
		1, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0, 0, 2, 0, 0, 0, 2,
		2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 0, 0, 0, 1, 0, 0, 0, 1,
	};
	static const double star[6] = {1, 0.1, 0.1, 1, 0.1, 0.1};
	static const double warm[6] = {1, 0.1, 0.1, 1, 0.11, 0.1};
	struct px_problem *p = dense_problem(2, a, star);

	expect_indefinite(p, warm, "block");
	expect_indefinite(p, warm, "none");
	px_problem_destroy(p);
}

Test(pgssm, config_errors_name_file_section_and_key)
{
	config_refused("[accelerator]\nplugin = pgssm\nk_pgs = 0\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] k_pgs: '0' is out of range [1, 1000000000]");
	config_refused("[accelerator]\nplugin = pgssm\nk_pgs = often\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] k_pgs: 'often' is not an integer");
	config_refused("[accelerator]\nplugin = pgssm\nkpgs = 25\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] kpgs: unknown key for accelerator plugin 'pgssm' (known keys: k_pgs, k_sm, cg_tol, cg_max, gamma, regularize, backoff, precond)");
	config_refused("[accelerator]\nplugin = pgssm\nprecond = ilu\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] precond: 'ilu' is not one of block|none");
	config_refused("[accelerator]\nplugin = none\nk_pgs = 25\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] k_pgs: unknown key for accelerator 'none' (no accelerator) (known keys: none)");
	config_refused("[accelerator]\nk_pgs = 25\n", PX_ERR_CONFIG,
		"%s:2: [accelerator] k_pgs: unknown key for accelerator 'none' (no accelerator) (known keys: none)");
	config_refused("[accelerator]\nplugin = pgssm\nplugin = none\n", PX_ERR_CONFIG,
		"%s:3: [accelerator] plugin: set twice (first on line 2)");
	{
		static const char *const shipped[] = {"pgssm", NULL};
		struct px_config *cfg = (void *)1;
		struct px_error err = {0};
		char path[64], want[2048];

		write_temp_ini("\n[accelerator]\nplugin = cg\n", path, sizeof path);
		snprintf(want, sizeof want,
			 "%s:3: [accelerator] plugin: accelerator plugin 'cg' not found: no accelerator_cg.so in %s:%s",
			 path, getenv("PROXIMA_PLUGIN_PATH"), px_plugin_dir());
		cr_assert_eq(px_config_read(path, &cfg, &err), PX_ERR_PLUGIN);
		cr_assert_null(cfg);
		assert_not_found_listing(err.msg, want, shipped);
		unlink(path);
	}
}

Test(pgssm, none_and_absent_mean_no_plugin)
{
	struct px_error err = {0};
	struct px_config *c = config_from_text("[solver]\nmax_sweeps = 3\n");

	cr_assert_null(px_config_plugin(c, PX_KIND_ACCELERATOR));
	px_config_free(c);
	c = config_from_text("[accelerator]\nplugin = none\n");
	cr_assert_null(px_config_plugin(c, PX_KIND_ACCELERATOR));
	px_config_free(c);
	c = config_from_text("[accelerator]\nplugin = pgssm\nk_pgs = 7\n");
	cr_assert_str_eq(px_plugin_header(px_config_plugin(c, PX_KIND_ACCELERATOR))->name,
			 "pgssm");
	px_config_free(c);
	/* the shipped example config */
	cr_assert_eq(px_config_read(PX_TEST_SRCDIR "/conf/pgssm.ini", &c, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_not_null(px_config_plugin(c, PX_KIND_ACCELERATOR));
	px_config_free(c);
}

/* FNV-1a of lambda's bytes. */
static uint64_t hash(const double *x, size_t m)
{
	const unsigned char *b = (const void *)x;
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < m * sizeof *x; i++) {
		h ^= b[i];
		h *= 1099511628211u;
	}
	return h;
}

/* Without an accelerator (no section, or plugin = none) the solve is the
 * one before plugin ABI 1.3, bit for bit: the hashes of lambda were
 * recorded with the build before issue 9 (commit 3839914) on a column of 8
 * boxes sliding at 0.1 m/s. A deliberate change of the iteration must
 * update them; anything else that moves them is a bug. Beside each hash,
 * what the hashed lambda is, computed outside the solver: a near solution
 * of its friction law contact by contact, with Siconos's fc3d error below
 * a bound (and the one the report gives, where it stops on fc3d). */
Test(pgssm, no_accelerator_is_bit_for_bit_the_solve_before)
{
	static const struct {
		const char *text;
		uint64_t sweeps, hash;
		int box;	  /* the law it solves: disc or box */
		double rel, fc3d; /* bounds on what its lambda achieves */
	} runs[] = {
		/* measured: worst residual 2.7e-4 of the contact's scale,
		 * fc3d error 5.1e-5 */
		{"[solver]\nmax_sweeps = 150\n", 150, 0xceeab72b46c34ee1u, 0,
		 1e-3, 2e-4},
		/* measured: box law to 1.8e-3 of the contact's scale, fc3d
		 * error 3.6e-3 (that of the disc, which a box solution does
		 * not solve: it stays away from 0) */
		{"[solver]\nmax_sweeps = 150\nmerit = fc3d\nabs_tol = 0\n"
		 "[friction]\nplugin = box\n[rfactor]\nplugin = local\nnu = 0.9\n",
		 150, 0xf92511f1d849099au, 1, 4e-3, 1e-2},
	};
	struct px_problem *p;

	cr_assert_eq(stack_problem_create(8, 0.5, 0.1, PX_FORM_FACTORIZED, &p,
					  NULL),
		     PX_OK);
	for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
		const size_t m = 3 * px_problem_n_contacts(p);
		double *x = malloc(m * sizeof *x), *y = malloc(m * sizeof *y);
		struct px_report rx, ry;
		char text[512];

		cr_assert(x && y);
		solve(p, runs[r].text, x, 1, &rx);
		snprintf(text, sizeof text, "%s[accelerator]\nplugin = none\n",
			 runs[r].text);
		solve(p, text, y, 1, &ry);
		cr_assert_eq(rx.sweeps, runs[r].sweeps);
		cr_assert_eq(hash(x, m), runs[r].hash, "run %zu: %016llx", r,
			     (unsigned long long)hash(x, m));
		/* what the pinned lambda is, checked outside the solver: a
		 * near solution of its law, contact by contact, and Siconos's
		 * error of it what the report says (run 1 stops on fc3d) */
		{
			const double e = oracle_fc3d(p, x);
			double worst;

			if (runs[r].box)
				cr_assert_eq(box_law_violations(p, x, runs[r].rel, 0.0,
								"150 sweeps, box", &worst),
					     0, "run %zu", r);
			else
				cr_assert_eq(oracle_contact_laws_worst(p, x, runs[r].rel, 0.0,
								       "150 sweeps, disc", &worst),
					     0, "run %zu", r);
			cr_assert_leq(e, runs[r].fc3d, "run %zu: fc3d error %g", r, e);
			if (runs[r].box)
				cr_assert(oracle_agree(rx.merit, e),
					  "run %zu: reported fc3d %.17g, computed %.17g", r,
					  rx.merit, e);
			cr_log_info("run %zu: fc3d error %.3e (reported %.3e), worst residual %.3e of the contact's scale",
				    r, e, rx.merit, worst);
		}
		cr_assert_arr_eq(x, y, m * sizeof *x);
		cr_assert_eq(rx.n_history, ry.n_history);
		for (size_t i = 0; i < rx.n_history; i++)
			cr_assert_eq(memcmp(&rx.history[i].residual,
					    &ry.history[i].residual,
					    sizeof(double)),
				     0);
		cr_assert_eq(rx.accel_steps + rx.n_accel + rx.accel_products, 0);
		cr_assert_null(rx.accel);
		px_report_free(&rx);
		px_report_free(&ry);
		free(x);
		free(y);
	}
	px_problem_destroy(p);
}

/* The report and the plugin's line agree on what was done. */
Test(pgssm, report_and_describe)
{
	struct px_problem *p = test_case(HEAVY);
	const size_t m = 3 * px_problem_n_contacts(p);
	double *x = malloc(m * sizeof *x);
	struct px_config *cfg;
	struct px_report rep;
	uint64_t products = 0, sub = 0, inner = 0;
	char line[1024], want[256];

	cr_assert_not_null(x);
	memset(x, 0, m * sizeof *x);
	cfg = config_from_text("[solver]\nmax_sweeps = 100\nmerit = fc3d\nabs_tol = 0\n"
			       "[rfactor]\nplugin = local\nnu = 1\n"
			       "[accelerator]\nplugin = pgssm\nk_pgs = 10\nk_sm = 3\nbackoff = no\n");
	cr_assert_eq(px_solve(p, cfg, x, &rep, NULL), PX_OK);
	cr_assert_eq(rep.accel_steps, 10, "%llu calls, %llu sweeps, merit %g",
		     (unsigned long long)rep.accel_steps,
		     (unsigned long long)rep.sweeps, rep.merit);
	for (size_t i = 0; i < rep.n_accel; i++) {
		products += rep.accel[i].products;
		sub += rep.accel[i].substeps;
		inner += rep.accel[i].inner;
		cr_assert_leq(rep.accel[i].substeps, 3);
		/* one product for the merit at entry, then per substep the CG
		 * iterations and one for the trial's merit */
		if (!rep.accel[i].finish)
			cr_assert_eq(rep.accel[i].products,
				     1 + rep.accel[i].inner + rep.accel[i].substeps);
	}
	cr_assert_eq(products, rep.accel_products);
	cr_assert_eq(sub, rep.accel_substeps);
	cr_assert_eq(inner, rep.accel_inner);
	cr_assert(px_accelerator_describe(cfg, line, sizeof line));
	snprintf(want, sizeof want,
		 "k_pgs 10, k_sm 3: 10 calls ran (0 skipped backing off), %llu subspace steps, %llu CG iterations;",
		 (unsigned long long)sub, (unsigned long long)inner);
	cr_assert(strncmp(line, want, strlen(want)) == 0, "%s\nwant %s", line, want);
	px_report_free(&rep);
	px_config_free(cfg);
	free(x);
	px_problem_destroy(p);
}

/* pgssm asks for the time left before each CG iteration (plugin ABI 1.9).
 * Under a fake clock (fake_clock.h) that runs out after three questions,
 * its first call on the heavy slab stops after three CG iterations, where
 * it takes more without a limit, and the solve ends there as a time limit
 * with the lowest-merit iterate it saw (finish's included). */
Test(pgssm, time_limit_stops_between_cg_iterations)
{
	struct px_problem *p = test_case(HEAVY);
	const size_t m = 3 * px_problem_n_contacts(p);
	struct fake_clock c = {0};
	struct px_config *cfg;
	struct px_report ref, rep;
	struct px_error err = {0};
	double *x = calloc(m, sizeof *x);
	char text[512];

	cr_assert_not_null(x);
	snprintf(text, sizeof text, SOLVER "[accelerator]\nplugin = pgssm\n",
		 2000, "fc3d", 1e-12, "disc");
	cfg = fake_clock_config(text, &c);
	/* best kept only under a limit; this one is never reached */
	px_config_settings_mut(cfg)->time_limit = 1000;
	c.allow = UINT64_MAX;
	cr_assert_eq(px_solve(p, cfg, x, &ref, &err), PX_OK, "%s", err.msg);
	cr_assert_gt(ref.accel[0].inner, 3);
	memset(x, 0, m * sizeof *x);
	c.allow = 3;
	c.asked = 0;
	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s", err.msg);
	fake_clock_stopped(&c, 4, p, x, &rep);
	cr_assert_eq(rep.accel_steps, 1);
	cr_assert(rep.accel[0].flags & PX_ACCEL_TIME_LIMIT);
	cr_assert_eq(rep.accel[0].inner, 3);
	cr_assert_eq(rep.sweeps, ref.accel[0].after_sweep);
	fake_clock_free(&c, cfg, &ref, &rep, x, p);
}
