/* The relax kernel behind struct px_kernel (private to the core). */
#ifndef PX_KERNEL_H
#define PX_KERNEL_H

#include <proxima/plugin.h>
#include <proxima/problem.h>

struct px_kernel_ctx {
	const struct px_problem *p;
	double *lambda;  /* current iterate, n * bs */
	double *w;       /* body velocities M^-1 J^T lambda, n_bodies * 6 */
	const double *r; /* r-factors in r_shape layout */
	uint32_t r_shape;
	void (*project)(const void *state, const struct px_friction_params *fp,
			double lambda_n, double *z, uint32_t nf);
	const void *fstate;
	/* factorized: body -> contact<<1|side incidence */
	size_t *inc_ptr;
	uint32_t *inc;
	/* assembled: transpose pattern of non-zero off-diagonal blocks */
	size_t *tr_ptr;
	uint32_t *tr;
	/* conflict graph, built on demand */
	uint32_t *conf_ptr, *conf;
};

int px_kernel_init(struct px_kernel_ctx *c, struct px_kernel *kern,
		   const struct px_problem *p, double *lambda, double *w,
		   const double *r, uint32_t r_shape,
		   const struct px_friction_ops *fops, const void *fstate);
void px_kernel_fini(struct px_kernel_ctx *c);

#endif
