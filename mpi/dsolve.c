/* The distributed solve loop (issue 21): rounds of E local sweeps through
 * the rank's kept px_solver (its config and plugins), each followed by the
 * exchange with the neighbours; every K rounds one reduction of a few
 * numbers per rank (reduce.c) decides, identically on every rank, whether the whole
 * problem has converged (the fc3d error's products with A only when the
 * stop test or the report needs them). A round touches only the coupled
 * contacts outside the solve: their rows of the start, their b. Sums over
 * ranks are taken over a fixed binomial tree in rank order, so a run is
 * bit-identical to the next with the same number of ranks. A rank with no coupling anywhere (one
 * rank, or parts that share nothing) runs px_solve once with the whole
 * budget: with one rank that is the serial solve, bit for bit. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

int px_dist_agree(int rc, struct px_error *err)
{
	int rank, size, first, code = rc;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	first = rc ? rank : size;
	MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == size)
		return PX_OK;
	MPI_Bcast(&code, 1, MPI_INT, first, MPI_COMM_WORLD);
	MPI_Bcast(err->msg, sizeof err->msg, MPI_CHAR, first, MPI_COMM_WORLD);
	err->code = code;
	return code;
}

/* Per rank, reduced at a global test. */
enum { S_F2, S_Q2, S_R2, S_V2, S_DELTA, S_LINF, S_FAILED, S_CONV, S_N };

/* The rank's stats: the change and size of lambda, and with full the
 * parts of the fc3d error (two products with A: a global test computes
 * them only when its stop test or its report needs them). */
static void local_stats(struct px_dist_part *d, const double *lambda,
			const double *lambda_old, double *y, int full,
			double s[S_N])
{
	const size_t m = d->n_own * d->bs;
	double fabs_ = 0;

	for (int i = 0; i < S_FAILED; i++)
		s[i] = 0;
	if (!d->p)
		return;
	for (size_t i = 0; i < m; i++) {
		double dl = fabs(lambda[i] - lambda_old[i]);

		if (dl > s[S_DELTA])
			s[S_DELTA] = dl;
		if (fabs(lambda[i]) > s[S_LINF])
			s[S_LINF] = fabs(lambda[i]);
	}
	if (!full)
		return;
	px_merit_fc3d(d->p, lambda, &fabs_);
	s[S_F2] = fabs_ * fabs_;
	px_problem_apply(d->p, lambda, y, 1);
	for (size_t i = 0; i < m; i++)
		if (i % d->bs < 3) { /* fc3d's (n, s, t) rows */
			s[S_Q2] += d->b0[i] * d->b0[i];
			s[S_R2] += lambda[i] * lambda[i];
			s[S_V2] += y[i] * y[i];
		}
}

/* The global test's fold: sums, and maxima of the change and of |lambda|. */
static void fold_stats(double *acc, const double *next, int n)
{
	(void)n;
	acc[S_F2] += next[S_F2];
	acc[S_Q2] += next[S_Q2];
	acc[S_R2] += next[S_R2];
	acc[S_V2] += next[S_V2];
	acc[S_FAILED] += next[S_FAILED];
	acc[S_CONV] += next[S_CONV];
	acc[S_DELTA] = fmax(acc[S_DELTA], next[S_DELTA]);
	acc[S_LINF] = fmax(acc[S_LINF], next[S_LINF]);
}

/* Every rank's stats reduced in a fixed order, on every rank. */
static void global_stats(const double mine[S_N], double g[S_N])
{
	memcpy(g, mine, S_N * sizeof *g);
	px_dist_tree_allreduce(g, S_N, fold_stats);
}

static double fc3d_of(const double g[S_N])
{
	double den = fmax(sqrt(g[S_Q2]), fmax(sqrt(g[S_R2]), sqrt(g[S_V2])));

	return den > 0 ? sqrt(g[S_F2]) / den : sqrt(g[S_F2]);
}

/* Whether the change passes the tolerances of a delta merit: the stop
 * test then asks the fc3d error too. */
static int delta_passes(const struct px_solver_settings *s, const double g[S_N])
{
	return g[S_DELTA] <= s->abs_tol || g[S_DELTA] <= s->rel_tol * g[S_LINF];
}

/* The configured stop test on the global numbers (fc3d's among them). fc3d
 * is its own certificate; the others must also bring fc3d below
 * check_tol. */
static int stop(const struct px_solver_settings *s, const double g[S_N])
{
	double fc3d = fc3d_of(g);

	if (s->merit == PX_MERIT_FC3D)
		return fc3d <= s->abs_tol;
	return delta_passes(s, g) && fc3d <= s->check_tol;
}

/* No coupling anywhere: each rank solves its part once, through px_solve
 * (sv NULL) or the kept solver *sv (made at its first solve): resumed
 * from where its last solve left lambda, or solved from lambda. */
static int solve_alone(struct px_dist_part *d, struct px_config *cfg,
		       double *lambda, double *y, struct px_dist_result *res,
		       struct px_error *err, int size, struct px_solver **sv,
		       int resume)
{
	struct px_report rep = {0};
	double mine[S_N], g[S_N];
	int rc = PX_OK;

	if (d->p) {
		double t1 = MPI_Wtime();

		if (!sv)
			rc = px_solve(d->p, cfg, lambda, &rep, err);
		else if (!*sv && (rc = px_solver_create(d->p, cfg, sv, err)))
			;
		else if (resume)
			rc = px_solver_resume(*sv, lambda, &rep, err);
		else
			rc = px_solver_solve(*sv, lambda, &rep, err);
		res->solve_seconds = MPI_Wtime() - t1;
		res->sweeps = rep.sweeps;
		res->rejected = rep.rejected;
		res->prepare_seconds = rep.prepare_seconds;
		res->delta = rep.residual;
	}
	rc = px_dist_agree(rc, err);
	if (rc) {
		px_report_free(&rep);
		return rc;
	}
	local_stats(d, lambda, lambda, y, 1, mine);
	mine[S_DELTA] = d->p ? rep.residual : 0;
	mine[S_FAILED] = 0;
	mine[S_CONV] = !d->p || rep.converged;
	global_stats(mine, g);
	/* every rank's sweeps are its own; report the most */
	double most = (double)res->sweeps;

	MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	res->sweeps = (uint64_t)most;
	res->converged = g[S_CONV] == size;
	res->fc3d = fc3d_of(g);
	res->fc3d_abs = sqrt(g[S_F2]);
	if (size > 1)
		res->delta = g[S_DELTA];
	res->checks = 1;
	px_report_free(&rep);
	return PX_OK;
}

/* to <- from: every row (all), or those of the coupled contacts. */
static void keep_start(const struct px_dist_part *d, const double *from,
		       double *to, int all)
{
	const uint32_t bs = d->bs;

	if (all) {
		memcpy(to, from, d->n_own * bs * sizeof *to);
		return;
	}
	for (size_t j = 0; j < d->n_coupled; j++)
		memcpy(to + (size_t)d->coupled[j] * bs,
		       from + (size_t)d->coupled[j] * bs, bs * sizeof *to);
}

static void push_history(struct px_dist_result *res, double v)
{
	double *h = realloc(res->history, (res->n_history + 1) * sizeof *h);

	if (h) {
		res->history = h;
		h[res->n_history++] = v;
	}
}

int px_dist_solve(struct px_dist_part *d, struct px_config *cfg,
		  const struct px_dist_opts *o, double *lambda,
		  struct px_dist_result *res, struct px_error *err)
{
	struct px_solver_settings *s = px_config_settings_mut(cfg);
	const struct px_solver_settings saved = *s;
	const size_t m = d->n_own * d->bs;
	double *old = malloc((m + 1) * sizeof *old);
	double *y = malloc((m + 1) * sizeof *y);
	double mine[S_N], g[S_N];
	int size, linked = d->n_links > 0, rc = PX_OK, failed = 0, any[2] = {0, 0};
	double t0 = MPI_Wtime();
	struct px_solver *sv = NULL; /* the rank's part's, across rounds */

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	*res = (struct px_dist_result){0};
	if (!old || !y || px_dist_find_coupled(d))
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the solve");
	rc = px_dist_agree(rc, err);
	if (rc)
		goto done;
	/* one reduction: whether some rank is coupled, some rank warm */
	any[0] = linked;
	for (size_t i = 0; i < m && !any[1]; i++)
		any[1] = lambda[i] != 0.0;
	MPI_Allreduce(MPI_IN_PLACE, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	res->coupled = linked = any[0];
	if (!linked) {
		rc = solve_alone(d, cfg, lambda, y, res, err, size, NULL, 0);
		goto done;
	}
	if (any[1]) {
		/* the shared bodies' copies start from what the warm start
		 * does to them: one exchange of its change from zero */
		memset(old, 0, m * sizeof *old);
		rc = px_dist_exchange(d, old, lambda, &res->traffic);
		if (rc)
			px_error_set(err, rc, "the exchange with the neighbouring ranks failed");
		rc = px_dist_agree(rc, err);
		if (rc)
			goto done;
	}
	px_dist_update_b(d, lambda);
	/* a round runs its E sweeps with the change as its only merit and no
	 * tolerance: the global test decides, and the part's own fc3d error
	 * after every local sweep (two products with A) would double a
	 * sweep's cost for nothing (issue 36: seen in simulation) */
	s->merit = PX_MERIT_DELTA;
	s->abs_tol = 0;
	s->rel_tol = 0;
	while (res->sweeps < saved.max_sweeps) {
		uint64_t e = o->sweeps_per_exchange;
		struct px_report rep = {0};
		int check, full;

		if (e > saved.max_sweeps - res->sweeps)
			e = saved.max_sweeps - res->sweeps;
		s->max_sweeps = e;
		/* the round's start: what the exchange reads of it (the coupled
		 * contacts' rows), all of it before a global test (its delta) */
		check = (res->exchanges + 1) % o->check_every == 0 ||
			res->sweeps + e >= saved.max_sweeps;
		keep_start(d, lambda, old, check);
		double t1 = MPI_Wtime(), t2;

		if (d->p && !failed) {
			/* b changes from round to round, A does not; each
			 * round resumes where the last one stopped, with no
			 * pass to check it (the first computes the body
			 * velocities) */
			if ((!sv && px_solver_create(d->p, cfg, &sv, err)) ||
			    px_solver_resume(sv, lambda, &rep, err)) {
				failed = 1; /* told to all at the next test */
				keep_start(d, old, lambda, check);
			}
			res->prepare_seconds += rep.prepare_seconds;
			px_report_free(&rep);
		}
		res->sweeps += e;
		t2 = MPI_Wtime();
		res->solve_seconds += t2 - t1;
		rc = px_dist_exchange(d, old, lambda, &res->traffic);
		res->exchange_seconds += MPI_Wtime() - t2;
		if (rc) {
			failed = 1;
			px_error_set(err, rc, "the exchange with the neighbouring ranks failed");
		}
		res->exchanges++;
		px_dist_update_b(d, lambda);
		if (!check)
			continue;
		t1 = MPI_Wtime();
		full = saved.merit == PX_MERIT_FC3D || res->sweeps >= saved.max_sweeps;
		local_stats(d, lambda, old, y, full, mine);
		mine[S_FAILED] = failed;
		mine[S_CONV] = 0;
		global_stats(mine, g);
		if (!full && g[S_FAILED] == 0 && delta_passes(&saved, g)) {
			full = 1; /* the stop test needs fc3d now */
			local_stats(d, lambda, old, y, full, mine);
			global_stats(mine, g);
		}
		res->checks++;
		res->check_seconds += MPI_Wtime() - t1;
		if (g[S_FAILED] > 0) {
			rc = px_dist_agree(failed ? (err->code ? err->code : PX_ERR_INVALID) : 0, err);
			goto done;
		}
		res->delta = g[S_DELTA];
		if (!full)
			continue;
		res->fc3d = fc3d_of(g);
		res->fc3d_abs = sqrt(g[S_F2]);
		push_history(res, res->fc3d); /* the history is optional */
		if (stop(&saved, g)) {
			res->converged = 1;
			break;
		}
	}
done:
	*s = saved;
	px_solver_destroy(sv);
	res->seconds = MPI_Wtime() - t0;
	free(old);
	free(y);
	return rc;
}

int px_dist_solve_kept(struct px_dist_part *d, struct px_config *cfg,
		       struct px_solver **sv, int resume, double *lambda,
		       struct px_dist_result *res, struct px_error *err)
{
	const size_t m = d->n_own * d->bs;
	double *y = malloc((m + 1) * sizeof *y);
	double t0 = MPI_Wtime();
	int rc = PX_OK;

	*res = (struct px_dist_result){0};
	if (!y)
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the solve");
	rc = px_dist_agree(rc, err);
	if (!rc)
		rc = solve_alone(d, cfg, lambda, y, res, err, 1, sv, resume);
	res->seconds = MPI_Wtime() - t0;
	free(y);
	return rc;
}
