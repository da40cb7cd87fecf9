/* Solver configuration from an INI file (doc/design.md, section 6), read with
 * inih.
 *
 *   [solver]     max_sweeps, abs_tol, rel_tol, merit, natural_r,
 *                max_backtracks, check_tol, kernel, check, local_solve,
 *                local_tol, local_max_iter, local_forcing, time_limit,
 *                stall_sweeps, stall_rel
 *   [friction]   plugin = NAME and that plugin's declared keys
 *   [ordering]   ditto
 *   [rfactor]    ditto
 *   [scheduler]  ditto
 *   [accelerator] ditto, optional: absent or `plugin = none` means no
 *                accelerator (px_config_plugin gives NULL)
 *
 * Absent sections take the defaults below. An unknown section or key, a
 * value of the wrong type or out of range, a missing plugin or a missing file
 * is an error naming the file, section and key. */
#ifndef PROXIMA_CONFIG_H
#define PROXIMA_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxima/error.h>
#include <proxima/loader.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define PX_DEFAULT_FRICTION "disc"
#define PX_DEFAULT_ORDERING "identity"
#define PX_DEFAULT_RFACTOR "local"
#define PX_DEFAULT_SCHEDULER "sequential"
#define PX_ACCELERATOR_NONE "none" /* no accelerator: not a plugin */
#define PX_DEFAULT_ACCELERATOR PX_ACCELERATOR_NONE
/* conf/default.ini states these, and a test keeps the two equal */
#define PX_DEFAULT_MAX_SWEEPS 1000000
#define PX_DEFAULT_ABS_TOL 5e-9
#define PX_DEFAULT_REL_TOL 1e-12
#define PX_DEFAULT_MERIT "fc3d"
#define PX_DEFAULT_CHECK_TOL 1e-9
#define PX_DEFAULT_NATURAL_R 1
#define PX_DEFAULT_MAX_BACKTRACKS 100
#define PX_DEFAULT_TIME_LIMIT 0
#define PX_DEFAULT_STALL_SWEEPS 10
#define PX_DEFAULT_STALL_REL 1e-14

enum px_merit {
	PX_MERIT_DELTA = 0, /* ||lambda_{k+1} - lambda_k||_inf */
	PX_MERIT_FC3D = 1,  /* Siconos's fc3d error, see px_merit_fc3d */
	PX_MERIT_NATURAL = 2, /* 1/2 ||lambda - prox(lambda - r_c v)||^2,
				 Poulsen 2010, eq. 3.32 */
	PX_MERIT_MINMAP = 3,  /* 1/2 H^T H of the box model, Poulsen et al.
				 2010, eq. 22-23 */
};

/* [solver] kernel: which relax kernel the driver uses. */
enum px_kernel_choice {
	PX_KERNEL_AUTO = 0,    /* the rigid 3-row kernel where it applies */
	PX_KERNEL_GENERIC = 1, /* always the general kernel (for comparisons) */
	PX_KERNEL_WIDE = 2,    /* the rigid 3-row update in SIMD lanes, one
				  per independent list (issue 34), where it
				  applies; else as auto */
};

/* [solver] local_solve: what one visit of a contact does. */
enum px_local_solve {
	PX_LOCAL_PROJECTION = 0, /* one projection with the r-factors */
	PX_LOCAL_NEWTON = 1,     /* its one-contact problem solved to
				    local_tol (Alart-Curnier Newton on the
				    diagonal block; disc friction only) */
};

struct px_solver_settings {
	uint64_t max_sweeps; /* sweeps, rejected ones included */
	double abs_tol;      /* stop when the merit <= abs_tol ...          */
	double rel_tol;      /* ... or (delta) delta <= rel_tol ||lambda||_inf */
	int merit;           /* enum px_merit */
	double natural_r;    /* r_c of the natural merit */
	uint64_t max_backtracks; /* rejected sweeps allowed per solve; then R
				    stays and every sweep is accepted */
	double check_tol;    /* a stop test other than fc3d is a success only
				if the relative natural residual (unit r) is
				at most check_tol, see px_solve */
	int kernel;          /* enum px_kernel_choice */
	int check;           /* check the friction plugin's projections
				(core/check.h): a fault is an error naming it */
	/* issue 20: how a visit solves its contact (enum px_local_solve) */
	int local_solve;
	double local_tol;        /* newton: relative residual of a visit */
	uint64_t local_max_iter; /* newton: steps per visit */
	/* issue 30: stops other than the stop test and max_sweeps (solver.h,
	 * enum px_stop) */
	double time_limit;     /* seconds of wall time a solve may take,
				  checked between sweeps and by an
				  accelerator between its inner steps;
				  0: no limit */
	uint64_t stall_sweeps; /* stop as stalled after this many accepted
				  sweeps in a row, none of them passing the
				  stop test, whose delta is at most
				  stall_rel ||lambda||_inf; 0: never */
	double stall_rel;      /* that floor, relative to ||lambda||_inf (0:
				  only sweeps that change nothing count) */
	/* issue 33: a visit (newton) also stops once its residual is at
	 * most local_forcing times its change to the impulse; 0: never */
	double local_forcing;
};

struct px_config;

/* One layer of a config (px_config_build). */
enum px_config_layer_kind {
	PX_LAYER_FILE = 0, /* text: a path or an installed config's name */
	PX_LAYER_TEXT = 1, /* text: INI text; name: its name in messages */
	PX_LAYER_SET = 2,  /* text: one key, SECTION.KEY=VALUE */
};

struct px_config_layer {
	int kind;         /* enum px_config_layer_kind */
	const char *text;
	const char *name; /* PX_LAYER_TEXT: NULL for "(text)" */
};

/* Build a config from layers over the compiled defaults, in order: a key
 * of a later layer replaces the same key of the earlier ones; a later
 * layer naming another plugin for a section drops the earlier layers' keys
 * of that section (they were the other plugin's), while a section without
 * a plugin key sets keys of the plugin in effect. Within one layer a key
 * set twice is an error. Then load the plugins. n = 0: the defaults. */
int px_config_build(const struct px_config_layer *layers, size_t n,
		    struct px_config **out, struct px_error *err);

/* px_config_build of one file layer (path NULL: the defaults). */
int px_config_read(const char *path, struct px_config **out,
		   struct px_error *err);

/* The file of a config's name: a path as it is when it has a '/', ends in
 * .ini or names an existing file; else an installed config, NAME.ini in
 * $PROXIMA_DATA_DIR/conf or the installed data folder's conf. Writes the
 * path into path[len]; a name found nowhere is an error listing the
 * installed configs. */
int px_config_find(const char *name, char *path, size_t len,
		   struct px_error *err);

/* Where the config came from: its layers' names joined by " + " (files by
 * path, "--set K=V"), or "(defaults)". */
const char *px_config_source(const struct px_config *c);

/* The parameters in effect of a section (0: [solver], else enum px_kind):
 * returns how many it has (0 for no accelerator), points *decl to their
 * declarations and copies the first min(n, cap) values into values. */
size_t px_config_params(const struct px_config *c, unsigned section,
			const struct px_param_decl **decl,
			union px_value *values, size_t cap);

/* The config in effect as INI text that px_config_read reads back to the
 * same config: every section, its plugin and every parameter. 0 or -1. */
int px_config_write(const struct px_config *c, FILE *f);
void px_config_free(struct px_config *cfg);

const struct px_solver_settings *px_config_settings(const struct px_config *c);
struct px_solver_settings *px_config_settings_mut(struct px_config *c);
/* The declared keys of [solver], for documentation and `proxima plugins`. */
const struct px_param_decl *px_config_solver_params(size_t *n);
/* The documentation of [solver] (text as `proxima plugins --describe
 * solver` prints it; the plugins' own is px_plugin_doc). */
const char *px_config_solver_doc(void);

/* Put pl (from px_plugin_load or px_plugin_wrap) into cfg's section of
 * its kind, in place of the plugin there, which is unloaded: cfg owns pl
 * from then on, and px_config_source gains " + KIND in-process:NAME" for
 * an in-process one (px_config_write writes it so that reading the text
 * back fails clearly, see PX_IN_PROCESS). Not while a solver made from cfg
 * exists: it keeps using the plugin it was made with. Returns 0, or an
 * error (pl untouched, the caller keeps it). */
int px_config_set_plugin(struct px_config *cfg, struct px_plugin *pl,
			 struct px_error *err);

/* The plugin instance of a kind (enum px_kind); NULL for
 * PX_KIND_ACCELERATOR when the config has none. */
const struct px_plugin *px_config_plugin(const struct px_config *c,
					 unsigned kind);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
