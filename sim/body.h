/* Rigid bodies and their shapes (doc/design.md, section 3, sim/). A body's
 * frame has its origin at the centre of mass and its axes along the principal
 * axes of inertia; its shape is centred on that origin. */
#ifndef PX_SIM_BODY_H
#define PX_SIM_BODY_H

#include <stdint.h>

enum px_shape_kind {
	PX_SPHERE = 0,  /* radius */
	PX_BOX = 1,     /* half[3]: half extents along the body axes */
	PX_CAPSULE = 2, /* radius and half_length: the segment from
			    -half_length to +half_length on the body z axis,
			    swept by a sphere of that radius */
	PX_PLANE = 3,   /* static half-space: its surface passes through
			    the body's x, `normal` (unit, world) points out
			    of the solid; orientation is unused */
};

struct px_shape {
	enum px_shape_kind kind;
	double radius;
	double half[3];
	double half_length;
	double normal[3];
};

struct px_body {
	struct px_shape shape;
	double x[3];   /* centre of mass (world) */
	double q[4];   /* orientation, body to world (w, x, y, z), unit */
	double v[3];   /* linear velocity (world) */
	double w[3];   /* angular velocity (world) */
	double mass;       /* 0 for a static body */
	double inertia[3]; /* principal moments (body frame), 0 for static */
	double mu;         /* Coulomb coefficient of its surface */
	double mu_tau;     /* torsional (spin) coefficient, a length (m) */
	double restitution;
	int is_static;     /* never moves: infinite mass */
};

#endif
