/* The relax kernel behind struct px_kernel (private to the core). */
#ifndef PX_KERNEL_H
#define PX_KERNEL_H

#include <stddef.h>

#include <proxima/plugin.h>
#include <proxima/problem.h>

typedef void (*px_project_fn)(const void *state,
			      const struct px_friction_params *fp,
			      double lambda_n, double *z, uint32_t nf);
typedef void (*px_project_metric_fn)(const void *state,
				     const struct px_friction_params *fp,
				     double lambda_n, const double *g, double *z,
				     uint32_t nf);

struct px_kernel_ctx {
	const struct px_problem *p;
	double *lambda;  /* current iterate, n * bs */
	double *w;       /* body velocities M^-1 J^T lambda, n_bodies * 6 */
	const double *diag; /* diagonal blocks of A, bs*bs per contact */
	const double *r;    /* r-factors in r_shape layout */
	uint32_t r_shape;
	int separable;      /* PX_FRICTION_SEPARABLE */
	px_project_fn project;
	px_project_metric_fn project_metric; /* NULL if the plugin has none */
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
		   const double *diag, const double *r, uint32_t r_shape,
		   const struct px_friction_ops *fops, const void *fstate);

/* The friction plugin's project_metric, or NULL when it has none (ABI 1.0
 * plugins, whose ops struct ends before it). */
static inline px_project_metric_fn
px_friction_project_metric(const struct px_friction_ops *f)
{
	const size_t end = offsetof(struct px_friction_ops, project_metric) +
			   sizeof f->project_metric;

	return f->h.abi_minor >= 1 && f->h.ops_size >= end ? f->project_metric
							    : NULL;
}
void px_kernel_fini(struct px_kernel_ctx *c);
/* Bytes of the kernel's own arrays (incidence, conflict graph if built). */
size_t px_kernel_bytes(const struct px_kernel_ctx *c);

#endif
