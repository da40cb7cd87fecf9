/* bench/solve_overhead: the time of one px_solve call from C, the
 * reference for the Python module's call overhead (bench/python_siconos.py
 * runs it on the same 1-contact problem and config as proxima.solve).
 *
 *   solve_overhead CONFIG PROBLEM [CALLS [REPEATS]]
 *
 * Reads PROBLEM (px_problem_read) and CONFIG (px_config_read), then
 * REPEATS times (default 5) times CALLS solves (default 20000), each from
 * lambda = 0 with its report freed, as a program calling the C API would;
 * prints the best repeat's mean microseconds per call and the sweeps of
 * the last solve. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "common.h"

static long count(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 1) {
		fprintf(stderr, "solve_overhead: %s: expected an integer >= 1, found '%s'\n",
			what, s);
		return -1;
	}
	return v;
}

int main(int argc, char **argv)
{
	struct px_problem *p = NULL;
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	struct px_report rep = {0};
	double *lambda = NULL, best = 0.0;
	long calls = 20000, repeats = 5;
	unsigned long long sweeps = 0;
	size_t m;
	int status = 2;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: solve_overhead CONFIG PROBLEM [CALLS [REPEATS]]\n");
		return 2;
	}
	if ((argc > 3 && (calls = count(argv[3], "CALLS")) < 0) ||
	    (argc > 4 && (repeats = count(argv[4], "REPEATS")) < 0))
		return 2;
	if (px_config_read(argv[1], &cfg, &err) ||
	    px_problem_read(argv[2], &p, PX_FCLIB_R_NONE, NULL, &err)) {
		fprintf(stderr, "solve_overhead: %s\n", err.msg);
		goto out;
	}
	m = px_problem_n_contacts(p) * px_problem_block_size(p);
	lambda = malloc(m * sizeof *lambda);
	if (!lambda) {
		fprintf(stderr, "solve_overhead: out of memory\n");
		goto out;
	}
	for (long r = 0; r < repeats; r++) {
		double t0 = bench_now(), t;

		for (long i = 0; i < calls; i++) {
			memset(lambda, 0, m * sizeof *lambda);
			if (px_solve(p, cfg, lambda, &rep, &err)) {
				fprintf(stderr, "solve_overhead: %s\n", err.msg);
				goto out;
			}
			sweeps = (unsigned long long)rep.sweeps;
			px_report_free(&rep);
		}
		t = (bench_now() - t0) / (double)calls;
		if (r == 0 || t < best)
			best = t;
	}
	printf("px_solve_us=%.4f sweeps=%llu calls=%ld repeats=%ld\n",
	       1e6 * best, sweeps, calls, repeats);
	status = 0;
out:
	free(lambda);
	px_problem_destroy(p);
	px_config_free(cfg);
	return status;
}
