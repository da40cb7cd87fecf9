/* Accelerator `prox`: a proximal point method with an inner semismooth
 * Newton method, which drives the whole solve (plugin ABI 1.10,
 * PX_ACCEL_DRIVES: the host runs no sweep, it calls step, one Newton step
 * each, and runs its stop test after each).
 *
 * The method is prox_method.c's, which the accelerator auto runs between
 * Gauss-Seidel sweeps instead. */
#include <stdio.h>
#include <stdlib.h>

#include <proxima/plugin.h>

#include "prox_method.h"

static const struct px_param_decl prox_params[] = {PROX_METHOD_PARAMS};

static int prox_create(const union px_value *v, void **state, char *err,
		       size_t errlen)
{
	struct prox_method *s = calloc(1, sizeof *s);

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	if (prox_method_init(s, v, err, errlen)) {
		free(s);
		return 1;
	}
	*state = s;
	return 0;
}

static void prox_destroy(void *state)
{
	prox_method_free(state);
	free(state);
}

static int prox_prepare(void *state, const struct px_accel_host *h,
			uint64_t *every, char *err, size_t errlen)
{
	*every = 1;
	return prox_method_prepare(state, h, err, errlen);
}

static void prox_step(void *state, const struct px_accel_host *h,
		      struct px_accel_result *res)
{
	prox_method_step(state, h, res);
}

static void prox_finish(void *state, const struct px_accel_host *h,
			struct px_accel_result *res)
{
	prox_method_finish(state, h, res);
}

static void prox_describe(const void *state, char *buf, size_t len)
{
	prox_method_describe(state, buf, len);
}

/* What `proxima plugins --describe prox` prints (ABI 1.4). */
static const char prox_doc[] =
	"A proximal point method whose every step solves the regularized\n"
	"problem FC3D(A + sigma I, b - sigma z) about the centre z by\n"
	"semismooth Newton steps (the method of Siconos's PROX). It drives\n"
	"the whole solve (plugin ABI 1.10): no Gauss-Seidel sweep runs, the\n"
	"driver calls it once per Newton step and runs the stop test of\n"
	"[solver] merit (not delta) after each.\n"
	"\n"
	"The inner problem is Alart and Curnier's phi(x) = x - P(x - diag(r)\n"
	"u), u = A x + b + sigma (x - z), P the projection onto R+ x\n"
	"disc(mu max(0, y_n)) per contact, r_n = 1/(A_nn + sigma), r_t =\n"
	"2/(A_ss + A_tt + 2 sigma). Its Jacobian J = (I - G) + G diag(r) (A +\n"
	"sigma I) is sparse and unsymmetric: each step solves J d = -phi by a\n"
	"sparse LU (SuiteSparse), the symbolic analysis once per solve: with\n"
	"factor = auto (the default) KLU, whose next steps refactorize J with\n"
	"the last pivots while they hold (a fresh factorization when the\n"
	"pivot ratio drops), unless KLU's analysis estimates more than 3e6\n"
	"flops per factorization (much fill), then UMFPACK, factorized afresh\n"
	"each step, without iterative refinement. Then a\n"
	"non-monotone line search on ||phi||^2 (a trial against the largest\n"
	"of the last `memory` merits). A proximal step ends after max_inner\n"
	"Newton steps or when ||phi|| fell to inner_tol of its value at the\n"
	"centre.\n"
	"\n"
	"sigma is adaptive: at each centre sigma times the mean diagonal\n"
	"entry of A times min(1, e)^nu, e the original problem's relative\n"
	"residual ||phi_0(z)|| / ||z||, at least sigma_min times that entry,\n"
	"so that the last steps are Newton's on the original problem. A\n"
	"failed Newton step (singular J, no descent) is retried in the same\n"
	"call with 10 times sigma, up to 10^6 times; a proximal step without\n"
	"failure takes a factor 10 of that back. A proximal step solved\n"
	"exactly (its ||phi|| down to exact times the centre's: the contacts'\n"
	"states held, a linear solve) makes the next sigma 10 times below the\n"
	"last, down to 10^-6 of the rule; any other puts the rule back. When\n"
	"every retry fails the iterate stays and the solve stops as stalled;\n"
	"a solve that ends without converging gets the best iterate by\n"
	"||phi_0||.\n"
	"\n"
	"Memory is allocated once per solve (A copied or probed as ssn does,\n"
	"J's pattern and values, ten vectors); KLU's factors are kept from\n"
	"one step to the next, UMFPACK's allocated and freed inside each\n"
	"step. The accelerator line gives the LU, its factorizations (and how\n"
	"many reused the last pivots) and the peak: the arrays plus the LU's\n"
	"largest reported peak. Disc friction on 3-row contacts only.\n";

static const struct px_accelerator_ops prox_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ACCELERATOR,
		.ops_size = sizeof(struct px_accelerator_ops),
		.name = "prox",
		.summary = "proximal point method with semismooth Newton steps (Alart-Curnier, KLU or UMFPACK) on A + sigma I; drives the whole solve",
		.params = prox_params,
		.n_params = sizeof prox_params / sizeof *prox_params,
		.create = prox_create,
		.destroy = prox_destroy,
	},
	.prepare = prox_prepare,
	.step = prox_step,
	.finish = prox_finish,
	.describe = prox_describe,
	.doc = prox_doc,
	.flags = PX_ACCEL_DRIVES,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &prox_ops.h;
}
