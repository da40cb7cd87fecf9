/* Stepping a generated scene's world across ranks (issue 21). Each rank
 * keeps a world of its region: its own bodies (centre in its box) and a
 * ghost layer (copies of other ranks' bodies within the ghost width of
 * its box), in ascending global id, so that every rank's copy of a pair
 * collides to the same contacts. A step:
 *
 *   1. the rank's world collides and builds the step's problem; its solve
 *      hook, which is the world's solve (px_world_hook_solves), takes the
 *      own contacts (rigid.c) and, with every other rank, solves them
 *      distributed (dsolve.c) from the world's warm start;
 *   2. the impulses of own contacts on bodies of other ranks go to those
 *      owners (cut impulses), so that every rank holds the impulse of
 *      every contact on its own bodies; the world then moves its bodies
 *      by them (the ghosts' motion is wrong and thrown away);
 *   3. each rank sends the bodies it owned to every neighbour whose
 *      region keeps them now (ghost refresh); a body whose centre left the
 *      box changes owner (migration) and its contacts' cache entries stay
 *      on every rank that keeps both bodies.
 *
 * The boxes are the first bisection's until a re-partition (rebalance.c,
 * --rebalance-every K): after every K-th step, when the ranks' loads
 * drift apart, the boxes are cut anew from the current centres and every
 * rank rebuilds its world from the gathered bodies and cache entries. A
 * rank never holds the whole scene, except during a re-partition. */
#ifndef PX_DIST_STEP_H
#define PX_DIST_STEP_H

#include <mpi.h>
#include <string.h>

#include "dist.h"
#include "region.h"
#include "world.h"
#include "../io/vtk.h"

struct px_dist_world {
	struct px_world *w;
	struct px_region *reg;  /* gid and owner of the world's bodies */
	int *nbr;               /* neighbour ranks, ascending */
	size_t n_nbr;
	MPI_Request *req;       /* 2 per neighbour (px_dist_world_swap) */
	uint64_t *cnt;          /* 2 per neighbour: sizes sent, received */
	struct px_config *cfg;  /* the distributed solve's */
	struct px_dist_opts o;
	int rank, size;
	/* the step in progress */
	unsigned char *own;     /* per body: owned at the step's start */
	double *x0;             /* per body: its centre then (3) */
	int solved;             /* the hook ran this step */
	unsigned calls;         /* the hook's calls this step (solves) */
	struct px_dist_part d;  /* the last solve's part */
	struct px_dist_result res; /* the last solve's */
	uint64_t sweeps;        /* the step's solves' */
	int converged;          /* every solve of the step */
	double solve_seconds;   /* the step's solves' (this rank's) */
	double static_impulse[3]; /* of own contacts on static bodies: what
				     moved the bodies in the step */
	double max_depth;       /* of own contacts */
	size_t warm;            /* own contacts warm started (non-zero) */
	/* one rank with substeps (keep): the parts of the step's problems
	 * (soft contact: two) and their solvers, kept across its substeps as
	 * the world keeps its own; d is the last solve's, spare the other */
	int keep;
	const struct px_problem *d_p;
	struct px_solver *sv;
	double *kl;             /* d's lambda, where its solver left it */
	struct {
		struct px_dist_part d;
		const struct px_problem *p;
		struct px_solver *sv;
		double *kl;
	} spare;
	/* VTK frames: with vtk_want the step keeps the contacts it solved
	 * (their bodies by scene index), n_vtk of them */
	int vtk_want;
	struct px_vtk_contact *vtk;
	size_t n_vtk;
	/* the whole run */
	struct px_dist_traffic traffic; /* cut impulses and bodies */
	uint64_t migrated;      /* bodies that changed owner */
	/* re-balancing (o.rebalance_every): the step in progress checks the
	 * load (rebalance_due); re-partitions so far, the bodies they moved
	 * to another rank (this rank's, before), the last check's load
	 * imbalance */
	int rebalance_due;
	uint64_t rebalances;
	uint64_t rebalance_moved;
	double imbalance;
	size_t n_static;        /* the scene's static bodies (every rank's
				   world holds them all) */
	uint64_t *static_gid;   /* theirs, ascending */
	double *static_j;       /* 3 per static body: the impulse this
				   rank's own contacts on it gave the moving
				   bodies (N s) */
};

/* After px_region_read: the rank's world of bodies[0..n) and its
 * neighbours. cfg (kept) solves. With substeps, the ghosts' states come
 * from their owners before every substep after the first (a step's
 * solve per substep, collective); with soft contact both solves of a
 * substep, the soft one and the relaxation, are distributed; with
 * post-stabilization the ghosts' states come again, and its position
 * solve is distributed. */
int px_dist_world_create(struct px_dist_world *dw, struct px_region *reg,
			 const struct px_world_settings *s,
			 const struct px_body *bodies, size_t n,
			 struct px_config *cfg, const struct px_dist_opts *o,
			 struct px_error *err);

/* One step on every rank (collective); the agreed status. */
int px_dist_world_step(struct px_dist_world *dw, struct px_error *err);

/* This rank's own bodies' linear momentum (3) and energies (kinetic,
 * potential). */
void px_dist_world_sums(const struct px_dist_world *dw, double p[3],
			double e[2]);

void px_dist_world_free(struct px_dist_world *dw);

/* What a rank sends its neighbours in one px_dist_world_swap: per
 * neighbour q a buffer buf[q] of which bytes[q] are filled. */
struct px_dist_outbox {
	unsigned char **buf;
	size_t *bytes;
	size_t n; /* neighbours */
};

/* One empty buffer of cap bytes per neighbour of dw; PX_ERR_NOMEM (and
 * an outbox px_dist_outbox_free takes) when out of memory. */
int px_dist_outbox_init(struct px_dist_outbox *o,
			const struct px_dist_world *dw, size_t cap);

/* Append size bytes of item to neighbour q's buffer (room for them is
 * the caller's: init's cap). */
static inline void px_dist_outbox_put(struct px_dist_outbox *o, size_t q,
				      const void *item, size_t size)
{
	memcpy(o->buf[q] + o->bytes[q], item, size);
	o->bytes[q] += size;
}

void px_dist_outbox_free(struct px_dist_outbox *o);

/* With every neighbour, collective: send out's buffer q to neighbour q
 * and receive what each sends, in neighbour order, into one malloc'ed
 * *in (*in_bytes in all). The sizes go first; then every rank agrees on
 * rc (this rank's status so far, its message in err; out is read only
 * when rc is PX_OK) and on its receive buffer before any payload moves,
 * so a failure anywhere is every rank's and no rank waits on a message
 * that will not come. */
int px_dist_world_swap(struct px_dist_world *dw, int tag, int rc,
		       const struct px_dist_outbox *out, unsigned char **in,
		       size_t *in_bytes, struct px_error *err);

/* Ghost refresh and migration (migrate.c), collective: every rank sends
 * the bodies it owned at the step's start (dw->own) to the neighbours
 * whose regions keep them, and takes its new bodies. */
int px_dist_refresh(struct px_dist_world *dw, struct px_error *err);

/* After a step with dw->rebalance_due (collective; in place of
 * px_dist_refresh): the load imbalance, the most own contacts of a rank
 * over the mean (own bodies when no rank has a contact), into
 * dw->imbalance; when it is at least o.rebalance_threshold, a
 * re-partition: every rank's own bodies and its own contacts' cache
 * entries gathered on every rank (MPI_Allgatherv), the boxes cut anew
 * from the bodies' current centres (px_region_bisect, the sample
 * px_region_read takes, each centre counted 1 + its body's own contacts
 * times), and each rank's world rebuilt from what its new
 * box keeps, its ghost layer and its statics, the cache entries of every
 * contact it holds both bodies of; else px_dist_refresh. */
int px_dist_rebalance(struct px_dist_world *dw, struct px_error *err);

/* The boxes changed (a re-partition, a restart's): dw's neighbours and
 * their requests anew. */
int px_dist_world_neighbours(struct px_dist_world *dw, struct px_error *err);

#endif
