/* proxima-mpi's commands (issue 21): every rank runs them; only rank 0
 * prints. Each returns the exit status every rank agreed on. */
#ifndef PX_DIST_CMD_H
#define PX_DIST_CMD_H

#include <stdio.h>

#include "dist.h"

enum { EXIT_CONVERGED = 0, EXIT_NOT_CONVERGED = 1, EXIT_BAD_INPUT = 2 };

int px_dist_cmd_solve(int argc, char **argv);
int px_dist_cmd_run(int argc, char **argv);

#define PX_DIST_MAX_LAYERS 64

/* A command's arguments: -c CONFIG and --set SECTION.KEY=VALUE (layered in
 * order, as serially), one TARGET (problem or scene), the distributed
 * options (--combine sum|split, --exchange-every E, --check-every K); for
 * solve --out FILE and --partition P, for run --steps N, --csv FILE,
 * --state FILE and --quiet. */
struct px_dist_args {
	struct px_config_layer layer[PX_DIST_MAX_LAYERS];
	size_t n_layers;
	const char *target, *out, *partition, *csv, *state;
	unsigned long long steps; /* 0: the scene's */
	struct px_dist_opts o;
};

/* argv[0] is the command's name; with_files (solve) allows --out and
 * --partition, without (run) --steps, --csv and --state. */
int px_dist_parse(int argc, char **argv, int with_files,
		  struct px_dist_args *a, struct px_error *err);

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
 * rank's status so far): *lambda, zeros for d's own contacts, then the
 * distributed solve into res. Every rank agrees on a failure before
 * anyone solves; a failed solve's error names the target. Returns
 * non-zero on failure (then report it with px_dist_fail). */
int px_dist_solve_own(int rc, const struct px_dist_args *a,
		      struct px_config *cfg, struct px_dist_part *d,
		      double **lambda, struct px_dist_result *res,
		      struct px_error *err);

/* Print "proxima: msg" on rank 0 (every rank calls it). */
void px_dist_fail(const struct px_error *err);

#endif
