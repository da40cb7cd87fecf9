/* px_collide_all: the broad phase's pairs through the narrow phase into
 * one growable array of contact points. */
#include <stdlib.h>
#include <time.h>

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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int px_collide_all(struct px_broadphase *bp, const struct px_body *bodies,
		    size_t n, double margin, struct px_contact **contacts,
		    size_t *n_contacts, size_t *cap)
{
	double s[2] = {0, 0};

	return px_collide_all_timed(bp, bodies, n, margin, contacts,
				    n_contacts, cap, s);
}

int px_collide_all_timed(struct px_broadphase *bp,
			 const struct px_body *bodies, size_t n, double margin,
			 struct px_contact **contacts, size_t *n_contacts,
			 size_t *cap, double seconds[2])
{
	const struct px_pair *pairs;
	size_t n_pairs, m = 0;
	const double t0 = now();
	double t1;
	int rc = 0;

	*n_contacts = 0;
	if (px_broadphase_pairs(bp, bodies, n, margin, &pairs, &n_pairs))
		return -1;
	t1 = now();
	for (size_t k = 0; k < n_pairs; k++) {
		const uint32_t a = pairs[k].a, b = pairs[k].b;

		if (reserve(contacts, cap, m)) {
			rc = -1;
			break;
		}
		m += (size_t)px_collide_pair(&bodies[a], a, &bodies[b], b,
					      margin, *contacts + m);
		*n_contacts = m;
	}
	seconds[0] += t1 - t0;
	seconds[1] += now() - t1;
	return rc;
}
