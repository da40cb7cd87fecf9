/* The wide kernel's contact constants in lane order (kernel_wide.c,
 * [solver] kernel = wide): the groups one relax_lists call's steps read,
 * built by kernel_wide_groups.c and cached across calls with the same
 * lists, and what every lane reads the same. Shared by kernel_wide.c's
 * builds for each instruction set (kernel_wide_step.h). */
#ifndef PX_KERNEL_WIDE_GROUPS_H
#define PX_KERNEL_WIDE_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "kernel_rigid3.h"

#define LANES 4
typedef double v4 __attribute__((vector_size(LANES * sizeof(double))));
typedef long long v4m __attribute__((vector_size(LANES * sizeof(double))));
/* an array of LANES doubles that is read or written as one v4 */
#define V4_ALIGNED __attribute__((aligned(sizeof(v4))))

/* What every lane reads the same, loaded once per call: the rigid 3-row
 * kernel's arrays (kernel_rigid3.h) with this kernel's coefficients, and
 * lambda and w. */
struct wide {
	struct px_r3_arrays a;
	double *restrict lambda, *restrict w;
	size_t n;	   /* contacts */
	unsigned long gen; /* c->wide_gen */
};

static inline struct wide wide_load(const struct px_kernel_ctx *c)
{
	struct wide s = {px_r3_arrays(c), c->lambda, c->w, c->p->n,
			 c->wide_gen};

	s.a.coef = c->wcoef;
	return s;
}

/* The constants of one step in lane order (issue 34: Box2D v3 keeps its
 * contact constraints so): group i of a relax_lists call holds lane j's
 * i-th contact of list j, so that the step reads each quantity of the
 * four lanes with one aligned vector load instead of a transpose. An idle
 * lane (its list ended) has lane 0's contact and values, the static
 * world's bodies and on = 0: its results are dropped. What is constant
 * for the kernel's life (the problem's frame and lever arms, wcoef's
 * coefficients, the bodies' pointers and inverse masses) is filled once;
 * b and r again whenever the driver moved c->wide_gen (a solve's start:
 * a new b, r back to init's; a rejected sweep's shrunk r: plugin.h,
 * rfactor.adapt changes r only then). lambda (the accelerators move it
 * between sweeps), the normal shift and w are read where they are. */
/* the static world's velocity and inverse inertia (zeros) */
extern const double px_wide_zeros[12];

struct wide_group {
	v4 f[9], l[6];
	v4 c[3];       /* A_sn, A_tn, mu (wcoef without A_ts) */
	v4 b[3], r[3]; /* refilled when c->wide_gen moves */
	v4 ma, mb;     /* the bodies' inverse masses (0: static world) */
	/* the bodies' velocities in w, or zeros (the static world); their
	 * inverse inertias are at the same offset in inv_inertia */
	const double *wa[LANES], *wb[LANES];
	uint32_t k[LANES];
	unsigned char on[LANES];
	int last; /* some lane's contact is the problem's last */
};

/* One relax_lists call's groups, cached for the next call with the same
 * lists (a scheduler hands the same lists every sweep): the key is the
 * lists' pointers and counts, and their contents (copy), which a
 * scheduler may rewrite in place (colored: coloring_bucket when the
 * ordering changed the permutation), compared on every call. */
struct wide_slot {
	unsigned m;
	const uint32_t *lists[LANES];
	size_t counts[LANES];
	uint32_t *copy; /* the lists' contents, one after the other */
	size_t copy_cap;
	struct wide_group *g;
	size_t ng, g_cap;
	const double *w;   /* the groups' pointers are into this w */
	unsigned long gen; /* b and r are those of c->wide_gen = gen */
	int valid, busy;   /* busy: a call is using it */
	unsigned long used;
};

/* groups after a slot's last that the step's prefetches may read
 * (kernel_wide_step.h, W_PREFETCH: WIDE_PF_DATA ahead) */
#define WIDE_PAD 4

/* The longest of m lists. */
size_t px_wide_longest(const size_t *counts, unsigned m);
/* Group i of m lists into *g. */
void px_wide_fill(const struct wide *s, const uint32_t *const *lists,
		  const size_t *counts, unsigned m, size_t i,
		  struct wide_group *g);
/* The slot of these lists, its groups current, marked busy until
 * px_wide_release; NULL when none can be had (every slot busy, out of
 * memory): the call then gathers as it goes (px_wide_fill per step). */
struct wide_slot *px_wide_acquire(const struct px_kernel_ctx *c,
				  const struct wide *s,
				  const uint32_t *const *lists,
				  const size_t *counts, unsigned m);
void px_wide_release(const struct px_kernel_ctx *c, struct wide_slot *sl);
/* An empty cache of slots (c->wcache), or NULL out of memory. */
struct px_wide_cache *px_wide_cache_new(void);

#endif
