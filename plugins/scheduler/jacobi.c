/* Scheduler `jacobi`: every contact of a sweep is computed from the previous
 * iterate (001 Algorithm 1), in parallel with OpenMP over contacts. Three
 * phases, each a parallel loop with the barrier at its end:
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

#ifdef _OPENMP
#include <omp.h>
#endif

#include <proxima/plugin.h>

enum { P_THREADS, P_SERIAL_BELOW };

static const struct px_param_decl jacobi_params[] = {
	[P_THREADS] = {"threads", PX_PARAM_INT, "0",
		       "OpenMP threads (0: OpenMP's default, OMP_NUM_THREADS)",
		       0, 4096, NULL},
	[P_SERIAL_BELOW] = {"serial_below", PX_PARAM_INT, "1024",
			    "problems with fewer rows run on one thread (waking the team costs more)",
			    0, 1e15, NULL},
};

struct jacobi {
	int threads;
	long serial_below;
	double *out; /* n_contacts * bs */
	size_t cap;
};

static int jacobi_create(const union px_value *v, void **state, char *err,
			 size_t errlen)
{
	struct jacobi *s = calloc(1, sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->threads = (int)v[P_THREADS].i;
	s->serial_below = v[P_SERIAL_BELOW].i;
#ifdef _OPENMP
	if (s->threads == 0)
		s->threads = omp_get_max_threads();
#else
	s->threads = 1;
#endif
	*state = s;
	return 0;
}

static void jacobi_destroy(void *state)
{
	struct jacobi *s = state;

	free(s->out);
	free(s);
}

static int jacobi_prepare(void *state, const struct px_kernel *kern,
			  char *err, size_t errlen)
{
	struct jacobi *s = state;
	const size_t need = kern->n_contacts * kern->bs + 1;

	if (need > s->cap) {
		double *out = realloc(s->out, need * sizeof *out);

		if (!out) {
			snprintf(err, errlen, "out of memory for %zu contacts",
				 kern->n_contacts);
			return -1;
		}
		s->out = out;
		s->cap = need;
	}
	return 0;
}

static void jacobi_sweep(void *state, const struct px_kernel *kern,
			 const uint32_t *perm, int perm_changed, int part)
{
	struct jacobi *s = state;
	const long n = (long)kern->n_contacts, nb = (long)kern->n_bodies;
	const uint32_t bs = kern->bs;
	double *out = s->out;

	(void)perm;
	(void)perm_changed;
#pragma omp parallel num_threads(s->threads) if (n * bs >= s->serial_below)
	{
#pragma omp for schedule(static)
		for (long k = 0; k < n; k++)
			kern->compute(kern->ctx, (uint32_t)k, part,
				      out + (size_t)k * bs);
#pragma omp for schedule(static)
		for (long k = 0; k < n; k++)
			kern->store(kern->ctx, (uint32_t)k, out + (size_t)k * bs);
#pragma omp for schedule(static)
		for (long b = 0; b < nb; b++)
			kern->refresh(kern->ctx, (size_t)b, (size_t)b + 1);
	}
}

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
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &jacobi_ops.h;
}
