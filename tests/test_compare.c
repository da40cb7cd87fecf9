/* `proxima compare`: its histories are `proxima solve --history`'s rows,
 * its table agrees with them, the plot step is skipped cleanly without
 * gnuplot and draws PNG and SVG with it, scenes compare at chosen steps
 * (the driving config reproduces the world's own solve; the step's
 * problem and warm start are saved) and over whole
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

#include <proxima/io.h>

#include "helpers.h"
#include "oracle.h"

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

/* The text without the sixth comma-separated field (seconds) of each
 * line. */
static void drop_seconds(char *s)
{
	char *w = s;

	for (char *line = s; *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		size_t from = n, to = n, commas = 0;

		for (size_t i = 0; i < n; i++)
			if (line[i] == ',' && ++commas == 5)
				from = i;
			else if (line[i] == ',' && commas == 6)
				to = i;
		memmove(w, line, from);
		w += from;
		memmove(w, line + to, n - to);
		w += n - to;
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

/* pgssm every 5 sweeps: its calls replace the iterate on TWO_BOXES, the
 * last one after the last sweep. */
static const char *const acc_ini = "[solver]\n"
				   "max_sweeps = 2000\n"
				   "abs_tol = 1e-10\n"
				   "merit = fc3d\n"
				   "[accelerator]\n"
				   "plugin = pgssm\n"
				   "k_pgs = 5\n"
				   "k_sm = 2\n";

static const char *const delta_ini = "[solver]\n"
				     "max_sweeps = 2000\n"
				     "abs_tol = 1e-7\n"
				     "merit = delta\n";

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
		drop_seconds(a);
		drop_seconds(b);
		cr_assert_gt(strlen(a), 100);
		cr_assert_str_eq(a, b, "%s differs from solve --history",
				 csv);
		/* sweeps and the first sweep with merit <= 1e-4, from the
		 * history, are the table's */
		for (line = strtok(a, "\n"); line; line = strtok(NULL, "\n")) {
			long sweep, accepted;
			char part[16];
			double res, merit;

			long work;

			if (sscanf(line, "%ld,%15[a-z],%ld,%lf,%lf,%ld", &sweep,
				   part, &accepted, &res, &merit, &work) != 6)
				continue;
			/* no accelerator: the work is the sweeps */
			cr_assert_eq(work, sweep);
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

static void has(const char *text, const char *part)
{
	cr_assert(strstr(text, part), "no \"%s\" in\n%s", part, text);
}

Test(compare, scripts_draw_pdf_basename_titles_styles_tolerances_and_work)
{
	static char gp[1 << 15];

	write_file("acc.ini", acc_ini);
	cr_assert_eq(run("compare -c " DEFAULT_INI " -c acc.ini " TWO_BOXES
			 " --out a/b --no-plot"),
		     0, "%s", err);
	read_file("a/b/convergence.gp", gp, sizeof gp);
	has(gp, "do for [fmt in 'pdf png svg'] {\n");
	has(gp, "\t\tif (strstrt(GPVAL_TERMINALS, 'pdfcairo') == 0) { continue }\n"
		"\t\tset terminal pdfcairo enhanced size 8.00in,3.33in font ',9'\n");
	/* the file, not its path, and safe from enhanced text */
	has(gp, "set multiplot layout 1,2 title 'Convergence on two-boxes.dat' noenhanced\n");
	cr_assert_null(strstr(gp, PX_TEST_SRCDIR));
	/* colour, dash type and marker differ */
	has(gp, "set style line 1 lc rgb '#0072B2' dt 1 pt 6 lw 2 ps 1.2\n");
	has(gp, "set style line 2 lc rgb '#D55E00' dt 2 pt 4 lw 2 ps 1.2\n");
	has(gp, "with linespoints ls 1 pi ");
	has(gp, "with linespoints ls 2 pi ");
	has(gp, "title 'default' noenhanced");
	/* one merit: the axis names it, the key does not repeat it */
	has(gp, "\tset ylabel 'fc3d error'\n");
	cr_assert_null(strstr(gp, "(fc3d)"));
	has(gp, "\tset format y '10^{%L}'\n");
	/* the two configs' tolerances, dashed */
	has(gp, ", 5.0000000000000001e-09 with lines ls 100 title 'tolerance 5×10^{-9}'");
	has(gp, ", 1e-10 with lines ls 101 title 'tolerance 10^{-10}'\n");
	has(gp, "set style line 100 lc rgb '#606060' dt 2 lw 1.5\n");
	/* the work column, and the accelerator's calls as markers */
	has(gp, "\tset xlabel 'work: sweeps + the accelerator''s products with A'\n");
	has(gp, "here.'/acc.csv' skip 1 using 7:($3 > 0 ? $5 : NaN)");
	has(gp, "here.'/acc-accel.csv' skip 1 using 5:($3 > 0 ? $6 : NaN) with points ls 2 notitle");
	has(gp, "here.'/acc.csv' skip 1 using ($6 * 1000):");
	cr_assert_eq(file_size("a/b/default-accel.csv"), -1);
}

Test(compare, the_work_charges_the_accelerator_its_products)
{
	static char csv[1 << 16], calls[4096];
	unsigned long after[64], prod[64], work_at[64], products = 0, sum = 0;
	unsigned long sweeps = 0, work = 0;
	int n = 0;
	const char *at;

	write_file("acc.ini", acc_ini);
	cr_assert_eq(run("solve -c acc.ini " TWO_BOXES), 0, "%s", err);
	at = strstr(out, " products with A (sweep equivalents)");
	cr_assert_not_null(at, "%s", out);
	while (at > out && at[-1] != ' ')
		at--;
	products = strtoul(at, NULL, 10);
	cr_assert_gt(products, 0);
	cr_assert_eq(run("compare -c acc.ini " TWO_BOXES " --no-plot"), 0,
		     "%s", err);
	read_file("compare/acc-accel.csv", calls, sizeof calls);
	for (char *l = strtok(calls, "\n"); l; l = strtok(NULL, "\n")) {
		if (sscanf(l, "%lu,%*d,%*d,%lu,%lu", after + n, prod + n,
			   work_at + n) != 3)
			continue;
		sum += prod[n];
		/* the work when the call returned */
		cr_assert_eq(work_at[n], after[n] + sum);
		n++;
	}
	cr_assert_geq(n, 2);
	cr_assert_eq(sum, products);
	read_file("compare/acc.csv", csv, sizeof csv);
	for (char *l = strtok(csv, "\n"); l; l = strtok(NULL, "\n")) {
		unsigned long before = 0;

		if (sscanf(l, "%lu,%*[a-z],%*d,%*f,%*f,%*f,%lu", &sweeps,
			   &work) != 2)
			continue;
		for (int k = 0; k < n; k++)
			if (after[k] < sweeps)
				before += prod[k];
		cr_assert_eq(work, sweeps + before, "sweep %lu", sweeps);
	}
	cr_assert_gt(sweeps, 5);
	cr_assert_gt(work, sweeps);
}

/* A solve its accelerator finishes reaches the tolerance in the calls, not
 * in a sweep: robust (ssn) on Capsules-i122 replaces the iterate after its
 * last sweep and stops; sweeps@T and s@T count that iterate, as the
 * accelerator's own file gives it. */
Test(compare, the_table_counts_the_accelerators_iterate)
{
	static char csv[1 << 16], md[8192];
	char path[4096], cells[16][32];
	unsigned long h = 0, a = 0;
	double a_s = 0;

	shared_problem("Capsules-i122-1617.dat", path, sizeof path);
	{
		char args[4608];

		snprintf(args, sizeof args,
			 "compare -c %s/conf/robust.ini %s --tol 1e-8 --no-plot",
			 PX_TEST_SRCDIR, path);
		cr_assert_eq(run(args), 0, "%s", err);
	}
	read_file("compare/robust.csv", csv, sizeof csv);
	for (char *l = strtok(csv, "\n"); l && !h; l = strtok(NULL, "\n")) {
		unsigned long sweep;
		int accepted;
		double merit;

		if (sscanf(l, "%lu,%*[a-z],%d,%*f,%lf", &sweep, &accepted,
			   &merit) == 3 && accepted && merit <= 1e-8)
			h = sweep;
	}
	read_file("compare/robust-accel.csv", csv, sizeof csv);
	for (char *l = strtok(csv, "\n"); l && !a; l = strtok(NULL, "\n")) {
		unsigned long after;
		int replaced;
		double merit, seconds;

		if (sscanf(l, "%lu,%*d,%d,%*u,%*u,%lf,%lf", &after, &replaced,
			   &merit, &seconds) == 4 && replaced && merit <= 1e-8) {
			a = after;
			a_s = seconds;
		}
	}
	cr_assert_gt(a, 0, "no call of ssn reached 1e-8");
	cr_assert(h == 0 || a < h, "a sweep (%lu) reached 1e-8 before ssn (%lu)",
		  h, a);
	read_file("compare/table.md", md, sizeof md);
	cr_assert_eq(md_row(md, "robust", cells, 16), 9);
	cr_assert_eq(strtoul(cells[5], NULL, 10), a, "%s", md);
	cr_assert_float_eq(strtod(cells[6], NULL), a_s, 0.01 * a_s, "%s", md);
}

Test(compare, configs_on_different_merits_say_theirs_in_the_key)
{
	static char gp[1 << 15];

	write_file("delta.ini", delta_ini);
	cr_assert_eq(run("compare -c " DEFAULT_INI " -c delta.ini " TWO_BOXES
			 " --no-plot"),
		     0, "%s", err);
	read_file("compare/convergence.gp", gp, sizeof gp);
	has(gp, "\tset ylabel 'merit of each config (in the key)'\n");
	has(gp, "title 'default (fc3d)' noenhanced");
	has(gp, "title 'delta (delta)' noenhanced");
	/* delta's tolerance is not on the merit drawn: no line */
	has(gp, "with lines ls 100 title 'tolerance 5×10^{-9} (fc3d)'\n");
	cr_assert_null(strstr(gp, "ls 101"));
	has(gp, "\tset xlabel 'sweeps'\n");
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
		cr_assert(strstr(script, "here.'/d.csv' skip 1 using 7:"),
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
	cr_assert(strstr(out, "g/convergence.png g/convergence.svg"), "%s",
		  out);
	drawn("g/convergence.png", "PNG", 1000);
	drawn("g/convergence.svg", "<svg", 1000);
}

Test(compare, with_gnuplot_draws_pdf_beside_png_and_svg)
{
	if (!have_gnuplot())
		cr_skip_test("gnuplot is not on PATH (Debian: gnuplot-nox)");
	if (system("gnuplot -e 'set terminal' </dev/null 2>&1 | grep -q pdfcairo") != 0)
		cr_skip_test("this gnuplot has no pdfcairo terminal");
	unsetenv("PROXIMA_GNUPLOT");
	write_file("acc.ini", acc_ini);
	cr_assert_eq(run("compare -c " DEFAULT_INI " -c acc.ini " TWO_BOXES
			 " --out g"),
		     0, "%s", err);
	cr_assert(strstr(out, "plot        g/convergence.pdf g/convergence.png g/convergence.svg\n"),
		  "%s", out);
	drawn("g/convergence.pdf", "%PDF", 1000);
	drawn("g/convergence.png", "PNG", 1000);
	drawn("g/convergence.svg", "<svg", 1000);
	{
		static char svg[1 << 18];

		/* the axis names the merit and the work */
		read_file("g/convergence.svg", svg, sizeof svg);
		cr_assert(strstr(svg, "fc3d error"));
		cr_assert(strstr(svg, "products with A"));
	}
}

Test(compare, a_gnuplot_without_pdfcairo_draws_no_pdf_and_says_so)
{
	char want[512];

	/* draws nothing: the PDF an earlier run left must go */
	write_file("gp", "#!/bin/sh\nexit 0\n");
	cr_assert_eq(chmod(strcat(strcpy(err, dir), "/gp"), 0755), 0);
	cr_assert_eq(setenv("PROXIMA_GNUPLOT", err, 1), 0);
	cr_assert_eq(mkdir(strcat(strcpy(out, dir), "/o"), 0777), 0);
	write_file("o/convergence.pdf", "%PDF stale");
	cr_assert_eq(run("compare -c " DEFAULT_INI " " TWO_BOXES " --out o"),
		     0, "%s", err);
	snprintf(want, sizeof want,
		 "plot        o/convergence.png o/convergence.svg (no PDF: %s/gp has no pdfcairo terminal)\n",
		 dir);
	cr_assert(strstr(out, want), "%s", out);
	cr_assert_eq(file_size("o/convergence.pdf"), -1);
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

/* Step k's problem.dat and warm_start.txt, as the report names them:
 * its contacts, and the fc3d error of the warm start on the saved problem
 * (the tests' own, tests/oracle.h) is the one the report printed, which
 * the command computed on the world's problem. */
static void saved_step(int k)
{
	static char text[1 << 16];
	char key[64], want[256], path[1024], got[32];
	struct px_problem *p = NULL;
	struct px_error e = {0};
	unsigned long contacts;
	double *warm, fc3d;
	const char *at, *s;
	size_t m = 0;

	snprintf(key, sizeof key, "\nstep %-6d ", k);
	at = strstr(out, key);
	cr_assert_eq(sscanf(at + strlen(key), "%lu contacts", &contacts), 1);
	at = strstr(at, "warm start fc3d ");
	cr_assert_not_null(at);
	snprintf(want, sizeof want,
		 "\nsaved       at/step%d/problem.dat at/step%d/warm_start.txt\n",
		 k, k);
	cr_assert_not_null(strstr(at, want), "%s", out);
	snprintf(path, sizeof path, "%s/at/step%d/problem.dat", dir, k);
	cr_assert_eq(px_dat_read(path, &p, &e), PX_OK, "%s", e.msg);
	cr_assert_eq(px_problem_n_contacts(p), contacts);
	snprintf(path, sizeof path, "at/step%d/warm_start.txt", k);
	read_file(path, text, sizeof text);
	warm = malloc(3 * contacts * sizeof *warm);
	cr_assert_not_null(warm);
	for (s = text; *s; s = strchr(s, '\n') + 1) {
		cr_assert_lt(m, 3 * contacts);
		warm[m++] = strtod(s, NULL);
	}
	cr_assert_eq(m, 3 * contacts);
	fc3d = oracle_fc3d_dense(p, warm);
	snprintf(got, sizeof got, "%.3e", fc3d);
	cr_assert_eq(strncmp(at + strlen("warm start fc3d "), got, strlen(got)),
		     0, "fc3d of the saved warm start on the saved problem %s:\n%s",
		     got, at);
	free(warm);
	px_problem_destroy(p);
}

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
		saved_step(k);
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
	read_file("w/sweeps.gp", csv, sizeof csv);
	cr_assert(strstr(csv, "set multiplot layout 2,2 title 'Solves of s.ini, one run per config' noenhanced\n"),
		  "%s", csv);
	cr_assert(strstr(csv, "here.'/short-steps.csv' skip 1 using 2:($3 > 0 ? $13 : NaN) with linespoints ls 2 pi 1 title 'short' noenhanced"),
		  "%s", csv);
	/* both stop on fc3d at 1e-10: one tolerance line */
	cr_assert(strstr(csv, ", 1e-10 with lines ls 100 title 'tolerance 10^{-10}'\n"),
		  "%s", csv);
	cr_assert_null(strstr(csv, "ls 101 title"));
	read_file("w/energy.gp", csv, sizeof csv);
	cr_assert(strstr(csv, "title 'Energies of s.ini, one run per config' noenhanced"),
		  "%s", csv);
	read_file("w/short-steps.csv", csv, sizeof csv);
	cr_assert_eq(strncmp(csv, "step,time,contacts,sweeps,merit,fc3d,converged,hit_limit,diverged,kinetic,potential,seconds_solve,work\n", 102), 0);
	for (char *l = strtok(csv, "\n"); l; l = strtok(NULL, "\n")) {
		unsigned long step, contacts, sweeps, work;
		double t;
		int hit;

		if (sscanf(l, "%lu,%lf,%lu,%lu,%*[^,],%*[^,],%*d,%d,%*d,%*[^,],%*[^,],%*[^,],%lu",
			   &step, &t, &contacts, &sweeps, &hit, &work) != 6)
			continue;
		/* no accelerator: the work is the sweeps */
		cr_assert_eq(work, sweeps);
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
