/* proxima-mpi's commands (issue 21): every rank runs them; only rank 0
 * prints. Each returns the exit status every rank agreed on. */
#ifndef PX_DIST_CMD_H
#define PX_DIST_CMD_H

#include <stdio.h>

#include "dist.h"

enum { EXIT_CONVERGED = 0, EXIT_NOT_CONVERGED = 1, EXIT_BAD_INPUT = 2,
       EXIT_SIGTERM = 143 /* stopped by SIGTERM after a checkpoint */ };

int px_dist_cmd_solve(int argc, char **argv);
int px_dist_cmd_run(int argc, char **argv);

#define PX_DIST_MAX_LAYERS 64

/* A command's arguments, parsed as the serial command parses them
 * (getopt_long): -c CONFIG and --set SECTION.KEY=VALUE (layered in order),
 * one TARGET (problem or scene; run without one steps the bundled default
 * scene), the distributed options (--combine sum|split, --exchange-every
 * E, --check-every K); for solve --out FILE, --warm-start
 * zero|guess|solution, --save-fclib FILE and --partition P, for run
 * --steps N, --csv FILE, --state FILE, --cache on|off, --quiet,
 * --checkpoint FILE, --checkpoint-every N, --restart FILE,
 * --rebalance-every K and --rebalance-threshold T (in o). The
 * serial options a distributed command cannot honour are refused with
 * the reason (main.c's table). */
struct px_dist_args {
	struct px_config_layer layer[PX_DIST_MAX_LAYERS];
	size_t n_layers;
	const char *target, *out, *partition, *csv, *state, *save_fclib;
	const char *checkpoint, *restart;     /* run: the sets' manifests */
	const char *vtk;                      /* run: the frames' DIR */
	unsigned long long vtk_every;         /* run: a frame every K steps */
	unsigned long long checkpoint_every;  /* 0: on signals only */
	enum px_fclib_r start;    /* solve's warm start from the file */
	int cache;                /* run: -1 the scene's, else 0 or 1 */
	unsigned long long steps; /* 0: the scene's */
	int help;                 /* --help: print the usage, nothing else */
	struct px_dist_opts o;
	char scene[4096];         /* run: the default scene's path */
};

/* argv[0] is the command's name ("solve" with with_files, else "run"). */
int px_dist_parse(int argc, char **argv, int with_files,
		  struct px_dist_args *a, struct px_error *err);

/* The usage, as `proxima-mpi --help' prints it. */
void px_dist_usage(FILE *f);

/* A command's start on every rank: its rank and the number of ranks, its
 * arguments (px_dist_parse) and its config (*cfg, or NULL). Returns this
 * rank's status, not yet agreed on. */
int px_dist_begin(int argc, char **argv, int with_files,
		  struct px_dist_args *a, struct px_config **cfg, int *rank,
		  int *size, struct px_error *err);

/* Rank 0's report lines shared by both commands: ranks, combination,
 * result, fc3d, traffic and memory, time (collective: call on every rank). */
void px_dist_report(const struct px_dist_part *d, const struct px_dist_opts *o,
		    const struct px_dist_result *res, const char *what_shared,
		    const struct px_config *cfg);

/* err's message becomes "what: message" unless it already names what. */
void px_dist_prefix(struct px_error *err, const char *what);

/* err's message becomes "rank R: message" unless it already names rank R. */
void px_dist_prefix_rank(struct px_error *err, int rank);

/* The end both commands share once every rank holds its part d (rc: this
 * rank's status so far): *lambda, d's own contacts' rows of start (the
 * whole problem's warm start by global contact id) or zeros without one,
 * then the distributed solve into res. Every rank agrees on a failure
 * before anyone solves; a failed solve's error names the target. Returns
 * non-zero on failure (then report it with px_dist_fail). */
int px_dist_solve_own(int rc, const struct px_dist_args *a,
		      struct px_config *cfg, struct px_dist_part *d,
		      const double *start, double **lambda,
		      struct px_dist_result *res, struct px_error *err);

/* Print "proxima: msg" on rank 0 (every rank calls it). */
void px_dist_fail(const struct px_error *err);

#endif
