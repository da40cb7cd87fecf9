/* The shared parts of the OpenMP schedulers (common.h). */
#include <stdio.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "common.h"

int team_state_create(size_t size, const union px_value *v, void **state,
		      char *err, size_t errlen)
{
	struct team *t = calloc(1, size);

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->threads = (int)v[TEAM_P_THREADS].i;
	t->serial_below = v[TEAM_P_SERIAL_BELOW].i;
#ifdef _OPENMP
	if (t->threads == 0)
		t->threads = omp_get_max_threads();
#else
	t->threads = 1;
#endif
	t->size = 1;
	*state = t;
	return 0;
}

void team_prepare(struct team *t, const struct px_kernel *kern)
{
	t->rows = kern->n_contacts * kern->bs;
	t->size = t->rows >= (size_t)t->serial_below ? t->threads : 1;
}

void team_parallel_for(void *state, size_t n,
		       void (*body)(void *ctx, size_t begin, size_t end),
		       void *ctx)
{
	const struct team *t = state;
	const int nt = n >= (size_t)t->serial_below ? t->threads : 1;

#pragma omp parallel num_threads(nt) if (nt > 1)
	{
#ifdef _OPENMP
		const size_t i = (size_t)omp_get_thread_num(),
			     m = (size_t)omp_get_num_threads();
#else
		const size_t i = 0, m = 1;
#endif
		const size_t begin = n * i / m, end = n * (i + 1) / m;

		if (begin < end)
			body(ctx, begin, end);
	}
}

void team_describe(const struct team *t, char *buf, size_t len)
{
	if (t->size == t->threads)
		snprintf(buf, len, "%d thread%s", t->size,
			 t->size == 1 ? "" : "s");
	else
		snprintf(buf, len, "1 thread (%zu rows < serial_below %ld)",
			 t->rows, t->serial_below);
}

int buffer_reserve(struct buffer *b, size_t bytes, char *err, size_t errlen)
{
	void *p;

	if (bytes <= b->bytes)
		return 0;
	p = realloc(b->p, bytes);
	if (!p) {
		snprintf(err, errlen, "out of memory for %zu bytes", bytes);
		return -1;
	}
	b->p = p;
	b->bytes = bytes;
	return 0;
}

void buffer_free(struct buffer *b)
{
	free(b->p);
	b->p = NULL;
	b->bytes = 0;
}

void refresh_bodies(const struct px_kernel *kern)
{
	const long nb = (long)kern->n_bodies;

#pragma omp for schedule(static)
	for (long b = 0; b < nb; b++)
		kern->refresh(kern->ctx, (size_t)b, (size_t)b + 1);
}
