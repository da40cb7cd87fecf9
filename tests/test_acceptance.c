/* Acceptance on every problem in ../shared/problems, each answer checked by
 * the oracles of tests/oracle.h (Siconos's fc3d error and Coulomb's law
 * contact by contact, computed outside the solver):
 *   - the defaults (conf/default.ini's settings) reach fc3d error < 1e-8
 *     and the contact laws hold,
 *     and so does it with the colored scheduler (greedy) in place of
 *     sequential: run on one thread, as its iterate is bit for bit the same
 *     for any thread count (test_schedulers);
 *   - every combination of {disc, ellipsoid with mu_s = mu_t} x {global,
 *     local, blocked} x {sequential, jacobi, colored greedy, colored
 *     balanced with small colors merged, naive} either reaches fc3d error
 *     < 1e-8 with the contact laws holding, or says it did not converge:
 *     none reports success on a wrong answer; and on every problem the
 *     sequential ones that must converge (see must_converge) do.
 *     The parallel schedulers run 2 threads even on the smallest problems
 *     (serial_below = 0). The combinations stop on delta (TEST_SETTINGS'
 *     stop test, certified by the driver) with a sweep cap that keeps the
 *     suite fast. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <string.h>

#include "helpers.h"
#include "oracle.h"

/* Coulomb's law per contact (tests/oracle.h): at fc3d < 5e-9 the worst
 * contact's residual over its own scale was 2.4e-6 (Capsules-i122, a few
 * contacts sliding at ~1e-5 of its velocity scale, whose direction that
 * error fixes only so far), 8.4e-7 on Capsules-i125 and at most 3e-7 on
 * the others. */
#define LAW_REL 1e-5
#define LAW_ABS 0.0
static const char *const problems[] = {
	"BoxesStack1-i100000-32.hdf5.dat",
	"Capsules-i122-1617.dat",
	"Capsules-i125-1213.hdf5",
	"Confeti-ex13-4contact-Fc3D-SBM.dat",
	"FC3D_Example1.dat",
	"FC3D_Example1_SBM.dat",
	"FrictionContact3D_1c.dat",
	"GFC3D_TwoRods1-condensed.dat",
	"KaplasTower-i1061-4.hdf5.dat",
	"NESpheres_10_1.dat",
	"OneObject-i1028-138.hdf5.dat",
	"Rover1040.dat",
	"Rover4516.dat",
};

#define N_PROBLEMS (sizeof problems / sizeof *problems)

/* How many of the 30 combinations converge within 400 sweeps on each
 * problem (as measured when this was written; every one that does is
 * checked by the oracles): all of them on the small problems and
 * Rover4516, 10 on Rover1040 (sequential ones), none on the hard ones
 * (BoxesStack1 needs ~290000 sweeps, the Capsules, KaplasTower and
 * OneObject thousands). */
static const int must_converge[] = {0, 0, 0, 30, 30, 30, 30, 30, 0, 30, 0, 10, 30};
_Static_assert(sizeof must_converge / sizeof *must_converge == N_PROBLEMS,
	       "one count per problem");

/* Coulomb's law per contact for the combinations that converge: at fc3d
 * 3e-11 or less there, the worst contact's residual was 3e-10 of its own
 * scale. */
#define COMBO_LAW_REL 1e-8

static struct px_problem *read_problem(size_t i)
{
	char path[4096];
	struct px_problem *p;
	struct px_error err = {0};

	cr_assert_eq(px_problem_read(shared_problem(problems[i], path, sizeof path),
				     &p, PX_FCLIB_R_NONE, NULL, &err),
		     PX_OK, "%s", err.msg);
	return p;
}

static double *zeros(const struct px_problem *p)
{
	double *x = calloc(px_problem_n_contacts(p) * px_problem_block_size(p),
			   sizeof *x);

	cr_assert_not_null(x);
	return x;
}

/* The defaults (what `proxima solve P` runs without -c: conf/default.ini's
 * settings, test_layers keeps them equal), with the scheduler's keys
 * replaced by scheduler's (SECTION.KEY=VALUE, comma-separated) when it is
 * not NULL. */
static struct px_config *default_with(const char *scheduler)
{
	struct px_config_layer l[4];
	char keys[256], *k, *save = NULL;
	size_t n = 0;
	struct px_config *cfg;
	struct px_error err = {0};

	snprintf(keys, sizeof keys, "%s", scheduler ? scheduler : "");
	for (k = strtok_r(keys, ",", &save); k && n < 4;
	     k = strtok_r(NULL, ",", &save))
		l[n++] = (struct px_config_layer){PX_LAYER_SET, k, NULL};
	cr_assert_eq(px_config_build(l, n, &cfg, &err), PX_OK, "%s", err.msg);
	return cfg;
}

static void default_config(size_t i, const char *scheduler)
{
	struct px_problem *p = read_problem(i);
	struct px_config *cfg = default_with(scheduler);
	struct px_report rep;
	struct px_error err = {0};
	double *x = zeros(p), e;

	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s", err.msg);
	e = oracle_fc3d(p, x);
	cr_assert(rep.converged, "%s: not converged after %llu sweeps, fc3d %g",
		  problems[i], (unsigned long long)rep.sweeps, e);
	assert_solution(p, x, LAW_REL, LAW_ABS, 1e-8, problems[i]);
	cr_log_info("%s %s: %llu sweeps, fc3d %.2e\n",
		    scheduler ? scheduler : "default", problems[i],
		    (unsigned long long)rep.sweeps, e);
	px_report_free(&rep);
	px_config_free(cfg);
	free(x);
	px_problem_destroy(p);
}

static void combinations(size_t i)
{
	static const char *const fr[] = {"disc", "ellipsoid"};
	static const char *const rf[] = {"global", "local", "blocked"};
	static const char *const sc[] = {
		"sequential",
		"jacobi\nthreads = 2\nserial_below = 0",
		"colored\ncoloring = greedy\nthreads = 2\nserial_below = 0",
		"colored\ncoloring = balanced\nmerge_below = 16\nthreads = 2\nserial_below = 0",
		"naive\nthreads = 2\nserial_below = 0",
	};
	const int n_sc = sizeof sc / sizeof *sc;
	struct px_problem *p = read_problem(i);
	int converged = 0;

	for (int f = 0; f < 2; f++)
		for (int r = 0; r < 3; r++)
			for (int s = 0; s < n_sc; s++) {
				char text[512];
				struct px_config *cfg;
				struct px_report rep;
				double *x = zeros(p);

				snprintf(text, sizeof text,
					 "[solver]\nmax_sweeps = 400\nmerit = delta\n"
					 "[friction]\nplugin = %s\n[rfactor]\nplugin = %s\n"
					 "[scheduler]\nplugin = %s\n",
					 fr[f], rf[r], sc[s]);
				cfg = config_from_text(text);
				cr_assert_eq(px_solve(p, cfg, x, &rep, NULL), PX_OK);
				if (rep.converged) {
					char what[256];

					snprintf(what, sizeof what, "%s with %s/%s/%s",
						 problems[i], fr[f], rf[r], sc[s]);
					converged++;
					assert_solution(p, x, COMBO_LAW_REL, 0.0, 1e-8, what);
				}
				px_report_free(&rep);
				px_config_free(cfg);
				free(x);
			}
	cr_log_info("%s: %d of %d combinations converged within 400 sweeps\n",
		    problems[i], converged, 2 * 3 * n_sc);
	cr_assert_geq(converged, must_converge[i],
		      "%s: %d of %d combinations converged within 400 sweeps, %d did before",
		      problems[i], converged, 2 * 3 * n_sc, must_converge[i]);
	px_problem_destroy(p);
}

#define PROBLEM_TESTS(i)                                                       \
	Test(default_config, problem_##i, .timeout = 120)                      \
	{                                                                      \
		default_config(i, NULL);                                       \
	}                                                                      \
	Test(default_config_colored, problem_##i, .timeout = 120)              \
	{                                                                      \
		default_config(i, "scheduler.plugin=colored,"                  \
				  "scheduler.threads=1");                      \
	}                                                                      \
	Test(combinations, problem_##i, .timeout = 120)                        \
	{                                                                      \
		combinations(i);                                               \
	}

PROBLEM_TESTS(0)
PROBLEM_TESTS(1)
PROBLEM_TESTS(2)
PROBLEM_TESTS(3)
PROBLEM_TESTS(4)
PROBLEM_TESTS(5)
PROBLEM_TESTS(6)
PROBLEM_TESTS(7)
PROBLEM_TESTS(8)
PROBLEM_TESTS(9)
PROBLEM_TESTS(10)
PROBLEM_TESTS(11)
PROBLEM_TESTS(12)

/* A .dat or .hdf5 file added to ../shared/problems must be added above. */
Test(acceptance, covers_every_dat_file)
{
	char path[4096];
	DIR *d;
	struct dirent *e;

	shared_problem("", path, sizeof path);
	d = opendir(path);
	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), i;

		if ((len < 4 || strcmp(e->d_name + len - 4, ".dat") != 0) &&
		    (len < 5 || strcmp(e->d_name + len - 5, ".hdf5") != 0))
			continue;
		for (i = 0; i < N_PROBLEMS; i++)
			if (strcmp(problems[i], e->d_name) == 0)
				break;
		cr_expect_lt(i, N_PROBLEMS, "%s is not in the list", e->d_name);
	}
	closedir(d);
}
