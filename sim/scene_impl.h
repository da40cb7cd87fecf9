/* The scene reader's parts (private): scene_read.c reads the file into
 * sections of settings, scene_keys.c parses the keys of one section,
 * scene_sections.c turns a section into bodies, with the generators of
 * scene_gen.c, which fail only for memory (every number is checked before). */
#ifndef PX_SIM_SCENE_IMPL_H
#define PX_SIM_SCENE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/error.h>
#include <proxima/loader.h>
#include <proxima/plugin.h>

#include "body.h"
#include "world.h"

/* ---- sections and their keys ---- */

enum px_section_kind {
	PX_SEC_WORLD,
	PX_SEC_BODY,
	PX_SEC_GRID,
	PX_SEC_PILE,
	PX_SEC_STACK,
	PX_SEC_WALL,
	PX_SEC_CARDHOUSE,
	PX_SEC_TOWER,
	PX_SEC_KINDS
};

#define PX_MAX_KEYS 24 /* declared keys of one section */

/* One section: where it is, its settings in file order, the keys declared
 * for it and their parsed values. */
struct px_keys {
	const char *path;
	const char *title; /* "body NAME" or "world" */
	unsigned line;	   /* of the header */
	const struct px_setting *set;
	size_t n;
	struct px_param_decl decl[PX_MAX_KEYS];
	size_t nd;
	union px_value v[PX_MAX_KEYS];
	struct px_error *err;
};

/* The surface of bodies that do not set their own ([world]'s). */
struct px_surface {
	double mu, mu_tau, restitution;
};

#define PX_KEY_ADD(c, table)                                                  \
	px_key_add(c, table, sizeof table / sizeof *table)

/* Declare n more keys; then px_key_parse parses every setting by them
 * (owner names the section in "unknown key for OWNER"). */
void px_key_add(struct px_keys *c, const struct px_param_decl *d, size_t n);
int px_key_parse(struct px_keys *c, const char *owner);

/* The first setting of key (NULL if unset); key's declaration and index. */
const struct px_setting *px_key_find(const struct px_keys *c,
				      const char *key);
const struct px_param_decl *px_key_decl(const struct px_keys *c,
					 const char *key, size_t *i);

/* FILE:LINE: [SECTION] KEY: message into c->err, on the line of st (the
 * header's if NULL; without key, "[SECTION]: message"). Returns -1. */
int px_key_bad(const struct px_keys *c, const struct px_setting *st,
		const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "KEY: missing (required for WHAT)" on the header's line; -1. */
int px_key_missing(const struct px_keys *c, const char *key,
		    const char *what);

/* After px_key_parse: 1 if key is set (its value in out), 0 if not, -1
 * if the value is wrong (c->err says why). Lists are "a, b, c" of n finite
 * numbers, in the form of the declaration's help; plist's are positive;
 * counts are 3 integers in [1, PX_SCENE_MAX_BODIES]. */
int px_key_real(const struct px_keys *c, const char *key, double *out);
int px_key_positive(const struct px_keys *c, const char *key, double *out);
int px_key_list(const struct px_keys *c, const char *key, size_t n,
		 double *out);
int px_key_plist(const struct px_keys *c, const char *key, size_t n,
		  double *out);
int px_key_counts(const struct px_keys *c, const char *key, size_t out[3]);
/* the parsed value, the declared default if unset */
long px_key_int(const struct px_keys *c, const char *key);
int px_key_bool(const struct px_keys *c, const char *key);

/* Section c of kind k: [world] into s and def, the others' bodies
 * appended to l. 0 or -1 (c->err). */
struct px_body_list;
int px_scene_section(struct px_keys *c, enum px_section_kind k,
		      struct px_world_settings *s, struct px_surface *def,
		      struct px_body_list *l);

/* ---- bodies and generators ---- */

struct px_body_list {
	struct px_body *b;
	size_t n, cap;
	size_t seen; /* bodies pushed, kept or not (== n without keep) */
	/* optional (issue 21: a rank's region): a body is kept only when
	 * keep(ctx, b, index pushed) returns 1 */
	int (*keep)(void *ctx, const struct px_body *b, size_t index);
	void *ctx;
};

/* Append a copy of b (unless keep drops it); PX_OK or PX_ERR_NOMEM. */
int px_body_list_push(struct px_body_list *l, const struct px_body *b);

/* q = rotation by `degrees` about the unit axis. */
void px_quat_axis_angle(const double axis[3], double degrees, double q[4]);

/* Copies of proto (shape, mass, inertia, orientation, velocities,
 * surface) at origin + (i d0, j d1, k d2), k slowest, i fastest. */
int px_scene_grid(struct px_body_list *l, const struct px_body *proto,
		   const size_t count[3], const double origin[3],
		   const double spacing[3]);

/* doc/scenes.md ballpile-n with the given seed: unit spheres of 1 kg, the
 * surface of `surface`; with ground, the ground box first (its surface
 * too). */
int px_scene_pile(struct px_body_list *l, size_t n, uint64_t seed, int ground,
		   const struct px_body *surface);

/* count copies of the box proto, the lowest with its bottom face centred
 * at base, each next one 2 hz + gap higher and shifted by offset. */
int px_scene_stack(struct px_body_list *l, const struct px_body *proto,
		    size_t count, const double base[3], double gap,
		    const double offset[2]);

/* doc/scenes.md's running bond of full bricks (proto) and half bricks (half
 * the length along x, half the mass). */
int px_scene_wall(struct px_body_list *l, const struct px_body *proto,
		   size_t rows, size_t bricks, const double origin[3]);

/* The card house of scene.h: proto is a standing card, angle in degrees.
 * px_cardhouse_spacing gives the spacings at which neighbouring A-frames
 * do not overlap (lo) and a flat card still reaches both apexes (hi). */
void px_cardhouse_spacing(const double half[3], double angle, double *lo,
			   double *hi);
int px_scene_cardhouse(struct px_body_list *l, const struct px_body *proto,
			size_t levels, double angle, double spacing,
			const double origin[3]);

/* The tower of scene.h; px_tower_min_radius is the least centre radius
 * at which the bricks of a ring do not overlap. */
double px_tower_min_radius(const double half[3], size_t bricks);
int px_scene_tower(struct px_body_list *l, const struct px_body *proto,
		    size_t rings, size_t bricks, double radius,
		    const double origin[3]);

#endif
