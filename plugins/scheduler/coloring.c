/* Greedy and balanced coloring of the contact graph, small colors merged
 * into one unsafe color, per-color lists in the ordering's relative order
 * (coloring.h; Poulsen 2010, sec. 4.3 and 7.2.2). */
#include <stdlib.h>
#include <string.h>

#include "coloring.h"

#define NONE UINT32_MAX

int coloring_alloc(struct coloring *c, size_t n, size_t patches)
{
	memset(c, 0, sizeof *c);
	c->n = n;
	c->n_patches = patches;
	c->patch = patches && n > patches ? (n + patches - 1) / patches : 1;
	c->color = malloc((n + 1) * sizeof *c->color);
	c->size = malloc((n + 1) * sizeof *c->size);
	c->group = malloc((n + 1) * sizeof *c->group);
	c->start = malloc((n + 2) * sizeof *c->start);
	c->list = malloc((n + 1) * sizeof *c->list);
	c->stamp = malloc((n + 1) * sizeof *c->stamp);
	c->n_keys = patches + n;
	c->unit = malloc((n + 2) * sizeof *c->unit);
	c->ustart = malloc((c->n_keys + 1) * sizeof *c->ustart);
	c->unit_of = malloc((c->n_keys + 1) * sizeof *c->unit_of);
	c->unit_fill = malloc((c->n_keys + 1) * sizeof *c->unit_fill);
	if (!c->color || !c->size || !c->group || !c->start || !c->list ||
	    !c->stamp || !c->unit || !c->ustart || !c->unit_of ||
	    !c->unit_fill) {
		coloring_free(c);
		return -1;
	}
	return 0;
}

void coloring_free(struct coloring *c)
{
	free(c->color);
	free(c->size);
	free(c->group);
	free(c->start);
	free(c->list);
	free(c->stamp);
	free(c->unit);
	free(c->ustart);
	free(c->unit_of);
	free(c->unit_fill);
	memset(c, 0, sizeof *c);
}

/* A patch-interior contact while the others are colored. */
#define INTERIOR (NONE - 1)

/* Stamp with k the colors that the colored neighbours of k hold. */
static void mark_neighbours(struct coloring *c, const uint32_t *ptr,
			    const uint32_t *adj, uint32_t k)
{
	for (uint32_t q = ptr[k]; q < ptr[k + 1]; q++)
		if (c->color[adj[q]] < INTERIOR)
			c->stamp[c->color[adj[q]]] = k;
}

/* Every contact uncolored except the patch-interior ones. */
static void reset(struct coloring *c)
{
	for (size_t k = 0; k < c->n; k++)
		if (c->color[k] != INTERIOR)
			c->color[k] = NONE;
	for (size_t i = 0; i <= c->n; i++) {
		c->stamp[i] = NONE;
		c->size[i] = 0;
	}
	c->n_colors = 0;
}

static void greedy(struct coloring *c, const uint32_t *ptr,
		   const uint32_t *adj)
{
	reset(c);
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t col = 0;

		if (c->color[k] == INTERIOR)
			continue;
		mark_neighbours(c, ptr, adj, k);
		while (c->stamp[col] == k)
			col++;
		c->color[k] = col;
		c->size[col]++;
		if (col == c->n_colors)
			c->n_colors++;
	}
}

static void balanced(struct coloring *c, const uint32_t *ptr,
		     const uint32_t *adj)
{
	uint32_t palette;

	greedy(c, ptr, adj);
	palette = c->n_colors;
	reset(c);
	c->n_colors = palette;
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t best = NONE;

		if (c->color[k] == INTERIOR)
			continue;
		mark_neighbours(c, ptr, adj, k);
		for (uint32_t col = 0; col < c->n_colors; col++)
			if (c->stamp[col] != k &&
			    (best == NONE || c->size[col] < c->size[best]))
				best = col;
		if (best == NONE)
			best = c->n_colors++;
		c->color[k] = best;
		c->size[best]++;
	}
}

void coloring_color(struct coloring *c, const uint32_t *ptr,
		    const uint32_t *adj, enum coloring_mode mode)
{
	const size_t P = c->patch;
	uint32_t interior = 0;

	for (size_t k = 0; k < c->n; k++) {
		c->color[k] = NONE;
		if (!c->n_patches)
			continue;
		c->color[k] = INTERIOR;
		for (uint32_t q = ptr[k]; q < ptr[k + 1]; q++)
			if (adj[q] / P != k / P) {
				c->color[k] = NONE;
				break;
			}
		interior += c->color[k] == INTERIOR;
	}
	if (mode == COLORING_BALANCED)
		balanced(c, ptr, adj);
	else
		greedy(c, ptr, adj);
	if (!c->n_patches)
		return;
	/* color 0: the patches' interiors; the others shift by one */
	memmove(c->size + 1, c->size, c->n_colors * sizeof *c->size);
	c->size[0] = interior;
	c->n_colors++;
	for (size_t k = 0; k < c->n; k++)
		c->color[k] = c->color[k] == INTERIOR ? 0 : c->color[k] + 1;
}

/* Whether color col may join the unsafe group: the patches' interiors
 * (color 0 with patches) are no independent set, and never do. */
static int merged(const struct coloring *c, uint32_t col, size_t merge_below)
{
	return c->size[col] < merge_below && !(c->n_patches && col == 0);
}

void coloring_group(struct coloring *c, size_t merge_below)
{
	uint32_t *of_color = c->stamp; /* color -> group */
	uint32_t next = 0, groups;

	c->n_merged = 0;
	for (uint32_t col = 0; col < c->n_colors; col++)
		if (merged(c, col, merge_below))
			c->n_merged++;
		else
			of_color[col] = next++;
	c->n_safe = next;
	for (uint32_t col = 0; col < c->n_colors; col++)
		if (merged(c, col, merge_below))
			of_color[col] = c->n_safe;
	groups = coloring_groups(c);
	memset(c->start, 0, (groups + 1) * sizeof *c->start);
	for (size_t k = 0; k < c->n; k++) {
		c->group[k] = of_color[c->color[k]];
		c->start[c->group[k] + 1]++;
	}
	for (uint32_t g = 0; g < groups; g++)
		c->start[g + 1] += c->start[g];
}

/* The unit of contact k: its patch when it is patch-interior, else its
 * own. */
static size_t unit_key(const struct coloring *c, uint32_t k)
{
	if (!c->n_patches)
		return k;
	return c->color[k] == 0 ? k / c->patch : c->n_patches + k;
}

void coloring_bucket(struct coloring *c, const uint32_t *perm)
{
	const uint32_t groups = coloring_groups(c);
	const size_t keys = c->n_keys;
	uint32_t *fill = c->stamp; /* group -> next free unit */
	uint32_t n_units = 0;

	/* units numbered group by group, each group's in the order of their
	 * first contact in perm */
	for (size_t u = 0; u < keys; u++)
		c->unit_of[u] = NONE;
	memset(c->unit, 0, (groups + 1) * sizeof *c->unit);
	for (size_t i = 0; i < c->n; i++) {
		const size_t u = unit_key(c, perm[i]);

		if (c->unit_of[u] == NONE) {
			c->unit_of[u] = 0;
			c->unit[c->group[perm[i]] + 1]++;
			n_units++;
		}
	}
	for (uint32_t g = 0; g < groups; g++)
		c->unit[g + 1] += c->unit[g];
	memcpy(fill, c->unit, groups * sizeof *fill);
	for (size_t u = 0; u < keys; u++)
		c->unit_of[u] = NONE;
	memset(c->ustart, 0, (n_units + 1) * sizeof *c->ustart);
	for (size_t i = 0; i < c->n; i++) {
		const size_t u = unit_key(c, perm[i]);

		if (c->unit_of[u] == NONE)
			c->unit_of[u] = fill[c->group[perm[i]]]++;
		c->ustart[c->unit_of[u] + 1]++;
	}
	for (uint32_t u = 0; u < n_units; u++)
		c->ustart[u + 1] += c->ustart[u];
	/* contacts, unit by unit, in perm's order */
	memcpy(c->unit_fill, c->ustart, n_units * sizeof *c->unit_fill);
	for (size_t i = 0; i < c->n; i++)
		c->list[c->unit_fill[c->unit_of[unit_key(c, perm[i])]]++] =
			perm[i];
}
