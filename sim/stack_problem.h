/* A column of boxes on the ground as a factorized contact problem built in
 * code (scene_problems.h), for the tests and benchmarks of orderings. */
#ifndef PX_SIM_STACK_PROBLEM_H
#define PX_SIM_STACK_PROBLEM_H

#include <stddef.h>

#include <proxima/proxima.h>

/* The first time step of doc/scenes.md's boxstack-K (K boxes of half extents
 * (0.7, 0.7, 0.3) m and 110 kg, exactly touching, centres (0, 0, 0.3 +
 * 0.6 k); ground plane z = 0; gravity 9.81 m/s^2 down; dt = 1/60 s),
 * except that box k starts sliding at (-1)^k slide m/s along x so that
 * friction has work to do. Four contacts per face, at its corners, frame
 * (n, s, t) = (z, x, y); the contacts of the ground face come first, then
 * face by face upwards, corners in the same order. mu for every contact;
 * A in the factorized or the rigid form (scene_problems.h).
 * Returns PX_OK or an error (out of memory). */
int stack_problem_create(size_t boxes, double mu, double slide,
			 enum px_form form, struct px_problem **out,
			 struct px_error *err);

#endif
