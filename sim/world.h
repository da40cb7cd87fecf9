/* The rigid-body world (doc/design.md, section 4.1, issue 7): bodies, and the
 * step that turns them into a contact problem, solves it with proxima and moves
 * the bodies.
 *
 * One step: collision (broad and narrow phase, contacts with feature ids)
 * -> contact cache warm start -> problem (frames, rigid or factorized A,
 * b with restitution and Baumgarte feedback) -> px_solve -> velocities ->
 * positions (semi-implicit Euler, or Moreau's midpoint scheme) ->
 * post-stabilization (optional) -> cache the impulses -> statistics.
 *
 * Substeps (issue 23; Macklin et al. 2019, "Small steps in physics
 * simulation"; Box2D v3's solver): with substeps = N the collision, the
 * frames, lever arms, inverse inertias and A are made once per step; then
 * N times, with h = dt / N: each contact's depth is updated from the
 * bodies' motion since the collision (no new collision), b is made for h
 * (Baumgarte's feedback keeps the step's rate beta/dt),
 * px_solve runs from the last substep's impulses (the cache in the first),
 * and the bodies' velocities and positions move by h. N = 1 is the step
 * above bit for bit. The step's impulses (px_world_contacts) are the sum
 * of its substeps'; the cache keeps the last substep's. Cost: collision +
 * set-up (once) + N (b, solve, integration); a substep costs about the
 * solve of a step with the same sweeps, and collision and set-up are not
 * repeated. */
#ifndef PX_SIM_WORLD_H
#define PX_SIM_WORLD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxima/proxima.h>

#include "body.h"
#include "collide.h"

enum px_stepping {
	PX_SEMI_IMPLICIT = 0, /* Catto 2005, sec. 6: u+ = u + dt M^-1 (h +
				  J^T l/dt), q+ = q + dt u+ */
	PX_MOREAU = 1,        /* Erleben 2017, sec. 4.3: half step of q with
				  u, solve at the midpoint, half step of q
				  with u+ */
};

enum px_stabilization {
	PX_STAB_NONE = 0,
	PX_STAB_BAUMGARTE = 1, /* Catto 2005, sec. 4.2: b_n -= beta/dt
				   (depth - slop) */
	PX_STAB_POST = 2,      /* Erleben 2017, sec. 4.4: after the step, a
				   frictionless contact problem on positions
				   pushes overlapping bodies apart (depth -
				   slop) */
	PX_STAB_SOFT = 3,      /* issue 23, Box2D v3's soft step: per
				   substep a solve with soft normal rows (a
				   spring of contact_hertz and
				   contact_damping_ratio on depth - slop),
				   then a relaxation solve without it
				   (world_soft.c) */
};

/* At most this many substeps per step. */
#define PX_WORLD_MAX_SUBSTEPS 1000u

struct px_world_settings {
	double gravity[3];        /* m/s^2 */
	double dt;                /* s */
	uint64_t steps;           /* of a run */
	enum px_stepping stepping;
	enum px_stabilization stabilization;
	double beta;              /* Baumgarte: fraction of the excess
				     penetration removed per step, (0, 1] */
	double slop;              /* penetration left alone (m) */
	double margin;            /* collision margin: gaps below it give
				     speculative contacts (m) */
	double restitution_threshold; /* approach speeds below it do not
					 bounce (m/s) */
	int warm_start;           /* contact cache on (1) or off (0) */
	int gyroscopic;           /* add -w x I w to the torque (1) or not */
	uint32_t substeps;        /* solves per step, >= 1 (see below) */
	double contact_hertz;     /* soft: the contacts' stiffness (Hz) */
	double contact_damping_ratio; /* soft: their damping ratio */
	double contact_push_velocity; /* soft: the bias's cap (m/s) */
};

/* The defaults: gravity (0, 0, -9.81), dt 0.01, 100 steps, semi-implicit,
 * Baumgarte beta 0.05, slop 1e-3, margin 1e-3, threshold 0.1 m/s, warm start
 * on, no gyroscopic term, 1 substep; soft contact (when chosen) of 30 Hz,
 * damping ratio 10, pushing at most 3 m/s (Box2D v3's defaults). */
void px_world_settings_default(struct px_world_settings *s);

/* What one step did. */
struct px_step_stats {
	uint64_t step;           /* 1 for the first step */
	double time;             /* simulated time at its end (s) */
	size_t contacts;
	size_t cache_hits;       /* contacts warm started from the cache */
	uint64_t sweeps;         /* of the velocity solve */
	double merit;            /* its final merit (the config's stop test) */
	int converged;
	double seconds_collide, seconds_build, seconds_solve, seconds_stab,
		seconds_total;
	/* The same wall time by stage (doc/world.md, "Where a step's time
	 * goes"); they add up to seconds_total: */
	double seconds_broad;     /* broad phase: boxes, grid, pairs */
	double seconds_narrow;    /* narrow phase: the pairs' contact points */
	double seconds_cache;     /* contact cache: warm start and store */
	double seconds_problem;   /* bodies, rows, A, b, the solver's set-up */
	/* seconds_solve: the solves' sweeps (px_report's seconds) */
	double seconds_integrate; /* free velocities, impulses, positions */
	double seconds_post;      /* post-stabilization (0 without) */
	double kinetic, potential; /* energies after the step (J) */
	double max_depth;        /* deepest penetration found (m, >= 0) */
};

/* s's stage times (seconds_broad .. seconds_post) added to
 * seconds[PX_SIM_N_STAGES], in proxima/sim.h's order (world_csv.c). */
void px_step_stats_stages_add(const struct px_step_stats *s,
			      double *seconds);

/* The statistics as CSV (world_csv.c): the header, then one row per
 * step (`proxima run --csv`, and the distributed run's summed over the
 * ranks). With stages non-zero the stages' times follow max_depth
 * (broad_s .. post_s); the distributed run does not time them. */
void px_step_stats_csv_header(FILE *f, int stages);
void px_step_stats_csv_row(FILE *f, const struct px_step_stats *s,
			   int stages);

struct px_world;

/* A world with settings s (copied), no bodies. */
int px_world_create(const struct px_world_settings *s, struct px_world **out,
		     struct px_error *err);
void px_world_destroy(struct px_world *w);

/* Add a body (copied): mass > 0 and inertia > 0 unless static, finite
 * numbers, a shape of positive size, a unit normal for planes (a plane is
 * always static). The orientation is normalized; mass and inertia of a
 * static body are ignored. Refusals name the field in err. Returns its
 * index. */
int px_world_add_body(struct px_world *w, const struct px_body *b,
		       uint32_t *index, struct px_error *err);

size_t px_world_n_bodies(const struct px_world *w);
const struct px_body *px_world_bodies(const struct px_world *w);
struct px_body *px_world_bodies_mut(struct px_world *w);
const struct px_world_settings *px_world_settings(const struct px_world *w);
struct px_world_settings *px_world_settings_mut(struct px_world *w);

/* One time step with solver configuration cfg. The contacts and impulses
 * of the step stay readable until the next one. */
int px_world_step(struct px_world *w, const struct px_config *cfg,
		   struct px_step_stats *st, struct px_error *err);

/* The velocity solve of a step, as px_world_step ran it: for tools that
 * study the step's contact problem (proxima compare). Valid only during
 * the hook's call. */
struct px_dynamics;
struct px_contact_rows;
struct px_step_solve {
	uint64_t step;                    /* the step being taken (1 first) */
	const struct px_problem *problem; /* as the world built it */
	const double *warm_start;         /* lambda the solve started from
					     (contact cache or zero) */
	double *lambda;                   /* what px_solve returned; a
					     solving hook (px_world_hook_solves)
					     overwrites it, and the bodies then
					     move by what it holds (a
					     distributed solve puts the ranks'
					     impulses here) */
	const struct px_report *report;   /* px_solve's report, history too */
	/* A solving hook only (else NULL): it may point *body_velocities
	 * at M^-1 J^T lambda of its solve (6 per dynamic body, in the
	 * world's order, valid until the step's next solve), which the
	 * world then adds to the free velocities instead of applying lambda
	 * anew: what the world's own kept solver does with substeps, so that
	 * a hook solving the world's problem alone moves the bodies as the
	 * world would, bit for bit. */
	const double **body_velocities;
	/* The step's bodies and contact rows as its collision left them,
	 * which the problem's A is of (after a substep the bodies have
	 * moved): sim/world_problem.h */
	const struct px_dynamics *dynamics;
	const struct px_contact_rows *rows;
	/* A solving hook's post-stabilization solve only (else NULL and 0):
	 * its contacts (a collision of the moved bodies, not the step's:
	 * px_world_contacts keeps the step's), the problem's rows, n of
	 * them; *deep is whether one of them is deeper than the slop, and
	 * the hook leaves there whether one is in any world it solves with
	 * (0: nothing moves, lambda unread). */
	const struct px_contact *contacts;
	size_t n_contacts;
	int *deep;
};

/* Called by px_world_step after each velocity solve (steps without
 * contacts solve nothing and do not call it; post-stabilization's solve
 * does not either), before the impulses move the bodies: once per
 * substep, twice with soft contact (the soft solve of A + Gamma, then the
 * relaxation; s->step is the step's in both). It may solve
 * s->problem again with other configs. A non-zero return fails the step
 * with that status and err (the world is then mid-step: destroy it). */
typedef int (*px_world_solve_hook)(void *ctx, const struct px_step_solve *s,
				   struct px_error *err);

/* Set (or with fn NULL, remove) the solve hook. With a hook set each step
 * also keeps a copy of its warm start (one allocation per step). */
void px_world_set_solve_hook(struct px_world *w, px_world_solve_hook fn,
			     void *ctx);

/* With on non-zero, the hook is the step's velocity solve: px_world_step
 * does not solve, the hook finds the warm start in s->lambda and the
 * bodies move by what it leaves there (a distributed run's ranks solve
 * together inside it). It is then called at every solve of the step,
 * also where the world has no contact (s->problem NULL, no row in
 * s->lambda), so that every world of a distributed run meets the others
 * at each: once per substep, twice with soft contact, and once more for
 * post-stabilization's position solve (s->deep set; the substep hook
 * runs before its collision, with i = the substeps). The step's
 * statistics then count no sweep. */
void px_world_hook_solves(struct px_world *w, int on);

/* Called at the start of every substep after the first (substep i >= 1,
 * before its free velocities), and with a solving hook before
 * post-stabilization's collision (i = the substeps), with the solve
 * hook's ctx: a distributed
 * run brings the copies of other worlds' bodies up to date there. A
 * non-zero return fails the step. NULL removes it. */
typedef int (*px_world_substep_hook)(void *ctx, uint32_t i,
				     struct px_error *err);
void px_world_set_substep_hook(struct px_world *w, px_world_substep_hook fn);

/* The contacts of the last step and their impulses (n, s, t[, tau] in the
 * contact frame, per contact block_size values). */
size_t px_world_contacts(const struct px_world *w,
			  const struct px_contact **c, const double **lambda,
			  uint32_t *block_size);

/* Energies: kinetic 1/2 m v^2 + 1/2 w^T I w, potential -m g.x (J). */
double px_world_kinetic_energy(const struct px_world *w);
double px_world_potential_energy(const struct px_world *w);
/* The same over the bodies i with which[i] non-zero (which NULL: all),
 * summed in the same order. */
double px_world_kinetic_energy_of(const struct px_world *w,
				  const unsigned char *which);
double px_world_potential_energy_of(const struct px_world *w,
				    const unsigned char *which);

/* One cached contact: the pair, the feature and the impulse it received,
 * in world coordinates (the impulse on the contact's body b, i.e. along
 * the collision normal from a to b), so that a contact whose frame turned
 * a little keeps it (Catto 2005, sec. 8), and where it was. */
struct px_cached {
	uint32_t a, b, feature;
	double p[3];       /* the contact point (world) */
	double impulse[3];
	double tau; /* torsional impulse about the normal */
};

/* The contact cache: its entries (*e, sorted by pair: body b, then a),
 * valid until the next step or change of the world's bodies; their
 * count. */
size_t px_world_cache(const struct px_world *w, const struct px_cached **e);

/* Replace the contact cache by e[0..n) (copied), between steps: a rank of
 * a distributed world that re-partitions takes its contacts' entries from
 * their last owners. PX_ERR_INVALID when an entry names a body the world
 * does not have or the entries are not sorted by pair (b, then a). */
int px_world_set_cache(struct px_world *w, const struct px_cached *e,
		       size_t n, struct px_error *err);

/* Replace the world's bodies by bodies[0..n) between steps (a rank's
 * region of a distributed world, whose bodies come and go): old body i is
 * new body renumber[i], or gone (UINT32_MAX), for i < the old count; the
 * contact cache follows. The bodies are checked as px_world_add_body
 * checks them. */
int px_world_set_bodies(struct px_world *w, const struct px_body *bodies,
			size_t n, const uint32_t *renumber,
			struct px_error *err);

#endif
