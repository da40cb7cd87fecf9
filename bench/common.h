/* What the benchmark programs share: configs from text, solves from zero. */
#ifndef PX_BENCH_COMMON_H
#define PX_BENCH_COMMON_H

#include <proxima/proxima.h>

/* A config read from `text` (through a temporary file). */
int bench_config(const char *text, struct px_config **cfg,
		 struct px_error *err);

/* Solve p with cfg from lambda = 0; an error is printed, prefixed by
 * `who`, and returns -1. */
int bench_solve(const char *who, const struct px_problem *p,
		const struct px_config *cfg, double *lambda,
		struct px_report *rep);

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);

/* The file name of path, after its last '/'. */
const char *bench_base_name(const char *path);

#endif
