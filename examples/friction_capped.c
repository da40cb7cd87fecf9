/* A complete friction plugin: Coulomb friction whose impulse is also capped
 * at a fixed magnitude, the disc of radius min(mu * lambda_n, cap).
 *
 * Build it against the installed header and drop it on the search path:
 *   cc -shared -fPIC $(pkg-config --cflags proxima) \
 *      -o friction_capped.so friction_capped.c -lm
 *   PROXIMA_PLUGIN_PATH=$PWD proxima solve -c capped.ini scenes/two-boxes.dat
 * with capped.ini holding "[friction]", "plugin = capped", "cap = 0.05",
 * "[solver]", "merit = natural" (the set's own law; fc3d measures the
 * disc). */
#include <math.h>
#include <stdlib.h>

#include <proxima/plugin.h>

static const struct px_param_decl capped_params[] = {
	{"cap", PX_PARAM_REAL, "1", "largest friction impulse magnitude", 0,
	 1e300, NULL},
};

static int capped_create(const union px_value *values, void **state,
			 char *err, size_t errlen)
{
	double *cap = malloc(sizeof *cap);

	(void)err;
	(void)errlen;
	if (!cap)
		return -1;
	*cap = values[0].r; /* values come in declaration order */
	*state = cap;
	return 0;
}

static void capped_destroy(void *state)
{
	free(state);
}

/* Hot path: project z = (s, t) onto the disc; never allocate or fail. */
static void capped_project(const void *state,
			   const struct px_friction_params *fp,
			   double lambda_n, double *z, uint32_t nf)
{
	const double cap = *(const double *)state;
	const double radius = fmin(fp->mu * lambda_n, cap);
	const double len = hypot(z[0], z[1]);

	if (len > radius) {
		z[0] *= len > 0 ? radius / len : 0;
		z[1] *= len > 0 ? radius / len : 0;
	}
	if (nf > 2)
		z[2] = 0; /* no torsional friction on 4-row contacts */
}

static const struct px_friction_ops capped_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_FRICTION,
		.ops_size = sizeof(struct px_friction_ops),
		.name = "capped", /* the file must be friction_capped.so */
		.summary = "Coulomb disc capped at a fixed impulse magnitude",
		.params = capped_params,
		.n_params = 1,
		.create = capped_create,
		.destroy = capped_destroy,
	},
	.flags = 0, /* a disc is not separable: s and t share one r */
	.project = capped_project,
	/* ABI 1.4: what `proxima plugins --describe capped` prints, as written */
	.doc = "Coulomb's disc of radius mu lambda_n, but never wider than cap:\n"
	       "a friction force that saturates, e.g. for a tyre. Choose it to\n"
	       "bound the friction impulse of heavily loaded contacts.\n",
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &capped_ops.h;
}
