/* Greedy and balanced coloring of the contact graph, small colors merged
 * into one unsafe color, per-color lists in the ordering's relative order
 * (coloring.h; 004 sec. 4.3 and 7.2.2). */
#include <stdlib.h>
#include <string.h>

#include "coloring.h"

#define NONE UINT32_MAX

int coloring_alloc(struct coloring *c, size_t n)
{
	memset(c, 0, sizeof *c);
	c->n = n;
	c->color = malloc((n + 1) * sizeof *c->color);
	c->size = malloc((n + 1) * sizeof *c->size);
	c->group = malloc((n + 1) * sizeof *c->group);
	c->start = malloc((n + 2) * sizeof *c->start);
	c->list = malloc((n + 1) * sizeof *c->list);
	c->stamp = malloc((n + 1) * sizeof *c->stamp);
	if (!c->color || !c->size || !c->group || !c->start || !c->list ||
	    !c->stamp) {
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
	memset(c, 0, sizeof *c);
}

/* Stamp with k the colors that the colored neighbours of k hold. */
static void mark_neighbours(struct coloring *c, const uint32_t *ptr,
			    const uint32_t *adj, uint32_t k)
{
	for (uint32_t q = ptr[k]; q < ptr[k + 1]; q++)
		if (c->color[adj[q]] != NONE)
			c->stamp[c->color[adj[q]]] = k;
}

static void reset(struct coloring *c)
{
	for (size_t k = 0; k < c->n; k++)
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
	if (mode == COLORING_BALANCED)
		balanced(c, ptr, adj);
	else
		greedy(c, ptr, adj);
}

void coloring_group(struct coloring *c, size_t merge_below)
{
	uint32_t *of_color = c->stamp; /* color -> group */
	uint32_t next = 0, groups;

	c->n_merged = 0;
	for (uint32_t col = 0; col < c->n_colors; col++)
		if (c->size[col] < merge_below)
			c->n_merged++;
		else
			of_color[col] = next++;
	c->n_safe = next;
	for (uint32_t col = 0; col < c->n_colors; col++)
		if (c->size[col] < merge_below)
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

void coloring_bucket(struct coloring *c, const uint32_t *perm)
{
	uint32_t *fill = c->stamp; /* group -> next free slot */
	const uint32_t groups = coloring_groups(c);

	memcpy(fill, c->start, groups * sizeof *fill);
	for (size_t i = 0; i < c->n; i++)
		c->list[fill[c->group[perm[i]]]++] = perm[i];
}
