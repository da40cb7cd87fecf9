/* R-factor strategy `blocked` (Erleben 2017, sec. 4.2, eq. 40): per contact
 *
 *     R_k = [ 1/A_nn     0           ]
 *           [ 0          A_ff^-1     ]   (f = s, t[, tau])
 *
 * from the contact's diagonal block of A (its friction block symmetrized).
 * Erleben (2017) found this strategy to fail in practice. The reason: with a
 * non-scalar R_ff, the Euclidean projection of lambda_f - R_ff v_f onto the
 * friction set does not have the Coulomb law as its fixed point (its fixed
 * points satisfy -R_ff v_f in N_F, not -v_f in N_F), so the iteration
 * heads for a wrong answer and back-tracking fires over and over. proxima
 * projects in the metric R_ff^-1 = A_ff instead (friction project_metric,
 * plugin ABI 1.1), whose fixed point is the Coulomb law: with R as above
 * that is the exact solve of the contact's friction rows for its new normal
 * impulse. The host refuses a friction plugin without project_metric.
 * A sweep whose residual grew is rejected and R <- nu R (Erleben 2017: nu =
 * 0.5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/plugin.h>

enum { P_NU, P_GROWTH };

static const struct px_param_decl blocked_params[] = {
	[P_NU] = {"nu", PX_PARAM_REAL, "0.5",
		  "back-tracking: R <- nu R when a sweep's residual grew (1: never reject)",
		  1e-6, 1.0, NULL},
	[P_GROWTH] = {"growth", PX_PARAM_REAL, "1.1",
		      "back-tracking rejects a sweep only when its delta exceeds growth times the last accepted one (1: any growth, as Erleben 2017)",
		      1.0, 1e6, NULL},
};

struct blocked {
	double nu, growth;
};

static int blocked_create(const union px_value *v, void **state, char *err,
			  size_t errlen)
{
	struct blocked *s = malloc(sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->nu = v[P_NU].r;
	s->growth = v[P_GROWTH].r;
	*state = s;
	return 0;
}

static void blocked_destroy(void *state)
{
	free(state);
}

static int blocked_init(void *state, const struct px_problem_info *p,
			int separable, double *r, char *err, size_t errlen)
{
	const uint32_t bs = p->bs, nf = bs - 1;

	(void)state;
	(void)separable; /* the metric projection is sound for every set */
	for (size_t k = 0; k < p->n_contacts; k++) {
		const double *d = p->diag + k * bs * bs;
		double *R = r + k * bs * bs, aff[9], inv[9];

		if (!(d[0] > 0.0)) {
			snprintf(err, errlen,
				 "contact %zu: normal entry A_nn of its block is %g, expected > 0",
				 k, d[0]);
			return -1;
		}
		for (uint32_t i = 0; i < nf; i++)
			for (uint32_t j = 0; j < nf; j++)
				aff[i * nf + j] = 0.5 * (d[(i + 1) * bs + j + 1] +
							 d[(j + 1) * bs + i + 1]);
		if (!px_spd_inverse(aff, nf, inv)) {
			snprintf(err, errlen,
				 "contact %zu: the friction block of its diagonal block of A is not positive definite",
				 k);
			return -1;
		}
		memset(R, 0, bs * bs * sizeof *R);
		R[0] = 1.0 / d[0];
		for (uint32_t i = 0; i < nf; i++)
			for (uint32_t j = 0; j < nf; j++)
				R[(i + 1) * bs + j + 1] = inv[i * nf + j];
	}
	return 0;
}

static int blocked_adapt(void *state, double residual_prev,
			 double residual_new, double *r, size_t n_r)
{
	const struct blocked *s = state;

	return px_backtrack_growth(s->nu, s->growth, residual_prev,
				   residual_new, r, n_r);
}

/* What `proxima plugins --describe blocked` prints (ABI 1.4). */
static const char blocked_doc[] =
	"The Blocked r-factor strategy (Erleben 2017, sec. 4.2, eq. 40): per\n"
	"contact a block\n"
	"\n"
	"    R_k = [ 1/A_nn   0        ]\n"
	"          [ 0        A_ff^-1  ]     (f = s, t[, tau])\n"
	"\n"
	"from the contact's diagonal block of A (friction block symmetrized).\n"
	"Erleben (2017) found it the worst strategy, failing in practice. The\n"
	"reason: with a non-scalar R_ff the Euclidean projection of lambda_f -\n"
	"R_ff v_f does not have Coulomb's law as its fixed point, so the\n"
	"iteration heads for a wrong answer and back-tracking fires over and\n"
	"over. proxima projects in the metric A_ff instead (the friction plugin's\n"
	"project_metric, ABI 1.1), whose fixed point is Coulomb's law: with this\n"
	"R it is the exact solve of the contact's friction rows for its new\n"
	"normal impulse. The host refuses a friction plugin without\n"
	"project_metric (plugins built for ABI 1.0).\n"
	"\n"
	"Choose it for strongly coupled friction rows (long thin contacts,\n"
	"anisotropic inertia) where one r per row converges slowly. A sweep whose\n"
	"residual grew is rejected and R multiplied by nu (Erleben 2017: 0.5).\n";

static const struct px_rfactor_ops blocked_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_RFACTOR,
		.ops_size = sizeof(struct px_rfactor_ops),
		.name = "blocked",
		.summary = "R_k = diag(1/A_nn, A_ff^-1) per contact, friction projected in the metric A_ff, back-tracking by nu",
		.params = blocked_params,
		.n_params = sizeof blocked_params / sizeof *blocked_params,
		.create = blocked_create,
		.destroy = blocked_destroy,
	},
	.shape = PX_R_BLOCK,
	.init = blocked_init,
	.adapt = blocked_adapt,
	.doc = blocked_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &blocked_ops.h;
}
