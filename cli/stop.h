/* Stopping a command well (issue 30): SIGINT and SIGTERM during `solve`
 * and `run`, and the progress line of a long solve. */
#ifndef PX_CLI_STOP_H
#define PX_CLI_STOP_H

#include <stdint.h>

struct px_config;
struct px_report;

/* From now on SIGINT and SIGTERM only note the signal (the first one;
 * the default action comes back for both, so a second Ctrl-C kills at
 * once), and cfg's solves run px_cli_stop_monitor with p (NULL: no
 * progress line): they stop between sweeps, status interrupted. */
struct px_cli_progress;
void px_cli_stop_arm(struct px_config *cfg, struct px_cli_progress *p);

/* The signal noted since px_cli_stop_arm (SIGINT, SIGTERM), or 0. */
int px_cli_stop_signal(void);

/* Note sig as if it had been caught now (unless one was): the run stops
 * before its next step (cli/run_checkpoint.c, after SIGTERM's
 * checkpoint). */
void px_cli_stop_raise(int sig);

/* "SIGINT", "SIGTERM" or "signal N" (a static buffer for the last). */
const char *px_cli_signal_name(int sig);

/* --time-limit's value v for `proxima CMD`: seconds > 0, finite, into
 * *out; else -1 with one line on stderr. */
int px_cli_parse_seconds(const char *cmd, const char *v, double *out);

/* The exit status of a command that would exit with status: 128 + the
 * signal when one stopped it (stopped non-zero), else status. */
int px_cli_stop_status(int status, int stopped);

/* The progress line of a solve on a terminal (stderr a tty): drawn from
 * the monitor once the solve has run for a second, four times a second. */
struct px_cli_progress {
	int on;              /* stderr is a terminal: draw */
	uint64_t max_sweeps; /* of the solve */
	const char *merit;   /* the stop test's name */
	double next;         /* the solve's seconds when to draw next */
	int width;           /* of the line on screen (0: none) */
};

/* p for a solve of cfg's settings; p->on when stderr is a terminal. */
void px_cli_progress_init(struct px_cli_progress *p,
			  const struct px_config *cfg);

/* Erase the line drawn, if any, before the report is printed. */
void px_cli_progress_erase(struct px_cli_progress *p);

/* px_monitor_fn: draws user's progress line (a struct px_cli_progress,
 * or NULL), returns whether a signal was noted. */
int px_cli_stop_monitor(const struct px_report *so_far, void *user);

/* merit = fc3d with a friction set other than the disc: one warning line
 * on stderr saying what fc3d measures (px_config_friction_is_disc). */
void px_cli_warn_fc3d(const struct px_config *cfg);

#endif
