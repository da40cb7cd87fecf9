/* The proximal point method with inner semismooth Newton steps of the
 * accelerators prox and auto (prox_method.h).
 *
 * Outer iteration (the proximal point method, Rockafellar 1976): from the
 * centre z, solve the regularized problem FC3D(A + sigma I, b - sigma z),
 * whose velocity is u_sigma(x) = A x + b + sigma (x - z); its solution is
 * the next centre, and a centre that solves it solves the original
 * problem. The regularization makes the inner problem strongly monotone
 * and its Jacobians non-singular where A is rank-deficient (contacts
 * outnumbering the freedoms of the bodies).
 *
 * Inner iteration: Alart and Curnier's reformulation of the regularized
 * problem, contact by contact,
 *
 *     y_n = x_n - r_n u_n,            y_t = x_t - r_t u_t
 *     phi_n = x_n - max(0, y_n)
 *     phi_t = x_t - proj_{disc(mu max(0, y_n))}(y_t)
 *
 * (u = u_sigma, r_n = 1 / (A_nn + sigma), r_t = 2 / (A_ss + A_tt + 2
 * sigma)), with the Jacobian J = (I - G) + G diag(r) (A + sigma I), G the
 * projection's generalized derivative: sparse with A's block pattern and
 * unsymmetric, factorized by KLU (refactorized with the last pivots while
 * they hold) or, where KLU's analysis foresees much fill, by UMFPACK
 * (SuiteSparse; ac_newton.h), the symbolic analysis once per solve. A
 * non-monotone line search (Grippo, Lampariello and Lucidi 1986) on
 * ||phi||^2: a trial is compared with the largest of the last `memory`
 * merits; its velocities are u + t A d, one product with A per step.
 *
 * Adaptive sigma: at each centre, sigma = sigma0 * a * min(1, e)^nu * boost,
 * a the mean diagonal entry of A, e = ||phi_0(z)|| / ||z|| the relative
 * residual of the original problem (phi_0: phi at sigma = 0), at least
 * sigma_min * a: the regularization vanishes as the solve converges, and
 * the last proximal steps are Newton steps on the original problem
 * (superlinear). A Newton step that fails (a singular J, a line search
 * without descent) raises boost 10x and is retried in the same call, up
 * to 10^6; a proximal step without a failure lowers boost 10x, to 1. A
 * proximal step that ended with ||phi|| at most `exact` times its value at
 * the centre (its Newton steps solved the regularized problem as the
 * linear one it is while no contact changes state) lowers boost 10x
 * below 1, down to 10^-6: when the contacts' states have settled, the
 * outer iteration is a proximal point method on a linear problem, whose
 * rate is sigma's, and sigma falls faster than the residual (KaplasTower:
 * 8 Newton steps instead of 13). Any other proximal step puts boost back
 * to 1 when it was below.
 *
 * Memory: every array is allocated in prepare (A, J's pattern and values,
 * the work vectors); KLU's factors are made at the first Newton step and
 * refactorized in place (made afresh only when the pivots fail),
 * UMFPACK's are allocated and freed inside each Newton step, so nothing
 * grows from one step to the next. describe reports the peak: the arrays
 * plus the largest peak the LU reported. Disc friction on 3-row contacts only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/umfpack.h>

#include "prox_method.h"

/* The most a failure raises sigma over its rule, the most exact proximal
 * steps lower it, and the line search's trials (halvings of the step). */
#define BOOST_MAX 1e6
#define BOOST_MIN 1e-6
#define MAX_TRIALS 30

enum {
	P_SIGMA,
	P_NU,
	P_SIGMA_MIN,
	P_MAX_INNER,
	P_INNER_TOL,
	P_MEMORY,
	P_FACTOR,
	P_EXACT
};

int prox_method_init(struct prox_method *s, const union px_value *v,
		     char *err, size_t errlen)
{
	if (v[P_SIGMA_MIN].r > v[P_SIGMA].r) {
		snprintf(err, errlen, "sigma_min = %g exceeds sigma = %g",
			 v[P_SIGMA_MIN].r, v[P_SIGMA].r);
		return 1;
	}
	s->sigma0 = v[P_SIGMA].r;
	s->nu = v[P_NU].r;
	s->sigma_min = v[P_SIGMA_MIN].r;
	s->max_inner = v[P_MAX_INNER].i;
	s->inner_tol = v[P_INNER_TOL].r;
	s->memory = v[P_MEMORY].i;
	s->exact = v[P_EXACT].r;
	s->factor = v[P_FACTOR].i == 1	 ? AC_LU_KLU
		    : v[P_FACTOR].i == 2 ? AC_LU_UMFPACK
					 : AC_LU_AUTO;
	return 0;
}

void prox_method_free(struct prox_method *s)
{
	double **v[] = {&s->rho, &s->g,	 &s->z,	 &s->x,	   &s->u,
			&s->phi, &s->d,	 &s->ad, &s->xt,   &s->ut,
			&s->phit, &s->best, &s->hist};

	ac_system_free(&s->j);
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		free(*v[i]);
		*v[i] = NULL;
	}
}

/* A, J's pattern and every work array, for one solve. 0, or -1 (out of
 * memory, or more non-zeros than UMFPACK's int indices hold). */
static int arrays(struct prox_method *s, const struct px_accel_host *h)
{
	const size_t n = s->n, m = s->m;
	double **v[] = {&s->z,	&s->x,	&s->u,	  &s->phi, &s->d,
			&s->ad, &s->xt, &s->ut, &s->phit, &s->best};
	double trace = 0.0;

	if (ac_system_build(&s->j, h))
		return -1;
	s->j.lu.backend = s->factor;
	s->j.lu.refine = 0; /* a Newton direction needs no refinement */
	s->rho = malloc((2 * n + 1) * sizeof *s->rho);
	s->g = malloc((9 * n + 1) * sizeof *s->g);
	s->hist = malloc((size_t)s->memory * sizeof *s->hist);
	if (!s->rho || !s->g || !s->hist)
		return -1;
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		if (!(*v[i] = malloc((m + 1) * sizeof **v[i])))
			return -1;
	for (size_t k = 0; k < n; k++) {
		const double *D = s->j.a.blk + 9 * s->j.a.diag[k];

		trace += D[0] + D[4] + D[8];
	}
	s->scale = trace > 0.0 ? trace / (double)m : 1.0;
	s->bytes = ac_system_bytes(&s->j) +
		   (double)((2 * n + 1) * sizeof *s->rho +
			    (9 * n + 1) * sizeof *s->g +
			    (size_t)s->memory * sizeof *s->hist +
			    10 * (m + 1) * sizeof *s->z);
	return 0;
}

int prox_method_prepare(struct prox_method *s,
			const struct px_accel_host *h, char *err,
			size_t errlen)
{
	const struct px_problem_info *p = h->p;

	prox_method_free(s);
	if (ac_refused(h, err, errlen))
		return 1;
	s->n = p->n_contacts;
	s->m = 3 * s->n;
	if (arrays(s, h)) {
		snprintf(err, errlen, "out of memory for %zu contacts", s->n);
		return 1;
	}
	s->active = s->own = 0;
	s->boost = 1.0;
	s->sigma = NAN;
	s->best_psi0 = HUGE_VAL;
	s->outer = s->steps = s->trials = s->raises = 0;
	s->j.lu.peak = 0.0;
	return 0;
}

/* r_n and r_t of contact k at sigma: 1 / (A_nn + sigma) and
 * 2 / (A_ss + A_tt + 2 sigma). */
static void contact_r(const struct prox_method *s, size_t k, double sigma,
		      double *rn, double *rt)
{
	const double *D = s->j.a.blk + 9 * s->j.a.diag[k];
	const double dn = D[0] + sigma, dt = D[4] + D[8] + 2.0 * sigma;

	*rn = dn > 0.0 ? 1.0 / dn : 1.0;
	*rt = dt > 0.0 ? 2.0 / dt : 1.0;
}

/* phi of the problem regularized by sigma about z at x, from w = A x + b
 * (sigma = 0: the original problem's), and (g not NULL) each contact's G.
 * Returns ||phi||^2. */
static double ac_phi(const struct prox_method *s,
		     const struct px_problem_info *p, double sigma, const double *x, const double *w,
		     double *phi, double *g)
{
	double psi = 0.0;

	for (size_t k = 0; k < s->n; k++) {
		const double *xk = x + 3 * k, *wk = w + 3 * k, *zk = s->z + 3 * k;
		const double v[3] = {wk[0] + sigma * (xk[0] - zk[0]),
				     wk[1] + sigma * (xk[1] - zk[1]),
				     wk[2] + sigma * (xk[2] - zk[2])};
		double rn, rt;

		contact_r(s, k, sigma, &rn, &rt);
		psi += ac_contact(xk, v, rn, rt, p->friction[k].mu, phi + 3 * k,
				  g ? g + 9 * k : NULL);
	}
	return psi;
}

/* d = -J^-1 phi at x, J at sigma: row block i is (I - G_i) on the
 * diagonal block plus G_i diag(r_i) (A_ij + sigma I [i = j]) for every
 * block j. Returns 0, or -1 when the LU fails (a singular J, out of
 * memory) or d is not finite. */
static int newton_direction(struct prox_method *s)
{
	for (size_t k = 0; k < s->n; k++)
		contact_r(s, k, s->sigma, &s->rho[2 * k], &s->rho[2 * k + 1]);
	ac_jacobian(&s->j.a, s->g, s->rho, s->sigma, 0.0, s->j.jx);
	if (ac_factor(&s->j.lu) != UMFPACK_OK)
		return -1;
	return ac_solve(&s->j.lu, s->phi, s->d, s->phit);
}

static double norm2(const double *v, size_t m)
{
	double r = 0.0;

	for (size_t i = 0; i < m; i++)
		r += v[i] * v[i];
	return r;
}

/* The regularized problem's phi, G and merit at x with the current sigma;
 * the line search's memory starts over. */
static void restart_merit(struct prox_method *s,
			  const struct px_problem_info *p)
{
	s->psi = ac_phi(s, p, s->sigma, s->x, s->u, s->phi, s->g);
	s->hist[0] = s->psi;
	s->nh = 1;
	s->next = 1 % s->memory;
}

/* A new centre z = c (lambda, or the last iterate), its sigma by the rule,
 * and x = z. psi0 is ||phi_0(z)||^2, the original problem's merit there. */
static void centre(struct prox_method *s, const double *c,
		   const struct px_problem_info *p, double psi0)
{
	const double zz = norm2(c, s->m);
	const double e = zz > 0.0 && !s->fresh ? fmin(1.0, sqrt(psi0 / zz))
						: 1.0;

	memmove(s->z, c, s->m * sizeof *s->z);
	memmove(s->x, c, s->m * sizeof *s->x);
	s->sigma = s->scale * fmax(s->sigma_min,
				   s->sigma0 * pow(e, s->nu) * s->boost);
	restart_merit(s, p);
	s->psi_start = s->psi;
	s->inner = 0;
	s->active = 1;
	s->own = 1;
	s->fresh = 0;
	s->outer++;
}

/* One Newton step on the regularized problem from x, with the line
 * search. 0 when it was taken (x, u, phi, psi moved), or -1. */
static int newton_step(struct prox_method *s,
		       const struct px_problem_info *p,
		       struct px_accel_result *res)
{
	double ref = 0.0, t = 1.0;

	if (newton_direction(s)) {
		res->flags |= PX_ACCEL_SINGULAR;
		return -1;
	}
	for (long i = 0; i < s->nh; i++)
		ref = fmax(ref, s->hist[i]);
	/* A (x + t d) + b = u + t A d: one product per step, not per trial */
	p->apply(p->ctx, s->d, s->ad, 0);
	for (int trial = 0; trial < MAX_TRIALS; trial++, t *= 0.5) {
		double psit;

		for (size_t i = 0; i < s->m; i++) {
			s->xt[i] = s->x[i] + t * s->d[i];
			s->ut[i] = s->u[i] + t * s->ad[i];
		}
		psit = ac_phi(s, p, s->sigma, s->xt, s->ut, s->phit, NULL);
		res->inner++;
		s->trials++;
		if (psit <= ref - 2e-4 * t * s->psi) {
			memcpy(s->x, s->xt, s->m * sizeof *s->x);
			memcpy(s->u, s->ut, s->m * sizeof *s->u);
			s->psi = ac_phi(s, p, s->sigma, s->x, s->u, s->phi,
					s->g);
			s->hist[s->next] = s->psi;
			s->next = (s->next + 1) % s->memory;
			s->nh += s->nh < s->memory;
			return 0;
		}
	}
	res->flags |= PX_ACCEL_FALLBACK;
	return -1;
}

/* One Newton step (a new centre first when the last proximal step
 * ended); a failed one is retried with 10 times the regularization, up to
 * BOOST_MAX, while the solve's time limit leaves time (ABI 1.9: else
 * PX_ACCEL_TIME_LIMIT). lambda becomes the step's iterate; it stays as it
 * was when no step succeeds (prox's host then stops: stalled). */
void prox_method_step(struct prox_method *s, const struct px_accel_host *h,
		      struct px_accel_result *res)
{
	const struct px_problem_info *p = h->p;
	int failed = 0;

	if (!s->active) {
		/* the next centre is the method's last iterate x, unless
		 * there is none (the first step, or after
		 * prox_method_restart): then lambda. Under prox they are
		 * the same; under auto, sweeps may have moved lambda. */
		const double *c = s->own ? s->x : h->lambda;

		p->apply(p->ctx, c, s->u, 1);
		s->psi0 = ac_phi(s, p, 0.0, c, s->u, s->phit, NULL);
		centre(s, c, p, s->psi0);
	}
	res->merit_in = sqrt(s->psi0);
	while (newton_step(s, p, res)) {
		failed = 1;
		if (s->boost >= BOOST_MAX ||
		    !(h->time_left(h->time_ctx) > 0.0)) {
			if (s->boost < BOOST_MAX)
				res->flags |= PX_ACCEL_TIME_LIMIT;
			s->active = 0; /* a fresh centre if called again */
			res->merit_out = res->merit_in;
			return;
		}
		s->boost *= 10.0;
		s->sigma *= 10.0;
		s->raises++;
		restart_merit(s, p);
	}
	s->steps++;
	s->inner++;
	res->substeps = 1;
	memcpy(h->lambda, s->x, s->m * sizeof *s->x);
	res->replaced = 1;
	s->psi0 = ac_phi(s, p, 0.0, s->x, s->u, s->phit, NULL);
	res->merit_last = res->merit_out = sqrt(s->psi0);
	if (s->psi0 < s->best_psi0) {
		s->best_psi0 = s->psi0;
		memcpy(s->best, s->x, s->m * sizeof *s->best);
	}
	if (s->psi <= s->inner_tol * s->inner_tol * s->psi_start ||
	    s->inner >= s->max_inner) {
		s->active = 0;
		if (!failed && s->boost > 1.0)
			s->boost /= 10.0;
		else if (!failed && s->psi <= s->exact * s->exact * s->psi_start)
			s->boost = fmax(BOOST_MIN, s->boost / 10.0);
		else if (s->boost < 1.0)
			s->boost = 1.0;
	}
}

void prox_method_restart(struct prox_method *s)
{
	s->active = 0;
	s->own = 0;
	s->fresh = 1;
}

double prox_method_merit(struct prox_method *s,
			 const struct px_accel_host *h)
{
	const struct px_problem_info *p = h->p;

	p->apply(p->ctx, h->lambda, s->ut, 1);
	return sqrt(ac_phi(s, p, 0.0, h->lambda, s->ut, s->phit, NULL));
}

/* The best iterate by the original problem's merit, when the solve ends
 * elsewhere. */
void prox_method_finish(struct prox_method *s,
			const struct px_accel_host *h,
			struct px_accel_result *res)
{
	if (!(s->best_psi0 < HUGE_VAL))
		return;
	/* lambda is the last step's x (or the entry iterate before it,
	 * whose psi0 a failed call left) */
	res->merit_in = res->merit_out = sqrt(s->psi0);
	if (s->best_psi0 < s->psi0) {
		memcpy(h->lambda, s->best, s->m * sizeof *s->best);
		res->replaced = 1;
		res->merit_out = sqrt(s->best_psi0);
		res->flags |= PX_ACCEL_FALLBACK;
	}
}

/* The factorization the solve used (auto's choice once made). */
static const char *lu_name(const struct prox_method *s)
{
	switch (s->j.lu.backend) {
	case AC_LU_KLU:
		return "KLU";
	case AC_LU_UMFPACK:
		return "UMFPACK";
	default:
		return "KLU or UMFPACK";
	}
}

void prox_method_describe(const struct prox_method *s, char *buf,
			  size_t len)
{

	snprintf(buf, len,
		 "prox: %llu proximal steps, %llu Newton steps (%llu line-search trials, %llu raised sigma), sigma %.3g at the end; A %zu blocks%s%u colors, %llu products); %s LU, %llu factorizations, %llu with the last pivots; peak %.3g MiB (arrays %.3g, %s %.3g)",
		 s->outer, s->steps, s->trials, s->raises, s->sigma,
		 s->j.a.ptr ? s->j.a.ptr[s->n] : 0,
		 s->j.a.colors ? " (probed: " : " (copied, ", s->j.a.colors,
		 (unsigned long long)s->j.a.products, lu_name(s),
		 s->j.lu.factors + s->j.lu.refactors, s->j.lu.refactors,
		 (s->bytes + s->j.lu.peak) / 1048576.0, s->bytes / 1048576.0,
		 lu_name(s), s->j.lu.peak / 1048576.0);
}
