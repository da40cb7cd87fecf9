/* `proxima run` (cli/run.c): what a run did, as its text report and its
 * JSON report (json_report.c, --json) print it. */
#ifndef PX_CLI_RUN_H
#define PX_CLI_RUN_H

#include <stddef.h>

#include <proxima/proxima.h>

#include "../sim/world.h"

/* The stages of a step are proxima/sim.h's (enum px_sim_stage); their
 * names in the report ("broad phase", ...) and in --json
 * ("broad_phase", ...): */
extern const char *const px_run_stage_names[PX_SIM_N_STAGES];
extern const char *const px_run_stage_keys[PX_SIM_N_STAGES];

struct px_run_result {
	const char *scene;   /* its path */
	const struct px_config *cfg;
	struct px_world_settings settings; /* as run (--steps, --cache) */
	size_t bodies;
	int stopped;         /* 0: every step ran; else why not (enum px_stop:
				PX_STOP_INTERRUPTED, PX_STOP_TIME_LIMIT) */
	double time_limit;   /* --time-limit (s), 0: none */
	unsigned long long steps_done;
	double contacts_per_step; /* mean over the steps */
	size_t contacts_max;
	double max_depth;         /* deepest penetration (m) */
	unsigned long long sweeps, unconverged; /* steps that did not converge */
	double energy_start, energy_end; /* kinetic + potential (J) */
	double seconds, collide_seconds, solve_seconds;
	/* by stage, over the steps this process ran (a restarted run's
	 * since its restart), and their contacts (summed over the steps) */
	double stage_seconds[PX_SIM_N_STAGES];
	double stage_contacts;
	const char *csv, *vtk, *state; /* outputs, NULL when not asked for */
	const char *pvd;     /* the frames' index (with vtk) */
	size_t frames;
	int status;          /* exit status (128 + a signal that stopped it) */
};

/* "semi-implicit" or "moreau"; "none", "baumgarte", "post" or "soft". */
const char *px_run_stepping_name(int stepping);
const char *px_run_stabilization_name(int stabilization);

#endif
