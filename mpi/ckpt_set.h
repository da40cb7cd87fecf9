/* Checkpoint sets of a distributed run (issue 35, doc/checkpoint.md's
 * "On MPI ranks"): `mpirun -np P proxima run SCENE --checkpoint FILE`.
 *
 * A set is P rank files and a manifest. Rank r writes its part in the
 * serial checkpoint format (sim/checkpoint.h): its world (own bodies,
 * ghost layer, statics, contact cache, step, its config's plugin states)
 * and a DRNK section (the bodies' global ids and owners, the impulses of
 * its contacts on the static bodies, its counters), to FILE.A.rankR or
 * FILE.B.rankR. When every rank has written and fsynced its file, rank 0
 * writes the manifest FILE (the same format: a DSET section with the rank
 * count, the step, the slot and the set id; a DFIL section with each rank
 * file's size and CRC-32) by a temporary name and a rename: the set is
 * complete when the manifest names it. The sets alternate between the two
 * slots, so a run killed while writing one leaves the manifest naming the
 * other, whole. A restart needs the manifest, every rank file it names
 * (size and CRC-32 as named) and as many ranks as the set has. */
#ifndef PX_DIST_CKPT_SET_H
#define PX_DIST_CKPT_SET_H

#include "checkpoint.h"
#include "step.h"

/* A run's checkpoints: where, and the last complete set's slot. */
struct px_dist_ckpt {
	const char *path;        /* the manifest; NULL: no checkpoints */
	struct px_checkpoint_ids ids;
	char config_name[512];   /* ids.config_name's text */
	char slot;               /* 'A' or 'B' of the last complete set, 0 */
	uint64_t last;           /* the step of the last set written, 0 */
	int seen_usr1, seen_term; /* the signals counted so far */
};

/* ids for dw's world as the scene made it (before any step), whose names
 * are scene and cfg's source with dw's distributed options: the config
 * hash holds those options too (they change the steps). */
int px_dist_ckpt_ids(struct px_dist_ckpt *k, const struct px_dist_world *dw,
		     const char *scene, struct px_error *err);

/* Collective: write a set of dw after its step `step` to k->path's other
 * slot; run (rank 0's, NULL elsewhere) is added to rank 0's file as its
 * DRUN section. The agreed status; on success k->slot and k->last are
 * the new set's. */
int px_dist_ckpt_write(struct px_dist_ckpt *k, const struct px_dist_world *dw,
		       uint64_t step, const struct px_ckpt_buf *run,
		       struct px_error *err);

/* Collective: dw (made from the same scene, with the ids of k) takes the
 * state of the set whose manifest is path, taken after step *step; rank
 * 0's checkpoint, for its DRUN section, in *run (NULL on the other ranks;
 * the caller destroys it). k->slot becomes the set's when k->path is
 * path. The agreed status: refusals are one line naming the file (exit
 * status 2). */
int px_dist_ckpt_restart(struct px_dist_ckpt *k, struct px_dist_world *dw,
			 const char *path, struct px_checkpoint **run,
			 uint64_t *step, struct px_error *err);

/* From now on SIGUSR1 and SIGTERM are counted on this rank, not fatal. */
void px_dist_ckpt_catch(void);

/* Collective, after each step: what the signals any rank caught since
 * the last call ask, or-ed (PX_DIST_CKPT_NOW: write a set, for SIGUSR1;
 * PX_DIST_CKPT_STOP too, for SIGTERM: and stop), so that every rank
 * writes the same step's. */
enum { PX_DIST_CKPT_NOW = 1, PX_DIST_CKPT_STOP = 2 };
int px_dist_ckpt_signals(struct px_dist_ckpt *k);

#endif
