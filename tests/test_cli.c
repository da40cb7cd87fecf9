/* The proxima command: exit status (0 converged, 1 not converged, 2 bad
 * input), one clear error line, and the files it writes. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "oracle.h"

/* Coulomb's law per contact (tests/oracle.h): the solutions here were
 * within 1.7e-10 of each contact's own scale */
#define LAW_REL 1e-8

#define TWO_BOXES PX_TEST_SRCDIR "/scenes/two-boxes.dat"
#define DEFAULT_INI PX_TEST_SRCDIR "/conf/default.ini"

static char out[PX_CLI_OUT_MAX], err[PX_CLI_OUT_MAX];
static char dir[64];

/* Run `proxima ARGS` with stdout and stderr captured; return exit status. */
/* The test's scratch directory, made on first use. */
static const char *scratch(void)
{
	if (!*dir) {
		snprintf(dir, sizeof dir, "/tmp/px_cli_XXXXXX");
		cr_assert_not_null(mkdtemp(dir));
	}
	return dir;
}

static int run(const char *args)
{
	return run_cli(scratch(), "", args, out, err);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void write_file(const char *name, const char *text, char *path,
		       size_t len)
{
	write_file_in(scratch(), name, text, path, len);
}

/* every test runs in its own process with its own scratch directory */
static void remove_dir(void)
{
	remove_tree(dir);
}

TestSuite(cli, .fini = remove_dir);

Test(cli, version_and_help)
{
	char version[128];

	snprintf(version, sizeof version, "proxima %s (plugin ABI %u.%u)\n",
		 PACKAGE_VERSION, PX_ABI_MAJOR, PX_ABI_MINOR);
	cr_assert_eq(run("--version"), 0);
	cr_assert_str_eq(out, version);
	cr_assert_eq(run("--help"), 0);
	cr_assert(strstr(out, "Usage: proxima"));
	cr_assert(strstr(out, "solve [-c CONFIG ...] [--set SECTION.KEY=VALUE ...] PROBLEM"));
	cr_assert(strstr(out, "[--warm-start zero|guess|solution] [--save-fclib OUT.hdf5]"));
	cr_assert(strstr(out, "convert IN OUT"));
}

Test(cli, bad_usage_exits_2_with_one_line)
{
	cr_assert_eq(run("frobnicate"), 2);
	cr_assert_str_eq(err, "proxima: unknown command 'frobnicate' (try 'proxima --help')\n");
	cr_assert_eq(run("solve"), 2);
	cr_assert_str_eq(err, "proxima solve: expected a PROBLEM file or folder, got none (try 'proxima --help')\n");
	cr_assert_eq(run("solve --bogus x.dat"), 2);
	cr_assert_str_eq(err, "proxima solve: bad option '--bogus' (try 'proxima --help')\n");
}

Test(cli, missing_problem_file)
{
	cr_assert_eq(run("solve /nonexistent/p.dat"), 2);
	cr_assert_str_eq(err, "proxima: /nonexistent/p.dat: cannot open: No such file or directory\n");
	cr_assert_str_eq(out, "");
}

/* `proxima ARGS` exits 2 with the one line want on stderr. */
static void refused(const char *args, const char *want)
{
	cr_assert_eq(run(args), 2, "%s: %s", args, err);
	cr_assert_str_eq(err, want);
}

/* A scene given to solve (or convert) and a problem file given to run
 * name the command they are for; an empty problem file says what it
 * expected in words. Files shipped in the repository: no shared file. */
Test(cli, a_file_for_the_other_command_names_it)
{
	char empty[256], args[1024], want[1024];
	const char *scene = PX_TEST_SRCDIR "/scenes/incline.ini";

	snprintf(want, sizeof want,
		 "proxima: %s: a scene (INI sections), not a contact problem: step it with `proxima run %s`\n",
		 scene, scene);
	snprintf(args, sizeof args, "solve %s", scene);
	refused(args, want);
	snprintf(args, sizeof args, "convert %s %s/x.dat", scene, dir);
	refused(args, want);
	snprintf(want, sizeof want,
		 "proxima: %s: a contact problem file, not a scene: solve it with `proxima solve %s`\n",
		 TWO_BOXES, TWO_BOXES);
	snprintf(args, sizeof args, "run %s", TWO_BOXES);
	refused(args, want);
	cr_assert_str_eq(out, "");
	write_file("empty.dat", "", empty, sizeof empty);
	snprintf(want, sizeof want,
		 "proxima: %s: empty file: expected a .dat contact problem (its first number is the dimension d, 3)\n",
		 empty);
	snprintf(args, sizeof args, "solve %s", empty);
	refused(args, want);
}

/* --out writes .txt, .csv and .npy and refuses any other name before the
 * solve; the options that name one file refuse several problems (the
 * .npy file itself is read by numpy in tests/json_output.sh). */
Test(cli, out_refuses_what_it_does_not_write)
{
	char args[1024], want[1024];

	snprintf(args, sizeof args, "solve %s --out %s/x.npz", TWO_BOXES, dir);
	snprintf(want, sizeof want, "proxima solve: --out '%s/x.npz': cannot write .npz (writes .txt, .csv or .npy)\n",
		 dir);
	refused(args, want);
	cr_assert_str_eq(out, "");
	refused("solve x.dat --out lambda",
		"proxima solve: --out 'lambda': no extension to say the format (writes .txt, .csv or .npy)\n");
	snprintf(args, sizeof args, "solve %s %s --history %s/h.csv", TWO_BOXES,
		 TWO_BOXES, dir);
	refused(args, "proxima solve: --history names one file, for one problem: it cannot take several problems (solve them one by one)\n");
	snprintf(args, sizeof args, "solve %s/scenes --save-fclib %s/x.hdf5",
		 PX_TEST_SRCDIR, dir);
	refused(args, "proxima solve: --save-fclib names one file, for one problem: it cannot take several problems (solve them one by one)\n");
}

Test(cli, bad_config_names_file_line_section_key)
{
	char cfg[256], args[1024], want[1024];

	run("--version");
	write_file("bad.ini", "[rfactor]\nplugin = local\nnu = 2\n", cfg, sizeof cfg);
	snprintf(args, sizeof args, "solve -c %s %s", cfg, TWO_BOXES);
	cr_assert_eq(run(args), 2);
	snprintf(want, sizeof want,
		 "proxima: %s:3: [rfactor] nu: '2' is out of range [1e-06, 1]\n", cfg);
	cr_assert_str_eq(err, want);
}

/* The sweeps of "result      converged after N sweeps", or fail. */
static int converged_sweeps(void)
{
	const char *at = strstr(out, "result      converged after ");
	int sweeps;

	cr_assert_not_null(at, "%s", out);
	cr_assert_eq(sscanf(at + 28, "%d", &sweeps), 1);
	return sweeps;
}

Test(cli, solves_writes_history_and_solution)
{
	char hist[256], sol[256], args[1024], buf[65536];
	struct px_problem *p;
	double *lambda;
	int rows, sweeps;

	run("--version");
	snprintf(hist, sizeof hist, "%s/h.csv", dir);
	snprintf(sol, sizeof sol, "%s/lambda.txt", dir);
	snprintf(args, sizeof args, "solve %s --history %s --out %s", TWO_BOXES,
		 hist, sol);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert_str_eq(err, "");
	sweeps = converged_sweeps();
	cr_assert(strstr(out, "fc3d error  "), "%s", out);
	read_text(hist, buf, sizeof buf);
	rows = count_lines(buf);
	cr_assert_eq(rows, sweeps + 1, "history has %d lines for %d sweeps", rows, sweeps);
	cr_assert(strncmp(buf, "sweep,part,accepted,residual,merit,seconds,work\n1,full,1,", 57) == 0, "%s", buf);
	/* the written solution satisfies the contact laws */
	cr_assert_eq(px_dat_read(TWO_BOXES, &p, NULL), PX_OK);
	lambda = read_solution(sol, 24);
	assert_solution(p, lambda, LAW_REL, 0.0, 1e-8, "lambda");
	free(lambda);
	px_problem_destroy(p);
}

Test(cli, coordinate_ordering_on_a_file_without_positions)
{
	char cfg[256], args[1024], want[1024];

	run("--version");
	write_file("coord.ini", "[ordering]\nplugin = coordinate\n", cfg, sizeof cfg);
	snprintf(args, sizeof args, "solve -c %s %s", cfg, TWO_BOXES);
	cr_assert_eq(run(args), 2);
	snprintf(want, sizeof want,
		 "proxima: %s: ordering plugin 'coordinate': prepare: the problem has no contact positions (problems read from Siconos or FCLib files carry none): sorting along an axis needs them\n",
		 TWO_BOXES);
	cr_assert_str_eq(err, want);
}

Test(cli, not_converged_exits_1)
{
	char cfg[256], args[1024];

	run("--version");
	write_file("two.ini", "[solver]\nmax_sweeps = 2\n", cfg, sizeof cfg);
	snprintf(args, sizeof args, "solve -c %s %s", cfg, TWO_BOXES);
	cr_assert_eq(run(args), 1);
	cr_assert(strstr(out, "result      NOT converged after 2 sweeps (0 rejected)"), "%s", out);
}

Test(cli, plugins_lists_kinds_names_and_parameters)
{
	cr_assert_eq(run("plugins"), 0, "%s", err);
	cr_assert(strstr(out, "friction   disc"), "%s", out);
	cr_assert(strstr(out, "friction   box"), "%s", out);
	cr_assert(strstr(out, "friction   ellipsoid"), "%s", out);
	cr_assert(strstr(out, "    bound        choice default proportional"),
		  "%s", out);
	cr_assert(strstr(out, "    mu_tau       real   default 0 "), "%s", out);
	cr_assert(strstr(out, "ordering   identity"), "%s", out);
	cr_assert(strstr(out, "rfactor    local"), "%s", out);
	cr_assert(strstr(out, "scheduler  sequential"), "%s", out);
	cr_assert(strstr(out, "scheduler  colored"), "%s", out);
	cr_assert(strstr(out, "    coloring     choice default greedy"), "%s", out);
	cr_assert(strstr(out, "scheduler  naive"), "%s", out);
	cr_assert(strstr(out, "    nu           real   default 1 "), "%s", out);
	cr_assert(strstr(out, "    merit        choice default fc3d"), "%s", out);
	cr_assert(strstr(out, "accelerator pgssm        PGS subspace minimization (Silcowitz et al. 2010)"),
		  "%s", out);
	cr_assert(strstr(out, "    k_pgs        int    default 25 "), "%s", out);
}

/* --describe: the header lines, the documentation as written, then the
 * parameter table with columns as wide as their entries. */
Test(cli, describe_prints_header_doc_and_parameters)
{
	const char *doc, *table;

	cr_assert_eq(run("plugins --describe local"), 0, "%s", err);
	cr_assert_str_eq(err, "");
	{
		char head[1024];

		snprintf(head, sizeof head,
			 "name        local\n"
			 "kind        rfactor\n"
			 "file        " PX_PLUGIN_BUILD_DIR "/rfactor_local.so\n"
			 "ABI         %u.%u\n"
			 "summary     r_i = gamma/A_ii per row (PGS, PSOR; friction rows share one r on non-separable sets), back-tracking by nu\n"
			 "\n"
			 "The Local r-factor strategy (Erleben 2017, sec. 4.2, eq. 39): r_i =\n"
			 "gamma / A_ii for every row i, from the diagonal of the contact's block\n",
			 PX_ABI_MAJOR, PX_ABI_MINOR);
		cr_assert(strncmp(out, head, strlen(head)) == 0, "%s", out);
	}
	doc = strstr(out, "\n\nThe Local r-factor strategy (Erleben 2017, sec. 4.2, eq. 39): r_i =\ngamma / A_ii for every row i,");
	cr_assert_not_null(doc, "%s", out);
	table = strstr(out, "\n\nparameters\n");
	cr_assert_not_null(table, "%s", out);
	cr_assert(table > doc, "%s", out);
	cr_assert_str_eq(table,
			 "\n\nparameters\n"
			 "  key     type  default  range         help\n"
			 "  nu      real  1        [1e-06, 1]    back-tracking: r <- nu r when a sweep's residual grew (1: never reject)\n"
			 "  gamma   real  1        [0.01, 1.99]  relaxation: r_i = gamma / A_ii (1: PGS, > 1: PSOR over-relaxation)\n"
			 "  growth  real  1.1      [1, 1e+06]    back-tracking rejects a sweep only when its delta exceeds growth times the last accepted one (1: any growth, as Erleben 2017)\n");
	/* KIND/NAME and KIND_NAME name the same plugin */
	cr_assert_eq(run("plugins --describe rfactor/local"), 0, "%s", err);
	cr_assert(strncmp(out, "name        local\nkind        rfactor\n", 36) == 0, "%s", out);
	cr_assert_eq(run("plugins --describe rfactor_local"), 0, "%s", err);
	cr_assert(strncmp(out, "name        local\nkind        rfactor\n", 36) == 0, "%s", out);
	/* the core's [solver] section */
	cr_assert_eq(run("plugins --describe solver"), 0, "%s", err);
	cr_assert(strncmp(out, "name        solver\nkind        core section [solver]\n", 52) == 0, "%s", out);
	cr_assert(strstr(out, "\n  max_sweeps      int     1000000     [1, 1e+15]"), "%s", out);
	cr_assert(strstr(out, "\n  merit           choice  fc3d        delta|fc3d|natural|minmap  "), "%s", out);
}

static void name_of(const struct px_plugin_header *h, const char *path,
		    void *user)
{
	char *list = user;

	(void)path;
	strcat(list, h->name);
	strcat(list, ", ");
}

/* An unknown name is one line listing the names found (the search path's,
 * read here through the loader), exit status 2; a name that is a refused
 * file gets the refusal. */
Test(cli, describe_unknown_name_lists_the_known_ones)
{
	char want[8192] = "proxima plugins: unknown plugin 'frob' (known: ";

	cr_assert_eq(px_plugin_foreach(name_of, NULL, want + strlen(want), NULL),
		     PX_OK);
	strcat(want, "solver)\n");
	/* auto, prox and ssn are there when configure found UMFPACK */
	cr_assert(strstr(want, "known: pgssm, box, disc, ellipsoid, coordinate, identity, ipp, random, staggered, blocked, global, local, colored, jacobi, naive, sequential, ") ||
			  strstr(want, "known: auto, pgssm, prox, ssn, box, disc, ellipsoid, coordinate, identity, ipp, random, staggered, blocked, global, local, colored, jacobi, naive, sequential, "),
		  "%s", want);
	cr_assert_eq(run("plugins --describe frob"), 2);
	cr_assert_str_eq(out, "");
	cr_assert_str_eq(err, want);
	cr_assert_eq(run("plugins --describe x/disc"), 2);
	cr_assert_str_eq(err, "proxima plugins: 'x/disc': unknown kind 'x' (expected friction, ordering, rfactor, scheduler or accelerator)\n");
	cr_assert_eq(run("plugins --describe"), 2);
	cr_assert_str_eq(err, "proxima plugins: --describe takes one NAME, got 0 (try 'proxima --help')\n");
}

/* Plugins built for ABI 1.0-1.3 are described without documentation; a
 * name two kinds share must be qualified; a refused file says why. */
Test(cli, describe_old_abi_plugins_and_ambiguous_names)
{
	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH", PX_TEST_PLUGIN_DIR, 1), 0);
	cr_assert_eq(run("plugins --describe abi10"), 0, "%s", err);
	cr_assert_str_eq(out,
			 "name        abi10\n"
			 "kind        friction\n"
			 "file        " PX_TEST_PLUGIN_DIR "/friction_abi10.so\n"
			 "ABI         1.0\n"
			 "summary     test-only plugin\n"
			 "\n"
			 "(no documentation: plugin built for ABI 1.0)\n"
			 "\n"
			 "parameters  none\n");
	cr_assert_eq(run("plugins --describe abi13"), 0, "%s", err);
	cr_assert(strstr(out, "\nABI         1.3\n"), "%s", out);
	cr_assert(strstr(out, "\n(no documentation: plugin built for ABI 1.3)\n\nparameters\n"
			      "  key   type  default  range   help\n"
			      "  step  int   1        [1, 9]  a parameter to show in the table\n"),
		  "%s", out);
	cr_assert_eq(run("plugins --describe abi11"), 0, "%s", err);
	cr_assert(strstr(out, "\n(no documentation: plugin built for ABI 1.1)\n"), "%s", out);
	cr_assert_eq(run("plugins --describe good"), 2);
	cr_assert_str_eq(err, "proxima plugins: 'good' is ambiguous: friction/good, ordering/good (name one as KIND/NAME)\n");
	cr_assert_eq(run("plugins --describe friction/good"), 0, "%s", err);
	{ /* built against this tree's plugin.h: the host's ABI */
		char want[256];

		snprintf(want, sizeof want,
			 "ABI         %u.%u\nsummary     test-only plugin\n\nA test-only plugin.\n\nIt declares one parameter of every type.\n\nparameters\n",
			 PX_ABI_MAJOR, PX_ABI_MINOR);
		cr_assert(strstr(out, want), "%s", out);
	}
	cr_assert_eq(run("plugins --describe badmajor"), 2);
	cr_assert_str_eq(err, "proxima: refused plugin: " PX_TEST_PLUGIN_DIR "/friction_badmajor.so: ABI major version 2, expected 1\n");
}

/* --reference: bad usage is one line, exit status 2, nothing on stdout. */
Test(cli, reference_bad_usage)
{
	cr_assert_eq(run("plugins --reference --format=pdf"), 2);
	cr_assert_str_eq(out, "");
	cr_assert_str_eq(err, "proxima plugins: unknown --format 'pdf' (expected markdown or man)\n");
	cr_assert_eq(run("plugins --reference --format"), 2);
	cr_assert_str_eq(err, "proxima plugins: --format takes markdown or man\n");
	cr_assert_eq(run("plugins --reference --format=man solver"), 2);
	cr_assert_str_eq(out, "");
	cr_assert_str_eq(err, "proxima plugins: --reference: unexpected argument 'solver' (try 'proxima --help')\n");
	cr_assert_eq(run("plugins --reference --describe disc"), 2);
	cr_assert_str_eq(err, "proxima plugins: --reference: unexpected argument '--describe' (try 'proxima --help')\n");
	cr_assert_eq(run_cli(scratch(), "PROXIMA_PLUGIN_PATH=", "plugins --reference --path-only", out, err), 2);
	cr_assert_str_eq(out, "");
	cr_assert_str_eq(err, "proxima plugins: --path-only: PROXIMA_PLUGIN_PATH is not set\n");
	cr_assert_eq(run_cli(scratch(), "PROXIMA_PLUGIN_PATH=/nonexistent", "plugins --reference --path-only", out, err), 2);
	cr_assert_str_eq(err, "proxima: no plugins found in /nonexistent\n");
}

/* A string of out found after *at; *at moves past it. */
static void expect_after(const char **at, const char *what)
{
	const char *p = strstr(*at, what);

	cr_assert_not_null(p, "'%s' not found after %.60s...", what, *at);
	*at = p + strlen(what);
}

/* The Markdown reference: [solver] first, then the kinds in the config's
 * order, plugins by name within a kind, each with its summary, doc and
 * key table; no file name; escaped so that formulas show as written. */
Test(cli, reference_markdown_order_and_text)
{
	const char *at;

	cr_assert_eq(run("plugins --reference --path-only"), 0, "%s", err);
	cr_assert_str_eq(err, "");
	cr_assert(strncmp(out, "# Configuration reference\n", 26) == 0, "%.200s", out);
	cr_assert_null(strstr(out, ".so"));
	cr_assert_null(strstr(out, PX_PLUGIN_BUILD_DIR));
	at = out;
	expect_after(&at, "\n| [`[friction]`](#friction) | `plugin = disc` | the friction set: each contact's prox operator | [`box`](#friction-plugin--box), [`disc`](#friction-plugin--disc), [`ellipsoid`](#friction-plugin--ellipsoid) |\n");
	expect_after(&at, "\n## `[solver]`\n\nThe [solver] section sets the driver");
	expect_after(&at, "\n| `max_sweeps` | int | `1000000` | [1, 1e+15] | sweep limit, rejected sweeps included |\n");
	expect_after(&at, "\n| `merit` | choice | `fc3d` | delta\\|fc3d\\|natural\\|minmap | ");
	expect_after(&at, "\n## `[friction]`\n\nThe friction set: each contact's prox operator. Default: `plugin = disc`.\n");
	expect_after(&at, "\n### `[friction] plugin = box`\n\n*NCP box friction: ");
	expect_after(&at, "\n### `[friction] plugin = disc`\n");
	expect_after(&at, "\n\n    prox(z) = z                       if |z| <= mu lambda_n\n");
	expect_after(&at, "\n\nNo keys.\n");
	expect_after(&at, "\n### `[friction] plugin = ellipsoid`\n");
	expect_after(&at, "\n## `[ordering]`\n");
	expect_after(&at, "\n### `[ordering] plugin = coordinate`\n");
	expect_after(&at, "\n## `[rfactor]`\n");
	expect_after(&at, "\n### `[rfactor] plugin = local`\n");
	expect_after(&at, "\n| `nu` | real | `1` | [1e-06, 1] | back-tracking: r <- nu r when a sweep's residual grew (1: never reject) |\n");
	expect_after(&at, "\n## `[scheduler]`\n");
	expect_after(&at, "\n## `[accelerator]`\n\nOptional: a step between sweeps that may replace the iterate. Default: `plugin = none`, no accelerator.\n");
	expect_after(&at, "\n### `[accelerator] plugin = pgssm`\n");
}

/* The man text: a tag per key as proxima.conf(5) has them; a plugin
 * without documentation or keys says so; a name two kinds share comes
 * once per kind, in the kinds' order; refused files go to stderr. */
Test(cli, reference_man_and_plugins_of_the_path)
{
	const char *at;

	cr_assert_eq(run("plugins --reference --path-only --format=man"), 0, "%s", err);
	at = out;
	expect_after(&at, "\n.SS \"[solver]\"\n.PP\nThe [solver] section");
	expect_after(&at, "\n.TP\n.BI \"merit = \" delta\\fR|\\fPfc3d\\fR|\\fPnatural\\fR|\\fPminmap\nchoice, default fc3d.\n.br\n");
	expect_after(&at, "\n.SS \"[rfactor] plugin = local\"\n");
	expect_after(&at, "\n.TP\n.BI \"nu = \" X\nreal in [1e\\-06, 1], default 1.\n.br\nback\\-tracking: r <\\- nu r when");
	cr_assert_eq(setenv("PROXIMA_PLUGIN_PATH", PX_TEST_PLUGIN_DIR, 1), 0);
	cr_assert_eq(run("plugins --reference --path-only --format=man"), 0, "%s", err);
	cr_assert(strstr(err, "proxima: refused plugin: " PX_TEST_PLUGIN_DIR "/friction_badmajor.so: ABI major version 2, expected 1\n"), "%s", err);
	at = out;
	expect_after(&at, "\n.SS \"[friction] plugin = abi10\"\ntest\\-only plugin\n.PP\nNo documentation.\n.PP\nNo keys.\n");
	expect_after(&at, "\n.SS \"[friction] plugin = good\"\n");
	expect_after(&at, "\n.SS \"[ordering] plugin = good\"\n");
	cr_assert_null(strstr(out, "plugin = disc\"\n"), "the installed or built plugins: %s", out);
}

/* With an accelerator the config line names it and its line follows the
 * time line; without one neither appears. */
Test(cli, solve_prints_the_accelerators_line)
{
	char cfg[256], args[1024];
	const char *line;

	run("--version");
	snprintf(args, sizeof args, "solve %s", TWO_BOXES);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert_null(strstr(out, "accelerator"), "%s", out);
	write_file("pgssm.ini",
		   "[solver]\nmerit = fc3d\nabs_tol = 1e-14\n[accelerator]\nplugin = pgssm\nk_pgs = 10\n",
		   cfg, sizeof cfg);
	snprintf(args, sizeof args, "solve -c %s %s", cfg, TWO_BOXES);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert(strstr(out, ", scheduler sequential, accelerator pgssm\n"), "%s", out);
	line = strstr(out, "\ntime        ");
	cr_assert_not_null(line, "%s", out);
	line = strchr(line + 1, '\n');
	cr_assert(strncmp(line, "\naccelerator pgssm: ", 20) == 0, "%s", out);
	cr_assert(strstr(line, "products with A (sweep equivalents)"), "%s", out);
	cr_assert(strstr(line, "; k_pgs 10, k_sm 5: "), "%s", out);
}

/* The scheduler's describe line follows the time line; sequential has
 * none. */
Test(cli, solve_prints_the_schedulers_line)
{
	char cfg[256], args[1024];
	const char *line;

	run("--version");
	snprintf(args, sizeof args, "solve %s", TWO_BOXES);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert_null(strstr(out, "\nscheduler   "), "%s", out);
	write_file("colored.ini",
		   "[scheduler]\nplugin = colored\ncoloring = balanced\nthreads = 2\n",
		   cfg, sizeof cfg);
	snprintf(args, sizeof args, "solve -c %s %s", cfg, TWO_BOXES);
	cr_assert_eq(run(args), 0, "%s", err);
	line = strstr(out, "\ntime        ");
	cr_assert_not_null(line, "%s", out);
	line = strchr(line + 1, '\n');
	cr_assert(strncmp(line, "\nscheduler   colored balanced: ", 31) == 0,
		  "%s", out);
	cr_assert(strstr(line, "1 thread (24 rows < serial_below 1024)"), "%s", out);
	cr_assert(strstr(line, "(reused: no)\n"), "%s", out);
}

Test(cli, default_job_runs_the_bundled_scene)
{
	cr_assert_eq(run(""), 0, "%s", err);
	cr_assert(strstr(out, "scenes/default.ini: 513 bodies, dt 0.01 s, 100 steps"),
		  "%s", out);
	cr_assert(strstr(out, "config      (defaults): friction disc"), "%s", out);
	cr_assert(strstr(out, "0 of 100 steps stopped without converging"), "%s",
		  out);
}

/* `run` names substeps and soft contact on its scene line (issue 23). */
Test(cli, run_shows_substeps_and_soft_contact)
{
	char path[4096], args[4200];
	FILE *f;

	cr_assert_eq(run("--help"), 0);
	snprintf(path, sizeof path, "%s/soft.ini", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("[world]\nsubsteps = 4\nstabilization = soft\nsteps = 3\n"
	      "contact_hertz = 60\n[body b]\nshape = sphere\nradius = 1\n"
	      "mass = 1\n",
	      f);
	fclose(f);
	snprintf(args, sizeof args, "run %s --quiet", path);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert(strstr(out, "stabilization soft, contact cache on, 4 substeps, 60 Hz, damping ratio 10\n"),
		  "%s", out);
}

/* `run` writes one CSV row per step and a VTK frame per step plus the
 * index; the energies it reports are those of the rows. */
Test(cli, run_writes_statistics_and_frames)
{
	char args[4096], path[4096];
	char csv[65536];
	FILE *f;

	cr_assert_eq(run("--version"), 0); /* makes dir */
	snprintf(args, sizeof args,
		 "run %s/scenes/heavyonlight.ini --steps 3 --csv %s/s.csv --vtk %s/vtk",
		 PX_TEST_SRCDIR, dir, dir);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert(strstr(out, "heavyonlight.ini: 3 bodies, dt 0.0166667 s, 3 steps"),
		  "%s", out);
	snprintf(path, sizeof path, "%s/s.csv", dir);
	read_text(path, csv, sizeof csv);
	cr_assert_eq(count_lines(csv), 4, "%s", csv);
	cr_assert(strncmp(csv, "step,time,contacts,cache_hits,sweeps,merit,", 43) == 0,
		  "%s", csv);
	cr_assert(strstr(csv, "\n3,0.05,8,8,"), "%s", csv);
	for (int i = 0; i <= 3; i++) {
		snprintf(path, sizeof path, "%s/vtk/frame_%06d.vtp", dir, i);
		f = fopen(path, "r");
		cr_assert_not_null(f, "%s", path);
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/vtk/frames.pvd", dir);
	read_text(path, csv, sizeof csv);
	cr_assert(strstr(csv, "file=\"frame_000003.vtp\""), "%s", csv);
	/* beside each frame its step's contacts: none before the first
	 * step, the CSV's 8 at step 3 */
	snprintf(path, sizeof path, "%s/vtk/contacts.pvd", dir);
	read_text(path, csv, sizeof csv);
	cr_assert(strstr(csv, "<DataSet timestep=\"0.050000000000000003\" group=\"\" part=\"0\" file=\"contacts_000003.vtp\"/>"),
		  "%s", csv);
	snprintf(path, sizeof path, "%s/vtk/contacts_000000.vtp", dir);
	read_text(path, csv, sizeof csv);
	cr_assert(strstr(csv, "<Piece NumberOfPoints=\"0\" NumberOfVerts=\"0\" "),
		  "%s", csv);
	snprintf(path, sizeof path, "%s/vtk/contacts_000003.vtp", dir);
	read_text(path, csv, sizeof csv);
	cr_assert(strstr(csv, "<Piece NumberOfPoints=\"8\" NumberOfVerts=\"8\" "),
		  "%s", csv);
	snprintf(path, sizeof path, "frames      4 in %s/vtk, index %s/vtk/frames.pvd, contacts %s/vtk/contacts.pvd\n",
		 dir, dir, dir);
	cr_assert(strstr(out, path), "%s", out);
}

Test(cli, run_refuses_bad_scenes_and_options)
{
	char path[4096], args[8192];

	cr_assert_eq(run("run --steps 0"), 2);
	cr_assert_str_eq(err, "proxima run: --steps '0': expected a positive integer\n");
	cr_assert_eq(run("run --cache maybe"), 2);
	cr_assert_str_eq(err, "proxima run: --cache 'maybe': expected on or off\n");
	write_file("nan.ini",
		   "[body ball]\nshape = sphere\nradius = 1\nmass = 1\n"
		   "position = 0, nan, 1\n",
		   path, sizeof path);
	snprintf(args, sizeof args, "run %s", path);
	cr_assert_eq(run(args), 2);
	cr_assert_eq(count_lines(err), 1, "%s", err);
	cr_assert(strstr(err, "nan.ini:5: [body ball] position: "), "%s", err);
	cr_assert_str_eq(out, "");
}

static struct px_problem *read_problem(const char *path)
{
	struct px_problem *p;
	struct px_error e = {0, ""};

	cr_assert_eq(px_problem_read(path, &p, PX_FCLIB_R_NONE, NULL, &e), PX_OK,
		     "%s", e.msg);
	return p;
}

Test(cli, convert_usage_errors_and_dat_to_dat)
{
	char args[1024], want[1024], dat[256];
	struct px_problem *a, *b;

	cr_assert_eq(run("convert a.dat"), 2);
	cr_assert_str_eq(err, "proxima convert: expected IN and OUT files, got 1 (try 'proxima --help')\n");
	cr_assert_eq(run("convert " TWO_BOXES " out.txt"), 2);
	cr_assert_str_eq(err, "proxima convert: out.txt: unknown output format (expected a name ending in .dat, .hdf5 or .h5)\n");
	snprintf(dat, sizeof dat, "%s/copy.dat", dir);
	snprintf(args, sizeof args, "convert %s %s", TWO_BOXES, dat);
	cr_assert_eq(run(args), 0, "%s", err);
	snprintf(want, sizeof want, "proxima: wrote %s (8 contacts, Siconos .dat)\n",
		 dat);
	cr_assert_str_eq(out, want);
	a = read_problem(TWO_BOXES);
	b = read_problem(dat);
	assert_same_problem(a, b);
	px_problem_destroy(a);
	px_problem_destroy(b);
}

#ifdef HAVE_FCLIB

/* .dat -> FCLib -> .dat gives W, q and mu back bit for bit. */
Test(cli, convert_round_trip_bit_for_bit)
{
	char h5[256], dat[256], args[1024], want[1024];
	struct px_problem *a, *b, *c;

	run("--version");
	snprintf(h5, sizeof h5, "%s/p.hdf5", dir);
	snprintf(dat, sizeof dat, "%s/p.dat", dir);
	snprintf(args, sizeof args, "convert %s %s", TWO_BOXES, h5);
	cr_assert_eq(run(args), 0, "%s", err);
	snprintf(want, sizeof want,
		 "proxima: wrote %s (8 contacts, FCLib local problem)\n", h5);
	cr_assert_str_eq(out, want);
	snprintf(args, sizeof args, "convert %s %s", h5, dat);
	cr_assert_eq(run(args), 0, "%s", err);
	a = read_problem(TWO_BOXES);
	b = read_problem(h5);
	c = read_problem(dat);
	assert_same_problem(a, b);
	assert_same_problem(a, c);
	px_problem_destroy(a);
	px_problem_destroy(b);
	px_problem_destroy(c);
}

/* The saved solution, as a warm start, converges in at most one sweep. */
Test(cli, save_fclib_then_warm_start_from_the_solution)
{
	char h5[256], args[1024];

	run("--version");
	snprintf(h5, sizeof h5, "%s/solved.hdf5", dir);
	snprintf(args, sizeof args, "solve -c %s --save-fclib %s %s",
		 DEFAULT_INI, h5, TWO_BOXES);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert_gt(converged_sweeps(), 1);
	snprintf(args, sizeof args, "solve -c %s --warm-start solution %s",
		 DEFAULT_INI, h5);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert(strstr(out, "start       the file's solution (/solution/r)\n"),
		  "%s", out);
	cr_assert_leq(converged_sweeps(), 1, "%s", out);
}

Test(cli, warm_start_from_what_the_file_lacks)
{
	char h5[256], args[1024], want[1024];

	cr_assert_eq(run("solve --warm-start guess " TWO_BOXES), 2);
	cr_assert_str_eq(err, "proxima: " TWO_BOXES ": a .dat file holds no initial guess (only FCLib files do)\n");
	cr_assert_str_eq(out, "");
	snprintf(h5, sizeof h5, "%s/noguess.hdf5", dir);
	snprintf(args, sizeof args, "convert %s %s", TWO_BOXES, h5);
	cr_assert_eq(run(args), 0, "%s", err);
	snprintf(args, sizeof args, "solve --warm-start guess %s", h5);
	cr_assert_eq(run(args), 2);
	snprintf(want, sizeof want,
		 "proxima: %s: no initial guess (missing group /guesses)\n", h5);
	cr_assert_str_eq(err, want);
	cr_assert_eq(run("solve --warm-start sometimes " TWO_BOXES), 2);
	cr_assert_str_eq(err, "proxima solve: --warm-start 'sometimes': expected zero, guess or solution\n");
}

/* libhdf5 1.10.8 crashes on these two files (issue 22's fuzzing); the
 * command says so on one line and exits 2 like for any damaged file.
 * Under valgrind (make check-valgrind) the reader's child process is traced
 * too and memcheck reports libhdf5's invalid read before the crash, which
 * is the point of this file, so the test is skipped there. */
Test(cli, libhdf5_crash_is_one_error_line)
{
	static const char *const files[][2] = {
		{"hdf5-chunk-sigfpe.hdf5", "Floating point exception, signal 8"},
		{"hdf5-accum-segv.hdf5", "Segmentation fault, signal 11"},
	};
	char args[1024], want[1024];

	if (getenv("PX_TEST_WRAPPER"))
		cr_skip_test("valgrind reports libhdf5's own invalid read in the reader process");
	for (size_t i = 0; i < 2; i++) {
		snprintf(args, sizeof args,
			 "solve " PX_TEST_SRCDIR "/tests/fuzz/regress/%s",
			 files[i][0]);
		cr_assert_eq(run(args), 2, "%s", err);
		snprintf(want, sizeof want,
			 "proxima: " PX_TEST_SRCDIR "/tests/fuzz/regress/%s: libhdf5 crashed reading this file (%s): the file is damaged\n",
			 files[i][0], files[i][1]);
		cr_assert_str_eq(err, want);
		cr_assert_str_eq(out, "");
	}
}

#else /* !HAVE_FCLIB */

Test(cli, without_fclib_hdf5_files_are_one_error_line)
{
	char h5[256], args[1024], want[1024];

	run("--version");
	write_file("p.hdf5", "\211HDF\r\n\032\n", h5, sizeof h5);
	snprintf(args, sizeof args, "solve %s", h5);
	snprintf(want, sizeof want,
		 "proxima: %s: proxima was built without FCLib support (libfclib-dev, libhdf5-dev)\n",
		 h5);
	refused(args, want);
	snprintf(args, sizeof args, "convert %s %s/q.hdf5", TWO_BOXES, dir);
	snprintf(want, sizeof want,
		 "proxima: %s/q.hdf5: proxima was built without FCLib support (libfclib-dev, libhdf5-dev)\n",
		 dir);
	refused(args, want);
}

#endif

/* Under mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE) solve and run hand over
 * to proxima-mpi, or say the build has no MPI: one line, status 2. */
Test(cli, under_mpirun_hands_over_or_says_no_mpi)
{
	setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
	setenv("PROXIMA_MPI", "/nonexistent/proxima-mpi", 1);
	cr_assert_eq(run("solve x.dat"), 2);
	unsetenv("OMPI_COMM_WORLD_SIZE");
	cr_assert_eq(count_lines(err), 1, "%s", err);
#ifdef HAVE_MPI
	cr_assert_str_eq(err, "proxima: /nonexistent/proxima-mpi: cannot run the distributed solver: No such file or directory\n");
#else
	cr_assert_str_eq(err, "proxima: solve: proxima was built without MPI (apt-get install libopenmpi-dev openmpi-bin)\n");
#endif
}

/* Configs that compose (issue 30): `proxima config` prints the config in
 * effect as INI that reads back to itself; -c takes installed names; on
 * solve several -c and --set layer in order, the report naming them. */
Test(cli, config_prints_ini_that_reads_back)
{
	char first[1 << 14], path[256], args[512];

	cr_assert_eq(run("config -c robust --set rfactor.nu=0.5 --set solver.max_sweeps=1e5"),
		     0, "%s", err);
	cr_assert(strstr(out, "\n[rfactor]\nplugin = local\nnu = 0.5\n"), "%s", out);
	cr_assert(strstr(out, "\nmax_sweeps = 100000\n"), "%s", out);
	cr_assert(strstr(out, "\n[accelerator]\nplugin = ssn\n"), "%s", out);
	cr_assert(strstr(out, "conf/robust.ini + --set rfactor.nu=0.5 + --set solver.max_sweeps=1e5\n"),
		  "%s", out);
	snprintf(first, sizeof first, "%s", strchr(out, '\n'));
	write_file("mine.ini", out, path, sizeof path);
	snprintf(args, sizeof args, "config -c %s", path);
	cr_assert_eq(run(args), 0, "%s", err);
	cr_assert_str_eq(strchr(out, '\n'), first);
	cr_assert_eq(run("config robust"), 2);
	cr_assert_str_eq(err, "proxima config: unexpected argument 'robust' (configs are given with -c)\n");
	cr_assert_eq(run("config -c nosuchconfig"), 2);
	cr_assert_eq(strncmp(err, "proxima: config 'nosuchconfig' not found: no such file, and no nosuchconfig.ini in ", 83),
		     0, "%s", err);
	cr_assert_eq(count_lines(err), 1, "%s", err);
}

Test(cli, solve_layers_configs_in_order)
{
	char a[256], b[256], args[1024];

	write_file("a.ini", "[solver]\nmax_sweeps = 7\nmerit = delta\n", a, sizeof a);
	write_file("b.ini", "[solver]\nmax_sweeps = 9\n", b, sizeof b);
	snprintf(args, sizeof args, "solve -c %s -c %s %s", a, b, TWO_BOXES);
	run(args);
	cr_assert(strstr(out, "[solver] max_sweeps 9, abs_tol 5e-09, rel_tol 1e-12, merit delta,"),
		  "%s", out);
	snprintf(args, sizeof args, "solve -c %s --set solver.max_sweeps=3 -c %s --set rfactor.gamma=0.5 %s",
		 b, a, TWO_BOXES);
	run(args);
	cr_assert(strstr(out, "[solver] max_sweeps 7,"), "%s", out);
	cr_assert(strstr(out, "[rfactor] nu 1, gamma 0.5, growth 1.1\n"), "%s", out);
	snprintf(args, sizeof args, "config      %s + --set solver.max_sweeps=3 + %s + --set rfactor.gamma=0.5: friction disc",
		 b, a);
	cr_assert(strstr(out, args), "%s", out);
	snprintf(args, sizeof args, "solve --set rfactor.gamma=3 %s", TWO_BOXES);
	cr_assert_eq(run(args), 2);
	cr_assert_str_eq(err, "proxima: --set rfactor.gamma=3: [rfactor] gamma: '3' is out of range [0.01, 1.99]\n");
}
