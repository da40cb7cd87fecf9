/* The tests' oracles (tests/oracle.h) and px_merit_fc3d, checked against
 * values known in closed form, against each other on every shared problem
 * at random points and near solutions, and against wrong answers that
 * they must refuse. */
#include "helpers.h"
#include "one_contact.h"
#include "oracle.h"

/* A problem of n uncoupled contacts with A = I, b and mu given. */
static struct px_problem *identity_problem(size_t n, const double *b,
					   const double *mu)
{
	size_t rowptr[4];
	uint32_t cols[3];
	double blocks[27] = {0};
	struct px_problem *p;

	cr_assert_leq(n, 3);
	for (size_t k = 0; k <= n; k++)
		rowptr[k] = k;
	for (size_t k = 0; k < n; k++) {
		cols[k] = (uint32_t)k;
		for (int i = 0; i < 3; i++)
			blocks[9 * k + 4 * i] = 1.0;
	}
	cr_assert_eq(px_problem_create(n, 3, &p, NULL), PX_OK);
	cr_assert_eq(px_problem_set_assembled(p, rowptr, cols, blocks, NULL),
		     PX_OK);
	memcpy(px_problem_b(p), b, 3 * n * sizeof *b);
	for (size_t k = 0; k < n; k++)
		px_problem_friction(p)[k] =
			(struct px_friction_params){mu[k], mu[k], mu[k], 0};
	return p;
}

/* px_merit_fc3d, the dense oracle and Siconos all give e on (p, lambda). */
static void assert_fc3d(const struct px_problem *p, const double *lambda,
			double e, const char *what)
{
	const double px = px_merit_fc3d(p, lambda, NULL);

	cr_assert(fabs(px - e) <= 1e-15 * (1 + e), "%s: px_merit_fc3d %.17g, by hand %.17g",
		  what, px, e);
	cr_assert(fabs(oracle_fc3d_dense(p, lambda) - e) <= 1e-15 * (1 + e),
		  "%s: dense %.17g, by hand %.17g", what,
		  oracle_fc3d_dense(p, lambda), e);
	cr_assert(fabs(oracle_fc3d(p, lambda) - e) <= 1e-15 * (1 + e), "%s",
		  what);
}

/* One contact, A = I, q = (-1, 1, 0), mu = 1/2.
 * At lambda = (1, 0, 0): u = (0, 1, 0), u + mu |u_t| e_n = (1/2, 1, 0),
 * y = lambda - that = (1/2, -1, 0) lies outside the cone and its polar:
 * P(y) = c (1, -mu, 0) with c = (1/2 + 1/2) / (1 + 1/4) = 4/5, F = (1/5,
 * 2/5, 0), |F| = sqrt(1/5), scale max(|q|, |r|, |u|) = sqrt 2: error
 * sqrt(1/10).
 * At lambda = (1, -1/2, 0): u = (0, 1/2, 0), sliding along s against a
 * friction impulse -mu lambda_n: the solution, error 0. */
Test(oracle, fc3d_of_one_sliding_contact_by_hand)
{
	const double b[3] = {-1, 1, 0}, mu = 0.5;
	const double wrong[3] = {1, 0, 0}, right[3] = {1, -0.5, 0};
	struct px_problem *p = identity_problem(1, b, &mu);

	assert_fc3d(p, wrong, sqrt(0.1), "lambda_f = 0");
	assert_fc3d(p, right, 0.0, "the solution");
	px_problem_destroy(p);
}

/* One contact, A = I, q = (1, 0, 0): separating. lambda = 0 is the
 * solution (y = (-1, 0, 0) in the polar cone, F = 0); at lambda = (1/2,
 * 0, 0), u = (3/2, 0, 0), y = (-1, 0, 0), F = (1/2, 0, 0), scale 3/2:
 * error 1/3. */
Test(oracle, fc3d_of_one_separating_contact_by_hand)
{
	const double b[3] = {1, 0, 0}, mu = 0.5;
	const double zero[3] = {0}, pushed[3] = {0.5, 0, 0};
	struct px_problem *p = identity_problem(1, b, &mu);

	assert_fc3d(p, zero, 0.0, "the solution");
	assert_fc3d(p, pushed, 1.0 / 3.0, "pushed apart");
	px_problem_destroy(p);
}

/* The sums over contacts: the two contacts above side by side, at (1, 0,
 * 0) and (1/2, 0, 0): |F|^2 = 1/5 + 1/4, |q|^2 = 3, |r|^2 = 5/4, |u|^2 =
 * 1 + 9/4: error sqrt(0.45 / 3.25). */
Test(oracle, fc3d_sums_over_contacts_by_hand)
{
	const double b[6] = {-1, 1, 0, 1, 0, 0}, mu[2] = {0.5, 0.5};
	const double lambda[6] = {1, 0, 0, 0.5, 0, 0};
	struct px_problem *p = identity_problem(2, b, mu);

	assert_fc3d(p, lambda, sqrt(0.45 / 3.25), "two contacts");
	px_problem_destroy(p);
}

/* The shared one-contact problem's W and q (W = [[15,-1,-2],[-1,14,1],
 * [-2,1,16]], q = (-1,2,3), mu = 0.1) at lambda = 0: u = q, y = -(q +
 * mu |q_t| e_n) = (1 - mu sqrt 13, -2, -3), outside both cones, P(y) = c
 * (1, mu t) with c = (y_n + mu sqrt 13) / (1 + mu^2) = 1 / 1.01 and t the
 * unit (-2, -3) / sqrt 13: |F|^2 = c^2 (1 + mu^2) = 1 / 1.01, scale
 * sqrt 14: error 1 / sqrt(14.14). Built in code: needs no shared file. */
Test(oracle, fc3d_of_a_coupled_block_by_hand)
{
	const double zero[3] = {0};
	struct px_problem *p = shared_one_contact();

	assert_fc3d(p, zero, 1.0 / sqrt(14.14), "lambda = 0");
	px_problem_destroy(p);
}

/* The contact-law oracle passes exact solutions (sliding, sticking,
 * separated) and refuses each kind of wrong answer. */
Test(oracle, contact_laws_pass_solutions_and_refuse_wrong_answers)
{
	const double b[9] = {-1, 1, 0, -1, 0.1, 0, 1, 0, 0};
	const double mu[3] = {0.5, 0.5, 0.5};
	struct px_problem *p = identity_problem(3, b, mu);
	/* sliding at the disc's edge; sticking (u = 0) inside it; apart */
	const double right[9] = {1, -0.5, 0, 1, -0.1, 0, 0, 0, 0};
	static const struct {
		int contact, i;
		double value;
		const char *what;
	} wrong[] = {
		{0, 1, 0.0, "sliding with no friction"},
		{0, 1, -0.4, "sliding inside the disc"},
		{0, 2, 0.1, "friction not opposite the slip"},
		{0, 1, -0.6, "outside the disc"},
		{1, 0, 1.1, "pushing while separating"},
		{1, 0, 0.9, "penetrating"},
		{2, 0, -1e-3, "pulling"},
		{1, 1, -0.09, "sticking's friction short"},
	};

	cr_assert_eq(oracle_contact_laws(p, right, 1e-15, 0.0, "right"), 0);
	for (size_t w = 0; w < sizeof wrong / sizeof *wrong; w++) {
		double x[9];

		memcpy(x, right, sizeof x);
		x[3 * wrong[w].contact + wrong[w].i] = wrong[w].value;
		cr_assert_gt(oracle_contact_laws(p, x, 1e-6, 0.0, wrong[w].what), 0,
			     "%s passed", wrong[w].what);
	}
	px_problem_destroy(p);
}

/* A contact with a thousandth of its neighbour's load is held to its own
 * scale: an error on it that is tiny next to the problem's largest
 * impulse is still caught. */
Test(oracle, contact_laws_are_per_contact)
{
	const double b[6] = {-1000, 0, 0, -1, 1, 0}, mu[2] = {0.5, 0.5};
	struct px_problem *p = identity_problem(2, b, mu);
	double x[6] = {1000, 0, 0, 1, -0.5, 0};

	cr_assert_eq(oracle_contact_laws(p, x, 1e-12, 0.0, "right"), 0);
	x[4] = -0.49; /* 1e-5 of the problem's largest impulse */
	cr_assert_gt(oracle_contact_laws(p, x, 1e-3, 0.0, "light contact"), 0);
	px_problem_destroy(p);
}

/* Siconos's fc3d_compute_error, the dense oracle and px_merit_fc3d agree
 * to rounding on every shared problem: at lambda = 0, at random points
 * (normal impulses >= 0 of the contact's own scale, friction inside and
 * outside the disc) and near the solution (200 sweeps of the default
 * config, where F cancels). */
Test(oracle, fc3d_agrees_with_siconos_on_the_shared_problems,
     .timeout = 300)
{
	char dir[4096];
	DIR *d;
	struct dirent *e;
	int files = 0;

	shared_problem("", dir, sizeof dir);
#ifndef PX_HAVE_SICONOS
	cr_skip_test("Siconos numerics was not found by configure: fc3d checked against the dense oracle only");
#endif
	d = opendir(dir);
	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		char path[8192];
		struct px_problem *p;
		struct px_error err = {0};
		struct px_config *cfg;
		struct px_report rep = {0};
		double *x;
		size_t m;
		unsigned short seed[3] = {1, 2, 3};

		if (!strstr(e->d_name, ".dat") && !strstr(e->d_name, ".hdf5"))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		cr_assert_eq(px_problem_read(path, &p, PX_FCLIB_R_NONE, NULL, &err),
			     PX_OK, "%s: %s", path, err.msg);
		m = 3 * px_problem_n_contacts(p);
		x = calloc(m, sizeof *x);
		cr_assert_not_null(x);
		(void)oracle_fc3d(p, x);
		for (int trial = 0; trial < 3; trial++) {
			const double *b = px_problem_b_const(p);

			for (size_t k = 0; k < m / 3; k++) {
				const double s = sqrt(b[3 * k] * b[3 * k] +
						      b[3 * k + 1] * b[3 * k + 1] +
						      b[3 * k + 2] * b[3 * k + 2]) + 1.0;

				x[3 * k] = s * erand48(seed);
				x[3 * k + 1] = s * (2 * erand48(seed) - 1);
				x[3 * k + 2] = s * (2 * erand48(seed) - 1);
			}
			(void)oracle_fc3d(p, x);
		}
		memset(x, 0, m * sizeof *x);
		cfg = config_from_text("[solver]\nmax_sweeps = 200\nabs_tol = 0\nmerit = fc3d\n"
				       "[rfactor]\nplugin = local\ngamma = 1\nnu = 1\n");
		cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s", err.msg);
		(void)oracle_fc3d(p, x);
		px_report_free(&rep);
		px_config_free(cfg);
		free(x);
		px_problem_destroy(p);
		files++;
	}
	closedir(d);
	cr_assert_geq(files, 13, "only %d problem files in %s", files, dir);
}
