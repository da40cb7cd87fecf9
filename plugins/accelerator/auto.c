/* Accelerator `auto`: Gauss-Seidel sweeps, or the proximal point Newton
 * steps of prox (prox_method.c), whichever the measured progress of the
 * sweeps predicts will reach the solution sooner (issue 33: each problem
 * the method that suits it, without a sweep count to tune).
 *
 * The driver calls step after every accepted sweep (every = 1). In the
 * sweeps phase the plugin records, for each sweep, the merit the driver's
 * stop test found after it (ABI 1.11: host->merit, the [solver] merit's
 * value, e.g. the fc3d error), which for a linearly converging method
 * shrinks geometrically. Over the last `window` sweeps that gives the
 * sweeps' rate per sweep g = ln(e_old / e_now) / window, and the sweeps
 * they still need to bring it to the solve's own tolerance (host->tol, or
 * `target` where that is lower: a solve to max_sweeps has none):
 *
 *     N_sweeps = ln(e_now / max(tol, target)) / g  (infinite when g <= 0)
 *
 * So a solve to 1e-4 that the sweeps reach in a dozen sweeps stays with
 * them where one to 1e-8 switches (before ABI 1.11 the plugin measured the
 * relative change of lambda against a fixed target of 1e-10 whatever the
 * tolerance: Capsules-i125 at 1e-4 switched after 5 sweeps and took
 * 2.8-3.7x Siconos's NSGS, which needs 12).
 *
 * Newton's cost to the same point is N_newton = newton_steps *
 * newton_cost, in sweeps. Until 2026-11-27 both sides were seconds, the
 * sweeps' measured times and a Newton step's (newton_cost mean sweeps
 * before one was measured); but a solve has one Newton phase at most (a
 * failed phase ends Newton, below), so no decision ever saw a measured
 * step, and the sweeps' seconds cancelled out of the comparison. Counting
 * in sweeps takes the same decisions without the clock: two runs of a
 * solve switch after the same sweep and end with the same lambda.
 *
 * When N_sweeps > N_newton the Newton phase begins: each call runs up to
 * max_newton steps of prox's method and leaves the call's best iterate by
 * ||phi_0||, the Alart-Curnier residual (the entry iterate included), and
 * asks to be called again before the next sweep (PX_ACCEL_AGAIN, ABI
 * 1.12): the driver's stop test follows and, if the solve goes on, the
 * next call, with no sweep between them (before 1.12 each call cost a
 * sweep whose result the path dropped: 15 of Capsules-i122's 29 sweeps).
 * The method's path starts at 0, as prox's does, and goes on from its own
 * iterate across calls: from the sweeps' iterate the
 * regularized Newton steps of the Capsules problems stall (904 steps on
 * Capsules-i125-1213 where 26 suffice from 0). A phase that fails (a
 * call in which no step succeeds, or 4 newton_steps steps in which its
 * best residual fell less than 10x) ends Newton for the rest of the
 * solve: on a hard step of a ball pile, Newton phases tried again and
 * again took 100 s where the sweeps alone take 0.03 s. Problems that the
 * sweeps solve in a few sweeps never reach a decision; those where
 * Gauss-Seidel crawls (stacks, capsules) switch after window + 1 sweeps.
 *
 * Only a time limit reads the clock (host->time_left, between Newton
 * steps). A's copy (or probing) and the Newton arrays are allocated at
 * the first Newton phase of a solve, once. Disc friction on 3-row
 * contacts only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/plugin.h>

#include "prox_method.h"

enum {
	P_WINDOW = PROX_METHOD_N_PARAMS,
	P_TARGET,
	P_NEWTON_COST,
	P_NEWTON_STEPS,
	P_TOL,
	P_MAX_NEWTON
};

static const struct px_param_decl auto_params[] = {
	PROX_METHOD_PARAMS,
	[P_WINDOW] = {"window", PX_PARAM_INT, "4",
		      "sweeps over which the sweeps' rate of progress is measured before a decision",
		      1, 1000, NULL},
	[P_TARGET] = {"target", PX_PARAM_REAL, "1e-14",
		      "the stop test's merit the predictions aim at where the solve's tolerance is lower (a solve to max_sweeps has tolerance 0); 0: the tolerance alone",
		      0, 1, NULL},
	[P_NEWTON_COST] = {"newton_cost", PX_PARAM_REAL, "10",
			   "a Newton step's cost in sweeps, in the prediction",
			   0.1, 1e6, NULL},
	[P_NEWTON_STEPS] = {"newton_steps", PX_PARAM_INT, "8",
			    "the Newton steps the prediction takes to reach the target",
			    1, 1000, NULL},
	[P_TOL] = {"tol", PX_PARAM_REAL, "1e-14",
		   "a Newton call stops when ||phi_0||_inf <= tol ||lambda||_inf",
		   0, 1, NULL},
	[P_MAX_NEWTON] = {"max_newton", PX_PARAM_INT, "1",
			  "Newton steps per call at most", 1, 10000, NULL},
};

struct auto_state {
	struct prox_method pm;
	long window, newton_steps, max_newton;
	double target, newton_cost, tol;
	int newton;                /* the phase: 1 Newton, 0 sweeps */
	int given_up;              /* a Newton phase failed in this solve */
	int ready;                 /* the Newton arrays are allocated */
	size_t m;
	double *keep;              /* a call's best iterate */
	double *e;                 /* ring of the last window + 1 merits */
	uint64_t nh;               /* sweeps measured */
	double mark;               /* the phase's best residual at its last
				      check of progress */
	uint64_t phase_steps;      /* Newton steps of the phase */
	/* statistics of the solve */
	unsigned long long phases, backs, calls, steps, first;
	double pred_sweeps, pred_newton; /* at the first switch */
};

static int auto_create(const union px_value *v, void **state, char *err,
		       size_t errlen)
{
	struct auto_state *s = calloc(1, sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	if (prox_method_init(&s->pm, v, err, errlen)) {
		free(s);
		return 1;
	}
	s->window = v[P_WINDOW].i;
	s->target = v[P_TARGET].r;
	s->newton_cost = v[P_NEWTON_COST].r;
	s->newton_steps = v[P_NEWTON_STEPS].i;
	s->tol = v[P_TOL].r;
	s->max_newton = v[P_MAX_NEWTON].i;
	s->e = malloc((size_t)(s->window + 1) * sizeof *s->e);
	if (!s->e) {
		snprintf(err, errlen, "out of memory");
		free(s);
		return 1;
	}
	*state = s;
	return 0;
}

static void auto_destroy(void *state)
{
	struct auto_state *s = state;

	prox_method_free(&s->pm);
	free(s->keep);
	free(s->e);
	free(s);
}

static int auto_prepare(void *state, const struct px_accel_host *h,
			uint64_t *every, char *err, size_t errlen)
{
	struct auto_state *s = state;
	const size_t m = 3 * h->p->n_contacts;

	/* the last solve's Newton arrays (a failed prox_method_prepare's
	 * are freed by the next one); keep stays for a solve of the same
	 * size: a solve of a few contacts takes a few microseconds, and
	 * these frees and mallocs were a twentieth of them */
	if (s->ready)
		prox_method_free(&s->pm);
	if (ac_refused(h, err, errlen))
		return 1;
	if (!s->keep || s->m != m) {
		free(s->keep);
		s->m = m;
		s->keep = malloc((m + 1) * sizeof *s->keep);
		if (!s->keep) {
			snprintf(err, errlen, "out of memory for %zu contacts",
				 h->p->n_contacts);
			return 1;
		}
	}
	s->newton = s->ready = s->given_up = 0;
	s->nh = 0;
	s->phases = s->backs = s->calls = s->steps = s->first = 0;
	s->pred_sweeps = s->pred_newton = NAN;
	*every = 1;
	return 0;
}

static double inf_norm(const double *v, size_t m)
{
	double r = 0.0;

	for (size_t i = 0; i < m; i++)
		r = fmax(r, fabs(v[i]));
	return r;
}

/* The sweep that just ended, measured: the stop test's merit after it
 * into the ring. 0 when the driver has no finite merit for it. */
static int measure(struct auto_state *s, double merit)
{
	if (!isfinite(merit))
		return 0;
	s->e[s->nh % ((size_t)s->window + 1)] = merit;
	s->nh++;
	return 1;
}

/* Whether the Newton phase should begin: the sweeps' predicted count to
 * the target against Newton's cost in sweeps (both into *ns, *nn). */
static int newton_pays(struct auto_state *s, double tol, double *ns,
		       double *nn)
{
	const size_t w = (size_t)s->window;
	const double e_now = s->e[(s->nh - 1) % (w + 1)];
	const double e_old = s->e[s->nh % (w + 1)]; /* w sweeps before */
	const double aim = fmax(tol, s->target);

	if (!(e_now > aim))
		return 0; /* the sweeps are there */
	*ns = e_old > e_now ? (double)w * log(e_now / aim) / log(e_old / e_now)
			    : HUGE_VAL;
	*nn = (double)s->newton_steps * s->newton_cost;
	return *ns > *nn;
}

/* Newton steps of the method until the residual is small, max_newton
 * steps or the time limit; lambda left at the call's best iterate by
 * ||phi_0|| (the entry one included). fresh: the first call of a phase,
 * which starts the method's path at 0; later calls go on from the
 * method's own iterate (not from lambda, the best iterate so far: that
 * would upset the proximal step under way). Returns 0, or -1 when no step
 * succeeded. */
static int newton_call(struct auto_state *s, const struct px_accel_host *h,
		       int fresh, struct px_accel_result *res)
{
	/* the entry iterate is the call's first candidate */
	const double first = prox_method_merit(&s->pm, h);
	double last = NAN, best = first;
	long k;

	memcpy(s->keep, h->lambda, s->m * sizeof *s->keep);
	if (fresh) {
		/* the proximal path from the origin, as prox's (from the
		 * sweeps' iterate it took 904 Newton steps on
		 * Capsules-i125-1213 where it takes 26 from 0) */
		memset(h->lambda, 0, s->m * sizeof *h->lambda);
		prox_method_restart(&s->pm);
	}
	for (k = 0; k < s->max_newton; k++) {
		struct px_accel_result r = {0};

		if (!(h->time_left(h->time_ctx) > 0.0)) {
			res->flags |= PX_ACCEL_TIME_LIMIT;
			break;
		}
		prox_method_step(&s->pm, h, &r);
		res->flags |= r.flags & ~PX_ACCEL_FALLBACK;
		res->inner += r.inner;
		if (!r.replaced)
			break;
		res->substeps++;
		s->steps++;
		last = r.merit_out;
		if (last < best) {
			best = last;
			memcpy(s->keep, h->lambda, s->m * sizeof *s->keep);
		}
		if (r.flags & PX_ACCEL_TIME_LIMIT ||
		    !(last > s->tol * inf_norm(h->lambda, s->m)))
			break;
	}
	res->merit_in = first;
	res->merit_last = last;
	res->merit_out = best;
	if (memcmp(h->lambda, s->keep, s->m * sizeof *s->keep))
		memcpy(h->lambda, s->keep, s->m * sizeof *s->keep);
	return res->substeps ? 0 : -1;
}

/* Whether the Newton phase makes progress: every 4 newton_steps steps its
 * best residual must have fallen 10x since the last such check. */
static int progress(struct auto_state *s, const struct px_accel_result *res)
{
	const uint64_t every = 4 * (uint64_t)s->newton_steps;
	const uint64_t before = s->phase_steps;

	s->phase_steps += res->substeps;
	if (s->phase_steps / every == before / every)
		return 1;
	if (!(res->merit_out < 0.1 * s->mark) && s->mark < HUGE_VAL)
		return 0;
	s->mark = res->merit_out;
	return 1;
}

/* Back to the sweeps for the rest of the solve, after a Newton call in
 * which no step succeeded or a phase without progress (a hard step of a
 * ball pile: Newton phases tried again and again there took 100 s where
 * the sweeps alone take 0.03 s). */
static void to_sweeps(struct auto_state *s)
{
	s->newton = 0;
	s->given_up = 1;
	s->backs++;
}

static void auto_step(void *state, const struct px_accel_host *h,
		      struct px_accel_result *res)
{
	struct auto_state *s = state;
	double ns, nn;
	int fresh = 0;

	s->calls++;
	if (!s->newton) {
		if (s->given_up || !measure(s, h->merit) ||
		    s->nh <= (uint64_t)s->window ||
		    !newton_pays(s, h->tol, &ns, &nn))
			return;
		if (!s->phases++) {
			s->first = s->calls;
			s->pred_sweeps = ns;
			s->pred_newton = nn;
		}
		s->newton = fresh = 1;
	}
	if (!s->ready) {
		char err[256];

		if (prox_method_prepare(&s->pm, h, err, sizeof err)) {
			res->flags |= PX_ACCEL_SINGULAR; /* out of memory */
			to_sweeps(s);
			return;
		}
		s->ready = 1;
	}
	if (fresh) {
		s->mark = HUGE_VAL;
		s->phase_steps = 0;
	}
	if (newton_call(s, h, fresh, res) || !progress(s, res))
		to_sweeps(s);
	else /* the next call at once: no sweep that the path would drop */
		res->flags |= PX_ACCEL_AGAIN;
}

static void auto_describe(const void *state, char *buf, size_t len)
{
	const struct auto_state *s = state;
	int at;

	if (!s->phases) {
		snprintf(buf, len, "auto: sweeps only (no Newton phase)");
		return;
	}
	at = snprintf(buf, len,
		      "auto: %llu Newton phases (%llu back to sweeps), %llu Newton steps; the first after sweep %llu, where the sweeps predicted %.3g more sweeps against Newton's %.3g; ",
		      s->phases, s->backs, s->steps, s->first, s->pred_sweeps,
		      s->pred_newton);
	if (at > 0 && (size_t)at < len)
		prox_method_describe(&s->pm, buf + at, len - (size_t)at);
}

/* What `proxima plugins --describe auto` prints (ABI 1.4). */
static const char auto_doc[] =
	"Gauss-Seidel sweeps, then the Newton steps of the prox accelerator\n"
	"when the sweeps' measured progress predicts that Newton reaches the\n"
	"solution sooner: sweeps for the problems they solve quickly, Newton\n"
	"for those where they crawl, without a sweep count to tune.\n"
	"\n"
	"After every accepted sweep it records the merit e the driver's stop\n"
	"test found after it ([solver] merit, e.g. the fc3d error). Over the\n"
	"last `window` sweeps that gives their rate g = ln(e_old / e_now) per\n"
	"sweep and the sweeps they still need to bring e to the solve's\n"
	"tolerance (abs_tol; `target` where that is lower), ln(e_now / tol) /\n"
	"g. Newton's cost is newton_steps steps of newton_cost sweeps each.\n"
	"When the sweeps need more, the Newton phase begins: each call runs\n"
	"up to max_newton of prox's steps, on a path that starts at 0 and\n"
	"goes on from its own iterate across calls, and leaves the call's\n"
	"best iterate by the Alart-Curnier residual ||phi_0||, the entry one\n"
	"included; the driver's stop test follows, then the next call, with\n"
	"no sweep between them. A phase that fails (no step succeeds, or its\n"
	"best residual falls less than 10x in 4 newton_steps steps) ends\n"
	"Newton for the rest of the solve.\n"
	"\n"
	"The decision does not read the clock: two runs of a solve take the\n"
	"same steps and end with the same lambda. The first six parameters\n"
	"are prox's. A's copy (or probing) and the Newton arrays are\n"
	"allocated at the first Newton phase of a solve. Disc friction on\n"
	"3-row contacts only.\n";

static const struct px_accelerator_ops auto_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ACCELERATOR,
		.ops_size = sizeof(struct px_accelerator_ops),
		.name = "auto",
		.summary = "Gauss-Seidel sweeps, then prox's Newton steps when the sweeps' measured progress predicts that Newton is faster",
		.params = auto_params,
		.n_params = sizeof auto_params / sizeof *auto_params,
		.create = auto_create,
		.destroy = auto_destroy,
	},
	.prepare = auto_prepare,
	.step = auto_step,
	.describe = auto_describe,
	.doc = auto_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &auto_ops.h;
}
