/* A rank's region of a generated scene (issue 21): recursive coordinate
 * bisection of the bodies' centres into as many boxes as ranks, computed
 * identically on every rank from the scene file alone, and the filters
 * that let each rank generate only its region and a ghost layer around it
 * (px_scene_read_region). */
#ifndef PX_DIST_REGION_H
#define PX_DIST_REGION_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/error.h>

#include "body.h"
#include "world.h"

struct px_rcb_node {
	int axis;       /* -1: a leaf */
	double cut;     /* centres below go left */
	int left, right; /* node indices */
	int rank;       /* of a leaf */
};

struct px_region {
	int rank, size;
	struct px_rcb_node *node; /* 2 size - 1 nodes, root 0 */
	int n_node;
	double lo[3], hi[3];      /* this rank's box */
	double *box;              /* every rank's: lo, hi (6 per rank) */
	double ghost;             /* ghost layer width */
	/* what the last read kept (pass 3) */
	uint64_t *gid;            /* generation index per kept body */
	int32_t *owner;           /* rank per kept body, -1 for static */
	size_t n, cap;
	/* passes 1 and 2 */
	int pass;
	size_t n_dynamic, stride;
	double rmax;
	double *sample;
	size_t n_sample, cap_sample;
	int nomem;
};

/* Read the scene three times (count, sample, keep): on return *bodies
 * holds this rank's bodies and its ghost layer, r->gid and r->owner
 * describe them. margin: the collision margin of the scene's world. */
int px_region_read(const char *path, int rank, int size,
		   struct px_world_settings *settings, struct px_body **bodies,
		   size_t *n_bodies, struct px_region *r, struct px_error *err);

/* The sampling stride of n_dynamic centres cut into size boxes: every
 * stride-th (odd) centre, in the scene's order, goes into the bisection. */
size_t px_region_stride(size_t n_dynamic, int size);

/* Cut the boxes of r->size ranks anew from the centres pts[0..n) (3 each;
 * reordered): the recursive coordinate bisection px_region_read makes
 * from its sample, and re-balancing from the current centres. r->node,
 * r->box, r->lo and r->hi become the new tree's; PX_ERR_NOMEM when out of
 * memory. */
int px_region_bisect(struct px_region *r, double *pts, size_t n);

/* The rank whose box holds centre x. */
int px_region_owner(const struct px_region *r, const double x[3]);

/* The world's n bodies now have the global ids *gid and owners *owner:
 * r takes both arrays (freeing its own) and sets *gid and *owner to NULL. */
void px_region_take(struct px_region *r, uint64_t **gid, int32_t **owner,
		    size_t n);

/* Whether rank q keeps a body centred at x: its box holds x or x is
 * within the ghost layer's width of it. */
int px_region_keeps(const struct px_region *r, int q, const double x[3]);

/* The ranks other than r->rank whose boxes are within 2 ghost widths of
 * its own, ascending, into a malloc'ed *out (*n of them): the ranks that
 * may share bodies with it after a step. */
int px_region_neighbours(const struct px_region *r, int **out, size_t *n);

void px_region_free(struct px_region *r);

#endif
