/* Numerical and plugin faults (issue 22), through the proxima command: a
 * problem the solve cannot handle is refused with one line (exit 2); a
 * solve or a run that turns non-finite is reported as diverged with the
 * sweep or step where it happened (exit 1), and nothing non-finite is
 * written; under [solver] check = on a friction plugin that returns NaN or
 * writes outside its rows is named, and an ordering's broken permutation
 * always. The broken plugins are test-only (tests/plugins/friction_faulty.c,
 * rfactor_shrink.c, ordering_faulty.c). */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

static char out[PX_CLI_OUT_MAX], err[PX_CLI_OUT_MAX];
static char dir[64];

/* dir/name holding text; its path into path. */
static const char *put(const char *name, const char *text, char *path,
		       size_t len)
{
	FILE *f;

	if (!*dir) {
		snprintf(dir, sizeof dir, "/tmp/px_faults_XXXXXX");
		cr_assert_not_null(mkdtemp(dir));
	}
	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* `proxima ARGS` with the test plugins found first; stdout and stderr
 * captured; the exit status. */
static int run(const char *args)
{
	char env[512];

	snprintf(env, sizeof env, "PROXIMA_PLUGIN_PATH=%s:%s",
		 PX_TEST_PLUGIN_DIR, PX_PLUGIN_BUILD_DIR);
	return run_cli(dir, env, args, out, err);
}

/* A one-contact .dat problem: W's rows, q = (-1, 2, 3), mu. */
static const char *problem(const char *name, const char *w, const char *mu,
			   char *path, size_t len)
{
	char text[1024];

	snprintf(text, sizeof text, "3\n1\n0\n3\n3\n3\n3\n%s\n-1\n2\n3\n%s\n",
		 w, mu);
	return put(name, text, path, len);
}

#define W_GOOD "15 -1 -2 -1 14 1 -2 1 16"

/* `proxima solve [-c CONFIG] PATH` fails with exit 2 and the one line
 * "proxima: PATH: what". */
static void refused(const char *config, const char *path, const char *what)
{
	char args[1024], want[2048];

	snprintf(args, sizeof args, "solve %s%s %s", config ? "-c " : "",
		 config ? config : "", path);
	cr_assert_eq(run(args), 2, "%s%s", out, err);
	snprintf(want, sizeof want, "proxima: %s: %s\n", path, what);
	cr_assert_str_eq(err, want);
}

/* every test runs in its own process with its own scratch directory */
static void remove_dir(void)
{
	remove_tree(dir);
}

TestSuite(faults, .fini = remove_dir);

Test(faults, bad_diagonal_blocks_are_refused)
{
	char p[256], c[256];

	/* the global rfactor takes any diagonal: the driver refuses them */
	put("global.ini", "[rfactor]\nplugin = global\n", c, sizeof c);
	refused(c, problem("zero.dat", "0 -1 -2 -1 14 1 -2 1 16", "0.1", p, sizeof p),
		"A: contact 0: diagonal entry A[0][0] = 0, expected > 0 on a normal row");
	refused(c, problem("neg.dat", "-15 -1 -2 -1 14 1 -2 1 16", "0.1", p, sizeof p),
		"A: contact 0: diagonal entry A[0][0] = -15, expected > 0 on a normal row");
	refused(c, problem("negf.dat", "15 -1 -2 -1 -14 1 -2 1 16", "0.1", p, sizeof p),
		"A: contact 0: diagonal entry A[1][1] = -14, expected >= 0 (A is positive semi-definite)");
}

Test(faults, non_finite_entries_and_negative_mu_are_refused)
{
	char p[256];

	refused(NULL, problem("nan.dat", "15 nan -2 -1 14 1 -2 1 16", "0.1", p, sizeof p),
		"line 8, token 9 'nan' is not finite (W value 2 of 9)");
	refused(NULL, problem("inf.dat", "15 -1 -2 -1 14 1 -2 1 1e999", "0.1", p, sizeof p),
		"line 8, token 16 '1e999' is out of range (W value 9 of 9)");
	refused(NULL, problem("mu.dat", W_GOOD, "-0.1", p, sizeof p),
		"mu[0] = -0.1 is negative");
}

/* A diagonal of 1e-310 (subnormal) gives r = 1/A_ii = inf. */
Test(faults, an_r_factor_that_overflows_is_refused)
{
	char p[256];

	refused(NULL, problem("tiny.dat", "1e-310 0 0 0 1e-310 0 0 0 1e-310", "0.1", p, sizeof p),
		"rfactor plugin 'local': init: r[0] = inf, expected finite and > 0");
}

Test(faults, an_r_factor_that_underflows_ends_the_solve_diverged)
{
	char p[256], c[256], o[256], args[1024];
	double x[3];
	FILE *f;

	problem("ok.dat", W_GOOD, "0.1", p, sizeof p);
	put("shrink.ini", "[rfactor]\nplugin = shrink\n", c, sizeof c);
	snprintf(o, sizeof o, "%s/shrink.txt", dir);
	snprintf(args, sizeof args, "solve -c %s %s --out %s", c, p, o);
	cr_assert_eq(run(args), 1, "%s%s", out, err);
	cr_assert(strstr(out, "\ndiverged    at sweep 3: the rfactor plugin shrank an r-factor to 0 or made it non-finite (the sweep was rolled back: the solution is the last finite iterate)\n"),
		  "%s", out);
	/* the first sweep's iterate, kept */
	f = fopen(o, "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%lf %lf %lf", &x[0], &x[1], &x[2]), 3);
	fclose(f);
	cr_assert_eq(x[0], 1.0);
	cr_assert(isfinite(x[1]) && isfinite(x[2]));
}

Test(faults, a_nan_projection_ends_the_solve_diverged_at_sweep_1)
{
	char p[256], c[256], o[256], args[1024];
	double x;
	FILE *f;
	int n = 0;

	problem("ok.dat", W_GOOD, "0.1", p, sizeof p);
	put("nan.ini", "[friction]\nplugin = nanproject\n", c, sizeof c);
	snprintf(o, sizeof o, "%s/nan.txt", dir);
	snprintf(args, sizeof args, "solve -c %s %s --out %s", c, p, o);
	cr_assert_eq(run(args), 1, "%s%s", out, err);
	cr_assert(strstr(out, "result      NOT converged after 1 sweeps (1 rejected)"), "%s", out);
	cr_assert(strstr(out, "\ndiverged    at sweep 1: the iterate turned non-finite and the rfactor plugin kept R; [solver] check = on names a friction plugin at fault (the sweep was rolled back: the solution is the last finite iterate)\n"),
		  "%s", out);
	/* the warm start (zero), never the NaN */
	f = fopen(o, "r");
	cr_assert_not_null(f);
	while (fscanf(f, "%lf", &x) == 1) {
		cr_assert_eq(x, 0.0);
		n++;
	}
	fclose(f);
	cr_assert_eq(n, 3);
}

Test(faults, check_on_names_the_plugin_at_fault)
{
	char p[256], c[256];

	problem("ok.dat", W_GOOD, "0.1", p, sizeof p);
	put("nanc.ini", "[solver]\ncheck = on\nmerit = natural\n[friction]\nplugin = nanproject\n", c, sizeof c);
	refused(c, p, "friction plugin 'nanproject': project returned a non-finite impulse (contact 0, sweep 1; [solver] check = on)");
	put("outc.ini", "[solver]\ncheck = on\nmerit = natural\n[friction]\nplugin = outside\n", c, sizeof c);
	refused(c, p, "friction plugin 'outside': project wrote outside the friction rows it was given (contact 0, sweep 1; [solver] check = on)");
}

/* check = on changes nothing in a good solve: the same sweeps and the same
 * solution, bit for bit. */
Test(faults, check_on_keeps_a_good_solve)
{
	char p[256], c[256], args[1024], o1[256], o2[256], a[512], b[512];
	char result[256];

	problem("ok.dat", W_GOOD, "0.1", p, sizeof p);
	put("okc.ini", "[solver]\ncheck = on\n", c, sizeof c);
	snprintf(o1, sizeof o1, "%s/plain.txt", dir);
	snprintf(o2, sizeof o2, "%s/checked.txt", dir);
	snprintf(args, sizeof args, "solve %s --out %s", p, o1);
	cr_assert_eq(run(args), 0, "%s%s", out, err);
	cr_assert_not_null(strstr(out, "result      converged after "), "%s", out);
	snprintf(result, sizeof result, "%.*s",
		 (int)strcspn(strstr(out, "result"), "\n"), strstr(out, "result"));
	snprintf(args, sizeof args, "solve -c %s %s --out %s", c, p, o2);
	cr_assert_eq(run(args), 0, "%s%s", out, err);
	cr_assert(strstr(out, result), "%s\n%s", result, out);
	read_text(o1, a, sizeof a);
	read_text(o2, b, sizeof b);
	cr_assert_str_eq(a, b);
}

/* A ball at 3e7 m/s with dt = 1e300 s: its x passes 1.5e308 at step 5
 * and overflows at step 6; the run stops there, exit 1, and writes no
 * frame of that step. */
Test(faults, a_scene_that_turns_non_finite_stops_diverged)
{
	char s[256], args[1024], want[512], frame[512];

	put("blow.ini", "[world]\ngravity = 0, 0, 0\ndt = 1e300\nsteps = 40\n"
			"[body ball]\nshape = sphere\nradius = 1\nmass = 1\n"
			"velocity = 3e7, 0, 0\n",
	    s, sizeof s);
	snprintf(args, sizeof args, "run %s --quiet --vtk %s/frames", s, dir);
	cr_assert_eq(run(args), 1, "%s%s", out, err);
	snprintf(want, sizeof want,
		 "proxima: %s: step 6: body 0: its position is not finite (diverged)\n", s);
	cr_assert_str_eq(err, want);
	snprintf(frame, sizeof frame, "%s/frames/frame_000005.vtp", dir);
	cr_assert_eq(access(frame, R_OK), 0);
	snprintf(frame, sizeof frame, "%s/frames/frame_000006.vtp", dir);
	cr_assert_neq(access(frame, R_OK), 0);
}

/* Gravity 1e307 with dt = 1: every state stays finite until step 6, but
 * the kinetic energy m v^2 / 2 overflows at step 1; the run stops there
 * rather than write inf into the CSV. */
Test(faults, a_scene_whose_energy_overflows_stops_diverged)
{
	char s[256], args[1024], want[512], csv[512], text[4096];

	put("hot.ini", "[world]\ngravity = 0, 0, -1e307\ndt = 1\nsteps = 40\n"
		       "[body ball]\nshape = sphere\nradius = 1\nmass = 1\n",
	    s, sizeof s);
	snprintf(csv, sizeof csv, "%s/hot.csv", dir);
	snprintf(args, sizeof args, "run %s --quiet --csv %s", s, csv);
	cr_assert_eq(run(args), 1, "%s%s", out, err);
	snprintf(want, sizeof want,
		 "proxima: %s: step 1: the bodies' kinetic energy is not finite (inf J): their state overflows it (diverged)\n",
		 s);
	cr_assert_str_eq(err, want);
	read_text(csv, text, sizeof text);
	cr_assert_null(strstr(text, "inf"), "%s", text);
	cr_assert_null(strchr(strchr(text, '\n') + 1, '\n'), "rows: %s", text);
}

/* An ordering's permutation is checked after prepare always, after every
 * rewrite under check = on; the part it returns always. */
Test(faults, a_broken_ordering_is_named)
{
	const char *two = PX_TEST_SRCDIR "/scenes/two-boxes.dat";
	char c[256];

	put("badperm.ini", "[ordering]\nplugin = badperm\n", c, sizeof c);
	refused(c, two, "ordering plugin 'badperm': prepare: perm[0] = 8 is not a contact left unvisited (8 contacts): the permutation is broken");
	put("badpart.ini", "[ordering]\nplugin = badpart\n", c, sizeof c);
	refused(c, two, "ordering plugin 'badpart': next: returned part 7, expected 0 (full), 1 (normal) or 2 (friction)");
	put("badnext.ini", "[solver]\ncheck = on\n[ordering]\nplugin = badnext\n", c, sizeof c);
	refused(c, two, "ordering plugin 'badnext': next: perm[1] = 0 is not a contact left unvisited (8 contacts): the permutation is broken");
}
