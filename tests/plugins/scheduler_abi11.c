/* A test-only scheduler built against plugin ABI 1.1: its ops struct ends
 * before describe (ABI 1.2). Gauss-Seidel in the ordering's sequence. The
 * host must load it and must not read describe. Never installed. */
#include <stddef.h>

#include <proxima/plugin.h>

static int abi11_prepare(void *state, const struct px_kernel *kern, char *err,
			 size_t errlen)
{
	(void)state;
	(void)kern;
	(void)err;
	(void)errlen;
	return 0;
}

static void abi11_sweep(void *state, const struct px_kernel *kern,
			const uint32_t *perm, int perm_changed, int part)
{
	(void)state;
	(void)perm_changed;
	for (size_t i = 0; i < kern->n_contacts; i++)
		kern->relax(kern->ctx, perm[i], part);
}

static const struct px_scheduler_ops ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = 1,
		.kind = PX_KIND_SCHEDULER,
		.ops_size = offsetof(struct px_scheduler_ops, describe),
		.name = "abi11",
		.summary = "test-only scheduler of plugin ABI 1.1",
	},
	.prepare = abi11_prepare,
	.sweep = abi11_sweep,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ops.h;
}
