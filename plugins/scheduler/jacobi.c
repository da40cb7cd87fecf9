/* Scheduler `jacobi`: every contact of a sweep is computed from the previous
 * iterate (Erleben 2017, Algorithm 1), in parallel with OpenMP over contacts.
 * Three phases, each a parallel loop with the barrier at its end:
 *   1. out_k = the new impulse of contact k (reads lambda and w only),
 *   2. lambda_k = out_k,
 *   3. every body's w gathered again from its contacts' lambda.
 * No phase writes what another thread of the same phase reads, so there are
 * no atomics, and every value is computed by the same operations in the
 * same order whatever the thread count: the result is bit-for-bit
 * deterministic. The permutation is irrelevant to Jacobi; the part (normal,
 * friction or both) chosen by the ordering is honoured. */
#include <stdio.h>
#include <stdlib.h>

#include <proxima/plugin.h>

#include "common.h"

static const struct px_param_decl jacobi_params[] = {TEAM_PARAMS};

struct jacobi {
	struct team team; /* first: team_state_create */
	struct buffer out; /* n_contacts * bs doubles */
};

static int jacobi_create(const union px_value *v, void **state, char *err,
			 size_t errlen)
{
	return team_state_create(sizeof(struct jacobi), v, state, err, errlen);
}

static void jacobi_destroy(void *state)
{
	struct jacobi *s = state;

	buffer_free(&s->out);
	free(s);
}

static int jacobi_prepare(void *state, const struct px_kernel *kern,
			  char *err, size_t errlen)
{
	struct jacobi *s = state;

	team_prepare(&s->team, kern);
	return buffer_reserve(&s->out,
			      (kern->n_contacts * kern->bs + 1) * sizeof(double),
			      err, errlen);
}

static void jacobi_sweep(void *state, const struct px_kernel *kern,
			 const uint32_t *perm, int perm_changed, int part)
{
	struct jacobi *s = state;
	const long n = (long)kern->n_contacts;
	const uint32_t bs = kern->bs;
	double *out = s->out.p;

	(void)perm;
	(void)perm_changed;
#pragma omp parallel num_threads(s->team.size) if (s->team.size > 1)
	{
#pragma omp for schedule(static)
		for (long k = 0; k < n; k++)
			kern->compute(kern->ctx, (uint32_t)k, part,
				      out + (size_t)k * bs);
#pragma omp for schedule(static)
		for (long k = 0; k < n; k++)
			kern->store(kern->ctx, (uint32_t)k, out + (size_t)k * bs);
		refresh_bodies(kern);
	}
}

static void jacobi_describe(const void *state, char *buf, size_t len)
{
	const struct jacobi *s = state;
	char team[128];

	team_describe(&s->team, team, sizeof team);
	snprintf(buf, len, "jacobi: %s", team);
}

/* What `proxima plugins --describe jacobi` prints (ABI 1.4). */
static const char jacobi_doc[] =
	"Jacobi (Erleben 2017, Algorithm 1): every contact of a sweep is computed\n"
	"from the previous iterate, in parallel with OpenMP over contacts, in\n"
	"three phases (compute every new impulse; store them; gather every body's\n"
	"velocity again from its contacts). No phase writes what another reads,\n"
	"so there are no atomics, and every value is the same sum in the same\n"
	"order whatever the thread count: the result is bit for bit\n"
	"deterministic. The permutation is irrelevant; the part (normal,\n"
	"friction, both) chosen by the ordering is honoured.\n"
	"\n"
	"Jacobi needs more sweeps than Gauss-Seidel for the same quality (Poulsen\n"
	"2010, Tables 3.3, 3.5: 63-66 against 50) and may diverge where Gauss-Seidel\n"
	"does not, since each contact ignores its neighbours' changes: use a\n"
	"smaller r (rfactor local with gamma < 1, or back-tracking with nu < 1).\n"
	"Choose it for many cores on large loose problems, where it scales best\n"
	"(Poulsen 2010, Table 6.3). threads = 0 takes OpenMP's default\n"
	"(OMP_NUM_THREADS); problems with fewer rows than serial_below run on one\n"
	"thread, since waking the team costs more than it saves.\n";

static const struct px_scheduler_ops jacobi_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_SCHEDULER,
		.ops_size = sizeof(struct px_scheduler_ops),
		.name = "jacobi",
		.summary = "Jacobi: every contact from the previous iterate, OpenMP over contacts, deterministic",
		.params = jacobi_params,
		.n_params = sizeof jacobi_params / sizeof *jacobi_params,
		.create = jacobi_create,
		.destroy = jacobi_destroy,
	},
	.prepare = jacobi_prepare,
	.sweep = jacobi_sweep,
	.describe = jacobi_describe,
	.doc = jacobi_doc,
	.parallel_for = team_parallel_for,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &jacobi_ops.h;
}
