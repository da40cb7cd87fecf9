/* The rigid-body world (doc/design.md, section 4.1) as a library: a scene read
 * from its INI file (proxima.conf(5)'s scene keys, as `proxima run` reads
 * it) or bodies added one by one, stepped with a solver config, its
 * bodies, the last step's contacts and impulses, its statistics and
 * energies read back. The world is opaque; what it exchanges with a
 * program are the plain structs below. A step is `proxima run`'s step,
 * bit for bit.
 *
 * ABI: the structs below are part of libproxima's ABI (PX_ABI_MAJOR);
 * fields are only ever added at the end, and px_sim_body_default sets
 * every field a program does not know about. */
#ifndef PROXIMA_SIM_H
#define PROXIMA_SIM_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/config.h>
#include <proxima/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* A body's shape, centred on its centre of mass, in its own frame. */
enum px_sim_shape {
	PX_SIM_SPHERE = 0,  /* radius */
	PX_SIM_BOX = 1,     /* half[3]: half extents along the body axes */
	PX_SIM_CAPSULE = 2, /* radius and half_length: the segment from
			       -half_length to +half_length on the body z
			       axis, swept by a sphere of that radius */
	PX_SIM_PLANE = 3,   /* a static half-space: its surface passes
			       through position, normal points out of the
			       solid; orientation is unused */
};

enum px_sim_stepping {
	PX_SIM_SEMI_IMPLICIT = 0, /* semi-implicit Euler */
	PX_SIM_MOREAU = 1,        /* Moreau's midpoint scheme */
};

enum px_sim_stabilization {
	PX_SIM_STAB_NONE = 0,
	PX_SIM_STAB_BAUMGARTE = 1,
	PX_SIM_STAB_POST = 2,
	PX_SIM_STAB_SOFT = 3,
};

/* A world's settings: the scene's [world] keys (proxima.conf(5)). */
struct px_sim_settings {
	double gravity[3];        /* m/s^2 */
	double dt;                /* s */
	uint64_t steps;           /* of a run (what `proxima run` steps) */
	int stepping;             /* enum px_sim_stepping */
	int stabilization;        /* enum px_sim_stabilization */
	double beta, slop, margin, restitution_threshold;
	int warm_start, gyroscopic; /* 0 or 1 */
	uint32_t substeps;
	double contact_hertz, contact_damping_ratio, contact_push_velocity;
};

/* The settings of a scene without a [world] section: gravity (0, 0,
 * -9.81), dt 0.01, 100 steps, semi-implicit, Baumgarte beta 0.05, slop
 * 1e-3, margin 1e-3, restitution threshold 0.1 m/s, warm start on, no
 * gyroscopic term, 1 substep, soft contact of 30 Hz, damping ratio 10,
 * 3 m/s. */
void px_sim_settings_default(struct px_sim_settings *s);

/* A body: what px_sim_add_body takes and px_sim_body gives back. */
struct px_sim_body {
	int shape;             /* enum px_sim_shape */
	double radius;         /* sphere, capsule */
	double half[3];        /* box */
	double half_length;    /* capsule */
	double normal[3];      /* plane (normalized when added) */
	double position[3];    /* centre of mass (world) */
	double orientation[4]; /* body to world (w, x, y, z), normalized
				  when added */
	double velocity[3];    /* linear (world) */
	double angular_velocity[3]; /* world */
	double mass;           /* kg; set this or density (not both) */
	double density;        /* kg/m^3: mass = density * volume */
	double inertia[3];     /* principal moments (body frame); all 0:
				  a solid of uniform density */
	double mu;             /* Coulomb coefficient of its surface (of a
				  contact: sqrt(mu_a mu_b)) */
	double mu_tau;         /* torsional coefficient, a length (m) */
	double restitution;    /* in [0, 1] */
	int is_static;         /* never moves (a plane always) */
};

/* A sphere of radius 1 at the origin, unrotated, at rest, no mass or
 * density set, mu 0.5 (a scene's default), mu_tau 0, restitution 0, not
 * static. */
void px_sim_body_default(struct px_sim_body *b);

/* What one step did: the columns of `proxima run --csv`, in order. */
struct px_sim_stats {
	uint64_t step;        /* 1 for the world's first step */
	double time;          /* simulated time at its end (s) */
	uint64_t contacts, cache_hits; /* contacts, of them warm started */
	uint64_t sweeps;      /* of the velocity solves */
	double merit;         /* the last solve's final merit */
	int converged;        /* 0 or 1 */
	double collide_s, build_s, solve_s, stab_s, total_s; /* wall s */
	double kinetic, potential; /* energies after the step (J) */
	double max_depth;     /* deepest penetration (m) */
};

/* One contact of the last step (the impulse summed over its substeps). */
struct px_sim_contact {
	uint32_t a, b;       /* the bodies (indices) */
	double point[3];     /* midway between the surfaces (world) */
	double normal[3];    /* unit, from a to b */
	double depth;        /* penetration (> 0) or minus a gap (< 0) */
	double impulse[3];   /* what a gave b (N s, world): its normal part
				impulse . normal >= 0 */
	double torsion;      /* the torsional impulse about the normal (N m
				s; 0 without mu_tau) */
	double mu;           /* the contact's friction coefficient */
};

struct px_sim;

/* An empty world of settings s (copied; checked as a scene's are). */
int px_sim_create(const struct px_sim_settings *s, struct px_sim **out,
		  struct px_error *err);

/* The world of the scene file at path, as `proxima run PATH` reads it.
 * A file that cannot be opened is PX_ERR_IO; a bad scene is an error
 * naming the file, line, section and key. */
int px_sim_read(const char *path, struct px_sim **out, struct px_error *err);

void px_sim_destroy(struct px_sim *s);

/* Add a body (copied) and return its index in *index (may be NULL). A
 * refusal names the body by that index and the field: a shape of positive
 * finite size, finite position and velocities, a non-zero orientation,
 * exactly one of mass and density (positive and finite) unless static,
 * mu and mu_tau >= 0, restitution in [0, 1]. */
int px_sim_add_body(struct px_sim *s, const struct px_sim_body *b,
		    size_t *index, struct px_error *err);

size_t px_sim_n_bodies(const struct px_sim *s);
const struct px_sim_settings *px_sim_settings(const struct px_sim *s);

/* Body i as it is now (its mass and inertia as the world holds them;
 * density 0); PX_ERR_INVALID past the last. */
int px_sim_body(const struct px_sim *s, size_t i, struct px_sim_body *out,
		struct px_error *err);

/* Every body's state, into arrays of 3 (4 for q) per body; a NULL array is
 * skipped. */
void px_sim_states(const struct px_sim *s, double *x, double *q, double *v,
		   double *w);

/* Take one step with solver config cfg, its statistics into st (may be
 * NULL). A failed step (a solve that diverged: PX_ERR_DIVERGED) leaves
 * the world mid-step: destroy it. */
int px_sim_step(struct px_sim *s, const struct px_config *cfg,
		struct px_sim_stats *st, struct px_error *err);

/* The stages of a step (`proxima run`'s second `time` line; its CSV's
 * broad_s .. post_s, with solve_s): */
enum px_sim_stage {
	PX_SIM_STAGE_BROAD,     /* broad phase: boxes, grid, pairs */
	PX_SIM_STAGE_NARROW,    /* narrow phase: the pairs' contact points */
	PX_SIM_STAGE_CACHE,     /* contact cache: warm start and store */
	PX_SIM_STAGE_PROBLEM,   /* rows, A, b, the solver's set-up */
	PX_SIM_STAGE_SOLVE,     /* the solves' sweeps (solve_s) */
	PX_SIM_STAGE_INTEGRATE, /* free velocities, impulses, positions */
	PX_SIM_STAGE_POST,      /* post-stabilization (0 without) */
	PX_SIM_N_STAGES
};

/* The last step's wall time by stage (s) into seconds[PX_SIM_N_STAGES];
 * they add up to its total_s. All 0 before the first step. */
void px_sim_stage_seconds(const struct px_sim *s, double *seconds);

/* Steps taken and simulated time (s). */
uint64_t px_sim_steps_done(const struct px_sim *s);
double px_sim_time(const struct px_sim *s);

/* The last step's contacts: how many; with out non-NULL the first min(n,
 * cap) of them are written there. */
size_t px_sim_contacts(const struct px_sim *s, struct px_sim_contact *out,
		       size_t cap);

/* Energies of the moving bodies now (J): kinetic 1/2 m v^2 + 1/2 w^T I w,
 * potential -m g . x. */
double px_sim_kinetic_energy(const struct px_sim *s);
double px_sim_potential_energy(const struct px_sim *s);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
