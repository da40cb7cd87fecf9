/* bench/orderings: every ordering plugin on the same problems, in one
 * process (Poulsen et al. 2010, sec. 6, Tables 2-3).
 *
 * Problems: a column of boxes built in code (sim/stack_problem.h; it has
 * contact positions, so `coordinate` applies) and any Siconos .dat files
 * named on
 * the command line (no positions: `coordinate` is reported n/a). Every
 * ordering runs with the default config's other plugins (disc, local with
 * gamma 1 and nu 1, and the scheduler of --scheduler).
 *
 * Per problem and ordering, two solves from lambda = 0:
 *   1. merit fc3d <= --tol (Siconos's error, evaluated after every sweep):
 *      the sweeps it takes;
 *   2. exactly that many sweeps with the cheap delta merit and no stop test,
 *      repeated until --min-time: the time to reach the tolerance without
 *      the cost of measuring it, and from it the time per sweep, and from
 *      the per-sweep history the time of normal-only and friction-only
 *      sweeps (staggered).
 * Times per sweep are printed as speedups over identity's full sweep on
 * the same problem (larger: cheaper sweeps), as in Poulsen et al.'s (2010)
 * tables. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "common.h"
#include "../sim/stack_problem.h"

struct ordering {
	const char *label;
	const char *ini; /* the [ordering] section's lines */
	int needs_positions;
};

static const struct ordering orderings[] = {
	{"identity", "plugin = identity\n", 0},
	{"random", "plugin = random\nseed = 1\n", 0},
	{"random every", "plugin = random\nseed = 1\nreshuffle = every\n", 0},
	{"ipp asc", "plugin = ipp\ndirection = ascending\n", 0},
	{"ipp desc", "plugin = ipp\ndirection = descending\n", 0},
	{"coordinate z asc", "plugin = coordinate\naxis = z\ndirection = ascending\n", 1},
	{"coordinate z desc", "plugin = coordinate\naxis = z\ndirection = descending\n", 1},
	{"staggered extreme", "plugin = staggered\nmode = extreme\n", 0},
	{"staggered greedy", "plugin = staggered\nmode = greedy\n", 0},
};
enum { N_ORDERINGS = sizeof orderings / sizeof *orderings };

struct options {
	double tol;
	uint64_t max_sweeps;
	double min_time;
	size_t boxes;
	const char *scheduler;
};

/* What the two solves of one ordering gave. */
struct result {
	int ran;           /* 0: not applicable */
	int converged;
	uint64_t sweeps;
	double fc3d;       /* at the end of solve 1 */
	double seconds;    /* mean time of solve 2 */
	double per_part[3]; /* mean seconds per sweep of each part, or NAN */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: orderings [--tol T] [--max-sweeps N] [--min-time S] [--boxes K]\n"
		"                 [--scheduler NAME] [PROBLEM.dat...]\n"
		"Every ordering plugin on a column of K boxes (default 20) and on the\n"
		"given .dat problems: sweeps and time to reach an fc3d error of T\n"
		"(default 1e-6), and time per sweep relative to identity.\n");
}

/* A config from the ordering's lines and the bench's settings. */
static int make_config(const struct options *o, const struct ordering *ord,
		       int timing, uint64_t sweeps, struct px_config **cfg,
		       struct px_error *err)
{
	char text[1024];
	int at;

	if (timing)
		at = snprintf(text, sizeof text,
			      "[solver]\nmerit = delta\nabs_tol = 0\nrel_tol = 0\nmax_sweeps = %llu\n",
			      (unsigned long long)sweeps);
	else
		at = snprintf(text, sizeof text,
			      "[solver]\nmerit = fc3d\nabs_tol = %.17g\nmax_sweeps = %llu\n",
			      o->tol, (unsigned long long)o->max_sweeps);
	snprintf(text + at, sizeof text - (size_t)at,
		 "[friction]\nplugin = disc\n[rfactor]\nplugin = local\ngamma = 1\nnu = 1\n"
		 "[scheduler]\nplugin = %s\n[ordering]\n%s",
		 o->scheduler, ord->ini);
	return bench_config(text, cfg, err);
}

static int run(const struct options *o, const struct px_problem *p,
	       const struct ordering *ord, double *lambda, struct result *r)
{
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	struct px_report rep = {0};
	double total = 0.0, part_time[3] = {0}, part_count[3] = {0};
	int runs = 0;

	memset(r, 0, sizeof *r);
	if (ord->needs_positions && !px_problem_positions(p))
		return 0;
	if (make_config(o, ord, 0, 0, &cfg, &err) ||
	    bench_solve("orderings", p, cfg, lambda, &rep))
		goto fail;
	r->ran = 1;
	r->converged = rep.converged;
	r->sweeps = rep.sweeps;
	r->fc3d = px_merit_fc3d(p, lambda, NULL);
	px_report_free(&rep);
	px_config_free(cfg);
	if (make_config(o, ord, 1, r->sweeps, &cfg, &err))
		goto fail;
	do {
		if (bench_solve("orderings", p, cfg, lambda, &rep))
			goto fail;
		total += rep.seconds;
		for (size_t i = 0; i < rep.n_history; i++) {
			const struct px_sweep_record *h = &rep.history[i];

			part_time[h->part] +=
				h->seconds - (i ? rep.history[i - 1].seconds : 0.0);
			part_count[h->part]++;
		}
		px_report_free(&rep);
		runs++;
	} while (total < o->min_time);
	r->seconds = total / runs;
	for (int q = 0; q < 3; q++)
		r->per_part[q] = part_count[q] ? part_time[q] / part_count[q] : NAN;
	px_config_free(cfg);
	return 0;
fail:
	if (err.msg[0])
		fprintf(stderr, "orderings: %s\n", err.msg);
	px_config_free(cfg);
	return -1;
}

static void print_speedup(double base, double t)
{
	if (isnan(t) || isnan(base))
		printf(" %8s", "-");
	else
		printf(" %8.2f", base / t);
}

static int bench_problem(const struct options *o, const char *name,
			 const struct px_problem *p)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	double *lambda = malloc(m * sizeof *lambda);
	struct result res[N_ORDERINGS];
	double base;

	if (!lambda) {
		fprintf(stderr, "orderings: out of memory\n");
		return -1;
	}
	printf("\n%s: %zu contacts, fc3d tol %g, scheduler %s\n", name,
	       px_problem_n_contacts(p), o->tol, o->scheduler);
	printf("%-18s %8s %5s %10s %10s %10s %8s %8s %8s\n", "ordering",
	       "sweeps", "conv", "fc3d", "time(ms)", "us/sweep", "sweep x",
	       "normal x", "frict x");
	for (int i = 0; i < N_ORDERINGS; i++) {
		struct result *r = &res[i];

		if (run(o, p, &orderings[i], lambda, r)) {
			free(lambda);
			return -1;
		}
		base = res[0].seconds / (double)res[0].sweeps;
		if (!r->ran) {
			printf("%-18s %8s   (n/a: the problem has no contact positions)\n",
			       orderings[i].label, "-");
			continue;
		}
		printf("%-18s %8llu %5s %10.2e %10.3f %10.3f",
		       orderings[i].label, (unsigned long long)r->sweeps,
		       r->converged ? "yes" : "NO", r->fc3d, 1e3 * r->seconds,
		       1e6 * r->seconds / (double)r->sweeps);
		print_speedup(base, r->seconds / (double)r->sweeps);
		print_speedup(base, r->per_part[PX_PART_NORMAL]);
		print_speedup(base, r->per_part[PX_PART_FRICTION]);
		printf("\n");
		fflush(stdout);
	}
	free(lambda);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"tol", required_argument, NULL, 't'},
		{"max-sweeps", required_argument, NULL, 'n'},
		{"min-time", required_argument, NULL, 'm'},
		{"boxes", required_argument, NULL, 'k'},
		{"scheduler", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct options o = {1e-6, 200000, 0.3, 20, "sequential"};
	struct px_problem *p = NULL;
	struct px_error err = {0};
	char name[64];
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': o.tol = strtod(optarg, NULL); break;
		case 'n': o.max_sweeps = strtoull(optarg, NULL, 10); break;
		case 'm': o.min_time = strtod(optarg, NULL); break;
		case 'k': o.boxes = strtoul(optarg, NULL, 10); break;
		case 's': o.scheduler = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!(o.tol > 0) || !o.max_sweeps || !(o.min_time >= 0) || !o.boxes) {
		usage(stderr);
		return 2;
	}
	if (stack_problem_create(o.boxes, 0.5, 0.1, PX_FORM_FACTORIZED, &p,
				 &err)) {
		fprintf(stderr, "orderings: %s\n", err.msg);
		return 1;
	}
	snprintf(name, sizeof name, "box column of %zu (built in code)",
		 o.boxes);
	rc |= bench_problem(&o, name, p);
	px_problem_destroy(p);
	for (int i = optind; i < argc; i++) {
		if (px_dat_read(argv[i], &p, &err)) {
			fprintf(stderr, "orderings: %s\n", err.msg);
			return 1;
		}
		rc |= bench_problem(&o, argv[i], p);
		px_problem_destroy(p);
	}
	return rc ? 1 : 0;
}
