/* Friction set `disc`: isotropic Coulomb friction (001 sec. 3). The friction
 * impulse (s, t) is projected onto the disc of radius mu * lambda_n: kept
 * when inside, scaled onto the rim otherwise. On 4-row contacts the disc
 * carries no torsional friction: the tau row is projected to 0 (use the
 * ellipsoid set for spin friction). */
#include <math.h>

#include <proxima/plugin.h>

static void disc_project(const void *state, const struct px_friction_params *fp,
			 double lambda_n, double *z, uint32_t nf)
{
	const double radius = fp->mu * lambda_n;
	const double len = hypot(z[0], z[1]);

	(void)state;
	if (len > radius) {
		const double scale = len > 0.0 ? radius / len : 0.0;

		z[0] *= scale;
		z[1] *= scale;
	}
	if (nf > 2)
		z[2] = 0.0;
}

static const struct px_friction_ops disc_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_FRICTION,
		.ops_size = sizeof(struct px_friction_ops),
		.name = "disc",
		.summary = "isotropic Coulomb friction: project onto the disc of radius mu * lambda_n",
	},
	.flags = 0, /* not separable: s and t share one r */
	.project = disc_project,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &disc_ops.h;
}
