/* The layout of struct px_world, shared by the world's own files. */
#ifndef PX_SIM_WORLD_IMPL_H
#define PX_SIM_WORLD_IMPL_H

#include <stdlib.h>

#include "world.h"

struct px_world {
	struct px_world_settings settings;
	struct px_body *bodies;
	size_t n_bodies, cap_bodies;
	uint64_t step;
	double time;

	struct px_broadphase *bp;
	/* the last step's contacts, impulses (bs per contact) and cache */
	struct px_contact *contacts;
	size_t n_contacts, cap_contacts;
	double *lambda;
	uint32_t bs;
	struct px_cached *cache;
	size_t n_cache, cache_cap; /* cache_cap: entries it has room for */

	/* Buffers of a step kept for the next, so that a step of many
	 * contacts does not map and fault in fresh memory each time
	 * (world_step.c, world_cache.c); they only grow. */
	struct px_step_buffers {
		struct px_contact_rows *rows;
		double *vel, *vfree, *depth;
		unsigned char *claimed;
		struct px_cached *cache; /* the next step's cache */
		size_t rows_cap, vel_cap, vfree_cap, depth_cap, claimed_cap,
			cache_cap; /* in elements */
	} keep;

	px_world_solve_hook hook; /* px_world_set_solve_hook, or NULL */
	void *hook_ctx;
	int hook_solves; /* px_world_hook_solves */
	px_world_substep_hook substep_hook; /* its ctx: hook_ctx */
};

/* *p (one of w->keep's buffers) with room for n elements of size sz,
 * grown to n + n / 8 when smaller (its contents not kept), or NULL (and
 * *cap 0) when out of memory. */
static inline void *px_world_kept(void *p, size_t *cap, size_t n, size_t sz)
{
	void **q = p;

	if (n > *cap) {
		free(*q);
		*cap = n + n / 8;
		*q = malloc(*cap * sz);
		if (!*q)
			*cap = 0;
	}
	return *q;
}

#endif
