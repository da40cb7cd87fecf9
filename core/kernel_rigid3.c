/* The relax kernel of rigid 3-row contacts (issue 5): the same update as
 * kernel.c's general one (Erleben 2017, eq. 20-24: the normal row, then both
 * friction rows together with the velocity the new normal impulse gives,
 * then the body velocities), specialised to what every rigid-body scene
 * gives: a contact frame (rows n, s, t) and lever arms, bodies with a
 * mass and an inertia, a diagonal R and a friction set that takes s and t
 * together. Fixed sizes, no part or form tests, no loops over rows, the
 * array pointers loaded once per call and declared restrict (so that a
 * store to w does not force every frame and lever value to be reloaded),
 * the disc's projection computed here rather than called
 * (PX_FRICTION_IS_DISC; other sets are called only for the points they
 * may move, PX_FRICTION_KEEPS_DISC), and the bodies left alone when the
 * impulse does not change. It gives the general kernel's lambda bit for
 * bit (tests/test_scenes.c).
 *
 * grid-24, sequential (bench/schedulers), ns per contact-sweep inside the
 * sweeps: 52-54 for the whole solve with the first version of this file
 * (the problem's arrays re-read through p after every store to w, the
 * friction plugin called for every contact; about 530 instructions per
 * contact under callgrind), 31 with restrict, the pointers loaded once and
 * no call inside the disc, 29 with solve and commit inlined, 23 with the
 * disc's projection inline (the horizontal contacts, two in three, carry
 * no normal impulse, so their radius is 0 and every one of them called
 * the plugin), 17 without the body update of an unchanged impulse (those
 * same contacts: it takes them off the chain through the body each
 * contact shares with the one before), 15.4 (grid-40: 16.1 from 17.3)
 * with A_sn, A_tn and mu gathered into 3 doubles per contact (coef)
 * instead of streaming the 9 of the diagonal block and the 4 of the
 * friction parameters. The rest it reads from the problem's arrays in
 * place: a gathered 120-byte copy of all of it per contact was no faster.
 * Full sweeps only: a part (normal or friction) goes through the general
 * kernel. */
#include <math.h>
#include <stdlib.h>

#include "kernel_rigid3.h"
#include "problem_impl.h"

/* solve and commit are inlined into every loop whatever the compiler's
 * size heuristics say: as calls (what -O2 made of them) grid-24 takes 31
 * ns per contact-sweep in the sweeps, inlined 29 */
#define R3_INLINE static inline __attribute__((always_inline))

int px_r3_applies(const struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;

	return p->form == PX_FORM_RIGID && p->bs == 3 &&
	       c->r_shape != PX_R_BLOCK && !c->separable;
}

int px_r3_init(struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;

	c->coef = malloc(3 * p->n * sizeof *c->coef);
	if (!c->coef)
		return PX_ERR_NOMEM;
	for (size_t k = 0; k < p->n; k++) {
		c->coef[3 * k] = c->diag[9 * k + 3];
		c->coef[3 * k + 1] = c->diag[9 * k + 6];
		c->coef[3 * k + 2] = p->friction[k].mu;
	}
	return PX_OK;
}

/* Contact k's new impulse out[3] from lambda and the body velocities w. */
R3_INLINE void solve(const struct px_r3_arrays *s, const double *restrict w,
		     const double *restrict lambda, uint32_t k,
		     double *restrict out)
{
	const double *f = s->frame + 9 * (size_t)k;
	const double *lv = s->lever + 6 * (size_t)k;
	const double *lam = lambda + 3 * (size_t)k;
	const double *b = s->b + 3 * (size_t)k, *r = s->r + 3 * (size_t)k;
	const double *cf = s->coef + 3 * (size_t)k; /* A_sn, A_tn, mu */
	const uint32_t ba = s->body_a[k], bb = s->body_b[k];
	double ux = 0.0, uy = 0.0, uz = 0.0, v0, v1, v2, ln, dn, zs, zt;

	/* u = (v_a + w_a x r_a) - (v_b + w_b x r_b), written out rather than
	 * through px_point_velocity: its sign * (...) and 0 + (...) lie on
	 * the chain through the shared body and cost 10 of 31 ns per
	 * contact-sweep on grid-24 (the sums are associated as it does) */
	if (ba != PX_STATIC) {
		const double *wa = w + 6 * (size_t)ba;

		ux = wa[0] + (wa[4] * lv[2] - wa[5] * lv[1]);
		uy = wa[1] + (wa[5] * lv[0] - wa[3] * lv[2]);
		uz = wa[2] + (wa[3] * lv[1] - wa[4] * lv[0]);
	}
	if (bb != PX_STATIC) {
		const double *wb = w + 6 * (size_t)bb;

		ux -= wb[0] + (wb[4] * lv[5] - wb[5] * lv[4]);
		uy -= wb[1] + (wb[5] * lv[3] - wb[3] * lv[5]);
		uz -= wb[2] + (wb[3] * lv[4] - wb[4] * lv[3]);
	}
	v0 = b[0] + f[0] * ux + f[1] * uy + f[2] * uz;
	if (s->shift)
		v0 += s->shift[k] * lam[0];
	v1 = b[1] + f[3] * ux + f[4] * uy + f[5] * uz;
	v2 = b[2] + f[6] * ux + f[7] * uy + f[8] * uz;
	ln = lam[0] - r[0] * v0;
	ln = ln > 0.0 ? ln : 0.0;
	/* A_sn, A_tn: the friction velocity per unit normal impulse */
	dn = ln - lam[0];
	zs = lam[1] - r[1] * (v1 + cf[0] * dn);
	zt = lam[2] - r[2] * (v2 + cf[1] * dn);
	if (s->is_disc) {
		double z[2] = {zs, zt};

		px_disc_project(z, cf[2] * ln);
		zs = z[0];
		zt = z[1];
	} else if (!s->keeps_disc ||
		   !px_disc_surely_inside(zs, zt, cf[2] * ln)) {
		/* a copy of its own for the call, so that z stays in
		 * registers on the path that does not call */
		double z[2] = {zs, zt};

		s->project(s->fstate, &s->friction[k], ln, z, 2);
		zs = z[0];
		zt = z[1];
	}
	out[0] = ln;
	out[1] = zs;
	out[2] = zt;
}

/* Write out as contact k's impulse; its change goes to the bodies' w and,
 * if t is not NULL, to the tally. */
R3_INLINE void commit(const struct px_r3_arrays *s, double *restrict lambda,
		      double *restrict w, uint32_t k,
		      const double *restrict out,
		      struct px_tally_part *restrict t)
{
	const double *f = s->frame + 9 * (size_t)k;
	const double *lv = s->lever + 6 * (size_t)k;
	double *lam = lambda + 3 * (size_t)k;
	const uint32_t ba = s->body_a[k], bb = s->body_b[k];
	const double old[3] = {lam[0], lam[1], lam[2]};
	const double d0 = out[0] - old[0], d1 = out[1] - old[1],
		     d2 = out[2] - old[2];
	double P[3];

	if (s->prev) {
		double *pv = s->prev + 3 * (size_t)k;

		pv[0] = old[0];
		pv[1] = old[1];
		pv[2] = old[2];
	}
	lam[0] = out[0];
	lam[1] = out[1];
	lam[2] = out[2];
	if (t)
		px_tally_block(t, out, old, 3);
	/* an unchanged impulse leaves w as it is (as in the general kernel):
	 * on the ball grids two contacts in three, the horizontal ones,
	 * carry none, and their update is off the chain through the bodies */
	if (d0 == 0.0 && d1 == 0.0 && d2 == 0.0)
		return;
	/* P, the impulse change in the world frame */
	P[0] = f[0] * d0 + f[3] * d1 + f[6] * d2;
	P[1] = f[1] * d0 + f[4] * d1 + f[7] * d2;
	P[2] = f[2] * d0 + f[5] * d1 + f[8] * d2;
	/* body a: +P at r_a; body b: -P at r_b */
	if (ba != PX_STATIC)
		px_body_impulse(w + 6 * (size_t)ba, s->inv_mass[ba],
				s->inv_inertia + 6 * (size_t)ba, lv, P, 1.0);
	if (bb != PX_STATIC)
		px_body_impulse(w + 6 * (size_t)bb, s->inv_mass[bb],
				s->inv_inertia + 6 * (size_t)bb, lv + 3, P, -1.0);
}

void px_r3_solve(const struct px_kernel_ctx *c, const double *w, uint32_t k,
		 double *out)
{
	const struct px_r3_arrays s = px_r3_arrays(c);

	solve(&s, w, c->lambda, k, out);
}

void px_r3_commit(const struct px_kernel_ctx *c, double *lambda, double *w,
		  uint32_t k, const double *out)
{
	const struct px_r3_arrays s = px_r3_arrays(c);

	commit(&s, lambda, w, k, out, NULL);
}

/* One list: the chain of updates through shared bodies runs as it is. */
static void relax_one(const struct px_r3_arrays *s, double *restrict lambda,
		      double *restrict w, const uint32_t *list, size_t n,
		      struct px_tally_part *restrict t)
{
	for (size_t i = 0; i < n; i++) {
		double out[3];

		solve(s, w, lambda, list[i], out);
		commit(s, lambda, w, list[i], out, t);
	}
}

/* Two independent lists, a contact of each in turn: both solves read
 * bodies the other list never writes, so the two chains overlap. */
static void relax_two(const struct px_r3_arrays *s, double *restrict lambda,
		      double *restrict w, const uint32_t *a, size_t na,
		      const uint32_t *b, size_t nb,
		      struct px_tally_part *restrict t)
{
	const size_t both = na < nb ? na : nb;

	for (size_t i = 0; i < both; i++) {
		double oa[3], ob[3];

		solve(s, w, lambda, a[i], oa);
		solve(s, w, lambda, b[i], ob);
		commit(s, lambda, w, a[i], oa, t);
		commit(s, lambda, w, b[i], ob, t);
	}
	relax_one(s, lambda, w, a + both, na - both, t);
	relax_one(s, lambda, w, b + both, nb - both, t);
}

/* The lists two at a time; t NULL or not, so that the loops without a
 * tally carry no test for it. */
static inline void relax_all(const struct px_r3_arrays *s, double *restrict lambda,
			     double *restrict w, const uint32_t *const *lists,
			     const size_t *counts, unsigned m,
			     struct px_tally_part *restrict t)
{
	unsigned j = 0;

	for (; j + 1 < m; j += 2)
		relax_two(s, lambda, w, lists[j], counts[j], lists[j + 1],
			  counts[j + 1], t);
	if (j < m)
		relax_one(s, lambda, w, lists[j], counts[j], t);
}

void px_r3_relax_lists(const struct px_kernel_ctx *c,
		       const uint32_t *const *lists, const size_t *counts,
		       unsigned m)
{
	const struct px_r3_arrays s = px_r3_arrays(c);
	struct px_tally_part t = {0};

	if (c->tally && c->prev) {
		relax_all(&s, c->lambda, c->w, lists, counts, m, &t);
		px_tally_merge(c->tally, &t);
	} else {
		relax_all(&s, c->lambda, c->w, lists, counts, m, NULL);
	}
}
