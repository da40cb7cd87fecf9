/* Acceptance on every problem in ../shared/problems:
 *   - conf/default.ini reaches fc3d error < 1e-8 and the contact laws hold,
 *     and so does it with the colored scheduler (greedy) in place of
 *     sequential: run on one thread, as its iterate is bit for bit the same
 *     for any thread count (test_schedulers);
 *   - every combination of {disc, ellipsoid with mu_s = mu_t} x {global,
 *     local, blocked} x {sequential, jacobi, colored greedy, colored
 *     balanced with small colors merged, naive} either reaches fc3d error
 *     < 1e-8 or says it did not converge: none reports success above 1e-8.
 *     The parallel schedulers run 2 threads even on the smallest problems
 *     (serial_below = 0). The combinations stop on delta (the default stop
 *     test, certified by the driver) with a sweep cap that keeps the suite
 *     fast. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <string.h>

#include "helpers.h"

static const char *const problems[] = {
	"BoxesStack1-i100000-32.hdf5.dat",
	"Capsules-i122-1617.dat",
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

static struct px_problem *read_problem(size_t i)
{
	char path[4096];
	struct px_problem *p;
	struct px_error err = {0};

	cr_assert_eq(px_dat_read(shared_problem(problems[i], path, sizeof path),
				 &p, &err),
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

/* conf/default.ini, its [scheduler] section replaced when scheduler is not
 * NULL, as a config. */
static struct px_config *default_with(const char *scheduler)
{
	static const char key[] = "[scheduler]\nplugin = sequential\n";
	char buf[4096], text[4096];
	const char *at;
	FILE *f = fopen(PX_TEST_SRCDIR "/conf/default.ini", "r");
	size_t got;

	cr_assert_not_null(f);
	got = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[got] = '\0';
	at = strstr(buf, key);
	cr_assert_not_null(at, "conf/default.ini has no '%s'", key);
	snprintf(text, sizeof text, "%.*s[scheduler]\n%s%s", (int)(at - buf), buf,
		 scheduler ? scheduler : "plugin = sequential\n",
		 at + strlen(key));
	return config_from_text(text);
}

static void default_config(size_t i, const char *scheduler)
{
	struct px_problem *p = read_problem(i);
	struct px_config *cfg = default_with(scheduler);
	struct px_report rep;
	struct px_error err = {0};
	double *x = zeros(p), e;

	cr_assert_eq(px_solve(p, cfg, x, &rep, &err), PX_OK, "%s", err.msg);
	e = px_merit_fc3d(p, x, NULL);
	cr_assert(rep.converged, "%s: not converged after %llu sweeps, fc3d %g",
		  problems[i], (unsigned long long)rep.sweeps, e);
	cr_assert_lt(e, 1e-8, "%s: fc3d %g", problems[i], e);
	/* 1e-5: Capsules has contacts sliding at ~1e-5 of the velocity scale,
	 * whose direction an fc3d error of 5e-9 fixes only to ~5e-8 */
	cr_assert_eq(check_contact_laws(p, x, 1e-5), 0, "%s", problems[i]);
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
				double *x = zeros(p), e;

				snprintf(text, sizeof text,
					 "[solver]\nmax_sweeps = 400\nmerit = delta\n"
					 "[friction]\nplugin = %s\n[rfactor]\nplugin = %s\n"
					 "[scheduler]\nplugin = %s\n",
					 fr[f], rf[r], sc[s]);
				cfg = config_from_text(text);
				cr_assert_eq(px_solve(p, cfg, x, &rep, NULL), PX_OK);
				e = px_merit_fc3d(p, x, NULL);
				if (rep.converged) {
					converged++;
					cr_assert_lt(e, 1e-8,
						     "%s with %s/%s/%s: reported converged at fc3d %g",
						     problems[i], fr[f], rf[r], sc[s], e);
				}
				px_report_free(&rep);
				px_config_free(cfg);
				free(x);
			}
	cr_log_info("%s: %d of %d combinations converged within 400 sweeps\n",
		    problems[i], converged, 2 * 3 * n_sc);
	px_problem_destroy(p);
}

#define PROBLEM_TESTS(i)                                                       \
	Test(default_config, problem_##i, .timeout = 120)                      \
	{                                                                      \
		default_config(i, NULL);                                       \
	}                                                                      \
	Test(default_config_colored, problem_##i, .timeout = 120)              \
	{                                                                      \
		default_config(i, "plugin = colored\nthreads = 1\n");         \
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

/* A .dat file added to ../shared/problems must be added above. */
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

		if (len < 4 || strcmp(e->d_name + len - 4, ".dat") != 0)
			continue;
		for (i = 0; i < N_PROBLEMS; i++)
			if (strcmp(problems[i], e->d_name) == 0)
				break;
		cr_expect_lt(i, N_PROBLEMS, "%s is not in the list", e->d_name);
	}
	closedir(d);
}
