/* `proxima solve`, shared by its files: the options, and one problem
 * file's solve as both reports print it.
 *
 *   solve.c        options, one file's solve, the text report
 *   solve_list.c   several problems (files and folders): one row each and
 *                  a summary
 *   json_report.c  the JSON reports (--json) */
#ifndef PX_CLI_SOLVE_H
#define PX_CLI_SOLVE_H

#include <proxima/proxima.h>

#include "config_args.h"
#include "stop.h"

/* What `proxima solve` was asked for besides the problems. */
struct px_solve_opts {
	struct px_cli_config config; /* -c and --set, in order */
	const char *history;    /* per-sweep CSV, or NULL */
	const char *out;        /* the solution (.txt, .csv, .npy), or NULL */
	const char *save_fclib; /* problem and solution as FCLib, or NULL */
	enum px_fclib_r start;  /* warm start from the file, or zero */
	double time_limit;      /* seconds (--time-limit), 0: the config's */
	int json;               /* --json: the JSON report, not the text */
	/* the progress line of each solve (px_cli_stop_arm's), or NULL */
	struct px_cli_progress *progress;
};

/* One problem file's solve: filled by px_solve_file, read by the text and
 * the JSON report. */
struct px_solve_result {
	const char *path;
	const struct px_solve_opts *opts;
	const struct px_config *cfg;
	int read;          /* the problem was read: the next three hold */
	size_t contacts;
	unsigned rows;     /* per contact */
	int assembled;     /* the form of A: assembled, else factorized */
	int solved;        /* px_solve ran: rep and what follows hold */
	struct px_report rep;
	double fc3d, fc3d_F; /* Siconos's fc3d error and its ||F|| */
	char scheduler[1024];   /* the scheduler's describe line, or "" */
	char accelerator[1024]; /* the accelerator's, or "" */
	int status;        /* exit status: EXIT_CONVERGED ... EXIT_BAD_INPUT,
			      128 + a signal that stopped it */
	char error[PX_ERROR_MSG_MAX]; /* why status is 2 (or the solution was
					 not written), or "" */
};

/* Solve path with cfg as opts says into *r (zeroed first; free with
 * px_solve_result_free). on_read, when not NULL, is called once the problem
 * is read, before the solve (the text report's head). Writes --history,
 * --out and --save-fclib (what was reached, after a stop too). Returns
 * r->status. */
int px_solve_file(const char *path, const struct px_config *cfg,
		  const struct px_solve_opts *opts,
		  void (*on_read)(const struct px_solve_result *r),
		  struct px_solve_result *r);
void px_solve_result_free(struct px_solve_result *r);

/* What several problems came to (solve_list.c). */
struct px_solve_summary {
	size_t problems;  /* solved, or failed */
	size_t converged, not_converged, errors;
	size_t not_run;   /* not started: a signal stopped the command */
	double solve_seconds; /* the solves' time added up */
	double seconds;       /* the command's, reading included */
	int status;           /* the worst exit status */
};

/* Several problems: each argument a file or a folder (its .dat, .hdf5 and
 * .h5 files, sorted, not its subfolders); one row per file and a summary
 * (text) or one JSON object. Returns the worst exit status. */
int px_solve_list(char **args, int n, const struct px_config *cfg,
		  const struct px_solve_opts *opts);

/* "zero", "guess" or "solution". */
const char *px_solve_start_name(enum px_fclib_r start);

#endif
