/* `proxima run`'s checkpoints: the ids a restart compares, the restart,
 * the signals that ask for a checkpoint and the writing after a step. The
 * file is sim/checkpoint.c's and the world's sections world_checkpoint.c's;
 * this adds TOTS: the run's totals and the static bodies' impulses that
 * --state writes (doc/checkpoint.md). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_checkpoint.h"
#include "stop.h"

static volatile sig_atomic_t want_usr1, want_term;

static void on_usr1(int sig)
{
	(void)sig;
	want_usr1 = 1;
}

static void on_term(int sig)
{
	(void)sig;
	want_term = 1;
	/* as stop.c: a second SIGTERM kills at once (the checkpoint being
	 * written goes to a temporary name: the last one stays whole) */
	signal(SIGTERM, SIG_DFL);
}

int px_run_checkpoint_check(const struct px_run_checkpoint *k)
{
	if (k->every && !k->path) {
		fprintf(stderr, "proxima run: --checkpoint-every needs "
				"--checkpoint FILE\n");
		return -1;
	}
	return 0;
}

static int read_run(const struct px_checkpoint *c, const char *path,
		    size_t n_bodies, struct px_run_totals *tot, double *impulse,
		    struct px_error *err)
{
	size_t len;
	const unsigned char *p =
	    px_checkpoint_find(c, "TOTS", NULL, NULL, &len);
	struct px_ckpt_cursor cur = {.p = p, .len = len};
	uint64_t n;

	if (!p)
		return px_error_set(
		    err, PX_ERR_FORMAT,
		    "%s: not a checkpoint of proxima run (no TOTS section)",
		    path);
	tot->sweeps = px_ckpt_get_u64(&cur);
	tot->unconverged = px_ckpt_get_u64(&cur);
	tot->contacts = (size_t)px_ckpt_get_u64(&cur);
	tot->contacts_max = (size_t)px_ckpt_get_u64(&cur);
	tot->max_depth = px_ckpt_get_f64(&cur);
	tot->seconds = px_ckpt_get_f64(&cur);
	tot->solve = px_ckpt_get_f64(&cur);
	tot->collide = px_ckpt_get_f64(&cur);
	tot->energy_start = px_ckpt_get_f64(&cur);
	n = px_ckpt_get_u64(&cur);
	if (cur.failed || n != 3 * (uint64_t)n_bodies || len - cur.at != 8 * n)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: not a valid checkpoint: a TOTS "
				    "section of the wrong length",
				    path);
	for (uint64_t i = 0; i < n; i++) {
		const double f = px_ckpt_get_f64(&cur);

		if (impulse)
			impulse[i] = f;
	}
	return PX_OK;
}

int px_run_checkpoint_begin(struct px_run_checkpoint *k, const char *scene,
			    struct px_world *w, struct px_config *cfg,
			    struct px_run_totals *tot, double *impulse,
			    struct px_error *err)
{
	struct px_checkpoint *c = NULL;
	const uint64_t steps = px_world_settings(w)->steps;
	int rc;

	k->ids.scene = px_world_scene_hash(w);
	k->ids.scene_name = scene;
	k->ids.config_name = px_config_source(cfg);
	k->ids.settings = px_world_settings_hash(w);
	if ((rc = px_checkpoint_config_hash(cfg, &k->ids.config, err)))
		return rc;
	if (!k->restart)
		return PX_OK;
	if ((rc = px_checkpoint_read(k->restart, &c, err)))
		return rc;
	if (px_checkpoint_find(c, "DSET", NULL, NULL, NULL)) { /* mpi/ckpt_set.h */
		px_checkpoint_destroy(c);
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: the manifest of a distributed run's checkpoint set: restart it under mpirun, on as many ranks",
				    k->restart);
	}
	/* the world first: another scene or physics is said as such */
	rc = px_world_checkpoint_load(w, cfg, &k->ids, c, k->restart, err);
	if (!rc)
		rc = read_run(c, k->restart, px_world_n_bodies(w), tot, impulse,
			      err);
	if (!rc && px_checkpoint_step(c) >= steps)
		rc = px_error_set(err, PX_ERR_INVALID,
				  "%s: checkpoint after step %llu, and the run "
				  "ends at step %llu (--steps N to go on)",
				  k->restart,
				  (unsigned long long)px_checkpoint_step(c),
				  (unsigned long long)steps);
	if (!rc)
		k->first = px_checkpoint_step(c);
	px_checkpoint_destroy(c);
	return rc;
}

void px_run_checkpoint_arm(const struct px_run_checkpoint *k)
{
	struct sigaction sa;

	if (!k->path)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
}

static int add_run(struct px_checkpoint *c, size_t n_bodies,
		   const struct px_run_totals *tot, const double *impulse,
		   struct px_error *err)
{
	struct px_ckpt_buf b = {0};
	const size_t n = impulse ? 3 * n_bodies : 0;
	int rc;

	px_ckpt_put_u64(&b, tot->sweeps);
	px_ckpt_put_u64(&b, tot->unconverged);
	px_ckpt_put_u64(&b, tot->contacts);
	px_ckpt_put_u64(&b, tot->contacts_max);
	px_ckpt_put_f64(&b, tot->max_depth);
	px_ckpt_put_f64(&b, tot->seconds);
	px_ckpt_put_f64(&b, tot->solve);
	px_ckpt_put_f64(&b, tot->collide);
	px_ckpt_put_f64(&b, tot->energy_start);
	px_ckpt_put_u64(&b, n);
	for (size_t i = 0; i < n; i++)
		px_ckpt_put_f64(&b, impulse[i]);
	rc = b.failed ? px_error_set(err, PX_ERR_NOMEM, "out of memory")
		      : px_checkpoint_add(c, "TOTS", 1, 0, b.p, b.len, err);
	px_ckpt_buf_free(&b);
	return rc;
}

int px_run_checkpoint_step(struct px_run_checkpoint *k,
			   const struct px_world *w,
			   const struct px_config *cfg, unsigned long long i,
			   unsigned long long n,
			   const struct px_run_totals *tot,
			   const double *impulse, struct px_error *err)
{
	const int term = want_term;
	struct px_checkpoint *c = NULL;
	int rc;

	/* a SIGINT cut the step's solve short: not a step to go on from */
	if (!k->path || px_cli_stop_signal())
		return PX_OK;
	if (!term && !want_usr1 && i != n && !(k->every && i % k->every == 0))
		return PX_OK;
	want_usr1 = 0;
	rc = px_checkpoint_create(&c, err);
	if (!rc)
		rc = px_world_checkpoint_save(w, cfg, &k->ids, c, err);
	if (!rc)
		rc = add_run(c, px_world_n_bodies(w), tot, impulse, err);
	if (!rc)
		rc = px_checkpoint_write(c, k->path, err);
	px_checkpoint_destroy(c);
	if (rc)
		return rc;
	k->last = i;
	if (term)
		px_cli_stop_raise(SIGTERM);
	return PX_OK;
}
