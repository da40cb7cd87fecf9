/* A test-only ordering built against plugin ABI 1.3: its ops struct ends
 * before doc (ABI 1.4). The host must load it, must not read doc, and
 * `proxima plugins --describe abi13` says it has no documentation. Never
 * installed. */
#include <stddef.h>

#include <proxima/plugin.h>

/* Built a second time as ordering_good (TEST_NAME "good"), a name that
 * friction_good has too: `--describe good` is then ambiguous. */
#ifndef TEST_NAME
#define TEST_NAME "abi13"
#endif

static const struct px_param_decl params[] = {
	{"step", PX_PARAM_INT, "1", "a parameter to show in the table", 1, 9,
	 NULL},
};

static int abi13_prepare(void *state, const struct px_problem_info *p,
			 uint32_t *perm, char *err, size_t errlen)
{
	(void)state;
	(void)err;
	(void)errlen;
	for (size_t k = 0; k < p->n_contacts; k++)
		perm[k] = (uint32_t)k;
	return 0;
}

static int abi13_next(void *state, const struct px_sweep_state *s,
		      uint32_t *perm, int *changed)
{
	(void)state;
	(void)s;
	(void)perm;
	(void)changed;
	return PX_PART_FULL;
}

static const struct px_ordering_ops ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = 3,
		.kind = PX_KIND_ORDERING,
		.ops_size = offsetof(struct px_ordering_ops, doc),
		.name = TEST_NAME,
		.summary = "test-only ordering of plugin ABI 1.3",
		.params = params,
		.n_params = 1,
	},
	.prepare = abi13_prepare,
	.next = abi13_next,
	/* a 1.3 plugin has no doc; the host must not read this one */
	.doc = "never read",
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ops.h;
}
