/* px_collide_all: the broad phase's pairs through the narrow phase into
 * one growable array of contact points. */
#include <stdlib.h>

#include "collide.h"

/* Room for PX_MAX_POINTS more points after the first `used`. */
static int reserve(struct px_contact **c, size_t *cap, size_t used)
{
	size_t want = *cap < 64 ? 64 : *cap;
	struct px_contact *p;

	if (used + PX_MAX_POINTS <= *cap)
		return 0;
	while (want < used + PX_MAX_POINTS)
		want *= 2;
	p = realloc(*c, want * sizeof *p);
	if (!p)
		return -1;
	*c = p;
	*cap = want;
	return 0;
}

int px_collide_all(struct px_broadphase *bp, const struct px_body *bodies,
		    size_t n, double margin, struct px_contact **contacts,
		    size_t *n_contacts, size_t *cap)
{
	const struct px_pair *pairs;
	size_t n_pairs, m = 0;

	*n_contacts = 0;
	if (px_broadphase_pairs(bp, bodies, n, margin, &pairs, &n_pairs))
		return -1;
	for (size_t k = 0; k < n_pairs; k++) {
		const uint32_t a = pairs[k].a, b = pairs[k].b;

		if (reserve(contacts, cap, m))
			return -1;
		m += (size_t)px_collide_pair(&bodies[a], a, &bodies[b], b,
					      margin, *contacts + m);
		*n_contacts = m;
	}
	return 0;
}
