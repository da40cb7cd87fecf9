/* The wide kernel's step and loops (kernel_wide.c), included once per
 * instruction set. The includer defines W_NAME(x) (the names' suffix) and
 * the loads W_ONE, W_T3 and W_T4 (kernel_wide.c). Every build does the
 * same arithmetic, lane by lane in kernel_rigid3.c's order. */

#ifndef W_PREFETCH
/* WIDE_PF: 0 none, 1 the groups WIDE_PF_GROUPS ahead (the default: on
 * ballgrid-24 34.9 ns per contact-sweep without, 25.2 with, the best of 8
 * alternating runs; kernel_wide.c's padding covers WIDE_PF_DATA), 2
 * also the lambda, prev and bodies' velocities of the group WIDE_PF_DATA
 * ahead (no gain measured) */
#ifndef WIDE_PF
#define WIDE_PF 1
#endif
#define WIDE_PF_GROUPS 4
#define WIDE_PF_DATA 2
#define W_PREFETCH(s, g)                                                       \
	do {                                                                   \
		const char *pg_ = (const char *)((g) + WIDE_PF_GROUPS);        \
		const struct wide_group *gd_ = (g) + WIDE_PF_DATA;             \
		if (WIDE_PF >= 1)                                              \
			for (size_t o_ = 0; o_ < sizeof *(g); o_ += 64)        \
				__builtin_prefetch(pg_ + o_);                  \
		for (int j_ = 0; WIDE_PF >= 2 && j_ < LANES; j_++) {           \
			__builtin_prefetch(gd_->wa[j_]);                       \
			__builtin_prefetch(gd_->wb[j_]);                       \
			__builtin_prefetch((s)->lambda + 3 * (size_t)gd_->k[j_]);\
			if ((s)->a.prev)                                       \
				__builtin_prefetch((s)->a.prev +               \
						   3 * (size_t)gd_->k[j_], 1); \
		}                                                              \
	} while (0)
#endif
#ifndef W_INERTIA
/* the lanes' bodies' inverse inertias, at their velocities' offsets */
#define W_INERTIA1(wp, j)                                                      \
	((wp)[j] != px_wide_zeros ? s->a.inv_inertia + ((wp)[j] - s->w)        \
				  : px_wide_zeros)
#define W_INERTIA(wp)                                                          \
	((const double *[LANES]){W_INERTIA1(wp, 0), W_INERTIA1(wp, 1),         \
				 W_INERTIA1(wp, 2), W_INERTIA1(wp, 3)})
#endif
#ifndef W_AT
/* The lanes' pointers into an array of `st` doubles per contact, built
 * where a load needs them rather than kept for the whole step. */
#define W_AT(base, st)                                                         \
	((const double *[LANES]){(base) + (size_t)(st) * kk[0],                 \
				 (base) + (size_t)(st) * kk[1],                 \
				 (base) + (size_t)(st) * kk[2],                 \
				 (base) + (size_t)(st) * kk[3]})
#endif

/* One step: lane j relaxes contact g->k[j] if g->on[j], its constants
 * (frame, lever arms, coefficients, b, r, inverse masses) read from the
 * group in lane order, one aligned vector load each (kernel_wide.c,
 * struct wide_group); lambda and the bodies' velocities gathered. */
static inline __attribute__((always_inline)) void
W_NAME(step)(const struct wide *s, const struct wide_group *g, int pf,
	     struct px_tally_part *restrict t)
{
	const uint32_t *const kk = g->k;
	const unsigned char *const on = g->on;
	const double *const *wa = g->wa, *const *wb = g->wb;
	/* vectors stored and read as arrays of lanes: v4's alignment */
	double o_ln[LANES] V4_ALIGNED, o_s[LANES] V4_ALIGNED;
	double o_t[LANES] V4_ALIGNED, rad_l[LANES] V4_ALIGNED;
	double n_a[6][LANES] V4_ALIGNED, n_b[6][LANES] V4_ALIGNED;
	v4 ux, uy, uz, v0, v1, v2, ln, dn, zs, zt, lam0, lam1, lam2;
	v4 wa0, wa1, wa2, wa3, wa4, wa5;
	v4 wb0, wb1, wb2, wb3, wb4, wb5, x, y, d0, d1, d2, P0, P1, P2;
	v4 t0, t1, t2, q0, q1, q2, q3, q4, q5, bb0, bb1, bb2;
	v4 r0, r1, r2;
	v4m moved;

	(void)y;

	/* the next groups' lines and their contacts' and bodies' values,
	 * whose indices the groups know already (W_PREFETCH) */
	if (pf)
		W_PREFETCH(s, g);
	/* whether a lane's contact is the last (kernel_wide.c's W_T3) */
	const int last = g->last;

	(void)last;
	W_T4(wa, 0, wa0, wa1, wa2, wa3);
	W_T4(wa, 2, x, y, wa4, wa5);
	W_T4(wb, 0, wb0, wb1, wb2, wb3);
	W_T4(wb, 2, x, y, wb4, wb5);
	/* associated as kernel_rigid3.c's solve */
	ux = wa0 + (wa4 * g->l[2] - wa5 * g->l[1]);
	uy = wa1 + (wa5 * g->l[0] - wa3 * g->l[2]);
	uz = wa2 + (wa3 * g->l[1] - wa4 * g->l[0]);
	ux -= wb0 + (wb4 * g->l[5] - wb5 * g->l[4]);
	uy -= wb1 + (wb5 * g->l[3] - wb3 * g->l[5]);
	uz -= wb2 + (wb3 * g->l[4] - wb4 * g->l[3]);
	W_T3(W_AT(s->lambda, 3), 0, lam0, lam1, lam2);
	bb0 = g->b[0];
	bb1 = g->b[1];
	bb2 = g->b[2];
	r0 = g->r[0];
	r1 = g->r[1];
	r2 = g->r[2];
	v0 = bb0 + g->f[0] * ux + g->f[1] * uy + g->f[2] * uz;
	if (s->a.shift)
		v0 += W_ONE(W_AT(s->a.shift, 1), 0) * lam0;
	v1 = bb1 + g->f[3] * ux + g->f[4] * uy + g->f[5] * uz;
	v2 = bb2 + g->f[6] * ux + g->f[7] * uy + g->f[8] * uz;
	ln = lam0 - r0 * v0;
	ln = SEL(ln > 0.0, ln, (v4){0});
	dn = ln - lam0;
	v1 = v1 + g->c[0] * dn;
	v2 = v2 + g->c[1] * dn;
	if (s->a.is_disc) {
		const v4 rad = g->c[2] * ln, rr = rad * rad;
		v4m inside, zero, rest;

		zs = lam1 - r1 * v1;
		zt = lam2 - r2 * v2;
		/* px_disc_surely_inside, then its rad = 0 case; the rest (on
		 * or outside the rim) lane by lane */
		inside = (rr >= DBL_MIN) & (rr <= DBL_MAX) &
			 (zs * zs + zt * zt < rr * (1.0 - 16.0 * DBL_EPSILON));
		zero = ~inside & (rad == 0.0) & (zs - zs == 0.0) &
		       (zt - zt == 0.0);
		zs = SEL(zero, zs * rad, zs);
		zt = SEL(zero, zt * rad, zt);
		rest = ~(inside | zero);
		if (rest[0] | rest[1] | rest[2] | rest[3]) {
			*(v4 *)o_s = zs;
			*(v4 *)o_t = zt;
			*(v4 *)rad_l = rad;
			for (int j = 0; j < LANES; j++)
				if (rest[j] && on[j]) {
					double z[2] = {o_s[j], o_t[j]};

					px_disc_project(z, rad_l[j]);
					o_s[j] = z[0];
					o_t[j] = z[1];
				}
			zs = *(v4 *)o_s;
			zt = *(v4 *)o_t;
		}
	} else {
		double vv1[LANES] V4_ALIGNED, vv2[LANES] V4_ALIGNED;
		double lnl[LANES] V4_ALIGNED;

		*(v4 *)vv1 = v1;
		*(v4 *)vv2 = v2;
		*(v4 *)lnl = ln;
		for (int j = 0; j < LANES; j++) {
			double out[3];

			o_s[j] = o_t[j] = 0.0;
			if (!on[j])
				continue;
			separable_lane(s, kk[j], lnl[j], s->lambda + 3 * kk[j], vv1[j], vv2[j],
				       out);
			o_s[j] = out[1];
			o_t[j] = out[2];
		}
		zs = *(v4 *)o_s;
		zt = *(v4 *)o_t;
	}
	*(v4 *)o_ln = ln;
	*(v4 *)o_s = zs;
	*(v4 *)o_t = zt;
	/* the commit: P, the impulse change in the world frame, and the
	 * bodies' new velocities (kernel_rigid3.c's commit,
	 * px_body_impulse) */
	d0 = ln - lam0;
	d1 = zs - lam1;
	d2 = zt - lam2;
	/* as in the scalar kernels, an unchanged impulse (d = 0; NaN counts
	 * as a change) leaves its bodies alone; when no lane's changes, as
	 * on the ball grids' horizontal contacts in every patch at once,
	 * the step skips the bodies' update */
	moved = (d0 != 0.0) | (d1 != 0.0) | (d2 != 0.0);
	if (moved[0] | moved[1] | moved[2] | moved[3]) {
		P0 = g->f[0] * d0 + g->f[3] * d1 + g->f[6] * d2;
		P1 = g->f[1] * d0 + g->f[4] * d1 + g->f[7] * d2;
		P2 = g->f[2] * d0 + g->f[5] * d1 + g->f[8] * d2;
		W_T4(W_INERTIA(wa), 0, q0, q1, q2, q3);
		W_T4(W_INERTIA(wa), 2, x, y, q4, q5);
		x = g->ma;
		(void)y;
		t0 = g->l[1] * P2 - g->l[2] * P1;
		t1 = g->l[2] * P0 - g->l[0] * P2;
		t2 = g->l[0] * P1 - g->l[1] * P0;
		*(v4 *)n_a[0] = wa0 + x * P0;
		*(v4 *)n_a[1] = wa1 + x * P1;
		*(v4 *)n_a[2] = wa2 + x * P2;
		*(v4 *)n_a[3] = wa3 + (q0 * t0 + q1 * t1 + q2 * t2);
		*(v4 *)n_a[4] = wa4 + (q1 * t0 + q3 * t1 + q4 * t2);
		*(v4 *)n_a[5] = wa5 + (q2 * t0 + q4 * t1 + q5 * t2);
		W_T4(W_INERTIA(wb), 0, q0, q1, q2, q3);
		W_T4(W_INERTIA(wb), 2, x, y, q4, q5);
		x = -g->mb;
		t0 = g->l[4] * P2 - g->l[5] * P1;
		t1 = g->l[5] * P0 - g->l[3] * P2;
		t2 = g->l[3] * P1 - g->l[4] * P0;
		*(v4 *)n_b[0] = wb0 + x * P0;
		*(v4 *)n_b[1] = wb1 + x * P1;
		*(v4 *)n_b[2] = wb2 + x * P2;
		*(v4 *)n_b[3] = wb3 - (q0 * t0 + q1 * t1 + q2 * t2);
		*(v4 *)n_b[4] = wb4 - (q1 * t0 + q3 * t1 + q4 * t2);
		*(v4 *)n_b[5] = wb5 - (q2 * t0 + q4 * t1 + q5 * t2);
	}
	/* the scatter, lane by lane; an unchanged impulse leaves the bodies
	 * alone, as in the scalar kernels */
	for (int j = 0; j < LANES; j++) {
		double *lam, old[3], out[3];

		if (!on[j])
			continue;
		lam = s->lambda + 3 * kk[j];
		old[0] = lam[0];
		old[1] = lam[1];
		old[2] = lam[2];
		out[0] = o_ln[j];
		out[1] = o_s[j];
		out[2] = o_t[j];
		if (s->a.prev)
			memcpy(s->a.prev + 3 * kk[j], old, sizeof old);
		memcpy(lam, out, sizeof out);
		if (t)
			px_tally_block(t, out, old, 3);
		if (!moved[j])
			continue;
		/* the static world's zeros stay */
		if (wa[j] != px_wide_zeros)
			for (int i = 0; i < 6; i++)
				((double *)wa[j])[i] = n_a[i][j];
		if (wb[j] != px_wide_zeros)
			for (int i = 0; i < 6; i++)
				((double *)wb[j])[i] = n_b[i][j];
	}
}

/* The lists side by side, lane j on list j, until the longest ends: the
 * call's groups from the cache (kernel_wide_groups.c, px_wide_acquire),
 * or, where it has none to give, each group gathered as the step comes. */
static void W_NAME(relax_lists)(const struct px_kernel_ctx *c,
				const uint32_t *const *lists,
				const size_t *counts, unsigned m)
{
	const struct wide s = wide_load(c);
	const int tally = c->tally && c->prev;
	struct px_tally_part t = {0};
	struct wide_slot *slot = px_wide_acquire(c, &s, lists, counts, m);

	if (slot) {
		const struct wide_group *g = slot->g;
		const size_t ng = slot->ng;

		if (tally)
			for (size_t i = 0; i < ng; i++)
				W_NAME(step)(&s, g + i, 1, &t);
		else
			for (size_t i = 0; i < ng; i++)
				W_NAME(step)(&s, g + i, 1, NULL);
		px_wide_release(c, slot);
	} else {
		const size_t longest = px_wide_longest(counts, m);

		for (size_t i = 0; i < longest; i++) {
			struct wide_group g;

			px_wide_fill(&s, lists, counts, m, i, &g);
			W_NAME(step)(&s, &g, 0, tally ? &t : NULL);
		}
	}
	if (tally)
		px_tally_merge(c->tally, &t);
}
