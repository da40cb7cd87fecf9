/* Test-only friction plugins that break the hot path's rules in one way
 * each (issue 22), one variant per build flag: NAN_PROJECT returns a NaN
 * impulse from its projection, WRITE_OUTSIDE writes one element past the
 * nf friction rows it was given. Otherwise the disc of radius mu lambda_n.
 * Never installed. */
#include <math.h>

#include <proxima/plugin.h>

#ifndef TEST_NAME
#error "TEST_NAME must be defined"
#endif

static void project(const void *state, const struct px_friction_params *fp,
		    double lambda_n, double *z, uint32_t nf)
{
	(void)state;
	(void)nf;
	px_disc_project(z, fp->mu * lambda_n);
#ifdef NAN_PROJECT
	z[0] = NAN;
#endif
#ifdef WRITE_OUTSIDE
	z[nf] = 42.0;
#endif
}

static const struct px_friction_ops ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_FRICTION,
		.ops_size = sizeof(struct px_friction_ops),
		.name = TEST_NAME,
		.summary = "test-only plugin",
	},
	.project = project,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &ops.h;
}
