/* Ordering `random`: contacts in a pseudo-random order from the plugin's
 * own generator (splitmix64, seeded by `seed`; never rand()), so the same
 * seed gives the same sequence of permutations and the same result.
 *   reshuffle = never   one permutation for a given seed and contact count,
 *                       the same in every solve;
 *               once    a fresh permutation at the start of every solve (the
 *                       generator runs on across the solves of a simulation);
 *               every   a fresh permutation before every sweep but the first
 *                       (a sweep retried after back-tracking keeps its own).
 * Shuffles are Fisher-Yates with unbiased bounded draws. A checkpoint
 * keeps the generator's state (persist, ABI 1.8). */
#include <stdio.h>
#include <stdlib.h>

#include <proxima/plugin.h>

enum { P_SEED, P_RESHUFFLE };
enum { NEVER, ONCE, EVERY };

static const struct px_param_decl random_params[] = {
	[P_SEED] = {"seed", PX_PARAM_INT, "1", "seed of the plugin's generator",
		    0, 9007199254740992.0, NULL},
	[P_RESHUFFLE] = {"reshuffle", PX_PARAM_CHOICE, "once",
			 "new permutation: never (same in every solve), once per solve, every sweep",
			 0, 0, "never|once|every"},
};

struct random_ordering {
	uint64_t seed, state;
	int reshuffle;
	size_t n;             /* contacts of the current solve */
	uint64_t shuffled_at; /* sweep of the last shuffle */
};

/* splitmix64 (Steele, Lea, Flood 2014): a full-period 64-bit generator. */
static uint64_t next_u64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound), 0 < bound <= 2^32 (Lemire 2019, "Fast random
 * integer generation in an interval"): the high half of a 32-bit draw
 * times bound, with the draws whose low half falls below 2^32 mod bound
 * rejected so that every value is equally likely. The modulo is computed
 * only when the low half is below bound (rarely), so a shuffle makes no
 * division per draw: with two per draw, shuffling a box column's contacts
 * in every substep took 8 % of its step. */
static uint32_t below(uint64_t *state, uint64_t bound)
{
	uint64_t m = (next_u64(state) >> 32) * bound;

	if ((uint32_t)m < bound) {
		const uint32_t threshold = (uint32_t)((0x100000000u - bound) %
						      bound);

		while ((uint32_t)m < threshold)
			m = (next_u64(state) >> 32) * bound;
	}
	return (uint32_t)(m >> 32);
}

/* perm holds uint32 indices: n <= 2^32 */
static void shuffle(uint64_t *state, uint32_t *perm, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		const uint32_t j = below(state, i);
		const uint32_t t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

static int random_create(const union px_value *val, void **state, char *err,
			 size_t errlen)
{
	struct random_ordering *s = calloc(1, sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->seed = s->state = (uint64_t)val[P_SEED].i;
	s->reshuffle = val[P_RESHUFFLE].choice;
	*state = s;
	return 0;
}

static void random_destroy(void *state)
{
	free(state);
}

static int random_prepare(void *state, const struct px_problem_info *p,
			  uint32_t *perm, char *err, size_t errlen)
{
	struct random_ordering *s = state;

	(void)err;
	(void)errlen;
	if (s->reshuffle == NEVER)
		s->state = s->seed;
	for (size_t k = 0; k < p->n_contacts; k++)
		perm[k] = (uint32_t)k;
	shuffle(&s->state, perm, p->n_contacts);
	s->n = p->n_contacts;
	s->shuffled_at = 0;
	return 0;
}

static int random_next(void *state, const struct px_sweep_state *ss,
		       uint32_t *perm, int *changed)
{
	struct random_ordering *s = state;

	if (s->reshuffle == EVERY && ss->sweep > s->shuffled_at) {
		shuffle(&s->state, perm, s->n);
		s->shuffled_at = ss->sweep;
		*changed = 1;
	}
	return PX_PART_FULL;
}

/* The state a checkpoint keeps (ABI 1.8): the generator, which runs on
 * across solves; the rest is set by every prepare. 8 bytes,
 * little-endian. */
static size_t random_size(const void *state)
{
	(void)state;
	return 8;
}

static void random_save(const void *state, unsigned char *buf)
{
	const struct random_ordering *s = state;

	px_persist_put64(buf, s->state);
}

static int random_load(void *state, const unsigned char *buf, size_t len,
		       char *err, size_t errlen)
{
	struct random_ordering *s = state;

	if (len != 8) {
		snprintf(err, errlen, "state of %zu bytes, expected 8", len);
		return -1;
	}
	s->state = px_persist_get64(buf);
	return 0;
}

static const struct px_persist_ops random_persist = {
	.size = random_size,
	.save = random_save,
	.load = random_load,
};

/* What `proxima plugins --describe random` prints (ABI 1.4). */
static const char random_doc[] =
	"Contacts in a pseudo-random order from the plugin's own generator\n"
	"(splitmix64 seeded by seed, Fisher-Yates shuffles with unbiased draws;\n"
	"never rand()), so a seed gives the same permutations, and the same\n"
	"results, on every run and machine.\n"
	"\n"
	"    reshuffle = never   one permutation per seed and contact count,\n"
	"                        the same in every solve;\n"
	"                once    a fresh permutation at the start of every solve\n"
	"                        (the generator runs on across a simulation);\n"
	"                every   a fresh permutation before every sweep but the\n"
	"                        first (a sweep retried after back-tracking keeps\n"
	"                        its own).\n"
	"\n"
	"Choose it to break a bad structural order: a problem whose own order\n"
	"propagates support the wrong way (top-down through a stack) converges\n"
	"slowly under identity. bench/orderings.sh measured random halving the\n"
	"sweeps on a box column and on BoxesStack1 and tripling them on\n"
	"OneObject, so measure before adopting it. reshuffle = every costs a\n"
	"shuffle per sweep and defeats a colored scheduler's reuse of its\n"
	"per-color lists. Change seed to see how much a result depends on the\n"
	"order.\n";

static const struct px_ordering_ops random_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ORDERING,
		.ops_size = sizeof(struct px_ordering_ops),
		.name = "random",
		.summary = "contacts in a seeded pseudo-random order, reshuffled never, once per solve or every sweep",
		.params = random_params,
		.n_params = sizeof random_params / sizeof *random_params,
		.create = random_create,
		.destroy = random_destroy,
	},
	.prepare = random_prepare,
	.next = random_next,
	.doc = random_doc,
	.persist = &random_persist,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &random_ops.h;
}
