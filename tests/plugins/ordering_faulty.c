/* Test-only orderings that break the contract in one way each (issue 22),
 * one variant per build flag: BAD_PERM's prepare names a contact past the
 * last (n instead of 0); BAD_NEXT's next rewrites perm with contact 0
 * twice from the second sweep on; BAD_PART's next returns part 7. Never
 * installed. */
#include <proxima/plugin.h>

#ifndef TEST_NAME
#error "TEST_NAME must be defined"
#endif

static int prepare(void *state, const struct px_problem_info *p,
		   uint32_t *perm, char *err, size_t errlen)
{
	(void)state;
	(void)err;
	(void)errlen;
	for (size_t k = 0; k < p->n_contacts; k++)
		perm[k] = (uint32_t)k;
#ifdef BAD_PERM
	perm[0] = (uint32_t)p->n_contacts;
#endif
	return 0;
}

static int next(void *state, const struct px_sweep_state *s, uint32_t *perm,
		int *changed)
{
	(void)state;
	(void)s;
	(void)perm;
	(void)changed;
#ifdef BAD_NEXT
	if (s->sweep >= 1) {
		perm[1] = perm[0];
		*changed = 1;
	}
#endif
#ifdef BAD_PART
	return 7;
#else
	return PX_PART_FULL;
#endif
}

static const struct px_ordering_ops ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ORDERING,
		.ops_size = sizeof(struct px_ordering_ops),
		.name = TEST_NAME,
		.summary = "test-only plugin",
	},
	.prepare = prepare,
	.next = next,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ops.h;
}
