/* `proxima compare`, shared by its files: the options, the configs being
 * compared and the scripts to draw at the end.
 *
 *   compare.c        options, labels, configs, dispatch, drawing
 *   compare_solve.c  one problem solved by every config: histories, the
 *                    tolerance table, the convergence plot (a problem
 *                    file, or a scene's step with --at)
 *   compare_scene.c  scenes: --at (one driven run, chosen steps) and
 *                    --whole (one run per config: distributions over the
 *                    steps, energies)
 *   compare_json.c   the JSON report (--json): the same results, one
 *                    proxima-compare/1 object on stdout instead of the
 *                    text */
#ifndef PX_CLI_COMPARE_H
#define PX_CLI_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include <proxima/proxima.h>

#include "config_args.h"

#define PX_CMP_MAX_CONFIGS 32
#define PX_CMP_MAX_TOLS 16
#define PX_CMP_LABEL_MAX 64

struct px_cmp_config {
	const char *path;
	char label[PX_CMP_LABEL_MAX]; /* names DIR/LABEL.csv and the plots'
					 lines */
	struct px_config *cfg;
};

struct px_cmp {
	struct px_cmp_config c[PX_CMP_MAX_CONFIGS];
	size_t n;
	const char *target;
	const char *out;              /* DIR */
	double tol[PX_CMP_MAX_TOLS];  /* --tol, in the order given */
	size_t n_tol;
	unsigned long long steps;     /* --steps; 0: the scene's */
	unsigned long long *at;       /* --at, ascending, no repeats */
	size_t n_at;
	int whole;
	const char *drive;            /* --drive; NULL: the first -c */
	int no_plot;
	struct px_cli_config base;    /* --base: layers under every config */
	struct px_cli_config sets;    /* --set: keys over every config */
	char **scripts;               /* .gp files written, to draw */
	size_t n_scripts;
	/* --json: the report being built (NULL: the text report, on
	 * stdout), and the object of it that a problem's rows go in (the
	 * report, or --at's step) */
	struct json_object *json, *json_here;
};

/* One config's solve of one problem (compare_solve.c). */
struct px_cmp_result {
	struct px_report rep;
	double fc3d;
	uint64_t reach[PX_CMP_MAX_TOLS]; /* sweep, 0: never */
	double reach_s[PX_CMP_MAX_TOLS];
};

/* One config's run of a scene (--whole, compare_scene.c); the quartiles
 * (min, q1, median, q3, max) are over the solves, NaN when none. */
struct px_cmp_run {
	unsigned long long steps, solves, converged, hit_limit, diverged,
		sweeps;
	double solve_seconds;
	double *sweeps_of, *merit_of, *fc3d_of; /* per solve */
	double q_sweeps[5], q_merit[5], q_fc3d[5];
	char csv[4096];                         /* DIR/LABEL-steps.csv */
};

/* The config of path (a -c or --drive): the --base layers, path, then
 * the --set keys. */
int px_cmp_config_build(const struct px_cmp *c, const char *path,
			struct px_config **cfg, struct px_error *err);

/* Solve p from warm (NULL: zero) with every config; write DIR/LABEL.csv
 * (the history, as `proxima solve --history`), dir/table.md and
 * dir/convergence.gp; print the table. what names the problem in the
 * output. *unconverged counts configs that did not converge. */
int px_cmp_problem(struct px_cmp *c, const char *dir, const char *what,
		   const struct px_problem *p, const double *warm,
		   size_t *unconverged, struct px_error *err);

/* A scene: --at's steps of one driven run, each compared as a problem; or
 * --whole. *unconverged as above (--at; --whole leaves it alone). */
int px_cmp_at(struct px_cmp *c, size_t *unconverged, struct px_error *err);
int px_cmp_whole(struct px_cmp *c, struct px_error *err);

/* Note a script to draw at the end (copied). */
int px_cmp_add_script(struct px_cmp *c, const char *path,
		      struct px_error *err);

/* mkdir -p dir. */
int px_cmp_mkdir(const char *dir, struct px_error *err);

/* dir/name into buf, or an error naming it when it does not fit. */
int px_cmp_path(char *buf, size_t len, const char *dir, const char *name,
		struct px_error *err);

/* The file name of path, without its directories (the plots' titles). */
const char *px_cmp_basename(const char *path);

/* The y label of a merit (enum px_merit): "fc3d error", ... */
const char *px_cmp_merit_label(int merit);

/* Config i's merit; 1 when the configs stop on different merits; 1 when
 * one of them has an accelerator. */
int px_cmp_merit_of(const struct px_cmp *c, size_t i);
int px_cmp_mixed_merits(const struct px_cmp *c);
int px_cmp_any_accelerator(const struct px_cmp *c);

/* The tolerances as more items of a gnuplot plot command: ", TOL with
 * lines ls 100.. title 'tolerance TOL'", one per distinct abs_tol of the
 * configs whose merit is merit (-1: any) and not delta (delta's tolerance
 * is not on the merit drawn); with mixed merits the title names it. */
void px_cmp_plot_tolerances(FILE *f, const struct px_cmp *c, int merit);

/* One line per config naming its plugins and stop test (text only). */
void px_cmp_describe(const struct px_cmp *c);

/* The JSON report (compare_json.c). begin: the report's head (schema,
 * target, mode, DIR, configs) into c->json; each of the others adds its
 * part; end prints it (and releases it): 0, or -1 when it cannot. */
int px_cmp_json_begin(struct px_cmp *c, const char *mode);
void px_cmp_json_problem(struct px_cmp *c, const char *what,
			 const struct px_problem *p);
void px_cmp_json_rows(struct px_cmp *c, const struct px_cmp_result *res,
		      const char *dir);
void px_cmp_json_scene(struct px_cmp *c, size_t bodies, double dt,
		       unsigned long long steps, const char *drive);
/* --at: a step compared (contacts > 0) or skipped; the step's rows then
 * go in its object, with the files of its problem ("" when not saved:
 * JSON null) and warm start. */
void px_cmp_json_step(struct px_cmp *c, unsigned long long step,
		      const struct px_problem *p, double warm_fc3d,
		      const struct px_report *drive, const char *dir,
		      const char *problem, const char *warm);
void px_cmp_json_runs(struct px_cmp *c, const struct px_cmp_run *runs);
/* A script drawn (drawn 1): its PDF (when pdf), PNG and SVG. */
void px_cmp_json_plots(struct px_cmp *c, const char *script, int drawn,
		       int pdf);
int px_cmp_json_end(struct px_cmp *c, int status);

#endif
