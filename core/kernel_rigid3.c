/* The relax kernel of rigid 3-row contacts (issue 5): the same update as
 * kernel.c's general one (001 eq. 20-24: the normal row, then both
 * friction rows together with the velocity the new normal impulse gives,
 * then the body velocities), specialised to what every rigid-body scene
 * gives: a contact frame (rows n, s, t) and lever arms, bodies with a
 * mass and an inertia, a diagonal R and a friction set that takes s and t
 * together. Fixed sizes, no part or form tests, no loops over rows
 * (grid-24, sequential: 52 ns per contact-sweep, the general kernel 75).
 * It reads the problem's arrays in place: a gathered 120-byte copy per
 * contact was no faster in the sequential order (it may help a coloring's
 * scattered order; not measured cleanly). Full sweeps only: a part
 * (normal or friction) goes through the general kernel. */
#include <math.h>

#include "kernel.h"
#include "problem_impl.h"

static inline void cross(const double *a, const double *b, double *out)
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

int px_r3_applies(const struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;

	return p->form == PX_FORM_RIGID && p->bs == 3 &&
	       c->r_shape != PX_R_BLOCK && !c->separable;
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
	const struct px_problem *p = c->p;
	const double *f = p->frame + 9 * (size_t)k, *lev = p->lever + 6 * (size_t)k;
	const double *D = c->diag + 9 * (size_t)k;
	const double *lam = c->lambda + 3 * (size_t)k;
	const double *b = p->b + 3 * (size_t)k, *r = c->r + 3 * (size_t)k;
	const uint32_t ba = p->body_a[k], bb = p->body_b[k];
	double du[3] = {0.0, 0.0, 0.0}, v[3], z[2], ln;

	if (ba != PX_STATIC)
		point_velocity(w + 6 * (size_t)ba, lev, 1.0, du);
	if (bb != PX_STATIC)
		point_velocity(w + 6 * (size_t)bb, lev + 3, -1.0, du);
	for (int i = 0; i < 3; i++)
		v[i] = b[i] + f[3 * i] * du[0] + f[3 * i + 1] * du[1] +
		       f[3 * i + 2] * du[2];
	ln = lam[0] - r[0] * v[0];
	ln = ln > 0.0 ? ln : 0.0;
	/* A_sn, A_tn: the friction velocity per unit normal impulse */
	v[1] += D[3] * (ln - lam[0]);
	v[2] += D[6] * (ln - lam[0]);
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
	const struct px_problem *p = c->p;
	const double *f = p->frame + 9 * (size_t)k, *lev = p->lever + 6 * (size_t)k;
	const uint32_t ba = p->body_a[k], bb = p->body_b[k];
	double *lam = lambda + 3 * (size_t)k, P[3];
	const double d0 = out[0] - lam[0], d1 = out[1] - lam[1],
		     d2 = out[2] - lam[2];

	for (int i = 0; i < 3; i++)
		P[i] = f[i] * d0 + f[3 + i] * d1 + f[6 + i] * d2;
	if (ba != PX_STATIC)
		impulse(p, w, ba, lev, P, 1.0);
	if (bb != PX_STATIC)
		impulse(p, w, bb, lev + 3, P, -1.0);
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
