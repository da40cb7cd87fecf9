/* A body's surface as triangles (sim/mesh.c), for the VTK frames of
 * io/vtk.h. */
#ifndef PX_SIM_MESH_H
#define PX_SIM_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "../io/vtk.h"
#include "body.h"

/* Triangles of one body: a box 8 points and 12 triangles, a sphere a UV
 * sphere of 8 slices and 4 stacks (26 points, 48 triangles), a capsule the
 * same split at its equator by a cylinder (34, 64), a plane a square of
 * side PX_MESH_PLANE_SIZE centred at the body's x (4, 2). */
#define PX_MESH_MAX_POINTS 34
#define PX_MESH_MAX_TRIS 64
#define PX_MESH_PLANE_SIZE 20.0
_Static_assert(PX_MESH_MAX_POINTS <= PX_VTK_MAX_POINTS &&
		       PX_MESH_MAX_TRIS <= PX_VTK_MAX_TRIS,
	       "a body's mesh must fit a VTK part");

/* Body b's surface in world coordinates: points (3 per point) and
 * triangles (3 point indices each, counter-clockwise seen from outside).
 * Writes *n_points <= PX_MESH_MAX_POINTS, *n_tris <= PX_MESH_MAX_TRIS. */
void px_body_mesh(const struct px_body *b, double *points, uint32_t *tris,
		  size_t *n_points, size_t *n_tris);

/* A px_vtk_part_fn over an array of struct px_body: body i's surface and
 * the speed of its centre of mass. */
void px_body_vtk_part(const void *bodies, size_t i, struct px_vtk_part *out);

/* The contacts of w's last step (px_world_contacts) as VTK contacts
 * (sim/world_vtk.c): point, the normal along which the normal impulse
 * pushes `body` (away from `other`), the normal impulse, and the friction
 * impulse in world coordinates (rolling rows left out). *out: n entries,
 * free() it. */
struct px_world;
int px_world_vtk_contacts(const struct px_world *w,
			  struct px_vtk_contact **out, size_t *n,
			  struct px_error *err);

#endif
