/* bench/siconos_compare: proxima against Siconos numerics' nonsmooth
 * Gauss-Seidel (NSGS) on Siconos .dat problem files, in one process.
 *
 * Per problem both solvers start from r = 0 and stop at an fc3d error of
 * 1e-8 (Siconos's fc3d_compute_error, ../shared/problems/README.md sec.
 * 3.2). Siconos runs fc3d_driver with SICONOS_FRICTION_3D_NSGS at its
 * default local solver, the full error evaluated after every sweep, at most
 * 100000 sweeps; proxima runs px_solve with a config whose [solver] is
 * overridden to merit = fc3d, abs_tol = 1e-8 and a sweep cap. The final
 * error of both solutions is computed by both Siconos and px_merit_fc3d;
 * the table shows Siconos's, a disagreement is a warning on stderr. Times
 * are wall time (CLOCK_MONOTONIC) of the solver call alone, averaged over
 * as many solves as it takes to reach --min-time. */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <proxima/proxima.h>

#include "common.h"

#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <SolverOptions.h>
#include <fc3d_compute_error.h>

#define TOL 1e-8
#define SICONOS_MAX_SWEEPS 100000
/* Two fc3d errors agree when they differ by at most this, relative, or by
 * AGREE_ABS: F_i = r_i - P(r_i - u_i - ...) cancels, so the two codes'
 * rounding, about eps * max(||q||, ||r||, ||u||), i.e. eps in the error's
 * units, can be 1e-7 of a 2e-10 error (FrictionContact3D_1c). */
#define AGREE_REL 1e-10
#define AGREE_ABS (64 * DBL_EPSILON)

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 2 };

struct options {
	const char *config;
	uint64_t max_sweeps; /* proxima's cap */
	double min_time;     /* seconds of solving per measured time */
};

/* One problem as both libraries read it. */
struct problem {
	const char *path;
	struct px_problem *px;
	FrictionContactProblem *sc;
	double norm_q;
};

/* What one solver did: the last solve's sweeps, flag and solution; the
 * mean time of one solve over `runs` solves. */
struct outcome {
	uint64_t sweeps;
	int converged;
	int runs;
	double seconds;
	double reported; /* the solver's own final merit */
	double *r;
};

/* A solver run from r = 0 by timed(); returns 0 or prints why not. */
struct solver {
	const char *name;
	int (*solve)(const struct solver *s, const struct problem *p,
		     struct outcome *o, double *seconds);
	const struct px_config *cfg; /* proxima */
	double *u;                   /* Siconos: velocity, 3 nc */
};

static size_t n_rows(const struct problem *p)
{
	return 3 * px_problem_n_contacts(p->px);
}

static int siconos_solve(const struct solver *s, const struct problem *p,
			 struct outcome *o, double *seconds)
{
	SolverOptions *so = solver_options_create(SICONOS_FRICTION_3D_NSGS);
	const size_t m = n_rows(p);
	double t0;
	int info;

	if (!so) {
		fprintf(stderr, "siconos_compare: %s: solver_options_create failed\n",
			p->path);
		return -1;
	}
	so->dparam[SICONOS_DPARAM_TOL] = TOL;
	so->iparam[SICONOS_IPARAM_MAX_ITER] = SICONOS_MAX_SWEEPS;
	so->iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION] =
		SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_FULL;
	/* 0: evaluate at every sweep, not every k-th. */
	so->iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION_FREQUENCY] = 0;
	memset(o->r, 0, m * sizeof *o->r);
	memset(s->u, 0, m * sizeof *s->u);
	t0 = bench_now();
	info = fc3d_driver(p->sc, o->r, s->u, so);
	*seconds = bench_now() - t0;
	o->sweeps = (uint64_t)so->iparam[SICONOS_IPARAM_ITER_DONE];
	o->reported = so->dparam[SICONOS_DPARAM_RESIDU];
	o->converged = info == 0;
	solver_options_delete(so);
	return 0;
}

static int proxima_solve(const struct solver *s, const struct problem *p,
			 struct outcome *o, double *seconds)
{
	struct px_report rep = {0};
	struct px_error err = {0};
	double t0;
	int rc;

	memset(o->r, 0, n_rows(p) * sizeof *o->r);
	t0 = bench_now();
	rc = px_solve(p->px, s->cfg, o->r, &rep, &err);
	*seconds = bench_now() - t0;
	if (rc) {
		fprintf(stderr, "siconos_compare: %s: %s\n", p->path, err.msg);
		return -1;
	}
	o->sweeps = rep.sweeps;
	o->converged = rep.converged;
	o->reported = rep.merit;
	px_report_free(&rep);
	return 0;
}

/* Solve until the solves add up to min_time; the outcome is the last one's
 * (both solvers are deterministic) with the mean time. */
static int timed(const struct solver *s, const struct problem *p,
		 double min_time, struct outcome *o)
{
	double total = 0.0, t;

	o->runs = 0;
	do {
		if (s->solve(s, p, o, &t))
			return -1;
		total += t;
		o->runs++;
	} while (total < min_time);
	o->seconds = total / o->runs;
	return 0;
}

static double siconos_error(const struct problem *p, const double *r,
			    double *u, SolverOptions *so)
{
	double e = NAN;

	/* fc3d_compute_error neither keeps nor writes r; its prototype
	 * lacks the const. */
	fc3d_compute_error(p->sc, (double *)r, u, TOL, so, p->norm_q, &e);
	return e;
}

static int agree(double a, double b)
{
	return fabs(a - b) <= fmax(AGREE_REL * fmax(fabs(a), fabs(b)),
				   AGREE_ABS);
}

/* Siconos's fc3d error of r, checked against proxima's and, when given,
 * against the solver's own final merit. */
static double final_error(const struct problem *p, const char *whose,
			  const double *r, double reported, double *u,
			  SolverOptions *so)
{
	const double es = siconos_error(p, r, u, so);
	const double ep = px_merit_fc3d(p->px, r, NULL);

	if (!agree(es, ep))
		fprintf(stderr,
			"siconos_compare: warning: %s: fc3d error of the %s solution: Siconos %.6e, px_merit_fc3d %.6e\n",
			bench_base_name(p->path), whose, es, ep);
	if (!isnan(reported) && !agree(es, reported))
		fprintf(stderr,
			"siconos_compare: warning: %s: %s reported a final error of %.6e, recomputed %.6e\n",
			bench_base_name(p->path), whose, reported, es);
	return es;
}

static void problem_free(struct problem *p)
{
	px_problem_destroy(p->px);
	if (p->sc)
		frictionContactProblem_free(p->sc);
}

/* Read path with both libraries and check they agree on its size. */
static int problem_read(const char *path, struct problem *p)
{
	struct px_error err = {0};
	FILE *f;
	size_t n;

	memset(p, 0, sizeof *p);
	p->path = path;
	if (px_dat_read(path, &p->px, &err)) {
		fprintf(stderr, "siconos_compare: %s\n", err.msg);
		return -1;
	}
	n = px_problem_n_contacts(p->px);
	if (px_problem_block_size(p->px) != 3) {
		fprintf(stderr, "siconos_compare: %s: expected 3 rows per contact, found %u\n",
			path, px_problem_block_size(p->px));
		return -1;
	}
	/* proxima has checked the format: Siconos's reader has no error
	 * reporting of its own. */
	f = fopen(path, "r");
	if (f) {
		p->sc = frictionContact_newFromFile(f);
		fclose(f);
	}
	if (!p->sc || !p->sc->M || !p->sc->q || !p->sc->mu ||
	    p->sc->dimension != 3 || p->sc->numberOfContacts < 0 ||
	    (size_t)p->sc->numberOfContacts != n) {
		fprintf(stderr, "siconos_compare: %s: Siconos's frictionContact_newFromFile did not read a 3D problem of %zu contacts\n",
			path, n);
		return -1;
	}
	p->norm_q = 0.0;
	for (size_t i = 0; i < 3 * n; i++)
		p->norm_q += p->sc->q[i] * p->sc->q[i];
	p->norm_q = sqrt(p->norm_q);
	return 0;
}

static void print_settings(const struct options *op,
			   const struct px_config *cfg)
{
	const struct px_solver_settings *s = px_config_settings(cfg);

	printf("siconos  fc3d_driver, SICONOS_FRICTION_3D_NSGS (default local solver), "
	       "tol %g, full error every sweep, max %d sweeps\n",
	       TOL, SICONOS_MAX_SWEEPS);
	printf("proxima  %s: friction %s, ordering %s, rfactor %s, scheduler %s; "
	       "merit fc3d, abs_tol %g, max %llu sweeps\n",
	       op->config,
	       px_plugin_header(px_config_plugin(cfg, PX_KIND_FRICTION))->name,
	       px_plugin_header(px_config_plugin(cfg, PX_KIND_ORDERING))->name,
	       px_plugin_header(px_config_plugin(cfg, PX_KIND_RFACTOR))->name,
	       px_plugin_header(px_config_plugin(cfg, PX_KIND_SCHEDULER))->name,
	       s->abs_tol, (unsigned long long)s->max_sweeps);
	printf("time     seconds per solve, wall clock, mean over repeated solves "
	       "totalling >= %g s; error: Siconos fc3d_compute_error; "
	       "conv: stopped at tol; ratio: siconos time / proxima time\n\n",
	       op->min_time);
	printf("%-34s %5s | %7s %10s %10s %4s | %7s %10s %10s %4s | %8s\n",
	       "problem", "nc", "sweeps", "time", "error", "conv", "sweeps",
	       "time", "error", "conv", "ratio");
	printf("%-34s %5s | %-34s | %-34s |\n", "", "", "siconos NSGS",
	       "proxima");
}

static int compare(const struct problem *p, const struct options *op,
		   const struct px_config *cfg, SolverOptions *eso)
{
	const size_t m = n_rows(p);
	double *u = malloc(m * sizeof *u);
	struct outcome sc = {0}, px = {0};
	struct solver ssc = {"Siconos", siconos_solve, NULL, u};
	struct solver spx = {"proxima", proxima_solve, cfg, NULL};
	double esc, epx;
	int rc = -1;

	sc.r = malloc(m * sizeof *sc.r);
	px.r = malloc(m * sizeof *px.r);
	if (!u || !sc.r || !px.r) {
		fprintf(stderr, "siconos_compare: %s: out of memory\n",
			p->path);
		goto out;
	}
	if (timed(&ssc, p, op->min_time, &sc) ||
	    timed(&spx, p, op->min_time, &px))
		goto out;
	esc = final_error(p, ssc.name, sc.r, sc.reported, u, eso);
	epx = final_error(p, spx.name, px.r, px.reported, u, eso);
	printf("%-34s %5zu | %7llu %10.3e %10.3e %4s | %7llu %10.3e %10.3e %4s | %8.3g\n",
	       bench_base_name(p->path), m / 3, (unsigned long long)sc.sweeps,
	       sc.seconds, esc, sc.converged ? "yes" : "NO",
	       (unsigned long long)px.sweeps, px.seconds, epx,
	       px.converged ? "yes" : "NO", sc.seconds / px.seconds);
	fflush(stdout);
	rc = 0;
out:
	free(u);
	free(sc.r);
	free(px.r);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: siconos_compare [-c CONFIG] [-s SWEEPS] [-t SECONDS] PROBLEM.dat...\n"
		"Solve each problem with Siconos numerics' NSGS and with proxima to an\n"
		"fc3d error of %g, from r = 0, and print sweeps, time per solve, final\n"
		"fc3d error and the time ratio.\n"
		"\n"
		"  -c, --config CONFIG     proxima config (default conf/default.ini); its\n"
		"                          [solver] is overridden to merit fc3d, abs_tol %g\n"
		"  -s, --max-sweeps N      proxima's sweep cap (default %d; Siconos's is %d)\n"
		"  -t, --min-time SECONDS  repeat short solves until they total this\n"
		"                          (default 0.05)\n"
		"  -h, --help              show this help\n"
		"\n"
		"Exit status: 0 every problem solved (converged or not), 2 bad input.\n",
		TOL, TOL, SICONOS_MAX_SWEEPS, SICONOS_MAX_SWEEPS);
}

static int parse(int argc, char **argv, struct options *op)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"max-sweeps", required_argument, NULL, 's'},
		{"min-time", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	*op = (struct options){"conf/default.ini", SICONOS_MAX_SWEEPS, 0.05};
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:s:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': op->config = optarg; break;
		case 's':
			op->max_sweeps = strtoull(optarg, &end, 10);
			if (*end || !*optarg || *optarg == '-' ||
			    op->max_sweeps < 1) {
				fprintf(stderr, "siconos_compare: --max-sweeps: expected an integer >= 1, found '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 't':
			op->min_time = strtod(optarg, &end);
			if (*end || !*optarg || !(op->min_time >= 0) ||
			    !isfinite(op->min_time)) {
				fprintf(stderr, "siconos_compare: --min-time: expected seconds >= 0, found '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default:
			fprintf(stderr, "siconos_compare: bad option '%s' (try --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "siconos_compare: expected at least one PROBLEM file (try --help)\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options op;
	struct px_config *cfg = NULL;
	struct px_solver_settings *set;
	struct px_error err = {0};
	struct problem *probs = NULL;
	SolverOptions *eso = NULL;
	int n = 0, status = EXIT_BAD_INPUT;

	if (parse(argc, argv, &op))
		return EXIT_BAD_INPUT;
	if (px_config_read(op.config, &cfg, &err)) {
		fprintf(stderr, "siconos_compare: %s\n", err.msg);
		return EXIT_BAD_INPUT;
	}
	set = px_config_settings_mut(cfg);
	set->merit = PX_MERIT_FC3D;
	set->abs_tol = TOL;
	set->max_sweeps = op.max_sweeps;
	/* Read every file before solving any: a bad one fails at once. */
	probs = calloc((size_t)(argc - optind), sizeof *probs);
	eso = solver_options_create(SICONOS_FRICTION_3D_NSGS);
	if (!probs || !eso) {
		fprintf(stderr, "siconos_compare: out of memory\n");
		goto out;
	}
	for (int i = optind; i < argc; i++, n++)
		if (problem_read(argv[i], &probs[n])) {
			n++; /* free what was read of it */
			goto out;
		}
	print_settings(&op, cfg);
	for (int i = 0; i < n; i++)
		if (compare(&probs[i], &op, cfg, eso))
			goto out;
	status = EXIT_OK;
out:
	for (int i = 0; i < n; i++)
		problem_free(&probs[i]);
	free(probs);
	if (eso)
		solver_options_delete(eso);
	px_config_free(cfg);
	return status;
}
