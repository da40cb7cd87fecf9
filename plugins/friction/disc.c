/* Friction set `disc`: isotropic Coulomb friction (Erleben 2017, sec. 3). The
 * friction impulse (s, t) is projected onto the disc of radius mu * lambda_n:
 * kept when inside, scaled onto the rim otherwise. On 4-row contacts the disc
 * carries no torsional friction: the tau row is projected to 0 (use the
 * ellipsoid set for spin friction).
 *
 * In the metric of a block g (project_metric) the disc is the ellipse of
 * equal semi-axes: px_metric_ellipsoid (common.c) with the tau row pinned
 * at 0, which moves (s, t) by g_rr^-1 g_r,tau tau before projecting. */
#include <math.h>

#include "common.h"

static void disc_project(const void *state, const struct px_friction_params *fp,
			 double lambda_n, double *z, uint32_t nf)
{
	(void)state;
	px_disc_project(z, fp->mu * lambda_n);
	if (nf > 2)
		z[2] = 0.0;
}

static void disc_project_metric(const void *state,
				const struct px_friction_params *fp,
				double lambda_n, const double *g, double *z,
				uint32_t nf)
{
	const double radius = fp->mu * lambda_n;
	const double a[3] = {radius, radius, 0.0};
	double m[9];

	if (px_metric_is_scalar(g, nf) || px_metric_load(g, nf, m)) {
		disc_project(state, fp, lambda_n, z, nf);
		return;
	}
	px_metric_ellipsoid(m, nf, a, z);
}

/* What `proxima plugins --describe disc` prints (ABI 1.4). */
static const char disc_doc[] =
	"Isotropic Coulomb friction (Erleben 2017, sec. 3): the friction impulse\n"
	"(s, t) of a contact must lie in the disc of radius mu lambda_n. The\n"
	"projection keeps a point inside and scales a point outside onto the rim:\n"
	"\n"
	"    prox(z) = z                       if |z| <= mu lambda_n\n"
	"              z mu lambda_n / |z|     otherwise\n"
	"\n"
	"On 4-row contacts (a torsional row tau) the disc carries no spin\n"
	"friction: tau is projected to 0; use ellipsoid for torsion. In the\n"
	"metric of a block R (project_metric, ABI 1.1, which rfactor blocked\n"
	"needs) the disc is solved as an ellipsoid of equal semi-axes.\n"
	"\n"
	"Choose it for the true Coulomb cone: the sliding friction opposes the\n"
	"sliding velocity in every direction, which the box model does not do. It\n"
	"is the default and what Siconos's fc3d error measures, so merit = fc3d\n"
	"results compare directly with Siconos and FCLib. The set is not\n"
	"separable: the two friction rows of a contact share one r (rfactor local\n"
	"takes gamma / max(A_ss, A_tt) for both). mu comes from the problem (one\n"
	"per contact); there are no parameters.\n";

static const struct px_friction_ops disc_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_FRICTION,
		.ops_size = sizeof(struct px_friction_ops),
		.name = "disc",
		.summary = "isotropic Coulomb friction: project onto the disc of radius mu * lambda_n",
	},
	/* not separable: s and t share one r; inside the disc z stays, and
	 * the projection is px_disc_project */
	.flags = PX_FRICTION_KEEPS_DISC | PX_FRICTION_IS_DISC,
	.project = disc_project,
	.project_metric = disc_project_metric,
	.doc = disc_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &disc_ops.h;
}
