/* An independent closest point on an ellipsoid, for tests: no t-parameter
 * of Erleben 2017, eq. 32-35, but the surface in angles, in long double.
 *
 * For z outside the set and in the closed positive octant (signs are
 * restored at the end: reflecting a point across a coordinate plane toward
 * z brings it closer, so the closest point lies in z's octant), the
 * distance restricted to the octant's part of the surface has exactly one
 * stationary point, the closest one. So:
 *   two free rows:   X = (A0 cos p, A1 sin p), bisection on the sign of
 *                    (X - z).X' over [0, pi/2] (negative at 0, positive at
 *                    pi/2) to adjacent long doubles;
 *   three free rows: X = (Au sin q cos p, Av sin q sin p, Aw cos q) with
 *                    the pole on the row of least z_i / A_i (away from the
 *                    answer), a 25 x 25 grid on [0, pi/2]^2, then Newton
 *                    with the exact Hessian, backtracking on the distance
 *                    and kept in the square, to a step below 1e-18. */
#ifndef PX_TEST_CLOSEST_REF_H
#define PX_TEST_CLOSEST_REF_H

#include <math.h>
#include <stdint.h>

typedef long double ld;

static void ref_ellipse(const ld *a, const ld *p, ld *x)
{
	ld lo = 0, hi = acosl(-1.0L) / 2;

	for (int it = 0; it < 400; it++) {
		const ld mid = (lo + hi) / 2;
		ld c, s;

		if (mid <= lo || mid >= hi)
			break;
		c = cosl(mid);
		s = sinl(mid);
		/* the sign of (X - p).X', X' = (-a0 s, a1 c) */
		if ((a[0] * c - p[0]) * -a[0] * s <
		    -(a[1] * s - p[1]) * a[1] * c)
			lo = mid;
		else
			hi = mid;
	}
	x[0] = a[0] * cosl(lo);
	x[1] = a[1] * sinl(lo);
}

/* squared distance, gradient and Hessian in (q, p), from their sines and
 * cosines */
static ld ref_eval(const ld *a, const ld *z, ld sq, ld cq, ld sp, ld cp,
		   ld *grad, ld *hess, ld *x)
{
	const ld X[3] = {a[0] * sq * cp, a[1] * sq * sp, a[2] * cq};
	const ld Xq[3] = {a[0] * cq * cp, a[1] * cq * sp, -a[2] * sq};
	const ld Xp[3] = {-a[0] * sq * sp, a[1] * sq * cp, 0};
	const ld Xqq[3] = {-X[0], -X[1], -X[2]};
	const ld Xqp[3] = {-a[0] * cq * sp, a[1] * cq * cp, 0};
	const ld Xpp[3] = {-X[0], -X[1], 0};
	ld f = 0;

	if (grad)
		grad[0] = grad[1] = hess[0] = hess[1] = hess[2] = 0;
	for (int i = 0; i < 3; i++) {
		const ld d = X[i] - z[i];

		f += d * d;
		if (grad) {
			grad[0] += 2 * d * Xq[i];
			grad[1] += 2 * d * Xp[i];
			hess[0] += 2 * (Xq[i] * Xq[i] + d * Xqq[i]);
			hess[1] += 2 * (Xq[i] * Xp[i] + d * Xqp[i]);
			hess[2] += 2 * (Xp[i] * Xp[i] + d * Xpp[i]);
		}
		if (x)
			x[i] = X[i];
	}
	return f;
}

static ld ref_dist(const ld *a, const ld *z, ld q, ld p, ld *grad, ld *hess,
		   ld *x)
{
	return ref_eval(a, z, sinl(q), cosl(q), sinl(p), cosl(p), grad, hess,
			x);
}

/* One parametrization (pole on the last row): grid, then Newton. Returns
 * the tangency residual |(z - x) x n| / (|z - x| |n|), n = K x. */
static ld ref_ellipsoid3(const ld *a, const ld *z, ld *x)
{
	const ld half_pi = acosl(-1.0L) / 2;
	ld q = 0, p = 0, best = INFINITY, d[3], n[3], c[3], dn = 0, nn = 0,
	   cc = 0, sn[25], cs[25];

	for (int i = 0; i <= 24; i++) {
		sn[i] = sinl(half_pi * i / 24);
		cs[i] = cosl(half_pi * i / 24);
	}
	for (int i = 0; i <= 24; i++)
		for (int j = 0; j <= 24; j++) {
			const ld f = ref_eval(a, z, sn[i], cs[i], sn[j], cs[j],
					      NULL, NULL, NULL);

			if (f < best) {
				best = f;
				q = half_pi * i / 24;
				p = half_pi * j / 24;
			}
		}
	for (int it = 0; it < 200; it++) {
		ld g[2], h[3], dq, dp, det, step = 1, f0;
		int newton;

		f0 = ref_dist(a, z, q, p, g, h, NULL);
		det = h[0] * h[2] - h[1] * h[1];
		newton = h[0] > 0 && det > 0;
		if (newton) {
			dq = -(h[2] * g[0] - h[1] * g[1]) / det;
			dp = -(h[0] * g[1] - h[1] * g[0]) / det;
		} else { /* not convex here: steepest descent */
			const ld gn = sqrtl(g[0] * g[0] + g[1] * g[1]);

			if (gn == 0)
				break;
			dq = -g[0] / gn * 1e-2L;
			dp = -g[1] / gn * 1e-2L;
		}
		/* near the answer the distance no longer resolves the steps:
		 * take small Newton steps as they come (the gradient, not the
		 * distance, decides), back-track larger ones on the distance */
		for (int k = 0; k < 80; k++, step /= 2) {
			const ld nq = fminl(fmaxl(q + step * dq, 0), half_pi);
			const ld np = fminl(fmaxl(p + step * dp, 0), half_pi);

			if ((newton && fabsl(dq) + fabsl(dp) < 1e-4L) ||
			    ref_dist(a, z, nq, np, NULL, NULL, NULL) <= f0) {
				dq = nq - q;
				dp = np - p;
				q = nq;
				p = np;
				break;
			}
		}
		if (fabsl(dq) + fabsl(dp) < 1e-19L)
			break;
	}
	ref_dist(a, z, q, p, NULL, NULL, x);
	for (int i = 0; i < 3; i++) {
		d[i] = z[i] - x[i];
		n[i] = x[i] / a[i] / a[i];
	}
	c[0] = d[1] * n[2] - d[2] * n[1];
	c[1] = d[2] * n[0] - d[0] * n[2];
	c[2] = d[0] * n[1] - d[1] * n[0];
	for (int i = 0; i < 3; i++) {
		dn += d[i] * d[i];
		nn += n[i] * n[i];
		cc += c[i] * c[i];
	}
	return dn > 0 && nn > 0 ? sqrtl(cc / dn / nn) : 0;
}

/* The closest point of the set {sum (x_i / a_i)^2 <= 1}, rows with a_i = 0
 * pinned at 0, to z (n = 2 or 3 rows). */
static void ref_closest(const double *a, const double *z, uint32_t n,
			double *out)
{
	ld A[3], P[3], X[3], f = 0;
	uint32_t r[3], k = 0;

	for (uint32_t i = 0; i < n; i++) {
		out[i] = 0.0;
		if (a[i] > 0) {
			r[k] = i;
			A[k] = a[i];
			P[k] = fabsl((ld)z[i]);
			f += (P[k] / A[k]) * (P[k] / A[k]);
			k++;
		}
	}
	if (k == 0)
		return;
	if (f <= 1) {
		for (uint32_t j = 0; j < k; j++)
			out[r[j]] = z[r[j]];
		return;
	}
	if (k == 1) {
		X[0] = A[0];
	} else if (k == 2) {
		ref_ellipse(A, P, X);
	} else {
		/* each row as the pole in turn; keep the best tangency */
		ld res = INFINITY;

		for (uint32_t w = 0; w < 3; w++) {
			uint32_t perm[3];
			ld Ap[3], Pp[3], Xp[3], rw;

			for (uint32_t j = 0; j < 3; j++) {
				perm[j] = (w + 1 + j) % 3; /* pole row last */
				Ap[j] = A[perm[j]];
				Pp[j] = P[perm[j]];
			}
			rw = ref_ellipsoid3(Ap, Pp, Xp);
			if (rw < res) {
				res = rw;
				for (uint32_t j = 0; j < 3; j++)
					X[perm[j]] = Xp[j];
			}
		}
	}
	for (uint32_t j = 0; j < k; j++)
		out[r[j]] = (double)(z[r[j]] < 0 ? -X[j] : X[j]);
}

#endif
