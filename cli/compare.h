/* `proxima compare`, shared by its files: the options, the configs being
 * compared and the scripts to draw at the end.
 *
 *   compare.c        options, labels, configs, dispatch, drawing
 *   compare_solve.c  one problem solved by every config: histories, the
 *                    tolerance table, the convergence plot (a problem
 *                    file, or a scene's step with --at)
 *   compare_scene.c  scenes: --at (one driven run, chosen steps) and
 *                    --whole (one run per config: distributions over the
 *                    steps, energies) */
#ifndef PX_CLI_COMPARE_H
#define PX_CLI_COMPARE_H

#include <stddef.h>

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

/* One line per config naming its plugins and stop test. */
void px_cmp_describe(const struct px_cmp *c);

#endif
