/* The world's public API (proxima/sim.h) over sim/'s world (world.h):
 * plain structs in and out, the world's own types kept private. Compiled
 * into libproxima with the world (sim/libpxworld.la), which stays hidden:
 * the command and the tests use its internals from their own copy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/sim.h>

#include "scene.h"
#include "vec.h"
#include "world_impl.h"

struct px_sim {
	struct px_world *w;
	struct px_sim_settings settings; /* as the world holds them */
	double stages[PX_SIM_N_STAGES];  /* the last step's, by stage (s) */
};

/* The enums of both headers are the same numbers. */
_Static_assert((int)PX_SIM_SPHERE == (int)PX_SPHERE &&
		       (int)PX_SIM_BOX == (int)PX_BOX &&
		       (int)PX_SIM_CAPSULE == (int)PX_CAPSULE &&
		       (int)PX_SIM_PLANE == (int)PX_PLANE,
	       "shapes");
_Static_assert((int)PX_SIM_SEMI_IMPLICIT == (int)PX_SEMI_IMPLICIT &&
		       (int)PX_SIM_MOREAU == (int)PX_MOREAU &&
		       (int)PX_SIM_STAB_NONE == (int)PX_STAB_NONE &&
		       (int)PX_SIM_STAB_BAUMGARTE == (int)PX_STAB_BAUMGARTE &&
		       (int)PX_SIM_STAB_POST == (int)PX_STAB_POST &&
		       (int)PX_SIM_STAB_SOFT == (int)PX_STAB_SOFT,
	       "stepping and stabilization");

static void settings_out(const struct px_world_settings *w,
			 struct px_sim_settings *s)
{
	memcpy(s->gravity, w->gravity, sizeof s->gravity);
	s->dt = w->dt;
	s->steps = w->steps;
	s->stepping = (int)w->stepping;
	s->stabilization = (int)w->stabilization;
	s->beta = w->beta;
	s->slop = w->slop;
	s->margin = w->margin;
	s->restitution_threshold = w->restitution_threshold;
	s->warm_start = w->warm_start;
	s->gyroscopic = w->gyroscopic;
	s->substeps = w->substeps;
	s->contact_hertz = w->contact_hertz;
	s->contact_damping_ratio = w->contact_damping_ratio;
	s->contact_push_velocity = w->contact_push_velocity;
}

void px_sim_settings_default(struct px_sim_settings *s)
{
	struct px_world_settings w;

	px_world_settings_default(&w);
	settings_out(&w, s);
}

static int settings_in(const struct px_sim_settings *s,
		       struct px_world_settings *w, struct px_error *err)
{
	if (s->stepping != PX_SIM_SEMI_IMPLICIT && s->stepping != PX_SIM_MOREAU)
		return px_error_set(err, PX_ERR_INVALID,
				    "stepping %d: expected semi-implicit (%d) or moreau (%d)",
				    s->stepping, PX_SIM_SEMI_IMPLICIT,
				    PX_SIM_MOREAU);
	if (s->stabilization < PX_SIM_STAB_NONE ||
	    s->stabilization > PX_SIM_STAB_SOFT)
		return px_error_set(err, PX_ERR_INVALID,
				    "stabilization %d: expected none (0), baumgarte (1), post (2) or soft (3)",
				    s->stabilization);
	for (int k = 0; k < 3; k++)
		if (!isfinite(s->gravity[k]))
			return px_error_set(err, PX_ERR_INVALID,
					    "gravity[%d] = %g: expected a finite number",
					    k, s->gravity[k]);
	if (!(s->dt > 0.0) || !isfinite(s->dt))
		return px_error_set(err, PX_ERR_INVALID,
				    "dt = %g: expected a positive, finite number",
				    s->dt);
	if (!(s->beta >= 0.0 && s->beta <= 1.0))
		return px_error_set(err, PX_ERR_INVALID,
				    "beta = %g: expected a number in [0, 1]",
				    s->beta);
	if (s->substeps < 1 || s->substeps > PX_WORLD_MAX_SUBSTEPS)
		return px_error_set(err, PX_ERR_INVALID,
				    "substeps = %u: expected a whole number in [1, %u]",
				    (unsigned)s->substeps,
				    PX_WORLD_MAX_SUBSTEPS);
	px_world_settings_default(w);
	memcpy(w->gravity, s->gravity, sizeof w->gravity);
	w->dt = s->dt;
	w->steps = s->steps;
	w->stepping = (enum px_stepping)s->stepping;
	w->stabilization = (enum px_stabilization)s->stabilization;
	w->beta = s->beta;
	w->slop = s->slop;
	w->margin = s->margin;
	w->restitution_threshold = s->restitution_threshold;
	w->warm_start = s->warm_start != 0;
	w->gyroscopic = s->gyroscopic != 0;
	w->substeps = s->substeps;
	w->contact_hertz = s->contact_hertz;
	w->contact_damping_ratio = s->contact_damping_ratio;
	w->contact_push_velocity = s->contact_push_velocity;
	return PX_OK;
}

static int wrap(struct px_world *w, struct px_sim **out, struct px_error *err)
{
	struct px_sim *s = calloc(1, sizeof *s);

	if (!s) {
		px_world_destroy(w);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	s->w = w;
	settings_out(px_world_settings(w), &s->settings);
	*out = s;
	return PX_OK;
}

int px_sim_create(const struct px_sim_settings *s, struct px_sim **out,
		  struct px_error *err)
{
	struct px_world_settings ws;
	struct px_world *w;
	int rc = settings_in(s, &ws, err);

	if (rc || (rc = px_world_create(&ws, &w, err)))
		return rc;
	return wrap(w, out, err);
}

int px_sim_read(const char *path, struct px_sim **out, struct px_error *err)
{
	struct px_world *w;
	int rc = px_scene_load(path, &w, err);

	return rc ? rc : wrap(w, out, err);
}

void px_sim_destroy(struct px_sim *s)
{
	if (!s)
		return;
	px_world_destroy(s->w);
	free(s);
}

void px_sim_body_default(struct px_sim_body *b)
{
	*b = (struct px_sim_body){
		.shape = PX_SIM_SPHERE,
		.radius = 1.0,
		.orientation = {1.0, 0.0, 0.0, 0.0},
		.mu = 0.5,
	};
}

/* A refusal of field `what` of body i (the index it would have). */
#define BAD(what, fmt, ...)                                                \
	px_error_set(err, PX_ERR_INVALID, "body %zu: " what " = " fmt, i,  \
		     __VA_ARGS__)

static int finite_list(const double *x, int n, const char *what, size_t i,
		       struct px_error *err)
{
	for (int k = 0; k < n; k++)
		if (!isfinite(x[k]))
			return px_error_set(err, PX_ERR_INVALID,
					    "body %zu: %s[%d] = %g: expected a finite number",
					    i, what, k, x[k]);
	return PX_OK;
}

static int positive(double x, const char *what, size_t i,
		    struct px_error *err)
{
	if (x > 0.0 && isfinite(x))
		return PX_OK;
	return px_error_set(err, PX_ERR_INVALID,
			    "body %zu: %s = %g: expected a positive, finite number",
			    i, what, x);
}

/* b's shape into sh, checked. */
static int shape_in(const struct px_sim_body *b, struct px_shape *sh,
		    size_t i, struct px_error *err)
{
	int rc = PX_OK;

	memset(sh, 0, sizeof *sh);
	sh->kind = (enum px_shape_kind)b->shape;
	switch (b->shape) {
	case PX_SIM_SPHERE:
		sh->radius = b->radius;
		return positive(b->radius, "radius", i, err);
	case PX_SIM_BOX:
		memcpy(sh->half, b->half, sizeof sh->half);
		for (int k = 0; !rc && k < 3; k++)
			if (!(b->half[k] > 0.0) || !isfinite(b->half[k]))
				rc = px_error_set(err, PX_ERR_INVALID,
						  "body %zu: half[%d] = %g: expected a positive, finite number",
						  i, k, b->half[k]);
		return rc;
	case PX_SIM_CAPSULE:
		sh->radius = b->radius;
		sh->half_length = b->half_length;
		if ((rc = positive(b->radius, "radius", i, err)))
			return rc;
		if (!(b->half_length >= 0.0) || !isfinite(b->half_length))
			return BAD("half_length", "%g: expected a finite number >= 0",
				   b->half_length);
		return PX_OK;
	case PX_SIM_PLANE: {
		double len;

		if ((rc = finite_list(b->normal, 3, "normal", i, err)))
			return rc;
		len = v3_norm(b->normal);
		if (!(len > 0.0) || !isfinite(len))
			return px_error_set(err, PX_ERR_INVALID,
					    "body %zu: normal (%g, %g, %g): expected a non-zero vector",
					    i, b->normal[0], b->normal[1],
					    b->normal[2]);
		for (int k = 0; k < 3; k++)
			sh->normal[k] = b->normal[k] / len;
		return PX_OK;
	}
	}
	return BAD("shape", "%d: expected sphere (0), box (1), capsule (2) or plane (3)",
		   b->shape);
}

/* b's mass and inertia into nb (its shape set). */
static int mass_in(const struct px_sim_body *b, struct px_body *nb, size_t i,
		   struct px_error *err)
{
	const int has_mass = b->mass != 0.0, has_density = b->density != 0.0;
	int rc;

	if (nb->is_static) {
		if (has_mass || has_density)
			return px_error_set(err, PX_ERR_INVALID,
					    "body %zu: a static body has no mass or density (expected neither)",
					    i);
		return PX_OK;
	}
	if (has_mass && has_density)
		return px_error_set(err, PX_ERR_INVALID,
				    "body %zu: mass %g and density %g: expected exactly one of mass and density",
				    i, b->mass, b->density);
	if (!has_mass && !has_density)
		return px_error_set(err, PX_ERR_INVALID,
				    "body %zu: mass missing: expected exactly one of mass and density",
				    i);
	if ((rc = positive(has_mass ? b->mass : b->density,
			   has_mass ? "mass" : "density", i, err)))
		return rc;
	px_body_set_mass(nb, has_mass ? b->mass
				      : b->density * px_shape_volume(&nb->shape));
	if (!(nb->mass > 0.0) || !isfinite(nb->mass))
		return BAD("density", "%g gives this shape a mass of %g: expected a positive, finite mass",
			   b->density, nb->mass);
	if (b->inertia[0] == 0.0 && b->inertia[1] == 0.0 &&
	    b->inertia[2] == 0.0)
		return PX_OK;
	for (int k = 0; k < 3; k++) {
		if (!(b->inertia[k] > 0.0) || !isfinite(b->inertia[k]))
			return px_error_set(err, PX_ERR_INVALID,
					    "body %zu: inertia[%d] = %g: expected a positive, finite number (or all three 0: from the shape)",
					    i, k, b->inertia[k]);
		nb->inertia[k] = b->inertia[k];
	}
	return PX_OK;
}

int px_sim_add_body(struct px_sim *s, const struct px_sim_body *b,
		    size_t *index, struct px_error *err)
{
	const size_t i = px_world_n_bodies(s->w);
	struct px_body nb = {0};
	uint32_t at;
	int rc;

	if ((rc = shape_in(b, &nb.shape, i, err)) ||
	    (rc = finite_list(b->position, 3, "position", i, err)) ||
	    (rc = finite_list(b->orientation, 4, "orientation", i, err)) ||
	    (rc = finite_list(b->velocity, 3, "velocity", i, err)) ||
	    (rc = finite_list(b->angular_velocity, 3, "angular_velocity", i,
			      err)))
		return rc;
	if (b->orientation[0] == 0.0 && b->orientation[1] == 0.0 &&
	    b->orientation[2] == 0.0 && b->orientation[3] == 0.0)
		return px_error_set(err, PX_ERR_INVALID,
				    "body %zu: orientation (0, 0, 0, 0): expected a non-zero quaternion",
				    i);
	nb.is_static = b->is_static || b->shape == PX_SIM_PLANE;
	if (nb.is_static) {
		for (int k = 0; k < 3; k++)
			if (b->velocity[k] != 0.0 || b->angular_velocity[k] != 0.0)
				return px_error_set(err, PX_ERR_INVALID,
						    "body %zu: a static body does not move (expected zero velocity and angular_velocity)",
						    i);
	}
	if ((rc = mass_in(b, &nb, i, err)))
		return rc;
	if (!(b->mu >= 0.0) || !isfinite(b->mu))
		return BAD("mu", "%g: expected a finite number >= 0", b->mu);
	if (!(b->mu_tau >= 0.0) || !isfinite(b->mu_tau))
		return BAD("mu_tau", "%g: expected a finite number >= 0", b->mu_tau);
	if (!(b->restitution >= 0.0 && b->restitution <= 1.0))
		return BAD("restitution", "%g: expected a number in [0, 1]",
			   b->restitution);
	memcpy(nb.x, b->position, sizeof nb.x);
	memcpy(nb.q, b->orientation, sizeof nb.q);
	memcpy(nb.v, b->velocity, sizeof nb.v);
	memcpy(nb.w, b->angular_velocity, sizeof nb.w);
	nb.mu = b->mu;
	nb.mu_tau = b->mu_tau;
	nb.restitution = b->restitution;
	if ((rc = px_world_add_body(s->w, &nb, &at, err))) {
		/* checked above: the world's own check disagrees */
		char msg[PX_ERROR_MSG_MAX];

		snprintf(msg, sizeof msg, "%s", err->msg);
		return px_error_set(err, rc, "body %zu: %s", i, msg);
	}
	if (index)
		*index = at;
	return PX_OK;
}

size_t px_sim_n_bodies(const struct px_sim *s)
{
	return px_world_n_bodies(s->w);
}

const struct px_sim_settings *px_sim_settings(const struct px_sim *s)
{
	return &s->settings;
}

int px_sim_body(const struct px_sim *s, size_t i, struct px_sim_body *out,
		struct px_error *err)
{
	const struct px_body *b;

	if (i >= px_world_n_bodies(s->w))
		return px_error_set(err, PX_ERR_INVALID,
				    "body %zu: the world has %zu bodies", i,
				    px_world_n_bodies(s->w));
	b = px_world_bodies(s->w) + i;
	*out = (struct px_sim_body){
		.shape = (int)b->shape.kind,
		.radius = b->shape.radius,
		.half_length = b->shape.half_length,
		.mass = b->mass,
		.mu = b->mu,
		.mu_tau = b->mu_tau,
		.restitution = b->restitution,
		.is_static = b->is_static,
	};
	memcpy(out->half, b->shape.half, sizeof out->half);
	memcpy(out->normal, b->shape.normal, sizeof out->normal);
	memcpy(out->position, b->x, sizeof out->position);
	memcpy(out->orientation, b->q, sizeof out->orientation);
	memcpy(out->velocity, b->v, sizeof out->velocity);
	memcpy(out->angular_velocity, b->w, sizeof out->angular_velocity);
	memcpy(out->inertia, b->inertia, sizeof out->inertia);
	return PX_OK;
}

void px_sim_states(const struct px_sim *s, double *x, double *q, double *v,
		   double *w)
{
	const struct px_body *b = px_world_bodies(s->w);

	for (size_t i = 0; i < px_world_n_bodies(s->w); i++) {
		if (x)
			memcpy(x + 3 * i, b[i].x, sizeof b[i].x);
		if (q)
			memcpy(q + 4 * i, b[i].q, sizeof b[i].q);
		if (v)
			memcpy(v + 3 * i, b[i].v, sizeof b[i].v);
		if (w)
			memcpy(w + 3 * i, b[i].w, sizeof b[i].w);
	}
}

int px_sim_step(struct px_sim *s, const struct px_config *cfg,
		struct px_sim_stats *st, struct px_error *err)
{
	struct px_step_stats y;
	int rc = px_world_step(s->w, cfg, &y, err);

	if (rc)
		return rc;
	memset(s->stages, 0, sizeof s->stages);
	px_step_stats_stages_add(&y, s->stages);
	if (!st)
		return PX_OK;
	*st = (struct px_sim_stats){
		.step = y.step,
		.time = y.time,
		.contacts = y.contacts,
		.cache_hits = y.cache_hits,
		.sweeps = y.sweeps,
		.merit = y.merit,
		.converged = y.converged,
		.collide_s = y.seconds_collide,
		.build_s = y.seconds_build,
		.solve_s = y.seconds_solve,
		.stab_s = y.seconds_stab,
		.total_s = y.seconds_total,
		.kinetic = y.kinetic,
		.potential = y.potential,
		.max_depth = y.max_depth,
	};
	return PX_OK;
}

void px_sim_stage_seconds(const struct px_sim *s, double *seconds)
{
	memcpy(seconds, s->stages, sizeof s->stages);
}

uint64_t px_sim_steps_done(const struct px_sim *s)
{
	return s->w->step;
}

double px_sim_time(const struct px_sim *s)
{
	return s->w->time;
}

size_t px_sim_contacts(const struct px_sim *s, struct px_sim_contact *out,
		       size_t cap)
{
	const struct px_body *b = px_world_bodies(s->w);
	const struct px_contact *c;
	const double *lambda;
	uint32_t bs;
	const size_t n = px_world_contacts(s->w, &c, &lambda, &bs);

	for (size_t k = 0; out && k < n && k < cap; k++) {
		const double *l = lambda + (size_t)bs * k;
		/* the problem's frame: its normal points from the
		 * collision's b to a (world_problem.c), turned when b is
		 * static; the impulse acts on its body a */
		const int flip = b[c[k].b].is_static;
		const double sign = flip ? -1.0 : 1.0;
		double nrm[3], f[9];
		struct px_sim_contact *o = out + k;

		for (int i = 0; i < 3; i++)
			nrm[i] = sign * c[k].n[i];
		v3_frame(nrm, f);
		o->a = c[k].a;
		o->b = c[k].b;
		memcpy(o->point, c[k].p, sizeof o->point);
		memcpy(o->normal, c[k].n, sizeof o->normal);
		o->depth = c[k].depth;
		for (int i = 0; i < 3; i++)
			o->impulse[i] = sign * (l[0] * f[i] + l[1] * f[3 + i] +
						l[2] * f[6 + i]);
		o->torsion = bs > 3 ? l[3] : 0.0;
		o->mu = sqrt(b[c[k].a].mu * b[c[k].b].mu);
	}
	return n;
}

double px_sim_kinetic_energy(const struct px_sim *s)
{
	return px_world_kinetic_energy(s->w);
}

double px_sim_potential_energy(const struct px_sim *s)
{
	return px_world_potential_energy(s->w);
}
