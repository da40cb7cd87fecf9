/* Friction set `box`: the NCP box model of Poulsen et al. 2010 (eq. 4, 7d-7e):
 * each friction row is clamped on its own to [-b_i, b_i] with b_i = mu_i
 * lambda_n, the coefficients taken as for the ellipsoid (px_friction_bounds,
 * common.h: mu_s, mu_t, mu_tau when non-zero, else mu for s and t and the
 * parameter `mu_tau` for tau). The set is a product of intervals: separable.
 *
 * bound = constant is Catto's simplification (Catto 2005, sec. 4.3, eq. 24-25):
 * the tangential rows s and t are bounded by a constant, -limit <= lambda_u
 * <= limit, that does not see the normal impulse (Catto 2005 takes mu m_c g
 * with m_c the mass share of the contact; here `limit` is that bound in the
 * units of lambda, i.e. as an impulse). Catto (2005) has no torsional row: tau
 * keeps mu_tau lambda_n, 0 by default.
 *
 * The projection in a metric g (project_metric) is the small box QP
 *     min (x - z)^T g (x - z),  -b <= x <= b,
 * solved exactly: its minimizer has some pattern of rows at +b, at -b or
 * free, and given the pattern the free rows solve g_ff x_f = g_ff z_f -
 * g_fc (x_c - z_c). Every one of the 3^nf patterns is tried, its free rows
 * clamped into the box (so each candidate is feasible) and the candidate
 * with the least objective kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

enum { BOUND_PROPORTIONAL = 0, BOUND_CONSTANT = 1 };

struct box {
	int bound;     /* BOUND_* */
	double limit;  /* the constant s, t bound (BOUND_CONSTANT) */
	double mu_tau; /* torsional coefficient when the problem has none */
};

enum { P_BOUND, P_LIMIT, P_MU_TAU };

static const struct px_param_decl box_params[] = {
	[P_BOUND] = {"bound", PX_PARAM_CHOICE, "proportional",
		     "s, t bound: mu lambda_n (Poulsen et al. 2010, eq. 4) or the constant limit (Catto 2005, eq. 24-25)",
		     0, 0, "proportional|constant"},
	[P_LIMIT] = {"limit", PX_PARAM_REAL, "-1",
		     "the constant s, t bound (an impulse >= 0), required by bound = constant; -1: unset",
		     1, 0, NULL},
	[P_MU_TAU] = {"mu_tau", PX_PARAM_REAL, "0",
		      "torsional coefficient for contacts whose mu_tau is 0 (4-row contacts)",
		      0, 1e300, NULL},
};

static int box_create(const union px_value *values, void **state, char *err,
		      size_t errlen)
{
	const int bound = values[P_BOUND].choice;
	const double limit = values[P_LIMIT].r;
	struct box *b;

	if (bound == BOUND_CONSTANT && limit < 0.0) {
		snprintf(err, errlen,
			 "bound = constant needs limit, the constant friction bound (an impulse >= 0, Catto 2005, eq. 24-25); found limit = %g%s",
			 limit, limit == -1.0 ? " (unset)" : "");
		return -1;
	}
	if (bound != BOUND_CONSTANT && limit != -1.0) {
		snprintf(err, errlen,
			 "limit = %g is only used with bound = constant (bound is proportional)",
			 limit);
		return -1;
	}
	b = malloc(sizeof *b);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	b->bound = bound;
	b->limit = limit;
	b->mu_tau = values[P_MU_TAU].r;
	*state = b;
	return 0;
}

static void box_destroy(void *state)
{
	free(state);
}

/* The half-widths of the box, row by row; a bound that is not > 0 is 0. */
static void box_bounds(const struct box *bx,
		       const struct px_friction_params *fp, double lambda_n,
		       uint32_t nf, double *b)
{
	px_friction_bounds(fp, bx->mu_tau, lambda_n, nf, b);
	if (bx->bound == BOUND_CONSTANT)
		b[0] = b[1] = bx->limit;
	for (uint32_t i = 0; i < nf; i++)
		if (!(b[i] > 0.0))
			b[i] = 0.0;
}

static void box_project(const void *state, const struct px_friction_params *fp,
			double lambda_n, double *z, uint32_t nf)
{
	double b[3];

	box_bounds(state, fp, lambda_n, nf, b);
	for (uint32_t i = 0; i < nf; i++)
		z[i] = px_min(px_max(z[i], -b[i]), b[i]);
}

/* (x - w)^T m (x - w), m with row stride 3 */
static double objective(const double *m, const double *x, const double *w,
			uint32_t n)
{
	double q = 0.0;

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			q += (x[i] - w[i]) * m[i * 3 + j] * (x[j] - w[j]);
	return q;
}

/* One active-set pattern p (base-3 digits: 0 free, 1 at +b, 2 at -b): its
 * feasible candidate into x. Returns -1 for a pattern to skip. */
static int candidate(const double *m, const double *w, const double *b,
		     uint32_t n, uint32_t p, double *x)
{
	uint32_t f[3], nfree = 0;
	int fixed[3];
	double sub[9], rhs[3], y[3];

	for (uint32_t i = 0; i < n; i++, p /= 3) {
		fixed[i] = p % 3 != 0;
		if (!fixed[i])
			f[nfree++] = i;
		else if (p % 3 == 2 && b[i] == 0.0)
			return -1; /* the same candidate as +b */
		else
			x[i] = p % 3 == 1 ? b[i] : -b[i];
	}
	for (uint32_t j = 0; j < nfree; j++) {
		rhs[j] = 0.0;
		for (uint32_t i = 0; i < n; i++)
			if (fixed[i])
				rhs[j] -= m[f[j] * 3 + i] * (x[i] - w[i]);
		for (uint32_t l = 0; l < nfree; l++)
			sub[j * 3 + l] = m[f[j] * 3 + f[l]];
	}
	if (nfree > 0 && px_sym_solve(sub, nfree, rhs, y))
		return -1;
	for (uint32_t j = 0; j < nfree; j++)
		x[f[j]] = px_min(px_max(w[f[j]] + y[j], -b[f[j]]), b[f[j]]);
	return 0;
}

static void box_project_metric(const void *state,
			       const struct px_friction_params *fp,
			       double lambda_n, const double *g, double *z,
			       uint32_t nf)
{
	double b[3], bs[3], m[9], w[3], x[3], best[3], bestq = HUGE_VAL;
	double big = 0.0;
	uint32_t npat = 1;
	int e, inside = 1;

	box_bounds(state, fp, lambda_n, nf, b);
	for (uint32_t i = 0; i < nf; i++)
		inside &= fabs(z[i]) <= b[i];
	if (inside)
		return;
	if (px_metric_is_scalar(g, nf) || px_metric_load(g, nf, m)) {
		box_project(state, fp, lambda_n, z, nf);
		return;
	}
	/* into the unit cube (Erleben 2017, eq. 37-38, by a power of two) */
	for (uint32_t i = 0; i < nf; i++)
		big = px_max(big, px_max(fabs(z[i]), b[i]));
	frexp(big, &e);
	for (uint32_t i = 0; i < nf; i++) {
		w[i] = ldexp(z[i], -e);
		bs[i] = ldexp(b[i], -e);
		npat *= 3;
	}
	for (uint32_t p = 0; p < npat; p++) {
		double q;

		if (candidate(m, w, bs, nf, p, x))
			continue;
		q = objective(m, x, w, nf);
		if (q < bestq) {
			bestq = q;
			for (uint32_t i = 0; i < nf; i++)
				best[i] = x[i];
		}
	}
	/* pattern 0 (all free) always yields a candidate; clamp again to the
	 * unscaled box, which a subnormal bound does not survive scaling */
	for (uint32_t i = 0; i < nf; i++)
		z[i] = px_min(px_max(ldexp(best[i], e), -b[i]), b[i]);
}

/* What `proxima plugins --describe box` prints (ABI 1.4). */
static const char box_doc[] =
	"The NCP box model of Poulsen et al. 2010 (eq. 4, 7d-7e) and Silcowitz et\n"
	"al. 2010: each friction row is clamped on its own to [-mu_i lambda_n,\n"
	"mu_i lambda_n], two decoupled one-dimensional Coulomb laws instead of\n"
	"one disc:\n"
	"\n"
	"    prox(z)_i = min(mu_i lambda_n, max(-mu_i lambda_n, z_i))\n"
	"\n"
	"The coefficients are mu_s, mu_t and mu_tau of the contact when the\n"
	"problem gives them, else mu for s and t and the parameter mu_tau for a\n"
	"torsional row. The set is a product of intervals (separable): every row\n"
	"may have its own r, so rfactor local uses r_i = gamma / A_ii row by row,\n"
	"exactly projected Gauss-Seidel (PGS) and PSOR of Poulsen et al. 2010 and\n"
	"Silcowitz et al. 2010. With bound = constant, s and t are bounded by the\n"
	"fixed impulse limit, not by mu lambda_n: Catto's simplification (Catto\n"
	"2005, sec. 4.3, eq. 24-25), which makes the bounds constant and the\n"
	"problem a boxed LCP.\n"
	"\n"
	"Choose it to reproduce Poulsen et al. 2010, Silcowitz et al. 2010 or\n"
	"Catto 2005 (classic PGS), or when speed matters more than isotropy: the\n"
	"box allows up to sqrt(2) mu lambda_n along a diagonal, so it\n"
	"over-estimates friction there and sliding need not oppose the velocity.\n"
	"With merit = minmap the stop test is Poulsen et al.'s (2010) Theta = 1/2\n"
	"H^T H of this model. limit is required with bound = constant and refused\n"
	"otherwise; mu_tau matters only on 4-row contacts whose problem gives no\n"
	"torsional coefficient.\n";

static const struct px_friction_ops box_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_FRICTION,
		.ops_size = sizeof(struct px_friction_ops),
		.name = "box",
		.summary = "NCP box friction: clamp each friction row to [-mu lambda_n, mu lambda_n] (or Catto's constant bound)",
		.params = box_params,
		.n_params = 3,
		.create = box_create,
		.destroy = box_destroy,
	},
	.flags = PX_FRICTION_SEPARABLE,
	.project = box_project,
	.project_metric = box_project_metric,
	.doc = box_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &box_ops.h;
}
