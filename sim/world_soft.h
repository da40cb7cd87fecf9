/* Soft contact (world_soft.c): Box2D v3's soft step, its coefficients and
 * the problem A + Gamma of its biased solve. */
#ifndef PX_SIM_WORLD_SOFT_H
#define PX_SIM_WORLD_SOFT_H

#include "world_problem.h"

/* The soft normal row of a substep: bias = -bias_rate (depth - slop),
 * and A_nn gamma added to A_nn; Box2D's mass_scale and impulse_scale for
 * reference (world_soft.c). hertz 0: rigid, no bias. */
struct px_softness {
	double bias_rate, gamma, mass_scale, impulse_scale;
};

void px_soft_make(double hertz, double zeta, double h, struct px_softness *s);

/* Of contacts between dynamic bodies ([0]) and with a static body ([1]):
 * contact_hertz capped at a quarter of the substep rate 1/h, twice that
 * for a static body, contact_damping_ratio. */
void px_soft_pair(const struct px_world_settings *st, double h,
		  struct px_softness soft[2]);

/* Make p (the rigid problem of contacts rows) A + Gamma, Gamma =
 * diag(gamma A_nn) on the normal rows, gamma of soft[1] for a contact
 * with a static body: p's normal shift. */
int px_world_soft_problem(const struct px_contact_rows *rows,
			  const struct px_softness soft[2],
			  struct px_problem *p, struct px_error *err);

#endif
