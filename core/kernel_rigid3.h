/* The rigid 3-row relax kernel (kernel_rigid3.c), which kernel.c's entry
 * points hand full updates to when it applies. It reads the context
 * kernel.h defines and calls nothing of kernel.c: kernel.c -> this ->
 * kernel.h, one way. */
#ifndef PX_KERNEL_RIGID3_H
#define PX_KERNEL_RIGID3_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

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
