/* The sections of a scene file (scene.h): the keys each kind declares,
 * and the settings or the bodies each section makes; generators in
 * scene_gen.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "scene.h"
#include "scene_impl.h"
#include "vec.h"

/* clang-format off */
#define REAL(k) {k, PX_PARAM_REAL, "1", NULL, 1, 0, NULL}
#define NONNEG(k, def) {k, PX_PARAM_REAL, def, NULL, 0, 1e300, NULL}
#define LIST(k, form) {k, PX_PARAM_STRING, form, form, 1, 0, NULL}
#define COUNT(k, lo) {k, PX_PARAM_INT, #lo, NULL, lo, 16777216, NULL}
#define BOOL(k, def) {k, PX_PARAM_BOOL, def, NULL, 1, 0, NULL}

/* Lists are strings whose help is their form; every real is checked after
 * parsing (positive, or applied only when set), so their defaults are
 * placeholders. */
static const struct px_param_decl world_decl[] = {
	LIST("gravity", "gx, gy, gz"),
	REAL("dt"),
	{"steps", PX_PARAM_INT, "1", NULL, 1, 1e15, NULL},
	{"stepping", PX_PARAM_CHOICE, "moreau", NULL, 0, -1,
	 "semi-implicit|moreau"},
	{"stabilization", PX_PARAM_CHOICE, "none", NULL, 0, -1,
	 "baumgarte|post|none|soft"},
	{"beta", PX_PARAM_REAL, "0", NULL, 0, 1, NULL},
	NONNEG("slop", "0"),
	NONNEG("margin", "0"),
	NONNEG("restitution_threshold", "0"),
	BOOL("warm_start", "true"),
	BOOL("gyroscopic", "false"),
	{"substeps", PX_PARAM_INT, "1", NULL, 1, 1000, NULL},
	NONNEG("contact_hertz", "0"),
	NONNEG("contact_damping_ratio", "0"),
	REAL("contact_push_velocity"),
};
static const struct px_param_decl surface_decl[] = {
	NONNEG("mu", "0.5"),
	NONNEG("mu_tau", "0"),
	{"restitution", PX_PARAM_REAL, "0", NULL, 0, 1, NULL},
};
static const struct px_param_decl body_shape_decl[] = {
	{"shape", PX_PARAM_CHOICE, "sphere", NULL, 0, -1,
	 "sphere|box|capsule|plane"},
};
static const struct px_param_decl grid_shape_decl[] = {
	{"shape", PX_PARAM_CHOICE, "sphere", NULL, 0, -1, "sphere|box|capsule"},
};
static const struct px_param_decl size_decl[4][2] = {
	[PX_SPHERE] = {REAL("radius")},
	[PX_BOX] = {LIST("half", "hx, hy, hz")},
	[PX_CAPSULE] = {REAL("radius"), REAL("half_length")},
	[PX_PLANE] = {LIST("normal", "nx, ny, nz")},
};
static const size_t size_keys[4] = {1, 1, 2, 1};
static const struct px_param_decl position_decl[] = {
	LIST("position", "x, y, z"),
};
static const struct px_param_decl motion_decl[] = {
	LIST("rotation", "ax, ay, az, degrees"),
	LIST("velocity", "vx, vy, vz"),
	LIST("angular_velocity", "wx, wy, wz"),
};
static const struct px_param_decl mass_decl[] = {
	REAL("mass"),
	REAL("density"),
};
static const struct px_param_decl static_decl[] = {
	BOOL("static", "false"),
};
static const struct px_param_decl grid_decl[] = {
	LIST("count", "nx, ny, nz"),
	LIST("spacing", "dx, dy, dz"),
	LIST("origin", "x, y, z"),
};
static const struct px_param_decl pile_decl[] = {
	{"n", PX_PARAM_INT, "1", NULL, 1, 1000, NULL},
	{"seed", PX_PARAM_INT, "12345", NULL, 0, 9.2e18, NULL},
	BOOL("ground", "false"),
};
static const struct px_param_decl stack_decl[] = {
	COUNT("count", 1),
	LIST("half", "hx, hy, hz"),
	LIST("base", "x, y, z"),
	NONNEG("gap", "0"),
	LIST("offset", "dx, dy"),
};
static const struct px_param_decl wall_decl[] = {
	COUNT("rows", 1),
	COUNT("bricks", 1),
	LIST("half", "hx, hy, hz"),
	LIST("origin", "x, y, z"),
};
static const struct px_param_decl cardhouse_decl[] = {
	{"levels", PX_PARAM_INT, "1", NULL, 1, 1000, NULL},
	LIST("half", "hx, hy, hz"),
	{"angle", PX_PARAM_REAL, "20", NULL, 0, 90, NULL},
	REAL("spacing"),
	LIST("origin", "x, y, z"),
};
static const struct px_param_decl tower_decl[] = {
	COUNT("rings", 1),
	COUNT("bricks", 3),
	LIST("half", "hx, hy, hz"),
	REAL("radius"),
	LIST("origin", "x, y, z"),
};
/* clang-format on */

/* Every key each kind of section may hold, the union over its shapes
 * (scene.h: px_scene_section_keys). */
struct decl_table {
	const struct px_param_decl *d;
	size_t n;
};

#define T(table) {table, sizeof table / sizeof *table}
/* a shape's size keys: size_decl[k], size_keys[k] of them */
#define SIZE(k, n) {size_decl[k], n}
static const struct {
	const char *name;
	struct decl_table t[10]; /* up to the first {NULL, 0} */
} kinds[PX_SEC_KINDS] = {
	[PX_SEC_WORLD] = {"world", {T(world_decl), T(surface_decl)}},
	[PX_SEC_BODY] = {"body",
			 {T(body_shape_decl), SIZE(PX_SPHERE, 1),
			  SIZE(PX_BOX, 1), SIZE(PX_CAPSULE, 2),
			  SIZE(PX_PLANE, 1), T(position_decl), T(motion_decl),
			  T(mass_decl), T(static_decl), T(surface_decl)}},
	[PX_SEC_GRID] = {"grid",
			 {T(grid_shape_decl), SIZE(PX_SPHERE, 1),
			  SIZE(PX_BOX, 1), SIZE(PX_CAPSULE, 2), T(grid_decl),
			  T(motion_decl), T(mass_decl), T(surface_decl)}},
	[PX_SEC_PILE] = {"pile", {T(pile_decl), T(surface_decl)}},
	[PX_SEC_STACK] = {"stack",
			  {T(stack_decl), T(mass_decl), T(surface_decl)}},
	[PX_SEC_WALL] = {"wall", {T(wall_decl), T(mass_decl), T(surface_decl)}},
	[PX_SEC_CARDHOUSE] = {"cardhouse",
			      {T(cardhouse_decl), T(mass_decl),
			       T(surface_decl)}},
	[PX_SEC_TOWER] = {"tower",
			  {T(tower_decl), T(mass_decl), T(surface_decl)}},
};
#undef T
#undef SIZE

const char *px_scene_section_name(unsigned kind)
{
	return kind < PX_SEC_KINDS ? kinds[kind].name : NULL;
}

size_t px_scene_section_keys(unsigned kind, const char **keys, size_t max)
{
	size_t n = 0;

	if (kind >= PX_SEC_KINDS)
		return 0;
	for (size_t t = 0; t < 10 && kinds[kind].t[t].d; t++)
		for (size_t i = 0; i < kinds[kind].t[t].n; i++) {
			const char *key = kinds[kind].t[t].d[i].key;
			size_t j = 0;

			while (j < n && strcmp(keys[j], key) != 0)
				j++;
			if (j == n && n < max)
				keys[n++] = key;
		}
	return n;
}

/* Room for `add` more bodies after the n there are. */
static int room(const struct px_keys *c, const char *key, double add, size_t n)
{
	if (add > (double)(PX_SCENE_MAX_BODIES - n))
		return px_key_bad(
		    c, key ? px_key_find(c, key) : NULL, key,
		    "%.0f more bodies are too many (expected at most %zu in a scene, %zu before this section)",
		    add, PX_SCENE_MAX_BODIES, n);
	return 0;
}

static int push(const struct px_keys *c, int rc)
{
	if (rc)
		px_error_set(c->err, PX_ERR_NOMEM, "out of memory");
	return rc ? -1 : 0;
}

/* ---- the pieces of a section ---- */

static void read_surface(const struct px_keys *c,
			 const struct px_surface *def, struct px_body *b)
{
	b->mu = def->mu;
	b->mu_tau = def->mu_tau;
	b->restitution = def->restitution;
	px_key_real(c, "mu", &b->mu);
	px_key_real(c, "mu_tau", &b->mu_tau);
	px_key_real(c, "restitution", &b->restitution);
}

/* shape = ... (from the choices of decl, which is the key's declaration) */
static int read_shape_key(struct px_keys *c, const struct px_param_decl *decl,
			  enum px_shape_kind *k)
{
	const struct px_setting *st = px_key_find(c, "shape");
	union px_value v;

	if (!st)
		return px_key_bad(c, NULL, "shape", "missing (expected %s)",
				   decl->choices);
	if (px_params_parse(decl, 1, st, 1, c->title, "", &v, c->err))
		return -1;
	*k = (enum px_shape_kind)v.choice; /* choices in enum order */
	return 0;
}

/* The size keys of shape k (all required; `what` names the section's kind
 * in "required for ...") into sh. */
static int read_size(const struct px_keys *c, enum px_shape_kind k,
		     struct px_shape *sh, const char *what)
{
	int rc;

	sh->kind = k;
	for (size_t i = 0; i < size_keys[k]; i++)
		if (!px_key_find(c, size_decl[k][i].key))
			return px_key_missing(c, size_decl[k][i].key, what);
	switch (k) {
	case PX_SPHERE:
		return px_key_positive(c, "radius", &sh->radius) < 0 ? -1 : 0;
	case PX_BOX: return px_key_plist(c, "half", 3, sh->half) < 0 ? -1 : 0;
	case PX_CAPSULE:
		rc = px_key_positive(c, "radius", &sh->radius);
		if (rc == 1)
			rc = px_key_positive(c, "half_length",
					      &sh->half_length);
		return rc < 0 ? -1 : 0;
	case PX_PLANE: {
		const struct px_setting *st = px_key_find(c, "normal");
		double len;

		if (px_key_list(c, "normal", 3, sh->normal) < 0)
			return -1;
		len = v3_norm(sh->normal);
		if (!(len > 0.0))
			return px_key_bad(
			    c, st, "normal",
			    "'%s' is the zero vector (expected a nonzero nx, ny, nz)",
			    st->value);
		for (int i = 0; i < 3; i++)
			sh->normal[i] /= len;
		return 0;
	}
	}
	return 0;
}

/* rotation (identity when unset), velocity and angular_velocity (none for
 * a static body) */
static int read_motion(const struct px_keys *c, struct px_body *b)
{
	static const char *const moving[2] = {"velocity", "angular_velocity"};
	double r[4];
	int rc = px_key_list(c, "rotation", 4, r);

	if (rc < 0)
		return -1;
	if (rc == 1) {
		const double len = v3_norm(r);

		if (!(len > 0.0))
			return px_key_bad(
			    c, px_key_find(c, "rotation"), "rotation",
			    "'%s' has a zero axis (expected ax, ay, az, degrees with a nonzero axis)",
			    px_key_find(c, "rotation")->value);
		for (int i = 0; i < 3; i++)
			r[i] /= len;
		px_quat_axis_angle(r, r[3], b->q);
	}
	for (int i = 0; i < 2; i++)
		if (b->is_static && px_key_find(c, moving[i]))
			return px_key_bad(
			    c, px_key_find(c, moving[i]), moving[i],
			    "a static body does not move (expected no %s with static = true)",
			    moving[i]);
	if (px_key_list(c, "velocity", 3, b->v) < 0 ||
	    px_key_list(c, "angular_velocity", 3, b->w) < 0)
		return -1;
	return 0;
}

/* Exactly one of mass and density (none if static: `alt` says so in the
 * message), then the inertia from the shape. */
static int read_mass(const struct px_keys *c, struct px_body *b,
		     const char *alt)
{
	const struct px_setting *m = px_key_find(c, "mass"),
				*d = px_key_find(c, "density");
	double x;

	if (b->is_static) {
		const struct px_setting *st =
		    m && (!d || m->line < d->line) ? m : d;

		if (st)
			return px_key_bad(
			    c, st, st->key,
			    "a static body has no %s (expected no mass or density with static = true)",
			    st->key);
		px_body_set_mass(b, 0.0);
		return 0;
	}
	if (m && d) {
		const struct px_setting *later = m->line > d->line ? m : d;

		return px_key_bad(
		    c, later, later->key,
		    "%s is set too (expected exactly one of mass and density)",
		    later == m ? "density" : "mass");
	}
	if (!m && !d)
		return px_key_bad(
		    c, NULL, "mass",
		    "missing (expected exactly one of mass and density%s)",
		    alt);
	if (px_key_positive(c, m ? "mass" : "density", &x) < 0)
		return -1;
	px_body_set_mass(b, m ? x : x * px_shape_volume(&b->shape));
	/* each finite and positive alone, their product may not be (the
	 * world refuses such a body) */
	if (!(b->mass > 0.0) || !isfinite(b->mass))
		return px_key_bad(
		    c, d, "density",
		    "'%s' gives this shape a mass of %g (expected a positive, finite mass)",
		    d->value, b->mass);
	for (int i = 0; i < 3; i++)
		if (!(b->inertia[i] > 0.0) || !isfinite(b->inertia[i]))
			return px_key_bad(
			    c, m ? m : d, m ? "mass" : "density",
			    "'%s' gives this shape an inertia of %g (expected positive and finite: the shape is too large or too small)",
			    (m ? m : d)->value, b->inertia[i]);
	return 0;
}

/* ---- the sections ---- */

static int read_world(struct px_keys *c, struct px_world_settings *s,
		      struct px_surface *def)
{
	static const enum px_stabilization stab[4] = {
	    PX_STAB_BAUMGARTE, PX_STAB_POST, PX_STAB_NONE, PX_STAB_SOFT};
	size_t i;

	PX_KEY_ADD(c, world_decl);
	PX_KEY_ADD(c, surface_decl);
	if (px_key_parse(c, "the world") ||
	    px_key_list(c, "gravity", 3, s->gravity) < 0 ||
	    px_key_positive(c, "dt", &s->dt) < 0 ||
	    px_key_positive(c, "contact_push_velocity",
			    &s->contact_push_velocity) < 0)
		return -1;
	if (px_key_find(c, "steps"))
		s->steps = (uint64_t)px_key_int(c, "steps");
	if (px_key_find(c, "stepping") && px_key_decl(c, "stepping", &i))
		s->stepping = c->v[i].choice ? PX_MOREAU : PX_SEMI_IMPLICIT;
	if (px_key_find(c, "stabilization") &&
	    px_key_decl(c, "stabilization", &i))
		s->stabilization = stab[c->v[i].choice];
	px_key_real(c, "beta", &s->beta);
	px_key_real(c, "slop", &s->slop);
	px_key_real(c, "margin", &s->margin);
	px_key_real(c, "restitution_threshold", &s->restitution_threshold);
	if (px_key_find(c, "warm_start"))
		s->warm_start = px_key_bool(c, "warm_start");
	if (px_key_find(c, "gyroscopic"))
		s->gyroscopic = px_key_bool(c, "gyroscopic");
	if (px_key_find(c, "substeps"))
		s->substeps = (uint32_t)px_key_int(c, "substeps");
	px_key_real(c, "contact_hertz", &s->contact_hertz);
	px_key_real(c, "contact_damping_ratio", &s->contact_damping_ratio);
	px_key_real(c, "mu", &def->mu);
	px_key_real(c, "mu_tau", &def->mu_tau);
	px_key_real(c, "restitution", &def->restitution);
	return 0;
}

static int read_body(struct px_keys *c, const struct px_surface *def,
		     struct px_body_list *l)
{
	static const char *const owner[4] = {"a sphere body", "a box body",
					     "a capsule body", "a plane body"};
	static const char *const what[4] = {"a sphere", "a box", "a capsule",
					    "a plane"};
	struct px_body b = {.q = {1.0, 0.0, 0.0, 0.0}};
	const struct px_setting *st;
	enum px_shape_kind k;

	if (read_shape_key(c, body_shape_decl, &k))
		return -1;
	PX_KEY_ADD(c, body_shape_decl);
	px_key_add(c, size_decl[k], size_keys[k]);
	PX_KEY_ADD(c, position_decl);
	if (k != PX_PLANE) {
		PX_KEY_ADD(c, motion_decl);
		PX_KEY_ADD(c, mass_decl);
	}
	PX_KEY_ADD(c, static_decl);
	PX_KEY_ADD(c, surface_decl);
	if (px_key_parse(c, owner[k]) || read_size(c, k, &b.shape, what[k]) ||
	    px_key_list(c, "position", 3, b.x) < 0)
		return -1;
	st = px_key_find(c, "static");
	if (k == PX_PLANE && st && !px_key_bool(c, "static"))
		return px_key_bad(
		    c, st, "static",
		    "a plane is always static (expected true, found '%s')",
		    st->value);
	b.is_static = k == PX_PLANE || px_key_bool(c, "static");
	if (k != PX_PLANE &&
	    (read_motion(c, &b) || read_mass(c, &b, ", or static = true")))
		return -1;
	read_surface(c, def, &b);
	if (room(c, NULL, 1, l->seen))
		return -1;
	return push(c, px_body_list_push(l, &b));
}

static int read_grid(struct px_keys *c, const struct px_surface *def,
		     struct px_body_list *l)
{
	static const char *const owner[3] = {"a sphere grid", "a box grid",
					     "a capsule grid"};
	struct px_body b = {.q = {1.0, 0.0, 0.0, 0.0}};
	double origin[3] = {0.0, 0.0, 0.0}, spacing[3];
	enum px_shape_kind k;
	size_t count[3];

	if (read_shape_key(c, grid_shape_decl, &k))
		return -1;
	PX_KEY_ADD(c, grid_shape_decl);
	px_key_add(c, size_decl[k], size_keys[k]);
	PX_KEY_ADD(c, grid_decl);
	PX_KEY_ADD(c, motion_decl);
	PX_KEY_ADD(c, mass_decl);
	PX_KEY_ADD(c, surface_decl);
	if (px_key_parse(c, owner[k]) || read_size(c, k, &b.shape, "a grid"))
		return -1;
	if (!px_key_find(c, "count"))
		return px_key_missing(c, "count", "a grid");
	if (!px_key_find(c, "spacing"))
		return px_key_missing(c, "spacing", "a grid");
	if (px_key_counts(c, "count", count) < 0 ||
	    px_key_plist(c, "spacing", 3, spacing) < 0 ||
	    px_key_list(c, "origin", 3, origin) < 0 || read_motion(c, &b) ||
	    read_mass(c, &b, ""))
		return -1;
	read_surface(c, def, &b);
	if (room(c, "count",
		 (double)count[0] * (double)count[1] * (double)count[2], l->seen))
		return -1;
	return push(c, px_scene_grid(l, &b, count, origin, spacing));
}

static int read_pile(struct px_keys *c, const struct px_surface *def,
		     struct px_body_list *l)
{
	struct px_body b = {0};
	size_t n;

	PX_KEY_ADD(c, pile_decl);
	PX_KEY_ADD(c, surface_decl);
	if (px_key_parse(c, "a pile"))
		return -1;
	if (!px_key_find(c, "n"))
		return px_key_missing(c, "n", "a pile");
	n = (size_t)px_key_int(c, "n");
	if (room(c, "n", (double)(n * n * n) + px_key_bool(c, "ground"), l->seen))
		return -1;
	read_surface(c, def, &b);
	return push(c, px_scene_pile(l, n, (uint64_t)px_key_int(c, "seed"),
				      px_key_bool(c, "ground"), &b));
}

/* The box of a generator: half extents, mass or density, surface. */
static int read_box(struct px_keys *c, const struct px_surface *def,
		    struct px_body *b, const char *what)
{
	*b = (struct px_body){.q = {1.0, 0.0, 0.0, 0.0}};
	if (read_size(c, PX_BOX, &b->shape, what) || read_mass(c, b, ""))
		return -1;
	read_surface(c, def, b);
	return 0;
}

static int read_stack(struct px_keys *c, const struct px_surface *def,
		      struct px_body_list *l)
{
	double base[3] = {0.0, 0.0, 0.0}, offset[2] = {0.0, 0.0}, gap = 0.0;
	struct px_body b;
	size_t n;

	PX_KEY_ADD(c, stack_decl);
	PX_KEY_ADD(c, mass_decl);
	PX_KEY_ADD(c, surface_decl);
	if (px_key_parse(c, "a stack"))
		return -1;
	if (!px_key_find(c, "count"))
		return px_key_missing(c, "count", "a stack");
	if (read_box(c, def, &b, "a stack") ||
	    px_key_list(c, "base", 3, base) < 0 ||
	    px_key_list(c, "offset", 2, offset) < 0)
		return -1;
	n = (size_t)px_key_int(c, "count");
	px_key_real(c, "gap", &gap); /* its declared default is 0 */
	if (room(c, "count", (double)n, l->seen))
		return -1;
	return push(c, px_scene_stack(l, &b, n, base, gap, offset));
}

static int read_wall(struct px_keys *c, const struct px_surface *def,
		     struct px_body_list *l)
{
	double origin[3] = {0.0, 0.0, 0.0};
	struct px_body b;
	size_t rows, bricks;

	PX_KEY_ADD(c, wall_decl);
	PX_KEY_ADD(c, mass_decl);
	PX_KEY_ADD(c, surface_decl);
	if (px_key_parse(c, "a wall"))
		return -1;
	if (!px_key_find(c, "rows"))
		return px_key_missing(c, "rows", "a wall");
	if (!px_key_find(c, "bricks"))
		return px_key_missing(c, "bricks", "a wall");
	if (read_box(c, def, &b, "a wall") ||
	    px_key_list(c, "origin", 3, origin) < 0)
		return -1;
	rows = (size_t)px_key_int(c, "rows");
	bricks = (size_t)px_key_int(c, "bricks");
	/* even rows: bricks full bricks; odd rows: one more piece */
	if (room(c, "rows", (double)rows * (double)bricks + (double)(rows / 2),
		 l->seen))
		return -1;
	return push(c, px_scene_wall(l, &b, rows, bricks, origin));
}

static int read_cardhouse(struct px_keys *c, const struct px_surface *def,
			  struct px_body_list *l)
{
	double origin[3] = {0.0, 0.0, 0.0}, angle = 0.0, spacing, lo, hi;
	const struct px_setting *st;
	struct px_body b;
	size_t levels;

	PX_KEY_ADD(c, cardhouse_decl);
	PX_KEY_ADD(c, mass_decl);
	PX_KEY_ADD(c, surface_decl);
	if (px_key_parse(c, "a card house"))
		return -1;
	if (!px_key_find(c, "levels"))
		return px_key_missing(c, "levels", "a card house");
	if (!px_key_find(c, "angle"))
		return px_key_missing(c, "angle", "a card house");
	if (!px_key_find(c, "spacing"))
		return px_key_missing(c, "spacing", "a card house");
	if (read_box(c, def, &b, "a card house") ||
	    px_key_list(c, "origin", 3, origin) < 0 ||
	    px_key_positive(c, "spacing", &spacing) < 0 ||
	    px_key_positive(c, "angle", &angle) < 0)
		return -1;
	px_cardhouse_spacing(b.shape.half, angle, &lo, &hi);
	if (lo > hi) {
		st = px_key_find(c, "angle");
		return px_key_bad(
		    c, st, "angle",
		    "'%s' is too steep for these cards (expected an angle at which flat cards can bridge A-frames that do not overlap; A-frames need a spacing >= %.6g, flat cards reach <= %.6g)",
		    st->value, lo, hi);
	}
	st = px_key_find(c, "spacing");
	if (spacing < lo || spacing > hi)
		return px_key_bad(
		    c, st, "spacing",
		    "'%s' is out of range [%.6g, %.6g] (A-frames must not overlap and flat cards must reach both apexes)",
		    st->value, lo, hi);
	levels = (size_t)px_key_int(c, "levels");
	if (room(c, "levels",
		 3.0 * (double)(levels * (levels + 1)) / 2.0 - (double)levels,
		 l->seen))
		return -1;
	return push(c,
		    px_scene_cardhouse(l, &b, levels, angle, spacing, origin));
}

static int read_tower(struct px_keys *c, const struct px_surface *def,
		      struct px_body_list *l)
{
	double origin[3] = {0.0, 0.0, 0.0}, radius, least;
	size_t rings, bricks;
	struct px_body b;

	PX_KEY_ADD(c, tower_decl);
	PX_KEY_ADD(c, mass_decl);
	PX_KEY_ADD(c, surface_decl);
	if (px_key_parse(c, "a tower"))
		return -1;
	if (!px_key_find(c, "rings"))
		return px_key_missing(c, "rings", "a tower");
	if (!px_key_find(c, "bricks"))
		return px_key_missing(c, "bricks", "a tower");
	if (!px_key_find(c, "radius"))
		return px_key_missing(c, "radius", "a tower");
	if (read_box(c, def, &b, "a tower") ||
	    px_key_list(c, "origin", 3, origin) < 0 ||
	    px_key_positive(c, "radius", &radius) < 0)
		return -1;
	rings = (size_t)px_key_int(c, "rings");
	bricks = (size_t)px_key_int(c, "bricks");
	least = px_tower_min_radius(b.shape.half, bricks);
	if (radius < least)
		return px_key_bad(
		    c, px_key_find(c, "radius"), "radius",
		    "'%s' lets the bricks of a ring overlap (expected radius >= %.6g)",
		    px_key_find(c, "radius")->value, least);
	if (room(c, "rings", (double)rings * (double)bricks, l->seen))
		return -1;
	return push(c, px_scene_tower(l, &b, rings, bricks, radius, origin));
}

int px_scene_section(struct px_keys *c, enum px_section_kind k,
		      struct px_world_settings *s, struct px_surface *def,
		      struct px_body_list *l)
{
	switch (k) {
	case PX_SEC_WORLD: return read_world(c, s, def);
	case PX_SEC_BODY: return read_body(c, def, l);
	case PX_SEC_GRID: return read_grid(c, def, l);
	case PX_SEC_PILE: return read_pile(c, def, l);
	case PX_SEC_STACK: return read_stack(c, def, l);
	case PX_SEC_WALL: return read_wall(c, def, l);
	case PX_SEC_CARDHOUSE: return read_cardhouse(c, def, l);
	case PX_SEC_TOWER: return read_tower(c, def, l);
	case PX_SEC_KINDS: break;
	}
	return 0;
}
