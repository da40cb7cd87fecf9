/* The r-factor strategies and schedulers, through their plugins:
 *   - global, local and blocked fill R as Erleben 2017, sec. 4.2 says (global's
 *     auto r from the known spectrum of a hand-made A; blocked is eq. 40);
 *   - box + local (gamma = 1, nu = 1) + sequential is textbook projected
 *     Gauss-Seidel, iterate for iterate, against a plain dense reference;
 *   - on a sliding contact every strategy's friction opposes the sliding
 *     velocity exactly;
 *   - jacobi gives bit-for-bit the same lambda for 1 to 4 threads;
 *   - blocked refuses a friction plugin without project_metric. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "helpers.h"

static struct px_plugin *load(unsigned kind, const char *name,
			      const char *key, const char *value)
{
	struct px_setting set = {key, value, "test.ini", 1};
	struct px_plugin *pl;
	struct px_error err = {0};

	cr_assert_eq(px_plugin_load(kind, name, &set, key ? 1 : 0, &pl, &err),
		     PX_OK, "%s", err.msg);
	return pl;
}

static void apply_dense(const void *ctx, const double *x, double *y, int add_b)
{
	px_problem_apply(ctx, x, y, add_b);
}

/* Two decoupled contacts with W = diag(1, 2, 3) and diag(4, 5, 6) plus a
 * friction coupling in the second block: eigenvalues 1, 2, 3, 4 and those of
 * [[5, 1], [1, 6]] (5.5 -+ sqrt(1.25)). */
static struct px_problem *two_blocks(double *diag)
{
	static const size_t rowptr[3] = {0, 1, 2};
	static const uint32_t cols[2] = {0, 1};
	static const double W[18] = {1, 0, 0, 0, 2, 0, 0, 0, 3,
				     4, 0, 0, 0, 5, 1, 0, 1, 6};
	struct px_problem *p;

	cr_assert_eq(px_problem_create(2, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, W, NULL), PX_OK);
	for (size_t k = 0; k < 2; k++) {
		px_problem_friction(p)[k] = (struct px_friction_params){0.5, 0.5, 0.5, 0};
		px_problem_diag_block(p, k, diag + 9 * k);
	}
	return p;
}

static void rfactor_init(const char *name, const char *key,
			   const char *value, int separable, double *r)
{
	double diag[18], lambda[6] = {0};
	struct px_problem *p = two_blocks(diag);
	struct px_plugin *pl = load(PX_KIND_RFACTOR, name, key, value);
	const struct px_rfactor_ops *ops = (const void *)px_plugin_header(pl);
	struct px_problem_info info = {
		.n_contacts = 2, .bs = 3, .b = px_problem_b_const(p),
		.lambda = lambda, .diag = diag,
		.friction = px_problem_friction_const(p),
		.apply = apply_dense, .ctx = p,
	};
	char err[256] = "";

	cr_assert_eq(ops->init(px_plugin_state(pl), &info, separable, r, err,
			       sizeof err),
		     0, "%s", err);
	px_plugin_unload(pl);
	px_problem_destroy(p);
}

Test(rfactor, global_auto_is_two_over_extreme_eigenvalues)
{
	double r[6];

	rfactor_init("global", NULL, NULL, 0, r);
	for (int i = 0; i < 6; i++)
		cr_assert_float_eq(r[i], 2.0 / (1.0 + 5.5 + sqrt(1.25)), 1e-12,
				   "r[%d] = %.17g", i, r[i]);
	rfactor_init("global", "r", "5", 0, r);
	for (int i = 0; i < 6; i++)
		cr_assert_eq(r[i], 5.0);
}

Test(rfactor, global_refuses_a_bad_r)
{
	struct px_setting set = {"r", "fast", "x.ini", 4};
	struct px_plugin *pl;
	struct px_error err = {0};

	cr_assert_eq(px_plugin_load(PX_KIND_RFACTOR, "global", &set, 1, &pl, &err),
		     PX_ERR_PLUGIN);
	cr_assert(strstr(err.msg, "r: 'fast' is neither 'auto' nor a positive number"),
		  "%s", err.msg);
}

Test(rfactor, local_is_gamma_over_the_diagonal)
{
	double r[6];

	rfactor_init("local", "gamma", "1.5", 1, r);
	cr_assert_float_eq(r[0], 1.5 / 1, 1e-15);
	cr_assert_float_eq(r[1], 1.5 / 2, 1e-15);
	cr_assert_float_eq(r[2], 1.5 / 3, 1e-15);
	cr_assert_float_eq(r[5], 1.5 / 6, 1e-15);
	/* non-separable set: the friction rows share the smaller r */
	rfactor_init("local", NULL, NULL, 0, r);
	cr_assert_float_eq(r[1], 1.0 / 3, 1e-15);
	cr_assert_float_eq(r[2], 1.0 / 3, 1e-15);
	cr_assert_float_eq(r[4], 1.0 / 6, 1e-15);
}

Test(rfactor, blocked_is_eq40)
{
	double r[18], det = 5.0 * 6.0 - 1.0;

	rfactor_init("blocked", NULL, NULL, 0, r);
	cr_assert_float_eq(r[0], 1.0, 1e-15);
	cr_assert_float_eq(r[4], 1.0 / 2, 1e-15);
	cr_assert_float_eq(r[8], 1.0 / 3, 1e-15);
	cr_assert_float_eq(r[9 + 0], 1.0 / 4, 1e-15);
	cr_assert_float_eq(r[9 + 4], 6.0 / det, 1e-15);
	cr_assert_float_eq(r[9 + 5], -1.0 / det, 1e-15);
	cr_assert_float_eq(r[9 + 7], -1.0 / det, 1e-15);
	cr_assert_float_eq(r[9 + 8], 5.0 / det, 1e-15);
	cr_assert_eq(r[9 + 1], 0.0);
	cr_assert_eq(r[9 + 3], 0.0);
}

Test(pgs, box_local_sequential_is_textbook_pgs)
{
	static const char *const files[] = {"NESpheres_10_1.dat", "Rover4516.dat",
					    "OneObject-i1028-138.hdf5.dat"};

	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		char path[4096];
		struct px_problem *p;

		cr_assert_eq(px_dat_read(shared_problem(files[f], path, sizeof path),
					 &p, NULL),
			     PX_OK);
		for (int sweeps = 1; sweeps <= 6; sweeps++) {
			const size_t m = 3 * px_problem_n_contacts(p);
			double *x = calloc(m, sizeof *x), *ref = calloc(m, sizeof *ref);
			double scale = 0.0;
			char text[256];
			struct px_config *cfg;
			struct px_report rep;

			snprintf(text, sizeof text,
				 "[solver]\nmax_sweeps = %d\nabs_tol = 0\nrel_tol = 0\nmerit = delta\n"
				 "[friction]\nplugin = box\n"
				 "[rfactor]\nplugin = local\ngamma = 1\nnu = 1\n",
				 sweeps);
			cfg = config_from_text(text);
			cr_assert_eq(px_solve(p, cfg, x, &rep, NULL), PX_OK);
			cr_assert_eq(rep.sweeps, (uint64_t)sweeps);
			pgs_reference(p, ref, sweeps, 1);
			for (size_t i = 0; i < m; i++)
				scale = fmax(scale, fabs(ref[i]));
			for (size_t i = 0; i < m; i++)
				cr_assert_float_eq(x[i], ref[i], 1e-12 * scale,
						   "%s, sweep %d, row %zu: %.17g vs %.17g",
						   files[f], sweeps, i, x[i], ref[i]);
			px_report_free(&rep);
			px_config_free(cfg);
			free(x);
			free(ref);
		}
		px_problem_destroy(p);
	}
}

/* One contact pushed sideways hard: it slides. W is SPD with tangential
 * coupling, so a wrong metric would turn the friction away from -u_f. */
Test(strategies, sliding_friction_opposes_the_sliding_velocity)
{
	static const size_t rowptr[2] = {0, 1};
	static const uint32_t cols[1] = {0};
	static const double W[9] = {2, 0.3, 0.1, 0.3, 1.5, 0.6, 0.1, 0.6, 3};
	static const char *const rf[] = {"global", "local", "blocked"};
	struct px_problem *p;

	cr_assert_eq(px_problem_create(1, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, W, NULL), PX_OK);
	px_problem_b(p)[0] = -1, px_problem_b(p)[1] = 4, px_problem_b(p)[2] = -3;
	px_problem_friction(p)[0] = (struct px_friction_params){0.3, 0.3, 0.3, 0};
	for (size_t i = 0; i < 3; i++) {
		double x[3] = {0}, u[3], uf, lf;
		char text[256];
		struct px_config *cfg;
		struct px_report rep;

		snprintf(text, sizeof text,
			 "[solver]\nmerit = fc3d\nabs_tol = 1e-15\nmax_sweeps = 100000\n"
			 "[rfactor]\nplugin = %s\n", rf[i]);
		cfg = config_from_text(text);
		cr_assert_eq(px_solve(p, cfg, x, &rep, NULL), PX_OK);
		cr_assert(rep.converged, "%s", rf[i]);
		px_problem_apply(p, x, u, 1);
		uf = hypot(u[1], u[2]);
		lf = hypot(x[1], x[2]);
		cr_assert_gt(uf, 0.1, "%s: the contact should slide", rf[i]);
		cr_assert_gt(x[0], 0.0);
		cr_assert_lt(fabs(u[0]), 1e-13);
		cr_assert_float_eq(lf, 0.3 * x[0], 1e-13);
		cr_assert_float_eq(x[1], -lf * u[1] / uf, 1e-13, "%s", rf[i]);
		cr_assert_float_eq(x[2], -lf * u[2] / uf, 1e-13, "%s", rf[i]);
		px_report_free(&rep);
		px_config_free(cfg);
	}
	px_problem_destroy(p);
}

Test(strategies, blocked_refuses_friction_without_metric_projection)
{
	struct px_config *cfg;
	struct px_problem *p;
	struct px_report rep;
	struct px_error err = {0};
	double diag[18], x[6] = {0};

	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH",
			    PX_PLUGIN_BUILD_DIR ":" PX_TEST_PLUGIN_DIR, 1),
		     0);
	p = two_blocks(diag);
	cfg = config_from_text("[friction]\nplugin = abi10\n[rfactor]\nplugin = blocked\n");
	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_ERR_PLUGIN);
	cr_assert_str_eq(err.msg,
			 "rfactor plugin 'blocked' gives a block R, which needs a projection in its metric: friction plugin 'abi10' has no project_metric (plugin ABI 1.1)");
	px_config_free(cfg);
	px_problem_destroy(p);
}

/* A random factorized problem: 40 contacts on 12 bodies (some on the static
 * world), diagonal masses, approaching normal velocities. */
static struct px_problem *random_bodies(void)
{
	enum { NC = 40, NB = 12 };
	uint32_t ba[NC], bb[NC];
	static double jac[NC * 36], mjt[NC * 36];
	struct px_problem *p;
	uint64_t s = 12345;
	double minv[NB][6];

#define RND() (s ^= s << 13, s ^= s >> 7, s ^= s << 17, \
	       (double)(s >> 11) / 9007199254740992.0)
	for (int b = 0; b < NB; b++)
		for (int d = 0; d < 6; d++)
			minv[b][d] = 0.2 + RND();
	for (int k = 0; k < NC; k++) {
		ba[k] = (uint32_t)(RND() * NB);
		bb[k] = k % 5 == 0 ? PX_STATIC : (ba[k] + 1 + (uint32_t)(RND() * (NB - 1))) % NB;
		for (int side = 0; side < 2; side++) {
			uint32_t body = side ? bb[k] : ba[k];

			for (int r = 0; r < 3; r++)
				for (int d = 0; d < 6; d++) {
					double j = RND() - 0.5;

					jac[k * 36 + side * 18 + r * 6 + d] = j;
					mjt[k * 36 + side * 18 + d * 3 + r] =
						body == PX_STATIC ? 0.0 : minv[body][d] * j;
				}
		}
	}
	cr_assert_eq(px_problem_create(NC, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_factorized(p, NB, ba, bb, jac, mjt, NULL), PX_OK);
	for (int k = 0; k < NC; k++) {
		px_problem_b(p)[3 * k] = -RND();
		px_problem_b(p)[3 * k + 1] = RND() - 0.5;
		px_problem_b(p)[3 * k + 2] = RND() - 0.5;
		px_problem_friction(p)[k] = (struct px_friction_params){0.4, 0.4, 0.4, 0};
	}
#undef RND
	return p;
}

Test(jacobi, bit_for_bit_whatever_the_thread_count)
{
	struct px_problem *p = random_bodies();
	double first[120];

	for (int t = 1; t <= 4; t++)
		for (int run = 0; run < 2; run++) {
			double x[120] = {0};
			char text[256];
			struct px_config *cfg;
			struct px_report rep;

			snprintf(text, sizeof text,
				 "[solver]\nmax_sweeps = 60\nabs_tol = 0\nrel_tol = 0\n"
				 "[rfactor]\nplugin = global\n"
				 "[scheduler]\nplugin = jacobi\nthreads = %d\nserial_below = 0\n",
				 t);
			cfg = config_from_text(text);
			cr_assert_eq(px_solve(p, cfg, x, &rep, NULL), PX_OK);
			cr_assert_eq(rep.sweeps, 60);
			if (t == 1 && run == 0)
				memcpy(first, x, sizeof x);
			else
				cr_assert_eq(memcmp(first, x, sizeof x), 0,
					     "threads = %d, run %d differs", t, run);
			px_report_free(&rep);
			px_config_free(cfg);
		}
	px_problem_destroy(p);
}
