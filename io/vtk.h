/* VTK XML output of the rigid-body world, for ParaView (DESIGN.md section
 * 7): one PolyData file (.vtp) per frame with every body's surface as
 * triangles in world coordinates, and the .pvd collection that puts the
 * frames in time. */
#ifndef PX_SIM_VTK_H
#define PX_SIM_VTK_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/error.h>

#include "../sim/body.h"

/* Triangles of one body: a box 8 points and 12 triangles, a sphere a UV
 * sphere of 8 slices and 4 stacks (26 points, 48 triangles), a capsule the
 * same split at its equator by a cylinder (34, 64), a plane a square of
 * side PX_VTK_PLANE_SIZE centred at the body's x (4, 2). */
#define PX_VTK_MAX_POINTS 34
#define PX_VTK_MAX_TRIS 64
#define PX_VTK_PLANE_SIZE 20.0

/* Body b's surface in world coordinates: points (3 per point) and
 * triangles (3 point indices each, counter-clockwise seen from outside).
 * Writes *n_points <= PX_VTK_MAX_POINTS, *n_tris <= PX_VTK_MAX_TRIS. */
void px_vtk_body_mesh(const struct px_body *b, double *points, uint32_t *tris,
		       size_t *n_points, size_t *n_tris);

/* One frame: every body of bodies[n] in one ASCII <Piece>, with cell data
 * `body` (Int32, the body's index) and `speed` (Float32, |v| of its centre
 * of mass, m/s). */
int px_vtk_write_frame(const char *path, const struct px_body *bodies,
			size_t n, struct px_error *err);

/* The collection: frame_files[i] (as written, relative to the .pvd's
 * directory or absolute) at times[i] (s). */
int px_vtk_write_pvd(const char *path, const char *const *frame_files,
		      const double *times, size_t n, struct px_error *err);

#endif
