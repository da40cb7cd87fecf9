/* proxima-mpi: the distributed solve (issue 21). `mpirun -np P proxima
 * solve|run ...` execs it (cli/mpi.c); it can also be run directly,
 * `mpirun -np P proxima-mpi solve|run ...`. */
#include <inttypes.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cmd.h"
#include "config_args.h"
#include "solution.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpirun -np P proxima solve [-c CONFIG ...] [--set SECTION.KEY=VALUE ...]\n"
		"                    PROBLEM [--out FILE] [--partition metis|FILE] [DIST-OPTIONS]\n"
		"       mpirun -np P proxima run [-c CONFIG ...] [--set SECTION.KEY=VALUE ...]\n"
		"                    SCENE [--steps N] [--csv FILE] [--state FILE] [--quiet]\n"
		"                    [DIST-OPTIONS]\n"
		"  --state FILE           the bodies' final states, exactly (hexadecimal\n"
		"                         floats), as `proxima run --state' writes them\n"
		"Distributed options:\n"
		"  --combine sum|split    how shared bodies (ghost contacts) combine the\n"
		"                         ranks' changes: plain sum (block Jacobi) or\n"
		"                         mass splitting (default split)\n"
		"  --exchange-every E     local sweeps between exchanges (default 1)\n"
		"  --check-every K        exchanges between global tests (default 1)\n");
}

/* One of the distributed options at argv[*i]: 1 (consumed with its
 * value), 0 (not one), -1 (a bad value, message in err). */
static int parse_opt(int argc, char **argv, int *i, struct px_dist_opts *o,
		     struct px_error *err)
{
	const char *k = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	char *end;
	unsigned long long n;

	if (strcmp(k, "--combine") && strcmp(k, "--exchange-every") &&
	    strcmp(k, "--check-every"))
		return 0;
	if (!v) {
		px_error_set(err, PX_ERR_INVALID, "%s: expected a value", k);
		return -1;
	}
	++*i;
	if (strcmp(k, "--combine") == 0) {
		if (strcmp(v, "sum") == 0)
			o->combine = PX_DIST_SUM;
		else if (strcmp(v, "split") == 0)
			o->combine = PX_DIST_SPLIT;
		else {
			px_error_set(err, PX_ERR_INVALID, "--combine '%s': expected sum or split", v);
			return -1;
		}
		return 1;
	}
	n = strtoull(v, &end, 10);
	if (*v == '-' || *end || n < 1 || n > 1000000) {
		px_error_set(err, PX_ERR_INVALID, "%s '%s': expected a whole number in [1, 1000000]", k, v);
		return -1;
	}
	if (strcmp(k, "--exchange-every") == 0)
		o->sweeps_per_exchange = n;
	else
		o->check_every = n;
	return 1;
}

/* Why a time limit is refused: the ranks would each stop at their own
 * moment, out of step with their neighbours' exchanges. */
static const char no_time_limit[] =
	"not supported under mpirun (the ranks stop together only at a global test, which keeps no clock); bound max_sweeps instead, or run without mpirun";

int px_dist_parse(int argc, char **argv, int with_files,
		  struct px_dist_args *a, struct px_error *err)
{
	*a = (struct px_dist_args){.o = {PX_DIST_SPLIT, 1, 1}};
	for (int i = 1; i < argc; i++) {
		const char *k = argv[i];
		int r = parse_opt(argc, argv, &i, &a->o, err);

		if (r < 0)
			return PX_ERR_INVALID;
		if (r > 0)
			continue;
		if (strcmp(k, "--time-limit") == 0)
			return px_error_set(err, PX_ERR_INVALID,
					    "%s --time-limit: %s", argv[0],
					    no_time_limit);
		if ((strcmp(k, "-c") == 0 || strcmp(k, "--config") == 0 ||
		     strcmp(k, "--set") == 0) &&
		    i + 1 < argc) {
			if (a->n_layers == PX_DIST_MAX_LAYERS)
				return px_error_set(err, PX_ERR_INVALID,
						    "%s: more than %d -c and --set",
						    argv[0], PX_DIST_MAX_LAYERS);
			a->layer[a->n_layers++] = (struct px_config_layer){
				k[2] == 's' ? PX_LAYER_SET : PX_LAYER_FILE,
				argv[++i], NULL};
		} else if (!with_files && strcmp(k, "--quiet") == 0)
			; /* the distributed run draws no progress line */
		else if (with_files && strcmp(k, "--out") == 0 && i + 1 < argc)
			a->out = argv[++i];
		else if (with_files && strcmp(k, "--partition") == 0 && i + 1 < argc)
			a->partition = argv[++i];
		else if (!with_files && strcmp(k, "--csv") == 0 && i + 1 < argc)
			a->csv = argv[++i];
		else if (!with_files && strcmp(k, "--state") == 0 && i + 1 < argc)
			a->state = argv[++i];
		else if (!with_files && strcmp(k, "--steps") == 0 && i + 1 < argc) {
			char *end;
			const char *v = argv[++i];

			a->steps = strtoull(v, &end, 10);
			if (*v == '-' || *end || a->steps < 1)
				return px_error_set(err, PX_ERR_INVALID,
						    "--steps '%s': expected a whole number >= 1", v);
		}
		else if (strcmp(k, "--json") == 0)
			return px_error_set(err, PX_ERR_INVALID,
					    "%s --json: not supported under mpirun (the distributed report is text only); run without mpirun",
					    argv[0]);
		else if (with_files && a->target && k[0] != '-')
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: one PROBLEM file under mpirun, got '%s' after '%s' (several problems are solved without mpirun only)",
					    argv[0], k, a->target);
		else if (k[0] == '-' || a->target)
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: bad argument '%s' (try 'proxima-mpi --help')",
					    argv[0], k);
		else
			a->target = k;
	}
	if (!a->target)
		return px_error_set(err, PX_ERR_INVALID, "%s: expected a %s file",
				    argv[0], with_files ? "PROBLEM" : "SCENE");
	if (with_files) {
		struct stat sb;

		if (stat(a->target, &sb) == 0 && S_ISDIR(sb.st_mode))
			return px_error_set(err, PX_ERR_INVALID,
					    "%s: '%s' is a folder: one PROBLEM file under mpirun (a folder's problems are solved without mpirun only)",
					    argv[0], a->target);
	}
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
		      double **lambda, struct px_dist_result *res,
		      struct px_error *err)
{
	int rank;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (!rc) {
		*lambda = calloc(d->n_own * d->bs + 1, sizeof **lambda);
		if (!*lambda)
			rc = px_error_set(err, PX_ERR_NOMEM,
					  "rank %d: out of memory", rank);
	}
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
	free(all);
}

int main(int argc, char **argv)
{
	int provided, status = EXIT_BAD_INPUT;

	/* FUNNELED: only the main thread calls MPI, the in-rank schedulers'
	 * OpenMP threads never do */
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
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
				usage(stdout);
				status = 0;
			} else {
				fprintf(stderr, "proxima: under mpirun only solve and run run distributed (got '%s')\n",
					argc >= 2 ? argv[1] : "");
				usage(stderr);
			}
		}
		MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return status;
}
