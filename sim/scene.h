/* Scene files (issue 7): the world's settings and its bodies in an INI file,
 * read like the solver configs (inih, declared typed keys, core/params.c)
 * and with the same strict errors: one line naming the file, the line, the
 * [section] and the key, what is wrong and what was expected.
 *
 * Sections are [KIND NAME] with a one-word name unique in the file, or
 * [world] (at most once, anywhere: its surface defaults apply to every
 * body). Bodies are created in file order; a generator creates its bodies
 * in the order given below. Z is up. Keys of each kind (all optional
 * unless marked *):
 *
 * [world]  gravity = gx, gy, gz   dt   steps   stepping = semi-implicit|moreau
 *          stabilization = baumgarte|post|none|soft   beta   slop   margin
 *          restitution_threshold   warm_start = BOOL   gyroscopic = BOOL
 *          substeps (1; at most 1000)   contact_hertz   contact_damping_ratio
 *          contact_push_velocity (soft contact)
 *          mu (0.5)   mu_tau (0)   restitution (0): the surface of bodies
 *          that do not set their own. Unset settings keep
 *          px_world_settings_default's values.
 * [body]   shape* = sphere|box|capsule|plane, then by shape
 *            sphere: radius*   box: half* = hx, hy, hz
 *            capsule: radius*, half_length* (the segment along body z)
 *            plane: normal* = nx, ny, nz (normalized; points out of the
 *              solid, which lies below the plane through `position`)
 *          position = x, y, z (0, 0, 0)   rotation = ax, ay, az, degrees
 *          (axis and angle; not for planes)   velocity   angular_velocity
 *          (not for planes or static bodies)   static = BOOL (false; a plane
 *          is always static)   exactly one of mass or density (kg/m^3)
 *          unless static   mu   mu_tau   restitution
 * [grid]   shape* = sphere|box|capsule and its size keys, count* = nx, ny,
 *          nz, spacing* = dx, dy, dz, origin (the first centre), rotation,
 *          velocity, angular_velocity, mass or density*, surface keys.
 *          Centre (i, j, k) = origin + (i dx, j dy, k dz), k slowest, i
 *          fastest.
 * [pile]   n*, seed (12345), ground = BOOL (false), surface keys: doc/scenes.md
 *          ballpile-N (n^3 unit spheres of 1 kg placed and launched by its
 *          64-bit LCG); with ground, doc/scenes.md's ground box comes first
 *          (with the spheres' surface).
 * [stack]  count*, half* (boxes), mass or density*, base (centre of the
 *          lowest box's bottom face), gap (0: touching), offset = dx, dy
 *          (shift of each level), surface keys. Bottom to top.
 * [wall]   rows*, bricks* (full bricks of an even row), half* (full brick),
 *          mass (per full brick) or density*, origin (bottom face centre
 *          of row 0's first full brick), surface keys: doc/scenes.md's running
 *          bond, odd rows with a half brick at each end; row by row from
 *          the bottom, left to right.
 * [cardhouse] levels*, half* = hx, hy, hz (a card standing: hx half its
 *          thickness, hy half its width, hz half its length), angle* (lean
 *          from the vertical, degrees), spacing* (between A-frames),
 *          origin (ground point under the middle), mass or density*,
 *          surface keys: a pyramid of A-frames, `levels` at the bottom, one
 *          fewer per level, flat cards bridging neighbouring apexes; per
 *          level the A-frames' cards left to right, then its flat cards.
 * [tower]  rings*, bricks* (per ring), half* (hx along the ring, hy
 *          across it), radius* (of the brick centres), origin (centre of
 *          the base), mass or density*, surface keys: rings of bricks, odd
 *          rings turned by half a brick; ring by ring from the bottom,
 *          counter-clockwise from +x.
 *
 * Inertia: solid sphere 2/5 m r^2; box m/3 (b^2 + c^2) with half extents;
 * capsule: cylinder plus two hemispheres of the same density. */
#ifndef PX_SIM_SCENE_H
#define PX_SIM_SCENE_H

#include <stddef.h>

#include <proxima/error.h>

#include "body.h"
#include "world.h"

/* At most this many bodies in one scene (a build may lower it: the fuzz
 * targets do, so that a valid scene of millions of bodies does not pass for
 * an out-of-memory fault). */
#ifndef PX_SCENE_MAX_BODIES
#define PX_SCENE_MAX_BODIES ((size_t)1 << 24)
#endif

/* Read the scene file at path: settings start from px_world_settings_default,
 * *bodies is malloc'd (the caller frees it). On failure nothing is written
 * but *bodies = NULL, *n_bodies = 0 and err. */
int px_scene_read(const char *path, struct px_world_settings *settings,
		   struct px_body **bodies, size_t *n_bodies,
		   struct px_error *err);

/* px_scene_read keeping only the bodies for which keep(ctx, body, index)
 * returns 1, index counting every body the scene generates in its order
 * (issue 21: an MPI rank generates its own region). */
int px_scene_read_region(const char *path, struct px_world_settings *settings,
			 int (*keep)(void *ctx, const struct px_body *b,
				     size_t index),
			 void *ctx, struct px_body **bodies, size_t *n_bodies,
			 struct px_error *err);

/* Read the scene at path (px_scene_read) into a new world with its
 * settings and bodies. */
int px_scene_load(const char *path, struct px_world **out,
		  struct px_error *err);

/* The kinds of section a scene file may hold, for documentation and its
 * check (tests/test_man.c): the name of kind i ("world", "body", "grid",
 * ...; NULL past the last), and every key a section of that kind accepts,
 * the union over its shapes without repeats, into keys (at most max);
 * returns their number. */
const char *px_scene_section_name(unsigned kind);
size_t px_scene_section_keys(unsigned kind, const char **keys, size_t max);

/* Volume of a shape (m^3; 0 for a plane). */
double px_shape_volume(const struct px_shape *s);

/* Set b's mass and its principal moments from its shape (uniform
 * density). */
void px_body_set_mass(struct px_body *b, double mass);

#endif
