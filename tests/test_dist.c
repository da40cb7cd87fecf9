/* The distributed solve (issue 21) through mpirun: one rank is the serial
 * solve bit for bit, 2 and 3 ranks reach the sequential fc3d tolerance on
 * the shared problems, runs repeat bit for bit, the ghost exchange loses
 * no impulse, ranks without contacts and bodies on three ranks work, and
 * bad input and a failing partitioner give one line from rank 0 and exit
 * status 2 on every rank (under `timeout`: a hang fails the test). */
#include <sys/wait.h>

#include "helpers.h"

static char out[65536], err[65536];
static char dir[64];

static void setup(void)
{
	setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
	setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
	setenv("PROXIMA_MPI", PX_PROXIMA_MPI, 1);
	snprintf(dir, sizeof dir, "/tmp/px_dist_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	remove_tree(dir);
}

TestSuite(dist, .init = setup, .fini = teardown, .timeout = 300);

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
 * when it hangs for a minute. Not bound to cores: the OpenMP threads of a
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
		 "timeout 60 env ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" %s -q --oversubscribe --bind-to none -np %d %s %s",
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

static void same_file(const char *a, const char *b)
{
	static char x[1 << 16], y[1 << 16];

	read_text(a, x, sizeof x);
	read_text(b, y, sizeof y);
	cr_assert(*x, "%s is empty", a);
	cr_assert_str_eq(x, y, "%s and %s differ", a, b);
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
	same_file(a, b);
	/* the same sweeps and rejections as the serial report */
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
	char p[512], seq[128], dist[128], cmd[2048];

	write_file("seq.ini", "[solver]\nmerit = fc3d\nabs_tol = 1e-6\nmax_sweeps = 5000\n",
		   seq, sizeof seq);
	write_file("dist.ini", "[solver]\nmerit = fc3d\nabs_tol = 1e-6\nmax_sweeps = 20000\n",
		   dist, sizeof dist);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		shared_problem(names[i], p, sizeof p);
		snprintf(cmd, sizeof cmd, "%s solve -c %s %s", PX_CLI, seq, p);
		cr_assert_eq(sh(cmd), 0, "sequential %s: %s", names[i], out);
		snprintf(cmd, sizeof cmd, "solve -c %s %s --check-every 10", dist, p);
		cr_assert_eq(mpi(np, cmd), 0, "%d ranks, %s: %s%s", np, names[i], out, err);
		/* the gathered solution's error, recomputed on the whole problem */
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
	snprintf(cmd, sizeof cmd, "solve %s --combine sum --out %s", p, a);
	cr_assert_leq(mpi(3, cmd), 1, "%s", err);
	cr_assert(strstr(out, "exchanges"), "%s", out);
	snprintf(cmd, sizeof cmd, "solve %s --combine sum --out %s", p, b);
	cr_assert_leq(mpi(3, cmd), 1, "%s", err);
	same_file(a, b);
}

Test(dist, a_rank_without_contacts_an_empty_part)
{
	char p[512], parts[128], text[256], cmd[2048];
	size_t n = 0;

	/* OneObject's 23 contacts on ranks 0 and 2; rank 1's part is empty */
	shared_problem("OneObject-i1028-138.hdf5.dat", p, sizeof p);
	for (int k = 0; k < 23; k++)
		n += (size_t)snprintf(text + n, sizeof text - n, "%d\n", k < 12 ? 0 : 2);
	write_file("parts.txt", text, parts, sizeof parts);
	snprintf(cmd, sizeof cmd, "solve %s --partition %s", p, parts);
	cr_assert_eq(mpi(3, cmd), 0, "%s%s", out, err);
	cr_assert(strstr(out, "contacts per rank 12 0 11 "), "%s", out);
	cr_assert_leq(number_after("fc3d error  "), 1e-8, "%s", out);
}

/* A grid of balls on the ground, cut into three regions. */
static const char grid_scene[] =
	"[world]\ngravity = 0, 0, -9.81\ndt = 0.01\nmu = 0.5\nrestitution = 0\n"
	"[body ground]\nshape = box\nhalf = 20, 20, 1\nposition = 5, 5, -1\nstatic = true\n"
	"[grid balls]\nshape = sphere\nradius = 1\ncount = 6, 6, 3\n"
	"origin = 0, 0, 1\nspacing = 2, 2, 2\nmass = 1\n";

Test(dist, ghost_exchange_loses_no_impulse)
{
	char scene[128], cmd[512];

	write_file("grid.ini", grid_scene, scene, sizeof scene);
	for (int c = 0; c < 2; c++) {
		const char *rule = c ? "split" : "sum";
		double rel, pz;

		snprintf(cmd, sizeof cmd, "run %s --steps 1 --combine %s --check-every 10", scene, rule);
		cr_assert_eq(mpi(3, cmd), 0, "%s: %s%s", rule, out, err);
		/* some body is touched by contacts of all three ranks */
		cr_assert_gt(number_after(", 3: "), 0, "%s", out);
		/* the bodies' momentum change is what the ground pushed */
		pz = number_after("static contacts' impulse (0, 0, ");
		rel = number_after("(relative ");
		cr_assert_gt(pz, 0.1 * 108 * 9.81 * 0.01, "%s", out);
		cr_assert_leq(rel, 1e-12, "%s", out);
		cr_assert_leq(number_after("fc3d error  "), 1e-9, "%s", out);
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
	char scene[128], cmd[512];

	two_groups(scene, sizeof scene, "origin = 30, 0, 10\nspacing = 3, 3, 3\n");
	snprintf(cmd, sizeof cmd, "run %s --steps 1", scene);
	cr_assert_eq(mpi(2, cmd), 0, "%s%s", out, err);
	cr_assert(strstr(out, "contacts per rank 42 0 "), "%s", out);
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

Test(dist, bad_input_one_line_from_rank_0_and_exit_2)
{
	char p[512], scene[128], parts[128], fast[128], cmd[2048], want[1024];

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

	/* only rank 1's region has torsional friction: its part fails */
	two_groups(scene, sizeof scene,
		   "origin = 30, 0, 1\nspacing = 2, 2, 2\nmu_tau = 0.01\n");
	run_fails(scene, "", "rank 1: the distributed solve of a scene needs 3-row contacts");

	write_file("soft.ini",
		   "[world]\ndt = 0.01\nstabilization = soft\n"
		   "[body ground]\nshape = box\nhalf = 40, 10, 1\nposition = 20, 0, -1\nstatic = true\n"
		   "[grid near]\nshape = sphere\nradius = 1\ncount = 3, 3, 2\n"
		   "origin = 0, 0, 1\nspacing = 2, 2, 2\nmass = 1\n",
		   scene, sizeof scene);
	run_fails(scene, "", "does not take soft contact (stabilization = soft)");

	write_file("sub.ini",
		   "[world]\ndt = 0.01\nsubsteps = 2\n"
		   "[grid near]\nshape = sphere\nradius = 1\ncount = 3, 3, 2\n"
		   "origin = 0, 0, 1\nspacing = 2, 2, 2\nmass = 1\n",
		   scene, sizeof scene);
	snprintf(cmd, sizeof cmd, "run %s", scene);
	cr_assert_eq(mpi(2, cmd), 2, "%s", err);
	snprintf(want, sizeof want, "proxima: %s: the distributed run takes one substep per step (substeps = 2)\n", scene);
	cr_assert_str_eq(err, want);
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

	snprintf(cmd, sizeof cmd, "solve %s --combine mean", p);
	cr_assert_eq(mpi(2, cmd), 2, "%s", err);
	cr_assert_str_eq(err, "proxima: --combine 'mean': expected sum or split\n");
}

/* ---- stepping a world across ranks ---------------------------------- */

/* Of a run's CSV, the columns that do not depend on the clock: step,
 * contacts, sweeps, converged, kinetic, potential, max_depth. */
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

			if (col == 1 || col == 3 || col == 5 || col == 7 || col >= 13)
				n += (size_t)snprintf(buf + n, len - n, "%.*s,", (int)w, f);
			f = comma ? comma + 1 : NULL;
		}
		n += (size_t)snprintf(buf + n, len - n, "\n");
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
 * contacts, sweeps, energies and penetrations at every step. */
Test(dist, one_rank_run_is_the_serial_run_bit_for_bit)
{
	static char x[1 << 16], y[1 << 16];
	const char *scenes[] = {PX_TEST_SRCDIR "/scenes/boxstack-10.ini", NULL};
	char grid[128], a[128], b[128], cmd[2048];

	write_file("grid.ini", grid_scene, grid, sizeof grid);
	scenes[1] = grid;
	snprintf(a, sizeof a, "%s/serial.csv", dir);
	snprintf(b, sizeof b, "%s/mpi.csv", dir);
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof cmd, "%s run -c %s/conf/default.ini %s --steps 40 --csv %s --quiet",
			 PX_CLI, PX_TEST_SRCDIR, scenes[i], a);
		cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
		snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s --steps 40 --csv %s",
			 PX_TEST_SRCDIR, scenes[i], b);
		cr_assert_eq(mpi(1, cmd), 0, "%s%s", out, err);
		physics_columns(a, x, sizeof x);
		physics_columns(b, y, sizeof y);
		cr_assert_str_eq(x, y, "%s: serial\n%s\none rank\n%s", scenes[i], x, y);
	}
}

/* SCENES.md's 10-box column, cut across 2 and 3 ranks, stands 2 s as it
 * does serially: energy kept to 1e-6, no box sinks 10 um, every step
 * converged, momentum accounted for; and a run repeats bit for bit. */
Test(dist, ranks_step_a_standing_column)
{
	static char x[1 << 16], y[1 << 16];
	char a[128], b[128], cmd[2048];

	snprintf(a, sizeof a, "%s/a.csv", dir);
	snprintf(b, sizeof b, "%s/b.csv", dir);
	for (int np = 2; np <= 3; np++) {
		for (int k = 0; k < 2; k++) {
			snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s/scenes/boxstack-10.ini --steps 120 --csv %s",
				 PX_TEST_SRCDIR, PX_TEST_SRCDIR, k ? b : a);
			cr_assert_eq(mpi(np, cmd), 0, "%d ranks: %s%s", np, out, err);
		}
		cr_assert_gt(number_after("shared      "), 0, "%s", out);
		cr_assert(strstr(out, "; 0 of 120 steps stopped without converging"), "%s", out);
		cr_assert_leq(number_after("deepest penetration "), 1e-5, "%s", out);
		cr_assert_leq(fabs(energy_at(1) - energy_at(0)), 1e-6 * energy_at(0), "%s", out);
		cr_assert_leq(number_after("(relative "), 1e-12, "%s", out);
		physics_columns(a, x, sizeof x);
		physics_columns(b, y, sizeof y);
		cr_assert_str_eq(x, y, "%d ranks: two runs differ", np);
	}
}

/* Frictionless balls slide across the cut between two ranks' boxes (at
 * x = 6, between the centres 2 and 10): they change owner, meet the
 * resting balls of the other rank, and end where the serial run ends. */
Test(dist, bodies_migrate_across_the_cut)
{
	char scene[128], cmd[2048];
	double serial;

	write_file("slide.ini",
		   "[world]\ngravity = 0, 0, -9.81\ndt = 0.01\nsteps = 200\nmu = 0\nrestitution = 0\n"
		   "[body ground]\nshape = box\nhalf = 40, 10, 1\nposition = 10, 0, -1\nstatic = true\n"
		   "[body a]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 0, 0, 0.5\nvelocity = 5, 0, 0\n"
		   "[body b]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 2, 0, 0.5\nvelocity = 5, 0, 0\n"
		   "[body c]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 10, 0, 0.5\n"
		   "[body d]\nshape = sphere\nradius = 0.5\nmass = 1\nposition = 12, 0, 0.5\n",
		   scene, sizeof scene);
	snprintf(cmd, sizeof cmd, "%s run -c %s/conf/default.ini %s --quiet", PX_CLI,
		 PX_TEST_SRCDIR, scene);
	cr_assert_eq(sh(cmd), 0, "%s%s", out, err);
	serial = energy_at(1);
	snprintf(cmd, sizeof cmd, "run -c %s/conf/default.ini %s", PX_TEST_SRCDIR, scene);
	cr_assert_eq(mpi(2, cmd), 0, "%s%s", out, err);
	cr_assert(strstr(out, "at the start (own + ghost layer): 2+0 2+0"), "%s", out);
	cr_assert_geq(number_after("migration   "), 2, "%s", out);
	cr_assert_leq(number_after("(relative "), 1e-12, "%s", out);
	cr_assert_leq(fabs(energy_at(1) - serial), 1e-6 * fabs(serial), "serial %.9g\n%s",
		      serial, out);
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
	snprintf(full, sizeof full, "timeout 60 %s", cmd);
	cr_assert_eq(sh(full), 2, "%s%s", out, err);
	snprintf(want, sizeof want,
		 "proxima: %s: the partitioner failed: METIS_PartGraphKway returned -3 for 4 contacts in 2 parts\n",
		 p);
	cr_assert_str_eq(err, want);
}

/* Hybrid MPI + OpenMP: `colored' on 2 threads inside each of 2 ranks. */
Test(dist, colored_threads_inside_each_rank)
{
	char p[512], conf[128], cmd[2048];

	shared_problem("OneObject-i1028-138.hdf5.dat", p, sizeof p);
	write_file("colored.ini",
		   "[solver]\nmerit = fc3d\nabs_tol = 1e-6\nmax_sweeps = 20000\n"
		   "[scheduler]\nplugin = colored\nthreads = 2\nserial_below = 0\n",
		   conf, sizeof conf);
	snprintf(cmd, sizeof cmd, "solve -c %s %s --check-every 10", conf, p);
	cr_assert_eq(mpi(2, cmd), 0, "%s%s", out, err);
	cr_assert(strstr(out, "scheduler colored"), "%s", out);
	cr_assert_leq(number_after("fc3d error  "), 1e-6, "%s", out);
}
