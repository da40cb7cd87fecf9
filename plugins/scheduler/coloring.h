/* Graph coloring of the contact conflict graph for the `colored` scheduler
 * (Poulsen 2010, sec. 4.3), the merging of small colors into one unsafe color
 * (Poulsen 2010, sec. 4.3.1, 7.2.2) and the per-color contact lists of a sweep.
 *
 * Patches: with K > 0 patches, contacts are cut into K ranges of
 * consecutive indices (of P = ceil(n / K) contacts; the last may be
 * shorter). A contact whose conflicts all lie in its own patch
 * is interior; the interiors of all patches form color 0, in which each
 * patch is one unit relaxed in order by one thread (different patches'
 * interiors share no body), and only the other contacts, on the borders
 * between patches, are colored one by one. A problem numbered in space (as
 * scenes and files number theirs) keeps the sequential sweep's order, and
 * so most of its convergence per sweep, inside every patch, where a
 * coloring of single contacts interleaves the whole problem; and each
 * thread walks its memory in order. K = 1 is sequential Gauss-Seidel on
 * one thread. K = 0: every contact is colored.
 *
 * Plain functions on arrays, no OpenMP: compiled into the plugin and into
 * tests/test_schedulers. */
#ifndef PX_SCHEDULER_COLORING_H
#define PX_SCHEDULER_COLORING_H

#include <stddef.h>
#include <stdint.h>

enum coloring_mode {
	COLORING_GREEDY = 0,   /* the lowest color no neighbour has */
	COLORING_BALANCED = 1, /* the least-used color no neighbour has */
};

struct coloring {
	size_t n;           /* contacts */
	size_t n_patches;   /* K, 0: no patches (every contact is colored) */
	size_t patch;       /* P, contacts per patch (1 without patches) */
	uint32_t n_colors;  /* colors of the coloring */
	uint32_t *color;    /* [n]: contact -> color */
	uint32_t *size;     /* [n + 1]: contacts per color */
	/* Groups: the colors of at least merge_below contacts in color order,
	 * each safe, then (if any color is smaller) one unsafe group of all
	 * the smaller colors' contacts. */
	uint32_t n_safe;    /* safe groups */
	uint32_t n_merged;  /* colors merged into the unsafe group */
	uint32_t *group;    /* [n]: contact -> group */
	uint32_t *start;    /* [groups + 1]: group g is list[start[g] .. start[g+1]) */
	uint32_t *list;     /* [n]: contacts by group */
	uint32_t *stamp;    /* [n + 1]: scratch */
	/* Units, what one thread relaxes in order: a patch's interior
	 * contacts, or one contact. Group g's units are unit[g] ..
	 * unit[g+1] - 1, unit u is list[ustart[u] .. ustart[u+1]). */
	size_t n_keys;      /* possible units: patches + contacts */
	uint32_t *unit;     /* [groups + 1] */
	uint32_t *ustart;   /* [n_keys + 1] */
	uint32_t *unit_of;  /* [n_keys]: scratch of coloring_bucket */
	uint32_t *unit_fill; /* [n_keys]: scratch of coloring_bucket */
};

/* Arrays for n contacts in K = patches patches (0: none). Returns 0, or -1
 * (out of memory; c is freed). */
int coloring_alloc(struct coloring *c, size_t n, size_t patches);
void coloring_free(struct coloring *c);

/* Color contacts 0 .. n-1 in index order on the graph (ptr, adj) (CSR, no
 * self loops, symmetric): no two neighbours get the same color, except in
 * color 0 with patches (the interiors, above). Greedy
 * takes the lowest free color (at most max degree + 1 colors). Balanced
 * first colors greedily to learn a palette of P colors, then again in
 * index order takes the least-used free color of the palette (ties: the
 * lowest), opening a new color only when the neighbours hold all of
 * them: about as many colors (barriers) as greedy, of even sizes. */
void coloring_color(struct coloring *c, const uint32_t *ptr,
		    const uint32_t *adj, enum coloring_mode mode);

/* Groups from the colors: colors of fewer than merge_below contacts (an
 * absolute count; 0 merges none) form the unsafe group; the patches'
 * interiors never join it. */
void coloring_group(struct coloring *c, size_t merge_below);

/* Groups in total: n_safe, plus one when there is an unsafe group. */
static inline uint32_t coloring_groups(const struct coloring *c)
{
	return c->n_safe + (c->n_merged > 0);
}

/* Fill list and the units with every contact, group by group, each group
 * in the relative order of perm (a permutation of 0 .. n-1): its units in
 * the order of their first contact in perm, a unit's contacts in perm's
 * order. O(n). */
void coloring_bucket(struct coloring *c, const uint32_t *perm);

#endif
