/* `proxima compare`: its histories are `proxima solve --history`'s rows,
 * its table agrees with them, the plot step is skipped cleanly without
 * gnuplot and draws PNG and SVG with it, scenes compare at chosen steps
 * (the driving config reproduces the world's own solve) and over whole
 * runs (quartiles that agree with the per-step CSV), and bad input is one
 * exact error line. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define TWO_BOXES PX_TEST_SRCDIR "/scenes/two-boxes.dat"
#define DEFAULT_INI PX_TEST_SRCDIR "/conf/default.ini"

static char out[1 << 17], err[1 << 16];
static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/px_compare_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* Run `proxima ARGS` in dir with stdout and stderr captured; return the
 * exit status. */
static int run(const char *args)
{
	char cmd[8192];
	int st;

	snprintf(cmd, sizeof cmd, "cd %s && %s %s >stdout 2>stderr", dir,
		 PX_CLI, args);
	st = system(cmd);
	snprintf(cmd, sizeof cmd, "%s/stdout", dir);
	read_text(cmd, out, sizeof out);
	snprintf(cmd, sizeof cmd, "%s/stderr", dir);
	read_text(cmd, err, sizeof err);
	cr_assert(WIFEXITED(st), "%s did not exit normally", args);
	return WEXITSTATUS(st);
}

/* dir/name holding text. */
static void write_file(const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* Size of dir/name, -1 when absent. */
static long file_size(const char *name)
{
	char path[1024];
	struct stat sb;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &sb) ? -1 : (long)sb.st_size;
}

static void read_file(const char *name, char *buf, size_t len)
{
	char path[1024];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	cr_assert_geq(file_size(name), 0, "%s is missing", path);
	read_text(path, buf, len);
}

/* The text without the last comma-separated field of each line. */
static void drop_last_field(char *s)
{
	char *w = s;

	for (char *line = s; *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		for (size_t i = n; i > 0; i--)
			if (line[i - 1] == ',') {
				n = i - 1;
				break;
			}
		memmove(w, line, n);
		w += n;
		*w++ = '\n';
		line = nl ? nl + 1 : line + strlen(line);
	}
	*w = '\0';
}

static const char *const global_ini = "[solver]\n"
				      "max_sweeps = 2000\n"
				      "abs_tol = 1e-10\n"
				      "merit = fc3d\n"
				      "[rfactor]\n"
				      "plugin = global\n"
				      "r = 0.5\n";

/* The cells of markdown row `| label | ...` of text, up to max. */
static int md_row(const char *text, const char *label, char cells[][32],
		  int max)
{
	char key[64];
	const char *at;
	int n = 0;

	snprintf(key, sizeof key, "\n| %s | ", label);
	at = strstr(text, key);
	cr_assert_not_null(at, "no row %s in\n%s", label, text);
	at++;
	while (n < max && *at == '|' && at[1] == ' ') {
		const char *end = strstr(at + 2, " |");
		size_t len;

		if (!end)
			break;
		len = (size_t)(end - at - 2);
		cr_assert_lt(len, 32);
		memcpy(cells[n], at + 2, len);
		cells[n++][len] = '\0';
		at = end + 1;
		if (*at == '\n')
			break;
	}
	return n;
}

TestSuite(compare, .init = setup, .fini = teardown);

Test(compare, histories_are_solve_history_rows_and_the_table_agrees)
{
	static char a[1 << 16], b[1 << 16], md[8192];
	const char *name[2] = {"default", "global"};
	char cells[16][32];

	write_file("global.ini", global_ini);
	cr_assert_eq(run("compare -c " DEFAULT_INI " -c global.ini " TWO_BOXES
			 " --out cmp --no-plot"),
		     0, "%s", err);
	cr_assert_str_eq(err, "");
	cr_assert(strstr(out, "plots       not drawn (--no-plot); to draw: gnuplot cmp/convergence.gp\n"),
		  "%s", out);
	read_file("cmp/table.md", md, sizeof md);
	for (int i = 0; i < 2; i++) {
		char args[512], csv[64];
		long rows = 0, at4 = 0;
		char *line;

		snprintf(args, sizeof args, "solve -c %s %s --history h.csv",
			 i ? "global.ini" : DEFAULT_INI, TWO_BOXES);
		cr_assert_eq(run(args), 0, "%s", err);
		snprintf(csv, sizeof csv, "cmp/%s.csv", name[i]);
		read_file(csv, a, sizeof a);
		read_file("h.csv", b, sizeof b);
		cr_assert_str_eq(strtok(a, "\n"), strtok(b, "\n"));
		read_file(csv, a, sizeof a);
		read_file("h.csv", b, sizeof b);
		drop_last_field(a);
		drop_last_field(b);
		cr_assert_gt(strlen(a), 100);
		cr_assert_str_eq(a, b, "%s differs from solve --history",
				 csv);
		/* sweeps and the first sweep with merit <= 1e-4, from the
		 * history, are the table's */
		for (line = strtok(a, "\n"); line; line = strtok(NULL, "\n")) {
			long sweep, accepted;
			char part[16];
			double res, merit;

			if (sscanf(line, "%ld,%15[a-z],%ld,%lf,%lf", &sweep,
				   part, &accepted, &res, &merit) != 5)
				continue;
			rows = sweep;
			if (!at4 && accepted && merit <= 1e-4)
				at4 = sweep;
		}
		cr_assert_eq(md_row(md, name[i], cells, 16), 13);
		cr_assert_str_eq(cells[1], "fc3d");
		cr_assert_str_eq(cells[2], "yes");
		cr_assert_eq(atol(cells[3]), rows);
		cr_assert_eq(atol(cells[5]), at4);
		cr_assert_gt(at4, 1);
	}
	cr_assert(strstr(md, "| config | merit | converged | sweeps | rejected | sweeps@0.0001 | s@0.0001 | sweeps@1e-06 | s@1e-06 | sweeps@1e-08 | s@1e-08 | final fc3d | us/sweep |"),
		  "%s", md);
	/* the default's final fc3d is what solve prints */
	cr_assert(strstr(out, "fc3d error  "), "%s", out);
}

Test(compare, labels_default_to_file_names_and_repeat_with_suffixes)
{
	write_file("global.ini", global_ini);
	cr_assert_eq(run("compare -c global.ini -c global.ini -c global.ini "
			 TWO_BOXES " --no-plot --tol 1e-3"),
		     0, "%s", err);
	cr_assert_geq(file_size("compare/global.csv"), 100);
	cr_assert_geq(file_size("compare/global-2.csv"), 100);
	cr_assert_geq(file_size("compare/global-3.csv"), 100);
	cr_assert_eq(run("compare -c global.ini -c global.ini " TWO_BOXES
			 " --label x --out o --no-plot"),
		     0, "%s", err);
	cr_assert_geq(file_size("o/x.csv"), 100);
	cr_assert_geq(file_size("o/global.csv"), 100);
}

Test(compare, without_gnuplot_writes_data_and_script_and_says_how_to_draw)
{
	const char *const absent[] = {"/nonexistent", ""};

	for (int i = 0; i < 2; i++) {
		char args[512], script[8192];

		cr_assert_eq(setenv("PROXIMA_GNUPLOT", absent[i], 1), 0);
		snprintf(args, sizeof args,
			 "compare -c %s %s --out p%d --label d", DEFAULT_INI,
			 TWO_BOXES, i);
		cr_assert_eq(run(args), 0, "%s", err);
		snprintf(args, sizeof args,
			 "proxima compare: gnuplot not found; to draw: gnuplot p%d/convergence.gp\n",
			 i);
		cr_assert_str_eq(err, args);
		snprintf(args, sizeof args, "p%d/convergence.gp", i);
		read_file(args, script, sizeof script);
		cr_assert(strstr(script, "here.'/d.csv' skip 1 using 1:"),
			  "%s", script);
		snprintf(args, sizeof args, "p%d/d.csv", i);
		cr_assert_gt(file_size(args), 100);
		snprintf(args, sizeof args, "p%d/convergence.png", i);
		cr_assert_eq(file_size(args), -1);
		snprintf(args, sizeof args, "p%d/convergence.svg", i);
		cr_assert_eq(file_size(args), -1);
	}
	/* a config that stops early: exit 1, as proxima solve */
	write_file("two.ini", "[solver]\nmax_sweeps = 2\n");
	cr_assert_eq(run("compare -c two.ini " TWO_BOXES " --no-plot"), 1);
	cr_assert_str_eq(err, "");
}

static int have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* dir/name starts with the bytes of magic and is larger than min. */
static void drawn(const char *name, const char *magic, long min)
{
	char buf[4096];

	cr_assert_gt(file_size(name), min, "%s: %ld bytes", name,
		     file_size(name));
	read_file(name, buf, sizeof buf);
	cr_assert(strstr(buf, magic) != NULL, "%s is not what it says", name);
}

Test(compare, with_gnuplot_draws_png_and_svg)
{
	if (!have_gnuplot())
		cr_skip_test("gnuplot is not on PATH (Debian: gnuplot-nox)");
	unsetenv("PROXIMA_GNUPLOT");
	write_file("global.ini", global_ini);
	cr_assert_eq(run("compare -c " DEFAULT_INI " -c global.ini " TWO_BOXES
			 " --out g"),
		     0, "%s", err);
	cr_assert(strstr(out, "plot        g/convergence.png g/convergence.svg\n"),
		  "%s", out);
	drawn("g/convergence.png", "PNG", 1000);
	drawn("g/convergence.svg", "<svg", 1000);
}

Test(compare, a_failing_gnuplot_is_one_error_line)
{
	write_file("gp", "#!/bin/sh\necho '\"x.gp\" line 3: no such thing' >&2\n"
			 "exit 1\n");
	cr_assert_eq(chmod(strcat(strcpy(err, dir), "/gp"), 0755), 0);
	cr_assert_eq(setenv("PROXIMA_GNUPLOT", err, 1), 0);
	cr_assert_eq(run("compare -c " DEFAULT_INI " " TWO_BOXES), 2);
	cr_assert(strstr(err, "proxima compare: compare/convergence.gp: "),
		  "%s", err);
	cr_assert(strstr(err, "/gp exited with status 1: \"x.gp\" line 3: no such thing\n"),
		  "%s", err);
	cr_assert_gt(file_size("compare/default.csv"), 100);
}

/* Three boxes dropped on the ground, ten steps. */
static const char *const scene_ini = "[world]\n"
				     "dt = 0.01\n"
				     "steps = 10\n"
				     "mu = 0.5\n"
				     "[body ground]\n"
				     "shape = box\n"
				     "half = 5, 5, 1\n"
				     "position = 0, 0, -1\n"
				     "static = true\n"
				     "[stack boxes]\n"
				     "count = 3\n"
				     "half = 0.5, 0.5, 0.5\n"
				     "mass = 1\n"
				     "gap = 0.001\n";

static const char *const short_ini = "[solver]\n"
				     "max_sweeps = 5\n"
				     "merit = fc3d\n"
				     "abs_tol = 1e-10\n";

Test(compare, scene_at_chosen_steps_reproduces_the_driving_solve)
{
	static char md[8192];
	char cells[16][32], key[64];
	const char *at;
	unsigned long driving;

	write_file("s.ini", scene_ini);
	write_file("global.ini", global_ini);
	write_file("short.ini", short_ini);
	cr_assert_eq(setenv("PROXIMA_GNUPLOT", "", 1), 0);
	cr_assert_eq(run("compare -c global.ini -c short.ini s.ini --at 4,2 --out at"),
		     1, "%s", err);
	cr_assert_str_eq(err, "proxima compare: gnuplot not found; to draw: gnuplot at/step2/convergence.gp at/step4/convergence.gp\n");
	for (int k = 2; k <= 4; k += 2) {
		char name[64];

		snprintf(name, sizeof name, "at/step%d/global.csv", k);
		cr_assert_gt(file_size(name), 100);
		snprintf(name, sizeof name, "at/step%d/short.csv", k);
		cr_assert_gt(file_size(name), 100);
		snprintf(name, sizeof name, "at/step%d/table.md", k);
		read_file(name, md, sizeof md);
		cr_assert(strstr(md, "from the warm start the world used"));
		/* the first config drove the run: solving the step's problem
		 * from the world's warm start takes the world's sweeps */
		snprintf(key, sizeof key, "\nstep %-6d ", k);
		at = strstr(out, key);
		cr_assert_not_null(at, "%s", out);
		at = strstr(at, "the driving solve took ");
		cr_assert_not_null(at);
		cr_assert_eq(sscanf(at, "the driving solve took %lu", &driving),
			     1);
		cr_assert_eq(md_row(md, "global", cells, 16), 13);
		cr_assert_eq(strtoul(cells[3], NULL, 10), driving);
		cr_assert_eq(md_row(md, "short", cells, 16), 13);
		cr_assert_str_eq(cells[2], "no");
		cr_assert_str_eq(cells[3], "5");
	}
	cr_assert_eq(file_size("at/step3"), -1);
}

Test(compare, whole_runs_give_quartiles_that_agree_with_the_steps)
{
	static char md[16384], csv[8192];
	char cells[16][32];
	unsigned long lo = ~0ul, hi = 0, hits = 0;
	int rows = 0;

	write_file("s.ini", scene_ini);
	write_file("global.ini", global_ini);
	write_file("short.ini", short_ini);
	cr_assert_eq(run("compare -c global.ini -c short.ini s.ini --whole --steps 5 --out w --no-plot"),
		     0, "%s", err);
	cr_assert_str_eq(err, "");
	cr_assert(strstr(out, "plots       not drawn (--no-plot); to draw: gnuplot w/sweeps.gp w/energy.gp\n"),
		  "%s", out);
	cr_assert_gt(file_size("w/global-steps.csv"), 100);
	cr_assert_gt(file_size("w/sweeps.gp"), 100);
	cr_assert_gt(file_size("w/energy.gp"), 100);
	read_file("w/short-steps.csv", csv, sizeof csv);
	cr_assert_eq(strncmp(csv, "step,time,contacts,sweeps,merit,fc3d,converged,hit_limit,diverged,kinetic,potential,seconds_solve\n", 97), 0);
	for (char *l = strtok(csv, "\n"); l; l = strtok(NULL, "\n")) {
		unsigned long step, contacts, sweeps;
		double t;
		int hit;

		if (sscanf(l, "%lu,%lf,%lu,%lu,%*[^,],%*[^,],%*d,%d", &step, &t,
			   &contacts, &sweeps, &hit) != 5)
			continue;
		rows++;
		if (!contacts)
			continue;
		lo = sweeps < lo ? sweeps : lo;
		hi = sweeps > hi ? sweeps : hi;
		hits += hit;
	}
	cr_assert_eq(rows, 5);
	cr_assert_eq(hi, 5);
	read_file("w/table.md", md, sizeof md);
	cr_assert(strstr(md, "## sweeps per solve\n\n| config | min | q1 | median | q3 | max |\n"),
		  "%s", md);
	cr_assert(strstr(md, "| config | merit | steps | solves | converged | hit limit | diverged | sweeps | solve s | us/sweep |\n"),
		  "%s", md);
	cr_assert_eq(md_row(md, "short", cells, 16), 10);
	cr_assert_str_eq(cells[2], "5");
	cr_assert_eq(strtoul(cells[5], NULL, 10), hits);
	cr_assert_gt(hits, 0);
	/* the second table's short row: min and max of the CSV */
	md_row(strstr(md, "## sweeps per solve"), "short", cells, 16);
	cr_assert_eq(strtoul(cells[1], NULL, 10), lo);
	cr_assert_eq(strtoul(cells[5], NULL, 10), hi);
	cr_assert(strstr(out, "\nsweeps per solve\nconfig  min"), "%s", out);
}

Test(compare, bad_input_is_one_exact_line_and_exit_2)
{
	static const struct {
		const char *args, *msg;
	} cases[] = {
		{"compare " TWO_BOXES,
		 "proxima compare: expected at least one -c CONFIG (try 'proxima compare --help')\n"},
		{"compare -c g.ini",
		 "proxima compare: expected one TARGET (a problem file, or a scene .ini), got 0\n"},
		{"compare -c g.ini " TWO_BOXES " --bogus",
		 "proxima compare: bad option '--bogus' (try 'proxima compare --help')\n"},
		{"compare -c g.ini " TWO_BOXES " --tol",
		 "proxima compare: --tol: expected a value (try 'proxima compare --help')\n"},
		{"compare -c missing.ini " TWO_BOXES,
		 "proxima: missing.ini: cannot open: No such file or directory\n"},
		{"compare -c g.ini nothere.dat",
		 "proxima: nothere.dat: cannot open: No such file or directory\n"},
		{"compare -c g.ini nothere.ini",
		 "proxima: nothere.ini: cannot open: No such file or directory\n"},
		{"compare -c g.ini g.ini",
		 "proxima: g.ini:1: unknown section [solver] (known kinds: world, body, grid, pile, stack, wall, cardhouse, tower)\n"},
		{"compare -c g.ini s.ini --at 0",
		 "proxima compare: --at '0': expected positive step numbers separated by commas\n"},
		{"compare -c g.ini s.ini --at 2,x",
		 "proxima compare: --at '2,x': expected positive step numbers separated by commas\n"},
		{"compare -c g.ini s.ini --at 11",
		 "proxima: s.ini: --at 11 is beyond its 10 steps (--steps sets the run's length)\n"},
		{"compare -c g.ini s.ini --at 4 --steps 3",
		 "proxima: s.ini: --at 4 is beyond its 3 steps (--steps sets the run's length)\n"},
		{"compare -c g.ini s.ini --steps 1x",
		 "proxima compare: --steps '1x': expected a positive integer\n"},
		{"compare -c g.ini " TWO_BOXES " --tol 1e-4,abc",
		 "proxima compare: --tol '1e-4,abc': expected positive numbers separated by commas\n"},
		{"compare -c g.ini " TWO_BOXES " --tol 0",
		 "proxima compare: --tol '0': expected positive numbers separated by commas\n"},
		{"compare -c g.ini " TWO_BOXES " --at 2",
		 "proxima compare: --at needs a scene TARGET (.ini), not the problem file " TWO_BOXES "\n"},
		{"compare -c g.ini " TWO_BOXES " --whole",
		 "proxima compare: --whole needs a scene TARGET (.ini), not the problem file " TWO_BOXES "\n"},
		{"compare -c g.ini s.ini --at 2 --whole",
		 "proxima compare: --at and --whole exclude each other\n"},
		{"compare -c g.ini s.ini --drive g.ini",
		 "proxima compare: --drive goes with --at (with --whole each config drives its own run)\n"},
		{"compare -c g.ini s.ini --tol 1e-3",
		 "proxima compare: --tol goes with a problem file or --at (--whole summarizes the final merits)\n"},
		{"compare -c g.ini s.ini --at 2 --drive missing.ini",
		 "proxima: missing.ini: cannot open: No such file or directory\n"},
		{"compare -c g.ini " TWO_BOXES " --label a --label b",
		 "proxima compare: 2 --label for 1 -c configs\n"},
		{"compare -c g.ini " TWO_BOXES " --label ../x",
		 "proxima compare: --label '../x': expected up to 55 letters, digits, '.', '_', '+' or '-', not starting with '.'\n"},
		{"compare -c g.ini " TWO_BOXES " --out s.ini",
		 "proxima: s.ini: not a directory\n"},
	};

	write_file("g.ini", "[solver]\nmax_sweeps = 100\n");
	write_file("s.ini", scene_ini);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		cr_assert_eq(run(cases[i].args), 2, "%s: %s", cases[i].args,
			     err);
		cr_assert_str_eq(err, cases[i].msg, "%s", cases[i].args);
		cr_assert_str_eq(out, "", "%s", cases[i].args);
	}
}
