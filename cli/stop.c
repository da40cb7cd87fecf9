/* Stopping a command well (issue 30): a signal handler that notes SIGINT
 * or SIGTERM in a flag and gives both their default action back (a second
 * Ctrl-C kills at once), the solves' monitor that returns the flag (the
 * library stops the solve between sweeps; `run` stops after the step),
 * and the progress line a long solve draws on a terminal from the same
 * monitor. The flag is the command's, not the library's: the library has
 * no global state and learns of the signal only through the monitor.
 * And the warning that a config's fc3d stop test measures another law
 * than its friction set's. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <proxima/proxima.h>

#include "cli.h"
#include "stop.h"

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	if (!caught)
		caught = sig;
	/* signal() is async-signal-safe: the next one takes the default */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

void px_cli_stop_arm(struct px_config *cfg, struct px_cli_progress *p)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART; /* the writes of the outputs go on */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	px_config_set_monitor(cfg, px_cli_stop_monitor, p);
}

int px_cli_stop_signal(void)
{
	return caught;
}

void px_cli_stop_raise(int sig)
{
	if (!caught)
		caught = sig;
}

const char *px_cli_signal_name(int sig)
{
	static char buf[32];

	if (sig == SIGINT)
		return "SIGINT";
	if (sig == SIGTERM)
		return "SIGTERM";
	snprintf(buf, sizeof buf, "signal %d", sig);
	return buf;
}

int px_cli_parse_seconds(const char *cmd, const char *v, double *out)
{
	char *end;

	*out = strtod(v, &end);
	if (end == v || *end || !isfinite(*out) || !(*out > 0)) {
		fprintf(stderr, "proxima %s: --time-limit '%s': expected seconds > 0\n",
			cmd, v);
		return -1;
	}
	return 0;
}

int px_cli_stop_status(int status, int stopped)
{
	return stopped && caught ? 128 + caught : status;
}

void px_cli_progress_init(struct px_cli_progress *p,
			  const struct px_config *cfg)
{
	const struct px_solver_settings *s = px_config_settings(cfg);

	*p = (struct px_cli_progress){
		.on = isatty(STDERR_FILENO),
		.max_sweeps = s->max_sweeps,
		.merit = px_cli_merit_name(s->merit),
		.next = 1.0,
	};
}

void px_cli_progress_erase(struct px_cli_progress *p)
{
	if (!p || !p->width)
		return;
	fprintf(stderr, "\r%*s\r", p->width, "");
	p->width = 0;
}

int px_cli_stop_monitor(const struct px_report *so_far, void *user)
{
	struct px_cli_progress *p = user;

	if (p && p->on && so_far->seconds >= p->next) {
		int w = fprintf(stderr,
				"\rsweep %llu/%llu  %s %.3e  delta %.3g  %.1f s",
				(unsigned long long)so_far->sweeps,
				(unsigned long long)p->max_sweeps, p->merit,
				so_far->merit, so_far->residual,
				so_far->seconds);

		/* a shorter line than the last: blank the rest */
		if (w - 1 < p->width)
			fprintf(stderr, "%*s", p->width - (w - 1), "");
		if (w - 1 > p->width)
			p->width = w - 1;
		p->next = so_far->seconds + 0.25;
	}
	return caught != 0;
}

void px_cli_warn_fc3d(const struct px_config *cfg)
{
	if (px_config_settings(cfg)->merit != PX_MERIT_FC3D ||
	    px_config_friction_is_disc(cfg))
		return;
	fprintf(stderr, "proxima: warning: merit = fc3d measures the Coulomb disc law, not this config's %s set: its solutions may keep an fc3d error above abs_tol (the solve then stops as stalled); merit = natural measures the set's own law\n",
		px_plugin_header(px_config_plugin(cfg, PX_KIND_FRICTION))->name);
}
