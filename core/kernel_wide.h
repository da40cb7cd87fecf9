/* The wide relax kernel (kernel_wide.c, [solver] kernel = wide): the rigid
 * 3-row update on four contacts at once, one per SIMD lane, lane j
 * walking list j of a relax_lists call. Like kernel_rigid3.h it reads the
 * context kernel.h defines and calls nothing of kernel.c. */
#ifndef PX_KERNEL_WIDE_H
#define PX_KERNEL_WIDE_H

#include "kernel.h"

/* Whether the wide kernel applies: a rigid problem with 3 rows, a
 * diagonal R, projections (not local Newton solves, unless one projection
 * is the exact local solve of every contact: px_kernel_set_local), and the
 * disc or a separable friction set (box). Elsewhere the scalar kernels
 * run. */
int px_wide_applies(const struct px_kernel_ctx *c);
/* Gathers c->wcoef (A_sn, A_tn, A_ts, mu per contact); 0 or
 * PX_ERR_NOMEM. */
int px_wide_init(struct px_kernel_ctx *c);
/* Frees the cache of lane-ordered constants (c->wcache). */
void px_wide_fini(struct px_kernel_ctx *c);
/* Bytes of that cache now. */
size_t px_wide_bytes(const struct px_kernel_ctx *c);
/* Sets c->wide_relax and c->wide_isa for this CPU: AVX-512VL or AVX2
 * where __builtin_cpu_supports finds it, else the baseline's vectors.
 * PROXIMA_WIDE_ISA=generic (the baseline's) or avx2 (where the CPU has it)
 * chooses a lower one, so that tests and benchmarks reach every build. */
void px_wide_select(struct px_kernel_ctx *c);

#endif
