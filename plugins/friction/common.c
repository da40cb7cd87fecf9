/* Numerics shared by the friction plugins; see common.h. The metric
 * projection onto an ellipsoid follows the closest-point construction of
 * Erleben 2017, sec. 4.1 (eq. 31-38) carried over to a metric g:
 *
 *   substitute x = D u, D = diag(a) (so x^T K x = u^T u, K = D^-2): the set
 *   becomes the unit ball and the metric g' = D g D. The minimizer satisfies
 *   g'(u - z') + theta u = 0 with z' = D^-1 z, theta >= 0, so
 *       u(theta) = (g' + theta I)^-1 c,   c = g' z' = D g z,
 *   and ||u(theta)||^2 - 1 is strictly decreasing in theta (the role of
 *   Erleben 2017, eq. 35, which is the case g = I with t = theta). Since
 *   ||u(theta)|| <= ||c|| / theta, theta = ||c|| brackets the root (the
 *   analogue of Erleben 2017, eq. 36); bisection finds it.
 *
 * Rows with a zero semi-axis are pinned at 0. With d = x - z and x_0 = 0,
 * (x - z)^T g (x - z) = (d_r + g_rr^-1 g_r0 d_0)^T g_rr (...) + const, so
 * the free rows project z_r + g_rr^-1 g_r0 z_0 in the metric g_rr. */
#include <math.h>
#include <string.h>

#include "common.h"

void px_friction_bounds(const struct px_friction_params *fp,
			double mu_tau_default, double lambda_n, uint32_t nf,
			double *bound)
{
	const double mu_s = fp->mu_s > 0.0 ? fp->mu_s : fp->mu;
	const double mu_t = fp->mu_t > 0.0 ? fp->mu_t : fp->mu;
	const double mu_tau = fp->mu_tau > 0.0 ? fp->mu_tau : mu_tau_default;

	bound[0] = mu_s * lambda_n;
	bound[1] = mu_t * lambda_n;
	if (nf > 2)
		bound[2] = mu_tau * lambda_n;
}

double px_bisect_mid(double lo, double hi)
{
	uint64_t a, b, m;
	double mid;

	memcpy(&a, &lo, sizeof a);
	memcpy(&b, &hi, sizeof b);
	m = a + (b - a) / 2; /* non-negative doubles order like their bits */
	memcpy(&mid, &m, sizeof mid);
	return mid;
}

int px_sym_solve(const double *s, uint32_t k, const double *r, double *x)
{
	double l[16];

	if (!px_cholesky(s, k, 3, 0.0, 0.0, HUGE_VAL, l))
		return -1;
	px_cholesky_solve(l, k, r, x);
	return 0;
}

int px_metric_is_scalar(const double *g, uint32_t nf)
{
	if (!(g[0] > 0.0) || !isfinite(g[0]))
		return 0;
	for (uint32_t i = 0; i < nf; i++)
		for (uint32_t j = 0; j < nf; j++)
			if (g[i * nf + j] != (i == j ? g[0] : 0.0))
				return 0;
	return 1;
}

int px_metric_load(const double *g, uint32_t nf, double *m)
{
	double big = 0.0, l[16];
	int e;

	if (nf == 0 || nf > PX_NF_MAX)
		return -1;
	for (uint32_t i = 0; i < nf; i++) {
		for (uint32_t j = 0; j < nf; j++) {
			/* halve first: no overflow for finite g */
			double v = 0.5 * g[i * nf + j] + 0.5 * g[j * nf + i];

			if (!isfinite(v))
				return -1;
			m[i * 3 + j] = v;
			big = px_max(big, fabs(v));
		}
	}
	if (!(big > 0.0))
		return -1;
	frexp(big, &e);
	for (uint32_t i = 0; i < nf; i++)
		for (uint32_t j = 0; j < nf; j++)
			m[i * 3 + j] = ldexp(m[i * 3 + j], -e);
	/* entries now below 1, the largest at least 1/2: absolute pivot
	 * threshold = relative to the largest entry */
	if (!px_cholesky(m, nf, 3, 1e-13, 0.0, HUGE_VAL, l))
		return -1;
	return 0;
}

/* ||u(theta)||^2 - 1 for u(theta) = (gp + theta I)^-1 c (k rows); a matrix
 * that is numerically not positive definite counts as "outside" (> 0),
 * which moves the bracket's lower end up. */
static double ball_gap(const double *gp, const double *c, uint32_t k,
		       double theta, double *u)
{
	double s[9], sum = 0.0;

	memcpy(s, gp, sizeof s);
	for (uint32_t i = 0; i < k; i++)
		s[i * 3 + i] += theta;
	if (px_sym_solve(s, k, c, u))
		return 1.0;
	for (uint32_t i = 0; i < k; i++)
		sum += u[i] * u[i];
	return sum - 1.0;
}

/* The free rows r[0..k) (k >= 2, a > 0): project w (scaled, in place).
 * Leaves w alone if no bracket was found (not for an SPD m). */
static void project_free(const double *m, const uint32_t *r, uint32_t k,
			 const double *a, double *w)
{
	double gp[9] = {0}, c[3], u[3], lo = 0.0, hi;

	for (uint32_t i = 0; i < k; i++) {
		c[i] = 0.0;
		for (uint32_t j = 0; j < k; j++) {
			gp[i * 3 + j] = a[i] * m[r[i] * 3 + r[j]] * a[j];
			c[i] += m[r[i] * 3 + r[j]] * w[j];
		}
		c[i] *= a[i];
	}
	hi = 0.0;
	for (uint32_t i = 0; i < k; i++)
		hi = hypot(hi, c[i]);
	if (!(hi > 0.0)) /* only when a underflows: no bracket */
		return;
	/* hi = ||c|| brackets the root; expand by 1.5 as Erleben (2017) does
	 * should rounding leave it short */
	for (int i = 0; i < 64 && ball_gap(gp, c, k, hi, u) > 0.0; i++)
		hi *= 1.5;
	for (int it = 0; it < 80; it++) {
		const double mid = px_bisect_mid(lo, hi);

		if (mid <= lo || mid >= hi)
			break;
		if (ball_gap(gp, c, k, mid, u) > 0.0)
			lo = mid;
		else
			hi = mid;
	}
	/* the upper end: ||u|| <= 1, the feasible side */
	if (ball_gap(gp, c, k, hi, u) > 0.0)
		return;
	for (uint32_t i = 0; i < k; i++)
		w[i] = a[i] * u[i];
}

void px_metric_ellipsoid(const double *m, uint32_t n, const double *a,
			 double *z)
{
	uint32_t r[3], o[3], k = 0, nz = 0;
	double w[3], ax[3], big = 0.0, f = 0.0;
	int e, moved = 0;

	/* Erleben 2017, eq. 37-38: work in the unit cube (a power of two:
	 * exact) */
	for (uint32_t i = 0; i < n; i++)
		big = px_max(big, px_max(a[i] > 0.0 ? a[i] : 0.0, fabs(z[i])));
	frexp(big, &e);
	for (uint32_t i = 0; i < n; i++) {
		/* a zero semi-axis, or a negligible one, pins its row */
		const double ai = a[i] > 0.0 ? ldexp(a[i], -e) : 0.0;

		if (ai >= PX_AXIS_MIN) {
			r[k] = i;
			ax[k] = ai;
			w[k] = ldexp(z[i], -e);
			k++;
		} else {
			o[nz++] = i;
		}
	}
	if (k > 0 && nz > 0) {
		double rhs[3], sub[9], y[3];
		int any = 0;

		for (uint32_t i = 0; i < k; i++) {
			rhs[i] = 0.0;
			for (uint32_t j = 0; j < nz; j++)
				rhs[i] +=
					m[r[i] * 3 + o[j]] * ldexp(z[o[j]], -e);
			any |= rhs[i] != 0.0;
			for (uint32_t j = 0; j < k; j++)
				sub[i * 3 + j] = m[r[i] * 3 + r[j]];
		}
		if (any && px_sym_solve(sub, k, rhs, y) == 0) {
			for (uint32_t i = 0; i < k; i++)
				w[i] += y[i];
			moved = 1;
		}
	}
	for (uint32_t j = 0; j < nz; j++)
		z[o[j]] = 0.0;
	if (k == 0)
		return;
	for (uint32_t i = 0; i < k; i++)
		f += (w[i] / ax[i]) * (w[i] / ax[i]);
	if (f > 1.0) {
		if (k == 1) {
			/* an interval: in any metric, the clamp */
			w[0] = px_min(px_max(w[0], -ax[0]), ax[0]);
		} else {
			project_free(m, r, k, ax, w);
			/* x = D u rounds; and should no bracket have been
			 * found (not for an SPD m) w is still z: a radial
			 * scaling lands in the set either way */
			f = 0.0;
			for (uint32_t i = 0; i < k; i++)
				f += (w[i] / ax[i]) * (w[i] / ax[i]);
			if (f > 1.0)
				for (uint32_t i = 0; i < k; i++)
					w[i] /= sqrt(f);
		}
		moved = 1;
	}
	if (moved)
		for (uint32_t i = 0; i < k; i++)
			z[r[i]] = ldexp(w[i], e);
}
