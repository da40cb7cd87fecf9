/* Contact problems of simple scenes built in code (doc/scenes.md), for the
 * tests and benchmarks that need a problem of known structure without a
 * world (the world's own, scene.h, come from its collision): bodies with
 * identity orientation, contacts given by point and normal, turned into a
 * factorized problem for the first time step. */
#ifndef PX_SIM_SCENE_PROBLEMS_H
#define PX_SIM_SCENE_PROBLEMS_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/proxima.h>

/* A dynamic body: centre, velocity (angular velocity is zero), inverse
 * mass and the diagonal of its inverse inertia (identity orientation). */
struct scene_body {
	double x[3], v[3];
	double inv_mass, inv_inertia[3];
};

/* A contact between dynamic body a and body b (an index or PX_STATIC, the
 * static world) at `point`, with the unit normal pointing from b to a. */
struct scene_contact {
	uint32_t a, b;
	double point[3], normal[3];
	double mu;
};

/* The problem of the first step of length dt under gravity g (m/s^2):
 * A = J M^-1 J^T, b = J (v + dt g), frame (n, s, t) per contact with s =
 * y x n normalized (x x n when n is along y), so n = z gives s = x, t = y.
 * Positions and frames are set; A in form PX_FORM_FACTORIZED or
 * PX_FORM_RIGID (the same operator). Returns PX_OK or an error. */
int scene_problem_create(const struct scene_body *bodies, size_t n_bodies,
			 const struct scene_contact *contacts,
			 size_t n_contacts, double dt, const double g[3],
			 enum px_form form, struct px_problem **out,
			 struct px_error *err);

/* doc/scenes.md's scenes at their first step (mu 0.5, g = (0, 0, -9.81)):
 *   ballgrid-N: N^3 unit spheres of 1 kg touching in a cubic lattice and
 *     the ground, dt 0.01; contacts per sphere in creation order: ground
 *     (bottom layer), then its -x, -y and -z neighbours;
 *   ballpile-N: N planes of N^2 spheres with the specified random gaps and
 *     velocities (its 64-bit LCG, seed 12345), dt 0.01; contacts between
 *     in-plane neighbours that touch (within 1e-9 m) and with the ground;
 *   boxstack: stack_problem.h. */
int scene_ballgrid(size_t n, enum px_form form, struct px_problem **out,
		   struct px_error *err);
int scene_ballpile(size_t n, enum px_form form, struct px_problem **out,
		   struct px_error *err);

/* Silcowitz et al.'s (2010) test cases (Fig. 2 d, e) at rest, first step dt =
 * 1/60 s, g = 9.81 m/s^2, four contacts per touching face at its corners:
 *   heavy-on-light: four light cubes (half extent 0.25 m, 1 kg) on the
 *     ground at the corners of a heavy slab (half extents 1 x 1 x 0.25 m,
 *     `ratio` kg) that rests on them: 32 contacts, mass ratio `ratio`;
 *   incline: a row of `boxes` cubes (half extent 0.5 m, 10 kg) touching
 *     face to face down a plane inclined by `angle_deg` degrees (gravity
 *     tilted by that angle about y; the plane is z = 0 and the row runs
 *     along x, downhill = +x): 4 contacts with the plane per cube and 4 per
 *     touching pair. With tan(angle) < mu everything sticks (static
 *     friction).
 * mu for every contact. */
int scene_heavy_on_light(double ratio, double mu, enum px_form form,
			 struct px_problem **out, struct px_error *err);
int scene_incline(size_t boxes, double angle_deg, double mu,
		  enum px_form form, struct px_problem **out,
		  struct px_error *err);

#endif
