/* bench/profiles: Dolan-More performance profiles of proxima configs and
 * Siconos numerics solvers on a set of problem files (issue 20), each
 * solver's measurement on each problem in a child process of its own
 * (issue 33, child.c).
 *
 *   profiles [--config NAME=PATH]... [--tol T]... [--time-limit S]
 *            [--min-time S] [--max-sweeps N] [--mem-limit GIB]
 *            [--margin S] [--plot PREFIX] FILE...
 *
 * Every solver starts from r = 0 and stops at Siconos's fc3d error T
 * (../shared/problems/README.md sec. 3.2; default: 1e-8 and 1e-4):
 * proxima's configs with [solver] overridden to merit = fc3d, abs_tol = T
 * and max_sweeps = N; Siconos through fc3d_driver: NSGS at its defaults
 * (its local solver is the exact one, ONECONTACT_NSN_GP_HYBRID), NSGS with
 * the projection on the cone with local iterations as its local solver,
 * PROX (proximal point with an inner Alart-Curnier Newton) and NSN-AC
 * (Alart-Curnier nonsmooth Newton), NSGS at most N sweeps, PROX and NSN-AC
 * at their own iteration caps; proxima's with [solver] time_limit = the
 * time limit too, which stops them between sweeps or Newton steps. Each
 * measurement runs in a forked child with RLIMIT_AS = --mem-limit GiB
 * (default 4; 0: none), killed when it runs past the time limit (or --min-time)
 * by --margin seconds (default 1): a peer solver that never returns or
 * blows up loses that problem only. A solve counts as solved when the
 * solver says so, the fc3d error of its answer (px_merit_fc3d, the same
 * for every solver) is at most T and it took at most the time limit:
 * never a converged status above the tolerance. A killed child, one out
 * of memory or one that crashed is not solved, and its row says why
 * (time, memory, crash; "not converged" for a solve that ended short of
 * T). Times are wall time of the solver call, averaged over as many
 * solves as add up to --min-time. With --rounds R (default 1) each
 * problem's solvers are measured R times in turn, one child each, and a
 * solver's row is its round of median time: a slow spell of a shared
 * machine (seconds long, here up to 1.8x on a 10 us solve) then falls on
 * every solver's rounds alike instead of on whichever ran during it.
 *
 * Output: per tolerance, one row per problem and solver (solved, why not,
 * sweeps or iterations, rejected sweeps for proxima, time, final error,
 * the child's wall time and peak resident memory), the longest child
 * against the limit plus the margin, then the
 * profile: for tau from 1 to 1000, the fraction of problems each solver
 * solved within tau times the best time on that problem. With --plot,
 * PREFIX-TOL.dat (tau, then one column per solver) and PREFIX.gp, a
 * gnuplot script drawing them (log tau) into PREFIX-TOL.png. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <proxima/proxima.h>

#include "child.h"
#include "common.h"

#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NonSmoothDrivers.h>
#include <SolverOptions.h>
#include <unistd.h>

#define MAX_SOLVERS 16
#define MAX_TOLS 4

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 2 };

struct solver {
	const char *name;
	struct px_config *cfg; /* proxima, or NULL */
	int sc_id, sc_local;   /* Siconos solver and local solver (0: its
				  default) */
};

struct problem {
	const char *path;
	struct px_problem *px;
	FrictionContactProblem *sc;
};

struct result {
	int solved, converged;
	int timed_out; /* proxima's solve ended on its time limit */
	int why;       /* enum child_why of its child */
	uint64_t iterations, rejected;
	double seconds, error;
	double wall, peak_mib, killed_at; /* the child's (child_report) */
};

struct options {
	double tol[MAX_TOLS];
	int n_tol;
	double time_limit, min_time, mem_gib, margin;
	long max_sweeps, rounds;
	const char *plot;
};

static int problem_read(const char *path, struct problem *p)
{
	struct px_error err = {0};
	FILE *f;

	memset(p, 0, sizeof *p);
	p->path = path;
	if (px_problem_read(path, &p->px, PX_FCLIB_R_NONE, NULL, &err)) {
		fprintf(stderr, "profiles: %s\n", err.msg);
		return -1;
	}
	if (px_problem_block_size(p->px) != 3) {
		fprintf(stderr, "profiles: %s: expected 3 rows per contact\n",
			path);
		return -1;
	}
	/* proxima has checked the file: Siconos's reader reports nothing.
	 * Debian's Siconos is built without FCLib: an FCLib file reaches it
	 * as the .dat (sparse blocks, %.17g, bit for bit) proxima writes of
	 * the same problem. */
	if (px_file_format_of_file(path) == PX_FILE_FCLIB) {
		char tmp[] = "/tmp/px_profiles_XXXXXX";
		const int fd = mkstemp(tmp);

		if (fd < 0 || px_dat_write(tmp, p->px, &err)) {
			fprintf(stderr, "profiles: %s: %s\n", path,
				fd < 0 ? "cannot make a temporary file"
				       : err.msg);
			if (fd >= 0) {
				close(fd);
				unlink(tmp);
			}
			return -1;
		}
		close(fd);
		f = fopen(tmp, "r");
		unlink(tmp);
	} else {
		f = fopen(path, "r");
	}
	if (f) {
		p->sc = frictionContact_newFromFile(f);
		fclose(f);
	}
	if (!p->sc || p->sc->dimension != 3 ||
	    (size_t)p->sc->numberOfContacts != px_problem_n_contacts(p->px)) {
		fprintf(stderr,
			"profiles: %s: Siconos did not read a 3D problem of %zu contacts\n",
			path, px_problem_n_contacts(p->px));
		return -1;
	}
	return 0;
}

static void problem_free(struct problem *p)
{
	px_problem_destroy(p->px);
	if (p->sc)
		frictionContactProblem_free(p->sc);
}

/* One solve from zero into r; fills iterations, converged, rejected and
 * timed_out, and *seconds (the solver call's wall time). Returns CHILD_OK,
 * or CHILD_MEMORY or CHILD_ERROR on an error (printed). */
static int solve_once(const struct solver *s, const struct problem *p,
		      double tol, const struct options *op, double *r,
		      double *u, struct result *res, double *seconds)
{
	const size_t m = 3 * px_problem_n_contacts(p->px);
	double t0;

	memset(r, 0, m * sizeof *r);
	if (s->cfg) {
		struct px_solver_settings *set =
			px_config_settings_mut(s->cfg);
		struct px_report rep;
		struct px_error err = {0};
		int rc;

		set->merit = PX_MERIT_FC3D;
		set->abs_tol = tol;
		set->max_sweeps = (uint64_t)op->max_sweeps;
		set->time_limit = op->time_limit;
		t0 = bench_now();
		rc = px_solve(p->px, s->cfg, r, &rep, &err);
		t0 = bench_now() - t0;
		if (rc) {
			fprintf(stderr, "profiles: %s: %s: %s\n",
				bench_base_name(p->path), s->name, err.msg);
			return rc == PX_ERR_NOMEM ? CHILD_MEMORY : CHILD_ERROR;
		}
		res->iterations = rep.sweeps;
		res->rejected = rep.rejected;
		res->converged = rep.converged;
		res->timed_out = rep.stop == PX_STOP_TIME_LIMIT;
		px_report_free(&rep);
	} else {
		SolverOptions *so = solver_options_create(s->sc_id);
		int info;

		if (!so)
			return CHILD_MEMORY;
		if (s->sc_local)
			solver_options_update_internal(so, 0, s->sc_local);
		so->dparam[SICONOS_DPARAM_TOL] = tol;
		/* the Newton methods keep their own iteration caps; NSGS
		 * evaluates the full error after every sweep (as
		 * bench/siconos_compare) */
		if (s->sc_id == SICONOS_FRICTION_3D_NSGS) {
			so->iparam[SICONOS_IPARAM_MAX_ITER] = (int)op->max_sweeps;
			so->iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION] =
				SICONOS_FRICTION_3D_NSGS_ERROR_EVALUATION_FULL;
			so->iparam[SICONOS_FRICTION_3D_IPARAM_ERROR_EVALUATION_FREQUENCY] =
				0;
		}
		memset(u, 0, m * sizeof *u);
		t0 = bench_now();
		info = fc3d_driver(p->sc, r, u, so);
		t0 = bench_now() - t0;
		res->iterations = (uint64_t)so->iparam[SICONOS_IPARAM_ITER_DONE];
		res->rejected = 0;
		res->converged = info == 0;
		solver_options_delete(so);
	}
	*seconds = t0;
	return CHILD_OK;
}

/* What a child measures: one solver on one problem at one tolerance. */
struct job {
	const struct solver *s;
	const struct problem *p;
	double tol;
	const struct options *op;
	double *r, *u;
};

/* A job's measurement, in its child (child_fn): the solve repeated until
 * --min-time (or the time limit) is used up, its answer's error. */
static int measure(void *ctx, void *out)
{
	const struct job *j = ctx;
	struct result *res = out;
	double total = 0.0, t = 0.0;
	int runs = 0;

	do {
		const int why = solve_once(j->s, j->p, j->tol, j->op, j->r,
					   j->u, res, &t);

		if (why != CHILD_OK)
			return why;
		total += t;
		runs++;
	} while (total < j->op->min_time && total < j->op->time_limit);
	res->seconds = total / runs;
	res->error = px_merit_fc3d(j->p->px, j->r, NULL);
	return CHILD_OK;
}

/* The job in a child of its own, capped at the time limit (or --min-time)
 * plus the margin and at --mem-limit; its verdict into res. Returns -1
 * when no child could be started. */
static int measure_in_child(const struct job *j, struct result *res)
{
	const struct options *op = j->op;
	const struct child_caps caps = {
		fmax(op->time_limit, op->min_time) + op->margin, op->mem_gib};
	struct child_report cr;

	memset(res, 0, sizeof *res);
	if (child_run(measure, (void *)j, res, sizeof *res, &caps, &cr)) {
		fprintf(stderr, "profiles: cannot start a child process\n");
		return -1;
	}
	res->why = cr.why;
	res->wall = cr.seconds;
	res->peak_mib = cr.peak_mib;
	res->killed_at = cr.killed_at;
	if (cr.why != CHILD_OK) {
		res->seconds = cr.seconds;
		res->error = NAN;
	}
	res->solved = cr.why == CHILD_OK && res->converged &&
		      res->error <= j->tol && res->seconds <= op->time_limit;
	return 0;
}

/* Why a result is not solved: its child's end, or its own. */
static const char *why_not(const struct result *x, double time_limit)
{
	if (x->solved)
		return "-";
	if (x->why != CHILD_OK)
		return child_why_name(x->why);
	return x->timed_out || x->seconds > time_limit ? "time"
						       : "not converged";
}

static const double taus[] = {1,  1.5, 2,   3,   5,   10,
			      20, 50,  100, 200, 500, 1000};
#define N_TAUS (sizeof taus / sizeof *taus)

/* rho[s][t]: the fraction of problems solver s solved within taus[t]
 * times the best time of any solver on that problem. */
static void profile(const struct result *res, size_t np, size_t ns,
		    double rho[][N_TAUS])
{
	for (size_t s = 0; s < ns; s++)
		for (size_t t = 0; t < N_TAUS; t++)
			rho[s][t] = 0.0;
	for (size_t p = 0; p < np; p++) {
		double best = HUGE_VAL;

		for (size_t s = 0; s < ns; s++)
			if (res[p * ns + s].solved)
				best = fmin(best, res[p * ns + s].seconds);
		for (size_t s = 0; s < ns; s++) {
			const struct result *x = &res[p * ns + s];

			for (size_t t = 0; t < N_TAUS && x->solved; t++)
				rho[s][t] += x->seconds <= taus[t] * best;
		}
	}
	for (size_t s = 0; s < ns; s++)
		for (size_t t = 0; t < N_TAUS; t++)
			rho[s][t] /= (double)np;
}

static void print_tol(double tol, const struct problem *pr, size_t np,
		      const struct solver *sv, size_t ns,
		      const struct result *res, const struct options *op)
{
	double rho[MAX_SOLVERS][N_TAUS];
	const double cap = fmax(op->time_limit, op->min_time) + op->margin;
	size_t longest = 0, killed = 0;
	double last_kill = 0.0;

	printf("\n## fc3d error %g, time limit %g s per solve\n\n", tol,
	       op->time_limit);
	printf("| problem | solver | solved | why not | iterations | rejected | seconds | final fc3d | child s | child MiB |\n");
	printf("|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t p = 0; p < np; p++)
		for (size_t s = 0; s < ns; s++) {
			const struct result *x = &res[p * ns + s];
			char rej[32] = "-", err[32] = "-";

			if (sv[s].cfg && x->why == CHILD_OK)
				snprintf(rej, sizeof rej, "%llu",
					 (unsigned long long)x->rejected);
			if (x->why == CHILD_OK)
				snprintf(err, sizeof err, "%.3e", x->error);
			printf("| %s | %s | %s | %s | %llu | %s | %.3g | %s | %.3f | %.0f |\n",
			       bench_base_name(pr[p].path), sv[s].name,
			       x->solved ? "yes" : "no",
			       why_not(x, op->time_limit),
			       (unsigned long long)x->iterations, rej,
			       x->seconds, err, x->wall, x->peak_mib);
			if (x->wall > res[longest].wall)
				longest = p * ns + s;
			killed += x->why == CHILD_TIME;
			last_kill = fmax(last_kill, x->killed_at);
		}
	printf("\nlongest child: %.3f s (%s, %s); cap %.3f s (time limit %g s + margin %g s): %zu of %zu children killed at it",
	       res[longest].wall, bench_base_name(pr[longest / ns].path),
	       sv[longest % ns].name, cap, op->time_limit, op->margin,
	       killed, np * ns);
	if (killed)
		printf(", the latest SIGKILL sent at %.3f s", last_kill);
	printf("\n");
	profile(res, np, ns, rho);
	printf("\nperformance profile (fraction of %zu problems solved within tau x the best time)\n\n| tau |",
	       np);
	for (size_t s = 0; s < ns; s++)
		printf(" %s |", sv[s].name);
	printf("\n|---:|");
	for (size_t s = 0; s < ns; s++)
		printf("---:|");
	printf("\n");
	for (size_t t = 0; t < N_TAUS; t++) {
		printf("| %g |", taus[t]);
		for (size_t s = 0; s < ns; s++)
			printf(" %.3f |", rho[s][t]);
		printf("\n");
	}
	if (op->plot) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof path, "%s-%g.dat", op->plot, tol);
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "profiles: %s: cannot write\n", path);
			return;
		}
		fprintf(f, "# tau");
		for (size_t s = 0; s < ns; s++)
			fprintf(f, " %s", sv[s].name);
		fprintf(f, "\n");
		for (size_t t = 0; t < N_TAUS; t++) {
			fprintf(f, "%g", taus[t]);
			for (size_t s = 0; s < ns; s++)
				fprintf(f, " %.6f", rho[s][t]);
			fprintf(f, "\n");
		}
		fclose(f);
	}
}

static void write_gnuplot(const struct options *op, const struct solver *sv,
			  size_t ns)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s.gp", op->plot);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "profiles: %s: cannot write\n", path);
		return;
	}
	fprintf(f, "# performance profiles written by bench/profiles\n"
		   "set terminal pngcairo size 800,500\nset logscale x\n"
		   "set xrange [1:1000]\nset yrange [0:1.05]\n"
		   "set xlabel 'tau (time / best time)'\n"
		   "set ylabel 'fraction of problems solved'\n"
		   "set key bottom right\n");
	for (int i = 0; i < op->n_tol; i++) {
		fprintf(f, "set output '%s-%g.png'\nset title 'fc3d error %g'\nplot",
			op->plot, op->tol[i], op->tol[i]);
		for (size_t s = 0; s < ns; s++)
			fprintf(f, "%s '%s-%g.dat' using 1:%zu with steps lw 2 title '%s'",
				s ? ", \\\n     " : " ", op->plot, op->tol[i],
				s + 2, sv[s].name);
		fprintf(f, "\n");
	}
	fclose(f);
}

static int by_seconds(const void *a, const void *b)
{
	const double x = ((const struct result *)a)->seconds;
	const double y = ((const struct result *)b)->seconds;

	return (x > y) - (x < y);
}

/* Problem p's solvers at tol, op->rounds times in turn, into out[ns]:
 * each solver's round of median time (the lower middle one of an even
 * count), kept whole so that its row stays one measurement. tmp holds
 * rounds * ns results. Returns 0, or 1 when no child could be started. */
static int measure_problem(const struct solver *sv, size_t ns,
			   const struct problem *p, double tol,
			   const struct options *op, double *r, double *u,
			   struct result *tmp, struct result *out)
{
	const size_t R = (size_t)op->rounds;

	for (size_t k = 0; k < R; k++)
		for (size_t s = 0; s < ns; s++) {
			const struct job j = {&sv[s], p, tol, op, r, u};
			const struct result *x = &tmp[s * R + k];

			if (measure_in_child(&j, &tmp[s * R + k]))
				return 1;
			fprintf(stderr, "profiles: %g %s %s: %.4f s%s%s%s\n", tol,
				bench_base_name(p->path), sv[s].name,
				x->seconds, x->solved ? "" : " (not solved: ",
				x->solved ? "" : why_not(x, op->time_limit),
				x->solved ? "" : ")");
		}
	for (size_t s = 0; s < ns; s++) {
		qsort(&tmp[s * R], R, sizeof *tmp, by_seconds);
		out[s] = tmp[s * R + (R - 1) / 2];
	}
	return 0;
}

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: profiles [--config NAME=PATH]... [--tol T]... [--time-limit S]\n"
		"                [--min-time S] [--max-sweeps N] [--mem-limit GIB]\n"
		"                [--margin S] [--rounds R] [--plot PREFIX] FILE...\n");
}

/* NAME=PATH into a solver. */
static int add_config(struct solver *sv, size_t *ns, char *arg)
{
	char *eq = strchr(arg, '=');
	struct px_error err = {0};

	if (!eq || eq == arg || *ns >= MAX_SOLVERS) {
		fprintf(stderr, "profiles: --config %s: expected NAME=PATH (at most %d solvers)\n",
			arg, MAX_SOLVERS);
		return -1;
	}
	*eq = '\0';
	if (px_config_read(eq + 1, &sv[*ns].cfg, &err)) {
		fprintf(stderr, "profiles: %s\n", err.msg);
		return -1;
	}
	sv[*ns].name = arg;
	(*ns)++;
	return 0;
}

static int parse(int argc, char **argv, struct options *op,
		 struct solver *sv, size_t *ns)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"tol", required_argument, NULL, 'e'},
		{"time-limit", required_argument, NULL, 'l'},
		{"min-time", required_argument, NULL, 't'},
		{"max-sweeps", required_argument, NULL, 's'},
		{"mem-limit", required_argument, NULL, 'm'},
		{"margin", required_argument, NULL, 'g'},
		{"plot", required_argument, NULL, 'p'},
		{"rounds", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	char *end;

	*op = (struct options){{0}, 0, 10.0, 0.05, 4.0, 1.0, 100000, 1, NULL};
	while ((c = getopt_long(argc, argv, "c:e:l:t:s:m:g:p:r:h", longopts,
				NULL)) != -1) {
		double v = 0.0;

		if (c && strchr("eltsmgr", c)) {
			v = strtod(optarg, &end);
			if (end == optarg || *end || !(v >= 0.0) ||
			    !isfinite(v)) {
				fprintf(stderr, "profiles: '%s' is not a non-negative number\n",
					optarg);
				return -1;
			}
		}
		switch (c) {
		case 'c':
			if (add_config(sv, ns, optarg))
				return -1;
			break;
		case 'e':
			if (op->n_tol >= MAX_TOLS || !(v > 0.0)) {
				fprintf(stderr, "profiles: --tol: at most %d positive tolerances\n",
					MAX_TOLS);
				return -1;
			}
			op->tol[op->n_tol++] = v;
			break;
		case 'l':
			if (!(v > 0.0)) {
				fprintf(stderr, "profiles: --time-limit: expected seconds > 0\n");
				return -1;
			}
			op->time_limit = v;
			break;
		case 'm': op->mem_gib = v; break;
		case 'g': op->margin = v; break;
		case 't': op->min_time = v; break;
		case 's': op->max_sweeps = v >= 1 ? (long)v : 1; break;
		case 'p': op->plot = optarg; break;
		case 'r':
			if (!(v >= 1.0 && v <= 99.0) || v != floor(v)) {
				fprintf(stderr, "profiles: --rounds: expected a whole number from 1 to 99\n");
				return -1;
			}
			op->rounds = (long)v;
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: usage(stderr); return -1;
		}
	}
	if (op->n_tol == 0) {
		op->tol[op->n_tol++] = 1e-8;
		op->tol[op->n_tol++] = 1e-4;
	}
	if (optind >= argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct solver sv[MAX_SOLVERS] = {{0}};
	struct options op;
	struct problem *pr;
	struct result *res, *rounds;
	size_t ns = 0, np, mmax = 0;
	double *r, *u;
	int rc = EXIT_OK;

	if (parse(argc, argv, &op, sv, &ns))
		return EXIT_BAD_INPUT;
	sv[ns++] = (struct solver){"sc-nsgs", NULL, SICONOS_FRICTION_3D_NSGS, 0};
	sv[ns++] = (struct solver){
		"sc-nsgs-pli", NULL, SICONOS_FRICTION_3D_NSGS,
		SICONOS_FRICTION_3D_ONECONTACT_ProjectionOnConeWithLocalIteration};
	sv[ns++] = (struct solver){"sc-prox", NULL, SICONOS_FRICTION_3D_PROX, 0};
	sv[ns++] = (struct solver){"sc-nsn-ac", NULL,
				   SICONOS_FRICTION_3D_NSN_AC, 0};
	np = (size_t)(argc - optind);
	pr = calloc(np, sizeof *pr);
	res = calloc(np * ns * (size_t)op.n_tol, sizeof *res);
	if (!pr || !res)
		return 1;
	for (size_t p = 0; p < np; p++) {
		if (problem_read(argv[optind + (int)p], &pr[p]))
			return EXIT_BAD_INPUT;
		mmax = mmax > 3 * px_problem_n_contacts(pr[p].px)
			       ? mmax
			       : 3 * px_problem_n_contacts(pr[p].px);
	}
	r = calloc(mmax + 1, sizeof *r);
	u = calloc(mmax + 1, sizeof *u);
	rounds = calloc((size_t)op.rounds * ns, sizeof *rounds);
	if (!r || !u || !rounds)
		return 1;
	printf("# bench/profiles: %zu problems, %zu solvers, max %ld sweeps or iterations, from r = 0",
	       np, ns, op.max_sweeps);
	if (op.rounds > 1)
		printf("; each time the median of %ld rounds, the solvers in turn",
		       op.rounds);
	printf("\n");
	for (int i = 0; i < op.n_tol && rc == EXIT_OK; i++) {
		struct result *ri = res + (size_t)i * np * ns;

		for (size_t p = 0; p < np && rc == EXIT_OK; p++)
			rc = measure_problem(sv, ns, &pr[p], op.tol[i], &op, r, u,
					     rounds, &ri[p * ns]);
		if (rc == EXIT_OK)
			print_tol(op.tol[i], pr, np, sv, ns, ri, &op);
	}
	if (rc == EXIT_OK && op.plot)
		write_gnuplot(&op, sv, ns);
	for (size_t p = 0; p < np; p++)
		problem_free(&pr[p]);
	for (size_t s = 0; s < ns; s++)
		px_config_free(sv[s].cfg);
	free(pr);
	free(res);
	free(r);
	free(u);
	free(rounds);
	return rc;
}
