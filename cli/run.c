/* `proxima run`: read a scene (an INI file of scenes/), step its world with a solver
 * config, show progress on a terminal, report what happened as text or
 * JSON (--json), and on request write per-step statistics (CSV), VTK
 * frames (.vtp per frame, .pvd index) and the bodies' final states
 * (exactly: hexadecimal floats). A deadline
 * (--time-limit) or SIGINT/SIGTERM ends the run after the current step
 * (the signal cuts that step's solve short, cli/stop.c); the outputs then
 * hold the steps done. Checkpoints and restarts (--checkpoint, --restart,
 * SIGUSR1, and SIGTERM then) are cli/run_checkpoint.c's. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <proxima/proxima.h>

#include "../io/vtk.h"
#include "../sim/mesh.h"
#include "../sim/scene.h"
#include "../sim/world.h"
#include "../sim/world_problem.h"
#include "cli.h"
#include "config_args.h"
#include "json_report.h"
#include "outfile.h"
#include "run.h"
#include "run_checkpoint.h"
#include "solution.h"
#include "stop.h"

struct run_opts {
	struct px_cli_config config; /* -c and --set, in order */
	const char *scene;
	const char *csv;    /* per-step statistics, or NULL */
	const char *vtk;    /* directory of VTK frames, or NULL */
	const char *state;  /* the bodies' final states, or NULL */
	unsigned long long steps; /* 0: the scene's */
	unsigned long long vtk_every;
	int cache;          /* -1: the scene's, else 0/1 */
	int quiet;
	double time_limit;  /* seconds for the whole run, 0: none */
	int json;           /* the JSON report, not the text */
	struct px_run_checkpoint ckpt; /* --checkpoint, --restart */
};

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Before step i: whether the run stops (enum px_stop: a signal noted, or
 * the deadline passed); else the step's solves get the time left (within
 * the config's own time_limit, own). */
static int run_go_on(const struct run_opts *o, struct px_config *cfg,
		     double t0, double own)
{
	double left;

	if (px_cli_stop_signal())
		return PX_STOP_INTERRUPTED;
	if (!(o->time_limit > 0))
		return PX_STOP_MAX_SWEEPS;
	left = o->time_limit - (wall() - t0);
	if (left <= 0)
		return PX_STOP_TIME_LIMIT;
	px_config_settings_mut(cfg)->time_limit = own > 0 && own < left ? own
									: left;
	return PX_STOP_MAX_SWEEPS;
}

const char *px_run_stepping_name(int stepping)
{
	static const char *const name[] = {"semi-implicit", "moreau"};

	return stepping >= 0 && stepping < 2 ? name[stepping] : "?";
}

const char *px_run_stabilization_name(int stabilization)
{
	static const char *const name[] = {"none", "baumgarte", "post",
					   "soft"};

	return stabilization >= 0 && stabilization < 4 ? name[stabilization]
						       : "?";
}

/* Frame i of the VTK output: DIR/frame_NNNNNN.vtp (the bodies), its name
 * kept for the .pvd index (relative to DIR), and DIR/contacts_NNNNNN.vtp
 * (the contacts of step i and their impulses). */
static int vtk_frame(const char *dir, unsigned long long i,
		     const struct px_world *w, char ***names, double **times,
		     size_t *n, struct px_error *err)
{
	char path[4096], name[64];
	char **nn = realloc(*names, (*n + 1) * sizeof *nn);
	double *nt;

	if (!nn)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	*names = nn;
	nt = realloc(*times, (*n + 1) * sizeof *nt);
	if (!nt)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	*times = nt;
	snprintf(name, sizeof name, "frame_%06llu.vtp", i);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (px_vtk_write_frame(path, px_world_n_bodies(w), px_body_vtk_part,
			       px_world_bodies(w), err))
		return err->code;
	/* the contacts of the step just taken (none before the first) */
	{
		struct px_vtk_contact *c = NULL;
		size_t nc = 0;
		int rc = px_world_vtk_contacts(w, &c, &nc, err);

		snprintf(path, sizeof path, "%s/contacts_%06llu.vtp", dir, i);
		if (!rc)
			rc = px_vtk_write_contacts(path, nc, c, err);
		free(c);
		if (rc)
			return rc;
	}
	nn[*n] = strdup(name);
	if (!nn[*n])
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	nt[*n] = (double)i * px_world_settings(w)->dt;
	(*n)++;
	return PX_OK;
}

/* DIR/contacts.pvd: the contacts_NNNNNN.vtp beside each frame_NNNNNN.vtp
 * of names. */
static int write_contacts_pvd(const char *dir, char **names,
			      const double *times, size_t n,
			      struct px_error *err)
{
	char path[4096], **c = calloc(n + 1, sizeof *c);
	int rc = PX_OK;

	if (!c)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && !rc; i++) {
		/* frame_NNNNNN.vtp: contacts_NNNNNN.vtp */
		c[i] = malloc(strlen(names[i]) + 4);
		if (!c[i])
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory");
		else
			sprintf(c[i], "contacts_%s", names[i] + 6);
	}
	snprintf(path, sizeof path, "%s/contacts.pvd", dir);
	if (!rc)
		rc = px_vtk_write_pvd(path, (const char *const *)c, times, n,
				      err);
	for (size_t i = 0; i < n; i++)
		free(c[i]);
	free(c);
	return rc;
}

/* After a step: add the impulse of each of its contacts with a static
 * body, as the moving body received it, to that static body's impulse[3
 * world index] (what --state writes). */
static int static_impulses(const struct px_world *w, double *impulse,
			   struct px_error *err)
{
	const struct px_body *b = px_world_bodies(w);
	const struct px_contact *c;
	const double *lambda;
	uint32_t bs;
	const size_t n = px_world_contacts(w, &c, &lambda, &bs);
	struct px_contact_rows *rows = malloc((n + 1) * sizeof *rows);
	struct px_dynamics dyn;

	if (!rows)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	if (px_dynamics_build(w, &dyn, err)) {
		free(rows);
		return err->code;
	}
	px_contact_rows_build(w, &dyn, c, n, rows);
	for (size_t k = 0; k < n; k++) {
		/* a static body is always the problem's body b */
		const uint32_t s = b[c[k].a].is_static ? c[k].a : c[k].b;
		double f[3];

		if (!b[s].is_static)
			continue;
		px_contact_rows_impulse(rows + k, lambda + (size_t)bs * k, f);
		for (int q = 0; q < 3; q++)
			impulse[3 * s + q] += f[q];
	}
	px_dynamics_free(&dyn);
	free(rows);
	return PX_OK;
}

/* The bodies' final states to path (px_cli_state_row), renamed into
 * place when whole. */
static int write_state(const char *path, const struct px_world *w,
		       const double *impulse, struct px_error *err)
{
	const struct px_body *b = px_world_bodies(w);
	struct px_outfile o;

	if (px_outfile_open(&o, path, err))
		return err->code;
	px_cli_state_header(o.f);
	for (size_t i = 0; i < px_world_n_bodies(w); i++)
		px_cli_state_row(o.f, i, b + i, impulse + 3 * i);
	return px_outfile_commit(&o, err);
}

/* Before the run: the scene and the config. */
static void print_head(const struct run_opts *o, const struct px_world *w,
		       const struct px_config *cfg)
{
	const struct px_world_settings *s = px_world_settings(w);

	printf("scene       %s: %zu bodies, dt %g s, %llu steps, %s, stabilization %s, contact cache %s",
	       o->scene, px_world_n_bodies(w), s->dt, (unsigned long long)s->steps,
	       px_run_stepping_name(s->stepping),
	       px_run_stabilization_name(s->stabilization),
	       s->warm_start ? "on" : "off");
	if (s->substeps > 1)
		printf(", %u substeps", s->substeps);
	if (s->stabilization == PX_STAB_SOFT)
		printf(", %g Hz, damping ratio %g", s->contact_hertz,
		       s->contact_damping_ratio);
	putchar('\n');
	px_cli_print_config(stdout, cfg);
}

const char *const px_run_stage_names[PX_SIM_N_STAGES] = {
	"broad phase", "narrow phase", "contact cache", "problem",
	"solve", "integration", "post-stabilization",
};
const char *const px_run_stage_keys[PX_SIM_N_STAGES] = {
	"broad_phase", "narrow_phase", "contact_cache", "problem",
	"solve", "integration", "post_stabilization",
};

/* The time line's second line: each stage's seconds and its ns per
 * contact and step (post-stabilization only where it ran). */
static void print_stages(const struct px_run_result *r)
{
	printf("           ");
	for (int k = 0; k < PX_SIM_N_STAGES; k++) {
		if (k == PX_SIM_STAGE_POST && r->settings.stabilization != PX_STAB_POST)
			continue;
		printf("%s %s %.3f s", k ? "," : "", px_run_stage_names[k],
		       r->stage_seconds[k]);
		if (r->stage_contacts > 0)
			printf(" (%.0f ns per contact)",
			       1e9 * r->stage_seconds[k] / r->stage_contacts);
	}
	putchar('\n');
}

/* After the run: why it stopped early, its totals and outputs. */
static void print_result(const struct px_run_result *r)
{
	if (r->stopped == PX_STOP_INTERRUPTED)
		printf("result      interrupted after %llu of %llu steps (%s)\n",
		       r->steps_done, (unsigned long long)r->settings.steps,
		       px_cli_signal_name(px_cli_stop_signal()));
	else if (r->stopped == PX_STOP_TIME_LIMIT)
		printf("result      time limit (%g s) reached after %llu of %llu steps\n",
		       r->time_limit, r->steps_done,
		       (unsigned long long)r->settings.steps);
	printf("contacts    %.1f per step on average, at most %zu; deepest penetration %.3g m\n",
	       r->contacts_per_step, r->contacts_max, r->max_depth);
	printf("solves      %llu sweeps in all, %.1f per step; %llu of %llu steps stopped without converging\n",
	       r->sweeps,
	       r->steps_done ? (double)r->sweeps / (double)r->steps_done : 0.0,
	       r->unconverged, r->steps_done);
	printf("energy      %.6g J at the start, %.6g J at the end (kinetic + potential)\n",
	       r->energy_start, r->energy_end);
	printf("time        %.3f s (collision %.3f s, solve %.3f s)\n",
	       r->seconds, r->collide_seconds, r->solve_seconds);
	print_stages(r);
	if (r->csv)
		printf("statistics  %s\n", r->csv);
	if (r->vtk)
		printf("frames      %zu in %s, index %s, contacts %s/contacts.pvd\n",
		       r->frames, r->vtk, r->pvd, r->vtk);
	if (r->state)
		printf("state       %s\n", r->state);
}

static int simulate(const struct run_opts *o)
{
	struct px_world_settings *s;
	struct px_world *w = NULL;
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	struct px_step_stats st;
	struct px_outfile csv = {.fd = -1}; /* published after its header */
	char **names = NULL, path[4096];
	double *impulse = NULL; /* --state, --checkpoint: 3 per body */
	double *times = NULL, e1, t0 = wall();
	struct px_run_totals tot = {0};
	double stage_s[PX_SIM_N_STAGES] = {0}, stage_contacts = 0;
	struct px_run_checkpoint ck = o->ckpt;
	size_t n_frames = 0;
	unsigned long long done = 0;
	const int tty = !o->quiet && isatty(STDERR_FILENO);
	int status = EXIT_BAD_INPUT, stop = PX_STOP_MAX_SWEEPS;
	double own;

	if (px_cli_config_build(NULL, &o->config, &cfg, &err) ||
	    px_cli_refuse_problem(o->scene, &err) ||
	    px_scene_load(o->scene, &w, &err))
		goto fail;
	own = px_config_settings(cfg)->time_limit;
	s = px_world_settings_mut(w);
	if (o->steps)
		s->steps = o->steps;
	if (o->cache >= 0)
		s->warm_start = o->cache;
	if (o->state || o->ckpt.path) {
		impulse = calloc(3 * px_world_n_bodies(w) + 1, sizeof *impulse);
		if (!impulse) {
			px_error_set(&err, PX_ERR_NOMEM, "out of memory");
			goto fail;
		}
	}
	/* before any output is opened: a refused restart writes nothing */
	tot.energy_start = px_world_kinetic_energy(w) +
			   px_world_potential_energy(w);
	if (px_run_checkpoint_begin(&ck, o->scene, w, cfg, &tot, impulse,
				    &err))
		goto fail;
	done = ck.first;
	if (o->state) {
		/* refuse an unwritable path before the run, leaving the
		 * file there as it is */
		struct px_outfile f;

		if (px_outfile_open(&f, o->state, &err))
			goto fail;
		px_outfile_abort(&f);
	}
	if (o->csv) {
		if (px_outfile_open(&csv, o->csv, &err))
			goto fail;
		px_step_stats_csv_header(csv.f, 1);
		if (px_outfile_publish(&csv, &err))
			goto fail;
	}
	if (o->vtk) {
		if (mkdir(o->vtk, 0777) && errno != EEXIST) {
			px_error_set(&err, PX_ERR_IO, "%s: cannot create: %s",
				     o->vtk, strerror(errno));
			goto fail;
		}
		if (vtk_frame(o->vtk, done, w, &names, &times, &n_frames,
			      &err))
			goto fail;
	}
	/* from here a signal ends the run after its step: the header's
	 * lines, flushed before the first step, say that it is armed */
	px_cli_stop_arm(cfg, NULL);
	px_run_checkpoint_arm(&ck);
	if (!o->json)
		print_head(o, w, cfg);
	if (!o->json && ck.first)
		printf("restart     %s: after step %llu\n", ck.restart, ck.first);
	px_cli_warn_fc3d(cfg);
	fflush(stdout);
	for (unsigned long long i = done + 1; i <= s->steps; i++) {
		stop = run_go_on(o, cfg, t0, own);
		if (stop != PX_STOP_MAX_SWEEPS)
			break;
		if (px_world_step(w, cfg, &st, &err)) {
			fprintf(stderr, "%sproxima: %s: step %llu: %s\n",
				tty ? "\n" : "", o->scene, i, err.msg);
			if (err.code == PX_ERR_DIVERGED)
				status = EXIT_NOT_CONVERGED;
			goto done;
		}
		if (impulse && static_impulses(w, impulse, &err))
			goto fail;
		done = i;
		tot.sweeps += st.sweeps;
		tot.unconverged += !st.converged;
		tot.contacts += st.contacts;
		if (st.contacts > tot.contacts_max)
			tot.contacts_max = st.contacts;
		if (st.max_depth > tot.max_depth)
			tot.max_depth = st.max_depth;
		tot.seconds += st.seconds_total;
		tot.solve += st.seconds_solve;
		tot.collide += st.seconds_collide;
		px_step_stats_stages_add(&st, stage_s);
		stage_contacts += (double)st.contacts;
		if (csv.f) {
			px_step_stats_csv_row(csv.f, &st, 1);
			if (px_outfile_row(&csv, &err))
				goto fail;
		}
		if (o->vtk && i % o->vtk_every == 0 &&
		    vtk_frame(o->vtk, i, w, &names, &times, &n_frames, &err))
			goto fail;
		if (tty && (i == s->steps || i % 10 == 0))
			fprintf(stderr, "\rstep %llu/%llu  contacts %zu  sweeps %llu  %.1f s",
				i, (unsigned long long)s->steps, st.contacts,
				(unsigned long long)st.sweeps, tot.seconds);
		/* a step the deadline passed in may have had its solves cut
		 * short: not one to go on from */
		if (!(o->time_limit > 0 && wall() - t0 >= o->time_limit) &&
		    px_run_checkpoint_step(&ck, w, cfg, i, s->steps, &tot,
					   impulse, &err))
			goto fail;
	}
	if (tty)
		fputc('\n', stderr);
	/* a signal during the last step: the step is done, the run too */
	if (stop == PX_STOP_MAX_SWEEPS && px_cli_stop_signal())
		stop = PX_STOP_INTERRUPTED;
	if (o->vtk) {
		snprintf(path, sizeof path, "%s/frames.pvd", o->vtk);
		if (px_vtk_write_pvd(path, (const char *const *)names, times,
				      n_frames, &err) ||
		    write_contacts_pvd(o->vtk, names, times, n_frames, &err))
			goto fail;
	}
	if (o->state && write_state(o->state, w, impulse, &err))
		goto fail;
	e1 = px_world_kinetic_energy(w) + px_world_potential_energy(w);
	status = stop == PX_STOP_INTERRUPTED ? px_cli_stop_status(0, 1)
		 : stop == PX_STOP_TIME_LIMIT ? EXIT_NOT_CONVERGED
					       : EXIT_CONVERGED;
	{
		struct px_run_result r = {
			.scene = o->scene, .cfg = cfg, .settings = *s,
			.bodies = px_world_n_bodies(w),
			.stopped = stop == PX_STOP_MAX_SWEEPS ? 0 : stop,
			.time_limit = o->time_limit, .steps_done = done,
			.contacts_per_step = done ? (double)tot.contacts / (double)done : 0.0,
			.contacts_max = tot.contacts_max,
			.max_depth = tot.max_depth, .sweeps = tot.sweeps,
			.unconverged = tot.unconverged,
			.energy_start = tot.energy_start, .energy_end = e1,
			.seconds = tot.seconds, .collide_seconds = tot.collide,
			.solve_seconds = tot.solve, .csv = o->csv, .vtk = o->vtk,
			.state = o->state, .pvd = path, .frames = n_frames,
			.status = status, .stage_contacts = stage_contacts};

		memcpy(r.stage_seconds, stage_s, sizeof r.stage_seconds);

		if (!o->json) {
			print_result(&r);
			if (ck.last)
				printf("checkpoint  %s: after step %llu\n",
				       ck.path, ck.last);
		} else if (px_json_print(px_json_run(&r)))
			status = EXIT_BAD_INPUT;
	}
	goto done;
fail:
	fprintf(stderr, "proxima: %s\n", err.msg);
done:
	if (csv.f && px_outfile_commit(&csv, &err) &&
	    status != EXIT_BAD_INPUT) {
		fprintf(stderr, "proxima: %s\n", err.msg);
		status = EXIT_BAD_INPUT;
	}
	for (size_t i = 0; i < n_frames; i++)
		free(names[i]);
	free(names);
	free(times);
	free(impulse);
	px_world_destroy(w);
	px_config_free(cfg);
	return status;
}

static int parse_count(const char *opt, const char *v,
		       unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 10);
	if (errno || end == v || *end || *out == 0 || *v == '-') {
		fprintf(stderr, "proxima run: %s '%s': expected a positive integer\n",
			opt, v);
		return -1;
	}
	return 0;
}

static void run_usage(FILE *f)
{
	fprintf(f, "Usage: proxima run [-c CONFIG ...] [--set SECTION.KEY=VALUE ...] [SCENE]\n"
		   "                   [--steps N] [--csv FILE.csv]\n"
		   "                   [--vtk DIR] [--vtk-every K] [--cache on|off]\n"
		   "                   [--state FILE.csv] [--quiet] [--time-limit S] [--json]\n"
		   "                   [--checkpoint FILE [--checkpoint-every N]] [--restart FILE]\n"
		   "  --time-limit S    stop after the step during which S seconds pass\n"
		   "                    (each step's solves get what is left)\n"
		   "  --state FILE.csv  the bodies' final states, every number exactly\n"
		   "                    (hexadecimal floats, %%a): body, mass, centre,\n"
		   "                    orientation, velocities, static bodies' impulse\n"
		   "  --json            the report as one JSON object (proxima-run/1)\n"
		   "  --checkpoint FILE write the run's state to FILE after the last step,\n"
		   "                    every N steps (--checkpoint-every N), on SIGUSR1\n"
		   "                    (and go on) and on SIGTERM (and stop, status 143)\n"
		   "  --restart FILE    go on from a checkpoint of this scene and config,\n"
		   "                    bit for bit as the run that wrote it would have\n");
}

/* The bundled default scene. */
static void default_scene(struct run_opts *o, char *scene, size_t len)
{
	o->scene = px_cli_default_scene(scene, len);
}

/* Read the options into o: 0, 1 after --help, or EXIT_BAD_INPUT + 1 after
 * a bad one (said on stderr). */
static int parse(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"set", required_argument, NULL, 'X'},
		{"steps", required_argument, NULL, 'n'},
		{"csv", required_argument, NULL, 'C'},
		{"vtk", required_argument, NULL, 'v'},
		{"vtk-every", required_argument, NULL, 'e'},
		{"cache", required_argument, NULL, 'w'},
		{"state", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"time-limit", required_argument, NULL, 'T'},
		{"json", no_argument, NULL, 'j'},
		{"checkpoint", required_argument, NULL, 'K'},
		{"checkpoint-every", required_argument, NULL, 'E'},
		{"restart", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const int bad = EXIT_BAD_INPUT + 1;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:n:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
		case 'X':
			if (px_cli_config_add(&o->config,
					      c == 'c' ? PX_LAYER_FILE
						       : PX_LAYER_SET,
					      optarg))
				return bad;
			break;
		case 'n':
			if (parse_count("--steps", optarg, &o->steps))
				return bad;
			break;
		case 'C': o->csv = optarg; break;
		case 'v': o->vtk = optarg; break;
		case 'e':
			if (parse_count("--vtk-every", optarg, &o->vtk_every))
				return bad;
			break;
		case 'w':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, "proxima run: --cache '%s': expected on or off\n",
					optarg);
				return bad;
			}
			o->cache = strcmp(optarg, "on") == 0;
			break;
		case 's': o->state = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'j': o->json = 1; break;
		case 'T':
			if (px_cli_parse_seconds("run", optarg, &o->time_limit))
				return bad;
			break;
		case 'K': o->ckpt.path = optarg; break;
		case 'E':
			if (parse_count("--checkpoint-every", optarg,
					&o->ckpt.every))
				return bad;
			break;
		case 'R': o->ckpt.restart = optarg; break;
		case 'h': run_usage(stdout); return 1;
		default:
			fprintf(stderr, "proxima run: bad option '%s' (try 'proxima run --help')\n",
				argv[optind - 1]);
			return bad;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "proxima run: expected at most one SCENE file, got %d\n",
			argc - optind);
		return bad;
	}
	if (px_run_checkpoint_check(&o->ckpt))
		return bad;
	return 0;
}

int px_cli_run(int argc, char **argv)
{
	struct run_opts o = {.vtk_every = 1, .cache = -1};
	char scene[4096];
	int st = parse(argc, argv, &o);

	if (st == 0) {
		default_scene(&o, scene, sizeof scene);
		if (optind < argc)
			o.scene = argv[optind];
		st = simulate(&o);
	} else {
		st = st == 1 ? EXIT_CONVERGED : EXIT_BAD_INPUT;
	}
	px_cli_config_free(&o.config);
	return st;
}

int px_cli_default(void)
{
	struct run_opts o = {.vtk_every = 1, .cache = -1};
	char scene[4096];

	/* the compiled defaults are conf/default.ini's settings */
	default_scene(&o, scene, sizeof scene);
	printf("proxima: default job: running the default scene with the default config\n");
	return simulate(&o);
}
