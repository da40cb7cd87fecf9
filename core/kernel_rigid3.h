/* The rigid 3-row relax kernel (kernel_rigid3.c), which kernel.c's entry
 * points hand full updates to when it applies. It reads the context
 * kernel.h defines and calls nothing of kernel.c: kernel.c -> this ->
 * kernel.h, one way. */
#ifndef PX_KERNEL_RIGID3_H
#define PX_KERNEL_RIGID3_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "problem_impl.h"

/* The arrays one relaxation reads, loaded once per call (here and in
 * kernel_wide.c, which reads its own coefficients, c->wcoef). */
struct px_r3_arrays {
	const double *restrict frame, *restrict lever, *restrict b;
	const double *restrict r, *restrict coef;
	const double *restrict shift; /* the problem's normal shift, or NULL */
	const double *restrict inv_mass, *restrict inv_inertia;
	const uint32_t *restrict body_a, *restrict body_b;
	const struct px_friction_params *friction;
	double *prev; /* the driver's copy of lambda before the sweep */
	px_project_fn project;
	const void *fstate;
	int keeps_disc; /* PX_FRICTION_KEEPS_DISC */
	int is_disc;    /* PX_FRICTION_IS_DISC */
};

static inline struct px_r3_arrays px_r3_arrays(const struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;

	return (struct px_r3_arrays){
		.frame = p->frame,
		.lever = p->lever,
		.b = p->b,
		.r = c->r,
		.coef = c->coef,
		.shift = p->shift,
		.inv_mass = p->inv_mass,
		.inv_inertia = p->inv_inertia,
		.body_a = p->body_a,
		.body_b = p->body_b,
		.friction = p->friction,
		.prev = c->prev,
		.project = c->project,
		.fstate = c->fstate,
		.keeps_disc = c->keeps_disc,
		.is_disc = c->is_disc,
	};
}

/* Whether the rigid 3-row kernel applies: a rigid problem with 3 rows, a
 * diagonal R, a friction set that is not separable. */
int px_r3_applies(const struct px_kernel_ctx *c);
/* Gathers c->coef from c->diag and the friction parameters; 0 or
 * PX_ERR_NOMEM. */
int px_r3_init(struct px_kernel_ctx *c);
/* Contact k's new impulse (a full update) from lambda and w, into out[3]. */
void px_r3_solve(const struct px_kernel_ctx *c, const double *w, uint32_t k,
		 double *out);
/* Write out as contact k's impulse in lambda (the old one to c->prev when
 * set); its change goes to w. */
void px_r3_commit(const struct px_kernel_ctx *c, double *lambda, double *w,
		  uint32_t k, const double *out);
/* Full updates of m <= PX_MAX_LISTS independent lists on the shared
 * lambda and w, interleaved (px_kernel.relax_lists). */
void px_r3_relax_lists(const struct px_kernel_ctx *c,
		       const uint32_t *const *lists, const size_t *counts,
		       unsigned m);

#endif
