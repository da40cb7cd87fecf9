/* The solve driver: sweeps of the proximal fixed point until a tolerance or
 * a sweep limit, with the rfactor plugin's back-tracking (Erleben 2017,
 * Algorithm 2, sec. 4.2: a sweep whose residual grew is rolled back and R
 * shrunk), and an optional accelerator called between sweeps (Silcowitz et
 * al. 2010, sec. 4.3: PGS sweeps, then subspace steps that may replace the
 * iterate); between sweeps too, the other stops of solver.h: a stall, the
 * caller's monitor, a time limit. doc/design.md, section 4.2 walks through
 * the same stages.
 *
 * The stages, one function each. p is the problem (A, b, mu), lambda the
 * caller's iterate, w the bodies' velocities M^-1 J^T lambda (factorized
 * and rigid forms), r the r-factors and r0 where each solve starts them.
 *
 * Once per solver (px_solver_create; px_solve makes one for its solve):
 *   stage         reads               writes                     function
 *   start         p                   work arrays (p validated,  solve_start
 *                                     its diagonal checked)
 *   kernel        p, friction plugin  diagonal blocks, the       solve_kernel
 *                                     kernel (relax, ...)
 *   view          p, diagonal blocks  the plugins' view          solve_view
 *                                     (px_problem_info)
 *   rfactor       view                r0 (rfactor.init; checked  solve_rfactor
 *                                     finite, > 0)
 *   schedule      kernel              scheduler state            solve_schedule
 *                                     (scheduler.prepare)
 * Every solve (px_solver_solve, px_solver_resume, px_solve):
 *   warm          lambda, r0          w from lambda, r = r0      solve_warm
 *   prepare       view                perm (ordering.prepare;    solve_prepare
 *                                     checked a permutation);
 *                                     the scheduler again if
 *                                     another solver prepared it
 *   accel_prepare view, lambda        the accelerator's host and accel_prepare
 *                                     state (if any)
 *   best_prepare  settings            whether to keep the best   best_prepare
 *                                     iterate, its array
 *   loop until converged, diverged, stalled, max_sweeps, the monitor or
 *   the time limit:
 *     sweep       perm, r, lambda, w  part (ordering.next),      solve_sweep
 *                                     lambda, w, prev (the old
 *                                     lambda), delta
 *     verdict     delta, r            accept, or roll back       solve_verdict
 *                                     (rfactor.adapt: lambda =
 *                                     prev, r shrunk); merit,
 *                                     stop test, certificate
 *     best        lambda, merit       a copy of the lowest-merit keep_best
 *                                     iterate (time_limit > 0)
 *     accel       lambda, merit       lambda replaced or kept    solve_accel
 *                                     (accelerator.step, told
 *                                     the stop test's merit and
 *                                     tol; then best again); its stop
 *                                     between Newton steps
 *                                     (time_left); called again
 *                                     before the next sweep, after
 *                                     go_on, while it sets
 *                                     PX_ACCEL_AGAIN
 *     go_on       report, clock       stop by the monitor or the solve_go_on
 *                                     time limit (the clock's or
 *                                     the accelerator's)
 *   or, for an accelerator that drives the solve (PX_ACCEL_DRIVES), its
 *   steps in place of the sweeps:                                solve_drive
 *   end           lambda              accelerator.finish, memory solve_end
 *                                     figures
 *   best back     best, lambda        on a time limit, lambda =  restore_best
 *                                     the lowest-merit iterate
 * solver_run strings the per-solve stages together, solver_init the
 * per-solver ones; every stage reports a plugin's failure as one error
 * naming the plugin, the op and its message. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <proxima/solver.h>

#include "grow.h"
#include "kernel.h"
#include "merit.h"
#include "check.h"
#include "loader_impl.h"
#include "problem_impl.h"

struct work {
	uint32_t *perm;
	double *r, *prev, *w, *diag;
	double *r0; /* rfactor.init's r, where every solve starts (r itself
		       in a solver for one solve: px_solve's) */
	/* The merit's workspace u = A lambda + b is prev: prev only matters
	 * from the first write of a sweep to its verdict (the kernel fills it
	 * with the iterate before the sweep, whole blocks, every contact), and
	 * u only between a verdict and the next sweep. */
	double *u;
	struct px_kernel_ctx kctx;
};

/* The accelerator's view of A: the problem's product, counted (one
 * product = one sweep equivalent of work). */
struct counted {
	const struct px_problem *p;
	uint64_t products;
};

/* The optional accelerator of a solve. */
struct accel {
	const struct px_plugin *pl;
	const struct px_accelerator_ops *ops; /* NULL: none */
	struct counted cnt;
	struct px_problem_info info; /* the problem with the counted product */
	struct px_accel_host host;
	uint64_t every, since; /* call after `every` accepted sweeps */
	int drives;            /* PX_ACCEL_DRIVES: it runs the solve */
	double *save;          /* lambda before a call */
	size_t cap;            /* of rep->accel */
	int out_of_time;       /* a step stopped on PX_ACCEL_TIME_LIMIT */
	int again;             /* the last step set PX_ACCEL_AGAIN */
	double ended;          /* the clock when the last call ended */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void work_free(struct work *wk)
{
	px_kernel_fini(&wk->kctx);
	free(wk->perm);
	free(wk->r);
	if (wk->r0 != wk->r)
		free(wk->r0);
	free(wk->prev);
	free(wk->w);
	free(wk->diag);
}

static int history_push(struct px_report *rep, size_t *cap,
			const struct px_sweep_record *rec)
{
	/* 16 first: a short solve's history (a substep's one sweep) comes
	 * from malloc's per-thread cache of small blocks */
	struct px_sweep_record *h = px_grow(rep->history, cap, rep->n_history,
					    sizeof *h, 16);

	if (!h)
		return PX_ERR_NOMEM;
	rep->history = h;
	rep->history[rep->n_history++] = *rec;
	return PX_OK;
}

/* Largest change from b to a of the normal and of the friction rows, and
 * the largest |a| (for the relative tolerance), in one pass; all three NaN
 * if some a is not finite. What the kernel's tally gives without a pass. */
static void change(const double *a, const double *b, size_t n, uint32_t bs,
		   double *dn, double *df, double *amax)
{
	struct px_tally_part t = {0};

	for (size_t k = 0; k < n; k++)
		px_tally_block(&t, a + k * bs, b + k * bs, bs);
	if (t.nf != 0.0) {
		*dn = *df = *amax = NAN;
	} else {
		*dn = t.dn;
		*df = t.df;
		*amax = t.amax;
	}
}

static void tally_reset(struct px_tally *t)
{
	atomic_store(&t->dn, 0);
	atomic_store(&t->df, 0);
	atomic_store(&t->amax, 0);
	atomic_store(&t->contacts, 0);
	atomic_store(&t->nonfinite, 0);
}

static double bits_to_double(uint64_t v)
{
	double x;

	memcpy(&x, &v, sizeof x);
	return x;
}

/* change's figures from the kernel's tally of the sweep, if it counted
 * every one of the n contacts (else 0: the sweep went through entry points
 * that do not tally, and change must run). */
static int tally_read(struct px_tally *t, size_t n, double *dn, double *df,
		      double *amax)
{
	if (atomic_load(&t->contacts) != n)
		return 0;
	if (atomic_load(&t->nonfinite)) {
		*dn = *df = *amax = NAN;
	} else {
		*dn = bits_to_double(atomic_load(&t->dn));
		*df = bits_to_double(atomic_load(&t->df));
		*amax = bits_to_double(atomic_load(&t->amax));
	}
	return 1;
}

static void apply_a(const void *ctx, const double *x, double *y, int add_b)
{
	px_problem_apply(ctx, x, y, add_b);
}

static void apply_counted(const void *ctx, const double *x, double *y,
			  int add_b)
{
	struct counted *c = (struct counted *)ctx; /* not const: the driver's */

	c->products++;
	px_problem_apply(c->p, x, y, add_b);
}

static int plugin_error(struct px_error *err, const struct px_plugin *pl,
			const char *what, const char *msg)
{
	const struct px_plugin_header *h = px_plugin_header(pl);

	return px_error_set(err, PX_ERR_PLUGIN, "%s plugin '%s': %s: %s",
			    px_kind_name(h->kind), h->name, what,
			    *msg ? msg : "(no message)");
}

/* The first r-factor that is not finite, or on R's diagonal not > 0 (an r
 * that underflowed to 0 leaves its rows where they are: sweeps that change
 * nothing would pass any stop test); nr when there is none. */
static size_t bad_r(const double *r, size_t nr, uint32_t bs, int block)
{
	for (size_t i = 0; i < nr; i++) {
		const int diag = !block || (i % ((size_t)bs * bs)) % (bs + 1) == 0;

		if (!isfinite(r[i]) || (diag && !(r[i] > 0)))
			return i;
	}
	return nr;
}

/* PX_OK when the ordering po's perm (n entries) is a permutation of the
 * contacts, else its error naming op and the first bad entry. */
static int perm_error(struct px_error *err, const struct px_plugin *po,
		      const char *op, const uint32_t *perm, size_t n,
		      unsigned char *seen)
{
	const size_t bad = px_check_perm(perm, n, seen);
	char msg[160];

	if (bad == n)
		return PX_OK;
	snprintf(msg, sizeof msg,
		 "perm[%zu] = %u is not a contact left unvisited (%zu contacts): the permutation is broken",
		 bad, perm[bad], n);
	return plugin_error(err, po, op, msg);
}

/* The merit of the stop test, other than delta, at lambda. */
static double merit(const struct px_problem *p,
		    const struct px_solver_settings *set, const double *lambda,
		    double *u, const struct px_friction_ops *fr,
		    const void *fstate)
{
	switch (set->merit) {
	case PX_MERIT_NATURAL:
		return px_merit_natural_ws(p, lambda, u, set->natural_r,
					   fr->project, fstate);
	case PX_MERIT_MINMAP:
		return px_merit_minmap_ws(p, lambda, u);
	default:
		return px_merit_fc3d_ws(p, lambda, u, NULL);
	}
}

/* The stop test of a merit other than delta at lambda, after the
 * accelerator replaced it: as after a sweep (certificate included). */
static void stop_test(const struct px_problem *p,
		      const struct px_solver_settings *set,
		      const double *lambda, double *u,
		      const struct px_friction_ops *fr, const void *fstate,
		      struct px_report *rep)
{
	rep->merit = merit(p, set, lambda, u, fr, fstate);
	rep->converged = rep->merit <= set->abs_tol;
	if (rep->converged && set->merit != PX_MERIT_FC3D) {
		rep->check = px_merit_check_ws(p, lambda, u, fr->project, fstate);
		rep->converged = rep->check <= set->check_tol;
		rep->check_failed |= !rep->converged;
	}
}

/* One call of the accelerator (step, or finish at the end of a solve):
 * run it, keep lambda only if finite, bring the kernel's body velocities
 * up to date, evaluate the stop test and record the call. Returns 1 when
 * lambda was replaced, or -1 when the record could not be stored. */
static int accel_call(struct accel *ac, int finish, const struct px_problem *p,
		      const struct px_solver_settings *set, double *lambda,
		      double *u, const struct px_kernel *kern,
		      const struct px_friction_ops *fr, const void *fstate,
		      struct px_report *rep)
{
	const size_t m = p->n * p->bs;
	struct px_accel_result res = {0};
	struct px_accel_record rec, *a;
	double t = now();
	int bad = 0;

	res.merit_in = res.merit_last = res.merit_out = NAN;
	ac->host.merit = rep->merit; /* the last stop test's (ABI 1.11) */
	ac->cnt.products = 0;
	memcpy(ac->save, lambda, m * sizeof *lambda);
	if (finish)
		ac->ops->finish(px_plugin_state(ac->pl), &ac->host, &res);
	else
		ac->ops->step(px_plugin_state(ac->pl), &ac->host, &res);
	/* what counts is whether lambda changed, not what the plugin says */
	res.replaced = memcmp(lambda, ac->save, m * sizeof *lambda) != 0;
	for (size_t i = 0; res.replaced && i < m && !bad; i++)
		bad = !isfinite(lambda[i]);
	if (bad) {
		memcpy(lambda, ac->save, m * sizeof *lambda);
		res.replaced = 0;
		res.flags |= PX_ACCEL_NONFINITE;
	}
	rec = (struct px_accel_record){
		.after_sweep = rep->sweeps,
		.products = ac->cnt.products,
		.inner = res.inner,
		.substeps = res.substeps,
		.flags = res.flags,
		.replaced = res.replaced,
		.finish = finish,
		.merit_in = res.merit_in,
		.merit_last = res.merit_last,
		.merit_out = res.merit_out,
		.merit = NAN,
	};
	if (res.replaced) {
		kern->refresh(kern->ctx, 0, p->n_bodies);
		if (set->merit != PX_MERIT_DELTA) {
			stop_test(p, set, lambda, u, fr, fstate, rep);
			rec.merit = rep->merit;
		}
	}
	ac->ended = now();
	rec.seconds = ac->ended - t;
	if (!finish)
		rep->accel_steps++;
	ac->out_of_time |= !finish && (res.flags & PX_ACCEL_TIME_LIMIT);
	ac->again = !finish && (res.flags & PX_ACCEL_AGAIN);
	rep->accel_replaced += !finish && res.replaced;
	rep->accel_restored |= finish && res.replaced;
	rep->accel_products += rec.products;
	rep->accel_substeps += rec.substeps;
	rep->accel_inner += rec.inner;
	rep->accel_not_spd += (rec.flags & PX_ACCEL_NOT_SPD) != 0;
	rep->accel_fallbacks += (rec.flags & PX_ACCEL_FALLBACK) != 0;
	rep->accel_seconds += rec.seconds;
	a = px_grow(rep->accel, &ac->cap, rep->n_accel, sizeof *a, 16);
	if (!a)
		return -1;
	rep->accel = a;
	rep->accel[rep->n_accel++] = rec;
	return res.replaced;
}

typedef void (*range_fn)(void *ctx, size_t begin, size_t end);
typedef void (*parallel_for_fn)(void *state, size_t n, range_fn body,
				void *ctx);

/* The scheduler's parallel_for, or NULL when it has none (plugins older
 * than ABI 1.6, whose ops struct ends before it). */
static parallel_for_fn parallel_for_op(const struct px_scheduler_ops *s)
{
	const size_t end = offsetof(struct px_scheduler_ops, parallel_for) +
			   sizeof s->parallel_for;

	return s->h.abi_minor >= 6 && s->h.ops_size >= end ? s->parallel_for
							   : NULL;
}

/* body over [0, n), on the scheduler's threads when it offers them. */
static void set_up(const struct px_plugin *ps, size_t n, range_fn body,
		   void *ctx)
{
	const parallel_for_fn pfor =
		parallel_for_op((const void *)px_plugin_header(ps));

	if (pfor)
		pfor(px_plugin_state(ps), n, body, ctx);
	else
		body(ctx, 0, n);
}

struct diag_job {
	const struct px_problem *p;
	double *diag;
};

static void diag_range(void *ctx, size_t begin, size_t end)
{
	const struct diag_job *j = ctx;

	px_problem_diag_blocks(j->p, begin, end, j->diag);
}

static void refresh_range(void *ctx, size_t begin, size_t end)
{
	const struct px_kernel *kern = ctx;

	kern->refresh(kern->ctx, begin, end);
}

static void impulses_range(void *ctx, size_t begin, size_t end)
{
	px_kernel_impulses(ctx, begin, end);
}

static void refresh_rigid_range(void *ctx, size_t begin, size_t end)
{
	px_kernel_refresh_rigid(ctx, begin, end);
}

/* The state of the stages (the table at the top of the file). */
struct solve {
	const struct px_problem *p;
	const struct px_solver_settings *set;
	const struct px_plugin *pf, *po, *pr, *ps, *pa;
	const struct px_friction_ops *fr;
	const struct px_ordering_ops *ord;
	const struct px_rfactor_ops *rf;
	const struct px_scheduler_ops *sch;
	double *lambda;
	struct px_report *rep;
	struct px_error *err;
	size_t m, nr;
	struct px_sweep_state ss;
	double last[3]; /* per part */
	int quiet_n, quiet_f, cold;
	int r_moved; /* r may differ from r0: rfactor.adapt rejected a sweep
			(the only time it may change r, plugin.h) since the
			last solve's start copied r0 */
	struct work wk;
	struct px_tally tally;
	struct accel ac;
	struct px_problem_info info;
	struct px_kernel kern;
	struct px_check chk;   /* check = on: the wrapped friction plugin */
	unsigned char *seen;   /* n bytes: scratch of the permutation check */
	size_t cap;
	char msg[512];
	double t0;
	/* keep (time_limit > 0 and a merit of the iterate, not delta): the
	 * lowest-merit iterate so far in best (m doubles, allocated at the
	 * solver's first such solve), its merit and the sweep after which it
	 * was reached */
	int keep;
	double *best, best_merit;
	uint64_t best_sweep;
	double swept; /* the clock when the last sweep ended (or the
			 accelerator's call after it) */
	uint64_t still; /* accepted sweeps in a row that missed the stop test
			   below the stall floor, none replaced by the
			   accelerator */
	const struct px_config *cfg;
	px_monitor_fn monitor; /* the config's, read at each solve's start */
	void *monitor_user;
	uint64_t id; /* the solver's, for px_plugin_mark_prepared */
	int once;    /* px_solve's solver: one solve, nothing kept for a next */
};

struct px_solver {
	struct solve S;
	double create_prepare; /* create's rfactor.init and scheduler.prepare,
				  reported by the first solve */
	/* lambda at the end of the last solve that succeeded (px_solver_solve
	 * only), and where it was: a solve from there, unchanged, keeps w as
	 * that solve left it */
	double *end;
	const double *end_at;
	/* where the last solve that succeeded left lambda (either entry):
	 * px_solver_resume's promise is about that array */
	const double *last_at;
};

static int solve_start(struct solve *S)
{
	const struct px_problem *p = S->p;
	const size_t n = p->n, nb = p->n_bodies;
	const uint32_t bs = p->bs;
	struct work *wk = &S->wk;
	int rc = px_problem_validate(p, S->err);

	if (!rc)
		rc = px_problem_check_diagonal(p, S->err);
	if (rc)
		return rc;
	wk->perm = malloc(n * sizeof *wk->perm);
	wk->r = malloc(S->nr * sizeof *wk->r);
	wk->r0 = S->once ? wk->r : malloc(S->nr * sizeof *wk->r0);
	wk->prev = malloc(S->m * sizeof *wk->prev);
	wk->w = calloc(nb * 6 + 1, sizeof *wk->w);
	wk->diag = malloc(n * bs * bs * sizeof *wk->diag);
	wk->u = wk->prev;
	S->seen = malloc(n + 1);
	if (!wk->perm || !wk->r || !wk->r0 || !wk->prev || !wk->w ||
	    !wk->diag || !S->seen)
		return px_error_set(S->err, PX_ERR_NOMEM,
				    "out of memory for solving %zu contacts", n);
	return PX_OK;
}

static int solve_kernel(struct solve *S)
{
	const struct px_problem *p = S->p;
	const struct px_friction_ops *fr = S->fr;
	struct work *wk = &S->wk;

	set_up(S->ps, p->n, diag_range, &(struct diag_job){p, wk->diag});
	if (S->rf->shape == PX_R_BLOCK && !px_friction_project_metric(fr)) {
		const struct px_plugin_header *h = px_plugin_header(S->pr);

		return px_error_set(S->err, PX_ERR_PLUGIN,
				    "rfactor plugin '%s' gives a block R, which needs a projection in its metric: friction plugin '%s' has no project_metric (plugin ABI 1.1)",
				    h->name, fr->h.name);
	}
	if (S->set->local_solve == PX_LOCAL_NEWTON &&
	    (p->bs != 3 || !(fr->flags & PX_FRICTION_IS_DISC)))
		return px_error_set(S->err, PX_ERR_CONFIG,
				    "[solver] local_solve = newton supports the disc friction set on 3-row contacts only (friction plugin '%s', %u rows per contact)",
				    fr->h.name, (unsigned)p->bs);
	if (S->set->check)
		px_check_init(&S->chk, fr, px_plugin_state(S->pf), p->friction);
	if (px_kernel_init(&wk->kctx, &S->kern, p, NULL, wk->w, wk->diag,
			   wk->r, S->rf->shape, S->set->check ? &S->chk.ops : fr,
			   S->set->check ? (const void *)&S->chk
					 : px_plugin_state(S->pf),
			   S->set->kernel == PX_KERNEL_GENERIC))
		return px_error_set(S->err, PX_ERR_NOMEM, "out of memory");
	if (S->set->local_solve == PX_LOCAL_NEWTON &&
	    px_kernel_set_local(&wk->kctx, S->set->local_tol,
				S->set->local_forcing,
				(unsigned)S->set->local_max_iter))
		return px_error_set(S->err, PX_ERR_NOMEM, "out of memory");
	if (S->set->kernel == PX_KERNEL_WIDE &&
	    px_kernel_set_wide(&wk->kctx))
		return px_error_set(S->err, PX_ERR_NOMEM, "out of memory");
	wk->kctx.prev = wk->prev;
	wk->kctx.tally = &S->tally;
	return PX_OK;
}

/* The plugins' view of the problem; the iterate's pointer is each
 * solve's. */
static void solve_view(struct solve *S)
{
	const struct px_problem *p = S->p;

	S->info = (struct px_problem_info){
		.n_contacts = p->n,
		.bs = p->bs,
		.n_bodies = p->n_bodies,
		.b = p->b,
		.lambda = NULL,
		.diag = S->wk.diag,
		.friction = p->friction,
		.body_a = p->body_a,
		.body_b = p->body_b,
		.position = p->position,
		.frame = p->frame,
		.apply = apply_a,
		.ctx = p,
	};
}

/* rfactor.init, from A alone (the diagonal blocks, or products with A):
 * every solve starts from the r it gave, checked here. */
static int solve_rfactor(struct solve *S)
{
	size_t bad;

	if (S->rf->init(px_plugin_state(S->pr), &S->info,
			(S->fr->flags & PX_FRICTION_SEPARABLE) != 0, S->wk.r0,
			S->msg, sizeof S->msg))
		return plugin_error(S->err, S->pr, "init", S->msg);
	bad = bad_r(S->wk.r0, S->nr, S->p->bs, S->rf->shape == PX_R_BLOCK);
	if (bad < S->nr) {
		snprintf(S->msg, sizeof S->msg,
			 "r[%zu] = %g, expected finite and > 0", bad,
			 S->wk.r0[bad]);
		return plugin_error(S->err, S->pr, "init", S->msg);
	}
	return PX_OK;
}

static int solve_schedule(struct solve *S)
{
	if (S->sch->prepare(px_plugin_state(S->ps), &S->kern, S->msg,
			    sizeof S->msg))
		return plugin_error(S->err, S->ps, "prepare", S->msg);
	px_plugin_mark_prepared(S->ps, S->id);
	return PX_OK;
}

/* The warm start S->lambda: finite, and whether it is zero (a cold start,
 * whose w is zero: no refresh, which costs as much as the diagonal
 * blocks); the kernel and the plugins' view of the problem pointed at it.
 * kept: lambda is the last solve's end, untouched, so it is finite and w
 * is M^-1 J^T lambda already (as the sweeps updated it, not recomputed). */
static int solve_warm(struct solve *S, int kept)
{
	const struct px_problem *p = S->p;
	struct work *wk = &S->wk;

	S->cold = 1;
	for (size_t i = 0; !kept && i < S->m; i++) {
		if (!isfinite(S->lambda[i]))
			return px_error_set(S->err, PX_ERR_INVALID,
					    "warm start lambda[%zu] is not finite",
					    i);
		S->cold &= S->lambda[i] == 0.0;
	}
	wk->kctx.lambda = S->lambda;
	/* w = M^-1 J^T lambda, unless it still is */
	if (!kept && S->cold)
		memset(wk->w, 0, (p->n_bodies * 6 + 1) * sizeof *wk->w);
	else if (!kept && wk->kctx.impulse) {
		set_up(S->ps, p->n, impulses_range, &wk->kctx);
		set_up(S->ps, p->n_bodies, refresh_rigid_range, &wk->kctx);
	} else if (!kept)
		set_up(S->ps, p->n_bodies, refresh_range, &S->kern);
	/* prev: each sweep's commits write it (a sweep visits every contact
	 * exactly once, plugin.h) */
	if (S->set->check)
		atomic_store(&S->chk.fault, PX_CHECK_OK);
	if (wk->r0 != wk->r && S->r_moved)
		memcpy(wk->r, wk->r0, S->nr * sizeof *wk->r);
	S->r_moved = 0;
	/* b may be a new one, r is init's again: the wide kernel's cache
	 * reads both again */
	wk->kctx.wide_gen++;
	S->rep->rigid_kernel = wk->kctx.wide ? 2 : wk->kctx.rigid3;
	S->info.lambda = S->lambda;
	return PX_OK;
}

static int solve_prepare(struct solve *S)
{
	int rc;

	if (S->ord->prepare(px_plugin_state(S->po), &S->info, S->wk.perm,
			    S->msg, sizeof S->msg))
		return plugin_error(S->err, S->po, "prepare", S->msg);
	rc = perm_error(S->err, S->po, "prepare", S->wk.perm, S->p->n,
			S->seen);
	if (rc)
		return rc;
	if (px_plugin_prepared_for(S->ps) != S->id)
		return solve_schedule(S);
	return PX_OK;
}

/* px_accel_host.time_left (ABI 1.9): the seconds left of the solve's
 * time_limit, HUGE_VAL without one. */
static double time_left(const void *ctx)
{
	const struct solve *S = ctx;
	const double limit = S->set->time_limit;

	return limit > 0 ? limit - (now() - S->t0) : HUGE_VAL;
}

/* Whether the accelerator a drives the whole solve (ABI 1.10: only
 * plugins of minor >= 10 whose ops struct holds flags). */
static int drives_op(const struct px_accelerator_ops *a)
{
	const size_t end = offsetof(struct px_accelerator_ops, flags) +
			   sizeof a->flags;

	return a->h.abi_minor >= 10 && a->h.ops_size >= end &&
	       (a->flags & PX_ACCEL_DRIVES);
}

static int accel_prepare(struct solve *S)
{
	const struct px_problem *p = S->p;
	struct accel *ac = &S->ac;
	const int assembled = p->form == PX_FORM_ASSEMBLED;

	free(ac->save);
	memset(ac, 0, sizeof *ac);
	if (!S->pa)
		return PX_OK;
	ac->pl = S->pa;
	ac->ops = (const void *)px_plugin_header(S->pa);
	ac->drives = drives_op(ac->ops);
	if (ac->drives && S->set->merit == PX_MERIT_DELTA)
		return px_error_set(S->err, PX_ERR_CONFIG,
				    "accelerator plugin '%s' drives the solve: [solver] merit must be fc3d, natural or minmap, not delta (there are no sweeps)",
				    ac->ops->h.name);
	ac->cnt.p = p;
	ac->info = S->info;
	ac->info.apply = apply_counted;
	ac->info.ctx = &ac->cnt;
	ac->host = (struct px_accel_host){
		.p = &ac->info,
		.lambda = S->lambda,
		.project = S->fr->project,
		.fstate = px_plugin_state(S->pf),
		.friction_flags = S->fr->flags,
		.friction_name = S->fr->h.name,
		.a_rowptr = assembled ? p->rowptr : NULL,
		.a_cols = assembled ? p->cols : NULL,
		.a_blocks = assembled ? p->blocks : NULL,
		.time_left = time_left,
		.time_ctx = S,
		.merit = NAN,
		.tol = S->set->abs_tol, /* merit = delta: solve_verdict's */
	};
	ac->save = malloc(S->m * sizeof *ac->save);
	if (!ac->save)
		return px_error_set(S->err, PX_ERR_NOMEM, "out of memory");
	if (ac->ops->prepare(px_plugin_state(S->pa), &ac->host, &ac->every,
			     S->msg, sizeof S->msg))
		return plugin_error(S->err, S->pa, "prepare", S->msg);
	if (ac->every < 1)
		ac->every = 1;
	return PX_OK;
}

/* One sweep of the part the ordering picks, into *part; its change into
 * *dn, *df, *lmax. Returns an error when the ordering's part or rewritten
 * permutation (check = on) is broken, or a projection faulted (check =
 * on). */
static int solve_sweep(struct solve *S, int *part, double *dn, double *df,
		       double *lmax)
{
	int changed = S->ss.sweep == 0, rc;
	double ts;

	*part = S->ord->next(px_plugin_state(S->po), &S->ss, S->wk.perm,
			     &changed);
	if (*part < PX_PART_FULL || *part > PX_PART_FRICTION) {
		snprintf(S->msg, sizeof S->msg,
			 "returned part %d, expected 0 (full), 1 (normal) or 2 (friction)",
			 *part);
		return plugin_error(S->err, S->po, "next", S->msg);
	}
	if (S->set->check && changed &&
	    (rc = perm_error(S->err, S->po, "next", S->wk.perm, S->p->n,
			     S->seen)))
		return rc;
	/* the kernel saves each contact's old impulse into wk.prev as the
	 * sweep overwrites it: no copy of lambda before it */
	tally_reset(&S->tally);
	ts = now();
	S->sch->sweep(px_plugin_state(S->ps), &S->kern, S->wk.perm, changed,
		      *part);
	S->swept = now();
	S->rep->sweep_seconds += S->swept - ts;
	if (S->set->check &&
	    (rc = px_check_report(&S->chk, S->rep->sweeps + 1, S->err)))
		return rc;
	if (!tally_read(&S->tally, S->p->n, dn, df, lmax))
		change(S->lambda, S->wk.prev, S->p->n, S->p->bs, dn, df, lmax);
	return PX_OK;
}

/* The rfactor's verdict on the sweep just run: roll it back, or accept it
 * and run the stop test. Fills rec. */
static void solve_verdict(struct solve *S, int part, double dn, double df,
			  double lmax, struct px_sweep_record *rec)
{
	const struct px_solver_settings *set = S->set;
	const struct px_problem *p = S->p;
	struct px_report *rep = S->rep;
	const double delta = part == PX_PART_NORMAL     ? dn
			     : part == PX_PART_FRICTION ? df
							: px_max(dn, df);
	/* After max_backtracks rejections R stays and sweeps are kept; a
	 * non-finite sweep is always rolled back. */
	const int verdict =
		rep->rejected < set->max_backtracks
			? S->rf->adapt(px_plugin_state(S->pr), S->last[part],
				       delta, S->wk.r, S->nr)
			: PX_SWEEP_ACCEPT;

	rep->sweeps++;
	*rec = (struct px_sweep_record){delta, NAN, S->swept - S->t0, part,
					verdict == PX_SWEEP_ACCEPT};
	if (verdict != PX_SWEEP_ACCEPT || !isfinite(delta)) {
		/* w is recomputed from the restored lambda rather than
		 * copied before every sweep: rejections are rare, the
		 * copies were not */
		memcpy(S->lambda, S->wk.prev, S->m * sizeof *S->lambda);
		S->kern.refresh(S->kern.ctx, 0, p->n_bodies);
		rep->rejected++;
		S->r_moved = 1;
		S->wk.kctx.wide_gen++; /* adapt shrank r */
		rec->accepted = 0;
		/* the same sweep again would give the same; an R shrunk to 0
		 * would change nothing */
		if (verdict == PX_SWEEP_ACCEPT)
			rep->diverged = PX_DIVERGED_NONFINITE;
		else if (bad_r(S->wk.r, S->nr, p->bs,
			       S->rf->shape == PX_R_BLOCK) < S->nr)
			rep->diverged = PX_DIVERGED_R;
		if (rep->diverged)
			rep->diverged_sweep = rep->sweeps;
		return;
	}
	S->last[part] = delta;
	rep->residual = delta;
	S->ss.sweep++;
	if (part != PX_PART_FRICTION)
		S->ss.delta_normal = dn;
	if (part != PX_PART_NORMAL)
		S->ss.delta_friction = df;
	if (set->merit == PX_MERIT_DELTA) {
		const double tol = px_max(set->abs_tol, set->rel_tol * lmax);
		const int quiet = delta <= tol;

		rec->merit = delta;
		S->ac.host.tol = tol;
		if (part != PX_PART_FRICTION)
			S->quiet_n = quiet;
		if (part != PX_PART_NORMAL)
			S->quiet_f = quiet;
		rep->converged = S->quiet_n && S->quiet_f;
	} else {
		rec->merit = merit(p, set, S->lambda, S->wk.u, S->fr,
				   px_plugin_state(S->pf));
		rep->converged = rec->merit <= set->abs_tol;
	}
	/* A normal-only sweep leaves the friction impulses outside the set
	 * of the new normal impulses: only a sweep that projected them may
	 * end the solve. */
	rep->converged &= part != PX_PART_NORMAL;
	rep->merit = rec->merit;
	if (rep->converged && set->merit != PX_MERIT_FC3D) {
		rep->check = px_merit_check_ws(p, S->lambda, S->wk.u,
					       S->fr->project,
					       px_plugin_state(S->pf));
		rep->converged = rep->check <= set->check_tol;
		rep->check_failed |= !rep->converged;
	}
	/* the stall test (lmax is ||lambda||_inf after the sweep, all rows) */
	S->still = !rep->converged && delta <= set->stall_rel * lmax
			   ? S->still + 1
			   : 0;
}

/* Whether this solve keeps its best iterate (S->keep), and its array. */
static int best_prepare(struct solve *S)
{
	const struct px_solver_settings *set = S->set;

	S->best_merit = HUGE_VAL;
	S->best_sweep = 0;
	S->keep = set->time_limit > 0 && set->merit != PX_MERIT_DELTA;
	if (S->keep && !S->best &&
	    !(S->best = malloc((S->m + 1) * sizeof *S->best)))
		return px_error_set(S->err, PX_ERR_NOMEM, "out of memory");
	return PX_OK;
}

/* The lowest-merit iterate so far, when a time limit may end the solve
 * (S->keep): lambda after an accepted sweep or the accelerator's call,
 * whose stop-test merit is mx. */
static void keep_best(struct solve *S, double mx)
{
	if (!S->keep || !(mx < S->best_merit))
		return;
	memcpy(S->best, S->lambda, S->m * sizeof *S->best);
	S->best_merit = mx;
	S->best_sweep = S->rep->sweeps;
}

/* A solve that ran out of time leaves the lowest-merit iterate it saw, not
 * the last: a Gauss-Seidel sweep or an accelerator may have made it worse
 * since. The body velocities follow it. */
static void restore_best(struct solve *S)
{
	struct px_report *rep = S->rep;

	if (!S->keep || !(S->best_merit < rep->merit))
		return;
	memcpy(S->lambda, S->best, S->m * sizeof *S->lambda);
	S->kern.refresh(S->kern.ctx, 0, S->p->n_bodies);
	rep->merit = S->best_merit;
	rep->best_sweep = S->best_sweep;
}

/* Between sweeps, after the accelerator: the monitor's verdict, then the
 * time limit's, which the accelerator may have found first (enum px_stop;
 * PX_STOP_MAX_SWEEPS: go on). */
static int solve_go_on(struct solve *S)
{
	const double limit = S->set->time_limit;

	if (S->monitor) {
		S->rep->seconds = S->swept - S->t0;
		if (S->monitor(S->rep, S->monitor_user))
			return PX_STOP_INTERRUPTED;
	}
	if (S->ac.out_of_time || (limit > 0 && S->swept - S->t0 >= limit))
		return PX_STOP_TIME_LIMIT;
	return PX_STOP_MAX_SWEEPS;
}

/* Silcowitz et al. 2010, sec. 4.3: k_pgs sweeps, then the accelerator. Only
 * after an accepted sweep that projected the friction rows. A step that
 * sets PX_ACCEL_AGAIN (ABI 1.12) is called again at once, each call
 * followed by the stop test (in accel_call), the monitor and the time
 * limit, until one that does not set it or max_sweeps calls in all; into
 * *stop why such a run of calls ended, if the monitor or the time limit
 * ended it (else it is left as it was). Returns -1 when a record could
 * not be stored. */
static int solve_accel(struct solve *S, int part,
		       const struct px_sweep_record *rec, int *stop)
{
	struct accel *ac = &S->ac;
	struct px_report *rep = S->rep;
	int got;

	if (!ac->ops || !rec->accepted || part == PX_PART_NORMAL ||
	    ++ac->since < ac->every)
		return 0;
	for (;;) {
		got = accel_call(ac, 0, S->p, S->set, S->lambda, S->wk.u,
				 &S->kern, S->fr, px_plugin_state(S->pf), rep);
		ac->since = 0;
		S->swept = ac->ended;
		if (got < 0)
			return -1;
		if (got > 0) { /* a new iterate: back-tracking starts over */
			S->last[0] = S->last[1] = S->last[2] = HUGE_VAL;
			S->still = 0;
			keep_best(S, rep->merit);
		}
		if (!ac->again || rep->converged ||
		    rep->accel_steps >= S->set->max_sweeps)
			return 0;
		if ((*stop = solve_go_on(S)) != PX_STOP_MAX_SWEEPS)
			return 0;
	}
}

static int solve_end(struct solve *S)
{
	const struct px_problem *p = S->p;
	const size_t n = p->n, bs = p->bs;
	struct accel *ac = &S->ac;

	if (ac->ops && ac->ops->finish && !S->rep->converged &&
	    accel_call(ac, 1, p, S->set, S->lambda, S->wk.u, &S->kern, S->fr,
		       px_plugin_state(S->pf), S->rep) < 0)
		return -1;
	/* perm, r and r0, prev (u is prev), the diagonal blocks, w, the
	 * accelerator's copy and the best iterate */
	S->rep->work_bytes = n * sizeof *S->wk.perm +
			     ((S->wk.r0 != S->wk.r) * S->nr + S->nr + S->m +
			      n * bs * bs) * sizeof(double) +
			     (p->n_bodies * 6 + 1) * sizeof *S->wk.w +
			     px_kernel_bytes(&S->wk.kctx) +
			     (ac->ops ? S->m * sizeof *ac->save : 0) +
			     (S->keep ? S->m * sizeof *S->best : 0);
	return 0;
}

/* Solver ids, for px_plugin_mark_prepared: never 0, never reused. */
static _Atomic uint64_t last_solver_id;

static void report_reset(struct px_report *rep)
{
	memset(rep, 0, sizeof *rep);
	rep->residual = HUGE_VAL;
	rep->merit = NAN;
	rep->check = NAN;
}

/* What a solver holds, freed; not the solver itself. */
static void solver_release(struct px_solver *sv)
{
	free(sv->end);
	work_free(&sv->S.wk);
	free(sv->S.ac.save);
	free(sv->S.seen);
	free(sv->S.best);
}

static void solver_free(struct px_solver *sv)
{
	solver_release(sv);
	free(sv);
}

/* Sets up the zeroed solver sv (what it holds released on failure);
 * once: the solver of one px_solve, which keeps no copy of r or of the
 * end of the solve for a next one. */
static int solver_init(struct px_solver *sv, const struct px_problem *p,
		       const struct px_config *cfg, int once,
		       struct px_error *err)
{
	struct solve *S = &sv->S;
	double t;
	int rc;

	S->once = once;
	S->r_moved = 1; /* r0 into r at the first solve */
	S->p = p;
	S->cfg = cfg;
	S->set = px_config_settings(cfg);
	S->pf = px_config_plugin(cfg, PX_KIND_FRICTION);
	S->po = px_config_plugin(cfg, PX_KIND_ORDERING);
	S->pr = px_config_plugin(cfg, PX_KIND_RFACTOR);
	S->ps = px_config_plugin(cfg, PX_KIND_SCHEDULER);
	S->pa = px_config_plugin(cfg, PX_KIND_ACCELERATOR);
	S->fr = (const void *)px_plugin_header(S->pf);
	S->ord = (const void *)px_plugin_header(S->po);
	S->rf = (const void *)px_plugin_header(S->pr);
	S->sch = (const void *)px_plugin_header(S->ps);
	S->m = p->n * p->bs;
	S->nr = S->rf->shape == PX_R_BLOCK ? S->m * p->bs : S->m;
	S->err = err;
	S->id = atomic_fetch_add(&last_solver_id, 1) + 1;
	rc = solve_start(S);
	if (!rc)
		rc = solve_kernel(S);
	t = now();
	if (!rc) {
		solve_view(S);
		rc = solve_rfactor(S);
	}
	if (!rc)
		rc = solve_schedule(S);
	sv->create_prepare = now() - t;
	if (rc)
		solver_release(sv);
	return rc;
}

int px_solver_create(const struct px_problem *p, const struct px_config *cfg,
		     struct px_solver **out, struct px_error *err)
{
	struct px_solver *sv = calloc(1, sizeof *sv);
	int rc;

	*out = NULL;
	if (!sv)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	rc = solver_init(sv, p, cfg, 0, err);
	if (rc) {
		free(sv);
		return rc;
	}
	*out = sv;
	return PX_OK;
}

static const char accel_nomem[] =
	"out of memory for the accelerator's records";

/* PX_ACCEL_DRIVES: the stop test at the warm start, then the
 * accelerator's steps in place of the sweeps, each followed by the stop
 * test (in accel_call), the best iterate's copy, the monitor and the
 * time limit, at most max_sweeps of them; into *stop why they ended. Returns -1 when a record
 * could not be stored. */
static int solve_drive(struct solve *S, int *stop)
{
	struct px_report *rep = S->rep;

	stop_test(S->p, S->set, S->lambda, S->wk.u, S->fr,
		  px_plugin_state(S->pf), rep);
	keep_best(S, rep->merit);
	while (!rep->converged && rep->accel_steps < S->set->max_sweeps) {
		const int got = accel_call(&S->ac, 0, S->p, S->set, S->lambda,
					   S->wk.u, &S->kern, S->fr,
					   px_plugin_state(S->pf), rep);

		S->swept = S->ac.ended;
		if (got < 0)
			return -1;
		if (!got) { /* nothing more the plugin can do */
			*stop = PX_STOP_STALLED;
			break;
		}
		if (rep->converged)
			break;
		keep_best(S, rep->merit);
		if ((*stop = solve_go_on(S)) != PX_STOP_MAX_SWEEPS)
			break;
	}
	return 0;
}

/* One solve of sv from lambda, its clock started at t0. */
static int solver_run(struct px_solver *sv, double *lambda,
		      struct px_report *rep, struct px_error *err, double t0,
		      int trusted)
{
	struct solve *S = &sv->S;
	int stop = PX_STOP_MAX_SWEEPS;
	double tp;
	int rc;

	S->lambda = lambda;
	S->rep = rep;
	S->err = err;
	S->ss = (struct px_sweep_state){0, HUGE_VAL, HUGE_VAL};
	S->last[0] = S->last[1] = S->last[2] = HUGE_VAL;
	S->quiet_n = S->quiet_f = 0;
	S->still = 0;
	S->monitor = px_config_monitor(S->cfg, &S->monitor_user);
	S->cap = 0;
	S->t0 = t0;
	report_reset(rep);
	rc = solve_warm(S, trusted ? lambda == sv->last_at
				   : sv->end_at && lambda == sv->end_at &&
					     memcmp(lambda, sv->end,
						    S->m * sizeof *lambda) == 0);
	sv->end_at = sv->last_at = NULL;
	/* a trusted warm start took no time to check: no clock read */
	tp = trusted ? t0 : now();
	if (!rc)
		rc = solve_prepare(S);
	if (!rc)
		rc = accel_prepare(S);
	if (!rc)
		rc = best_prepare(S);
	rep->prepare_seconds = now() - tp + sv->create_prepare;
	sv->create_prepare = 0.0;
	if (!rc && S->ac.drives && solve_drive(S, &stop) < 0)
		rc = px_error_set(err, PX_ERR_NOMEM, "%s", accel_nomem);
	while (!rc && !S->ac.drives && rep->sweeps < S->set->max_sweeps) {
		struct px_sweep_record rec;
		double dn = 0, df = 0, lmax = 0;
		int part;

		rc = solve_sweep(S, &part, &dn, &df, &lmax);
		if (rc)
			break;
		solve_verdict(S, part, dn, df, lmax, &rec);
		if (history_push(rep, &S->cap, &rec)) {
			rc = px_error_set(err, PX_ERR_NOMEM,
					  "out of memory for the history");
			break;
		}
		if (rep->converged || rep->diverged)
			break;
		if (rec.accepted)
			keep_best(S, rec.merit);
		if (S->set->stall_sweeps && S->still >= S->set->stall_sweeps) {
			stop = PX_STOP_STALLED;
			break;
		}
		if (solve_accel(S, part, &rec, &stop) < 0)
			rc = px_error_set(err, PX_ERR_NOMEM, "%s", accel_nomem);
		else if (rep->converged || stop != PX_STOP_MAX_SWEEPS)
			break;
		else if ((stop = solve_go_on(S)) != PX_STOP_MAX_SWEEPS)
			break;
	}
	if (!rc && solve_end(S) < 0)
		rc = px_error_set(err, PX_ERR_NOMEM, "%s", accel_nomem);
	if (!rc && stop == PX_STOP_TIME_LIMIT && !rep->converged &&
	    !rep->diverged)
		restore_best(S);
	rep->seconds = now() - t0;
	rep->stop = rep->converged  ? PX_STOP_CONVERGED
		    : rep->diverged ? PX_STOP_DIVERGED
				    : stop;
	if (rc) {
		px_report_free(rep);
		return rc;
	}
	if (S->once)
		return PX_OK;
	sv->last_at = lambda;
	if (trusted) /* no copy: the caller vouches for lambda */
		return PX_OK;
	if (!sv->end)
		sv->end = malloc((S->m + 1) * sizeof *sv->end);
	if (sv->end) { /* else the next solve computes w again */
		memcpy(sv->end, lambda, S->m * sizeof *lambda);
		sv->end_at = lambda;
	}
	return PX_OK;
}

const char *px_stop_name(int stop)
{
	static const char *const name[] = {
		"not converged", "converged", "diverged", "stalled",
		"time limit", "interrupted"};

	return stop >= 0 && stop < (int)(sizeof name / sizeof *name)
		       ? name[stop]
		       : NULL;
}

int px_config_friction_is_disc(const struct px_config *cfg)
{
	const struct px_friction_ops *fr = (const void *)px_plugin_header(
		px_config_plugin(cfg, PX_KIND_FRICTION));

	return (fr->flags & PX_FRICTION_IS_DISC) != 0;
}

const double *px_solver_body_velocities(const struct px_solver *sv)
{
	return sv->S.p->form == PX_FORM_ASSEMBLED ? NULL : sv->S.wk.w;
}

int px_solver_solve(struct px_solver *sv, double *lambda,
		    struct px_report *rep, struct px_error *err)
{
	return solver_run(sv, lambda, rep, err, now(), 0);
}

int px_solver_resume(struct px_solver *sv, double *lambda,
		     struct px_report *rep, struct px_error *err)
{
	return solver_run(sv, lambda, rep, err, now(), 1);
}

void px_solver_destroy(struct px_solver *sv)
{
	if (sv)
		solver_free(sv);
}

int px_solve(const struct px_problem *p, const struct px_config *cfg,
	     double *lambda, struct px_report *rep, struct px_error *err)
{
	const double t0 = now();
	/* on the stack: a solve of a few contacts costs a few microseconds,
	 * and a solver's 2 KB from malloc were a tenth of them */
	struct px_solver sv = {0};
	int rc = solver_init(&sv, p, cfg, 1, err);

	if (rc) {
		report_reset(rep);
		return rc;
	}
	rc = solver_run(&sv, lambda, rep, err, t0, 0);
	solver_release(&sv);
	return rc;
}

typedef void (*describe_fn)(const void *state, char *buf, size_t len);

/* The scheduler's describe, or NULL when it has none (plugins older than
 * ABI 1.2, whose ops struct ends before it). */
static describe_fn describe_op(const struct px_scheduler_ops *s)
{
	const size_t end = offsetof(struct px_scheduler_ops, describe) +
			   sizeof s->describe;

	return s->h.abi_minor >= 2 && s->h.ops_size >= end ? s->describe : NULL;
}

int px_scheduler_describe(const struct px_config *cfg, char *buf, size_t len)
{
	const struct px_plugin *ps = px_config_plugin(cfg, PX_KIND_SCHEDULER);
	const struct px_scheduler_ops *sch = (const void *)px_plugin_header(ps);
	const describe_fn describe = describe_op(sch);

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (describe)
		describe(px_plugin_state(ps), buf, len);
	return buf[0] != '\0';
}

int px_accelerator_describe(const struct px_config *cfg, char *buf, size_t len)
{
	const struct px_plugin *pa = px_config_plugin(cfg, PX_KIND_ACCELERATOR);
	const struct px_accelerator_ops *acc =
		pa ? (const void *)px_plugin_header(pa) : NULL;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (acc && acc->describe)
		acc->describe(px_plugin_state(pa), buf, len);
	return buf[0] != '\0';
}

void px_report_free(struct px_report *rep)
{
	free(rep->history);
	rep->history = NULL;
	rep->n_history = 0;
	free(rep->accel);
	rep->accel = NULL;
	rep->n_accel = 0;
}
