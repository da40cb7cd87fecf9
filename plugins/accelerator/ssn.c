/* Accelerator `ssn`: a semismooth Newton method on the whole problem
 * (issue 20), switched on when Gauss-Seidel stagnates.
 *
 * The reformulation is Alart and Curnier's, contact by contact with
 * u = A x + b:
 *
 *     y_n = x_n - rho_n u_n,            y_t = x_t - rho_t u_t
 *     phi_n = x_n - max(0, y_n)
 *     phi_t = x_t - proj_{disc(mu max(0, y_n))}(y_t)
 *
 * (rho_n = 1 / A_nn, rho_t = 2 / (A_ss + A_tt) per contact), whose zeros
 * are the solutions of the Coulomb problem. With G_k the generalized
 * derivative of contact k's projection at y_k, a Jacobian of phi is
 *
 *     J = (I - G) + G diag(rho) A,
 *
 * sparse with A's block pattern and not symmetric: each Newton step solves
 * (J + r I) d = -phi, r = ||phi|| / ||x|| within [reg, 1e-2] (Levenberg
 * and Marquardt's choice: A is rank-deficient wherever contacts outnumber
 * the freedoms of the bodies, and r vanishes with phi), with UMFPACK (SuiteSparse's multifrontal sparse LU, Debian's
 * libsuitesparse-dev: J is unsymmetric and changes its values, never its
 * pattern, so the symbolic analysis is done once per solve and only the
 * numeric factorization per step), then a back-tracking line search on
 * the merit ||phi||^2 (Armijo, halving; one product with A per trial).
 * A (ssn_matrix.c) is copied from an assembled problem or probed through
 * the host's product on a factorized or rigid one, at the first Newton run
 * of a solve (it allocates then, once).
 *
 * Stagnation test: the driver calls step after every accepted sweep
 * (every = 1); the plugin measures the sweep's change d = ||lambda -
 * lambda_prev||_inf and runs Newton when, over the last `window` sweeps,
 * the change shrank by less than `rate` per sweep on average (Gauss-Seidel
 * converging linearly at a slow rate, or not at all). After a run that
 * cut the merit 100x, the next call runs Newton again without waiting;
 * after one that cut it less, the test waits a window of sweeps; after a
 * run that failed, 2, 4, ... 64 windows. A call returns the best iterate it saw by its merit, the entry
 * iterate included: when a step fails (singular J, no descent) the
 * Gauss-Seidel iterate stays. A chain of runs (from the first one whose
 * iterate is kept to the next give-up) in which two runs in a row neither
 * converged nor cut the merit 100x is given up: lambda goes back to the iterate the chain
 * started from and the test waits 2, 4, ... 64 windows (doubling at each
 * give-up of the solve). Without it, on ballpile-8 with conf/robust.ini,
 * weak runs were kept and repeated every window + 1 sweeps for ever, each
 * restarting Gauss-Seidel's transient (step 32), or left Gauss-Seidel
 * cycling at a constant change where it converges alone (step 40). Before a run and before each of its Newton
 * steps it asks the host for the time left (ABI 1.9): with none left it
 * stops there, keeps the best iterate and flags PX_ACCEL_TIME_LIMIT, on
 * which the solve ends. Disc friction on 3-row contacts only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/umfpack.h>

#include <proxima/plugin.h>

#include "ac_newton.h"

struct ssn {
	long window, max_newton;
	double rate, tol, reg;
	struct ac_system j;
	size_t n, m;
	double *rho;                       /* rho_n, rho_t per contact */
	double *g;                         /* G_k, 9 per contact */
	double *x, *u, *phi, *d, *xt, *ut, *phit, *prev, *hist;
	double *entry;     /* lambda where the chain of runs started */
	double entry_merit;
	int chain;         /* a chain is on: a Newton iterate was kept since
			      entry (a run that keeps none leaves lambda) */
	int strikes;       /* runs in a row of the chain neither converged
			      nor cut the merit 100x */
	int rollbacks;     /* chains given up in this solve (at most 6) */
	size_t nh;       /* changes in hist (a ring of window + 1) */
	long wait, fails;
	int hot, have_prev, built;
	/* statistics of the solve */
	unsigned long long runs, steps, failed, factor_fail, regularized;
	double last_merit;
};

enum { P_WINDOW, P_RATE, P_MAX_NEWTON, P_TOL, P_REG };

static const struct px_param_decl ssn_params[] = {
	[P_WINDOW] = {"window", PX_PARAM_INT, "10",
		      "stagnation test: sweeps over which the change of lambda is compared",
		      1, 10000, NULL},
	[P_RATE] = {"rate", PX_PARAM_REAL, "0.8",
		    "stagnation test: run Newton when the change shrank by less than this factor per sweep on average",
		    0, 1, NULL},
	[P_MAX_NEWTON] = {"max_newton", PX_PARAM_INT, "30",
			  "Newton steps per call at most", 1, 10000, NULL},
	[P_TOL] = {"tol", PX_PARAM_REAL, "1e-14",
		   "a run stops when ||phi||_inf <= tol ||lambda||_inf", 0, 1,
		   NULL},
	[P_REG] = {"reg", PX_PARAM_REAL, "1e-10",
		   "the least regularization: J + r I is factorized with r = ||phi|| / ||lambda|| within [reg, 1e-2] (A is rank-deficient where contacts outnumber the freedoms of the bodies); a singular one is retried with 100 times more",
		   0, 1e-2, NULL},
};

static int ssn_create(const union px_value *v, void **state, char *err,
		      size_t errlen)
{
	struct ssn *s = calloc(1, sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	s->window = v[P_WINDOW].i;
	s->rate = v[P_RATE].r;
	s->max_newton = v[P_MAX_NEWTON].i;
	s->tol = v[P_TOL].r;
	s->reg = v[P_REG].r;
	*state = s;
	return 0;
}

static void free_arrays(struct ssn *s)
{
	ac_system_free(&s->j);
	free(s->rho);
	free(s->g);
	free(s->x);
	free(s->u);
	free(s->phi);
	free(s->d);
	free(s->xt);
	free(s->ut);
	free(s->phit);
	free(s->prev);
	free(s->hist);
	free(s->entry);
	s->entry = NULL;
	s->rho = s->g = s->x = s->u = s->phi = s->d = NULL;
	s->xt = s->ut = s->phit = s->prev = s->hist = NULL;
}

static void ssn_destroy(void *state)
{
	free_arrays(state);
	free(state);
}

/* A, J's pattern and the work arrays, built at the first Newton run of a
 * solve (a solve that never stagnates pays nothing for them). 0, or -1
 * (out of memory, or more non-zeros than UMFPACK's int indices hold). */
static int newton_ready(struct ssn *s, const struct px_accel_host *h)
{
	const size_t n = s->n, m = s->m;

	if (s->built)
		return 0;
	if (ac_system_build(&s->j, h))
		return -1;
	s->rho = malloc((2 * n + 1) * sizeof *s->rho);
	s->g = malloc((9 * n + 1) * sizeof *s->g);
	s->x = malloc((m + 1) * sizeof *s->x);
	s->u = malloc((m + 1) * sizeof *s->u);
	s->phi = malloc((m + 1) * sizeof *s->phi);
	s->d = malloc((m + 1) * sizeof *s->d);
	s->xt = malloc((m + 1) * sizeof *s->xt);
	s->ut = malloc((m + 1) * sizeof *s->ut);
	s->phit = malloc((m + 1) * sizeof *s->phit);
	s->entry = malloc((m + 1) * sizeof *s->entry);
	if (!s->rho || !s->g || !s->x || !s->u || !s->phi || !s->d ||
	    !s->xt || !s->ut || !s->phit || !s->entry)
		return -1;
	for (size_t k = 0; k < n; k++) {
		const double *D = s->j.a.blk + 9 * s->j.a.diag[k];
		const double dt = 0.5 * (D[4] + D[8]);

		s->rho[2 * k] = D[0] > 0.0 ? 1.0 / D[0] : 1.0;
		s->rho[2 * k + 1] = dt > 0.0 ? 1.0 / dt : 1.0;
	}
	s->built = 1;
	return 0;
}

static int ssn_prepare(void *state, const struct px_accel_host *h,
		       uint64_t *every, char *err, size_t errlen)
{
	struct ssn *s = state;
	const struct px_problem_info *p = h->p;
	const size_t n = p->n_contacts, m = 3 * n;

	free_arrays(s);
	s->built = 0;
	if (ac_refused(h, err, errlen))
		return 1;
	s->n = n;
	s->m = m;
	s->prev = malloc((m + 1) * sizeof *s->prev);
	s->hist = malloc(((size_t)s->window + 1) * sizeof *s->hist);
	if (!s->prev || !s->hist) {
		snprintf(err, errlen, "out of memory for %zu contacts", n);
		return 1;
	}
	s->nh = 0;
	s->wait = s->fails = 0;
	s->hot = s->have_prev = s->chain = 0;
	s->strikes = s->rollbacks = 0;
	s->runs = s->steps = s->failed = s->factor_fail = 0;
	s->regularized = 0;
	s->last_merit = NAN;
	*every = 1;
	return 0;
}

/* phi at x from u = A x + b, and (g not NULL) each contact's G. Returns
 * ||phi||^2. */
static double ac_phi(const struct ssn *s, const struct px_problem_info *p,
		     const double *x, const double *u, double *phi, double *g)
{
	double psi = 0.0;

	for (size_t k = 0; k < s->n; k++)
		psi += ac_contact(x + 3 * k, u + 3 * k, s->rho[2 * k],
				  s->rho[2 * k + 1], p->friction[k].mu,
				  phi + 3 * k, g ? g + 9 * k : NULL);
	return psi;
}

/* d = -(J + reg I)^-1 phi, reg from s->reg up 100x at a time while the
 * factorization finds J singular. Returns 0, or -1 when UMFPACK fails
 * (singular up to reg 1e-2, out of memory). */
static int newton_direction(struct ssn *s, double reg)
{
	int st;

	for (;;) {
		ac_jacobian(&s->j.a, s->g, s->rho, 0.0, reg, s->j.jx);
		st = ac_factor(&s->j.lu);
		if (st == UMFPACK_OK)
			break;
		if (st != UMFPACK_WARNING_singular_matrix || reg >= 1e-2)
			return -1;
		reg = reg > 0.0 ? reg * 100.0 : 1e-12;
		s->regularized++;
	}
	return ac_solve(&s->j.lu, s->phi, s->d, s->phit);
}

static double inf_norm(const double *v, size_t m)
{
	double r = 0.0;

	for (size_t i = 0; i < m; i++)
		r = fmax(r, fabs(v[i]));
	return r;
}

/* The regularization of a step at merit psi: ||phi|| / ||x|| (Levenberg-
 * Marquardt's choice, which keeps the local convergence superlinear: it
 * vanishes with phi), within [reg, 1e-2]. */
static double reg_of(const struct ssn *s, double psi)
{
	double xx = 0.0, r;

	for (size_t i = 0; i < s->m; i++)
		xx += s->x[i] * s->x[i];
	r = xx > 0.0 ? sqrt(psi / xx) : s->reg;
	return fmin(1e-2, fmax(s->reg, r));
}

/* Whether Gauss-Seidel stagnates: the change of this sweep against the
 * one `window` sweeps before. */
static int stagnates(struct ssn *s, const double *lambda)
{
	const size_t w = (size_t)s->window;
	double dnow = 0.0;

	if (!s->have_prev) {
		memcpy(s->prev, lambda, s->m * sizeof *s->prev);
		s->have_prev = 1;
		return 0;
	}
	for (size_t i = 0; i < s->m; i++)
		dnow = fmax(dnow, fabs(lambda[i] - s->prev[i]));
	memcpy(s->prev, lambda, s->m * sizeof *s->prev);
	s->hist[s->nh % (w + 1)] = dnow;
	s->nh++;
	if (s->wait > 0) {
		s->wait--;
		return 0;
	}
	if (s->hot)
		return 1;
	if (s->nh < w + 1 || dnow == 0.0)
		return 0;
	/* hist[(nh - 1 - w) % (w + 1)] is the change w sweeps before */
	return dnow > pow(s->rate, (double)w) * s->hist[s->nh % (w + 1)];
}

static void ssn_step(void *state, const struct px_accel_host *h,
		     struct px_accel_result *res)
{
	struct ssn *s = state;
	const struct px_problem_info *p = h->p;
	const size_t m = s->m;
	double psi, psi0;
	uint32_t it;
	int done;

	if (!stagnates(s, h->lambda))
		return;
	/* the sweep before may have used up the time: A's copy or probe
	 * and the symbolic analysis are not started then */
	if (!(h->time_left(h->time_ctx) > 0.0)) {
		res->flags |= PX_ACCEL_TIME_LIMIT;
		return;
	}
	if (newton_ready(s, h)) {
		/* out of memory: no Newton in this solve */
		res->flags |= PX_ACCEL_SINGULAR;
		s->wait = INT32_MAX;
		return;
	}
	s->runs++;
	memcpy(s->x, h->lambda, m * sizeof *s->x);
	p->apply(p->ctx, s->x, s->u, 1);
	psi0 = psi = ac_phi(s, p, s->x, s->u, s->phi, s->g);
	res->merit_in = sqrt(psi0);
	if (!s->chain) { /* no Newton iterate kept: a chain may start here */
		memcpy(s->entry, h->lambda, m * sizeof *s->entry);
		s->entry_merit = res->merit_in;
	}
	for (it = 0; it < (uint32_t)s->max_newton; it++) {
		double t = 1.0, psit = HUGE_VAL;
		int ok = 0;

		if (!(inf_norm(s->phi, m) > s->tol * inf_norm(s->x, m)))
			break;
		if (!(h->time_left(h->time_ctx) > 0.0)) {
			res->flags |= PX_ACCEL_TIME_LIMIT;
			break;
		}
		if (newton_direction(s, reg_of(s, psi))) {
			res->flags |= PX_ACCEL_SINGULAR;
			s->factor_fail++;
			break;
		}
		for (int ls = 0; ls < 20 && !ok; ls++, t *= 0.5) {
			for (size_t i = 0; i < m; i++)
				s->xt[i] = s->x[i] + t * s->d[i];
			p->apply(p->ctx, s->xt, s->ut, 1);
			psit = ac_phi(s, p, s->xt, s->ut, s->phit, NULL);
			ok = psit <= (1.0 - 1e-4 * t) * psi;
		}
		res->inner++;
		res->merit_last = sqrt(psit);
		if (!ok) {
			res->flags |= PX_ACCEL_FALLBACK;
			break;
		}
		memcpy(s->x, s->xt, m * sizeof *s->x);
		memcpy(s->u, s->ut, m * sizeof *s->u);
		psi = ac_phi(s, p, s->x, s->u, s->phi, s->g);
	}
	s->steps += it;
	res->substeps = it;
	done = !(inf_norm(s->phi, m) > s->tol * inf_norm(s->x, m));
	s->strikes = done || psi <= 0.01 * psi0 ? 0 : s->strikes + 1;
	if (s->chain && s->strikes >= 2 &&
	    !(res->flags & PX_ACCEL_TIME_LIMIT)) {
		/* Two runs in a row that neither converged nor cut the
		 * merit 100x, after one whose iterate was kept: Newton is
		 * stuck (a
		 * non-zero local minimum of ||phi||), and its iterates may
		 * trap Gauss-Seidel (ballpile-8 with conf/robust.ini: weak
		 * runs kept every window + 1 sweeps for ever at step 32,
		 * sweeps cycling at a constant change at step 40, where
		 * Gauss-Seidel alone converges). lambda goes back to the
		 * iterate the chain started from, and each such give-up
		 * doubles the wait, up to 64 windows. */
		if (memcmp(h->lambda, s->entry, m * sizeof *s->entry) != 0) {
			memcpy(h->lambda, s->entry, m * sizeof *s->entry);
			res->replaced = 1;
		}
		res->merit_out = s->entry_merit;
		s->hot = 0;
		s->chain = 0;
		s->strikes = 0;
		s->failed++;
		s->rollbacks += s->rollbacks < 6;
		s->wait = s->window << s->rollbacks;
	} else if (psi < psi0) {
		memcpy(h->lambda, s->x, m * sizeof *s->x);
		res->replaced = 1;
		res->merit_out = sqrt(psi);
		s->hot = psi <= 0.01 * psi0;
		s->chain = 1;
		s->fails = 0;
		/* progress, but not Newton's: a window of sweeps first */
		s->wait = s->hot ? 0 : s->window;
	} else {
		res->merit_out = res->merit_in;
		s->hot = 0;
		s->failed++;
		s->fails += s->fails < 6;
		s->wait = s->window << s->fails;
	}
	s->last_merit = res->merit_out;
}

static void ssn_describe(const void *state, char *buf, size_t len)
{
	const struct ssn *s = state;

	snprintf(buf, len,
		 "ssn: %llu Newton runs, %llu steps, %llu runs failed (%llu factorizations failed, %llu raised reg); last merit %.3g; A %zu blocks%s%u colors, %llu products)",
		 s->runs, s->steps, s->failed, s->factor_fail,
		 s->regularized, s->last_merit,
		 s->j.a.ptr ? s->j.a.ptr[s->n] : 0,
		 s->j.a.colors ? " (probed: " : " (copied, ",
		 s->j.a.colors, (unsigned long long)s->j.a.products);
}

/* What `proxima plugins --describe ssn` prints (ABI 1.4). */
static const char ssn_doc[] =
	"Semismooth Newton on the whole problem, switched on when\n"
	"Gauss-Seidel stagnates. The reformulation is Alart and Curnier's:\n"
	"phi(x) = x - P(x - diag(rho) (A x + b)), P the projection onto R+ x\n"
	"disc(mu max(0, y_n)) per contact, rho_n = 1/A_nn, rho_t = 2/(A_ss +\n"
	"A_tt). A Jacobian is J = (I - G) + G diag(rho) A (G the projection's\n"
	"generalized derivative), sparse and unsymmetric: each step solves J d\n"
	"= -phi with UMFPACK (SuiteSparse), the symbolic analysis once per\n"
	"solve, then a back-tracking line search on ||phi||^2.\n"
	"\n"
	"The driver calls it after every accepted sweep; it runs Newton when the\n"
	"change of lambda shrank by less than `rate` per sweep over the last\n"
	"`window` sweeps, up to max_newton steps or ||phi||_inf <= tol\n"
	"||lambda||_inf, or until [solver] time_limit runs out (asked before the\n"
	"run and each step; the solve then ends as a time limit). A run that cut\n"
	"the merit 100x is followed by another after the next sweep, one that\n"
	"cut it less after a window of sweeps; after a failed run the test waits\n"
	"2, 4, ... 64 windows. It returns the best iterate by its merit, the one\n"
	"it was given included: a failed step leaves the Gauss-Seidel iterate.\n"
	"A chain of runs in which two in a row neither converged nor cut the\n"
	"merit 100x is given up: lambda goes back to where the chain started\n"
	"(a Gauss-Seidel iterate) and the test waits 2, 4, ... 64 windows, one\n"
	"doubling per give-up in the solve: kept, such runs' iterates stalled\n"
	"Gauss-Seidel (doc/config.md, \"ssn on a ball pile\").\n"
	"\n"
	"A is copied from an assembled problem (plugin ABI 1.7) or probed on\n"
	"a factorized or rigid one through the product (one per color of a\n"
	"distance-2 coloring of the contacts and per row). Disc friction on\n"
	"3-row contacts only. UMFPACK allocates its factors inside each step.\n";

static const struct px_accelerator_ops ssn_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ACCELERATOR,
		.ops_size = sizeof(struct px_accelerator_ops),
		.name = "ssn",
		.summary = "semismooth Newton (Alart-Curnier, UMFPACK) on the whole problem when Gauss-Seidel stagnates; gives a stalled chain of runs up",
		.params = ssn_params,
		.n_params = sizeof ssn_params / sizeof *ssn_params,
		.create = ssn_create,
		.destroy = ssn_destroy,
	},
	.prepare = ssn_prepare,
	.step = ssn_step,
	.describe = ssn_describe,
	.doc = ssn_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ssn_ops.h;
}
