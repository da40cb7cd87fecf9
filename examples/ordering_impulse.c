/* An ordering plugin, the C half of one heuristic written both ways (its
 * Python half is a function of two lines, in doc/python.md, "Heuristics in
 * Python", and python/tests/test_heuristics.py): every
 * sweep visits the contacts by decreasing normal impulse of the iterate
 * the last sweep left (contacts of equal impulse by index), so the
 * contacts that carry the load are relaxed first.
 *
 * make check builds it as examples/.libs/ordering_impulse.so; by hand,
 * against the installed header:
 *   cc -shared -fPIC $(pkg-config --cflags proxima) \
 *      -o ordering_impulse.so ordering_impulse.c
 *   PROXIMA_PLUGIN_PATH=$PWD proxima solve --set ordering=impulse \
 *      scenes/two-boxes.dat */
#include <stdio.h>
#include <stdlib.h>

#include <proxima/plugin.h>

struct impulse {
	const double *lambda; /* the solve's iterate, bs per contact */
	size_t n;
	uint32_t bs;
};

static int impulse_create(const union px_value *values, void **state,
			  char *err, size_t errlen)
{
	(void)values;
	*state = calloc(1, sizeof(struct impulse));
	if (!*state) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static void impulse_destroy(void *state)
{
	free(state);
}

static int impulse_prepare(void *state, const struct px_problem_info *p,
			   uint32_t *perm, char *err, size_t errlen)
{
	struct impulse *s = state;

	(void)err;
	(void)errlen;
	s->lambda = p->lambda; /* valid to the end of the solve */
	s->n = p->n_contacts;
	s->bs = p->bs;
	for (size_t k = 0; k < p->n_contacts; k++)
		perm[k] = (uint32_t)k;
	return 0;
}

/* Contact a goes before contact b. */
static int before(const struct impulse *s, uint32_t a, uint32_t b)
{
	const double la = s->lambda[(size_t)a * s->bs];
	const double lb = s->lambda[(size_t)b * s->bs];

	return la > lb || (la == lb && a < b);
}

/* Move v[i] down the heap v[0..n) whose root comes last in the order. */
static void sift(const struct impulse *s, uint32_t *v, size_t i, size_t n)
{
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		uint32_t t;

		if (c + 1 < n && before(s, v[c], v[c + 1]))
			c++;
		if (!before(s, v[i], v[c]))
			return;
		t = v[i], v[i] = v[c], v[c] = t;
	}
}

/* Heap sort: in place, no allocation on the hot path. The order is total
 * (ties broken by index), so any correct sort gives this permutation. */
static int impulse_next(void *state, const struct px_sweep_state *ss,
			uint32_t *perm, int *changed)
{
	const struct impulse *s = state;

	(void)ss;
	for (size_t i = s->n / 2; i-- > 0;)
		sift(s, perm, i, s->n);
	for (size_t end = s->n; end > 1; end--) {
		uint32_t t = perm[0];

		perm[0] = perm[end - 1], perm[end - 1] = t;
		sift(s, perm, 0, end - 1);
	}
	*changed = 1;
	return PX_PART_FULL;
}

static const struct px_ordering_ops impulse_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ORDERING,
		.ops_size = sizeof(struct px_ordering_ops),
		.name = "impulse",
		.summary = "contacts by decreasing normal impulse of the last sweep",
		.create = impulse_create,
		.destroy = impulse_destroy,
	},
	.prepare = impulse_prepare,
	.next = impulse_next,
	.doc = "Every sweep visits the contacts by decreasing normal impulse\n"
	       "of the iterate the last sweep left, ties by index (an example:\n"
	       "examples/ordering_impulse.c). No parameters.\n",
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &impulse_ops.h;
}
