/* `proxima solve`: read a problem file (.dat or FCLib, told apart by
 * content), solve it with a config from zero or from the file's guess or
 * solution, print what happened (why it stopped, sweeps, residual,
 * Siconos's fc3d error, time) and optionally write the per-sweep history
 * (CSV), the solution lambda, and the problem with its solution as an
 * FCLib file. SIGINT or SIGTERM stops the solve between sweeps: the report
 * and the outputs then hold what was reached (cli/stop.c). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "cli.h"
#include "config_args.h"
#include "solution.h"
#include "stop.h"

static int all_finite(const double *x, size_t m)
{
	for (size_t i = 0; i < m; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

static void describe(const char *problem_path, const struct px_problem *p,
		     const struct px_config *cfg)
{

	printf("problem     %s: %zu contacts, %u rows each, %s A\n",
	       problem_path, px_problem_n_contacts(p), px_problem_block_size(p),
	       px_problem_form(p) == PX_FORM_ASSEMBLED ? "assembled"
							: "factorized");
	px_cli_print_config(stdout, cfg);
}

/* The accelerator's line: its calls, their work in sweep equivalents and
 * time, then what the plugin says about them. */
static void print_accelerator(const struct px_config *cfg,
			      const struct px_report *rep)
{
	const struct px_plugin *acc = px_config_plugin(cfg, PX_KIND_ACCELERATOR);
	char line[1024];

	printf("accelerator %s: %llu calls (%llu replaced the iterate), %llu products with A (sweep equivalents), %.6f s%s",
	       px_plugin_header(acc)->name,
	       (unsigned long long)rep->accel_steps,
	       (unsigned long long)rep->accel_replaced,
	       (unsigned long long)rep->accel_products, rep->accel_seconds,
	       rep->accel_restored ? "; the end of the solve put back its best iterate" : "");
	if (px_accelerator_describe(cfg, line, sizeof line))
		printf("; %s", line);
	printf("\n");
}

/* What `proxima solve` was asked for besides the problem. */
struct solve_opts {
	struct px_cli_config config; /* -c and --set, in order */
	const char *history;    /* per-sweep CSV, or NULL */
	const char *out;        /* solution text, or NULL */
	const char *save_fclib; /* problem and solution as FCLib, or NULL */
	enum px_fclib_r start;  /* warm start from the file, or zero */
	double time_limit;      /* seconds (--time-limit), 0: the config's */
};

static const char *const start_name[] = {
	"zero", "the file's first guess (/guesses/1/r)",
	"the file's solution (/solution/r)"};

/* The result line: why the solve stopped (rep->stop), after how many
 * sweeps. */
static void print_result(const struct px_report *rep,
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
	printf(" after %llu sweeps (%llu rejected), last delta %.3g\n",
	       (unsigned long long)rep->sweeps,
	       (unsigned long long)rep->rejected, rep->residual);
}

/* Solve problem_path as opts says. */
static int run(const char *problem_path, const struct solve_opts *opts)
{
	struct px_problem *p = NULL;
	struct px_config *cfg = NULL;
	struct px_report rep = {0};
	struct px_cli_progress progress;
	struct px_error err = {0};
	double *lambda = NULL, fc3d, fabs_;
	char line[1024];
	int status = EXIT_BAD_INPUT, rc;
	size_t m;

	if (px_cli_config_build(NULL, &opts->config, &cfg, &err) ||
	    px_cli_refuse_scene(problem_path, &err) ||
	    px_problem_read(problem_path, &p, opts->start, &lambda, &err))
		goto fail;
	m = px_problem_n_contacts(p) * px_problem_block_size(p);
	if (!lambda)
		lambda = calloc(m, sizeof *lambda);
	if (!lambda) {
		px_error_set(&err, PX_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (opts->time_limit > 0)
		px_config_settings_mut(cfg)->time_limit = opts->time_limit;
	/* from here a signal stops the solve: the header's lines, flushed,
	 * say that it is armed */
	px_cli_progress_init(&progress, cfg);
	px_cli_stop_arm(cfg, &progress);
	describe(problem_path, p, cfg);
	if (opts->start != PX_FCLIB_R_NONE)
		printf("start       %s\n", start_name[opts->start]);
	px_cli_warn_fc3d(cfg);
	fflush(stdout);
	rc = px_solve(p, cfg, lambda, &rep, &err);
	px_cli_progress_erase(&progress);
	if (rc) {
		/* the plugins' refusals concern this problem: name it */
		fprintf(stderr, "proxima: %s: %s\n", problem_path, err.msg);
		goto done;
	}
	fc3d = px_merit_fc3d(p, lambda, &fabs_);
	print_result(&rep, px_config_settings(cfg));
	if (rep.diverged)
		printf("diverged    at sweep %llu: %s (the sweep was rolled back: the solution is the last finite iterate)\n",
		       (unsigned long long)rep.diverged_sweep,
		       rep.diverged == PX_DIVERGED_R
			       ? "the rfactor plugin shrank an r-factor to 0 or made it non-finite"
			       : "the iterate turned non-finite and the rfactor plugin kept R; [solver] check = on names a friction plugin at fault");
	if (rep.check_failed && !rep.converged)
		printf("check       the stop test was met, but the residual %.3e > check_tol %g: not a solution\n",
		       rep.check, px_config_settings(cfg)->check_tol);
	if (px_config_friction_is_disc(cfg))
		printf("fc3d error  %.3e (||F|| = %.3e; Siconos fc3d_compute_error)\n",
		       fc3d, fabs_);
	else
		printf("fc3d error  %.3e (of the Coulomb disc law, not this config's %s set; ||F|| = %.3e; Siconos fc3d_compute_error)\n",
		       fc3d,
		       px_plugin_header(px_config_plugin(cfg, PX_KIND_FRICTION))->name,
		       fabs_);
	if (px_config_settings(cfg)->merit == PX_MERIT_NATURAL ||
	    px_config_settings(cfg)->merit == PX_MERIT_MINMAP)
		printf("merit       %s %.3e\n",
		       px_cli_merit_name(px_config_settings(cfg)->merit),
		       rep.merit);
	/* per sweep: without the accelerator's calls (their own line) */
	printf("time        %.6f s (%.3g us per sweep; prepare %.6f s)\n",
	       rep.seconds, px_cli_us_per_sweep(&rep), rep.prepare_seconds);
	if (px_scheduler_describe(cfg, line, sizeof line))
		printf("scheduler   %s\n", line);
	if (px_config_plugin(cfg, PX_KIND_ACCELERATOR))
		print_accelerator(cfg, &rep);
	if (opts->history && px_cli_write_history(opts->history, &rep)) {
		px_error_set(&err, PX_ERR_IO, "%s: cannot write the history",
			     opts->history);
		goto fail;
	}
	if ((opts->out || opts->save_fclib) && !all_finite(lambda, m)) {
		px_error_set(&err, PX_ERR_INVALID,
			     "%s: the solution is not finite: not written",
			     problem_path);
		status = px_cli_stop_status(EXIT_NOT_CONVERGED,
					    rep.stop == PX_STOP_INTERRUPTED);
		fprintf(stderr, "proxima: %s\n", err.msg);
		goto done;
	}
	if (opts->out && px_cli_write_solution(opts->out, lambda, m)) {
		px_error_set(&err, PX_ERR_IO, "%s: cannot write the solution",
			     opts->out);
		goto fail;
	}
	if (opts->save_fclib &&
	    px_fclib_write(opts->save_fclib, p, lambda, &err))
		goto fail;
	status = px_cli_stop_status(rep.converged ? EXIT_CONVERGED
						  : EXIT_NOT_CONVERGED,
				    rep.stop == PX_STOP_INTERRUPTED);
	goto done;
fail:
	fprintf(stderr, "proxima: %s\n", err.msg);
done:
	px_report_free(&rep);
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
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

/* Read the options into opts: 0, 1 after --help, or EXIT_BAD_INPUT + 1
 * after a bad one (said on stderr). */
static int parse(int argc, char **argv, struct solve_opts *opts)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 's'},
		{"history", required_argument, NULL, 'H'},
		{"out", required_argument, NULL, 'o'},
		{"warm-start", required_argument, NULL, 'w'},
		{"save-fclib", required_argument, NULL, 'S'},
		{"time-limit", required_argument, NULL, 'T'},
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
			       "                     [--save-fclib OUT.hdf5] PROBLEM [--history FILE.csv] [--out FILE]\n"
			       "                     [--time-limit S]\n");
			return 1;
		default:
			fprintf(stderr, "proxima solve: bad option '%s' (try 'proxima --help')\n",
				argv[optind - 1]);
			return EXIT_BAD_INPUT + 1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "proxima solve: expected one PROBLEM file, got %d (try 'proxima --help')\n",
			argc - optind);
		return EXIT_BAD_INPUT + 1;
	}
	return 0;
}

int px_cli_solve(int argc, char **argv)
{
	struct solve_opts opts = {.start = PX_FCLIB_R_NONE};
	int st = parse(argc, argv, &opts);

	if (st == 0)
		st = run(argv[optind], &opts);
	else
		st = st == 1 ? EXIT_CONVERGED : EXIT_BAD_INPUT;
	px_cli_config_free(&opts.config);
	return st;
}
