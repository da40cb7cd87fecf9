/* bench/roofline: how far the relax sweeps are from what the machine allows
 * (issue 34, item 1; Williams et al. 2009).
 * It measures the machine (roofline_machine.h: the last-level cache, a
 * STREAM triad out of it and inside it, the FMA peak, on one thread and on
 * T), counts the bytes and flops of one contact-sweep of each form of A
 * and each kernel (roofline_model.h), runs the real solve (sequential
 * Gauss-Seidel, the default plugins as bench/schedulers has them, a fixed
 * number of sweeps with no merit evaluation, the best solve's
 * px_report.sweep_seconds) on
 * ball grids (doc/scenes.md's ballgrid-N at its first step,
 * sim/scene_problems.h) and prints per scene, form and kernel the measured
 * ns per contact-sweep inside the sweeps, the lower bound
 * max(bytes / bandwidth, flops / peak) with the bandwidth of the triad
 * whose arrays sit where the sweep's working set does (in the last-level
 * cache or in memory), and their ratio. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "../sim/scene_problems.h"
#include "common.h"
#include "roofline_machine.h"
#include "roofline_model.h"

struct machine {
	size_t llc;
	int level;
	double dram[2], cache[2]; /* triad bytes/s: 1 thread, T threads */
	double peak[2];           /* flops/s */
	const char *isa;
};

struct options {
	double min_time;
	unsigned long sweeps;
	int threads;
	int solve_only;
	const char *variant; /* or NULL: all */
	double llc_mib;      /* 0: from sysfs */
};

/* A form of A and a kernel: rigid3 (kernel = auto on a rigid problem), or
 * the general kernel on the rigid, factorized or assembled form; on one
 * thread (sequential), or on T (colored: patches of 2 colors, each color's
 * contacts split among the threads), whose limit takes the T-thread
 * bandwidth and peak. */
static const struct variant {
	const char *name, *form, *kernel;
	enum px_form px_form;
	int assembled, threaded;
} variants[] = {
	{"rigid3", "rigid", "rigid3", PX_FORM_RIGID, 0, 0},
	{"rigid", "rigid", "general", PX_FORM_RIGID, 0, 0},
	{"factorized", "factorized", "general", PX_FORM_FACTORIZED, 0, 0},
	{"assembled", "assembled", "general", PX_FORM_RIGID, 1, 0},
	{"rigid3-colored", "rigid", "rigid3", PX_FORM_RIGID, 0, 1},
	/* [solver] kernel = wide (issue 34): colored, 4 patches per thread
	 * and lanes = 4, so that each call hands the 4 SIMD lanes a patch */
	{"wide", "rigid", "wide", PX_FORM_RIGID, 0, 0},
	{"wide-colored", "rigid", "wide", PX_FORM_RIGID, 0, 1},
};
enum { N_VARIANTS = sizeof variants / sizeof *variants };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: roofline [--min-time S] [--sweeps N] [--threads T] [--llc MIB]\n"
		"                [--variant NAME] [--solve-only] [SCENE...]\n"
		"SCENE is ballgrid-N (or grid-N), default ballgrid-24 ballgrid-40.\n"
		"Measures the machine's triad bandwidth and FMA peak on 1 and T\n"
		"threads (default: every processor), then solves each scene with N\n"
		"sequential sweeps (default 50), the best of the solves run in S\n"
		"seconds (default 0.5), for each variant (rigid3, rigid, factorized,\n"
		"assembled: the form of A and its kernel, sequential; rigid3-colored:\n"
		"the colored scheduler on T threads; wide, wide-colored: [solver]\n"
		"kernel = wide with colored patches = 4 per thread, lanes = 4, on 1\n"
		"and T threads) and prints the measured\n"
		"ns per contact-sweep, the limit max(bytes/bandwidth, flops/peak)\n"
		"and their ratio. --solve-only: no machine measurement, one solve\n"
		"per variant (for perf stat or cachegrind). --llc: the last-level\n"
		"cache's size when sysfs does not give it.\n");
}

static double gb(double bytes_per_s)
{
	return 1e-9 * bytes_per_s;
}

static int measure_machine(const struct options *o, struct machine *m)
{
	const int t[2] = {1, o->threads};
	size_t big, small;

	m->llc = o->llc_mib > 0 ? (size_t)(o->llc_mib * 1048576.0)
				: roofline_llc_bytes(&m->level);
	if (!m->llc) {
		fprintf(stderr, "roofline: sysfs does not give the last-level cache's size (/sys/devices/system/cpu/cpu0/cache): give it with --llc MIB\n");
		return 2;
	}
	/* STREAM's rule: each array at least 4 times the cache; inside it,
	 * the three arrays fill half of it */
	big = 4 * m->llc / sizeof(double);
	small = m->llc / 2 / 3 / sizeof(double);
	for (int i = 0; i < 2; i++) {
		m->dram[i] = roofline_triad(big, t[i], o->min_time);
		m->cache[i] = roofline_triad(small, t[i], o->min_time);
		m->peak[i] = roofline_fma_peak(t[i], o->min_time, &m->isa);
		if (m->dram[i] <= 0.0 || m->cache[i] <= 0.0 ||
		    m->peak[i] <= 0.0) {
			fprintf(stderr, "roofline: the machine's measurement failed (arrays of %zu MiB not allocated?)\n",
				3 * big * sizeof(double) >> 20);
			return 1;
		}
	}
	if (o->llc_mib > 0)
		printf("machine: last-level cache %.1f MiB (--llc)",
		       (double)m->llc / 1048576.0);
	else
		printf("machine: last-level cache L%d %.1f MiB (sysfs)",
		       m->level, (double)m->llc / 1048576.0);
	printf("; threads 1 and %d (OpenMP)\n", o->threads);
	printf("triad in memory (3 arrays of %.0f MiB): %.2f GB/s, %.2f GB/s on %d threads\n",
	       (double)(big * sizeof(double)) / 1048576.0, gb(m->dram[0]),
	       gb(m->dram[1]), o->threads);
	printf("triad in cache  (3 arrays of %.2f MiB): %.2f GB/s, %.2f GB/s on %d threads\n",
	       (double)(small * sizeof(double)) / 1048576.0, gb(m->cache[0]),
	       gb(m->cache[1]), o->threads);
	printf("FMA peak (%s): %.2f GFLOP/s, %.2f GFLOP/s on %d threads\n",
	       m->isa, 1e-9 * m->peak[0], 1e-9 * m->peak[1], o->threads);
	return 0;
}

/* The problem of a variant: the scene's in its form, assembled if asked. */
static int make_problem(size_t n, const struct variant *v,
			struct px_problem **out, struct px_error *err)
{
	struct px_problem *p = NULL;
	int rc = scene_ballgrid(n, v->px_form, &p, err);

	if (rc || !v->assembled) {
		*out = p;
		return rc;
	}
	rc = px_problem_assemble(p, out, err);
	px_problem_destroy(p);
	return rc;
}

/* Seconds per sweep inside the sweeps, the best of the solves of
 * o->sweeps sweeps run in o->min_time (one solve with --solve-only), as
 * the triad and the peak take their best: a busy machine only slows a
 * run; lambda holds the last answer. -1 on error. */
static double measure_solve(const struct options *o, const struct variant *v,
			    const struct px_problem *p, double *lambda)
{
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	double total = 0.0, best = -1.0;
	char text[512];

	snprintf(text, sizeof text,
		 "[solver]\nmerit = delta\nabs_tol = 0\nrel_tol = 0\nmax_sweeps = %lu\nkernel = %s\n"
		 "[friction]\nplugin = disc\n[rfactor]\nplugin = local\ngamma = 1\nnu = 1\n"
		 "[scheduler]\n",
		 o->sweeps,
		 !strcmp(v->kernel, "wide")     ? "wide"
		 : strcmp(v->kernel, "rigid3") ? "generic"
					       : "auto");
	if (!strcmp(v->kernel, "wide"))
		snprintf(text + strlen(text), sizeof text - strlen(text),
			 "plugin = colored\ncoloring = greedy\nmerge_below = 0\npatches = %d\nlanes = 4\nthreads = %d\n",
			 4 * (v->threaded ? o->threads : 1),
			 v->threaded ? o->threads : 1);
	else if (v->threaded)
		snprintf(text + strlen(text), sizeof text - strlen(text),
			 "plugin = colored\ncoloring = greedy\nmerge_below = 0\npatches = 2\nthreads = %d\n",
			 o->threads);
	else
		strcat(text, "plugin = sequential\n");
	if (bench_config(text, &cfg, &err)) {
		fprintf(stderr, "roofline: %s\n", err.msg);
		return -1.0;
	}
	do {
		struct px_report rep;

		if (bench_solve("roofline", p, cfg, lambda, &rep)) {
			px_config_free(cfg);
			return -1.0;
		}
		if (rep.sweeps != o->sweeps) {
			fprintf(stderr, "roofline: %llu sweeps run, %lu asked\n",
				(unsigned long long)rep.sweeps, o->sweeps);
			px_report_free(&rep);
			px_config_free(cfg);
			return -1.0;
		}
		total += rep.seconds;
		if (best < 0.0 || rep.sweep_seconds < best)
			best = rep.sweep_seconds;
		px_report_free(&rep);
	} while (!o->solve_only && total < o->min_time);
	px_config_free(cfg);
	return best / (double)o->sweeps;
}

static void print_header(int solve_only)
{
	printf("\n%-12s %-10s %-7s %3s %8s %7s %6s %6s %7s %5s %8s %-6s %6s %8s %-6s %8s %6s\n",
	       "scene", "form", "kernel", "thr", "contacts", "B/c-sw", "bodies",
	       "gather", "flop/c", "moved", "set-MiB", "where", "GB/s",
	       "limit-ns", "bound", "meas-ns", "ratio");
	if (solve_only)
		printf("(--solve-only: no machine figures, no limit)\n");
}

static int run_scene(const struct options *o, const struct machine *m,
		     const char *name, size_t grid)
{
	for (int i = 0; i < N_VARIANTS; i++) {
		const struct variant *v = &variants[i];
		struct px_problem *p = NULL;
		struct px_error err = {0};
		struct roofline_cost cost;
		double *lambda, sec = 0.0, bw = 0.0, limit = 0.0, t_mem = 0.0,
		       t_flop = 0.0;
		size_t n;
		int in_cache;

		if (o->variant && strcmp(o->variant, v->name))
			continue;
		if (make_problem(grid, v, &p, &err)) {
			fprintf(stderr, "roofline: %s: %s\n", name, err.msg);
			return 1;
		}
		n = px_problem_n_contacts(p);
		lambda = malloc(n * 3 * sizeof *lambda);
		if (!lambda || (sec = measure_solve(o, v, p, lambda)) < 0 ||
		    roofline_cost(p, strcmp(v->kernel, "general") != 0, lambda,
				  &cost)) {
			if (sec >= 0)
				fprintf(stderr, "roofline: out of memory\n");
			free(lambda);
			px_problem_destroy(p);
			return 1;
		}
		in_cache = m && cost.footprint <= (double)m->llc;
		if (m) {
			const int at = v->threaded;

			bw = in_cache ? m->cache[at] : m->dram[at];
			t_mem = cost.bytes / bw;
			t_flop = cost.flops / m->peak[at];
			limit = t_mem > t_flop ? t_mem : t_flop;
		}
		printf("%-12s %-10s %-7s %3d %8zu %7.0f %6.0f %6.0f %7.0f %5.2f %8.1f %-6s",
		       name, v->form, v->kernel, v->threaded ? o->threads : 1,
		       n, cost.bytes,
		       cost.body_bytes, cost.gathered, cost.flops,
		       cost.changed, cost.footprint / 1048576.0,
		       !m ? "-" : in_cache ? "cache" : "memory");
		if (m)
			printf(" %6.2f %8.2f %-6s %8.2f %6.2f\n", gb(bw),
			       1e9 * limit, t_mem >= t_flop ? "bytes" : "flops",
			       1e9 * sec / (double)n, sec / (double)n / limit);
		else
			printf(" %6s %8s %-6s %8.2f %6s\n", "-", "-", "-",
			       1e9 * sec / (double)n, "-");
		fflush(stdout);
		free(lambda);
		px_problem_destroy(p);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"min-time", required_argument, NULL, 'm'},
		{"sweeps", required_argument, NULL, 's'},
		{"threads", required_argument, NULL, 't'},
		{"variant", required_argument, NULL, 'v'},
		{"llc", required_argument, NULL, 'l'},
		{"solve-only", no_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char *defaults[] = {"ballgrid-24", "ballgrid-40"};
	struct options o = {0.5, 50, omp_get_num_procs(), 0, NULL, 0.0};
	struct machine m = {0};
	const char *const *scenes;
	int c, li = 0, n_scenes, rc;

	while ((c = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
		char *end = NULL;

		switch (c) {
		case 'm': o.min_time = strtod(optarg, &end); break;
		case 's': o.sweeps = strtoul(optarg, &end, 10); break;
		case 't': o.threads = (int)strtol(optarg, &end, 10); break;
		case 'l': o.llc_mib = strtod(optarg, &end); break;
		case 'o': o.solve_only = 1; break;
		case 'v': o.variant = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
		if (end && (end == optarg || *end)) {
			fprintf(stderr, "roofline: --%s: '%s' is not a number\n",
				longopts[li].name, optarg);
			return 2;
		}
	}
	if (o.threads < 1 || !o.sweeps || !(o.min_time >= 0) ||
	    !(o.llc_mib >= 0)) {
		fprintf(stderr, "roofline: --threads and --sweeps take a number >= 1, --min-time and --llc one >= 0\n");
		return 2;
	}
	if (o.variant) {
		int known = 0;

		for (int i = 0; i < N_VARIANTS; i++)
			known |= !strcmp(o.variant, variants[i].name);
		if (!known) {
			fprintf(stderr, "roofline: unknown variant '%s' (rigid3, rigid, factorized, assembled, rigid3-colored, wide, wide-colored)\n",
				o.variant);
			return 2;
		}
	}
	scenes = optind < argc ? (const char *const *)argv + optind : defaults;
	n_scenes = optind < argc ? argc - optind : 2;
	for (int i = 0; i < n_scenes; i++) {
		unsigned long n = 0;
		char kind[16];
		int end = 0;

		if (sscanf(scenes[i], "%15[a-z]-%lu%n", kind, &n, &end) != 2 ||
		    scenes[i][end] || n < 2 ||
		    (strcmp(kind, "grid") && strcmp(kind, "ballgrid"))) {
			fprintf(stderr, "roofline: bad scene '%s' (expected ballgrid-N or grid-N, N >= 2)\n",
				scenes[i]);
			return 2;
		}
	}
	if (!o.solve_only && (rc = measure_machine(&o, &m)))
		return rc;
	print_header(o.solve_only);
	for (int i = 0; i < n_scenes; i++) {
		unsigned long n = strtoul(strchr(scenes[i], '-') + 1, NULL, 10);

		if (run_scene(&o, o.solve_only ? NULL : &m, scenes[i], n))
			return 1;
	}
	return 0;
}
