/* The wide kernel's groups (kernel_wide_groups.h): a relax_lists call's
 * contact constants copied in lane order, and the cache that keeps them
 * for the next call with the same lists. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_wide.h"
#include "kernel_wide_groups.h"
#include "problem_impl.h"

const double px_wide_zeros[12] = {0};

/* The calls of one sweep from every thread: a few per thread and color
 * (bench/schedulers' grids: colored patches give a handful). A call
 * that finds every slot busy gathers as it goes. */
#define WIDE_SLOTS 32
struct px_wide_cache {
	atomic_flag lock;
	unsigned long clock;
	struct wide_slot slot[WIDE_SLOTS];
};

_Static_assert(PX_MAX_LISTS <= LANES, "one group holds every list of a call");

static void cache_lock(struct px_wide_cache *w)
{
	while (
	    atomic_flag_test_and_set_explicit(&w->lock, memory_order_acquire))
		;
}

static void cache_unlock(struct px_wide_cache *w)
{
	atomic_flag_clear_explicit(&w->lock, memory_order_release);
}

size_t px_wide_longest(const size_t *counts, unsigned m)
{
	size_t longest = 0;

	for (unsigned j = 0; j < m; j++)
		longest = counts[j] > longest ? counts[j] : longest;
	return longest;
}

/* Group i of m lists into *g. */
void px_wide_fill(const struct wide *s, const uint32_t *const *lists,
		  const size_t *counts, unsigned m, size_t i,
		  struct wide_group *g)
{
	uint32_t k0 = 0;

	g->last = 0;
	for (unsigned j = 0; j < LANES; j++) {
		const int on = j < m && i < counts[j];
		const uint32_t k = on ? lists[j][i] : k0;

		if (j == 0)
			k0 = k; /* lane 0 always has a contact: its list is the
				 * longest or as long (colored's split) or an
				 * idle lane reads it anyway */
		g->k[j] = k;
		g->on[j] = (unsigned char)on;
		const uint32_t ba = on ? s->a.body_a[k] : PX_STATIC;
		const uint32_t bb = on ? s->a.body_b[k] : PX_STATIC;

		g->wa[j] =
		    ba != PX_STATIC ? s->w + 6 * (size_t)ba : px_wide_zeros;
		g->wb[j] =
		    bb != PX_STATIC ? s->w + 6 * (size_t)bb : px_wide_zeros;
		g->ma[j] = ba != PX_STATIC ? s->a.inv_mass[ba] : 0.0;
		g->mb[j] = bb != PX_STATIC ? s->a.inv_mass[bb] : 0.0;
		for (int q = 0; q < 9; q++)
			g->f[q][j] = s->a.frame[9 * (size_t)k + q];
		for (int q = 0; q < 6; q++)
			g->l[q][j] = s->a.lever[6 * (size_t)k + q];
		g->c[0][j] = s->a.coef[4 * (size_t)k];
		g->c[1][j] = s->a.coef[4 * (size_t)k + 1];
		g->c[2][j] = s->a.coef[4 * (size_t)k + 3];
		for (int q = 0; q < 3; q++) {
			g->b[q][j] = s->a.b[3 * (size_t)k + q];
			g->r[q][j] = s->a.r[3 * (size_t)k + q];
		}
		g->last |= (size_t)k + 1 >= s->n;
	}
}

static int grow(void **p, size_t *cap, size_t want, size_t size, int aligned)
{
	void *q;

	if (want <= *cap)
		return 0;
	q = aligned ? aligned_alloc(64, (want * size + 63) / 64 * 64)
		    : malloc(want * size);
	if (!q)
		return -1;
	free(*p);
	*p = q;
	*cap = want;
	return 0;
}

/* (Re)builds the slot's groups and copy for these lists; -1 out of
 * memory. */
static int slot_build(struct wide_slot *sl, const struct wide *s,
		      const uint32_t *const *lists, const size_t *counts,
		      unsigned m)
{
	const size_t ng = px_wide_longest(counts, m);
	size_t total = 0;

	for (unsigned j = 0; j < m; j++)
		total += counts[j];
	if (grow((void **)&sl->copy, &sl->copy_cap, total + 1, sizeof *sl->copy,
		 0) ||
	    grow((void **)&sl->g, &sl->g_cap, ng + WIDE_PAD, sizeof *sl->g, 1))
		return -1;
	total = 0;
	for (unsigned j = 0; j < m; j++) {
		memcpy(sl->copy + total, lists[j],
		       counts[j] * sizeof *sl->copy);
		total += counts[j];
	}
	for (size_t i = 0; i < ng; i++)
		px_wide_fill(s, lists, counts, m, i, sl->g + i);
	/* the padding the step's prefetches read: the last group again
	 * (group 0 of an empty call: ng = 0 does not step) */
	for (size_t i = ng; i < ng + WIDE_PAD; i++)
		if (ng)
			sl->g[i] = sl->g[ng - 1];
	sl->ng = ng;
	sl->w = s->w;
	sl->gen = s->gen;
	return 0;
}

/* b and r again (c->wide_gen moved). */
static void slot_refill(struct wide_slot *sl, const struct wide *s)
{
	for (size_t i = 0; i < sl->ng; i++) {
		struct wide_group *g = sl->g + i;

		for (unsigned j = 0; j < LANES; j++) {
			const size_t k = g->k[j];

			for (int q = 0; q < 3; q++) {
				g->b[q][j] = s->a.b[3 * k + q];
				g->r[q][j] = s->a.r[3 * k + q];
			}
		}
	}
	for (size_t i = sl->ng; sl->ng && i < sl->ng + WIDE_PAD; i++)
		sl->g[i] = sl->g[sl->ng - 1];
	sl->gen = s->gen;
}

static int slot_same(const struct wide_slot *sl, const uint32_t *const *lists,
		     const size_t *counts, unsigned m)
{
	size_t at = 0;

	for (unsigned j = 0; j < m; j++) {
		if (memcmp(sl->copy + at, lists[j],
			   counts[j] * sizeof *sl->copy))
			return 0;
		at += counts[j];
	}
	return 1;
}

/* The slot of these lists, its groups current, marked busy until
 * wide_release; NULL when none can be had (every slot busy, out of
 * memory): the call then gathers as it goes. */
struct wide_slot *px_wide_acquire(const struct px_kernel_ctx *c,
				  const struct wide *s,
				  const uint32_t *const *lists,
				  const size_t *counts, unsigned m)
{
	struct px_wide_cache *w = c->wcache;
	struct wide_slot *sl = NULL, *free_sl = NULL;
	int fresh = 0;

	if (!w)
		return NULL;
	cache_lock(w);
	for (int i = 0; i < WIDE_SLOTS && !sl; i++) {
		struct wide_slot *x = &w->slot[i];
		int same = x->valid && x->m == m;

		for (unsigned j = 0; same && j < m; j++)
			same = x->lists[j] == lists[j] &&
			       x->counts[j] == counts[j];
		if (same)
			sl = x;
		else if (!x->busy &&
			 (!free_sl || (free_sl->valid &&
				       (!x->valid || x->used < free_sl->used))))
			free_sl = x;
	}
	if (sl && sl->busy)
		sl = NULL; /* another thread's call with the same lists */
	else if (!sl && free_sl) {
		/* valid from here (other calls read the key under the lock
		 * only, and take no busy slot), filled below */
		sl = free_sl;
		sl->valid = 1;
		sl->m = m;
		for (unsigned j = 0; j < m; j++) {
			sl->lists[j] = lists[j];
			sl->counts[j] = counts[j];
		}
		fresh = 1;
	}
	if (sl) {
		sl->busy = 1;
		sl->used = ++w->clock;
	}
	cache_unlock(w);
	if (!sl)
		return NULL;
	if (fresh || sl->w != s->w || !slot_same(sl, lists, counts, m)) {
		if (slot_build(sl, s, lists, counts, m)) {
			cache_lock(w);
			sl->valid = 0;
			sl->busy = 0;
			cache_unlock(w);
			return NULL;
		}
	} else if (sl->gen != s->gen) {
		slot_refill(sl, s);
	}
	return sl;
}

void px_wide_release(const struct px_kernel_ctx *c, struct wide_slot *sl)
{
	struct px_wide_cache *w = c->wcache;

	cache_lock(w);
	sl->busy = 0;
	cache_unlock(w);
}

struct px_wide_cache *px_wide_cache_new(void)
{
	struct px_wide_cache *w = calloc(1, sizeof *w);

	if (w)
		atomic_flag_clear(&w->lock);
	return w;
}

void px_wide_fini(struct px_kernel_ctx *c)
{
	struct px_wide_cache *w = c->wcache;

	if (!w)
		return;
	for (int i = 0; i < WIDE_SLOTS; i++) {
		free(w->slot[i].copy);
		free(w->slot[i].g);
	}
	free(w);
	c->wcache = NULL;
}

size_t px_wide_bytes(const struct px_kernel_ctx *c)
{
	const struct px_wide_cache *w = c->wcache;
	size_t bytes = 0;

	if (!w)
		return 0;
	bytes = sizeof *w;
	for (int i = 0; i < WIDE_SLOTS; i++)
		bytes += w->slot[i].copy_cap * sizeof *w->slot[i].copy +
			 w->slot[i].g_cap * sizeof *w->slot[i].g;
	return bytes;
}
