/* Graph coloring of the contact conflict graph for the `colored` scheduler
 * (004 sec. 4.3), the merging of small colors into one unsafe color
 * (004 sec. 4.3.1, 7.2.2) and the per-color contact lists of a sweep.
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
};

/* Arrays for n contacts. Returns 0, or -1 (out of memory; c is freed). */
int coloring_alloc(struct coloring *c, size_t n);
void coloring_free(struct coloring *c);

/* Color contacts 0 .. n-1 in index order on the graph (ptr, adj) (CSR, no
 * self loops, symmetric): no two neighbours get the same color. Greedy
 * takes the lowest free color (at most max degree + 1 colors). Balanced
 * first colors greedily to learn a palette of P colors, then again in
 * index order takes the least-used free color of the palette (ties: the
 * lowest), opening a new color only when the neighbours hold all of
 * them: about as many colors (barriers) as greedy, of even sizes. */
void coloring_color(struct coloring *c, const uint32_t *ptr,
		    const uint32_t *adj, enum coloring_mode mode);

/* Groups from the colors: colors of fewer than merge_below contacts (an
 * absolute count; 0 merges none) form the unsafe group. */
void coloring_group(struct coloring *c, size_t merge_below);

/* Groups in total: n_safe, plus one when there is an unsafe group. */
static inline uint32_t coloring_groups(const struct coloring *c)
{
	return c->n_safe + (c->n_merged > 0);
}

/* Fill list with every contact, group by group, each group in the
 * relative order of perm (a permutation of 0 .. n-1). O(n). */
void coloring_bucket(struct coloring *c, const uint32_t *perm);

#endif
