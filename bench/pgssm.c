/* bench/pgssm: PGS against PGS with the pgssm accelerator (Silcowitz et al.
 * 2010, PGS subspace minimization) at equal work, in one process.
 *
 * Work is counted as Silcowitz et al. 2010, sec. 5 does, in PGS iterations: a
 * sweep is 1, a product with A made by the accelerator (a CG iteration, a
 * merit) is 1 ("sweep equivalent"); the driver's own evaluations of the stop
 * test are not work. Problems: Silcowitz et al.'s (2010) test cases built in
 * code (sim/scene_problems.c, sim/stack_problem.c) and any problem files named
 * on the command line. Both methods: local r (gamma 1, nu 1), sequential,
 * identity, from lambda = 0; friction disc with Siconos's fc3d error as the
 * merit, or (--friction box, Silcowitz et al.'s (2010) model) box with |H| =
 * sqrt(2 minmap) (Poulsen et al. 2010, eq. 22-23).
 *
 * Per problem and method, from lambda = 0:
 *   1. up to the largest --work, never stopping: the merit after W sweep
 *      equivalents for each W of --work;
 *   2. to the merit --tol (at most --max-sweeps sweeps): the sweeps and
 *      products it took;
 *   3. exactly that many sweeps (the accelerator making the same calls)
 *      with the cheap delta merit and no stop test, repeated until
 *      --min-time: the time to the tolerance without the cost of
 *      measuring it (less the accelerator's calls that solve 2 did not
 *      make: the end of the solve's finish, and a call after the sweep
 *      that reached the tolerance, timed by the report), and from it the
 *      time per sweep and per product.
 * --csv FILE writes the table as one row per problem and method; --trace
 * DIR writes DIR/<problem>-<method>.csv, the merit after every event of
 * solve 1 (work, sweeps, products, merit), for plots of merit against
 * work like Silcowitz et al. 2010, Fig. 3. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "common.h"
#include "../sim/scene_problems.h"
#include "../sim/stack_problem.h"

#define MAX_W 8

struct options {
	double tol;
	uint64_t max_sweeps;
	double min_time;
	uint64_t work[MAX_W];
	int n_work;
	int box;            /* friction box and |H|, else disc and fc3d */
	char accel[1024];   /* extra lines of [accelerator] */
	FILE *csv;          /* --csv, or NULL */
	const char *trace;  /* --trace DIR, or NULL */
};

/* What one method gave on one problem. */
struct result {
	double merit_at[MAX_W]; /* after work[i] sweep equivalents */
	int reached, by_call; /* by_call: reached by a call after a sweep */
	uint64_t sweeps, products; /* to the tolerance */
	double seconds;            /* of that solve, without the merit */
	double per_sweep, per_product; /* seconds */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pgssm [--tol T] [--work W1,W2,...] [--max-sweeps N] [--min-time S]\n"
		"             [--friction disc|box] [--set KEY=VALUE]... [--csv FILE]\n"
		"             [--trace DIR] [PROBLEM...]\n"
		"PGS against PGS with the pgssm accelerator at equal work (sweeps plus\n"
		"products with A) on Silcowitz et al.'s (2010) test cases and the given\n"
		"problems: the merit after W sweep equivalents (default 100,500,2000), and\n"
		"the work and time to a merit of T (default 1e-10). --set passes KEY=VALUE\n"
		"to [accelerator]. --csv writes the table, --trace DIR the merit after\n"
		"every sweep and\n"
		"accelerator call (DIR/<problem>-<method>.csv).\n");
}

/* The config of a method: trace = 1 never stops (merit evaluated), 2
 * stops at the tolerance, 0 times max_sweeps sweeps with delta. */
static int make_config(const struct options *o, int sm, int trace,
		       uint64_t max_sweeps, struct px_config **cfg,
		       struct px_error *err)
{
	char text[2048];
	int at;

	if (trace)
		at = snprintf(text, sizeof text,
			      "[solver]\nmerit = %s\nabs_tol = %.17g\nmax_sweeps = %llu\n",
			      o->box ? "minmap" : "fc3d",
			      trace == 1 ? 0.0
			      : o->box	 ? 0.5 * o->tol * o->tol
					 : o->tol,
			      (unsigned long long)max_sweeps);
	else
		at = snprintf(text, sizeof text,
			      "[solver]\nmerit = delta\nabs_tol = 0\nrel_tol = 0\nmax_sweeps = %llu\n",
			      (unsigned long long)max_sweeps);
	at += snprintf(text + at, sizeof text - (size_t)at,
		       "[friction]\nplugin = %s\n[rfactor]\nplugin = local\ngamma = 1\nnu = 1\n",
		       o->box ? "box" : "disc");
	if (sm)
		snprintf(text + at, sizeof text - (size_t)at,
			 "[accelerator]\nplugin = pgssm\n%s", o->accel);
	return bench_config(text, cfg, err);
}

/* The merit as printed: fc3d, or |H| = sqrt(2 minmap). */
static double shown(const struct options *o, double merit)
{
	return o->box ? sqrt(2.0 * merit) : merit;
}

/* Walk a solve's events (sweeps, and the accelerator's calls after them)
 * in order of work. Calls `at` with the work done and the merit after it. */
static void walk(const struct px_report *rep,
		 void (*at)(double work, double merit, uint64_t sweeps,
			    uint64_t products, void *user),
		 void *user)
{
	uint64_t products = 0;
	double merit = NAN;
	size_t a = 0;

	for (size_t i = 0; i < rep->n_history; i++) {
		merit = rep->history[i].merit;
		at((double)(i + 1 + products), merit, i + 1, products, user);
		for (; a < rep->n_accel && rep->accel[a].after_sweep == i + 1; a++) {
			products += rep->accel[a].products;
			if (rep->accel[a].replaced && !isnan(rep->accel[a].merit))
				merit = rep->accel[a].merit;
			at((double)(i + 1 + products), merit, i + 1, products,
			   user);
		}
	}
}

struct trace {
	const struct options *o;
	struct result *r;
	uint64_t products; /* before the event */
	FILE *f;           /* --trace: every event, or NULL */
};

static void at_work(double work, double merit, uint64_t sweeps,
		    uint64_t products, void *user)
{
	struct trace *t = user;

	if (t->f)
		fprintf(t->f, "%.0f,%llu,%llu,%.6e\n", work,
			(unsigned long long)sweeps,
			(unsigned long long)products, shown(t->o, merit));
	for (int i = 0; i < t->o->n_work; i++)
		if (work <= (double)t->o->work[i])
			t->r->merit_at[i] = shown(t->o, merit);
}

static void at_tol(double work, double merit, uint64_t sweeps,
		   uint64_t products, void *user)
{
	struct trace *t = user;

	(void)work;
	if (!t->r->reached && shown(t->o, merit) <= t->o->tol) {
		t->r->reached = 1;
		t->r->by_call = work > (double)(sweeps + t->products);
		t->r->sweeps = sweeps;
		t->r->products = products;
	}
	t->products = products;
}

static int run(const struct options *o, const struct px_problem *p, int sm,
	       double *lambda, struct result *r, const char *slug)
{
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	struct px_report rep = {0};
	struct trace t = {o, r, 0, NULL};
	double total = 0.0, accel = 0.0;
	uint64_t products = 0;
	int runs = 0;

	memset(r, 0, sizeof *r);
	for (int i = 0; i < o->n_work; i++)
		r->merit_at[i] = NAN;
	if (make_config(o, sm, 1, o->work[o->n_work - 1], &cfg, &err) ||
	    bench_solve("pgssm", p, cfg, lambda, &rep))
		goto fail;
	if (o->trace) {
		char path[4096];

		snprintf(path, sizeof path, "%s/%s-%s.csv", o->trace, slug,
			 sm ? "pgssm" : "pgs");
		t.f = fopen(path, "w");
		if (!t.f) {
			fprintf(stderr, "pgssm: %s: cannot write\n", path);
			goto fail;
		}
		fprintf(t.f, "work,sweeps,products,merit\n");
	}
	walk(&rep, at_work, &t);
	if (t.f && fclose(t.f)) {
		fprintf(stderr, "pgssm: cannot write the trace of %s\n", slug);
		t.f = NULL;
		goto fail;
	}
	t.f = NULL;
	px_report_free(&rep);
	px_config_free(cfg);
	if (make_config(o, sm, 2, o->max_sweeps, &cfg, &err) ||
	    bench_solve("pgssm", p, cfg, lambda, &rep))
		goto fail;
	walk(&rep, at_tol, &t);
	px_report_free(&rep);
	px_config_free(cfg);
	cfg = NULL;
	if (!r->reached)
		return 0;
	if (make_config(o, sm, 0, r->sweeps, &cfg, &err))
		goto fail;
	do {
		if (bench_solve("pgssm", p, cfg, lambda, &rep))
			goto fail;
		total += rep.seconds;
		accel += rep.accel_seconds;
		products += rep.accel_products;
		/* not in the solve that reached the tolerance: the end of the
		 * solve's finish, and a call after the sweep that reached it */
		for (size_t i = 0; i < rep.n_accel; i++) {
			const struct px_accel_record *a = &rep.accel[i];

			if (a->finish || (!r->by_call && a->after_sweep == r->sweeps)) {
				total -= a->seconds;
				accel -= a->seconds;
				products -= a->products;
			}
		}
		px_report_free(&rep);
		runs++;
	} while (total < o->min_time);
	r->seconds = total / runs;
	r->per_sweep = (total - accel) / runs / (double)r->sweeps;
	r->per_product = products ? accel / (double)products : NAN;
	px_config_free(cfg);
	return 0;
fail:
	if (err.msg[0])
		fprintf(stderr, "pgssm: %s\n", err.msg);
	if (t.f)
		fclose(t.f);
	px_config_free(cfg);
	return -1;
}

static void csv_row(const struct options *o, const char *slug,
		    const char *name, const struct px_problem *p, int sm,
		    const struct result *r, const struct result *pgs)
{
	FILE *f = o->csv;

	fprintf(f, "%s,\"%s\",%zu,%s", slug, name, px_problem_n_contacts(p),
		sm ? "PGS-SM" : "PGS");
	for (int i = 0; i < o->n_work; i++)
		fprintf(f, ",%.3e", r->merit_at[i]);
	if (r->reached)
		fprintf(f, ",1,%llu,%llu,%llu,%.6f", (unsigned long long)r->sweeps,
			(unsigned long long)r->products,
			(unsigned long long)(r->sweeps + r->products),
			1e3 * r->seconds);
	else
		fprintf(f, ",0,,,,");
	if (sm && r->reached && pgs->reached)
		fprintf(f, ",%.3f", pgs->seconds / r->seconds);
	else
		fprintf(f, ",");
	fprintf(f, "\n");
	fflush(f);
}

static int bench_problem(const struct options *o, const char *name,
			 const char *slug, const struct px_problem *p)
{
	const size_t m = px_problem_n_contacts(p) * px_problem_block_size(p);
	double *lambda = malloc(m * sizeof *lambda);
	struct result res[2];

	if (!lambda) {
		fprintf(stderr, "pgssm: out of memory\n");
		return -1;
	}
	printf("\n%s: %zu contacts, %s, merit %s, tol %g\n", name,
	       px_problem_n_contacts(p), o->box ? "box" : "disc",
	       o->box ? "|H|" : "fc3d", o->tol);
	printf("%-7s", "method");
	for (int i = 0; i < o->n_work; i++) {
		char head[32];

		snprintf(head, sizeof head, "@%llu",
			 (unsigned long long)o->work[i]);
		printf(" %9s", head);
	}
	printf(" | %7s %8s %8s %9s %7s %8s %8s\n", "sweeps", "products",
	       "work", "time(ms)", "ratio", "us/sweep", "us/prod");
	for (int sm = 0; sm < 2; sm++) {
		struct result *r = &res[sm];

		if (run(o, p, sm, lambda, r, slug)) {
			free(lambda);
			return -1;
		}
		if (o->csv)
			csv_row(o, slug, name, p, sm, r, &res[0]);
		printf("%-7s", sm ? "PGS-SM" : "PGS");
		for (int i = 0; i < o->n_work; i++)
			printf(" %9.2e", r->merit_at[i]);
		if (!r->reached) {
			printf(" | not reached in %llu sweeps\n",
			       (unsigned long long)o->max_sweeps);
			continue;
		}
		printf(" | %7llu %8llu %8llu %9.3f", (unsigned long long)r->sweeps,
		       (unsigned long long)r->products,
		       (unsigned long long)(r->sweeps + r->products),
		       1e3 * r->seconds);
		if (sm && res[0].reached)
			printf(" %7.2f", res[0].seconds / r->seconds);
		else
			printf(" %7s", "-");
		printf(" %8.3f", 1e6 * r->per_sweep);
		if (sm && !isnan(r->per_product))
			printf(" %8.3f\n", 1e6 * r->per_product);
		else
			printf(" %8s\n", "-");
		fflush(stdout);
	}
	free(lambda);
	return 0;
}

static int parse_work(const char *s, struct options *o)
{
	char *end;

	o->n_work = 0;
	while (*s && o->n_work < MAX_W) {
		unsigned long long w = strtoull(s, &end, 10);

		if (end == s || w == 0 ||
		    (o->n_work && w <= o->work[o->n_work - 1]))
			return -1;
		o->work[o->n_work++] = w;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return o->n_work ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"tol", required_argument, NULL, 't'},
		{"work", required_argument, NULL, 'w'},
		{"max-sweeps", required_argument, NULL, 'n'},
		{"min-time", required_argument, NULL, 'm'},
		{"friction", required_argument, NULL, 'f'},
		{"set", required_argument, NULL, 's'},
		{"csv", required_argument, NULL, 'C'},
		{"trace", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct options o = {.tol = 1e-10, .max_sweeps = 20000, .min_time = 0.05};
	struct px_problem *p = NULL;
	struct px_error err = {0};
	size_t at = 0;
	int c, rc = 0;

	parse_work("100,500,2000", &o);
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': o.tol = strtod(optarg, NULL); break;
		case 'w':
			if (parse_work(optarg, &o)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'n': o.max_sweeps = strtoull(optarg, NULL, 10); break;
		case 'm': o.min_time = strtod(optarg, NULL); break;
		case 'f': o.box = strcmp(optarg, "box") == 0; break;
		case 's':
			at += (size_t)snprintf(o.accel + at, sizeof o.accel - at,
					       "%s\n", optarg);
			if (at >= sizeof o.accel) {
				usage(stderr);
				return 2;
			}
			break;
		case 'C':
			if (o.csv)
				fclose(o.csv);
			o.csv = fopen(optarg, "w");
			if (!o.csv) {
				fprintf(stderr, "pgssm: %s: cannot write\n", optarg);
				return 2;
			}
			break;
		case 'T': o.trace = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!(o.tol > 0) || !o.max_sweeps || !(o.min_time >= 0)) {
		usage(stderr);
		return 2;
	}
	if (o.csv) {
		fprintf(o.csv, "problem,name,contacts,method");
		for (int i = 0; i < o.n_work; i++)
			fprintf(o.csv, ",merit_at_%llu",
				(unsigned long long)o.work[i]);
		fprintf(o.csv, ",reached,sweeps,products,work,time_ms,time_ratio\n");
	}
	printf("work = sweeps + products with A (sweep equivalents, Silcowitz et al. 2010, sec. 5); merit after W of them; ratio = PGS time / PGS-SM time to tol%s%s\n",
	       *o.accel ? "; [accelerator] " : "", o.accel);
	for (int s = 0; s < 5 && !rc; s++) {
		static const char *const slugs[] = {
			"heavy1000", "heavy100", "incline", "sliding5", "rest20",
		};
		static const char *const names[] = {
			"heavy-on-light 1000:1 (Silcowitz et al. 2010, Fig. 2d)",
			"heavy-on-light 100:1",
			"incline 20 deg, 3 cubes at rest (Silcowitz et al. 2010, Fig. 2e)",
			"box column of 5 sliding (sim/stack_problem.c)",
			"box column of 20 at rest",
		};
		int r = s == 0	 ? scene_heavy_on_light(1000.0, 0.5, PX_FORM_RIGID, &p, &err)
			: s == 1 ? scene_heavy_on_light(100.0, 0.5, PX_FORM_RIGID, &p, &err)
			: s == 2 ? scene_incline(3, 20.0, 0.5, PX_FORM_RIGID, &p, &err)
			: s == 3 ? stack_problem_create(5, 0.5, 0.1, PX_FORM_RIGID, &p, &err)
				 : stack_problem_create(20, 0.5, 0.0, PX_FORM_RIGID, &p, &err);

		if (r) {
			fprintf(stderr, "pgssm: %s\n", err.msg);
			return 1;
		}
		rc |= bench_problem(&o, names[s], slugs[s], p);
		px_problem_destroy(p);
	}
	for (int i = optind; i < argc && !rc; i++) {
		double *guess = NULL;

		if (px_problem_read(argv[i], &p, PX_FCLIB_R_NONE, &guess, &err)) {
			fprintf(stderr, "pgssm: %s\n", err.msg);
			return 1;
		}
		char slug[256];
		const char *base = strrchr(argv[i], '/');

		free(guess);
		/* the file name up to its first '.' */
		snprintf(slug, sizeof slug, "%s", base ? base + 1 : argv[i]);
		slug[strcspn(slug, ".")] = '\0';
		rc |= bench_problem(&o, argv[i], slug, p);
		px_problem_destroy(p);
	}
	if (o.csv && fclose(o.csv)) {
		fprintf(stderr, "pgssm: cannot write the CSV file\n");
		rc = 1;
	}
	return rc ? 1 : 0;
}
