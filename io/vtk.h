/* VTK XML output for ParaView (doc/design.md, section 7): one PolyData file
 * (.vtp) per frame with the surfaces of its parts (a world's bodies) as
 * triangles in world coordinates, one PolyData file per frame with its
 * contacts as vertices (points, normals, impulses: glyphs in ParaView),
 * and the .pvd collections that put the frames in time. */
#ifndef PX_IO_VTK_H
#define PX_IO_VTK_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/error.h>

/* Room for one part's surface. */
#define PX_VTK_MAX_POINTS 64
#define PX_VTK_MAX_TRIS 128

/* One part of a frame: its surface (points, 3 per point; triangles, 3
 * point indices each, counter-clockwise seen from outside) and its speed
 * (m/s). */
struct px_vtk_part {
	double points[3 * PX_VTK_MAX_POINTS];
	uint32_t tris[3 * PX_VTK_MAX_TRIS];
	size_t n_points, n_tris;
	double speed;
};

/* Fills out with part i of ctx's parts; the writer asks for each part
 * three times (counts, points, triangles), and must get the same every
 * time. */
typedef void (*px_vtk_part_fn)(const void *ctx, size_t i,
			       struct px_vtk_part *out);

/* One frame: the n parts in one ASCII <Piece>, with cell data `body`
 * (Int32, the part's index) and `speed` (Float32). */
int px_vtk_write_frame(const char *path, size_t n, px_vtk_part_fn part,
		       const void *ctx, struct px_error *err);

/* One contact of a frame: its point (world), the unit normal along which
 * its normal impulse pushes body `body` (away from body `other`, -1 for
 * none), the normal impulse (N s, >= 0) and the friction impulse (the
 * tangential part, world coordinates, N s). */
struct px_vtk_contact {
	double point[3], normal[3];
	double normal_impulse, friction[3];
	int32_t body, other;
};

/* A frame's contacts: n vertices (<Verts>, one per contact) in one ASCII
 * <Piece>, with point data `normal` (3), `normal_impulse`, `friction` (3),
 * `impulse` (3: normal_impulse normal + friction), `body` and `other`, as
 * Float64 written to 17 digits; ParaView draws them with a Glyph filter
 * (arrows oriented by normal, impulse or friction, scaled by
 * normal_impulse). */
int px_vtk_write_contacts(const char *path, size_t n,
			  const struct px_vtk_contact *c, struct px_error *err);

/* The collection: frame_files[i] (as written, relative to the .pvd's
 * directory or absolute) at times[i] (s). */
int px_vtk_write_pvd(const char *path, const char *const *frame_files,
		      const double *times, size_t n, struct px_error *err);

#endif
