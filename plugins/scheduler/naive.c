/* Scheduler `naive`: naive parallel Gauss-Seidel (Poulsen 2010, sec. 7.1). The
 * ordering's sequence is cut into T contiguous ranges of (nearly) equal
 * length, range r = perm[r n / T .. (r + 1) n / T), without regard to the
 * dependencies between them; each range is relaxed Gauss-Seidel style on
 * its own thread against a private copy of the shared state (kern->
 * relax_private: the body velocities of a factorized problem, lambda of an
 * assembled one), so a range sees its own updates at once and the other
 * ranges' only at the next sweep. Afterwards the body velocities are
 * gathered again from lambda per body. No atomics, no locks: three phases
 * (load the copies, relax the ranges, refresh the bodies) separated by
 * barriers.
 *
 * It exists to be compared with `colored`, not to be the default: between
 * ranges it is Jacobi, and its result depends on the number of ranges. T
 * is the team size of the sweep: the `threads` key (0: OpenMP's default,
 * OMP_NUM_THREADS), or 1 when the problem has fewer rows than
 * serial_below. Same T, same permutation: bit-for-bit the same lambda in
 * every run (each range does the same operations in the same order; how
 * OpenMP maps ranges to threads does not matter). Different T: a
 * different iteration (T = 1 is exactly `sequential`). */
#include <stdio.h>
#include <stdlib.h>

#include <proxima/plugin.h>

#include "common.h"

static const struct px_param_decl naive_params[] = {TEAM_PARAMS};

struct naive {
	struct team team;   /* first: team_state_create */
	struct buffer priv; /* team.size copies of kern->private_size doubles */
	size_t n;
};

static int naive_create(const union px_value *v, void **state, char *err,
			size_t errlen)
{
	return team_state_create(sizeof(struct naive), v, state, err, errlen);
}

static void naive_destroy(void *state)
{
	struct naive *s = state;

	buffer_free(&s->priv);
	free(s);
}

static int naive_prepare(void *state, const struct px_kernel *kern,
			 char *err, size_t errlen)
{
	struct naive *s = state;

	team_prepare(&s->team, kern);
	s->n = kern->n_contacts;
	if (s->team.size == 1)
		return 0;
	return buffer_reserve(&s->priv,
			      ((size_t)s->team.size * kern->private_size + 1) *
				      sizeof(double),
			      err, errlen);
}

static void naive_sweep(void *state, const struct px_kernel *kern,
			const uint32_t *perm, int perm_changed, int part)
{
	struct naive *s = state;
	const int ranges = s->team.size;
	const size_t n = kern->n_contacts, size = kern->private_size;
	double *priv = s->priv.p;

	(void)perm_changed;
	if (ranges == 1) { /* one range: Gauss-Seidel on the shared state */
		for (size_t i = 0; i < n; i++)
			kern->relax(kern->ctx, perm[i], part);
		return;
	}
#pragma omp parallel num_threads(ranges)
	{
#pragma omp for schedule(static)
		for (int r = 0; r < ranges; r++)
			kern->private_load(kern->ctx, priv + (size_t)r * size);
#pragma omp for schedule(static)
		for (int r = 0; r < ranges; r++) {
			const size_t end = n * (size_t)(r + 1) / (size_t)ranges;

			for (size_t i = n * (size_t)r / (size_t)ranges; i < end;
			     i++)
				kern->relax_private(kern->ctx, perm[i], part,
						    priv + (size_t)r * size);
		}
		refresh_bodies(kern);
	}
}

static void naive_describe(const void *state, char *buf, size_t len)
{
	const struct naive *s = state;
	char team[128];

	team_describe(&s->team, team, sizeof team);
	snprintf(buf, len, "naive: %d range%s of about %zu contacts, %s",
		 s->team.size, s->team.size == 1 ? "" : "s",
		 s->n / (size_t)s->team.size, team);
}

/* What `proxima plugins --describe naive` prints (ABI 1.4). */
static const char naive_doc[] =
	"Naive parallel Gauss-Seidel (Poulsen 2010, sec. 7.1): the ordering's\n"
	"sequence is cut into T contiguous ranges of nearly equal length, without\n"
	"regard to the dependencies between them; each range is relaxed\n"
	"Gauss-Seidel style on its own thread against a private copy of the\n"
	"shared state (the kernel's relax_private, ABI 1.2), so a range sees its\n"
	"own updates at once and the other ranges' only at the next sweep; then\n"
	"the body velocities are gathered again. No atomics, no locks.\n"
	"\n"
	"Between ranges it is Jacobi: its convergence lies between Gauss-Seidel's\n"
	"and Jacobi's and its result depends on T (T = 1 is exactly sequential;\n"
	"Poulsen (2010) found the small ball grid's quality after 50 iterations\n"
	"going from 246 on one core to 306 on eight). Same T and permutation: bit\n"
	"for bit the same lambda on every run. It exists to be compared with\n"
	"colored, not to be the default. T is the team size: threads (0:\n"
	"OMP_NUM_THREADS), or 1 when the problem has fewer rows than\n"
	"serial_below.\n";

static const struct px_scheduler_ops naive_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_SCHEDULER,
		.ops_size = sizeof(struct px_scheduler_ops),
		.name = "naive",
		.summary = "naive parallel Gauss-Seidel: one range of the ordering per thread, Jacobi between ranges; depends on the thread count",
		.params = naive_params,
		.n_params = sizeof naive_params / sizeof *naive_params,
		.create = naive_create,
		.destroy = naive_destroy,
	},
	.prepare = naive_prepare,
	.sweep = naive_sweep,
	.describe = naive_describe,
	.doc = naive_doc,
	.parallel_for = team_parallel_for,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &naive_ops.h;
}
