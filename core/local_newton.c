/* Exact local solves ([solver] local_solve = newton, issue 20): contact k's
 * one-contact problem, the other contacts frozen, solved with its whole
 * diagonal block D to a local tolerance, as Siconos's NSGS and Bogus do
 * (Daviet et al. 2011), instead of one projection with the r-factors.
 *
 * With the velocity u(x) = v0 + D (x - lam0) of the contact at impulse x,
 * a damped semismooth Newton on the Alart-Curnier function
 *
 *     y_n = x_n - rho_n u_n,            y_t = x_t - rho_t u_t
 *     phi_n = x_n - max(0, y_n)
 *     phi_t = x_t - proj_{disc(mu max(0, y_n))}(y_t)
 *
 * (rho_n = 1/D_nn, rho_t = 2/(D_ss + D_tt): one r for both friction rows,
 * as the disc needs), with a back-tracking line search on ||phi||^2. Its
 * zeros are the Coulomb law of the contact. A friction-only visit
 * (staggered orderings) keeps x_n = lam0_n and solves the friction rows
 * against the disc of radius mu lam0_n; a normal-only visit is the exact
 * one-row solve max(0, lam0_n - v0_n / D_nn).
 *
 * Two cases have a closed form, and the kernel tries them first
 * (px_local_closed_form), before the projection: open (x = 0 where
 * u_n(0) >= 0) and sticking (u(x) = 0, one 3x3 solve, with x inside the
 * disc). Both meet the law to rounding; only a sliding contact needs the
 * Newton. On Capsules-i122, 80% of robust's visits end there. The
 * sticking solve is a product with D^-1 from a contact's second visit in
 * a solve on, which the kernel computes then (px_local_inverse): as an
 * elimination in every visit it was a quarter of auto's time on
 * NESpheres_10_1.
 *
 * The Newton starts from the projection's answer (out) and returns the
 * best point it saw by ||phi||: never worse than the projection, which is
 * the fallback when a step fails. When Newton stalls short of the
 * tolerance (a singular Jacobian, a local minimum of ||phi||^2, no
 * descent), projected fixed-point steps with a short step move it on and
 * Newton starts again from there (Siconos's hybrid local solvers do the
 * same), three rounds at most. Disc friction on 3-row contacts only: the
 * host refuses other sets.
 *
 * With local_forcing = eta > 0 a visit also stops once ||phi|| <= eta
 * ||x - lam0||, the forcing term of inexact Newton methods applied to the
 * sweeps: early visits that move an impulse far are solved roughly, and
 * the test tightens to local_tol as the sweeps converge and the changes
 * vanish. The kernel passes 0 in a contact's first visit of a solve
 * (kernel.c, local_forcing). conf/auto.ini's 0.1 kept the sweep counts
 * on the Rovers and NESpheres_10_1 (all or some sliding contacts) and cut
 * their time by 12-18% (doc/benchmarks.md). */
#include <math.h>
#include <string.h>

#include "kernel.h"
#include "norm2.h"

struct local {
	const double *D, *v0, *lam0;
	double mu, rho_n, rho_t;
	double scale0; /* scale_of's part that x does not change */
	double forcing2; /* local_forcing^2 */
	int friction_only;
};

/* The larger of a and b, inline (fmax is a call to libm without
 * -ffinite-math-only): a NaN in J or x stops the Newton all the same,
 * through the pivot and tolerance tests that NaN fails. */
static inline double larger(double a, double b)
{
	return a > b ? a : b;
}

/* phi at x, and its generalized Jacobian into J (3x3 row-major) when not
 * NULL. Returns ||phi||^2. */
static double ac_phi(const struct local *L, const double *x, double *phi,
		     double *J)
{
	const double *D = L->D;
	double u[3], yn, yt[2], dyn[3], dyt[6], R, dR[3] = {0, 0, 0};

	for (int i = 0; i < 3; i++)
		u[i] = L->v0[i] + D[3 * i] * (x[0] - L->lam0[0]) +
		       D[3 * i + 1] * (x[1] - L->lam0[1]) +
		       D[3 * i + 2] * (x[2] - L->lam0[2]);
	yn = x[0] - L->rho_n * u[0];
	yt[0] = x[1] - L->rho_t * u[1];
	yt[1] = x[2] - L->rho_t * u[2];
	for (int j = 0; j < 3; j++) {
		dyn[j] = (j == 0) - L->rho_n * D[j];
		dyt[j] = (j == 1) - L->rho_t * D[3 + j];
		dyt[3 + j] = (j == 2) - L->rho_t * D[6 + j];
	}
	if (L->friction_only) {
		phi[0] = x[0] - L->lam0[0];
		R = L->mu * L->lam0[0];
		if (J) {
			J[0] = 1.0;
			J[1] = J[2] = 0.0;
		}
	} else if (yn > 0.0) {
		phi[0] = x[0] - yn;
		R = L->mu * yn;
		for (int j = 0; j < 3 && J; j++) {
			J[j] = (j == 0) - dyn[j];
			dR[j] = L->mu * dyn[j];
		}
	} else {
		phi[0] = x[0];
		R = 0.0;
		if (J) {
			J[0] = 1.0;
			J[1] = J[2] = 0.0;
		}
	}
	{
		const double nrm = px_norm2(yt[0], yt[1]);

		if (nrm <= R) { /* sticking: P = y_t */
			phi[1] = x[1] - yt[0];
			phi[2] = x[2] - yt[1];
			for (int j = 0; j < 3 && J; j++) {
				J[3 + j] = (j == 1) - dyt[j];
				J[6 + j] = (j == 2) - dyt[3 + j];
			}
		} else { /* sliding: P = R y_t / |y_t| */
			const double h[2] = {yt[0] / nrm, yt[1] / nrm};
			const double s = R / nrm;

			phi[1] = x[1] - R * h[0];
			phi[2] = x[2] - R * h[1];
			for (int j = 0; j < 3 && J; j++) {
				const double p0 = dyt[j], p1 = dyt[3 + j];
				const double hp = h[0] * p0 + h[1] * p1;

				J[3 + j] = (j == 1) - h[0] * dR[j] -
					   s * (p0 - h[0] * hp);
				J[6 + j] = (j == 2) - h[1] * dR[j] -
					   s * (p1 - h[1] * hp);
			}
		}
	}
	return phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2];
}

/* d = -J^-1 phi by Gaussian elimination with partial pivoting. Returns 0
 * when J is numerically singular. Cramer's rule (the adjugate) was a third
 * of the cost on the Rovers but not stable enough: without the closed
 * forms, robust's boxstack-40 took 3,251 sweeps a step instead of 8.7. */
static int solve3(const double *J, const double *phi, double *d)
{
	double a[3][4], big = 0.0;

	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			a[i][j] = J[3 * i + j];
			big = larger(big, fabs(a[i][j]));
		}
		a[i][3] = -phi[i];
	}
	for (int c = 0; c < 3; c++) {
		int p = c;

		for (int i = c + 1; i < 3; i++)
			if (fabs(a[i][c]) > fabs(a[p][c]))
				p = i;
		if (!(fabs(a[p][c]) > 1e-14 * big))
			return 0;
		for (int j = 0; j < 4 && p != c; j++) {
			const double t = a[c][j];

			a[c][j] = a[p][j];
			a[p][j] = t;
		}
		for (int i = c + 1; i < 3; i++) {
			const double f = a[i][c] / a[c][c];

			for (int j = c; j < 4; j++)
				a[i][j] -= f * a[c][j];
		}
	}
	for (int i = 2; i >= 0; i--) {
		double s = a[i][3];

		for (int j = i + 1; j < 3; j++)
			s -= a[i][j] * d[j];
		d[i] = s / a[i][i];
	}
	return isfinite(d[0]) && isfinite(d[1]) && isfinite(d[2]);
}

/* The square of the scale tol is relative to: the impulses x and lam0,
 * and the impulse rho v0 the velocity at lam0 stands for (a contact
 * whose impulses are all near 0 still has a scale); the lam0 and v0 part
 * is L->scale0, set once per solve by scale0_of. Squares throughout:
 * no square root is needed to compare them. */
static double scale_of(const struct local *L, const double *x)
{
	return larger(larger(x[0] * x[0], x[1] * x[1] + x[2] * x[2]),
		      L->scale0);
}

static double scale0_of(const struct local *L)
{
	const double *lam0 = L->lam0, *v0 = L->v0;
	double s = fmax(lam0[0] * lam0[0],
			lam0[1] * lam0[1] + lam0[2] * lam0[2]);

	s = fmax(s, L->rho_t * L->rho_t * (v0[1] * v0[1] + v0[2] * v0[2]));
	if (!L->friction_only)
		s = fmax(s, L->rho_n * L->rho_n * v0[0] * v0[0]);
	return s;
}

/* Whether psi = ||phi(x)||^2 is small enough to stop: at most tol^2 times
 * the scale, or forcing^2 times the square of the visit's change x - lam0
 * (an inexact solve while the sweeps still move the impulses far). */
static int converged(const struct local *L, const double *x, double psi,
		     double tol)
{
	const double d0 = x[0] - L->lam0[0], d1 = x[1] - L->lam0[1],
		     d2 = x[2] - L->lam0[2];

	return !(psi > tol * tol * scale_of(L, x)) ||
	       psi <= L->forcing2 * (d0 * d0 + d1 * d1 + d2 * d2);
}

/* Damped Newton from x (phi, J and psi = ||phi||^2 at x) until converged
 * or a step fails; x, phi, J at the last point. Returns its psi. */
static double newton(const struct local *L, double *x, double *phi, double *J,
		     double psi, double tol, unsigned max_iter)
{
	for (unsigned it = 0; it < max_iter; it++) {
		double d[3], xn[3], pn[3], Jn[9], t = 1.0, psin = HUGE_VAL;

		if (converged(L, x, psi, tol) || !solve3(J, phi, d))
			break;
		/* each trial point's Jacobian too: the first is nearly
		 * always taken, and its phi and J then come from one call */
		for (int ls = 0; ls < 30; ls++, t *= 0.5) {
			for (int i = 0; i < 3; i++)
				xn[i] = x[i] + t * d[i];
			psin = ac_phi(L, xn, pn, Jn);
			if (psin <= (1.0 - 1e-4 * t) * psi)
				break;
		}
		if (!(psin <= (1.0 - 1e-4 * t) * psi))
			break; /* no descent */
		memcpy(x, xn, sizeof xn);
		memcpy(phi, pn, sizeof pn);
		memcpy(J, Jn, sizeof Jn);
		psi = psin;
	}
	return psi;
}

/* steps fixed-point steps x <- P(x - rho u(x)) with one rho <= 1/||D||_F
 * for all rows (a contraction's step for a symmetric D), from x; phi, J
 * at the last point. Returns its psi. */
static double fixed_point(struct local *L, double *x, double *phi, double *J,
			  unsigned steps)
{
	const struct local keep = *L;
	double f = 0.0, psi;

	for (int i = 0; i < 9; i++)
		f += L->D[i] * L->D[i];
	L->rho_n = L->rho_t = 1.0 / sqrt(f);
	for (unsigned it = 0; it < steps; it++) {
		ac_phi(L, x, phi, NULL);
		for (int i = 0; i < 3; i++)
			x[i] -= phi[i];
	}
	*L = keep;
	psi = ac_phi(L, x, phi, J);
	return psi;
}

int px_local_inverse(const double *D, double *inv)
{
	for (int j = 0; j < 3; j++) { /* column j: D c = e_j */
		const double minus_e[3] = {-(j == 0), -(j == 1), -(j == 2)};
		double col[3];

		if (!solve3(D, minus_e, col))
			return 0;
		for (int i = 0; i < 3; i++)
			inv[3 * i + j] = col[i];
	}
	return 1;
}

int px_local_closed_form(const double *D, const double *inv,
			 const double *v0, const double *lam0, double mu,
			 double *out)
{
	const double un0 = v0[0] - D[0] * lam0[0] - D[1] * lam0[1] -
			   D[2] * lam0[2];
	double d[3], x[3];

	if (un0 >= 0.0) { /* open: x = 0, u_n(0) >= 0 */
		out[0] = out[1] = out[2] = 0.0;
		return 1;
	}
	if (inv) /* d = -D^-1 v0: u(lam0 + d) = 0 */
		for (int i = 0; i < 3; i++)
			d[i] = -(inv[3 * i] * v0[0] + inv[3 * i + 1] * v0[1] +
				 inv[3 * i + 2] * v0[2]);
	else if (!solve3(D, v0, d))
		return 0;
	for (int i = 0; i < 3; i++)
		x[i] = lam0[i] + d[i];
	if (!(x[0] > 0.0) ||
	    !(x[1] * x[1] + x[2] * x[2] <= mu * mu * x[0] * x[0]))
		return 0; /* sliding (or NaN) */
	memcpy(out, x, sizeof x);
	return 1;
}

void px_local_newton(const double *D, const double *v0, const double *lam0,
		     double mu, int part, double tol, double forcing,
		     unsigned max_iter, double *out)
{
	struct local L = {.D = D, .v0 = v0, .lam0 = lam0, .mu = mu,
			  .forcing2 = forcing * forcing,
			  .friction_only = part == PX_PART_FRICTION};
	const double dt = 0.5 * (D[4] + D[8]);
	double x[3], phi[3], J[9], psi, best[3], best_phi[3], best_psi;

	if (part == PX_PART_NORMAL) {
		if (D[0] > 0.0 && isfinite(D[0])) {
			const double xn = lam0[0] - v0[0] / D[0];

			out[0] = xn > 0.0 ? xn : 0.0;
		}
		return;
	}
	if (!(D[0] > 0.0) || !(dt > 0.0) || !isfinite(D[0]) ||
	    !isfinite(dt))
		return; /* the projection's answer stays */
	L.rho_n = 1.0 / D[0];
	L.rho_t = 1.0 / dt;
	L.scale0 = scale0_of(&L);
	memcpy(x, out, sizeof x);
	best_psi = psi = ac_phi(&L, x, phi, J);
	memcpy(best, x, sizeof x);
	memcpy(best_phi, phi, sizeof phi);
	for (unsigned round = 0; round < 3; round++) {
		psi = newton(&L, x, phi, J, psi, tol, max_iter);
		if (psi < best_psi) {
			best_psi = psi;
			memcpy(best, x, sizeof x);
			memcpy(best_phi, phi, sizeof phi);
		}
		if (converged(&L, x, psi, tol))
			break;
		/* Newton stalled (a local minimum of ||phi||^2, a singular
		 * Jacobian): projected fixed-point steps with a step no
		 * longer than 1/||D||, then Newton again from there */
		psi = fixed_point(&L, x, phi, J, 5 * max_iter);
	}
	/* the best point is a zero of phi up to tol: its normal impulse is
	 * max(0, y_n) >= 0 and the friction within the disc only at the
	 * zero, so finish with one exact projection of its own point */
	{
		double p[3];

		for (int i = 0; i < 3; i++)
			p[i] = best[i] - best_phi[i];
		if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
			return;
		memcpy(out, p, sizeof p);
	}
}
