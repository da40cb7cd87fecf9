/* `mpirun -np P proxima run [-c CONFIG] [SCENE] [--steps N] [--csv FILE]
 * [--state FILE] [--cache on|off] [--vtk DIR [--vtk-every K]]`:
 * each rank generates only its region of the scene (recursive coordinate
 * bisection, region.c) and a ghost layer around it, and the ranks step
 * the world together (step.h): each step's own contacts solved
 * distributed, the bodies moved by their owners, the ghost layers
 * refreshed and bodies migrated. The report: the bodies per rank, the
 * last step's partition, sharing and solve, then the run's contacts,
 * sweeps, migrations, traffic, energy and the momentum check (the bodies'
 * total momentum change against gravity's impulse and what the static
 * contacts applied); --csv writes rank 0's per-step statistics summed
 * over the ranks, as `proxima run --csv` does, then the per-rank load
 * (the most own contacts of a rank, and over the mean), --state the
 * bodies' final states gathered on rank 0, as `proxima run --state`
 * does, and --vtk the serial run's frames, gathered on rank 0
 * (vtk_frames.c). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli/solution.h"
#include "ckpt_set.h"
#include "cmd.h"
#include "outfile.h"
#include "rigid.h"
#include "scene.h"
#include "step.h"
#include "vtk_frames.h"

/* Per rank and step, gathered in rank order. */
enum { G_CONTACTS, G_SWEEPS, G_CONV, G_JX, G_JY, G_JZ, G_KIN, G_POT, G_PX,
       G_PY, G_PZ, G_DEPTH, G_WARM, G_MASS, G_OWN, G_GHOST, G_CUT, G_K1,
       G_K2, G_K3, G_K4, G_N };

/* The run's totals, on rank 0. */
struct totals {
	double sum[G_N], most[G_N]; /* of the last gather */
	double p0[3], e0, mass;
	double impulse[3];          /* the static contacts', all steps */
	double contacts, max_contacts, depth, sweeps;
	unsigned long long unconverged;
};

static void gather(const struct px_dist_world *dw, double *all,
		   struct totals *t)
{
	double mine[G_N] = {0}, e[2];
	const struct px_body *b = px_world_bodies(dw->w);
	const struct px_dist_part *d = &dw->d;

	mine[G_CONTACTS] = (double)d->n_own;
	mine[G_SWEEPS] = (double)dw->sweeps;
	mine[G_CONV] = dw->converged;
	memcpy(mine + G_JX, dw->static_impulse, 3 * sizeof *mine);
	px_dist_world_sums(dw, mine + G_PX, e);
	mine[G_KIN] = e[0];
	mine[G_POT] = e[1];
	mine[G_DEPTH] = dw->max_depth;
	mine[G_WARM] = (double)dw->warm;
	for (size_t i = 0; i < px_world_n_bodies(dw->w); i++) {
		mine[G_MASS] += dw->reg->owner[i] == dw->rank ? b[i].mass : 0;
		mine[G_OWN] += dw->reg->owner[i] == dw->rank;
		mine[G_GHOST] += dw->reg->owner[i] >= 0 && dw->reg->owner[i] != dw->rank;
	}
	mine[G_CUT] = (double)d->n_cut;
	/* own shared bodies by the number of ranks with contacts on them */
	for (size_t i = 0; i < d->n_bodies; i++)
		if (d->shared[i] && d->body_owner[i] == dw->rank)
			mine[G_K1 + (d->copies[i] < 4 ? d->copies[i] - 1 : 3)]++;
	MPI_Gather(mine, G_N, MPI_DOUBLE, all, G_N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (dw->rank != 0)
		return;
	memset(t->sum, 0, sizeof t->sum);
	memset(t->most, 0, sizeof t->most);
	t->sum[G_CONV] = 1;
	for (int r = 0; r < dw->size; r++)
		for (int i = 0; i < G_N; i++) {
			const double v = all[(size_t)r * G_N + i];

			if (i == G_CONV)
				t->sum[i] = fmin(t->sum[i], v);
			else
				t->sum[i] += v;
			t->most[i] = fmax(t->most[i], v);
		}
}

/* The per-rank load of the last gather: the most own contacts of a rank
 * and its ratio to the mean over the ranks (1: even; 1 too when no rank
 * has a contact). */
static double load_imbalance(const struct totals *t, int size)
{
	const double mean = t->sum[G_CONTACTS] / size;

	return mean > 0 ? t->most[G_CONTACTS] / mean : 1.0;
}

/* fn's CSV text (one line) less its newline, then more, into f. */
static void csv_line(FILE *f, const struct px_step_stats *st, const char *more)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m) {
		if (st)
			px_step_stats_csv_row(m, st, 0);
		else
			px_step_stats_csv_header(m, 0);
		fclose(m);
	}
	if (text && len && text[len - 1] == '\n')
		text[len - 1] = 0;
	fprintf(f, "%s,%s\n", text ? text : "", more);
	free(text);
}

/* After step k (rank 0): the run's totals and the CSV row, flushed (a
 * failed write: the CSV cut back to its last whole row, err). The
 * serial run's columns, then the per-rank load: the most own contacts of
 * a rank (contacts_rank_max) and its ratio to the mean
 * (load_imbalance), and with --rebalance-every the re-partitions so far
 * (rebalances). */
static int tally(struct totals *t, unsigned long long k, double dt,
		 const struct px_dist_world *dw, double seconds,
		 struct px_outfile *csv, struct px_error *err)
{
	const struct px_step_stats st = {
		.step = k,
		.time = (double)k * dt,
		.contacts = (size_t)t->sum[G_CONTACTS],
		.cache_hits = (size_t)t->sum[G_WARM],
		.sweeps = (uint64_t)t->most[G_SWEEPS],
		.merit = dw->res.fc3d,
		.converged = t->sum[G_CONV] != 0,
		.seconds_solve = dw->solve_seconds,
		.seconds_total = seconds,
		.kinetic = t->sum[G_KIN],
		.potential = t->sum[G_POT],
		.max_depth = t->most[G_DEPTH],
	};

	for (int q = 0; q < 3; q++)
		t->impulse[q] += t->sum[G_JX + q];
	t->contacts += t->sum[G_CONTACTS];
	t->max_contacts = fmax(t->max_contacts, t->sum[G_CONTACTS]);
	t->depth = fmax(t->depth, t->most[G_DEPTH]);
	t->sweeps += t->most[G_SWEEPS];
	t->unconverged += t->sum[G_CONV] == 0;
	if (!csv->f)
		return PX_OK;
	{
		char more[64];

		snprintf(more, sizeof more, "%.0f,%.6f", t->most[G_CONTACTS],
			 load_imbalance(t, dw->size));
		if (dw->o.rebalance_every) /* the re-partitions so far */
			snprintf(more + strlen(more), sizeof more - strlen(more),
				 ",%llu", (unsigned long long)dw->rebalances);
		csv_line(csv->f, &st, more);
	}
	return px_outfile_row(csv, err);
}

/* The scene, the partition and the sharing at the last step. */
static void report_head(const struct px_dist_args *a, const struct totals *t,
			const struct px_world_settings *s,
			unsigned long long steps, int size, const double *start,
			uint64_t rebalances)
{
	const double *k = t->sum + G_K1;

	printf("scene       %s: %llu steps of %g s, contact cache %s; bodies per rank at the start (own + ghost layer):",
	       a->target, steps, s->dt, s->warm_start ? "on" : "off");
	for (int r = 0; r < size; r++)
		printf(" %.0f+%.0f", start[(size_t)r * G_N + G_OWN],
		       start[(size_t)r * G_N + G_GHOST]);
	if (rebalances)
		printf("\npartition   recursive coordinate bisection of the centres, cut anew from the current centres %llu time%s: cut %.0f contacts (between bodies of different ranks) at the last step",
		       (unsigned long long)rebalances, rebalances == 1 ? "" : "s",
		       t->sum[G_CUT]);
	else
		printf("\npartition   recursive coordinate bisection of the centres, kept for the run: cut %.0f contacts (between bodies of different ranks) at the last step",
		       t->sum[G_CUT]);
	printf("; own contacts per rank at the last step: most %.0f, %.3f times the mean (load imbalance)",
	       t->most[G_CONTACTS], load_imbalance(t, size));
	printf("\nshared      %.0f bodies have copies on other ranks at the last step; ranks with contacts on them: 1: %.0f, 2: %.0f, 3: %.0f, 4 or more: %.0f\n",
	       k[0] + k[1] + k[2] + k[3], k[0], k[1], k[2], k[3]);
	printf("last step   step %llu's distributed solve, down to the fc3d error:\n", steps);
}

/* The run: contacts, sweeps, energy, the momentum check. */
static void report_run(const struct totals *t, const struct px_world_settings *s,
		       unsigned long long steps, double seconds)
{
	double diff = 0, scale = 0, change[3], expect[3], gravity[3];

	printf("run         own contacts %.1f per step on average (all ranks), at most %.0f; deepest penetration %.3g m; %.0f sweeps in all, %.1f per step; %llu of %llu steps stopped without converging\n",
	       t->contacts / (double)steps, t->max_contacts, t->depth, t->sweeps,
	       t->sweeps / (double)steps, t->unconverged, steps);
	printf("energy      %.6g J at the start, %.6g J at the end (kinetic + potential)\n",
	       t->e0, t->sum[G_KIN] + t->sum[G_POT]);
	for (int q = 0; q < 3; q++) {
		change[q] = t->sum[G_PX + q] - t->p0[q];
		gravity[q] = t->mass * s->gravity[q] * s->dt * (double)steps;
		expect[q] = t->impulse[q] + gravity[q];
		diff = fmax(diff, fabs(change[q] - expect[q]));
		scale = fmax(scale, fmax(fabs(t->impulse[q]), fabs(gravity[q])));
	}
	printf("momentum    bodies' change (%.9g, %.9g, %.9g) N s, static contacts' impulse (%.9g, %.9g, %.9g) N s, gravity's (%.9g, %.9g, %.9g) N s: difference %.3g (relative %.3g)\n",
	       change[0], change[1], change[2], t->impulse[0], t->impulse[1],
	       t->impulse[2], gravity[0], gravity[1], gravity[2], diff,
	       scale > 0 ? diff / scale : diff);
	printf("wall time   %.3f s for the run (rank 0)\n", seconds);
}

/* The run's migrations, re-partitions and its traffic outside the
 * solves (collective). */
static void report_moves(const struct px_dist_world *dw, unsigned long long steps)
{
	double mine[4] = {(double)dw->migrated, (double)dw->traffic.messages,
			  (double)dw->traffic.bytes, (double)dw->rebalance_moved},
	       sum[4];

	MPI_Reduce(mine, sum, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (dw->rank == 0)
		printf("migration   %.0f bodies changed rank; copies, cut impulses and ghost refresh%s: %.1f messages, %.0f bytes per step (all ranks)\n",
		       sum[0], dw->o.rebalance_every ? ", re-partitions" : "",
		       sum[1] / (double)steps, sum[2] / (double)steps);
	if (dw->rank == 0 && dw->o.rebalance_every)
		printf("rebalance   every %llu steps when the load imbalance is %g or more: %llu re-partitions (the bodies and cache entries gathered on every rank), %.0f bodies changed rank by them\n",
		       (unsigned long long)dw->o.rebalance_every,
		       dw->o.rebalance_threshold,
		       (unsigned long long)dw->rebalances, sum[3]);
}

/* DRUN, rank 0's part of a checkpoint set: the run's totals, then the
 * bodies per rank at its start (own, ghost layer), so that a restart
 * reports the whole run. */
static void totals_put(const struct totals *t, const double *start, int size,
		       struct px_ckpt_buf *b)
{
	const double v[] = {t->p0[0], t->p0[1], t->p0[2], t->e0, t->mass,
			    t->impulse[0], t->impulse[1], t->impulse[2],
			    t->contacts, t->max_contacts, t->depth, t->sweeps};

	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		px_ckpt_put_f64(b, v[i]);
	px_ckpt_put_u64(b, t->unconverged);
	for (int r = 0; r < size; r++) {
		px_ckpt_put_f64(b, start[(size_t)r * G_N + G_OWN]);
		px_ckpt_put_f64(b, start[(size_t)r * G_N + G_GHOST]);
	}
}

static int totals_get(const struct px_checkpoint *c, const char *path,
		      struct totals *t, double *start, int size,
		      struct px_error *err)
{
	size_t len;
	const unsigned char *p = px_checkpoint_find(c, "DRUN", NULL, NULL, &len);
	struct px_ckpt_cursor cur = {.p = p, .len = len};
	double *v[] = {&t->p0[0], &t->p0[1], &t->p0[2], &t->e0, &t->mass,
		       &t->impulse[0], &t->impulse[1], &t->impulse[2],
		       &t->contacts, &t->max_contacts, &t->depth, &t->sweeps};

	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		*v[i] = px_ckpt_get_f64(&cur);
	t->unconverged = px_ckpt_get_u64(&cur);
	for (int r = 0; r < size; r++) {
		start[(size_t)r * G_N + G_OWN] = px_ckpt_get_f64(&cur);
		start[(size_t)r * G_N + G_GHOST] = px_ckpt_get_f64(&cur);
	}
	if (!p || cur.failed || cur.at != len)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: not a valid checkpoint set: rank 0's file has no DRUN section of the run's totals",
				    path);
	return PX_OK;
}

/* --restart (collective): dw, rank 0's totals and start from the set
 * (*saved keeps rank 0's file), *done its step; the agreed status. */
static int restart(struct px_dist_ckpt *ck, const struct px_dist_args *a,
		   struct px_dist_world *dw, struct totals *t, double *start,
		   unsigned long long steps, unsigned long long *done,
		   struct px_checkpoint **saved, struct px_error *err)
{
	uint64_t at = 0;
	int rc = px_dist_ckpt_restart(ck, dw, a->restart, saved, &at, err);

	if (!rc && dw->rank == 0)
		rc = totals_get(*saved, a->restart, t, start, dw->size, err);
	if (!rc && at >= steps)
		rc = px_error_set(err, PX_ERR_INVALID,
				  "%s: checkpoint set after step %llu, and the run ends at step %llu (--steps N to go on)",
				  a->restart, (unsigned long long)at, steps);
	*done = at;
	return px_dist_agree(rc, err);
}

/* After step k of n, with --checkpoint (collective): a set when one is
 * due (every N steps, the last step) or a signal asks for one; *stop
 * when SIGTERM asked to stop. */
static int checkpoint(struct px_dist_ckpt *ck, const struct px_dist_args *a,
		      const struct px_dist_world *dw, const struct totals *t,
		      const double *start, unsigned long long k,
		      unsigned long long n, int *stop, struct px_error *err)
{
	const int sig = px_dist_ckpt_signals(ck);
	struct px_ckpt_buf run = {0};
	int rc;

	*stop = (sig & PX_DIST_CKPT_STOP) != 0;
	if (!sig && k != n &&
	    !(a->checkpoint_every && k % a->checkpoint_every == 0))
		return PX_OK;
	if (dw->rank == 0)
		totals_put(t, start, dw->size, &run);
	rc = px_dist_ckpt_write(ck, dw, k, dw->rank == 0 ? &run : NULL, err);
	px_ckpt_buf_free(&run);
	return rc;
}

/* A body of the final state: its index in the scene and itself. */
struct state_rec {
	uint64_t gid;
	struct px_body b;
};

static int cmp_rec(const void *x, const void *y)
{
	const uint64_t a = ((const struct state_rec *)x)->gid;
	const uint64_t b = ((const struct state_rec *)y)->gid;

	return (a > b) - (a < b);
}

/* --state (collective): every rank sends its own bodies and its static
 * bodies' impulses to rank 0, which writes them in the scene's order (the
 * static bodies from its own world, their impulses summed in rank order);
 * the agreed status. */
static int write_state(const struct px_dist_world *dw, FILE *f,
		       struct px_error *err)
{
	const struct px_body *b = px_world_bodies(dw->w);
	const size_t n = px_world_n_bodies(dw->w), ns = dw->n_static;
	struct state_rec *mine = malloc((n + 1) * sizeof *mine), *all = NULL;
	double *j = NULL, *jsum = NULL;
	int *count = NULL, *displ = NULL, bytes = 0, rc = PX_OK;
	size_t m = 0, total = 0;

	for (size_t i = 0; mine && i < n; i++)
		if (dw->reg->owner[i] == dw->rank)
			mine[m++] = (struct state_rec){dw->reg->gid[i], b[i]};
	if (dw->rank == 0) {
		count = malloc((size_t)dw->size * sizeof *count);
		displ = malloc((size_t)dw->size * sizeof *displ);
		j = malloc((3 * ns * (size_t)dw->size + 1) * sizeof *j);
		jsum = calloc(3 * ns + 1, sizeof *jsum);
	}
	if (!mine || (dw->rank == 0 && (!count || !displ || !j || !jsum)))
		rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the state");
	if ((rc = px_dist_agree(rc, err)))
		goto done;
	bytes = (int)(m * sizeof *mine);
	MPI_Gather(&bytes, 1, MPI_INT, count, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (dw->rank == 0) {
		for (int r = 0; r < dw->size; r++) {
			displ[r] = (int)(total * sizeof *all);
			total += (size_t)count[r] / sizeof *all;
		}
		all = malloc((total + ns + 1) * sizeof *all);
		if (!all)
			rc = px_error_set(err, PX_ERR_NOMEM, "out of memory for the state");
	}
	if ((rc = px_dist_agree(rc, err)))
		goto done;
	MPI_Gatherv(mine, bytes, MPI_BYTE, all, count, displ, MPI_BYTE, 0,
		    MPI_COMM_WORLD);
	MPI_Gather(dw->static_j, (int)(3 * ns), MPI_DOUBLE, j, (int)(3 * ns),
		   MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (dw->rank == 0) {
		static const double none[3];

		for (int r = 0; r < dw->size; r++)
			for (size_t i = 0; i < 3 * ns; i++)
				jsum[i] += j[(size_t)r * 3 * ns + i];
		for (size_t i = 0; i < n; i++)
			if (dw->reg->owner[i] < 0)
				all[total++] = (struct state_rec){dw->reg->gid[i], b[i]};
		qsort(all, total, sizeof *all, cmp_rec);
		px_cli_state_header(f);
		for (size_t i = 0, k = 0; i < total; i++)
			px_cli_state_row(f, all[i].gid, &all[i].b,
					 all[i].b.is_static ? jsum + 3 * k++ : none);
	}
done:
	free(mine);
	free(all);
	free(count);
	free(displ);
	free(j);
	free(jsum);
	return rc;
}

int px_dist_cmd_run(int argc, char **argv)
{
	struct px_dist_args a;
	struct px_error err = {0};
	struct px_config *cfg = NULL;
	struct px_world_settings s;
	struct px_body *bodies = NULL;
	struct px_region reg = {0};
	struct px_dist_world dw = {0};
	struct totals t = {0};
	struct px_dist_ckpt ck = {0};
	struct px_checkpoint *saved = NULL;
	double *all = NULL, *start = NULL, t0;
	unsigned long long steps = 0, done = 0, first = 0; /* steps done */
	struct px_outfile csv = {.fd = -1}, state = {.fd = -1};
	struct px_dist_vtk frames = {0};
	int stop = 0;
	size_t n = 0;
	int rank, size, rc, status = EXIT_BAD_INPUT;

	rc = px_dist_begin(argc, argv, 0, &a, &cfg, &rank, &size, &err);
	if (!rc && a.help) {
		if (rank == 0)
			px_dist_usage(stdout);
		status = EXIT_CONVERGED;
		goto done;
	}
	if (!rc)
		rc = px_region_read(a.target, rank, size, &s, &bodies, &n, &reg, &err);
	if (!rc && a.cache >= 0)
		s.warm_start = a.cache; /* --cache, as serially */
	if (!rc && reg.n_dynamic < (size_t)size)
		rc = px_error_set(&err, PX_ERR_INVALID, "%s: -np %d is more ranks than its %zu moving bodies",
				  a.target, size, reg.n_dynamic);
	if (!rc && (rc = px_dist_world_create(&dw, &reg, &s, bodies, n, cfg,
					      &a.o, &err)))
		px_dist_prefix(&err, a.target);
	if (!rc && rank == 0) {
		all = malloc((size_t)size * G_N * sizeof *all);
		start = malloc((size_t)size * G_N * sizeof *start);
		if (!all || !start)
			rc = px_error_set(&err, PX_ERR_NOMEM, "out of memory");
	}
	if (!rc && (a.checkpoint || a.restart)) {
		ck.path = a.checkpoint;
		rc = px_dist_ckpt_ids(&ck, &dw, a.target, &err);
	}
	if (px_dist_agree(rc, &err))
		goto fail;
	steps = a.steps ? a.steps : s.steps;
	/* before any output is opened: a refused restart writes nothing */
	if (a.restart && (rc = restart(&ck, &a, &dw, &t, start, steps, &done,
				       &saved, &err)))
		goto fail;
	first = done;
	/* refuse an unwritable --state before the run, leaving the file
	 * there as it is; the CSV in place after its header */
	if (!rc && rank == 0 && a.state &&
	    !(rc = px_outfile_open(&state, a.state, &err)))
		px_outfile_abort(&state);
	if (!rc && rank == 0 && a.csv &&
	    !(rc = px_outfile_open(&csv, a.csv, &err))) {
		csv_line(csv.f, NULL, a.o.rebalance_every
			 ? "contacts_rank_max,load_imbalance,rebalances"
			 : "contacts_rank_max,load_imbalance");
		rc = px_outfile_publish(&csv, &err);
	}
	if (px_dist_agree(rc, &err))
		goto fail;
	if (!a.restart) {
		gather(&dw, start, &t);
		if (rank == 0) {
			memcpy(t.p0, t.sum + G_PX, sizeof t.p0);
			t.e0 = t.sum[G_KIN] + t.sum[G_POT];
			t.mass = t.sum[G_MASS];
		}
	}
	/* the frames: the start's (or the restart's), then every K steps */
	if (a.vtk && (px_dist_vtk_begin(a.vtk, rank, &err) ||
		      px_dist_vtk_frame(&dw, a.vtk, done, &frames, &err)))
		goto fail;
	if (a.checkpoint)
		px_dist_ckpt_catch();
	t0 = MPI_Wtime();
	while (done < steps && !stop) {
		const unsigned long long k = done + 1;
		const double ts = MPI_Wtime();

		dw.vtk_want = a.vtk && k % a.vtk_every == 0;
		dw.rebalance_due = a.o.rebalance_every &&
				   k % a.o.rebalance_every == 0;
		rc = px_dist_world_step(&dw, &err);
		if (rc) {
			char at[64];

			snprintf(at, sizeof at, "step %llu", k);
			px_dist_prefix(&err, at);
			px_dist_prefix(&err, a.target);
			goto fail;
		}
		gather(&dw, all, &t);
		if (rank == 0)
			rc = tally(&t, k, s.dt, &dw, MPI_Wtime() - ts, &csv,
				   &err);
		if (a.csv && px_dist_agree(rc, &err))
			goto fail;
		if (dw.vtk_want && px_dist_vtk_frame(&dw, a.vtk, k, &frames, &err)) {
			char at[64];

			snprintf(at, sizeof at, "step %llu's frame", k);
			px_dist_prefix(&err, at);
			goto fail;
		}
		done = k;
		if (a.checkpoint &&
		    checkpoint(&ck, &a, &dw, &t, start, k, steps, &stop, &err)) {
			char at[64];

			snprintf(at, sizeof at, "checkpoint after step %llu", k);
			px_dist_prefix(&err, at);
			goto fail;
		}
	}
	t0 = MPI_Wtime() - t0;
	if (a.vtk && px_dist_vtk_end(a.vtk, rank, &frames, &err))
		goto fail;
	if (a.state) {
		rc = rank == 0 ? px_outfile_open(&state, a.state, &err) : PX_OK;
		if (px_dist_agree(rc, &err) ||
		    write_state(&dw, state.f, &err))
			goto fail;
		rc = rank == 0 ? px_outfile_commit(&state, &err) : PX_OK;
		if (px_dist_agree(rc, &err))
			goto fail;
	}
	if (rank == 0)
		report_head(&a, &t, &s, done, size, start, dw.rebalances);
	px_dist_report(&dw.d, &a.o, &dw.res, "copies of shared bodies (owners' included)", cfg);
	if (rank == 0) {
		printf("fc3d error  %.3e (||F|| = %.3e; Siconos fc3d_compute_error summed over the ranks)\n",
		       dw.res.fc3d, dw.res.fc3d_abs);
		report_run(&t, &s, done, t0);
	}
	report_moves(&dw, done);
	if (rank == 0 && a.vtk)
		printf("frames      %zu in %s, index %s/frames.pvd, contacts %s/contacts.pvd (gathered on rank 0)\n",
		       frames.n, a.vtk, a.vtk, a.vtk);
	if (rank == 0 && a.csv)
		printf("statistics  %s\n", a.csv);
	if (rank == 0 && a.state)
		printf("state       %s\n", a.state);
	if (rank == 0 && a.restart)
		printf("restart     %s: after step %llu\n", a.restart, first);
	if (rank == 0 && ck.last)
		printf("checkpoint  %s: after step %llu (%s.%c.rank0 to rank%d)\n",
		       a.checkpoint, (unsigned long long)ck.last, a.checkpoint,
		       ck.slot, size - 1);
	if (rank == 0 && stop)
		fprintf(stderr, "proxima: %s: SIGTERM: stopped after step %llu, checkpoint set %s written\n",
			a.target, done, a.checkpoint);
	status = stop ? EXIT_SIGTERM : EXIT_CONVERGED;
	goto done;
fail:
	px_dist_fail(&err);
done:
	if (csv.f && px_outfile_commit(&csv, &err) &&
	    (status == EXIT_CONVERGED || status == EXIT_SIGTERM)) {
		fprintf(stderr, "proxima: %s\n", err.msg);
		status = EXIT_BAD_INPUT;
	}
	px_outfile_abort(&state);
	px_dist_vtk_free(&frames);
	free(all);
	free(start);
	free(bodies);
	px_checkpoint_destroy(saved);
	px_dist_world_free(&dw);
	px_region_free(&reg);
	px_config_free(cfg);
	return status;
}
