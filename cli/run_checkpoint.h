/* `proxima run`'s checkpoints (issue 35, doc/checkpoint.md): --checkpoint
 * FILE, --checkpoint-every N and --restart FILE, and the signals that ask
 * for a checkpoint: SIGUSR1 (write one after the current step and go on)
 * and SIGTERM (write one after the current step and stop, status 143).
 * With --checkpoint, SIGTERM no longer cuts the step's solve short (it
 * does without): the checkpoint is of a whole step, which a restart goes
 * on from bit for bit. */
#ifndef PX_CLI_RUN_CHECKPOINT_H
#define PX_CLI_RUN_CHECKPOINT_H

#include <stddef.h>

#include <proxima/proxima.h>

#include "../sim/checkpoint.h"
#include "../sim/world.h"

/* What a run adds up over its steps; a checkpoint keeps it (section TOTS)
 * so that a restarted run reports the whole run. */
struct px_run_totals {
	unsigned long long sweeps, unconverged;
	size_t contacts, contacts_max;
	double max_depth, seconds, solve, collide;
	double energy_start; /* kinetic + potential before step 1 */
};

struct px_run_checkpoint {
	const char *path;	  /* --checkpoint FILE, or NULL */
	unsigned long long every; /* --checkpoint-every N, 0: none */
	const char *restart;	  /* --restart FILE, or NULL */
	struct px_checkpoint_ids ids;
	unsigned long long first; /* the step the run starts after */
	unsigned long long last;  /* the step of the last checkpoint
				     written, 0: none */
};

/* After the options: one line on stderr and -1 when they do not go
 * together (--checkpoint-every without --checkpoint). */
int px_run_checkpoint_check(const struct px_run_checkpoint *k);

/* Before the run, with w as the scene loaded it and cfg, and the
 * settings the run changes (steps, cache) set: take the ids of the scene
 * and of the physics; with --restart, read the file and put its state
 * into w, cfg, *tot and impulse (3 per body: the static bodies' impulses
 * of --state, NULL when not kept), k->first its step; refusals name the
 * file. Nothing is written. */
int px_run_checkpoint_begin(struct px_run_checkpoint *k, const char *scene,
			    struct px_world *w, struct px_config *cfg,
			    struct px_run_totals *tot, double *impulse,
			    struct px_error *err);

/* From now on SIGUSR1 and SIGTERM ask for a checkpoint (after
 * px_cli_stop_arm, whose SIGTERM this replaces); only with --checkpoint. */
void px_run_checkpoint_arm(const struct px_run_checkpoint *k);

/* After step i of n: write the checkpoint when it is due (every N steps,
 * the last step, or a signal asked); after SIGTERM's, the run stops as
 * it does on a signal (px_cli_stop_signal then says SIGTERM). */
int px_run_checkpoint_step(struct px_run_checkpoint *k,
			   const struct px_world *w,
			   const struct px_config *cfg, unsigned long long i,
			   unsigned long long n,
			   const struct px_run_totals *tot,
			   const double *impulse, struct px_error *err);

#endif
