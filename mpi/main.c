/* proxima-mpi: the distributed solve (issue 21). `mpirun -np P proxima
 * solve|run ...` execs it (cli/mpi.c); it can also be run directly,
 * `mpirun -np P proxima-mpi solve|run ...`. Its options are the serial
 * commands', parsed the same way (getopt_long), plus the distributed
 * ones; the serial options it cannot honour are refused with the reason,
 * from one table (issue 30, item 6). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cmd.h"
#include "config_args.h"
#include "file_kind.h"
#include "solution.h"

/* Why a time limit is refused: the ranks would each stop at their own
 * moment, out of step with their neighbours' exchanges. */
static const char no_time_limit[] =
	"not supported under mpirun (the ranks stop together only at a global test, which keeps no clock); bound max_sweeps instead, or run without mpirun";

/* The serial options of solve and run that a distributed command cannot
 * honour: refused, whatever their value, with one line naming the option
 * and why (exit status 2). Every other serial option means here what it
 * means serially. */
static const struct refusal {
	const char *cmd;    /* "solve", "run", or NULL: both */
	const char *option; /* the long option, without its "--" */
	const char *why;
} refusals[] = {
	{NULL, "time-limit", no_time_limit},
	{NULL, "json",
	 "not supported under mpirun (the distributed report is text only); run without mpirun"},
	{"solve", "history",
	 "a distributed solve keeps no per-sweep history (each rank sweeps its own part, and the ranks meet only at a global test); run it serially for the history"},
};

#define N_REFUSALS (sizeof refusals / sizeof *refusals)

void px_dist_usage(FILE *f)
{
	fprintf(f,
		"Usage: mpirun -np P proxima solve [-c CONFIG ...] [--set SECTION.KEY=VALUE ...]\n"
		"                    PROBLEM [--out FILE] [--warm-start zero|guess|solution]\n"
		"                    [--save-fclib OUT.hdf5] [--partition metis|FILE]\n"
		"                    [DIST-OPTIONS]\n"
		"       mpirun -np P proxima run [-c CONFIG ...] [--set SECTION.KEY=VALUE ...]\n"
		"                    [SCENE] [--steps N] [--csv FILE] [--state FILE]\n"
		"                    [--vtk DIR] [--vtk-every K]\n"
		"                    [--cache on|off] [--quiet] [--checkpoint FILE]\n"
		"                    [--checkpoint-every N] [--restart FILE]\n"
		"                    [--rebalance-every K [--rebalance-threshold T]]\n"
		"                    [DIST-OPTIONS]\n"
		"  The options mean what they mean serially; refused here, with the\n"
		"  reason:");
	for (size_t i = 0; i < N_REFUSALS; i++)
		fprintf(f, "%s%s%s--%s", i ? ", " : " ",
			refusals[i].cmd ? refusals[i].cmd : "",
			refusals[i].cmd ? " " : "", refusals[i].option);
	fprintf(f, ".\n"
		"Distributed options:\n"
		"  --combine sum|split    how shared bodies (ghost contacts) combine the\n"
		"                         ranks' changes: plain sum (block Jacobi) or\n"
		"                         mass splitting (default split)\n"
		"  --exchange-every E     local sweeps between exchanges (default 1)\n"
		"  --check-every K        exchanges between global tests (default 1)\n"
		"  --partition metis|FILE (solve) METIS on W's block graph (default),\n"
		"                         or one rank per contact per line of FILE\n"
		"  --checkpoint FILE      (run) as serially, after the last step, every N\n"
		"                         steps and on SIGUSR1 or SIGTERM to any rank, a\n"
		"                         set: each rank's FILE.A.rankR (or B, in turn),\n"
		"                         then FILE, the manifest that names them\n"
		"  --restart FILE         (run) go on from the set FILE names, on as many\n"
		"                         ranks, bit for bit\n"
		"  --rebalance-every K    (run) every K steps, re-partition (bisection of\n"
		"                         the current centres) when the load imbalance,\n"
		"                         most own contacts of a rank over the mean, is\n"
		"                         at least T (default off)\n"
		"  --rebalance-threshold T (run) T >= 1 (default 1.1; 1: every K steps)\n");
}

enum { OPT_SET = 256, OPT_COMBINE, OPT_EXCHANGE, OPT_CHECK, OPT_PARTITION,
       OPT_WARM, OPT_SAVE, OPT_CSV, OPT_STATE, OPT_CACHE, OPT_CKPT,
       OPT_CKPT_EVERY, OPT_RESTART, OPT_VTK, OPT_VTK_EVERY, OPT_REBAL,
       OPT_REBAL_T, OPT_REFUSED };

/* A whole number in [lo, hi] for option k, or an error in err. */
static int whole(const char *k, const char *v, unsigned long long lo,
		 unsigned long long hi, const char *expected,
		 unsigned long long *n, struct px_error *err)
{
	char *end;

	errno = 0;
	*n = strtoull(v, &end, 10);
	if (errno || end == v || *v == '-' || *end || *n < lo || *n > hi)
		return px_error_set(err, PX_ERR_INVALID, "%s '%s': expected %s",
				    k, v, expected);
	return PX_OK;
}

/* One option of command cmd (getopt_long's c, its value v) into a. */
static int take(const char *cmd, int c, const char *v,
		struct px_dist_args *a, struct px_error *err)
{
	unsigned long long n = 0;

	switch (c) {
	case 'c':
	case OPT_SET:
		if (a->n_layers == PX_DIST_MAX_LAYERS)
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: more than %d -c and --set",
					    cmd, PX_DIST_MAX_LAYERS);
		a->layer[a->n_layers++] = (struct px_config_layer){
			c == 'c' ? PX_LAYER_FILE : PX_LAYER_SET, v, NULL};
		return PX_OK;
	case OPT_COMBINE:
		if (strcmp(v, "sum") == 0)
			a->o.combine = PX_DIST_SUM;
		else if (strcmp(v, "split") == 0)
			a->o.combine = PX_DIST_SPLIT;
		else
			return px_error_set(err, PX_ERR_INVALID,
					    "--combine '%s': expected sum or split", v);
		return PX_OK;
	case OPT_EXCHANGE:
	case OPT_CHECK:
		if (whole(c == OPT_EXCHANGE ? "--exchange-every" : "--check-every",
			  v, 1, 1000000, "a whole number in [1, 1000000]", &n, err))
			return PX_ERR_INVALID;
		*(c == OPT_EXCHANGE ? &a->o.sweeps_per_exchange
				    : &a->o.check_every) = n;
		return PX_OK;
	case 'o': a->out = v; return PX_OK;
	case OPT_PARTITION: a->partition = v; return PX_OK;
	case OPT_SAVE: a->save_fclib = v; return PX_OK;
	case OPT_WARM:
		if (strcmp(v, "zero") == 0)
			a->start = PX_FCLIB_R_NONE;
		else if (strcmp(v, "guess") == 0)
			a->start = PX_FCLIB_R_GUESS;
		else if (strcmp(v, "solution") == 0)
			a->start = PX_FCLIB_R_SOLUTION;
		else
			return px_error_set(err, PX_ERR_INVALID,
					    "--warm-start '%s': expected zero, guess or solution", v);
		return PX_OK;
	case 'n':
		return whole("--steps", v, 1, ULLONG_MAX, "a whole number >= 1",
			     &a->steps, err);
	case OPT_CSV: a->csv = v; return PX_OK;
	case OPT_STATE: a->state = v; return PX_OK;
	case OPT_CACHE:
		if (strcmp(v, "on") && strcmp(v, "off"))
			return px_error_set(err, PX_ERR_INVALID,
					    "--cache '%s': expected on or off", v);
		a->cache = strcmp(v, "on") == 0;
		return PX_OK;
	case OPT_CKPT: a->checkpoint = v; return PX_OK;
	case OPT_CKPT_EVERY:
		return whole("--checkpoint-every", v, 1, ULLONG_MAX,
			     "a whole number >= 1", &a->checkpoint_every, err);
	case OPT_RESTART: a->restart = v; return PX_OK;
	case OPT_VTK: a->vtk = v; return PX_OK;
	case OPT_VTK_EVERY:
		return whole("--vtk-every", v, 1, ULLONG_MAX,
			     "a whole number >= 1", &a->vtk_every, err);
	case OPT_REBAL:
		if (whole("--rebalance-every", v, 1, ULLONG_MAX,
			  "a whole number >= 1", &n, err))
			return PX_ERR_INVALID;
		a->o.rebalance_every = n;
		return PX_OK;
	case OPT_REBAL_T: {
		char *end;
		double t;

		errno = 0;
		t = strtod(v, &end);
		if (errno || end == v || *end || !(t >= 1) || t > 1e300)
			return px_error_set(err, PX_ERR_INVALID,
					    "--rebalance-threshold '%s': expected a number >= 1 (the most loaded rank over the mean)",
					    v);
		a->o.rebalance_threshold = t;
		return PX_OK;
	}
	case 'q': return PX_OK; /* the distributed run draws no progress line */
	}
	return px_error_set(err, PX_ERR_INVALID, "%s: option %d", cmd, c);
}

int px_dist_parse(int argc, char **argv, int with_files,
		  struct px_dist_args *a, struct px_error *err)
{
	/* the serial command's options (cli/solve.c, cli/run.c), then the
	 * distributed ones, then the refused ones (any value, or none) */
	static const struct option solve_opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, OPT_SET},
		{"out", required_argument, NULL, 'o'},
		{"warm-start", required_argument, NULL, OPT_WARM},
		{"save-fclib", required_argument, NULL, OPT_SAVE},
		{"help", no_argument, NULL, 'h'},
		{"partition", required_argument, NULL, OPT_PARTITION},
	}, run_opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, OPT_SET},
		{"steps", required_argument, NULL, 'n'},
		{"csv", required_argument, NULL, OPT_CSV},
		{"cache", required_argument, NULL, OPT_CACHE},
		{"state", required_argument, NULL, OPT_STATE},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"checkpoint", required_argument, NULL, OPT_CKPT},
		{"checkpoint-every", required_argument, NULL, OPT_CKPT_EVERY},
		{"restart", required_argument, NULL, OPT_RESTART},
		{"vtk", required_argument, NULL, OPT_VTK},
		{"vtk-every", required_argument, NULL, OPT_VTK_EVERY},
		{"rebalance-every", required_argument, NULL, OPT_REBAL},
		{"rebalance-threshold", required_argument, NULL, OPT_REBAL_T},
	}, dist_opts[] = {
		{"combine", required_argument, NULL, OPT_COMBINE},
		{"exchange-every", required_argument, NULL, OPT_EXCHANGE},
		{"check-every", required_argument, NULL, OPT_CHECK},
	};
	const struct option *own = with_files ? solve_opts : run_opts;
	const size_t n_own = with_files ? sizeof solve_opts / sizeof *solve_opts
					: sizeof run_opts / sizeof *run_opts;
	struct option longopts[32];
	const struct refusal *why[32] = {NULL};
	size_t n = 0;
	int c, at, rebalance_threshold_given = 0;

	*a = (struct px_dist_args){.o = {PX_DIST_SPLIT, 1, 1, 0, 1.1},
				   .cache = -1, .vtk_every = 1};
	for (size_t i = 0; i < n_own; i++)
		longopts[n++] = own[i];
	for (size_t i = 0; i < sizeof dist_opts / sizeof *dist_opts; i++)
		longopts[n++] = dist_opts[i];
	for (size_t i = 0; i < N_REFUSALS; i++)
		if (!refusals[i].cmd || strcmp(refusals[i].cmd, argv[0]) == 0) {
			why[n] = &refusals[i];
			longopts[n++] = (struct option){refusals[i].option,
							optional_argument, NULL,
							OPT_REFUSED};
		}
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	opterr = 0;
	optind = 0; /* getopt's state anew */
	while ((c = getopt_long(argc, argv, with_files ? "c:o:h" : "c:n:qh",
				longopts, &at)) != -1) {
		if (c == 'h') {
			a->help = 1;
			return PX_OK;
		}
		if (c == OPT_REFUSED)
			return px_error_set(err, PX_ERR_INVALID, "%s --%s: %s",
					    argv[0], why[at]->option, why[at]->why);
		if (c == '?')
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: bad argument '%s' (try 'proxima-mpi --help')",
					    argv[0], argv[optind - 1]);
		if (take(argv[0], c, optarg, a, err))
			return PX_ERR_INVALID;
		rebalance_threshold_given |= c == OPT_REBAL_T;
	}
	if (argc - optind > 1 && with_files)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: one PROBLEM file under mpirun, got '%s' after '%s' (several problems are solved without mpirun only)",
				    argv[0], argv[optind + 1], argv[optind]);
	if (argc - optind > 1)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: expected at most one SCENE file, got %d",
				    argv[0], argc - optind);
	if (optind < argc)
		a->target = argv[optind];
	else if (!with_files)
		a->target = px_cli_default_scene(a->scene, sizeof a->scene);
	else
		return px_error_set(err, PX_ERR_INVALID, "%s: expected a PROBLEM file",
				    argv[0]);
	if (with_files) {
		struct stat sb;

		if (stat(a->target, &sb) == 0 && S_ISDIR(sb.st_mode))
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: '%s' is a folder: one PROBLEM file under mpirun (a folder's problems are solved without mpirun only)",
					    argv[0], a->target);
	}
	if (rebalance_threshold_given && !a->o.rebalance_every)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: --rebalance-threshold needs --rebalance-every K",
				    argv[0]);
	if (a->checkpoint_every && !a->checkpoint)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: --checkpoint-every needs --checkpoint FILE",
				    argv[0]);
	if (a->out) {
		char msg[PX_ERROR_MSG_MAX];

		if (px_cli_solution_format(a->out, msg, sizeof msg) < 0)
			return px_error_set(err, PX_ERR_INVALID, "%s: %s",
					    argv[0], msg);
	}
	return PX_OK;
}

int px_dist_begin(int argc, char **argv, int with_files,
		  struct px_dist_args *a, struct px_config **cfg, int *rank,
		  int *size, struct px_error *err)
{
	int rc;

	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	rc = px_dist_parse(argc, argv, with_files, a, err);
	if (!rc && a->help)
		return PX_OK;
	/* every rank reads a scene, and checks its kind; a problem file is
	 * rank 0's to read and check (solve_file.c) */
	if (!rc && !with_files)
		rc = px_cli_refuse_problem(a->target, err);
	if (!rc)
		rc = px_config_build(a->layer, a->n_layers, cfg, err);
	if (!rc && px_config_settings(*cfg)->time_limit > 0)
		rc = px_error_set(err, PX_ERR_INVALID,
				  "%s: [solver] time_limit: %s",
				  px_config_source(*cfg), no_time_limit);
	return rc;
}

void px_dist_prefix(struct px_error *err, const char *what)
{
	size_t n = strlen(what), m = strlen(err->msg);

	if (strstr(err->msg, what) || n + 2 >= sizeof err->msg)
		return;
	if (m > sizeof err->msg - 1 - n - 2)
		m = sizeof err->msg - 1 - n - 2;
	memmove(err->msg + n + 2, err->msg, m);
	memcpy(err->msg, what, n);
	memcpy(err->msg + n, ": ", 2);
	err->msg[n + 2 + m] = '\0';
}

void px_dist_prefix_rank(struct px_error *err, int rank)
{
	char who[32];

	snprintf(who, sizeof who, "rank %d", rank);
	px_dist_prefix(err, who);
}

int px_dist_solve_own(int rc, const struct px_dist_args *a,
		      struct px_config *cfg, struct px_dist_part *d,
		      const double *start, double **lambda,
		      struct px_dist_result *res, struct px_error *err)
{
	int rank;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (!rc) {
		*lambda = calloc(d->n_own * d->bs + 1, sizeof **lambda);
		if (!*lambda)
			rc = px_error_set(err, PX_ERR_NOMEM,
					  "rank %d: out of memory", rank);
	}
	for (size_t k = 0; !rc && start && k < d->n_own; k++)
		memcpy(*lambda + k * d->bs, start + d->gid[k] * d->bs,
		       d->bs * sizeof **lambda);
	rc = px_dist_agree(rc, err);
	if (rc)
		return rc;
	rc = px_dist_solve(d, cfg, &a->o, *lambda, res, err);
	if (rc)
		px_dist_prefix(err, a->target);
	return rc;
}

void px_dist_fail(const struct px_error *err)
{
	int rank;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		fprintf(stderr, "proxima: %s\n", err->msg);
}

/* Per rank, gathered for the report. */
enum { R_OWN, R_GHOST, R_BOUNDARY, R_MSG, R_BYTES, R_RSS, R_SEC, R_SOLVE,
       R_EXCH, R_CHECK, R_N };

void px_dist_report(const struct px_dist_part *d, const struct px_dist_opts *o,
		    const struct px_dist_result *res, const char *what_shared,
		    const struct px_config *cfg)
{
	double mine[R_N] = {0}, *all = NULL, sum[R_N] = {0}, most[R_N] = {0};
	struct rusage ru;
	int rank, size;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mine[R_OWN] = (double)d->n_own;
	mine[R_GHOST] = (double)(d->kind == PX_DIST_RIGID ? d->n_shared : d->n_ghost);
	/* rigid: every copy, the owner's too, counts once per rank */
	for (size_t l = 0; l < d->n_links; l++)
		mine[R_BOUNDARY] += d->links[l].n_mine;
	mine[R_MSG] = (double)res->traffic.messages;
	mine[R_BYTES] = (double)res->traffic.bytes;
	getrusage(RUSAGE_SELF, &ru);
	mine[R_RSS] = (double)ru.ru_maxrss; /* KiB */
	mine[R_SEC] = res->seconds;
	mine[R_SOLVE] = res->solve_seconds;
	mine[R_EXCH] = res->exchange_seconds;
	mine[R_CHECK] = res->check_seconds;
	if (rank == 0)
		all = malloc((size_t)size * R_N * sizeof *all);
	MPI_Gather(mine, R_N, MPI_DOUBLE, all, R_N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank != 0 || !all) {
		free(all);
		return;
	}
	for (int r = 0; r < size; r++)
		for (int i = 0; i < R_N; i++) {
			sum[i] += all[(size_t)r * R_N + i];
			if (all[(size_t)r * R_N + i] > most[i])
				most[i] = all[(size_t)r * R_N + i];
		}
	px_cli_print_config(stdout, cfg);
	printf("ranks       %d: contacts per rank", size);
	for (int r = 0; r < size; r++)
		printf(" %.0f", all[(size_t)r * R_N + R_OWN]);
	printf(" (imbalance %.3f); %s %.0f\n",
	       sum[R_OWN] > 0 ? most[R_OWN] * size / sum[R_OWN] : 1.0,
	       what_shared, sum[R_GHOST]);
	printf("combine     %s; %llu local sweep%s per exchange, a global test every %llu exchange%s%s\n",
	       o->combine == PX_DIST_SPLIT ? "split (mass splitting)" : "sum (block Jacobi)",
	       (unsigned long long)o->sweeps_per_exchange,
	       o->sweeps_per_exchange == 1 ? "" : "s",
	       (unsigned long long)o->check_every, o->check_every == 1 ? "" : "s",
	       res->coupled ? "" : " (no rank shares anything: one solve per rank)");
	printf("result      %s after %llu sweeps (%llu rejected; %llu exchanges, %llu global tests), last delta %.3g\n",
	       res->converged ? "converged" : "NOT converged",
	       (unsigned long long)res->sweeps, (unsigned long long)res->rejected,
	       (unsigned long long)res->exchanges, (unsigned long long)res->checks,
	       res->delta);
	printf("traffic     per sweep: %.1f messages, %.0f bytes in all; most by one rank: %.1f messages, %.0f bytes\n",
	       res->sweeps ? sum[R_MSG] / res->sweeps : 0,
	       res->sweeps ? sum[R_BYTES] / res->sweeps : 0,
	       res->sweeps ? most[R_MSG] / res->sweeps : 0,
	       res->sweeps ? most[R_BYTES] / res->sweeps : 0);
	printf("memory      largest rank %.1f MiB (max RSS), all ranks %.1f MiB\n",
	       most[R_RSS] / 1024, sum[R_RSS] / 1024);
	printf("time        %.6f s on the slowest rank (%.3g us per sweep); on rank 0: solves %.6f s (the plugins' set-up %.6f s), exchanges %.6f s, global tests %.6f s\n",
	       most[R_SEC], res->sweeps ? most[R_SEC] * 1e6 / res->sweeps : 0,
	       all[R_SOLVE], res->prepare_seconds, all[R_EXCH], all[R_CHECK]);
	{
		int rs = 0;

		for (int r = 1; r < size; r++)
			if (all[(size_t)r * R_N + R_SEC] > all[(size_t)rs * R_N + R_SEC])
				rs = r;
		printf("slowest     rank %d: solves %.6f s, exchanges %.6f s, global tests %.6f s; most by one rank: solves %.6f s, exchanges %.6f s, global tests %.6f s\n",
		       rs, all[(size_t)rs * R_N + R_SOLVE], all[(size_t)rs * R_N + R_EXCH],
		       all[(size_t)rs * R_N + R_CHECK], most[R_SOLVE], most[R_EXCH], most[R_CHECK]);
	}
	free(all);
}

int main(int argc, char **argv)
{
	int provided, status = EXIT_BAD_INPUT;

	/* FUNNELED: only the main thread calls MPI, the in-rank schedulers'
	 * OpenMP threads never do */
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	/* past `ulimit -f`: EFBIG, as in proxima (cli/main.c) */
	signal(SIGXFSZ, SIG_IGN);
	if (argc >= 2 && strcmp(argv[1], "solve") == 0)
		status = px_dist_cmd_solve(argc - 1, argv + 1);
	else if (argc >= 2 && strcmp(argv[1], "run") == 0)
		status = px_dist_cmd_run(argc - 1, argv + 1);
	else {
		int rank;

		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		if (rank == 0) {
			if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
					  strcmp(argv[1], "--help") == 0)) {
				px_dist_usage(stdout);
				status = 0;
			} else {
				fprintf(stderr, "proxima: under mpirun only solve and run run distributed (got '%s')\n",
					argc >= 2 ? argv[1] : "");
				px_dist_usage(stderr);
			}
		}
		MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return status;
}
