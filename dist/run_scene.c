/* `mpirun -np P proxima run [-c CONFIG] SCENE`: each rank generates only
 * its region of the scene (recursive coordinate bisection, region.c) and a
 * ghost layer around it, collides its bodies, builds the velocity problem
 * of the first step in its local world and keeps its own contacts
 * (rigid.c); the ranks then solve the first step together (dsolve.c).
 * Stepping the world further across ranks is not done (README: what is
 * missing). The report adds the bodies per rank and the impulse check:
 * the bodies' total momentum change against the impulse the static
 * contacts applied. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "rigid.h"
#include "scene.h"

struct capture {
	const struct px_region *reg;
	struct px_world *w;
	enum px_dist_combine combine;
	struct px_dist_part *d;
	int done;
};

static int hook(void *ctx, const struct px_step_solve *s, struct px_error *err)
{
	struct capture *c = ctx;

	c->done = 1;
	return px_dist_rigid_capture(c->w, s->problem, c->reg, c->combine, c->d, err);
}

/* Collide and build the first step's problem in the rank's world; the
 * world's own solve of it is cut to one sweep (its result is not used). */
static int first_step(const struct px_dist_args *a, const struct px_region *reg,
		      const struct px_world_settings *s,
		      const struct px_body *bodies, size_t n,
		      struct px_dist_part *d, struct px_error *err)
{
	struct px_world *w = NULL;
	struct px_config *once = NULL;
	struct px_step_stats st;
	struct capture c = {reg, NULL, a->o.combine, d, 0};
	int rc = px_world_create(s, &w, err);

	for (size_t i = 0; !rc && i < n; i++)
		rc = px_world_add_body(w, bodies + i, NULL, err);
	if (!rc)
		rc = px_config_read(a->config, &once, err);
	if (!rc) {
		px_config_settings_mut(once)->max_sweeps = 1;
		c.w = w;
		px_world_set_solve_hook(w, hook, &c);
		rc = px_world_step(w, once, &st, err);
	}
	if (!rc && !c.done) /* no contact in this rank's world */
		*d = (struct px_dist_part){.kind = PX_DIST_RIGID,
					   .combine = a->o.combine, .bs = 3,
					   .width = 6};
	px_config_free(once);
	px_world_destroy(w);
	return rc;
}

/* Linear momentum: [0..2] the own bodies' change, [3..5] the impulse of
 * the own contacts on static bodies. */
static void momentum(const struct px_dist_part *d, const double *lambda,
		     int rank, double out[6])
{
	memset(out, 0, 6 * sizeof *out);
	for (size_t i = 0; i < d->n_bodies; i++)
		if (d->shared[i] && d->body_owner[i] == rank)
			for (int q = 0; q < 3; q++)
				out[q] += d->vbar[6 * i + q] / d->inv_mass[i];
	for (size_t k = 0; k < d->n_own; k++) {
		const uint32_t ab[2] = {d->body_a[k], d->body_b[k]};
		const double *fr = d->frame + 9 * k, *l = lambda + 3 * k;
		double f[3];

		for (int q = 0; q < 3; q++)
			f[q] = l[0] * fr[q] + l[1] * fr[3 + q] + l[2] * fr[6 + q];
		for (int e = 0; e < 2; e++) {
			const uint32_t x = ab[e];
			const double sign = e ? -1 : 1;

			if (x == PX_STATIC)
				continue;
			if (ab[1 - e] == PX_STATIC)
				for (int q = 0; q < 3; q++)
					out[3 + q] += sign * f[q];
			if (!d->shared[x] && d->body_owner[x] == rank)
				for (int q = 0; q < 3; q++)
					out[q] += sign * f[q];
		}
	}
}

static void report_scene(const struct px_dist_args *a, const struct px_region *reg,
			 size_t n_kept, const struct px_dist_part *d,
			 const double *lambda, int rank, int size)
{
	enum { N = 13 };
	double mine[N] = {0}, *all = NULL, p[6] = {0}, k[4] = {0};
	double own = 0, ghost = 0, cut = 0;

	for (size_t i = 0; i < n_kept; i++) {
		own += reg->owner[i] == rank;
		ghost += reg->owner[i] >= 0 && reg->owner[i] != rank;
	}
	mine[0] = own;
	mine[1] = ghost;
	momentum(d, lambda, rank, mine + 2);
	mine[12] = (double)d->n_cut;
	/* own shared bodies by the number of ranks with contacts on them */
	for (size_t i = 0; i < d->n_bodies; i++)
		if (d->shared[i] && d->body_owner[i] == rank)
			mine[8 + (d->copies[i] < 4 ? d->copies[i] - 1 : 3)]++;
	if (rank == 0)
		all = malloc((size_t)size * N * sizeof *all);
	MPI_Gather(mine, N, MPI_DOUBLE, all, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank != 0 || !all) {
		free(all);
		return;
	}
	printf("scene       %s: the first step; bodies per rank (own + ghost layer):", a->target);
	for (int r = 0; r < size; r++) {
		printf(" %.0f+%.0f", all[N * r], all[N * r + 1]);
		for (int q = 0; q < 6; q++)
			p[q] += all[N * r + 2 + q];
		for (int q = 0; q < 4; q++)
			k[q] += all[N * r + 8 + q];
		cut += all[N * r + 12];
	}
	printf("\npartition   recursive coordinate bisection of the centres: cut %.0f contacts (between bodies of different ranks)", cut);
	printf("\nshared      %.0f bodies have copies on other ranks; ranks with contacts on them: 1: %.0f, 2: %.0f, 3: %.0f, 4 or more: %.0f",
	       k[0] + k[1] + k[2] + k[3], k[0], k[1], k[2], k[3]);
	double diff = 0, scale = 0;

	for (int q = 0; q < 3; q++) {
		diff = fmax(diff, fabs(p[q] - p[3 + q]));
		scale = fmax(scale, fabs(p[3 + q]));
	}
	printf("\nmomentum    bodies' change (%.9g, %.9g, %.9g) N s, static contacts' impulse (%.9g, %.9g, %.9g) N s: difference %.3g (relative %.3g)\n",
	       p[0], p[1], p[2], p[3], p[4], p[5], diff, scale > 0 ? diff / scale : diff);
	free(all);
}

int px_dist_cmd_run(int argc, char **argv)
{
	struct px_dist_args a;
	struct px_error err = {0};
	struct px_config *cfg = NULL;
	struct px_world_settings s;
	struct px_body *bodies = NULL;
	struct px_region reg = {0};
	struct px_dist_part d = {0};
	struct px_dist_result res = {0};
	struct px_dist_traffic setup = {0};
	double *lambda = NULL;
	size_t n = 0;
	int rank, size, rc, status = EXIT_BAD_INPUT;

	rc = px_dist_begin(argc, argv, 0, &a, &cfg, &rank, &size, &err);
	if (!rc)
		rc = px_region_read(a.target, rank, size, &s, &bodies, &n, &reg, &err);
	if (!rc && reg.n_dynamic < (size_t)size)
		rc = px_error_set(&err, PX_ERR_INVALID, "%s: -np %d is more ranks than its %zu moving bodies",
				  a.target, size, reg.n_dynamic);
	if (px_dist_agree(rc, &err))
		goto fail;
	rc = first_step(&a, &reg, &s, bodies, n, &d, &err);
	if (rc) {
		px_dist_prefix_rank(&err, rank);
		px_dist_prefix(&err, a.target);
	}
	if (px_dist_agree(rc, &err))
		goto fail;
	rc = px_dist_share_copies(&d, &setup);
	if (!rc)
		rc = px_dist_rigid_build(&d, &err);
	if (px_dist_solve_own(rc, &a, cfg, &d, &lambda, &res, &err))
		goto fail;
	report_scene(&a, &reg, n, &d, lambda, rank, size);
	px_dist_report(&d, &a.o, &res, "copies of shared bodies (owners' included)", cfg, a.config);
	if (rank == 0)
		printf("fc3d error  %.3e (||F|| = %.3e; Siconos fc3d_compute_error summed over the ranks)\n",
		       res.fc3d, res.fc3d_abs);
	status = res.converged ? EXIT_CONVERGED : EXIT_NOT_CONVERGED;
	goto done;
fail:
	px_dist_fail(&err);
done:
	free(res.history);
	free(lambda);
	free(bodies);
	px_region_free(&reg);
	px_dist_part_free(&d);
	px_config_free(cfg);
	return status;
}
