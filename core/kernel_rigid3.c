/* The compact relax kernel of rigid 3-row contacts (issue 5): the same
 * update as kernel.c's general one (001 eq. 20-24: the normal row, then
 * both friction rows together with the velocity the new normal impulse
 * gives, then the body velocities), for the case every rigid-body scene
 * produces: a contact frame (n, s, t = n x s), lever arms, bodies with a
 * mass and an inertia, a diagonal R and a friction set that takes s and t
 * together.
 *
 * What a sweep reads of a contact is gathered once per solve into one
 * 120-byte record (struct px_r3 in kernel.h) instead of five arrays of the
 * problem and the driver (frame, levers, bodies, the diagonal block for
 * A_sn and A_tn): t is not stored but recomputed, and nothing is
 * recomputed that can be stored once. Full sweeps only: a part (normal or
 * friction) goes through the general kernel. */
#include <math.h>
#include <stdlib.h>

#include "kernel.h"
#include "problem_impl.h"

static inline void cross(const double *a, const double *b, double *out)
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Whether t is n x s to within rounding, so that it need not be stored. */
static int right_handed(const double *f)
{
	double t[3];

	cross(f, f + 3, t);
	for (int i = 0; i < 3; i++)
		if (!(fabs(t[i] - f[6 + i]) <= 1e-12))
			return 0;
	return 1;
}

int px_r3_build(struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;

	if (p->form != PX_FORM_RIGID || p->bs != 3 || c->r_shape == PX_R_BLOCK ||
	    c->separable)
		return 0;
	for (size_t k = 0; k < p->n; k++)
		if (!right_handed(p->frame + 9 * k))
			return 0;
	c->r3 = malloc((p->n + 1) * sizeof *c->r3);
	if (!c->r3)
		return -1;
	for (size_t k = 0; k < p->n; k++) {
		struct px_r3 *q = &c->r3[k];
		const double *f = p->frame + 9 * k, *lev = p->lever + 6 * k;
		const double *D = c->diag + 9 * k;

		q->a = p->body_a[k];
		q->b = p->body_b[k];
		for (int i = 0; i < 3; i++) {
			q->n[i] = f[i];
			q->s[i] = f[3 + i];
			q->ra[i] = lev[i];
			q->rb[i] = lev[3 + i];
		}
		q->a_sn = D[3];
		q->a_tn = D[6];
	}
	return 1;
}

/* u += sign (v + omega x r): the velocity of the point at lever r of
 * body w. */
static inline void point_velocity(const double *w, const double *r,
				  double sign, double *u)
{
	double wr[3];

	cross(w + 3, r, wr);
	for (int i = 0; i < 3; i++)
		u[i] += sign * (w[i] + wr[i]);
}

static inline void solve(const struct px_kernel_ctx *c, const double *w,
			 uint32_t k, double *out)
{
	const struct px_r3 *q = &c->r3[k];
	const double *lam = c->lambda + 3 * (size_t)k;
	const double *b = c->p->b + 3 * (size_t)k, *r = c->r + 3 * (size_t)k;
	double du[3] = {0.0, 0.0, 0.0}, t[3], v[3], z[2], ln;

	if (q->a != PX_STATIC)
		point_velocity(w + 6 * (size_t)q->a, q->ra, 1.0, du);
	if (q->b != PX_STATIC)
		point_velocity(w + 6 * (size_t)q->b, q->rb, -1.0, du);
	cross(q->n, q->s, t);
	v[0] = b[0] + q->n[0] * du[0] + q->n[1] * du[1] + q->n[2] * du[2];
	v[1] = b[1] + q->s[0] * du[0] + q->s[1] * du[1] + q->s[2] * du[2];
	v[2] = b[2] + t[0] * du[0] + t[1] * du[1] + t[2] * du[2];
	ln = lam[0] - r[0] * v[0];
	ln = ln > 0.0 ? ln : 0.0;
	v[1] += q->a_sn * (ln - lam[0]);
	v[2] += q->a_tn * (ln - lam[0]);
	z[0] = lam[1] - r[1] * v[1];
	z[1] = lam[2] - r[2] * v[2];
	c->project(c->fstate, &c->p->friction[k], ln, z, 2);
	out[0] = ln;
	out[1] = z[0];
	out[2] = z[1];
}

/* Body `index` of the problem receives sign P at lever r. */
static inline void impulse(const struct px_problem *p, double *w,
			   uint32_t index, const double *r, const double *P,
			   double sign)
{
	const double *ii = p->inv_inertia + 6 * (size_t)index;
	const double im = sign * p->inv_mass[index];
	double *wb = w + 6 * (size_t)index, tq[3];

	cross(r, P, tq);
	wb[0] += im * P[0];
	wb[1] += im * P[1];
	wb[2] += im * P[2];
	wb[3] += sign * (ii[0] * tq[0] + ii[1] * tq[1] + ii[2] * tq[2]);
	wb[4] += sign * (ii[1] * tq[0] + ii[3] * tq[1] + ii[4] * tq[2]);
	wb[5] += sign * (ii[2] * tq[0] + ii[4] * tq[1] + ii[5] * tq[2]);
}

static inline void commit(const struct px_kernel_ctx *c, double *lambda,
			  double *w, uint32_t k, const double *out)
{
	const struct px_r3 *q = &c->r3[k];
	double *lam = lambda + 3 * (size_t)k, t[3], P[3];
	const double d0 = out[0] - lam[0], d1 = out[1] - lam[1],
		     d2 = out[2] - lam[2];

	cross(q->n, q->s, t);
	for (int i = 0; i < 3; i++)
		P[i] = q->n[i] * d0 + q->s[i] * d1 + t[i] * d2;
	if (q->a != PX_STATIC)
		impulse(c->p, w, q->a, q->ra, P, 1.0);
	if (q->b != PX_STATIC)
		impulse(c->p, w, q->b, q->rb, P, -1.0);
	lam[0] = out[0];
	lam[1] = out[1];
	lam[2] = out[2];
}

void px_r3_solve(const struct px_kernel_ctx *c, const double *w, uint32_t k,
		 double *out)
{
	solve(c, w, k, out);
}

void px_r3_commit(const struct px_kernel_ctx *c, double *lambda, double *w,
		  uint32_t k, const double *out)
{
	commit(c, lambda, w, k, out);
}

/* One list: the chain of updates through shared bodies runs as it is. */
static void relax_one(const struct px_kernel_ctx *c, const uint32_t *list,
		      size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double out[3];

		solve(c, c->w, list[i], out);
		commit(c, c->lambda, c->w, list[i], out);
	}
}

/* Two independent lists, a contact of each in turn: both solves read
 * bodies the other list never writes, so the two chains overlap. */
static void relax_two(const struct px_kernel_ctx *c, const uint32_t *a,
		      size_t na, const uint32_t *b, size_t nb)
{
	const size_t both = na < nb ? na : nb;

	for (size_t i = 0; i < both; i++) {
		double oa[3], ob[3];

		solve(c, c->w, a[i], oa);
		solve(c, c->w, b[i], ob);
		commit(c, c->lambda, c->w, a[i], oa);
		commit(c, c->lambda, c->w, b[i], ob);
	}
	relax_one(c, a + both, na - both);
	relax_one(c, b + both, nb - both);
}

void px_r3_relax_lists(const struct px_kernel_ctx *c,
		       const uint32_t *const *lists, const size_t *counts,
		       unsigned m)
{
	unsigned j = 0;

	for (; j + 1 < m; j += 2)
		relax_two(c, lists[j], counts[j], lists[j + 1], counts[j + 1]);
	if (j < m)
		relax_one(c, lists[j], counts[j]);
}
