/* Collision: broad phase and narrow phase (issue 7).
 *
 * A contact point between bodies a and b carries the unit normal n pointing
 * from a to b (out of a's surface), a point p midway between the two
 * surfaces, the penetration depth (> 0 when the shapes overlap, < 0 for a
 * gap smaller than the margin: such speculative contacts are reported too)
 * and a feature identifier that names the pair of shape features (vertex,
 * edge, face, clipped corner) that produced it, so that the contact cache
 * matches the same point across time steps (Catto 2005, sec. 8.2). Two points
 * of one pair never carry the same feature id. */
#ifndef PX_SIM_COLLIDE_H
#define PX_SIM_COLLIDE_H

#include <stddef.h>
#include <stdint.h>

#include "body.h"

/* At most this many points per pair (box-box face contacts clip to 4, but
 * clipping can give up to 8 points before reduction). */
#define PX_MAX_POINTS 8

struct px_contact {
	uint32_t a, b;     /* body indices */
	uint32_t feature;  /* unique within the pair (a, b) */
	double n[3];       /* unit normal from a to b */
	double p[3];       /* contact point (world) */
	double depth;      /* penetration (> 0) or minus the gap (< 0) */
};

/* The narrow phase of one pair: writes up to PX_MAX_POINTS points with
 * depth > -margin into out (a and b set to ia, ib) and returns their count.
 * Two static bodies, or two planes, give 0. */
int px_collide_pair(const struct px_body *a, uint32_t ia,
		     const struct px_body *b, uint32_t ib, double margin,
		     struct px_contact *out);

/* The broad phase: pairs of bodies whose bounding boxes, grown by margin,
 * overlap, with at least one dynamic body; two spheres only where their
 * surfaces come within the margin (to a relative 1e-9: the narrow phase
 * decides the boundary). Near-linear in the number of
 * bodies (a uniform grid); large and static bodies are handled apart. It
 * keeps its buffers between calls. */
struct px_broadphase;
struct px_broadphase *px_broadphase_create(void);
void px_broadphase_destroy(struct px_broadphase *bp);

struct px_pair {
	uint32_t a, b; /* a < b */
};

/* All candidate pairs, sorted by (b, a), valid until the next call.
 * Returns 0, or -1 when out of memory. */
int px_broadphase_pairs(struct px_broadphase *bp,
			 const struct px_body *bodies, size_t n,
			 double margin, const struct px_pair **pairs,
			 size_t *n_pairs);

/* Broad then narrow phase over all bodies: *contacts (grown with realloc as
 * needed, *cap its capacity) receives every contact point, pair by pair in
 * the broad phase's order, points of a pair in a fixed order. Returns 0, or
 * -1 when out of memory. */
int px_collide_all(struct px_broadphase *bp, const struct px_body *bodies,
		    size_t n, double margin, struct px_contact **contacts,
		    size_t *n_contacts, size_t *cap);

/* px_collide_all, which also adds the broad phase's wall time to
 * seconds[0] and the narrow phase's to seconds[1]. */
int px_collide_all_timed(struct px_broadphase *bp,
			 const struct px_body *bodies, size_t n, double margin,
			 struct px_contact **contacts, size_t *n_contacts,
			 size_t *cap, double seconds[2]);

#endif
