/* Friction set `ellipsoid`: the Coulomb-Contensou law (Erleben 2017, sec. 4.1).
 * The friction impulse (s, t, tau) of a 4-row contact is projected onto the
 * ellipsoid x^T K x <= 1 of semi-axes (mu_s, mu_t, mu_tau) * lambda_n
 * (Erleben 2017, eq. 28-29); on 3-row contacts, or with mu_tau = 0, it is the
 * anisotropic ellipse in (s, t) and tau is 0. Coefficients: see
 * px_friction_bounds (common.h); the parameter `mu_tau` serves contacts
 * whose problem gives no torsional coefficient.
 *
 * The closest point of a point z outside is x = (tK + I)^-1 z (eq. 32) with
 * t > 0 the root of g(t) (eq. 35), found by bisection on [0, t_max] where
 * t_max = 1.5^k t_guess, t_guess = max{a, b, c} ||z|| (eq. 36), in the unit
 * cube (eq. 37-38); a point inside is returned as it is. Two refinements:
 * the midpoint is taken in the doubles' bit order (px_bisect_mid), so the
 * bisection ends, after at most 64 steps, on adjacent doubles even when a
 * flat ellipsoid puts the root orders of magnitude below t_guess; and the
 * point is taken at the bracket's upper end, where g <= 0 (inside).
 * Zero semi-axes (or ones below PX_AXIS_MIN of the problem's size) pin
 * their rows at 0, one free row is a clamp, equal semi-axes are a ball (the
 * circle case is `disc`'s formula, so the two agree bit for bit, in
 * project_metric too). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

struct ellipsoid {
	double mu_tau; /* torsional coefficient when the problem has none */
};

enum { P_MU_TAU };

static const struct px_param_decl ellipsoid_params[] = {
	[P_MU_TAU] = {"mu_tau", PX_PARAM_REAL, "0",
		      "torsional coefficient for contacts whose mu_tau is 0 (4-row contacts)",
		      0, 1e300, NULL},
};

static int ellipsoid_create(const union px_value *values, void **state,
			    char *err, size_t errlen)
{
	struct ellipsoid *e = malloc(sizeof *e);

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	e->mu_tau = values[P_MU_TAU].r;
	*state = e;
	return 0;
}

static void ellipsoid_destroy(void *state)
{
	free(state);
}

/* Erleben 2017, eq. 35 on the scaled problem, k free rows */
static double g_of_t(const double *a, const double *w, uint32_t k, double t)
{
	double sum = 0.0;

	for (uint32_t i = 0; i < k; i++) {
		const double q = a[i] * w[i] / (a[i] * a[i] + t);

		sum += q * q;
	}
	return sum - 1.0;
}

/* Rows r[0..k) (k >= 2) of semi-axes a > 0, point w outside, scaled into
 * the unit cube: the closest point, in place. */
static void closest_point(const double *a, double *w, uint32_t k)
{
	double amax = 0.0, len = 0.0, lo = 0.0, hi;
	int ball = 1;

	for (uint32_t i = 0; i < k; i++) {
		amax = px_max(amax, a[i]);
		len = hypot(len, w[i]);
		ball &= a[i] == a[0];
	}
	if (ball) {
		const double scale = a[0] / len;

		for (uint32_t i = 0; i < k; i++)
			w[i] *= scale;
		return;
	}
	/* eq. 36: g(t_guess) <= 0 already in exact terms */
	hi = px_max(amax * len, DBL_MIN);
	for (int i = 0; i < 64 && g_of_t(a, w, k, hi) > 0.0; i++)
		hi *= 1.5;
	for (int it = 0; it < 80; it++) {
		const double mid = px_bisect_mid(lo, hi);

		if (mid <= lo || mid >= hi)
			break; /* adjacent doubles: no longer shrinks */
		if (g_of_t(a, w, k, mid) > 0.0)
			lo = mid;
		else
			hi = mid;
	}
	for (uint32_t i = 0; i < k; i++)
		w[i] = a[i] * (a[i] * w[i] / (a[i] * a[i] + hi)); /* eq. 32 */
}

/* The Euclidean projection onto the ellipsoid of semi-axes a (n rows). */
static void project_axes(const double *a, double *z, uint32_t n)
{
	uint32_t r[3], k = 0;
	double w[3], ax[3], big = 0.0, f = 0.0;
	int e;

	/* eq. 37-38, by a power of two (exact, and scales tiny problems up) */
	for (uint32_t i = 0; i < n; i++)
		if (a[i] > 0.0)
			big = px_max(big, px_max(a[i], fabs(z[i])));
	frexp(big, &e);
	for (uint32_t i = 0; i < n; i++) {
		/* a zero semi-axis, or a negligible one, pins its row */
		const double ai = a[i] > 0.0 ? ldexp(a[i], -e) : 0.0;

		if (ai >= PX_AXIS_MIN) {
			r[k] = i;
			ax[k] = ai;
			w[k] = ldexp(z[i], -e);
			f += (w[k] / ai) * (w[k] / ai);
			k++;
		} else {
			z[i] = 0.0;
		}
	}
	if (k == 0 || f <= 1.0)
		return; /* inside (eq. 28 <= 0): z itself */
	if (k == 1)
		w[0] = px_min(px_max(w[0], -ax[0]), ax[0]);
	else
		closest_point(ax, w, k);
	for (uint32_t i = 0; i < k; i++)
		z[r[i]] = ldexp(w[i], e);
}

static void ellipsoid_project(const void *state,
			      const struct px_friction_params *fp,
			      double lambda_n, double *z, uint32_t nf)
{
	const struct ellipsoid *el = state;
	double a[3];

	px_friction_bounds(fp, el->mu_tau, lambda_n, nf, a);
	if (a[0] == a[1] && (nf < 3 || !(a[2] > 0.0))) {
		/* the circle: exactly disc's projection */
		px_disc_project(z, a[0]);
		if (nf > 2)
			z[2] = 0.0;
		return;
	}
	project_axes(a, z, nf);
}

static void ellipsoid_project_metric(const void *state,
				     const struct px_friction_params *fp,
				     double lambda_n, const double *g,
				     double *z, uint32_t nf)
{
	const struct ellipsoid *el = state;
	double a[3], m[9];

	if (px_metric_is_scalar(g, nf) || px_metric_load(g, nf, m)) {
		ellipsoid_project(state, fp, lambda_n, z, nf);
		return;
	}
	px_friction_bounds(fp, el->mu_tau, lambda_n, nf, a);
	px_metric_ellipsoid(m, nf, a, z);
}

/* What `proxima plugins --describe ellipsoid` prints (ABI 1.4). */
static const char ellipsoid_doc[] =
	"The Coulomb-Contensou law (Erleben 2017, sec. 4.1): the friction impulse\n"
	"(s, t, tau) of a 4-row contact, torsion included, lies in the ellipsoid\n"
	"x^T K x <= 1 of semi-axes (mu_s, mu_t, mu_tau) lambda_n (Erleben 2017,\n"
	"eq. 28-29). A point outside is moved to its closest point x = (t K +\n"
	"I)^-1 z (eq. 32), t > 0 the root of\n"
	"\n"
	"    g(t) = sum_i a_i^2 z_i^2 / (a_i^2 + t)^2 - 1      (eq. 35)\n"
	"\n"
	"found by bisection on [0, 1.5^k max(a_i) |z|] (eq. 36) in the unit cube\n"
	"(eq. 37-38); proxima bisects in the bit order of doubles, so it ends on\n"
	"adjacent doubles even for flat ellipsoids. On 3-row contacts, or with\n"
	"mu_tau = 0, it is the anisotropic ellipse in (s, t) and tau is 0; with\n"
	"equal semi-axes it is exactly disc's formula, bit for bit.\n"
	"\n"
	"Choose it for spinning contacts (a disc or sphere turning about the\n"
	"normal: scenes spin-sphere, spin-disc) and anisotropic friction. It\n"
	"costs a bisection per projection where disc costs a square root: on\n"
	"isotropic 3-row problems disc gives the same answer faster. The set is\n"
	"not separable (rows share one r). mu_tau is the torsional coefficient\n"
	"for contacts whose problem gives none (the world gives one when both\n"
	"bodies set mu_tau > 0).\n";

static const struct px_friction_ops ellipsoid_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_FRICTION,
		.ops_size = sizeof(struct px_friction_ops),
		.name = "ellipsoid",
		.summary = "Coulomb-Contensou: project (s, t, tau) onto the ellipsoid of semi-axes (mu_s, mu_t, mu_tau) * lambda_n",
		.params = ellipsoid_params,
		.n_params = 1,
		.create = ellipsoid_create,
		.destroy = ellipsoid_destroy,
	},
	.flags = 0, /* not separable: the rows share one r */
	.project = ellipsoid_project,
	.project_metric = ellipsoid_project_metric,
	.doc = ellipsoid_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ellipsoid_ops.h;
}
