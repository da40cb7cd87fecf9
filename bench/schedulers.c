/* bench/schedulers: the scheduler plugins on the thesis's scenes (Poulsen 2010,
 * sec. 3.8, Tables 3.2-3.5), generated in code (sim/scene_problems.h): ball
 * grids and ball piles of N^3 unit spheres at their first time step.
 *
 * Method (Poulsen 2010, sec. 3.8): sequential Gauss-Seidel runs 50 sweeps and
 * its quality gamma (Poulsen 2010, eq. 3.32: the natural merit with constant r
 * = 100) is the target; every scheduler and thread count then runs until it
 * reaches that quality (gamma evaluated after every sweep), and exactly that
 * many sweeps are timed again with no merit evaluation, repeated until
 * --min-time. The other plugins are the default config's (disc, identity,
 * local with gamma 1 and nu 1). Per run it prints the sweeps, the time to
 * the target quality, the time per sweep and per contact-sweep (for the
 * whole solve, and `in-sweep`: only the scheduler's sweeps, without the
 * set-up and the stop tests, px_report.sweep_seconds), the bytes
 * of problem and solver state per contact, and the speedup over
 * sequential (time to quality); after a scheduler's row, its describe line
 * (colored: the colors, their sizes and what coloring cost). --csv FILE
 * writes the same as one row per run, with the colors, the unsafe color's
 * contacts and the coloring's milliseconds taken from that line. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/proxima.h>

#include "common.h"
#include "../sim/scene_problems.h"

struct scheduler {
	const char *label;
	const char *ini; /* the [scheduler] section's lines, %d = threads */
	int threaded;
	const char *solver; /* more [solver] lines, or NULL */
};

static const struct scheduler schedulers[] = {
	{"sequential", "plugin = sequential\n", 0, NULL},
	{"jacobi", "plugin = jacobi\nthreads = %d\nserial_below = 0\n", 1, NULL},
	{"colored greedy", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\n", 1, NULL},
	{"colored balanced", "plugin = colored\ncoloring = balanced\nthreads = %d\nmerge_below = 0\n", 1, NULL},
	{"colored merged", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 64\n", 1, NULL},
	{"colored patches2", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\npatches = 2\n", 1, NULL},
	{"colored patches4", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\npatches = 4\n", 1, NULL},
	{"naive", "plugin = naive\nthreads = %d\n", 1, NULL},
	/* issue 34: the same lists, 4 per call, scalar and in SIMD lanes */
	{"lanes4 patches4", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\npatches = 4\nlanes = 4\n", 1, NULL},
	{"wide patches4", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\npatches = 4\nlanes = 4\n", 1, "kernel = wide\n"},
	{"lanes4 patches8", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\npatches = 8\nlanes = 4\n", 1, NULL},
	{"lanes4 colors", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\nlanes = 4\n", 1, NULL},
	{"wide colors", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\nlanes = 4\n", 1, "kernel = wide\n"},
	{"wide patches8", "plugin = colored\ncoloring = greedy\nthreads = %d\nmerge_below = 0\npatches = 8\nlanes = 4\n", 1, "kernel = wide\n"},
};
enum { N_SCHEDULERS = sizeof schedulers / sizeof *schedulers };

struct options {
	enum px_form form;
	int quality_sweeps;
	uint64_t max_sweeps;
	double min_time;
	int max_threads;
	const char *only; /* run only the schedulers whose label starts so */
	FILE *csv; /* or NULL */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: schedulers [--min-time S] [--max-sweeps N] [--threads T]\n"
		"                  [--quality-sweeps Q] [--factorized] [--only LABEL]\n"
		"                  [--csv FILE] SCENE...\n"
		"SCENE is grid-N or pile-N (doc/scenes.md's ballgrid-N, ballpile-N), e.g.\n"
		"grid-24 pile-24. Every scheduler with 1..T threads (default 2) runs to\n"
		"the quality of Q (default 50) sequential sweeps. A is in the rigid\n"
		"form (per body masses, per contact lever arms), or --factorized.\n"
		"--only runs sequential (the baseline) and the schedulers whose label\n"
		"starts with LABEL (e.g. colored, jacobi).\n"
		"--csv writes one row per run (colors and coloring time included).\n");
}

/* A config: the default plugins, `sched` with `threads`, and [solver]
 * set to reach quality `target` (target < 0: run `sweeps` sweeps with no
 * merit evaluation). */
static int make_config(const struct scheduler *sched, int threads,
		       double target, uint64_t sweeps, struct px_config **cfg,
		       struct px_error *err)
{
	char text[1024];
	int at;

	if (target < 0)
		at = snprintf(text, sizeof text,
			      "[solver]\nmerit = delta\nabs_tol = 0\nrel_tol = 0\nmax_sweeps = %llu\n",
			      (unsigned long long)sweeps);
	else /* gamma, Poulsen 2010, eq. 3.32; no certificate: a quality race */
		at = snprintf(text, sizeof text,
			      "[solver]\nmerit = natural\nnatural_r = 100\nabs_tol = %.17g\ncheck_tol = 1e300\nmax_sweeps = %llu\n",
			      target, (unsigned long long)sweeps);
	if (sched->solver)
		at += snprintf(text + at, sizeof text - (size_t)at, "%s",
			       sched->solver);
	at += snprintf(text + at, sizeof text - (size_t)at,
		       "[friction]\nplugin = disc\n[rfactor]\nplugin = local\ngamma = 1\nnu = 1\n[scheduler]\n");
	snprintf(text + at, sizeof text - (size_t)at, sched->ini, threads);
	return bench_config(text, cfg, err);
}

/* One scheduler and thread count: sweeps to the target, mean time of that
 * many sweeps. Returns 1 if the plugin is absent, -1 on error. */
static int run(const struct options *o, const struct px_problem *p,
	       const struct scheduler *s, int threads, double target,
	       double *lambda, struct px_report *count, double *seconds,
	       double *sweep_seconds,
	       char *line, size_t len)
{
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	struct px_report rep;
	double total = 0.0, in_sweeps = 0.0;
	int runs = 0;

	if (make_config(s, threads, target, o->max_sweeps, &cfg, &err)) {
		if (strstr(err.msg, "not found"))
			return 1;
		fprintf(stderr, "schedulers: %s\n", err.msg);
		return -1;
	}
	if (bench_solve("schedulers", p, cfg, lambda, count))
		goto fail;
	/* the first prepare of this config: a coloring made, not reused */
	px_scheduler_describe(cfg, line, len);
	px_config_free(cfg);
	if (make_config(s, threads, -1.0, count->sweeps, &cfg, &err))
		goto fail;
	do {
		if (bench_solve("schedulers", p, cfg, lambda, &rep))
			goto fail;
		total += rep.seconds;
		in_sweeps += rep.sweep_seconds;
		px_report_free(&rep);
		runs++;
	} while (total < o->min_time);
	*seconds = total / runs;
	*sweep_seconds = in_sweeps / runs;
	px_config_free(cfg);
	return 0;
fail:
	if (err.msg[0])
		fprintf(stderr, "schedulers: %s\n", err.msg);
	px_config_free(cfg);
	return -1;
}

/* A number after `key` in the describe line, or NAN. */
static double after(const char *line, const char *key)
{
	const char *at = strstr(line, key);

	return at ? strtod(at + strlen(key), NULL) : NAN;
}

static void csv_row(FILE *f, const char *scene, const struct options *o,
		    const struct px_problem *p, double target,
		    const char *label, int threads,
		    const struct px_report *count, double sec, double base,
		    const char *line)
{
	const size_t n = px_problem_n_contacts(p);
	double colors = NAN, unsafe = 0.0;
	const char *at = strstr(line, ": ");

	/* "colored greedy: 7 safe colors (sizes ...), unsafe color of 570
	 * contacts from 3 colors, ...; ... coloring 1.2 ms, ..." */
	if (at && strstr(line, " safe colors"))
		colors = strtod(at + 2, NULL);
	if (strstr(line, "unsafe color of "))
		unsafe = after(line, "unsafe color of ");
	fprintf(f, "%s,%s,%zu,%zu,%.6e,%s,%d,%llu,%d,%.6f,%.6f,%.3f,%.4f,%.0f,%.0f,%.6f,%.6f\n",
		scene, o->form == PX_FORM_RIGID ? "rigid" : "factorized", n,
		px_problem_n_bodies(p), target, label, threads,
		(unsigned long long)count->sweeps, count->converged, 1e3 * sec,
		1e3 * sec / (double)count->sweeps,
		1e9 * sec / (double)count->sweeps / (double)n, base / sec,
		colors, unsafe, after(line, " coloring "),
		after(line, " edges) "));
	fflush(f);
}

static int bench_scene(const struct options *o, const char *name,
		       const struct px_problem *p)
{
	const size_t n = px_problem_n_contacts(p);
	double *lambda = malloc(n * 3 * sizeof *lambda);
	double target, base = NAN;
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	struct px_report rep;
	int rc = -1;

	if (!lambda)
		return -1;
	/* the target: gamma after Q sequential sweeps */
	if (make_config(&schedulers[0], 1, 0.0, (uint64_t)o->quality_sweeps,
			&cfg, &err) ||
	    bench_solve("schedulers", p, cfg, lambda, &rep)) {
		fprintf(stderr, "schedulers: %s\n", err.msg);
		goto out;
	}
	target = rep.merit;
	px_report_free(&rep);
	px_config_free(cfg);
	cfg = NULL;
	printf("\n%s (%s A): %zu contacts, %zu bodies; target gamma %.3e (%d sequential sweeps)\n",
	       name, o->form == PX_FORM_RIGID ? "rigid" : "factorized", n,
	       px_problem_n_bodies(p), target, o->quality_sweeps);
	printf("memory: %.0f bytes per contact (problem %.0f, solver %.0f, lambda %d)\n",
	       (double)(px_problem_bytes(p) + rep.work_bytes) / (double)n + 24.0,
	       (double)px_problem_bytes(p) / (double)n,
	       (double)rep.work_bytes / (double)n, 24);
	printf("%-17s %3s %7s %4s %10s %10s %9s %8s %8s\n", "scheduler", "thr",
	       "sweeps", "ok", "time(ms)", "ms/sweep", "ns/c-sw", "in-sweep",
	       "speedup");
	for (int i = 0; i < N_SCHEDULERS; i++) {
		const struct scheduler *s = &schedulers[i];

		if (o->only && i > 0 &&
		    strncmp(s->label, o->only, strlen(o->only)) != 0)
			continue;
		for (int t = 1; t <= (s->threaded ? o->max_threads : 1); t++) {
			struct px_report count;
			char line[1024];
			double sec, swsec;
			int r = run(o, p, s, t, target, lambda, &count, &sec,
				    &swsec,
				    line, sizeof line);

			if (r < 0)
				goto out;
			if (r > 0) {
				printf("%-17s %3d   (n/a: the plugin is not installed)\n",
				       s->label, t);
				break;
			}
			if (i == 0)
				base = sec;
			printf("%-17s %3d %7llu %4s %10.2f %10.3f %9.1f %8.1f %8.2f\n",
			       s->label, t, (unsigned long long)count.sweeps,
			       count.converged ? "yes" : "NO", 1e3 * sec,
			       1e3 * sec / (double)count.sweeps,
			       1e9 * sec / (double)count.sweeps / (double)n,
			       1e9 * swsec / (double)count.sweeps / (double)n,
			       base / sec);
			if (*line)
				printf("    %s\n", line);
			if (o->csv)
				csv_row(o->csv, name, o, p, target, s->label, t,
					&count, sec, base, line);
			px_report_free(&count);
			fflush(stdout);
		}
	}
	rc = 0;
out:
	px_config_free(cfg);
	free(lambda);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"min-time", required_argument, NULL, 'm'},
		{"max-sweeps", required_argument, NULL, 'n'},
		{"threads", required_argument, NULL, 't'},
		{"quality-sweeps", required_argument, NULL, 'q'},
		{"factorized", no_argument, NULL, 'f'},
		{"only", required_argument, NULL, 'o'},
		{"csv", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct options o = {PX_FORM_RIGID, 50, 5000, 0.5, 2, NULL, NULL};
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': o.min_time = strtod(optarg, NULL); break;
		case 'n': o.max_sweeps = strtoull(optarg, NULL, 10); break;
		case 't': o.max_threads = atoi(optarg); break;
		case 'q': o.quality_sweeps = atoi(optarg); break;
		case 'f': o.form = PX_FORM_FACTORIZED; break;
		case 'o': o.only = optarg; break;
		case 'C':
			if (o.csv)
				fclose(o.csv);
			o.csv = fopen(optarg, "w");
			if (!o.csv) {
				fprintf(stderr, "schedulers: %s: cannot write\n",
					optarg);
				return 2;
			}
			fprintf(o.csv, "scene,form,contacts,bodies,target_gamma,scheduler,threads,sweeps,converged,time_ms,ms_per_sweep,ns_per_contact_sweep,speedup,colors,unsafe_contacts,coloring_ms,graph_ms\n");
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind == argc || o.max_threads < 1 || o.quality_sweeps < 1 ||
	    !o.max_sweeps || !(o.min_time >= 0)) {
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		struct px_problem *p = NULL;
		struct px_error err = {0};
		unsigned long n = 0;
		char kind[8];

		if (sscanf(argv[i], "%4[a-z]-%lu", kind, &n) != 2 || n < 2 ||
		    (strcmp(kind, "grid") && strcmp(kind, "pile"))) {
			fprintf(stderr, "schedulers: bad scene '%s' (expected grid-N or pile-N, N >= 2)\n",
				argv[i]);
			return 2;
		}
		if ((kind[0] == 'g' ? scene_ballgrid : scene_ballpile)(n, o.form, &p,
								       &err)) {
			fprintf(stderr, "schedulers: %s: %s\n", argv[i], err.msg);
			return 1;
		}
		rc |= bench_scene(&o, argv[i], p);
		px_problem_destroy(p);
	}
	if (o.csv && fclose(o.csv)) {
		fprintf(stderr, "schedulers: cannot write the CSV file\n");
		rc = 1;
	}
	return rc ? 1 : 0;
}
