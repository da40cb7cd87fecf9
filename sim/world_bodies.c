/* The world's settings and bodies: creation, validation of added bodies,
 * accessors and energies. The step is in world_step.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "vec.h"
#include "world_impl.h"
#include "world_problem.h"

void px_world_settings_default(struct px_world_settings *s)
{
	*s = (struct px_world_settings){
		.gravity = {0.0, 0.0, -9.81},
		.dt = 0.01,
		.steps = 100,
		.stepping = PX_SEMI_IMPLICIT,
		.stabilization = PX_STAB_BAUMGARTE,
		.beta = 0.05,
		.slop = 1e-3,
		.margin = 1e-3,
		.restitution_threshold = 0.1,
		.warm_start = 1,
		.gyroscopic = 0,
		.substeps = 1,
		.contact_hertz = 30.0,
		.contact_damping_ratio = 10.0,
		.contact_push_velocity = 3.0,
	};
}

static int finite_n(const double *x, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

static int check_settings(const struct px_world_settings *s, struct px_error *err)
{
	if (!finite_n(s->gravity, 3))
		return px_error_set(err, PX_ERR_INVALID, "gravity is not finite");
	if (!(s->dt > 0.0) || !isfinite(s->dt))
		return px_error_set(err, PX_ERR_INVALID,
				    "dt must be positive and finite");
	if (!(s->beta >= 0.0 && s->beta <= 1.0))
		return px_error_set(err, PX_ERR_INVALID,
				    "beta must be in [0, 1]");
	if (!(s->slop >= 0.0) || !isfinite(s->slop))
		return px_error_set(err, PX_ERR_INVALID,
				    "slop must be >= 0 and finite");
	if (!(s->margin >= 0.0) || !isfinite(s->margin))
		return px_error_set(err, PX_ERR_INVALID,
				    "margin must be >= 0 and finite");
	if (!(s->restitution_threshold >= 0.0) ||
	    !isfinite(s->restitution_threshold))
		return px_error_set(err, PX_ERR_INVALID,
				    "restitution_threshold must be >= 0 and finite");
	if (!(s->contact_hertz >= 0.0) || !isfinite(s->contact_hertz))
		return px_error_set(err, PX_ERR_INVALID,
				    "contact_hertz must be >= 0 and finite");
	if (!(s->contact_damping_ratio >= 0.0) ||
	    !isfinite(s->contact_damping_ratio))
		return px_error_set(err, PX_ERR_INVALID,
				    "contact_damping_ratio must be >= 0 and finite");
	if (!(s->contact_push_velocity > 0.0))
		return px_error_set(err, PX_ERR_INVALID,
				    "contact_push_velocity must be > 0");
	if (s->substeps < 1 || s->substeps > PX_WORLD_MAX_SUBSTEPS)
		return px_error_set(err, PX_ERR_INVALID,
				    "substeps must be in [1, %u]",
				    PX_WORLD_MAX_SUBSTEPS);
	return PX_OK;
}

int px_world_create(const struct px_world_settings *s, struct px_world **out,
		     struct px_error *err)
{
	struct px_world *w;
	int rc = check_settings(s, err);

	if (rc)
		return rc;
	w = calloc(1, sizeof *w);
	if (!w)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	w->settings = *s;
	w->bp = px_broadphase_create();
	if (!w->bp) {
		free(w);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	*out = w;
	return PX_OK;
}

void px_world_destroy(struct px_world *w)
{
	if (!w)
		return;
	px_broadphase_destroy(w->bp);
	/* the last step's contacts, impulses and cache */
	free(w->contacts);
	free(w->lambda);
	free(w->cache);
	free(w->keep.rows);
	free(w->keep.vel);
	free(w->keep.vfree);
	free(w->keep.depth);
	free(w->keep.claimed);
	free(w->keep.cache);
	free(w->bodies);
	free(w);
}

static int check_shape(const struct px_shape *sh, struct px_error *err)
{
	switch (sh->kind) {
	case PX_SPHERE:
		if (!(sh->radius > 0.0) || !isfinite(sh->radius))
			return px_error_set(err, PX_ERR_INVALID,
					    "radius must be positive and finite");
		return PX_OK;
	case PX_BOX:
		for (int i = 0; i < 3; i++)
			if (!(sh->half[i] > 0.0) || !isfinite(sh->half[i]))
				return px_error_set(err, PX_ERR_INVALID,
						    "half extents must be positive and finite");
		return PX_OK;
	case PX_CAPSULE:
		if (!(sh->radius > 0.0) || !isfinite(sh->radius))
			return px_error_set(err, PX_ERR_INVALID,
					    "radius must be positive and finite");
		if (!(sh->half_length >= 0.0) || !isfinite(sh->half_length))
			return px_error_set(err, PX_ERR_INVALID,
					    "half_length must be >= 0 and finite");
		return PX_OK;
	case PX_PLANE: {
		const double n = v3_norm(sh->normal);

		if (!finite_n(sh->normal, 3) || fabs(n - 1.0) > 1e-9)
			return px_error_set(err, PX_ERR_INVALID,
					    "normal must be a unit vector");
		return PX_OK;
	}
	}
	return px_error_set(err, PX_ERR_INVALID, "unknown shape kind %d",
			    (int)sh->kind);
}

/* b checked as px_world_add_body checks it, into *nb (a static body's
 * mass, inertia and velocities zeroed); its orientation as it is. */
static int body_checked(const struct px_body *b, struct px_body *nb,
			struct px_error *err)
{
	int rc = check_shape(&b->shape, err);

	if (rc)
		return rc;
	*nb = *b;
	if (!finite_n(b->x, 3))
		return px_error_set(err, PX_ERR_INVALID, "position is not finite");
	if (!finite_n(b->q, 4) || v3_norm(b->q + 1) + fabs(b->q[0]) == 0.0)
		return px_error_set(err, PX_ERR_INVALID,
				    "orientation must be a finite, non-zero quaternion");
	if (!finite_n(b->v, 3) || !finite_n(b->w, 3))
		return px_error_set(err, PX_ERR_INVALID, "velocity is not finite");
	if (!(b->mu >= 0.0) || !isfinite(b->mu))
		return px_error_set(err, PX_ERR_INVALID, "mu must be >= 0 and finite");
	if (!(b->mu_tau >= 0.0) || !isfinite(b->mu_tau))
		return px_error_set(err, PX_ERR_INVALID,
				    "mu_tau must be >= 0 and finite");
	if (!(b->restitution >= 0.0 && b->restitution <= 1.0))
		return px_error_set(err, PX_ERR_INVALID,
				    "restitution must be in [0, 1]");
	if (b->shape.kind == PX_PLANE)
		nb->is_static = 1;
	if (nb->is_static) {
		nb->mass = 0.0;
		memset(nb->inertia, 0, sizeof nb->inertia);
		memset(nb->v, 0, sizeof nb->v);
		memset(nb->w, 0, sizeof nb->w);
	} else {
		if (!(b->mass > 0.0) || !isfinite(b->mass))
			return px_error_set(err, PX_ERR_INVALID,
					    "mass must be positive and finite");
		for (int i = 0; i < 3; i++)
			if (!(b->inertia[i] > 0.0) || !isfinite(b->inertia[i]))
				return px_error_set(err, PX_ERR_INVALID,
						    "inertia must be positive and finite");
	}
	return PX_OK;
}

int px_world_add_body(struct px_world *w, const struct px_body *b,
		       uint32_t *index, struct px_error *err)
{
	struct px_body nb, *nbs;
	int rc = body_checked(b, &nb, err);

	if (rc)
		return rc;
	quat_normalize(nb.q);
	nbs = px_grow(w->bodies, &w->cap_bodies, w->n_bodies, sizeof *nbs, 64);
	if (!nbs)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	w->bodies = nbs;
	w->bodies[w->n_bodies] = nb;
	if (index)
		*index = (uint32_t)w->n_bodies;
	w->n_bodies++;
	return PX_OK;
}

int px_world_set_bodies(struct px_world *w, const struct px_body *bodies,
			size_t n, const uint32_t *renumber,
			struct px_error *err)
{
	struct px_body *nbs = malloc((n + 1) * sizeof *nbs);
	int rc = nbs ? PX_OK : px_error_set(err, PX_ERR_NOMEM, "out of memory");

	for (size_t i = 0; !rc && i < n; i++)
		rc = body_checked(bodies + i, nbs + i, err);
	if (rc) {
		free(nbs);
		return rc;
	}
	px_world_cache_renumber(w, renumber, n);
	free(w->bodies);
	w->bodies = nbs;
	w->n_bodies = n;
	w->cap_bodies = n + 1;
	return PX_OK;
}

size_t px_world_n_bodies(const struct px_world *w)
{
	return w->n_bodies;
}

const struct px_body *px_world_bodies(const struct px_world *w)
{
	return w->bodies;
}

struct px_body *px_world_bodies_mut(struct px_world *w)
{
	return w->bodies;
}

const struct px_world_settings *px_world_settings(const struct px_world *w)
{
	return &w->settings;
}

struct px_world_settings *px_world_settings_mut(struct px_world *w)
{
	return &w->settings;
}

double px_world_kinetic_energy(const struct px_world *w)
{
	return px_world_kinetic_energy_of(w, NULL);
}

double px_world_potential_energy(const struct px_world *w)
{
	return px_world_potential_energy_of(w, NULL);
}

double px_world_kinetic_energy_of(const struct px_world *w,
				  const unsigned char *which)
{
	double e = 0.0;

	for (size_t i = 0; i < w->n_bodies; i++) {
		const struct px_body *b = w->bodies + i;
		double r[9], wl[3];

		if (b->is_static || (which && !which[i]))
			continue;
		quat_to_matrix(b->q, r);
		mat_tmul(r, b->w, wl);
		e += 0.5 * b->mass * v3_dot(b->v, b->v);
		for (int k = 0; k < 3; k++)
			e += 0.5 * b->inertia[k] * wl[k] * wl[k];
	}
	return e;
}

double px_world_potential_energy_of(const struct px_world *w,
				    const unsigned char *which)
{
	double e = 0.0;

	for (size_t i = 0; i < w->n_bodies; i++) {
		const struct px_body *b = w->bodies + i;

		if (!b->is_static && (!which || which[i]))
			e -= b->mass * v3_dot(w->settings.gravity, b->x);
	}
	return e;
}
