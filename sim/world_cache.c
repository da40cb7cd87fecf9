/* The contact cache (Catto 2005, sec. 8): the impulses of a step's contacts
 * kept in world coordinates, sorted by body pair, and matched to the next
 * step's contacts by feature id or, failing that, by nearness. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vec.h"
#include "world_problem.h"

static int pair_cmp(uint32_t a1, uint32_t b1, uint32_t a2, uint32_t b2)
{
	if (b1 != b2)
		return b1 < b2 ? -1 : 1;
	if (a1 != a2)
		return a1 < a2 ? -1 : 1;
	return 0;
}

/* The first cache entry of pair (a, b), or n_cache; from the entry at
 * *at on, where the pair before it was (the contacts come by pair in the
 * cache's order, so that the search walks the cache once), or the whole
 * cache for a pair before *at's. *at becomes the first entry not before
 * the pair. */
static size_t cache_find(const struct px_world *w, uint32_t a, uint32_t b,
			 size_t *at)
{
	size_t lo = 0, hi = w->n_cache;

	if (*at < w->n_cache &&
	    pair_cmp(w->cache[*at].a, w->cache[*at].b, a, b) <= 0) {
		/* a few steps ahead, else a binary search from there */
		lo = *at;
		for (int k = 0; k < 8 && lo < hi &&
				pair_cmp(w->cache[lo].a, w->cache[lo].b, a, b) < 0;
		     k++)
			lo++;
		if (lo < hi &&
		    pair_cmp(w->cache[lo].a, w->cache[lo].b, a, b) < 0)
			lo++;
		else
			hi = lo;
	} else if (*at >= w->n_cache && *at > 0 &&
		   pair_cmp(w->cache[*at - 1].a, w->cache[*at - 1].b, a, b) < 0) {
		lo = hi; /* past the cache's last pair */
	}

	while (lo < hi) {
		const size_t mid = lo + (hi - lo) / 2;
		const struct px_cached *e = w->cache + mid;

		if (pair_cmp(e->a, e->b, a, b) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	if (lo < w->n_cache && !pair_cmp(w->cache[lo].a, w->cache[lo].b, a, b))
		return lo;
	return w->n_cache;
}

/* Cached entry i's impulse in contact k's frame into l (normal clamped). */
static void take(const struct px_cached *e, const struct px_contact_rows *r,
		 uint32_t bs, double *l)
{
	const double sgn = r->flipped ? -1.0 : 1.0;

	for (int row = 0; row < 3; row++)
		l[row] = sgn * v3_dot(r->frame + 3 * row, e->impulse);
	l[0] = fmax(l[0], 0.0);
	if (bs == 4)
		l[3] = sgn * e->tau;
}

static double dist2(const double a[3], const double b[3])
{
	double d[3];

	v3_sub(a, b, d);
	return v3_dot(d, d);
}

/* lambda of the matched contacts from the cache (zero elsewhere): the
 * cached world impulse in the new frame, the normal part clamped at 0.
 * Within a pair, a contact takes the entry of its feature id (Catto 2005, sec.
 * 8.2); one left without takes the nearest unclaimed entry closer than a
 * quarter of the spacing of the pair's cached points (0.05 m for a single
 * point): a corner of two equal faces is a box corner in one step and a
 * clipped edge in the next, under another id. */
size_t px_world_warm_start(const struct px_world *w,
			   const struct px_contact *c,
			   const struct px_contact_rows *rows, size_t n,
			   uint32_t bs, double *lambda, unsigned char *claimed)
{
	size_t hits = 0, at = 0;

	memset(lambda, 0, n * bs * sizeof *lambda);
	if (!w->settings.warm_start || !w->cache)
		return 0;
	memset(claimed, 0, w->n_cache);
	for (size_t k0 = 0, k1; k0 < n; k0 = k1) {
		const size_t i0 = cache_find(w, c[k0].a, c[k0].b, &at);
		unsigned char got[PX_MAX_POINTS] = {0};
		double tol = 0.05 * 0.05;
		size_t i1 = i0;

		for (k1 = k0; k1 < n && k1 - k0 < PX_MAX_POINTS &&
			      c[k1].a == c[k0].a && c[k1].b == c[k0].b;)
			k1++;
		while (i1 < w->n_cache && w->cache[i1].a == c[k0].a &&
		       w->cache[i1].b == c[k0].b)
			i1++;
		for (size_t k = k0; k < k1; k++)
			for (size_t i = i0; i < i1 && !got[k - k0]; i++)
				if (!claimed[i] &&
				    w->cache[i].feature == c[k].feature) {
					claimed[i] = got[k - k0] = 1;
					take(w->cache + i, rows + k, bs,
					     lambda + bs * k);
					hits++;
				}
		for (size_t i = i0; i < i1; i++)
			for (size_t j = i + 1; j < i1; j++)
				tol = fmin(tol, 0.0625 * dist2(w->cache[i].p,
							       w->cache[j].p));
		for (size_t k = k0; k < k1; k++) {
			size_t best = i1;
			double bd = tol;

			if (got[k - k0])
				continue;
			for (size_t i = i0; i < i1; i++)
				if (!claimed[i] &&
				    dist2(w->cache[i].p, c[k].p) < bd) {
					bd = dist2(w->cache[i].p, c[k].p);
					best = i;
				}
			if (best < i1) {
				claimed[best] = 1;
				take(w->cache + best, rows + k, bs,
				     lambda + bs * k);
				hits++;
			}
		}
	}
	return hits;
}

static int cmp_cached(const void *x, const void *y)
{
	const struct px_cached *a = x, *b = y;

	return pair_cmp(a->a, a->b, b->a, b->b);
}

void px_world_cache_renumber(struct px_world *w, const uint32_t *renumber,
			     size_t n)
{
	size_t m = 0;

	for (size_t k = 0; k < w->n_cache; k++) {
		struct px_cached e = w->cache[k];

		e.a = renumber[e.a];
		e.b = renumber[e.b];
		if (e.a < n && e.b < n)
			w->cache[m++] = e;
	}
	w->n_cache = m;
	for (size_t k = 1; k < m; k++)
		if (cmp_cached(w->cache + k - 1, w->cache + k) > 0) {
			/* a renumbering that kept the order needs none */
			qsort(w->cache, m, sizeof *w->cache, cmp_cached);
			break;
		}
}

int px_world_cache_store(struct px_world *w, const struct px_contact *c,
			  const struct px_contact_rows *rows, size_t n,
			  uint32_t bs, const double *lambda,
			  struct px_error *err)
{
	/* the spare, grown */
	struct px_cached *cache = px_world_kept(&w->keep.cache,
						&w->keep.cache_cap, n + 1,
						sizeof *cache);
	const size_t cap = w->keep.cache_cap;

	if (!cache)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	for (size_t k = 0; k < n; k++) {
		const double *l = lambda + bs * k;
		const double sgn = rows[k].flipped ? -1.0 : 1.0;
		struct px_cached *e = cache + k;

		e->a = c[k].a;
		e->b = c[k].b;
		e->feature = c[k].feature;
		memcpy(e->p, c[k].p, sizeof e->p);
		px_contact_rows_impulse(rows + k, l, e->impulse);
		for (int i = 0; i < 3; i++)
			e->impulse[i] *= sgn;
		e->tau = bs == 4 ? sgn * l[3] : 0.0;
	}
	/* the collision's order is by pair; keep the cache sorted */
	for (size_t k = 1; k < n; k++)
		if (pair_cmp(cache[k - 1].a, cache[k - 1].b, cache[k].a,
			     cache[k].b) > 0)
			return px_error_set(err, PX_ERR_INVALID,
					    "contacts are not sorted by body pair");
	/* the old cache becomes the spare */
	w->keep.cache = w->cache;
	w->keep.cache_cap = w->cache ? w->cache_cap : 0;
	w->cache = cache;
	w->n_cache = n;
	w->cache_cap = cap;
	return PX_OK;
}

size_t px_world_cache(const struct px_world *w, const struct px_cached **e)
{
	*e = w->cache;
	return w->n_cache;
}

int px_world_set_cache(struct px_world *w, const struct px_cached *e,
		       size_t n, struct px_error *err)
{
	struct px_cached *cache;

	for (size_t k = 0; k < n; k++) {
		if (e[k].a >= w->n_bodies || e[k].b >= w->n_bodies)
			return px_error_set(err, PX_ERR_INVALID,
					    "a contact cache entry of bodies %u and %u, of %zu",
					    (unsigned)e[k].a, (unsigned)e[k].b,
					    w->n_bodies);
		if (k && cmp_cached(e + k - 1, e + k) > 0)
			return px_error_set(err, PX_ERR_INVALID,
					    "contact cache entries are not sorted by body pair");
	}
	cache = malloc((n + 1) * sizeof *cache);
	if (!cache)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	if (n)
		memcpy(cache, e, n * sizeof *cache);
	free(w->cache);
	w->cache = cache;
	w->n_cache = n;
	w->cache_cap = n + 1; /* what the store's spare may reuse */
	return PX_OK;
}
