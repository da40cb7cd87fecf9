/* Rigid parts of a generated scene (issue 21, rigid.c). */
#ifndef PX_DIST_RIGID_H
#define PX_DIST_RIGID_H

#include "dist.h"
#include "region.h"
#include "world.h"
#include "world_problem.h"

/* Inside the world's solve hook: take this rank's contacts from the
 * problem p the local world w built (no message), with the step's
 * dynamics and contact rows the world built them from at its collision
 * (the hook's s->dynamics and s->rows: after a substep the bodies have
 * moved, and A is still the collision's), or with both NULL built from
 * the bodies as they are. wc: the problem's contacts, wn of them (the
 * hook's s->contacts of post-stabilization), or NULL: the world's. */
int px_dist_rigid_capture(const struct px_world *w, const struct px_problem *p,
			  const struct px_dynamics *wdyn,
			  const struct px_contact_rows *wrows,
			  const struct px_contact *wc, size_t wn,
			  const struct px_region *reg, enum px_dist_combine combine,
			  struct px_dist_part *d, struct px_error *err);

/* After px_dist_share_copies: the part's problem (masses split or not). */
int px_dist_rigid_build(struct px_dist_part *d, struct px_error *err);

#endif
