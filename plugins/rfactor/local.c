/* R-factor strategy `local` (Erleben 2017, sec. 4.2, eq. 39): r_i = gamma /
 * A_ii per row. gamma = 1 is projected Gauss-Seidel's step, gamma > 1
 * over-relaxes (PSOR); with the box set and nu = 1 the scheme is textbook
 * PGS/PSOR. On a non-separable friction set (disc, ellipsoid) the friction rows
 * of a contact share one r, gamma / max_i A_ii over them: a Euclidean
 * projection with different r per row does not have the Coulomb solution as its
 * fixed point. A sweep whose residual grew is rejected and every r shrunk by nu
 * (back-tracking, Erleben (2017) uses nu = 0.9 for Local), when it grew by more
 * than the factor growth (issue 20; 1 is Erleben's (2017) rule). */
#include <stdio.h>
#include <stdlib.h>

#include <proxima/plugin.h>

enum { P_NU, P_GAMMA, P_GROWTH };

static const struct px_param_decl local_params[] = {
	[P_NU] = {"nu", PX_PARAM_REAL, "1",
		  "back-tracking: r <- nu r when a sweep's residual grew (1: never reject)",
		  1e-6, 1.0, NULL},
	[P_GAMMA] = {"gamma", PX_PARAM_REAL, "1",
		     "relaxation: r_i = gamma / A_ii (1: PGS, > 1: PSOR over-relaxation)",
		     0.01, 1.99, NULL},
	[P_GROWTH] = {"growth", PX_PARAM_REAL, "1.1",
		      "back-tracking rejects a sweep only when its delta exceeds growth times the last accepted one (1: any growth, as Erleben 2017)",
		      1.0, 1e6, NULL},
};

struct local {
	double nu, growth, gamma;
};

static int local_create(const union px_value *v, void **state, char *err,
			size_t errlen)
{
	struct local *s = malloc(sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->nu = v[P_NU].r;
	s->growth = v[P_GROWTH].r;
	s->gamma = v[P_GAMMA].r;
	*state = s;
	return 0;
}

static void local_destroy(void *state)
{
	free(state);
}

static int local_init(void *state, const struct px_problem_info *p,
		      int separable, double *r, char *err, size_t errlen)
{
	const struct local *s = state;
	const uint32_t bs = p->bs;

	for (size_t k = 0; k < p->n_contacts; k++) {
		const double *d = p->diag + k * bs * bs;
		double fmax = 0.0;

		for (uint32_t i = 0; i < bs; i++) {
			double aii = d[i * bs + i];

			if (!(aii > 0.0)) {
				snprintf(err, errlen,
					 "contact %zu: diagonal entry A[%u][%u] of its block is %g, expected > 0",
					 k, i, i, aii);
				return -1;
			}
			r[k * bs + i] = s->gamma / aii;
			if (i > 0)
				fmax = px_max(fmax, aii);
		}
		if (!separable)
			for (uint32_t i = 1; i < bs; i++)
				r[k * bs + i] = s->gamma / fmax;
	}
	return 0;
}

static int local_adapt(void *state, double residual_prev, double residual_new,
		       double *r, size_t n_r)
{
	const struct local *s = state;

	return px_backtrack_growth(s->nu, s->growth, residual_prev,
				   residual_new, r, n_r);
}

/* What `proxima plugins --describe local` prints (ABI 1.4). */
static const char local_doc[] =
	"The Local r-factor strategy (Erleben 2017, sec. 4.2, eq. 39): r_i =\n"
	"gamma / A_ii for every row i, from the diagonal of the contact's block\n"
	"of A. gamma = 1 is projected Gauss-Seidel's step; gamma > 1 over-relaxes\n"
	"(PSOR), gamma < 1 under-relaxes. With friction box and nu = 1 the scheme\n"
	"is textbook PGS/PSOR. On a non-separable friction set (disc, ellipsoid)\n"
	"the friction rows of a contact share one r, gamma / max_i A_ii over\n"
	"them: a Euclidean projection with a different r per row would not have\n"
	"the Coulomb solution as its fixed point.\n"
	"\n"
	"Back-tracking: a sweep whose residual (delta) grew is rejected, lambda\n"
	"rolled back and every r multiplied by nu (Erleben 2017 uses nu = 0.9\n"
	"for Local; Poulsen 2010, sec. 3.5 discusses the choice); nu = 1 never\n"
	"rejects. At most max_backtracks rejections per solve ([solver]). Only a\n"
	"growth by more than the factor growth rejects (default 1.1; 1 is\n"
	"Erleben's (2017) rule): with growth = 1 a slow linear convergence, whose\n"
	"delta wobbles on a plateau, rejected sweep after sweep (Capsules-i122:\n"
	"100 rejections in 10000 sweeps, r shrunk to 0.9^100, fc3d stuck at\n"
	"3.5e-7).\n"
	"\n"
	"Choose it as the default: it adapts to mass ratios per contact and needs\n"
	"no eigenvalue estimate. Erleben (2017) found it using fewer iterations\n"
	"than Global, with more divergence detections. nu defaults to 1 (no\n"
	"back-tracking): with nu = 0.9, transient growths of delta shrink r and\n"
	"stall solves on Capsules and OneObject (doc/config.md, \"Choosing the\n"
	"default\"); set nu < 1 to back-track.\n";

static const struct px_rfactor_ops local_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_RFACTOR,
		.ops_size = sizeof(struct px_rfactor_ops),
		.name = "local",
		.summary = "r_i = gamma/A_ii per row (PGS, PSOR; friction rows share one r on non-separable sets), back-tracking by nu",
		.params = local_params,
		.n_params = sizeof local_params / sizeof *local_params,
		.create = local_create,
		.destroy = local_destroy,
	},
	.shape = PX_R_DIAGONAL,
	.init = local_init,
	.adapt = local_adapt,
	.doc = local_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &local_ops.h;
}
