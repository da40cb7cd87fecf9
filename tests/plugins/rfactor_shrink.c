/* Test-only rfactor plugin (issue 22): r = 1 at first, and every sweep
 * after the first is rejected with r shrunk by 1e-200, so that r underflows
 * to 0 on the second rejection. Never installed. */
#include <proxima/plugin.h>

static int init(void *state, const struct px_problem_info *p, int separable,
		double *r, char *err, size_t errlen)
{
	(void)state;
	(void)separable;
	(void)err;
	(void)errlen;
	for (size_t i = 0; i < p->n_contacts * p->bs; i++)
		r[i] = 1.0;
	return 0;
}

static int adapt(void *state, double residual_prev, double residual_new,
		 double *r, size_t n_r)
{
	(void)state;
	(void)residual_new;
	if (residual_prev == HUGE_VAL)
		return PX_SWEEP_ACCEPT;
	for (size_t i = 0; i < n_r; i++)
		r[i] *= 1e-200;
	return PX_SWEEP_REJECT;
}

static const struct px_rfactor_ops ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_RFACTOR,
		.ops_size = sizeof(struct px_rfactor_ops),
		.name = "shrink",
		.summary = "test-only plugin",
	},
	.shape = PX_R_DIAGONAL,
	.init = init,
	.adapt = adapt,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ops.h;
}
