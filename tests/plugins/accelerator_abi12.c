/* A test-only accelerator that declares plugin ABI 1.2, which had no
 * accelerator kind (it came with 1.3): the loader must refuse it. Never
 * installed. */
#include <stddef.h>

#include <proxima/plugin.h>

static int abi12_prepare(void *state, const struct px_accel_host *host,
			 uint64_t *every, char *err, size_t errlen)
{
	(void)state;
	(void)host;
	(void)err;
	(void)errlen;
	*every = 1;
	return 0;
}

static void abi12_step(void *state, const struct px_accel_host *host,
		       struct px_accel_result *res)
{
	(void)state;
	(void)host;
	(void)res;
}

static const struct px_accelerator_ops ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = 2,
		.kind = PX_KIND_ACCELERATOR,
		.ops_size = sizeof(struct px_accelerator_ops),
		.name = "abi12",
		.summary = "test-only accelerator claiming plugin ABI 1.2",
	},
	.prepare = abi12_prepare,
	.step = abi12_step,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ops.h;
}
