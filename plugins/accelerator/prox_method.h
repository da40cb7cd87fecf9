/* The proximal point method with inner semismooth Newton steps that the
 * accelerators prox (which drives the solve) and auto (which runs it
 * between Gauss-Seidel sweeps) share: its parameters, state and steps
 * (prox_method.c, where the method is described). */
#ifndef PX_PROX_METHOD_H
#define PX_PROX_METHOD_H

#include <proxima/plugin.h>

#include "ac_newton.h"

/* The method's state: its parameters, the arrays of one solve, the
 * statistics. */
struct prox_method {
	double sigma0, nu, sigma_min, inner_tol, exact;
	long max_inner, memory;
	int factor; /* AC_LU_AUTO, AC_LU_KLU or AC_LU_UMFPACK */
	struct ac_system j;
	size_t n, m;
	double *rho;                        /* r_n, r_t per contact at sigma */
	double *g;                          /* G_k, 9 per contact */
	double *z, *x, *u, *phi, *d, *ad, *xt, *ut, *phit, *best, *hist;
	double scale;   /* a: the mean diagonal entry of A */
	double sigma, boost;
	double psi, psi_start; /* ||phi_sigma(x)||^2, and at the centre */
	double psi0;           /* ||phi_0(x)||^2, the original problem's */
	double best_psi0;      /* ||phi_0||^2 of best */
	long inner;            /* Newton steps of this centre */
	long nh, next;         /* merits in hist (a ring), where the next goes */
	int active;            /* a centre is set */
	int own;               /* x is the method's last iterate */
	int fresh;             /* the next centre's sigma as far from a
				  solution (prox_method_restart) */
	/* statistics of the solve */
	unsigned long long outer, steps, trials, raises;
	double bytes;
};

/* The method's parameters, first in a plugin's declarations, in this
 * order (their values v[0] .. v[PROX_METHOD_N_PARAMS - 1]). */
#define PROX_METHOD_N_PARAMS 8
#define PROX_METHOD_PARAMS \
	{"sigma", PX_PARAM_REAL, "1", \
		"the proximal regularization sigma far from a solution, relative to the mean diagonal entry of A (each centre's is this times min(1, relative residual)^nu)", \
		1e-12, 1e12, NULL}, \
	{"nu", PX_PARAM_REAL, "1", \
		"the exponent of the relative residual in sigma's rule (0: a fixed sigma)", \
		0, 4, NULL}, \
	{"sigma_min", PX_PARAM_REAL, "1e-10", \
		"the least sigma, relative to the mean diagonal entry of A; at most sigma", \
		0, 1e12, NULL}, \
	{"max_inner", PX_PARAM_INT, "10", \
		"Newton steps per proximal step at most", 1, 10000, \
		NULL}, \
	{"inner_tol", PX_PARAM_REAL, "0.1", \
		"a proximal step ends when the regularized problem's ||phi|| fell to this factor of its value at the centre", \
		0, 1, NULL}, \
	{"memory", PX_PARAM_INT, "10", \
		"the non-monotone line search compares a trial with the largest of this many last merits (1: Armijo's monotone search)", \
		1, 100, NULL}, \
	{"factor", PX_PARAM_CHOICE, "auto", \
		"the sparse LU of the Newton steps: klu = KLU, refactorized with the last pivots while they hold; umfpack = UMFPACK, factorized afresh each step; auto = KLU unless its analysis estimates more than 3e6 flops per factorization, then UMFPACK", \
		0, -1, "auto|klu|umfpack"}, \
	{"exact", PX_PARAM_REAL, "1e-4", \
		"a proximal step whose regularized problem's ||phi|| fell to this factor of its value at the centre (the contacts' states held: a linear solve) makes the next sigma 10 times smaller than the last (down to 1e-6 of its rule); 0: never", \
		0, 1, NULL}

/* s from the values of its parameters (v[0 .. PROX_METHOD_N_PARAMS - 1]).
 * 0, or 1 with the reason in err. */
int prox_method_init(struct prox_method *s, const union px_value *v,
		     char *err, size_t errlen);

/* A, J's pattern and the work arrays for the host's problem; the method
 * starts afresh (no centre, sigma's boost 1, the statistics zero). 0, or 1
 * with the reason in err (another friction set, out of memory). */
int prox_method_prepare(struct prox_method *s,
			const struct px_accel_host *h, char *err,
			size_t errlen);

/* One Newton step, lambda replaced by its iterate; res as an
 * accelerator's step fills it. The step goes on from the method's last
 * iterate, or from a new centre when the last proximal step ended (at
 * that iterate; at h->lambda for the first step, or after
 * prox_method_restart). A failed step is retried with 10 times sigma, up
 * to 10^6, while the solve's time limit leaves time (else
 * PX_ACCEL_TIME_LIMIT); lambda stays as it was when no step succeeds. */
void prox_method_step(struct prox_method *s, const struct px_accel_host *h,
		      struct px_accel_result *res);

/* The next step starts the method's path again: a new centre at
 * h->lambda with sigma as far from a solution (sigma times A's mean
 * diagonal entry, the boost kept). */
void prox_method_restart(struct prox_method *s);

/* ||phi_0(h->lambda)||, the original problem's Alart-Curnier residual at
 * lambda (one product with A; the method's own iterate is untouched). */
double prox_method_merit(struct prox_method *s,
			 const struct px_accel_host *h);

/* The best iterate by ||phi_0|| into h->lambda when it is better than the
 * last step's, as an accelerator's finish. */
void prox_method_finish(struct prox_method *s,
			const struct px_accel_host *h,
			struct px_accel_result *res);

/* One line of the solve's statistics and the peak memory. */
void prox_method_describe(const struct prox_method *s, char *buf,
			  size_t len);

void prox_method_free(struct prox_method *s);

#endif
