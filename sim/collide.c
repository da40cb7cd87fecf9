/* sim_collide_all: the broad phase's pairs through the narrow phase into
 * one growable array of contact points. */
#include <stdlib.h>

#include "collide.h"

/* Room for SIM_MAX_POINTS more points after the first `used`. */
static int reserve(struct sim_contact **c, size_t *cap, size_t used)
{
	size_t want = *cap < 64 ? 64 : *cap;
	struct sim_contact *p;

	if (used + SIM_MAX_POINTS <= *cap)
		return 0;
	while (want < used + SIM_MAX_POINTS)
		want *= 2;
	p = realloc(*c, want * sizeof *p);
	if (!p)
		return -1;
	*c = p;
	*cap = want;
	return 0;
}

int sim_collide_all(struct sim_broadphase *bp, const struct sim_body *bodies,
		    size_t n, double margin, struct sim_contact **contacts,
		    size_t *n_contacts, size_t *cap)
{
	const struct sim_pair *pairs;
	size_t n_pairs, m = 0;

	*n_contacts = 0;
	if (sim_broadphase_pairs(bp, bodies, n, margin, &pairs, &n_pairs))
		return -1;
	for (size_t k = 0; k < n_pairs; k++) {
		const uint32_t a = pairs[k].a, b = pairs[k].b;

		if (reserve(contacts, cap, m))
			return -1;
		m += (size_t)sim_collide_pair(&bodies[a], a, &bodies[b], b,
					      margin, *contacts + m);
		*n_contacts = m;
	}
	return 0;
}
