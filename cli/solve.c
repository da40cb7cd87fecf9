/* `proxima solve`: read a problem file (.dat or FCLib, told apart by
 * content), solve it with a config from zero or from the file's guess or
 * solution, print what happened (why it stopped, sweeps, residual,
 * Siconos's fc3d error, time) as text or JSON (--json) and optionally
 * write the per-sweep history (CSV), the solution lambda (text or .npy),
 * and the problem with its solution as an FCLib file. SIGINT or SIGTERM
 * stops the solve between sweeps: the report and the outputs then hold
 * what was reached (cli/stop.c). Several problems (files, folders) go to
 * solve_list.c. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <proxima/proxima.h>

#include "cli.h"
#include "json_report.h"
#include "solution.h"
#include "solve.h"

static int all_finite(const double *x, size_t m)
{
	for (size_t i = 0; i < m; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

const char *px_solve_start_name(enum px_fclib_r start)
{
	static const char *const name[] = {"zero", "guess", "solution"};

	return start <= PX_FCLIB_R_SOLUTION ? name[start] : "?";
}

/* ---- the text report ------------------------------------------------- */

static const char *const start_text[] = {
	"zero", "the file's first guess (/guesses/1/r)",
	"the file's solution (/solution/r)"};

/* Before the solve: the problem, the config, the start (flushed: the
 * header says that the solve has begun). */
static void print_head(const struct px_solve_result *r)
{
	printf("problem     %s: %zu contacts, %u rows each, %s A\n", r->path,
	       r->contacts, r->rows, r->assembled ? "assembled" : "factorized");
	px_cli_print_config(stdout, r->cfg);
	if (r->opts->start != PX_FCLIB_R_NONE)
		printf("start       %s\n", start_text[r->opts->start]);
	px_cli_warn_fc3d(r->cfg);
	fflush(stdout);
}

/* The result line: why the solve stopped (rep->stop), after how many
 * sweeps. */
static void print_stop(const struct px_report *rep,
		       const struct px_solver_settings *s)
{
	printf("result      ");
	switch (rep->stop) {
	case PX_STOP_CONVERGED:
		printf("converged");
		break;
	case PX_STOP_STALLED:
		printf("stalled at a fixed point the merit does not accept (%s %.3e)",
		       px_cli_merit_name(s->merit), rep->merit);
		break;
	case PX_STOP_TIME_LIMIT:
		printf("time limit (%g s) reached", s->time_limit);
		break;
	case PX_STOP_INTERRUPTED:
		printf("interrupted");
		break;
	default: /* max_sweeps, diverged (its own line follows) */
		printf("NOT converged");
	}
	if (rep->sweeps == 0 && rep->accel_steps > 0) /* it drove the solve */
		printf(" after %llu steps of the accelerator, no sweep\n",
		       (unsigned long long)rep->accel_steps);
	else
		printf(" after %llu sweeps (%llu rejected), last delta %.3g\n",
		       (unsigned long long)rep->sweeps,
		       (unsigned long long)rep->rejected, rep->residual);
}

/* The accelerator's line: its calls, their work in sweep equivalents and
 * time, then what the plugin says about them. */
static void print_accelerator(const struct px_solve_result *r)
{
	const struct px_plugin *acc =
		px_config_plugin(r->cfg, PX_KIND_ACCELERATOR);
	const struct px_report *rep = &r->rep;

	printf("accelerator %s: %llu calls (%llu replaced the iterate), %llu products with A (sweep equivalents), %.6f s%s",
	       px_plugin_header(acc)->name,
	       (unsigned long long)rep->accel_steps,
	       (unsigned long long)rep->accel_replaced,
	       (unsigned long long)rep->accel_products, rep->accel_seconds,
	       rep->accel_restored ? "; the end of the solve put back its best iterate" : "");
	if (r->accelerator[0])
		printf("; %s", r->accelerator);
	printf("\n");
}

/* After the solve: what happened. */
static void print_result(const struct px_solve_result *r)
{
	const struct px_report *rep = &r->rep;
	const struct px_solver_settings *s = px_config_settings(r->cfg);

	print_stop(rep, s);
	if (rep->best_sweep)
		printf("kept        the lowest-merit iterate, after sweep %llu (%s %.3e), not the last\n",
		       (unsigned long long)rep->best_sweep,
		       px_cli_merit_name(s->merit), rep->merit);
	if (rep->diverged)
		printf("diverged    at sweep %llu: %s\n",
		       (unsigned long long)rep->diverged_sweep,
		       px_cli_divergence_text(rep->diverged));
	if (rep->check_failed && !rep->converged)
		printf("check       the stop test was met, but the residual %.3e > check_tol %g: not a solution\n",
		       rep->check, s->check_tol);
	if (px_config_friction_is_disc(r->cfg))
		printf("fc3d error  %.3e (||F|| = %.3e; Siconos fc3d_compute_error)\n",
		       r->fc3d, r->fc3d_F);
	else
		printf("fc3d error  %.3e (of the Coulomb disc law, not this config's %s set; ||F|| = %.3e; Siconos fc3d_compute_error)\n",
		       r->fc3d,
		       px_plugin_header(px_config_plugin(r->cfg, PX_KIND_FRICTION))->name,
		       r->fc3d_F);
	if (s->merit == PX_MERIT_NATURAL || s->merit == PX_MERIT_MINMAP)
		printf("merit       %s %.3e\n", px_cli_merit_name(s->merit),
		       rep->merit);
	printf("kernel      %s\n", px_cli_kernel_name(rep));
	/* per sweep: without the accelerator's calls (their own line); a
	 * solve the accelerator drove has none */
	if (rep->sweeps)
		printf("time        %.6f s (%.3g us per sweep; prepare %.6f s)\n",
		       rep->seconds, px_cli_us_per_sweep(rep),
		       rep->prepare_seconds);
	else
		printf("time        %.6f s (prepare %.6f s)\n", rep->seconds,
		       rep->prepare_seconds);
	if (r->scheduler[0])
		printf("scheduler   %s\n", r->scheduler);
	if (px_config_plugin(r->cfg, PX_KIND_ACCELERATOR))
		print_accelerator(r);
}

/* ---- one file ----------------------------------------------------------- */

/* The status of a solve that ran: 0 converged, 1 not, 128 + the signal
 * that interrupted it. */
static int ran_status(const struct px_report *rep, int status)
{
	return px_cli_stop_status(status, rep->stop == PX_STOP_INTERRUPTED);
}

/* --history, --out and --save-fclib after the solve. A failure sets
 * r->status: 1 for a solution not finite (not written), else 2. */
static int write_outputs(struct px_solve_result *r, const struct px_problem *p,
			 const double *lambda, size_t m, struct px_error *err)
{
	const struct px_solve_opts *o = r->opts;

	r->status = EXIT_BAD_INPUT;
	if (o->history && px_cli_write_history(o->history, &r->rep, err))
		return err->code;
	if ((o->out || o->save_fclib) && !all_finite(lambda, m)) {
		r->status = ran_status(&r->rep, EXIT_NOT_CONVERGED);
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: the solution is not finite: not written",
				    r->path);
	}
	if (o->out && px_cli_write_solution(o->out, lambda, m, err))
		return err->code;
	if (o->save_fclib && px_fclib_write(o->save_fclib, p, lambda, err))
		return err->code;
	r->status = ran_status(&r->rep, r->rep.converged ? EXIT_CONVERGED
							 : EXIT_NOT_CONVERGED);
	return PX_OK;
}

int px_solve_file(const char *path, const struct px_config *cfg,
		  const struct px_solve_opts *opts,
		  void (*on_read)(const struct px_solve_result *r),
		  struct px_solve_result *r)
{
	struct px_problem *p = NULL;
	struct px_error err = {0};
	double *lambda = NULL;
	size_t m;
	int rc;

	memset(r, 0, sizeof *r);
	r->path = path;
	r->opts = opts;
	r->cfg = cfg;
	r->status = EXIT_BAD_INPUT;
	if (px_cli_refuse_scene(path, &err) ||
	    px_problem_read(path, &p, opts->start, &lambda, &err))
		goto out;
	r->read = 1;
	r->contacts = px_problem_n_contacts(p);
	r->rows = px_problem_block_size(p);
	r->assembled = px_problem_form(p) == PX_FORM_ASSEMBLED;
	m = r->contacts * r->rows;
	if (!lambda)
		lambda = calloc(m + 1, sizeof *lambda);
	if (!lambda) {
		px_error_set(&err, PX_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (on_read)
		on_read(r);
	if (opts->progress)
		px_cli_progress_init(opts->progress, cfg);
	rc = px_solve(p, cfg, lambda, &r->rep, &err);
	if (opts->progress)
		px_cli_progress_erase(opts->progress);
	if (rc) {
		/* the plugins' refusals concern this problem: name it */
		char msg[PX_ERROR_MSG_MAX];

		snprintf(msg, sizeof msg, "%s", err.msg);
		px_error_set(&err, err.code, "%s: %s", path, msg);
		goto out;
	}
	r->solved = 1;
	r->fc3d = px_merit_fc3d(p, lambda, &r->fc3d_F);
	px_scheduler_describe(cfg, r->scheduler, sizeof r->scheduler);
	px_accelerator_describe(cfg, r->accelerator, sizeof r->accelerator);
	write_outputs(r, p, lambda, m, &err);
out:
	if (err.code)
		snprintf(r->error, sizeof r->error, "%s", err.msg);
	free(lambda);
	px_problem_destroy(p);
	return r->status;
}

void px_solve_result_free(struct px_solve_result *r)
{
	px_report_free(&r->rep);
}

/* One problem, the full report. */
static int solve_one(const char *path, const struct px_config *cfg,
		     const struct px_solve_opts *opts)
{
	struct px_solve_result r;
	int status = px_solve_file(path, cfg, opts,
				   opts->json ? NULL : print_head, &r);

	if (r.solved && opts->json)
		status = px_json_print_solve(&r) ? EXIT_BAD_INPUT : status;
	else if (r.solved)
		print_result(&r);
	if (r.error[0])
		fprintf(stderr, "proxima: %s\n", r.error);
	px_solve_result_free(&r);
	return status;
}

/* --warm-start's value. */
static int parse_start(const char *v, enum px_fclib_r *start)
{
	if (strcmp(v, "zero") == 0)
		*start = PX_FCLIB_R_NONE;
	else if (strcmp(v, "guess") == 0)
		*start = PX_FCLIB_R_GUESS;
	else if (strcmp(v, "solution") == 0)
		*start = PX_FCLIB_R_SOLUTION;
	else
		return -1;
	return 0;
}

static int is_dir(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Read the options into opts: 0, 1 after --help, or EXIT_BAD_INPUT + 1
 * after a bad one (said on stderr). */
static int parse(int argc, char **argv, struct px_solve_opts *opts)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 's'},
		{"history", required_argument, NULL, 'H'},
		{"out", required_argument, NULL, 'o'},
		{"warm-start", required_argument, NULL, 'w'},
		{"save-fclib", required_argument, NULL, 'S'},
		{"time-limit", required_argument, NULL, 'T'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
		case 's':
			if (px_cli_config_add(&opts->config,
					      c == 'c' ? PX_LAYER_FILE
						       : PX_LAYER_SET,
					      optarg))
				return EXIT_BAD_INPUT + 1;
			break;
		case 'H': opts->history = optarg; break;
		case 'o': opts->out = optarg; break;
		case 'S': opts->save_fclib = optarg; break;
		case 'j': opts->json = 1; break;
		case 'w':
			if (parse_start(optarg, &opts->start) == 0)
				break;
			fprintf(stderr, "proxima solve: --warm-start '%s': expected zero, guess or solution\n",
				optarg);
			return EXIT_BAD_INPUT + 1;
		case 'T':
			if (px_cli_parse_seconds("solve", optarg,
						 &opts->time_limit))
				return EXIT_BAD_INPUT + 1;
			break;
		case 'h':
			printf("Usage: proxima solve [-c CONFIG ...] [--set SECTION.KEY=VALUE ...]\n"
			       "                     [--warm-start zero|guess|solution]\n"
			       "                     [--save-fclib OUT.hdf5] PROBLEM|DIR... [--history FILE.csv]\n"
			       "                     [--out FILE.txt|.csv|.npy] [--time-limit S] [--json]\n");
			return 1;
		default:
			fprintf(stderr, "proxima solve: bad option '%s' (try 'proxima --help')\n",
				argv[optind - 1]);
			return EXIT_BAD_INPUT + 1;
		}
	}
	return 0;
}

/* The options that name one output file, given with several problems:
 * refused, naming the first. */
static int one_file_option(const struct px_solve_opts *o)
{
	const char *opt = o->out ? "--out" : o->history ? "--history"
			  : o->save_fclib ? "--save-fclib" : NULL;

	if (!opt)
		return 0;
	fprintf(stderr, "proxima solve: %s names one file, for one problem: it cannot take several problems (solve them one by one)\n",
		opt);
	return 1;
}

/* The problems of argv[first..argc) with the options: a config built once,
 * armed against SIGINT and SIGTERM. */
static int solve(char **args, int n, struct px_solve_opts *opts)
{
	const int several = n > 1 || is_dir(args[0]);
	struct px_cli_progress progress;
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	char msg[PX_ERROR_MSG_MAX];
	int status;

	if (several && one_file_option(opts))
		return EXIT_BAD_INPUT;
	if (opts->out && px_cli_solution_format(opts->out, msg, sizeof msg) < 0) {
		fprintf(stderr, "proxima solve: %s\n", msg);
		return EXIT_BAD_INPUT;
	}
	if (px_cli_config_build(NULL, &opts->config, &cfg, &err)) {
		fprintf(stderr, "proxima: %s\n", err.msg);
		return EXIT_BAD_INPUT;
	}
	if (opts->time_limit > 0)
		px_config_settings_mut(cfg)->time_limit = opts->time_limit;
	/* from here a signal stops the solve under way */
	px_cli_progress_init(&progress, cfg);
	px_cli_stop_arm(cfg, &progress);
	opts->progress = &progress;
	if (several || opts->json)
		px_cli_warn_fc3d(cfg);
	if (several)
		status = px_solve_list(args, n, cfg, opts);
	else
		status = solve_one(args[0], cfg, opts);
	px_config_free(cfg);
	return status;
}

int px_cli_solve(int argc, char **argv)
{
	struct px_solve_opts opts = {.start = PX_FCLIB_R_NONE};
	int st = parse(argc, argv, &opts);

	if (st == 0 && optind == argc) {
		fprintf(stderr, "proxima solve: expected a PROBLEM file or folder, got none (try 'proxima --help')\n");
		st = EXIT_BAD_INPUT + 1;
	}
	if (st == 0)
		st = solve(argv + optind, argc - optind, &opts);
	else
		st = st == 1 ? EXIT_CONVERGED : EXIT_BAD_INPUT;
	px_cli_config_free(&opts.config);
	return st;
}
