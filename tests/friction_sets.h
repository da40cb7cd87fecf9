/* The friction sets as the tests know them, independently of the plugins:
 * membership, sampling, random problems and metrics, and the KKT residual
 * of a metric projection. Included by test_friction.c only. */
#ifndef PX_TEST_FRICTION_SETS_H
#define PX_TEST_FRICTION_SETS_H

#include <math.h>
#include <stdint.h>

#include <proxima/plugin.h>

struct rng {
	uint64_t s;
};

/* xorshift64*: a test's own deterministic generator. */
static double uniform(struct rng *r, double lo, double hi)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return lo + (hi - lo) * (double)((r->s * 2685821657736338717ull) >> 11) *
			    0x1.0p-53;
}

/* Semi-axes (round) or half-widths (box) b; b_i = 0 pins row i at 0. */
struct set {
	int round;
	uint32_t nf;
	double b[3];
};

static int in_set(const struct set *s, const double *x, double tol)
{
	double f = 0;

	for (uint32_t i = 0; i < s->nf; i++) {
		if (!isfinite(x[i]))
			return 0;
		if (s->b[i] == 0) {
			if (x[i] != 0)
				return 0;
		} else if (s->round) {
			f += (x[i] / s->b[i]) * (x[i] / s->b[i]);
		} else if (fabs(x[i]) > s->b[i] * (1 + tol)) {
			return 0;
		}
	}
	return f <= 1 + tol;
}

/* A point of the set: mode 0 anywhere, 1 on the boundary, 2 (box) a
 * vertex. */
static void sample(const struct set *s, struct rng *r, int mode, double *y)
{
	double u[3], len = 0;

	for (uint32_t i = 0; i < s->nf; i++) {
		if (!s->round) {
			const int edge = mode == 2 ||
					 (mode == 1 && uniform(r, 0, 1) < 0.5);

			if (edge)
				y[i] = uniform(r, 0, 1) < 0.5 ? -s->b[i]
							      : s->b[i];
			else
				y[i] = s->b[i] * uniform(r, -1, 1);
			continue;
		}
		u[i] = s->b[i] > 0 ? uniform(r, -1, 1) : 0;
		len = hypot(len, u[i]);
	}
	if (!s->round)
		return;
	for (uint32_t i = 0; i < s->nf; i++)
		y[i] = len > 0 ? s->b[i] * u[i] / len *
					 (mode ? 1 : uniform(r, 0, 1))
			       : 0;
}

/* The problem's size: the largest |z_i| or bound. */
static double size_of(const struct set *s, const double *z)
{
	double m = 0;

	for (uint32_t i = 0; i < s->nf; i++)
		m = fmax(m, fmax(fabs(z[i]), s->b[i]));
	return m;
}

/* A random SPD metric: L L^T + delta I, scaled, or diagonal, or I. */
static void random_metric(struct rng *r, uint32_t nf, double *g)
{
	double l[9], delta = pow(10, uniform(r, -2, 0));
	double scale = pow(10, uniform(r, -6, 6));
	double kind = uniform(r, 0, 1);

	for (uint32_t i = 0; i < 9; i++)
		l[i] = uniform(r, -1, 1);
	for (uint32_t i = 0; i < nf; i++)
		for (uint32_t j = 0; j < nf; j++) {
			double v = 0;

			for (uint32_t k = 0; k < nf; k++)
				v += l[i * 3 + k] * l[j * 3 + k];
			if (kind < 0.15 && i != j)
				v = 0;
			g[i * nf + j] = scale * (v + (i == j ? delta : 0));
		}
}

/* (a - b)^T g (c - d), g = NULL for I */
static double form(const double *g, const double *a, const double *b,
		   const double *c, const double *d, uint32_t nf)
{
	double q = 0;

	for (uint32_t i = 0; i < nf; i++)
		for (uint32_t j = 0; j < nf; j++)
			q += (a[i] - b[i]) * (g ? g[i * nf + j] : i == j) *
			     (c[j] - d[j]);
	return q;
}

/* Random friction coefficients: any of mu_s, mu_t, mu_tau may be 0 (the
 * fallback), tiny (flat sets, ratio 1e-8) or up to 2. */
static struct px_friction_params random_params(struct rng *r)
{
	struct px_friction_params fp = {uniform(r, 0, 2), uniform(r, 0, 2),
					uniform(r, 0, 2), uniform(r, 0, 2)};
	double *c[3] = {&fp.mu_s, &fp.mu_t, &fp.mu_tau};

	for (int i = 0; i < 3; i++) {
		const double u = uniform(r, 0, 1);

		if (u < 0.15)
			*c[i] = 0;
		else if (u < 0.3)
			*c[i] *= 1e-8;
	}
	return fp;
}

/* z of size `scale`, rows sometimes 0 (on an axis) or 1e-8 smaller. */
static void random_point(struct rng *r, double scale, uint32_t nf, double *z)
{
	for (uint32_t i = 0; i < nf; i++) {
		const double u = uniform(r, 0, 1);

		z[i] = scale * uniform(r, -3, 3);
		if (u < 0.15)
			z[i] = 0;
		else if (u < 0.25)
			z[i] *= 1e-8;
	}
}

/* Random problems of sizes 1e-12 .. 1e12, 2- and 3-row, lambda_n sometimes
 * 0; g = NULL for project. */
struct trial {
	struct px_friction_params fp;
	double ln, z[3], g[9];
	uint32_t nf;
};

static struct trial random_trial(struct rng *r)
{
	struct trial t;
	const double scale = pow(10, uniform(r, -12, 12));

	t.fp = random_params(r);
	t.nf = uniform(r, 0, 1) < 0.5 ? 2 : 3;
	t.ln = uniform(r, 0, 1) < 0.05 ? 0 : scale * uniform(r, 0, 1);
	random_point(r, scale * pow(10, uniform(r, -1, 1)), t.nf, t.z);
	random_metric(r, t.nf, t.g);
	return t;
}

/* KKT of the metric projection, w = g (z - x): on the ellipsoid (free rows
 * b_i > 0, u = x / b) D w = theta u with theta >= 0 on the boundary and
 * w = 0 inside; on the box w_i = 0 on free rows, w_i >= 0 at +b_i,
 * w_i <= 0 at -b_i. Rows pinned at 0 carry no condition. The residual is
 * relative to the size of the terms, max|g| * size (times max b for D w):
 * relative to |D w| itself it would measure the rounding of x on flat
 * sets, where D w is a tiny difference of large terms. */
static double kkt_residual(const struct set *s, const double *g,
			   const double *z, const double *x)
{
	const uint32_t nf = s->nf;
	double w[3], v[3], u[3], uu = 0, vu = 0, res = 0, gmax = 0, bmax = 0;
	double scale;

	for (uint32_t i = 0; i < nf; i++) {
		w[i] = 0;
		for (uint32_t j = 0; j < nf; j++) {
			w[i] += g[i * nf + j] * (z[j] - x[j]);
			gmax = fmax(gmax, fabs(g[i * nf + j]));
		}
		bmax = fmax(bmax, s->b[i]);
	}
	scale = gmax * size_of(s, z);
	for (uint32_t i = 0; i < nf; i++) {
		u[i] = s->b[i] > 0 ? x[i] / s->b[i] : 0;
		uu += u[i] * u[i];
	}
	/* a point within 1e-6 of the rim counts as on it: D w = theta u
	 * holds there (with theta ~ 0 should it be inside), while flat sets
	 * leave |u| only 1e-9 accurate on their tiny rows */
	if (!s->round || uu < 1 - 1e-6) {
		for (uint32_t i = 0; i < nf; i++) {
			if (s->b[i] == 0)
				continue;
			if (s->round || fabs(x[i]) < s->b[i])
				res = fmax(res, fabs(w[i]) / scale);
			else if (x[i] == s->b[i])
				res = fmax(res, -w[i] / scale);
			else
				res = fmax(res, w[i] / scale);
		}
		return res;
	}
	scale *= bmax;
	for (uint32_t i = 0; i < nf; i++) {
		v[i] = s->b[i] * w[i];
		vu += v[i] * u[i] / sqrt(uu);
	}
	res = fmax(0, -vu / scale); /* pointing inwards */
	for (uint32_t i = 0; i < nf; i++) {
		const double d = v[i] - vu * u[i] / sqrt(uu);

		res = fmax(res, fabs(d) / scale);
	}
	return res;
}

#endif
