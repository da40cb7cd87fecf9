/* The distributed solve (issue 21) through mpirun: one rank is the serial
 * solve bit for bit, 2 and 3 ranks reach the sequential fc3d tolerance on
 * the shared problems, runs repeat bit for bit, the global test's sums
 * are a fixed tree whatever order its messages arrive in
 * (tests/mpi_reduce.c), the ghost exchange loses no impulse, ranks without contacts and bodies on three ranks work, and
 * bad input and a failing partitioner give one line from rank 0 and exit
 * status 2 on every rank (under `timeout`: a hang fails the test); the
 * serial commands' options mean the same (--warm-start, --save-fclib,
 * --cache, run's default scene) or are refused with the reason (issue
 * 30, item 6).
 *
 * The answers are read from the files the program writes, not from what
 * it prints: a solve's `--out` is checked with the oracles of
 * tests/oracle.h (Coulomb's law per contact and Siconos's fc3d error,
 * computed outside proxima); a run's `--state` (hexadecimal floats) gives
 * the bodies' final states and the momentum balance, computed here. "Bit
 * for bit" compares the doubles (the solutions parsed and compared with
 * memcmp, the states' %a text). The printed report is checked only for
 * what it says about itself. */
#include "config.h"

#include <sys/wait.h>

#include "helpers.h"
#include "oracle.h"

/* Coulomb's law per contact (tests/oracle.h), each residual at most
 * LAW_REL_* times the contact's own scale, chosen from what the solutions
 * reach (the worst contact's residual over its scale, in the log with
 * --verbose): at fc3d <= 1e-6 (LAW_REL_6) 3.8e-4 on Capsules-i122 (3
 * ranks; 2.8e-4 on 2), 5.8e-5 on Rover1040 and Confeti, at most 9e-6 on
 * the others; at fc3d <= 1e-8 (LAW_REL_8, OneObject) 2.7e-9. */
#define LAW_REL_6 1e-3
#define LAW_REL_8 1e-7
#define LAW_ABS 0.0

static char out[65536], err[65536];

/* What the solution reached: the worst contact's residual over its own
 * scale, in the test's log. */
static void worst(const char *what, double w)
{
	cr_log_info("%s: worst contact residual %.3g of its scale", what, w);
}
static char dir[64];
static char settings[128]; /* TEST_SETTINGS as a file, for -c */

static void setup(void)
{
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	setenv("PROXIMA_MPI", PX_PROXIMA_MPI, 1);
	snprintf(dir, sizeof dir, "/tmp/px_dist_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	/* Open MPI's session directories in the test's own folder: the
	 * mpiruns of tests run side by side race on one shared tree in /tmp
	 * ("ORTE_ERROR_LOG: Error in file util/session_dir.c") */
	setenv("OMPI_MCA_orte_tmpdir_base", dir, 1);
	write_file_in(dir, "settings.ini", TEST_SETTINGS, settings,
		      sizeof settings);
}

static void teardown(void)
{
	remove_tree(dir);
}

/* A hang fails a command after a minute, times PX_TEST_SLOWDOWN (a
 * sanitizer build sets it: tests/sanitize.am), and a test after five
 * (twenty-five under ASan: the re-balancing test's four runs of a
 * 60-step pile took 108 s there under make -j2 check). */
#define HANG "timeout $((60 * ${PX_TEST_SLOWDOWN:-1})) "
#if defined(__SANITIZE_ADDRESS__)
#define TEST_LIMIT 1500
#else
#define TEST_LIMIT 300
#endif

TestSuite(dist, .init = setup, .fini = teardown, .timeout = TEST_LIMIT);

/* Run cmd (a shell command) with stdout and stderr captured. */
static int sh(const char *cmd)
{
	char full[8192], o[128], e[128];
	int st;

	snprintf(o, sizeof o, "%s/stdout", dir);
	snprintf(e, sizeof e, "%s/stderr", dir);
	snprintf(full, sizeof full, "%s >%s 2>%s", cmd, o, e);
	st = system(full);
	read_text(o, out, sizeof out);
	read_text(e, err, sizeof err);
	cr_assert(WIFEXITED(st), "%s did not exit normally", cmd);
	return WEXITSTATUS(st);
}

/* `mpirun -np np proxima ARGS` (proxima hands over to proxima-mpi); 124
 * when it hangs (HANG). Not bound to cores: the OpenMP threads of a
 * rank need more than one. In a sanitizer build (tests/sanitize.am) the
 * ranks run without LeakSanitizer: Open MPI 4.1 keeps what MPI_Init
 * allocates, much of it in MCA components that MPI_Finalize unloads, whose
 * frames LeakSanitizer cannot name and so no suppression can match; ASan's
 * and UBSan's other checks stay on, and the serial commands keep leak
 * detection. */
static int mpi(int np, const char *args)
{
	char cmd[4096];

	snprintf(cmd, sizeof cmd,
		 HANG "env ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" %s -q --oversubscribe --bind-to none -np %d %s %s",
		 PX_MPIRUN, np, PX_CLI, args);
	return sh(cmd);
}

static void write_file(const char *name, const char *text, char *path,
		       size_t len)
{
	write_file_in(dir, name, text, path, len);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The number after `key` in out, or NAN. */
static double number_after(const char *key)
{
	const char *at = strstr(out, key);

	return at ? strtod(at + strlen(key), NULL) : NAN;
}

/* The text of a and b is the same (and not empty). */
static void same_file(const char *a, const char *b)
{
	static char x[1 << 16], y[1 << 16];

	read_text(a, x, sizeof x);
	read_text(b, y, sizeof y);
	cr_assert(*x, "%s is empty", a);
	cr_assert_str_eq(x, y, "%s and %s differ", a, b);
}

/* The problem file path, read (px_problem_read), or fail. */
static struct px_problem *read_problem(const char *path)
{
	struct px_problem *p;
	struct px_error e = {0};

	cr_assert_eq(px_problem_read(path, &p, PX_FCLIB_R_NONE, NULL, &e), PX_OK,
		     "%s: %s", path, e.msg);
	return p;
}

/* The solutions in files a and b of problem p are the same doubles. */
static void same_solution(const struct px_problem *p, const char *a,
			  const char *b)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	double *x = read_solution(a, m), *y = read_solution(b, m);

	for (size_t i = 0; i < m; i++)
		cr_assert(memcmp(x + i, y + i, sizeof *x) == 0,
			  "%s and %s differ at %zu: %a vs %a", a, b, i, x[i], y[i]);
	free(x);
	free(y);
}

/* The solution the program wrote to sol for the problem file path,
 * checked with the oracles: Coulomb's law on every contact to rel times
 * its own scale, fc3d error (Siconos's, computed outside proxima) at most
 * fc3d_tol. Returns the worst contact's residual over its scale. */
static double check_solution(const char *path, const char *sol, double rel,
			     double fc3d_tol, const char *what)
{
	struct px_problem *p = read_problem(path);
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	double *lambda = read_solution(sol, m);
	const double worst = assert_solution(p, lambda, rel, LAW_ABS, fc3d_tol,
					     what);

	free(lambda);
	px_problem_destroy(p);
	return worst;
}

/* ---- a run's final state (--state) ---------------------------------- */

/* One row of a --state file: body, mass, x[3], q[4], v[3], w[3], j[3]. */
enum { S_BODY, S_MASS, S_X, S_Q = S_X + 3, S_V = S_Q + 4, S_W = S_V + 3,
       S_J = S_W + 3, S_N = S_J + 3 };
#define MAX_BODIES 256

struct state {
	size_t n;
	double row[MAX_BODIES][S_N];
};

/* A --state file, every row in the scene's order (body 0, 1, ...). */
static void read_state(const char *path, struct state *st)
{
	static char text[1 << 17];
	char *line, *save = NULL;

	read_text(path, text, sizeof text);
	line = strtok_r(text, "\n", &save);
	cr_assert(line && strcmp(line, "body,mass,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,jx,jy,jz") == 0,
		  "%s: no header", path);
	st->n = 0;
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *at = line, *end;

		cr_assert_lt(st->n, MAX_BODIES);
		for (int c = 0; c < S_N; c++) {
			st->row[st->n][c] = strtod(at, &end);
			cr_assert(end > at && *end == (c + 1 < S_N ? ',' : '\0'),
				  "%s: row %zu: column %d: '%s'", path, st->n, c, line);
			at = end + 1;
		}
		cr_assert_eq(st->row[st->n][S_BODY], (double)st->n, "%s: rows out of order", path);
		st->n++;
	}
	cr_assert_gt(st->n, 0, "%s: no body", path);
}

/* The momentum balance of a run from its final state: the moving bodies'
 * momentum change (from p0, their momentum at the start, which the test
 * knows from its scene) against gravity's impulse (g over steps steps of
 * dt) plus what the static bodies' contacts gave them. Returns the
 * difference relative to the larger of those two impulses; the static
 * contacts' total impulse into j when not NULL. */
static double momentum_balance(const struct state *st, const double p0[3],
			       const double g[3], double dt, int steps,
			       double j[3])
{
	double p[3] = {0}, jj[3] = {0}, mass = 0, diff = 0, scale = 0;

	for (size_t i = 0; i < st->n; i++) {
		const double *r = st->row[i];

		mass += r[S_MASS];
		for (int q = 0; q < 3; q++) {
			p[q] += r[S_MASS] * r[S_V + q];
			jj[q] += r[S_J + q];
		}
		if (r[S_MASS] > 0)
			cr_assert(r[S_J] == 0 && r[S_J + 1] == 0 && r[S_J + 2] == 0,
				  "moving body %zu has a static impulse", i);
	}
	for (int q = 0; q < 3; q++) {
		const double grav = mass * g[q] * dt * steps;

		diff = fmax(diff, fabs(p[q] - p0[q] - jj[q] - grav));
		scale = fmax(scale, fmax(fabs(jj[q]), fabs(grav)));
		if (j)
			j[q] = jj[q];
	}
	return scale > 0 ? diff / scale : diff;
}

/* Two runs' final states agree: the same bodies and masses, the centres
 * to dx (m) and the velocities to dv (m/s, rad/s). */
static void close_states(const struct state *a, const struct state *b,
			 double dx, double dv, const char *what)
{
	double wx = 0, wv = 0;

	cr_assert_eq(a->n, b->n, "%s: %zu bodies vs %zu", what, a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		cr_assert_eq(a->row[i][S_MASS], b->row[i][S_MASS], "%s: body %zu", what, i);
		for (int q = 0; q < 3; q++) {
			wx = fmax(wx, fabs(a->row[i][S_X + q] - b->row[i][S_X + q]));
			wv = fmax(wv, fabs(a->row[i][S_V + q] - b->row[i][S_V + q]));
			wv = fmax(wv, fabs(a->row[i][S_W + q] - b->row[i][S_W + q]));
		}
	}
	cr_log_info("%s: centres within %.3g m, velocities within %.3g", what, wx, wv);
	cr_assert_leq(wx, dx, "%s: centres differ by %g m", what, wx);
	cr_assert_leq(wv, dv, "%s: velocities differ by %g", what, wv);
}

Test(dist, one_rank_is_the_serial_solve_bit_for_bit)
{
	char p[512], a[128], b[128], cmd[2048], serial[4096];
	char *cut;

	shared_problem("OneObject-i1028-138.hdf5.dat", p, sizeof p);
	snprintf(a, sizeof a, "%s/serial.txt", dir);
	snprintf(b, sizeof b, "%s/mpi.txt", dir);
	snprintf(cmd, sizeof cmd, "%s solve %s --out %s", PX_CLI, p, a);
	cr_assert_eq(sh(cmd), 0, "%s", err);
	/* "converged after N sweeps (R rejected" */
	snprintf(serial, sizeof serial, "%s", strstr(out, "converged after"));
	cut = strstr(serial, " rejected");
	cr_assert_not_null(cut, "%s", out);
	*cut = '\0';
	snprintf(cmd, sizeof cmd, "solve %s --out %s", p, b);
	cr_assert_eq(mpi(1, cmd), 0, "%s", err);
	{
		struct px_problem *q = read_problem(p);

		same_solution(q, a, b);
		px_problem_destroy(q);
	}
	/* the answer itself (the default config stops at fc3d <= 1e-8) */
	worst("one rank", check_solution(p, b, LAW_REL_8, 1e-8, "one rank"));
	/* the report: the same sweeps and rejections as the serial one */
	cr_assert_not_null(strstr(out, serial), "%s\nvs %s", out, serial);
}

/* Every shared problem the sequential solve brings to fc3d <= 1e-6 within
 * 5000 sweeps, solved on np ranks (up to 20000 sweeps). */
static void reach_sequential_tolerance(int np)
{
	static const char *const names[] = {
		"Capsules-i122-1617.dat", "Confeti-ex13-4contact-Fc3D-SBM.dat",
		"FC3D_Example1.dat", "GFC3D_TwoRods1-condensed.dat",
		"KaplasTower-i1061-4.hdf5.dat", "NESpheres_10_1.dat",
		"OneObject-i1028-138.hdf5.dat", "Rover1040.dat", "Rover4516.dat",
	};
	char p[512], seq[128], dist[128], sol[128], cmd[2048], what[256];

	write_file("seq.ini", "[solver]\nmerit = fc3d\nabs_tol = 1e-6\nmax_sweeps = 5000\n",
		   seq, sizeof seq);
	write_file("dist.ini", "[solver]\nmerit = fc3d\nabs_tol = 1e-6\nmax_sweeps = 20000\n",
		   dist, sizeof dist);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		shared_problem(names[i], p, sizeof p);
		snprintf(cmd, sizeof cmd, "%s solve -c %s %s", PX_CLI, seq, p);
		cr_assert_eq(sh(cmd), 0, "sequential %s: %s", names[i], out);
		snprintf(sol, sizeof sol, "%s/sol.txt", dir);
		snprintf(cmd, sizeof cmd, "solve -c %s %s --check-every 10 --out %s", dist, p, sol);
		cr_assert_eq(mpi(np, cmd), 0, "%d ranks, %s: %s%s", np, names[i], out, err);
		/* the gathered solution, checked on the whole problem */
		snprintf(what, sizeof what, "%d ranks, %s", np, names[i]);
		worst(what, check_solution(p, sol, LAW_REL_6, 1e-6, what));
		/* the report's own figure */
		cr_assert_leq(number_after("fc3d error  "), 1e-6, "%s: %s", names[i], out);
	}
}

Test(dist, two_ranks_reach_the_sequential_tolerance)
{
	reach_sequential_tolerance(2);
}

Test(dist, three_ranks_reach_the_sequential_tolerance)
{
	reach_sequential_tolerance(3);
}

Test(dist, runs_repeat_bit_for_bit)
{
	char p[512], a[128], b[128], cmd[2048];

	shared_problem("KaplasTower-i1061-4.hdf5.dat", p, sizeof p);
	snprintf(a, sizeof a, "%s/a.txt", dir);
	snprintf(b, sizeof b, "%s/b.txt", dir);
	snprintf(cmd, sizeof cmd, "solve -c %s %s --combine sum --out %s",
		 settings, p, a);
	cr_assert_eq(mpi(3, cmd), 1, "%s%s", out, err);
	cr_assert(strstr(out, "exchanges"), "%s", out);
	snprintf(cmd, sizeof cmd, "solve -c %s %s --combine sum --out %s",
		 settings, p, b);
	cr_assert_eq(mpi(3, cmd), 1, "%s%s", out, err);
	{
		struct px_problem *q = read_problem(p);

		same_solution(q, a, b);
		px_problem_destroy(q);
	}
	/* block Jacobi overshoots on this tower: the default 10000 sweeps
	 * end far from a solution (exit status 1), the same way twice; the
	 * error the report gives is that of the solution written */
	cr_assert(strstr(out, "NOT converged after 10000 sweeps"), "%s", out);
	{
		struct px_problem *q = read_problem(p);
		double *lambda = read_solution(b, 3 * px_problem_n_contacts(q));
		const double e = oracle_fc3d(q, lambda);

		cr_assert_leq(fabs(number_after("fc3d error  ") - e), 1e-3 * e,
			      "fc3d error %.17g of the solution written\n%s", e, out);
		free(lambda);
		px_problem_destroy(q);
	}
}

/* The global test's sums: a fixed binomial tree in rank order, whatever
 * order its messages arrive in (tests/mpi_reduce.c varies it). */
static void tree_reduction(int np)
{
	char cmd[1024], want[128];

	snprintf(cmd, sizeof cmd,
		 HANG "env ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" %s -q --oversubscribe --bind-to none -np %d %s",
		 PX_MPIRUN, np, PX_MPI_REDUCE);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	snprintf(want, sizeof want,
		 "%d ranks, 20 rounds: 0 results differ from the tree's fold", np);
	cr_assert(strstr(out, want), "%s", out);
	cr_assert(strstr(out, "differs from the left-to-right sum"), "%s", out);
}

Test(dist, the_global_sums_are_a_fixed_tree_whatever_the_arrival_order)
{
	tree_reduction(5);
	tree_reduction(8);
}

Test(dist, a_rank_without_contacts_an_empty_part)
{
	char p[512], parts[128], text[256], sol[128], cmd[2048];
	size_t n = 0;

	/* OneObject's 23 contacts on ranks 0 and 2; rank 1's part is empty */
	shared_problem("OneObject-i1028-138.hdf5.dat", p, sizeof p);
	for (int k = 0; k < 23; k++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%d\n", k < 12 ? 0 : 2);
	write_file("parts.txt", text, parts, sizeof parts);
	snprintf(sol, sizeof sol, "%s/sol.txt", dir);
	snprintf(cmd, sizeof cmd, "solve %s --partition %s --out %s", p, parts, sol);
	cr_assert_eq(mpi(3, cmd), 0, "%s%s", out, err);
	cr_assert(strstr(out, "contacts per rank 12 0 11 "), "%s", out);
	/* the slowest rank's breakdown, and each part's largest over the
	 * ranks: at least rank 0's */
	cr_assert(strstr(out, "\nslowest     rank "), "%s", out);
	cr_assert_geq(number_after("most by one rank: solves "),
		      number_after("on rank 0: solves "), "%s", out);
	/* the default config stops at fc3d <= 1e-8 */
	worst("empty part", check_solution(p, sol, LAW_REL_8, 1e-8, "an empty part"));
	cr_assert_leq(number_after("fc3d error  "), 1e-8, "%s", out);
}

/* A grid of balls on the ground, cut into three regions. */
static const char grid_scene[] =
	"[world]\ngravity = 0, 0, -9.81\ndt = 0.01\nmu = 0.5\nrestitution = 0\n"
	"[body ground]\nshape = box\nhalf = 20, 20, 1\nposition = 5, 5, -1\nstatic = true\n"
	"[grid balls]\nshape = sphere\nradius = 1\ncount = 6, 6, 3\n"
	"origin = 0, 0, 1\nspacing = 2, 2, 2\nmass = 1\n";

static const double gravity[3] = {0, 0, -9.81};

/* The grid stepped once on three ranks under either rule: the bodies'
 * momentum change (from the state written) is what the ground pushed plus
 * gravity's, to rounding, and the bodies end where the serial step puts
 * them (both solves stop at the default fc3d tolerance). */
Test(dist, ghost_exchange_loses_no_impulse)
{
	static struct state serial, st;
	static const double p0[3];
	char scene[128], path[128], cmd[1024];

	write_file("grid.ini", grid_scene, scene, sizeof scene);
	snprintf(path, sizeof path, "%s/state.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run %s --steps 1 --state %s --quiet", PX_CLI, scene, path);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	read_state(path, &serial);
	for (int c = 0; c < 2; c++) {
		const char *rule = c ? "split" : "sum";
		double j[3], rel;

		snprintf(cmd, sizeof cmd, "run %s --steps 1 --combine %s --check-every 10 --state %s",
			 scene, rule, path);
		cr_assert_eq(mpi(3, cmd), 0, "%s: %s%s", rule, out, err);
		read_state(path, &st);
		cr_assert_eq(st.n, 109);
		rel = momentum_balance(&st, p0, gravity, 0.01, 1, j);
		cr_assert_gt(j[2], 0.1 * 108 * 9.81 * 0.01, "%s: the ground's impulse %g", rule, j[2]);
		cr_assert_leq(rel, 1e-12, "%s: momentum balance off by %g", rule, rel);
		close_states(&serial, &st, 1e-9, 1e-8, rule);
		/* the report: some body is touched by contacts of all three
		 * ranks; its own balance and error */
		cr_assert_gt(number_after(", 3: "), 0, "%s", out);
		cr_assert_leq(number_after("(relative "), 1e-12, "%s", out);
		cr_assert_leq(number_after("fc3d error  "), PX_DEFAULT_ABS_TOL,
			      "%s", out);
	}
}

/* Two groups: near (on the ground, touching) and far (spread, or touching
 * with torsional friction), cut into two regions along x. */
static void two_groups(char *scene, size_t len, const char *far)
{
	char text[2048];

	snprintf(text, sizeof text,
		 "[world]\ngravity = 0, 0, -9.81\ndt = 0.01\nmu = 0.5\nrestitution = 0\n"
		 "[body ground]\nshape = box\nhalf = 40, 10, 1\nposition = 20, 0, -1\nstatic = true\n"
		 "[grid near]\nshape = sphere\nradius = 1\ncount = 3, 3, 2\n"
		 "origin = 0, 0, 1\nspacing = 2, 2, 2\nmass = 1\n"
		 "[grid far]\nshape = sphere\nradius = 1\ncount = 3, 3, 2\nmass = 1\n%s",
		 far);
	write_file("groups.ini", text, scene, len);
}

Test(dist, a_scene_rank_without_contacts)
{
	static struct state serial, st;
	static const double p0[3];
	char scene[128], path[128], cmd[1024];

	two_groups(scene, sizeof scene, "origin = 30, 0, 10\nspacing = 3, 3, 3\n");
	snprintf(path, sizeof path, "%s/state.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run %s --steps 1 --state %s --quiet", PX_CLI, scene, path);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	read_state(path, &serial);
	snprintf(cmd, sizeof cmd, "run %s --steps 1 --state %s", scene, path);
	cr_assert_eq(mpi(2, cmd), 0, "%s%s", out, err);
	cr_assert(strstr(out, "contacts per rank 42 0 "), "%s", out);
	read_state(path, &st);
	cr_assert_leq(momentum_balance(&st, p0, gravity, 0.01, 1, NULL), 1e-12);
	/* the far group falls freely, exactly as serially */
	close_states(&serial, &st, 1e-9, 1e-8, "two groups");
	cr_assert_leq(number_after("(relative "), 1e-12, "%s", out);
}

/* `run SCENE ARGS` on 2 ranks: exit status 2 and one line saying says. */
static void run_fails(const char *scene, const char *args, const char *says)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "run %s%s", scene, args);
	cr_assert_eq(mpi(2, cmd), 2, "%s: %s", cmd, err);
	cr_assert_eq(count_lines(err), 1, "%s", err);
	cr_assert(strstr(err, says), "%s", err);
}

Test(dist, bad_problem_input_one_line_from_rank_0_and_exit_2)
{
	char p[512], parts[128], cmd[2048], want[1024];

	shared_problem("Rover4516.dat", p, sizeof p);
	snprintf(cmd, sizeof cmd, "solve %s", p);
	cr_assert_eq(mpi(5, cmd), 2, "%s", err);
	snprintf(want, sizeof want, "proxima: %s: -np 5 is more ranks than its 4 contacts\n", p);
	cr_assert_str_eq(err, want);

	write_file("parts.txt", "0\n1\n7\n0\n", parts, sizeof parts);
	snprintf(cmd, sizeof cmd, "solve %s --partition %s", p, parts);
	cr_assert_eq(mpi(2, cmd), 2, "%s", err);
	snprintf(want, sizeof want, "proxima: %s: line 3: rank 7 is out of range [0, 2)\n", parts);
	cr_assert_str_eq(err, want);

	snprintf(cmd, sizeof cmd, "solve %s --combine mean", p);
	cr_assert_eq(mpi(2, cmd), 2, "%s", err);
	cr_assert_str_eq(err, "proxima: --combine 'mean': expected sum or split\n");
}

/* Scenes the test writes: no shared file. */
Test(dist, bad_scene_input_one_line_from_rank_0_and_exit_2)
{
	char scene[128], fast[128], cfg[128], cmd[2048], want[1024];

	/* only rank 1's region has torsional friction: its part fails */
	two_groups(scene, sizeof scene,
		   "origin = 30, 0, 1\nspacing = 2, 2, 2\nmu_tau = 0.01\n");
	run_fails(scene, "", "rank 1: the distributed solve of a scene needs 3-row contacts");

	write_file("fast.ini",
		   "[world]\ngravity = 0, 0, 0\ndt = 0.01\n"
		   "[body a]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 0, 0, 0\nvelocity = 1000, 0, 0\n"
		   "[body b]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 5, 0, 0\n",
		   fast, sizeof fast);
	run_fails(fast, " --steps 3",
		  "step 1: rank 0: body 0 moved 10 m in one step, more than the ghost layer's width");
	snprintf(cmd, sizeof cmd, "run %s --steps 0", scene);
	cr_assert_eq(mpi(2, cmd), 2, "%s", err);
	cr_assert_str_eq(err, "proxima: --steps '0': expected a whole number >= 1\n");
	snprintf(cmd, sizeof cmd, "run %s --combine mean", scene);
	cr_assert_eq(mpi(2, cmd), 2, "%s", err);
	cr_assert_str_eq(err, "proxima: --combine 'mean': expected sum or split\n");
	/* a time limit, of the command or the config: refused with why */
	snprintf(cmd, sizeof cmd, "run %s --time-limit 1", scene);
	cr_assert_eq(mpi(2, cmd), 2, "%s", err);
	cr_assert_str_eq(err, "proxima: run --time-limit: not supported under mpirun (the ranks stop together only at a global test, which keeps no clock); bound max_sweeps instead, or run without mpirun\n");
	write_file("limit.ini", "[solver]\ntime_limit = 2\n", cfg, sizeof cfg);
	snprintf(cmd, sizeof cmd, "run -c %s %s", cfg, scene);
	cr_assert_eq(mpi(2, cmd), 2, "%s", err);
	snprintf(want, sizeof want, "proxima: %s: [solver] time_limit: not supported under mpirun (the ranks stop together only at a global test, which keeps no clock); bound max_sweeps instead, or run without mpirun\n", cfg);
	cr_assert_str_eq(err, want);
	/* --state to a path that cannot be written: refused before the run,
	 * serially and on every rank */
	snprintf(cmd, sizeof cmd, "%s run %s --state %s/no/such/dir/s.csv", PX_CLI, fast, dir);
	cr_assert_eq(sh(cmd), 2, "%s%s", out, err);
	snprintf(want, sizeof want, "proxima: %s/no/such/dir/s.csv: cannot write: No such file or directory\n", dir);
	cr_assert_str_eq(err, want);
	snprintf(cmd, sizeof cmd, " --state %s/no/such/dir/s.csv", dir);
	run_fails(fast, cmd, "s.csv: cannot write");
}

/* Every serial option of solve and run means the same under mpirun, or
 * is refused there with the reason (issue 30, item 6). The refused ones
 * (mpi/main.c's table) and bad values: exit status 2 and one line from
 * rank 0, before anything is read or solved. */
#define NO_JSON "not supported under mpirun (the distributed report is text only); run without mpirun\n"
#define NO_CLOCK "not supported under mpirun (the ranks stop together only at a global test, which keeps no clock); bound max_sweeps instead, or run without mpirun\n"

Test(dist, serial_options_refused_with_the_reason)
{
	static const char problem[] = PX_TEST_SRCDIR "/scenes/two-boxes.dat";
	static const char scene[] = PX_TEST_SRCDIR "/scenes/boxstack-10.ini";
	static const struct {
		const char *cmd, *args, *says;
	} cases[] = {
		{"solve", "--history h.csv", "proxima: solve --history: a distributed solve keeps no per-sweep history (each rank sweeps its own part, and the ranks meet only at a global test); run it serially for the history\n"},
		{"solve", "--time-limit 1", "proxima: solve --time-limit: " NO_CLOCK},
		{"run", "--time-limit=1", "proxima: run --time-limit: " NO_CLOCK},
		{"run", "--vtk-every 0", "proxima: --vtk-every '0': expected a whole number >= 1\n"},
		{"solve", "--json", "proxima: solve --json: " NO_JSON},
		{"run", "--json", "proxima: run --json: " NO_JSON},
		/* serial only: several problems (a folder: below) */
		{"solve", PX_TEST_SRCDIR "/scenes/two-boxes.dat",
		 "proxima: solve: one PROBLEM file under mpirun, got '" PX_TEST_SRCDIR "/scenes/two-boxes.dat' after '" PX_TEST_SRCDIR "/scenes/two-boxes.dat' (several problems are solved without mpirun only)\n"},
		/* bad values, as the serial command refuses them */
		{"solve", "--warm-start first", "proxima: --warm-start 'first': expected zero, guess or solution\n"},
		{"run", "--cache maybe", "proxima: --cache 'maybe': expected on or off\n"},
		{"solve", "--bogus", "proxima: solve: bad argument '--bogus' (try 'proxima-mpi --help')\n"},
		{"solve", "--out x.npz", "proxima: solve: --out 'x.npz': cannot write .npz (writes .txt, .csv or .npy)\n"},
	};
	char cmd[2048], want[1024];

	/* proxima-mpi alone (one rank, no launcher: a second each less), then
	 * one case through mpirun and proxima on 2 ranks */
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const int solve = strcmp(cases[i].cmd, "solve") == 0;

		snprintf(cmd, sizeof cmd,
			 "env ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" " HANG "%s %s %s %s",
			 PX_PROXIMA_MPI, cases[i].cmd, solve ? problem : scene,
			 cases[i].args);
		cr_assert_eq(sh(cmd), 2, "%s: %s%s", cmd, out, err);
		cr_assert_str_eq(err, cases[i].says, "%s", cmd);
		cr_assert_str_eq(out, "", "%s", cmd);
	}
	snprintf(cmd, sizeof cmd, "env ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" " HANG "%s solve %s/scenes",
		 PX_PROXIMA_MPI, PX_TEST_SRCDIR);
	cr_assert_eq(sh(cmd), 2, "%s", err);
	snprintf(want, sizeof want, "proxima: solve: '%s/scenes' is a folder: one PROBLEM file under mpirun (a folder's problems are solved without mpirun only)\n",
		 PX_TEST_SRCDIR);
	cr_assert_str_eq(err, want);
	snprintf(cmd, sizeof cmd, "run %s --json", scene);
	cr_assert_eq(mpi(2, cmd), 2, "%s: %s%s", cmd, out, err);
	cr_assert_str_eq(err, "proxima: run --json: " NO_JSON);
	/* a file for the other command says so, as serially */
	snprintf(cmd, sizeof cmd, "env ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" " HANG "%s solve %s",
		 PX_PROXIMA_MPI, scene);
	cr_assert_eq(sh(cmd), 2, "%s", err);
	snprintf(want, sizeof want, "proxima: %s: a scene (INI sections), not a contact problem: step it with `proxima run %s`\n",
		 scene, scene);
	cr_assert_str_eq(err, want);
	snprintf(cmd, sizeof cmd, "env ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" " HANG "%s run %s",
		 PX_PROXIMA_MPI, problem);
	cr_assert_eq(sh(cmd), 2, "%s", err);
	snprintf(want, sizeof want, "proxima: %s: a contact problem file, not a scene: solve it with `proxima solve %s`\n",
		 problem, problem);
	cr_assert_str_eq(err, want);
	/* --help prints the usage once, with the refused options */
	cr_assert_eq(mpi(2, "run --help"), 0, "%s", err);
	cr_assert_eq(strncmp(out, "Usage: mpirun -np P proxima solve", 33), 0, "%s", out);
	cr_assert_not_null(strstr(out, "reason: --time-limit, --json, solve --history.\n"), "%s", out);
	cr_assert_null(strstr(strstr(out, "Usage:") + 1, "Usage:"), "%s", out);
}

#ifdef HAVE_FCLIB
/* solve --warm-start and --save-fclib mean what they mean serially: one
 * rank from the file's first guess is the serial solve bit for bit; 3
 * ranks from a saved iterate of 300 serial sweeps need fewer sweeps than
 * from zero and reach the tolerance (the oracles); the FCLib file 3 ranks
 * save holds their gathered solution exactly. */
Test(dist, solve_warm_start_and_save_fclib_as_serially)
{
	char caps[512], kap[512], a[128], b[128], k300[128], saved[128];
	char cmd[2048];
	double zero, warm, *r = NULL;
	struct px_problem *p;
	struct px_error e = {0};

	shared_problem("Capsules-i125-1213.hdf5", caps, sizeof caps);
	shared_problem("KaplasTower-i1061-4.hdf5.dat", kap, sizeof kap);
	snprintf(a, sizeof a, "%s/serial.txt", dir);
	snprintf(b, sizeof b, "%s/mpi.txt", dir);
	snprintf(cmd, sizeof cmd, "%s solve --warm-start guess %s --out %s", PX_CLI, caps, a);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	snprintf(cmd, sizeof cmd, "solve --warm-start guess %s --out %s", caps, b);
	cr_assert_eq(mpi(1, cmd), 0, "%s%s", out, err);
	cr_assert_not_null(strstr(out, "start       the file's first guess (/guesses/1/r)\n"), "%s", out);
	p = read_problem(caps);
	same_solution(p, a, b);
	px_problem_destroy(p);

	snprintf(k300, sizeof k300, "%s/k300.hdf5", dir);
	snprintf(cmd, sizeof cmd, "%s solve --set solver.max_sweeps=300 --save-fclib %s %s",
		 PX_CLI, k300, kap);
	cr_assert_eq(sh(cmd), 1, "%s%s", out, err);
	snprintf(cmd, sizeof cmd, "solve %s --check-every 10", k300);
	cr_assert_eq(mpi(3, cmd), 0, "%s%s", out, err);
	zero = number_after("converged after ");
	snprintf(saved, sizeof saved, "%s/saved.hdf5", dir);
	snprintf(cmd, sizeof cmd, "solve --warm-start solution %s --check-every 10 --out %s --save-fclib %s",
		 k300, b, saved);
	cr_assert_eq(mpi(3, cmd), 0, "%s%s", out, err);
	warm = number_after("converged after ");
	cr_log_info("3 ranks on KaplasTower: %g sweeps from zero, %g from 300 serial sweeps' iterate",
		    zero, warm);
	cr_assert_lt(warm, zero, "%s", out);
	worst("3 ranks, warm", check_solution(kap, b, LAW_REL_6, 1e-8, "3 ranks, warm"));
	/* the saved file: the problem, with the gathered solution */
	cr_assert_eq(px_problem_read(saved, &p, PX_FCLIB_R_SOLUTION, &r, &e), PX_OK,
		     "%s", e.msg);
	{
		const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
		double *x = read_solution(b, m);

		cr_assert_eq(memcmp(x, r, m * sizeof *x), 0, "%s holds another solution", saved);
		free(x);
	}
	free(r);
	px_problem_destroy(p);
}
#endif

/* ---- stepping a world across ranks ---------------------------------- */

/* Of a run's CSV, the whole-number columns: step, contacts, sweeps,
 * converged. */
static void physics_columns(const char *path, char *buf, size_t len)
{
	static char text[1 << 16];
	size_t n = 0;

	read_text(path, text, sizeof text);
	cr_assert(*text, "%s is empty", path);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		int col = 1;

		for (char *f = line; f && n + 64 < len; col++) {
			char *comma = strchr(f, ',');
			const size_t w = comma ? (size_t)(comma - f) : strlen(f);

			if (col == 1 || col == 3 || col == 5 || col == 7)
				n += (size_t)snprintf(buf + n, len - n, "%.*s,", (int)w, f);
			f = comma ? comma + 1 : NULL;
		}
		n += (size_t)snprintf(buf + n, len - n, "\n");
	}
}

/* The last row's kinetic + potential energy and the largest max_depth of
 * a run's CSV. */
static void csv_end(const char *path, double *energy, double *depth)
{
	static char text[1 << 16];
	const char *last = NULL;

	read_text(path, text, sizeof text);
	*depth = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		const char *f = line;

		for (int col = 1; col < 15 && f; col++)
			f = (f = strchr(f, ',')) ? f + 1 : NULL;
		if (f && line[0] != 's')
			*depth = fmax(*depth, strtod(f, NULL));
		last = line;
	}
	cr_assert_not_null(last, "%s is empty", path);
	{
		const char *f = last;
		double kin, pot;

		for (int col = 1; col < 13; col++)
			f = strchr(f, ',') + 1;
		kin = strtod(f, NULL);
		pot = strtod(strchr(f, ',') + 1, NULL);
		*energy = kin + pot;
	}
}

static double energy_at(int end)
{
	const char *at = strstr(out, "energy      ");

	cr_assert_not_null(at, "%s", out);
	at += strlen("energy      ");
	if (end) {
		at = strstr(at, "start, ");
		cr_assert_not_null(at, "%s", out);
		at += strlen("start, ");
	}
	return strtod(at, NULL);
}

/* One rank steps the world exactly as the serial run does: the same
 * final state, every double (the --state files' %a text), and the same
 * contacts and sweeps at every step. */
Test(dist, one_rank_run_is_the_serial_run_bit_for_bit)
{
	static char x[1 << 16], y[1 << 16];
	const char *scenes[] = {PX_TEST_SRCDIR "/scenes/boxstack-10.ini", NULL};
	char grid[128], a[128], b[128], sa[128], sb[128], cmd[2048];

	write_file("grid.ini", grid_scene, grid, sizeof grid);
	scenes[1] = grid;
	snprintf(a, sizeof a, "%s/serial.csv", dir);
	snprintf(b, sizeof b, "%s/mpi.csv", dir);
	snprintf(sa, sizeof sa, "%s/serial_state.csv", dir);
	snprintf(sb, sizeof sb, "%s/mpi_state.csv", dir);
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof cmd, "%s run -c %s/conf/default.ini %s --steps 40 --csv %s --state %s --quiet",
			 PX_CLI, PX_TEST_SRCDIR, scenes[i], a, sa);
		cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
		snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s --steps 40 --csv %s --state %s",
			 PX_TEST_SRCDIR, scenes[i], b, sb);
		cr_assert_eq(mpi(1, cmd), 0, "%s%s", out, err);
		same_file(sa, sb);
		physics_columns(a, x, sizeof x);
		physics_columns(b, y, sizeof y);
		cr_assert_str_eq(x, y, "%s: serial\n%s\none rank\n%s", scenes[i], x, y);
	}
}

/* doc/scenes.md's 10-box column, cut across 2 and 3 ranks, stands 2 s as it
 * does serially: the boxes end where the serial run leaves them (to
 * 1e-6 m; the column itself sinks less than 10 um), the energy is the
 * serial run's to 1e-6, every step converged, the momentum is accounted
 * for; and a run repeats bit for bit (the final states' %a text). */
Test(dist, ranks_step_a_standing_column)
{
	static char x[1 << 16], y[1 << 16];
	static struct state serial, st;
	static const double p0[3];
	char a[128], b[128], sa[128], sb[128], cmd[2048];
	double e_serial, e, depth;

	snprintf(a, sizeof a, "%s/a.csv", dir);
	snprintf(b, sizeof b, "%s/b.csv", dir);
	snprintf(sa, sizeof sa, "%s/a_state.csv", dir);
	snprintf(sb, sizeof sb, "%s/b_state.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run -c %s/conf/default.ini %s/scenes/boxstack-10.ini --steps 120 --csv %s --state %s --quiet",
		 PX_CLI, PX_TEST_SRCDIR, PX_TEST_SRCDIR, a, sa);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	read_state(sa, &serial);
	csv_end(a, &e_serial, &depth);
	for (int np = 2; np <= 3; np++) {
		char what[32];

		snprintf(what, sizeof what, "%d ranks", np);
		for (int k = 0; k < 2; k++) {
			snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s/scenes/boxstack-10.ini --steps 120 --csv %s --state %s",
				 PX_TEST_SRCDIR, PX_TEST_SRCDIR, k ? b : a, k ? sb : sa);
			cr_assert_eq(mpi(np, cmd), 0, "%d ranks: %s%s", np, out, err);
		}
		same_file(sa, sb);
		physics_columns(a, x, sizeof x);
		physics_columns(b, y, sizeof y);
		cr_assert_str_eq(x, y, "%d ranks: two runs differ", np);
		read_state(sa, &st);
		close_states(&serial, &st, 1e-6, 1e-5, what);
		for (size_t i = 1; i < st.n; i++) /* box i's centre at rest: 0.3 + 0.6 (i - 1) */
			cr_assert_geq(st.row[i][S_X + 2], 0.3 + 0.6 * (double)(i - 1) - 1e-5,
				      "%d ranks: box %zu sank to z = %.9g", np, i, st.row[i][S_X + 2]);
		cr_assert_leq(momentum_balance(&st, p0, gravity, 0.016666666666666666, 120, NULL),
			      1e-12, "%d ranks", np);
		csv_end(a, &e, &depth);
		cr_assert_leq(fabs(e - e_serial), 1e-6 * fabs(e_serial), "%d ranks: energy %.9g, serially %.9g",
			      np, e, e_serial);
		cr_assert_leq(depth, 1e-5, "%d ranks", np);
		cr_assert(!strstr(x, ",0,\n"), "%d ranks: a step did not converge:\n%s", np, x);
		/* the report */
		cr_assert_gt(number_after("shared      "), 0, "%s", out);
		cr_assert(strstr(out, "; 0 of 120 steps stopped without converging"), "%s", out);
		cr_assert_leq(number_after("(relative "), 1e-12, "%s", out);
		cr_assert_leq(fabs(energy_at(1) - energy_at(0)), 1e-6 * energy_at(0), "%s", out);
	}
}

/* doc/scenes.md's 20-box column at a game engine's budget
 * (scenes/boxstack-40-substeps.ini's, with 20 boxes): 20 substeps per
 * step, each one solve of conf/substeps.ini's 5 sweeps; %s: more [world]
 * keys. */
static void substep_column(const char *name, const char *more, char *path,
			   size_t len)
{
	char text[1024];

	snprintf(text, sizeof text,
		 "[world]\ngravity = 0, 0, -9.81\ndt = 0.016666666666666666\n"
		 "mu = 0.5\nrestitution = 0\n%s"
		 "[body ground]\nshape = box\nhalf = 50, 50, 1\nposition = 0, 0, -1\nstatic = true\n"
		 "[stack boxes]\ncount = 20\nhalf = 0.7, 0.7, 0.3\nmass = 110\nbase = 0, 0, 0\ngap = 0\n",
		 more);
	write_file(name, text, path, len);
}

/* The distributed run's CSV ends in the per-rank load (issue 36): the
 * most own contacts of a rank and its ratio to the mean, from 1 (even)
 * to np (one rank has them all), in every row. */
static void per_rank_load(const char *path, int np, const char *what)
{
	static char text[1 << 16];
	size_t rows = 0;
	char *line;

	read_text(path, text, sizeof text);
	line = strtok(text, "\n");
	cr_assert(line && strstr(line, ",max_depth,contacts_rank_max,load_imbalance") &&
		  strstr(line, "load_imbalance")[strlen("load_imbalance")] == 0,
		  "%s: the header: %s", what, line ? line : "");
	while ((line = strtok(NULL, "\n"))) {
		const char *last = strrchr(line, ','), *before;
		double load = strtod(last + 1, NULL), most;

		*(char *)last = 0;
		before = strrchr(line, ',');
		most = strtod(before + 1, NULL);
		cr_assert(load >= 1 && load <= np && most >= 1, "%s: row %zu: %g contacts, load %g",
			  what, rows + 1, most, load);
		rows++;
	}
	cr_assert_gt(rows, 0, "%s: no row", what);
}

/* The NumberOfPoints of a VTK file (its one piece). */
static long vtk_points(const char *path)
{
	static char text[1 << 20];
	const char *at;

	read_text(path, text, sizeof text);
	at = strstr(text, "NumberOfPoints=\"");
	cr_assert_not_null(at, "%s: no piece", path);
	return strtol(at + strlen("NumberOfPoints=\""), NULL, 10);
}

/* VTK frames of a distributed run (issue 36), gathered on rank 0: one
 * rank writes the serial run's files byte for byte (the frames, their
 * contacts, both .pvd); three ranks write the same files, every body
 * and every contact in them once. */
Test(dist, vtk_frames_gathered_as_serially)
{
	static const char *files[] = {"frames.pvd", "contacts.pvd",
				      "frame_000000.vtp", "frame_000003.vtp",
				      "frame_000006.vtp", "contacts_000003.vtp",
				      "contacts_000006.vtp"};
	char scene[128], fs[128], fm[128], a[256], b[256], cmd[2048];

	substep_column("column.ini", "substeps = 20\n", scene, sizeof scene);
	snprintf(fs, sizeof fs, "%s/serial_frames", dir);
	snprintf(cmd, sizeof cmd, "%s run -c %s/conf/substeps.ini %s --steps 6 --vtk %s --vtk-every 3 --quiet",
		 PX_CLI, PX_TEST_SRCDIR, scene, fs);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	for (int np = 1; np <= 3; np += 2) {
		snprintf(fm, sizeof fm, "%s/frames_%d", dir, np);
		snprintf(cmd, sizeof cmd, "run -c %s/conf/substeps.ini %s --steps 6 --vtk %s --vtk-every 3",
			 PX_TEST_SRCDIR, scene, fm);
		cr_assert_eq(mpi(np, cmd), 0, "%d ranks: %s%s", np, out, err);
		cr_assert(strstr(out, "frames      3 in "), "%s", out);
		for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
			snprintf(a, sizeof a, "%s/%s", fs, files[i]);
			snprintf(b, sizeof b, "%s/%s", fm, files[i]);
			if (np == 1 || strstr(files[i], ".pvd"))
				same_file(a, b);
			else
				cr_assert_eq(vtk_points(a), vtk_points(b), "%d ranks: %s", np, files[i]);
		}
	}
}

/* Substeps, soft contact and post-stabilization (issue 36): one rank
 * steps the world exactly as the serial run does, every double of the
 * final state and the contacts and sweeps of every step: the solve of
 * every substep, and of soft contact's soft solve and relaxation, through
 * the distributed solve's part and a solver kept across the step's
 * substeps, as the serial world keeps its own; post-stabilization's
 * position solve through a part of its own. */
Test(dist, one_rank_substeps_and_soft_contact_are_the_serial_run_bit_for_bit)
{
	static char x[1 << 16], y[1 << 16];
	static const char *more[] = {"substeps = 20\n",
				     "substeps = 4\nstabilization = soft\n",
				     "stabilization = soft\n",
				     "stabilization = post\n",
				     "substeps = 4\nstabilization = post\n"};
	char scene[128], a[128], b[128], sa[128], sb[128], cmd[2048];

	snprintf(a, sizeof a, "%s/serial.csv", dir);
	snprintf(b, sizeof b, "%s/mpi.csv", dir);
	snprintf(sa, sizeof sa, "%s/serial_state.csv", dir);
	snprintf(sb, sizeof sb, "%s/mpi_state.csv", dir);
	for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
		substep_column("column.ini", more[i], scene, sizeof scene);
		snprintf(cmd, sizeof cmd, "%s run -c %s/conf/substeps.ini %s --steps 30 --csv %s --state %s --quiet",
			 PX_CLI, PX_TEST_SRCDIR, scene, a, sa);
		cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
		snprintf(cmd, sizeof cmd, "run -c %s/conf/substeps.ini %s --steps 30 --csv %s --state %s",
			 PX_TEST_SRCDIR, scene, b, sb);
		cr_assert_eq(mpi(1, cmd), 0, "%s%s", out, err);
		same_file(sa, sb);
		physics_columns(a, x, sizeof x);
		physics_columns(b, y, sizeof y);
		cr_assert_str_eq(x, y, "%s: serial\n%s\none rank\n%s", more[i], x, y);
	}
}

/* Substeps across 2 and 3 ranks (issue 36): the 20-box column stands 2 s
 * at 20 substeps of 5 sweeps (each box's centre within 1 mm of its rest
 * height; the sweeps' budget is spent on every rank the same and each
 * rank's rounds exchange, so the boxes end within 2 mm of the serial
 * run, not to the bit), the energy is the serial run's to 1e-5, the
 * momentum is accounted for (the static contacts' impulses summed over
 * the substeps), and a run on 2 ranks repeats bit for bit. Soft contact
 * (4 substeps) on 3 ranks, 1 s: its soft solve and relaxation
 * distributed, the momentum accounted for, the energy the serial run's
 * to 1e-4. */
Test(dist, ranks_step_a_standing_column_with_substeps_and_soft_contact)
{
	static char x[1 << 16], y[1 << 16];
	static struct state serial, st;
	static const double p0[3];
	static const char *more[] = {"substeps = 20\n",
				     "substeps = 4\nstabilization = soft\n"};
	char scene[128], a[128], b[128], sa[128], sb[128], cmd[2048];
	double e_serial, e, depth;

	snprintf(a, sizeof a, "%s/a.csv", dir);
	snprintf(b, sizeof b, "%s/b.csv", dir);
	snprintf(sa, sizeof sa, "%s/a_state.csv", dir);
	snprintf(sb, sizeof sb, "%s/b_state.csv", dir);
	for (int soft = 0; soft < 2; soft++) {
		substep_column("column.ini", more[soft], scene, sizeof scene);
		const int steps = soft ? 60 : 120;

		snprintf(cmd, sizeof cmd, "%s run -c %s/conf/substeps.ini %s --steps %d --csv %s --state %s --quiet",
			 PX_CLI, PX_TEST_SRCDIR, scene, steps, a, sa);
		cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
		read_state(sa, &serial);
		csv_end(a, &e_serial, &depth);
		for (int np = 2 + soft; np <= 3; np++) {
			char what[64];
			const int repeat = np == 2;

			snprintf(what, sizeof what, "%d ranks, %s", np, soft ? "soft contact" : "substeps");
			for (int k = 0; k <= repeat; k++) {
				snprintf(cmd, sizeof cmd, "run -c %s/conf/substeps.ini %s --steps %d --csv %s --state %s",
					 PX_TEST_SRCDIR, scene, steps, k ? b : a, k ? sb : sa);
				cr_assert_eq(mpi(np, cmd), 0, "%s: %s%s", what, out, err);
			}
			if (repeat) {
				same_file(sa, sb);
				physics_columns(a, x, sizeof x);
				physics_columns(b, y, sizeof y);
				cr_assert_str_eq(x, y, "%s: two runs differ", what);
			}
			per_rank_load(a, np, what);
			read_state(sa, &st);
			cr_assert_leq(momentum_balance(&st, p0, gravity, 0.016666666666666666, steps, NULL),
				      1e-12, "%s", what);
			cr_assert_leq(number_after("(relative "), 1e-12, "%s: %s", what, out);
			csv_end(a, &e, &depth);
			cr_assert_leq(fabs(e - e_serial), (soft ? 1e-4 : 1e-5) * fabs(e_serial),
				      "%s: energy %.9g, serially %.9g", what, e, e_serial);
			if (soft)
				continue;
			close_states(&serial, &st, 2e-3, 2e-2, what);
			for (size_t i = 1; i < st.n; i++) /* box i's rest height: 0.3 + 0.6 (i - 1) */
				cr_assert_geq(st.row[i][S_X + 2], 0.3 + 0.6 * (double)(i - 1) - 1e-3,
					      "%s: box %zu sank to z = %.9g", what, i, st.row[i][S_X + 2]);
		}
	}
}

/* Post-stabilization across 2 and 3 ranks (issue 36): doc/scenes.md's
 * 10-box column with `stabilization = post` stands 2 s as serially (the
 * ghosts' positions from their owners, then the position solve of the
 * moved bodies' contacts distributed): the boxes end within 1e-5 m of
 * the serial run, none sinks more than 1e-5 m, the momentum is accounted
 * for, every step converged. */
Test(dist, ranks_step_a_standing_column_with_post_stabilization)
{
	static char x[1 << 16];
	static struct state serial, st;
	static const double p0[3];
	char scene[128], a[128], sa[128], cmd[2048];
	static char text[1 << 12];

	snprintf(cmd, sizeof cmd, "%s/scenes/boxstack-10.ini", PX_TEST_SRCDIR);
	read_text(cmd, text, sizeof text);
	cr_assert_not_null(strstr(text, "restitution = 0\n"));
	{
		char with[1 << 12], *at = strstr(text, "restitution = 0\n") + strlen("restitution = 0\n");

		snprintf(with, sizeof with, "%.*sstabilization = post\n%s", (int)(at - text), text, at);
		write_file("post.ini", with, scene, sizeof scene);
	}
	snprintf(a, sizeof a, "%s/a.csv", dir);
	snprintf(sa, sizeof sa, "%s/a_state.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run -c %s/conf/default.ini %s --steps 120 --state %s --quiet",
		 PX_CLI, PX_TEST_SRCDIR, scene, sa);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	read_state(sa, &serial);
	for (int np = 2; np <= 3; np++) {
		char what[32];

		snprintf(what, sizeof what, "%d ranks, post", np);
		snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s --steps 120 --csv %s --state %s",
			 PX_TEST_SRCDIR, scene, a, sa);
		cr_assert_eq(mpi(np, cmd), 0, "%s: %s%s", what, out, err);
		read_state(sa, &st);
		close_states(&serial, &st, 1e-5, 1e-4, what);
		for (size_t i = 1; i < st.n; i++)
			cr_assert_geq(st.row[i][S_X + 2], 0.3 + 0.6 * (double)(i - 1) - 1e-5,
				      "%s: box %zu sank to z = %.9g", what, i, st.row[i][S_X + 2]);
		cr_assert_leq(momentum_balance(&st, p0, gravity, 0.016666666666666666, 120, NULL),
			      1e-12, "%s", what);
		physics_columns(a, x, sizeof x);
		cr_assert(!strstr(x, ",0,\n"), "%s: a step did not converge:\n%s", what, x);
	}
}

/* Frictionless balls slide across the cut between two ranks' boxes (at
 * x = 6, between the centres 2 and 10): they change owner, meet the
 * resting balls of the other rank, and end where the serial run ends. */
Test(dist, bodies_migrate_across_the_cut)
{
	static struct state serial, st;
	static const double p0[3] = {10, 0, 0}; /* a and b at 5 m/s */
	char scene[128], path[128], cmd[2048];

	write_file("slide.ini",
		   "[world]\ngravity = 0, 0, -9.81\ndt = 0.01\nsteps = 200\nmu = 0\nrestitution = 0\n"
		   "[body ground]\nshape = box\nhalf = 40, 10, 1\nposition = 10, 0, -1\nstatic = true\n"
		   "[body a]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 0, 0, 0.5\nvelocity = 5, 0, 0\n"
		   "[body b]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 2, 0, 0.5\nvelocity = 5, 0, 0\n"
		   "[body c]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 10, 0, 0.5\n"
		   "[body d]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 12, 0, 0.5\n",
		   scene, sizeof scene);
	snprintf(path, sizeof path, "%s/state.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run -c %s/conf/default.ini %s --state %s --quiet", PX_CLI,
		 PX_TEST_SRCDIR, scene, path);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	read_state(path, &serial);
	snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s --state %s", PX_TEST_SRCDIR,
		 scene, path);
	cr_assert_eq(mpi(2, cmd), 0, "%s%s", out, err);
	cr_assert(strstr(out, "at the start (own + ghost layer): 2+0 2+0"), "%s", out);
	cr_assert_geq(number_after("migration   "), 2, "%s", out);
	read_state(path, &st);
	cr_assert_leq(momentum_balance(&st, p0, gravity, 0.01, 200, NULL), 1e-12);
	/* to 1e-9 m and m/s (they end there to the last bit today) */
	close_states(&serial, &st, 1e-9, 1e-9, "sliding balls");
	cr_assert_leq(number_after("(relative "), 1e-12, "%s", out);
}

/* The partitioner fails (METIS_PartGraphKway made to fail by
 * tests/metis_fail.c, preloaded into the ranks): one line from rank 0,
 * exit status 2 on every rank, no hang (the timeout). In a sanitizer
 * build the ranks, and mpirun, which loads the library too, are told not
 * to mind its place before the sanitizer's runtime, nor leaks (as mpi()). */
Test(dist, a_partitioner_failure_one_line_and_exit_2)
{
	char p[512], cmd[2048], full[2200], want[1024], asan[512];
	const char *was = getenv("ASAN_OPTIONS");

	shared_problem("Rover4516.dat", p, sizeof p);
	snprintf(asan, sizeof asan, "%s:detect_leaks=0:verify_asan_link_order=0",
		 was ? was : "");
	snprintf(cmd, sizeof cmd, "env LD_PRELOAD=%s ASAN_OPTIONS=%s %s -q --oversubscribe --bind-to none -np 2 %s solve %s",
		 PX_METIS_FAIL, asan, PX_MPIRUN, PX_CLI, p);
	snprintf(full, sizeof full, HANG "%s", cmd);
	cr_assert_eq(sh(full), 2, "%s%s", out, err);
	snprintf(want, sizeof want,
		 "proxima: %s: the partitioner failed: METIS_PartGraphKway returned -3 for 4 contacts in 2 parts\n",
		 p);
	cr_assert_str_eq(err, want);
}

/* Hybrid MPI + OpenMP: `colored' on 2 threads inside each of 2 ranks. */
Test(dist, colored_threads_inside_each_rank)
{
	char p[512], conf[128], sol[128], cmd[2048];

	shared_problem("OneObject-i1028-138.hdf5.dat", p, sizeof p);
	write_file("colored.ini",
		   "[solver]\nmerit = fc3d\nabs_tol = 1e-6\nmax_sweeps = 20000\n"
		   "[scheduler]\nplugin = colored\nthreads = 2\nserial_below = 0\n",
		   conf, sizeof conf);
	snprintf(sol, sizeof sol, "%s/sol.txt", dir);
	snprintf(cmd, sizeof cmd, "solve -c %s %s --check-every 10 --out %s", conf, p, sol);
	cr_assert_eq(mpi(2, cmd), 0, "%s%s", out, err);
	cr_assert(strstr(out, "scheduler colored"), "%s", out);
	worst("colored", check_solution(p, sol, LAW_REL_6, 1e-6, "colored threads"));
	cr_assert_leq(number_after("fc3d error  "), 1e-6, "%s", out);
}

/* run --cache and run without a scene mean what they mean serially: one
 * rank steps the world the serial run steps, bit for bit (the final
 * states' %a text), with the cache off (Catto's (2005) stack at its 10 sweeps
 * per step, which then falls: its energy ends lower than with the cache) and
 * on the bundled default scene. */
Test(dist, run_cache_and_default_scene_as_serially)
{
	static const char scene[] = PX_TEST_SRCDIR "/scenes/boxstack-10-003.ini";
	char sa[128], sb[128], cmd[2048];
	double on, off;

	snprintf(sa, sizeof sa, "%s/serial_state.csv", dir);
	snprintf(sb, sizeof sb, "%s/mpi_state.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run %s --set solver.max_sweeps=10 --cache off --state %s --quiet",
		 PX_CLI, scene, sa);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	snprintf(cmd, sizeof cmd, "run %s --set solver.max_sweeps=10 --cache off --state %s",
		 scene, sb);
	cr_assert_eq(mpi(1, cmd), 0, "%s%s", out, err);
	cr_assert_not_null(strstr(out, "contact cache off;"), "%s", out);
	same_file(sa, sb);
	off = energy_at(1);
	snprintf(cmd, sizeof cmd, "run %s --set solver.max_sweeps=10 --cache on", scene);
	cr_assert_eq(mpi(1, cmd), 0, "%s%s", out, err);
	on = energy_at(1);
	cr_log_info("Catto's (2005) stack at 10 sweeps per step: %g J at the end with the cache, %g J without", on, off);
	cr_assert_lt(off, 0.9 * on, "the stack stood without the cache: %g J against %g J", off, on);
	/* no scene: the bundled default one, 2 of its steps */
	snprintf(cmd, sizeof cmd, "%s run --steps 2 --state %s --quiet", PX_CLI, sa);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	snprintf(cmd, sizeof cmd, "run --steps 2 --state %s", sb);
	cr_assert_eq(mpi(1, cmd), 0, "%s%s", out, err);
	cr_assert_not_null(strstr(out, "/scenes/default.ini: 2 steps of 0.01 s"), "%s", out);
	same_file(sa, sb);
}

/* ---- re-balancing (issue 36, --rebalance-every) ----------------------- */

/* Files a and b are the same bytes (and a is not empty). */
static void same_bytes(const char *a, const char *b)
{
	char cmd[512];
	struct stat sb;

	cr_assert(stat(a, &sb) == 0 && sb.st_size > 0, "%s is empty", a);
	snprintf(cmd, sizeof cmd, "cmp -s %s %s", a, b);
	cr_assert_eq(sh(cmd), 0, "%s and %s differ", a, b);
}

/* Of a run's CSV, the mean of column `name` over its rows, and the last
 * row's value in *last. */
static double csv_mean(const char *path, const char *name, double *last)
{
	static char text[1 << 18];
	int col = -1, rows = 0;
	double sum = 0;

	read_text(path, text, sizeof text);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *f = line;

		if (col < 0) { /* the header */
			for (int c = 0; f; c++) {
				char *comma = strchr(f, ',');
				const size_t w = comma ? (size_t)(comma - f) : strlen(f);

				if (w == strlen(name) && strncmp(f, name, w) == 0)
					col = c;
				f = comma ? comma + 1 : NULL;
			}
			cr_assert_geq(col, 0, "%s: no column %s", path, name);
			continue;
		}
		for (int c = 0; c < col && f; c++)
			f = (f = strchr(f, ',')) ? f + 1 : NULL;
		cr_assert_not_null(f, "%s: a short row", path);
		*last = strtod(f, NULL);
		sum += *last;
		rows++;
	}
	cr_assert_gt(rows, 0, "%s: no row", path);
	return sum / rows;
}

/* scenes/ballpile-8.ini's pile, 5 planes of 5 x 5 balls
 * (tests/mpi_checkpoint.sh's). */
static const char small_pile[] =
	"[world]\ngravity = 0, 0, -9.81\ndt = 0.01\nsteps = 200\nmu = 0.5\nrestitution = 0\n"
	"[pile balls]\nn = 5\nseed = 12345\nground = true\n";

/* One rank that re-partitions after every step (threshold 1: whatever
 * the load) rebuilds its world from the gathered bodies and cache
 * entries every step, and steps on as the serial run does, bit for bit:
 * the same final state, and the same contacts and sweeps at every step. */
Test(dist, one_rank_rebalancing_is_the_serial_run_bit_for_bit)
{
	static char x[1 << 16], y[1 << 16];
	char pile[128], a[128], b[128], sa[128], sb[128], cmd[2048];
	double last;

	write_file("pile.ini", small_pile, pile, sizeof pile);
	snprintf(a, sizeof a, "%s/serial.csv", dir);
	snprintf(b, sizeof b, "%s/mpi.csv", dir);
	snprintf(sa, sizeof sa, "%s/serial_state.csv", dir);
	snprintf(sb, sizeof sb, "%s/mpi_state.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run -c %s/conf/default.ini %s --steps 40 --csv %s --state %s --quiet",
		 PX_CLI, PX_TEST_SRCDIR, pile, a, sa);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s --steps 40 --csv %s --state %s --rebalance-every 1 --rebalance-threshold 1",
		 PX_TEST_SRCDIR, pile, b, sb);
	cr_assert_eq(mpi(1, cmd), 0, "%s%s", out, err);
	cr_assert_not_null(strstr(out, "rebalance   every 1 steps when the load imbalance is 1 or more: 40 re-partitions"),
			   "%s", out);
	same_bytes(sa, sb);
	physics_columns(a, x, sizeof x);
	physics_columns(b, y, sizeof y);
	cr_assert_str_eq(x, y, "serial\n%s\none rank re-partitioning\n%s", x, y);
	csv_mean(b, "rebalances", &last);
	cr_assert_eq(last, 40);
}

/* The settling ball pile of scenes/ballpile-8.ini on 3 ranks, checked
 * for re-balancing every 5 steps at the default threshold (1.1): it
 * re-partitions (the report and the CSV's last column say how often),
 * its energy is the serial run's to 1e-6 and its momentum accounted for,
 * two runs repeat bit for bit (the final state, every CSV column but the
 * times), and its load imbalance (the CSV's, the mean over the steps) is
 * lower than the same run's without re-balancing. */
Test(dist, three_ranks_rebalance_a_settling_pile)
{
	static char x[1 << 16], y[1 << 16];
	const char *pile = PX_TEST_SRCDIR "/scenes/ballpile-8.ini";
	char a[128], b[128], c[128], sa[128], sb[128], cmd[2048];
	double e_serial, e, depth, with, without, last;
	const char *at;

	snprintf(a, sizeof a, "%s/a.csv", dir);
	snprintf(b, sizeof b, "%s/b.csv", dir);
	snprintf(c, sizeof c, "%s/c.csv", dir);
	snprintf(sa, sizeof sa, "%s/a_state.csv", dir);
	snprintf(sb, sizeof sb, "%s/b_state.csv", dir);
	snprintf(cmd, sizeof cmd, "%s run -c %s/conf/default.ini %s --steps 60 --csv %s --quiet",
		 PX_CLI, PX_TEST_SRCDIR, pile, a);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	csv_end(a, &e_serial, &depth);
	for (int k = 0; k < 2; k++) {
		snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s --steps 60 --check-every 10 --rebalance-every 5 --csv %s --state %s",
			 PX_TEST_SRCDIR, pile, k ? b : a, k ? sb : sa);
		cr_assert_eq(mpi(3, cmd), 0, "%s%s", out, err);
	}
	at = strstr(out, "rebalance   every 5 steps when the load imbalance is 1.1 or more: ");
	cr_assert_not_null(at, "%s", out);
	cr_assert_geq(strtod(at + strlen("rebalance   every 5 steps when the load imbalance is 1.1 or more: "), NULL),
		      1, "%s", out);
	cr_assert_not_null(strstr(out, "partition   recursive coordinate bisection of the centres, cut anew from the current centres"),
			   "%s", out);
	cr_assert_leq(number_after("(relative "), 1e-12, "%s", out);
	same_bytes(sa, sb);
	physics_columns(a, x, sizeof x);
	physics_columns(b, y, sizeof y);
	cr_assert_str_eq(x, y, "two runs differ");
	with = csv_mean(a, "load_imbalance", &last);
	csv_mean(a, "rebalances", &last);
	cr_assert_geq(last, 1, "the CSV counts no re-partition");
	csv_mean(b, "rebalances", &e);
	cr_assert_eq(e, last, "two runs count %g and %g re-partitions", last, e);
	csv_end(a, &e, &depth);
	cr_assert_leq(fabs(e - e_serial), 1e-6 * fabs(e_serial), "energy %.9g, serially %.9g",
		      e, e_serial);
	cr_assert(!strstr(x, ",0,\n"), "a step did not converge:\n%s", x);
	/* the same run without re-balancing */
	snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s --steps 60 --check-every 10 --csv %s",
		 PX_TEST_SRCDIR, pile, c);
	cr_assert_eq(mpi(3, cmd), 0, "%s%s", out, err);
	without = csv_mean(c, "load_imbalance", &last);
	cr_log_info("ballpile-8, 60 steps on 3 ranks: mean load imbalance %.4f re-balancing every 5 steps, %.4f without",
		    with, without);
	cr_assert_lt(with, without, "load imbalance %.4f re-balancing, %.4f without", with, without);
}

/* --rebalance-every and --rebalance-threshold: a bad value, one line and
 * exit status 2. */
Test(dist, bad_rebalance_options_one_line_and_exit_2)
{
	static const struct {
		const char *args, *line;
	} bad[] = {
		{"--rebalance-every 0", "proxima: --rebalance-every '0': expected a whole number >= 1\n"},
		{"--rebalance-every 2.5", "proxima: --rebalance-every '2.5': expected a whole number >= 1\n"},
		{"--rebalance-every 5 --rebalance-threshold 0.9",
		 "proxima: --rebalance-threshold '0.9': expected a number >= 1 (the most loaded rank over the mean)\n"},
		{"--rebalance-every 5 --rebalance-threshold 1.2x",
		 "proxima: --rebalance-threshold '1.2x': expected a number >= 1 (the most loaded rank over the mean)\n"},
		{"--rebalance-threshold 1.2", "proxima: run: --rebalance-threshold needs --rebalance-every K\n"},
	};
	char pile[128], cmd[2048];

	write_file("pile.ini", small_pile, pile, sizeof pile);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(cmd, sizeof cmd, "run %s --steps 2 %s", pile, bad[i].args);
		cr_assert_eq(mpi(1, cmd), 2, "%s: %s%s", bad[i].args, out, err);
		cr_assert_str_eq(err, bad[i].line, "%s", bad[i].args);
		cr_assert_eq(count_lines(err), 1);
	}
}
