/* The distributed solve (issue 21): domain-decomposed Gauss-Seidel.
 *
 * Every rank holds a *part*: its own contacts as an ordinary proxima
 * problem (so every in-rank plugin, the OpenMP schedulers included, runs
 * unchanged through px_solve), plus what couples them to other ranks:
 *
 *   assembled parts (problem files, W given): ghost contacts. Rank 0
 *     partitions the block graph of W (METIS); own row k's blocks W_kj with
 *     j on another rank move into the free velocity,
 *       b_k = q_k + sum_j W_kj lambda_j,
 *     and after each round the owners send the lambda_j of their boundary
 *     contacts to the ranks that ghost them.
 *   rigid parts (generated scenes): ghost bodies. A body touched by
 *     contacts of several ranks has a copy on each; after each round every
 *     copy's velocity change M^-1 J^T dlambda goes to the body's owner,
 *     which sums them (in rank order) and sends the total back, and every
 *     copy's velocity becomes v_free + M^-1 sum_ranks J^T lambda.
 *
 * Combination rules (how a rank's local solve sees the others):
 *   sum:   the plain sum of the ranks' changes, each rank solving with the
 *          true operator: block Jacobi across partitions, which can
 *          overshoot where partitions push on the same body.
 *   split: mass splitting (Tonge et al. 2012): a body shared by k ranks
 *          carries mass m/k (inertia I/k) on each, and the copies'
 *          velocities are averaged after the round; averaging k copies that
 *          each moved by k M^-1 J_i^T dlambda_i is exactly the sum above, so
 *          impulse is conserved and the fixed point is the true one. For an
 *          assembled part, where there are no bodies, the analogue scales
 *          the diagonal block of a boundary contact by the number k of
 *          ranks its row couples (and compensates in b, so the fixed point
 *          stays W lambda + q).
 * The local problem's b always carries a correction such that at the start
 * of a round A_local lambda + b_local is the true contact velocity; the
 * global merit (Siconos's fc3d error) is therefore a sum of per-rank terms. */
#ifndef PX_DIST_H
#define PX_DIST_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/proxima.h>

enum px_dist_kind { PX_DIST_ASSEMBLED = 0, PX_DIST_RIGID = 1 };
enum px_dist_combine { PX_DIST_SUM = 0, PX_DIST_SPLIT = 1 };

/* One neighbouring rank. `mine`: local items this rank owns that the
 * neighbour holds copies of; `theirs`: local items (ghost contacts, ghost
 * bodies) the neighbour owns. Both sorted by global id, so the two ends
 * agree on the order without telling each other. */
struct px_dist_link {
	int rank;
	uint32_t n_mine, n_theirs;
	uint32_t *mine, *theirs;
	double *sbuf, *rbuf; /* max(n_mine, n_theirs) * width each */
};

/* Counters of the point-to-point traffic of one rank. */
struct px_dist_traffic {
	uint64_t messages, bytes;
};

struct px_dist_part {
	enum px_dist_kind kind;
	enum px_dist_combine combine;
	uint32_t bs;
	size_t n_own;             /* contacts */
	uint64_t *gid;            /* global id per own contact */
	struct px_problem *p;     /* NULL when the rank has no contact */
	double *b0;               /* free velocity rows of own contacts */
	size_t n_links;
	struct px_dist_link *links; /* by ascending rank */
	size_t width;             /* doubles per exchanged item */

	/* assembled: ghost contacts */
	size_t n_ghost;
	uint64_t *ghost_gid;
	double *ghost_lambda;     /* n_ghost * bs */
	size_t *cpl_ptr;          /* n_own + 1 */
	uint32_t *cpl_col;        /* ghost index per coupling block */
	double *cpl_blk;          /* bs * bs per coupling block */
	double *mult;             /* per own contact: k of the split rule */
	double *diag;             /* per own contact: the true W_kk */

	/* rigid: bodies (own and ghost copies) */
	size_t n_bodies;
	uint64_t *body_gid;
	int32_t *body_owner;      /* rank owning each local body */
	double *inv_mass;         /* true, per local body */
	double *inv_inertia;      /* true, 9 per local body */
	uint32_t *body_a, *body_b; /* local body per contact (or PX_STATIC) */
	uint32_t *world_contact;  /* per contact: its index in the world */
	double *lever;            /* 6 per contact */
	double *frame;            /* 9 per contact */
	double *point;            /* 3 per contact: its position */
	struct px_friction_params *fric; /* per contact */
	double *shift;            /* per contact: soft contact's gamma A_nn
				     on its normal row (the world problem's
				     normal shift), or NULL */
	uint32_t *copies;         /* per body: ranks with contacts on it (k) */
	unsigned char *shared;    /* per body: in some link */
	size_t n_shared;          /* bodies in some link */
	size_t n_cut;             /* own contacts on a body of another rank */
	double *vbar;             /* 6 per body: M^-1 sum_ranks J^T lambda */
	double *self;             /* 6 per body: M^-1 J_own^T lambda */
	double *du;               /* 6 per body: this round's change */
	double *total;            /* 6 per body: the round's summed change */

	/* both: the own contacts whose b the other ranks change (coupling
	 * blocks or a split diagonal; a side on a shared body), ascending;
	 * the others keep b = b0 (px_dist_find_coupled) */
	uint32_t *coupled;
	size_t n_coupled;
};

/* ---- wire: a byte buffer that parts travel in ---------------------- */
struct px_wire {
	unsigned char *p;
	size_t n, cap, pos;
	int bad; /* out of memory, or read past the end */
};
void px_wire_put(struct px_wire *w, const void *src, size_t bytes);
void px_wire_get(struct px_wire *w, void *dst, size_t bytes);
/* A malloc'ed copy of the next count * size bytes (NULL when count is 0). */
void *px_wire_take(struct px_wire *w, size_t count, size_t size);
void px_wire_free(struct px_wire *w);

/* ---- partition (rank 0) ------------------------------------------------ */
/* The undirected graph of n vertices with an edge where row i holds a
 * block in column j != i (either direction): CSR xadj[n + 1], adj. */
int px_dist_graph(size_t n, const size_t *rowptr, const uint32_t *cols,
		  int64_t **xadj, int64_t **adj, struct px_error *err);
/* part[n] of the graph by METIS into nparts (>= 2) parts of balanced
 * vertex counts, minimizing the edge cut; fixed seed, so reproducible. */
int px_dist_metis(size_t n, const int64_t *xadj, const int64_t *adj,
		  int nparts, int32_t *part, struct px_error *err);
/* Undirected edges whose ends are in different parts. */
uint64_t px_dist_cut(size_t n, const int64_t *xadj, const int64_t *adj,
		     const int32_t *part);
/* part[n] from a file of one rank per line (for tests and by-hand
 * decompositions); every rank in [0, nparts). */
int px_dist_read_parts(const char *path, size_t n, int nparts, int32_t *part,
		       struct px_error *err);

/* Rank r's part of the assembled problem p under part[] as a message. */
int px_dist_pack_assembled(const struct px_problem *p, const int32_t *part,
			   int r, int nparts, struct px_wire *w,
			   struct px_error *err);
/* Build the part from such a message. */
int px_dist_unpack_assembled(struct px_wire *w, enum px_dist_combine combine,
			     struct px_dist_part *d, struct px_error *err);

void px_dist_part_free(struct px_dist_part *d);

/* ---- rounds -------------------------------------------------------- */
/* d->coupled, once the part is built (rigid: after px_dist_share_copies). */
int px_dist_find_coupled(struct px_dist_part *d);
/* b_local of the part's problem from b0 and what the other ranks did, of
 * the coupled contacts: the others' b is b0 from the part's build on. */
void px_dist_update_b(struct px_dist_part *d, const double *lambda);
/* Rigid parts, once: every owner tells the ranks holding copies of its
 * bodies how many ranks have contacts on them (k of the split rule). */
int px_dist_share_copies(struct px_dist_part *d, struct px_dist_traffic *t);
/* After a local solve moved lambda_old to lambda (lambda_old: only the
 * rows of the coupled contacts are read): fill the links' send buffers,
 * exchange with every neighbour, absorb what came back. MPI
 * point-to-point only; the traffic is added to t. */
int px_dist_exchange(struct px_dist_part *d, const double *lambda_old,
		     const double *lambda, struct px_dist_traffic *t);

/* ---- the solve ------------------------------------------------------ */
struct px_dist_opts {
	enum px_dist_combine combine;
	uint64_t sweeps_per_exchange; /* E: local sweeps between exchanges */
	uint64_t check_every;         /* K: exchanges between global tests */
	/* run: re-partition every rebalance_every steps (0: never) when the
	 * load imbalance is at least rebalance_threshold (step.h) */
	uint64_t rebalance_every;
	double rebalance_threshold;
};

struct px_dist_result {
	int converged;
	uint64_t sweeps;    /* sweeps run (every rank runs the same number) */
	uint64_t rejected;  /* one rank, no coupling: as px_solve reports */
	uint64_t exchanges; /* rounds of neighbour messages */
	uint64_t checks;    /* global tests (one tree reduction each) */
	int coupled;        /* some rank has a neighbour */
	double delta;       /* global ||lambda change||_inf of the last round */
	double fc3d, fc3d_abs; /* summed over the ranks' rows */
	double seconds, prepare_seconds; /* this rank's */
	double solve_seconds;    /* of it, inside px_solve (set-up included) */
	double exchange_seconds; /* in the neighbour exchanges (waits too) */
	double check_seconds;    /* in the global tests (waits too) */
	struct px_dist_traffic traffic;  /* this rank's */
	double *history;    /* fc3d after every global test that computed
			       it (rank order agreed): every test under
			       merit = fc3d, else the last one and those
			       whose change passed the tolerances;
			       n_history entries; free() it */
	size_t n_history;
};

/* The collective solve of d (every rank calls it). lambda (d->n_own * bs)
 * holds the warm start and gets the result. cfg's max_sweeps is the total
 * budget; its tolerances are the global stop test's (doc/mpi.md). Returns
 * the agreed status: an error on any rank is every rank's error, with the
 * message of the lowest failing rank in err on every rank. */
int px_dist_solve(struct px_dist_part *d, struct px_config *cfg,
		  const struct px_dist_opts *o, double *lambda,
		  struct px_dist_result *res, struct px_error *err);

/* One rank (MPI_COMM_WORLD of size 1), no coupling: px_dist_solve's
 * solve of d, through the solver *sv kept across calls on d (made at the
 * first; the caller destroys it), px_solver_resume when resume (lambda is
 * where its last solve left it), else px_solver_solve: the world's
 * substeps solve so, and one rank then moves the bodies as the serial
 * world does, bit for bit. */
int px_dist_solve_kept(struct px_dist_part *d, struct px_config *cfg,
		       struct px_solver **sv, int resume, double *lambda,
		       struct px_dist_result *res, struct px_error *err);

/* The global test's fixed-order reduction (reduce.c): fold(acc, next, n)
 * folds into acc, the partial of the lower ranks, next, that of the ranks
 * after them. px_dist_tree_allreduce leaves in every rank's v (n at most
 * PX_DIST_REDUCE_MAX) the fold of all ranks' v over a binomial tree in
 * rank order; px_dist_tree_fold computes the same on one process from
 * all (size rows of n, rank order; the result in its first row). */
enum { PX_DIST_REDUCE_MAX = 16 };
typedef void (*px_dist_fold_fn)(double *acc, const double *next, int n);
void px_dist_tree_allreduce(double *v, int n, px_dist_fold_fn fold);
void px_dist_tree_fold(double *all, int size, int n, px_dist_fold_fn fold);

/* Agree on a status: 0 when rc is 0 on every rank, else the code of the
 * lowest rank that failed, whose message every rank then holds in err. */
int px_dist_agree(int rc, struct px_error *err);

#endif
