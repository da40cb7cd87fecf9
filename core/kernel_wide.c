/* The wide relax kernel ([solver] kernel = wide, issue 34): the rigid 3-row
 * update of kernel_rigid3.c (Erleben 2017, eq. 20-24) on up to four
 * contacts at once, one per SIMD lane, in structure-of-arrays form. The
 * lanes are the independent lists of one relax_lists call (plugin.h: no
 * contact of one list shares a dynamic body with a contact of another),
 * so lane j walks list j in its order, Gauss-Seidel inside each list: with
 * `colored patches = K lanes = 4` every lane is one spatial patch, and a
 * wide sweep keeps the sequential order's convergence inside each (Box2D
 * v3 instead packs single contacts of one graph color, which costs
 * sweeps on lattices: bench/schedulers.sh). Per step the kernel gathers
 * the lanes' contact data and bodies' velocities into vectors, computes
 * the normal row, the friction rows and the velocity changes in the
 * vectors, and scatters the impulses and velocities back.
 *
 * The contacts' constants come in lane order (struct wide_group): the
 * first call with a set of lists copies, group by group, lane j's i-th
 * contact's frame, lever arms, coefficients, b, r and bodies' pointers
 * and inverse masses into structure-of-arrays groups, so that a step
 * reads each of them for its 4 lanes with one aligned vector load (Box2D
 * v3 keeps its contact constraints so); later calls with the same lists
 * (pointers, counts and contents: a scheduler hands the same lists every
 * sweep) reuse them, b and r filled again when the driver says they may
 * have changed (c->wide_gen). Only lambda and the bodies' velocities,
 * which the lanes' lists share, are gathered and scattered per step.
 *
 * Four lanes because relax_lists takes at most PX_MAX_LISTS = 4 lists
 * (plugin ABI 1.4; raising it changes the ABI), so an AVX-512 machine
 * runs 4 lanes too, in the 32 registers of AVX-512VL. On x86-64 the
 * vector code is built three times, for AVX-512VL, AVX2 and the baseline
 * (SSE2, two halves), and chosen at run time by __builtin_cpu_supports;
 * elsewhere (arm64: NEON) the compiler's generic vectors. No build may
 * fuse a product and a sum (fp-contract off for this file): every lane
 * does the scalar kernel's operations in its order, so lambda is bit for
 * bit kernel_rigid3.c's whichever lane or list a contact is in, and so the
 * same for any thread count (tests/test_wide.c), where kernel_rigid3.c is
 * itself built without fused multiply-adds (x86-64's baseline).
 *
 * Cost (doc/benchmarks.md, the wide kernel; an AMD EPYC shared with
 * other jobs): with the groups, `bench/roofline --variant wide
 * --solve-only --sweeps 300 ballgrid-24` took 25.2 ns per contact-sweep
 * in the sweeps (best of 8 alternating runs at load 2; median 27.8)
 * against 36.1 (42.9) with the per-step transposes before them and 21.2
 * (22.8) for the scalar kernel (`--variant rigid3`); `--sweeps 100
 * ballgrid-40` 45.4 (48.8) against 58.7 (64.0) and 26.0 (31.2). Under
 * load 4-8 every figure doubles, the order stays. A step of 4
 * lanes is about 1070 instructions (cachegrind, AVX2 build: 268 per
 * contact against 415 before and the scalar kernel's 325), but where the
 * scalar kernel streams its arrays in order the lanes walk 4 places at
 * once and wait on memory: prefetching the groups 4 ahead took
 * ballgrid-24 from 34.9 to 25.2 ns (kernel_wide_step.h, WIDE_PF).
 * Before the groups: the lanes' pointers built where each load needs
 * them (kept for the whole step, 60 of them went to the stack and back);
 * masked gathers (vgatherqpd) instead of the transposes were slower
 * still (97-105 ns), as were loads of each lane's values one by one.
 *
 * Friction: the disc (PX_FRICTION_IS_DISC) in the vectors, the lanes on
 * the rim or off a zero radius through px_disc_project one by one (its
 * hypot has no vector form); a separable set (box) row by row per lane
 * through the plugin, as kernel.c's friction_diagonal does. Other sets
 * (ellipsoid) and block R keep the scalar kernels: px_wide_applies. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_rigid3.h"
#include "kernel_wide.h"
#include "kernel_wide_groups.h"
#include "problem_impl.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif



int px_wide_applies(const struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;

	/* local Newton solves only where one projection is them (local_r,
	 * px_kernel_set_local) */
	return p->form == PX_FORM_RIGID && p->bs == 3 &&
	       c->r_shape != PX_R_BLOCK && (!c->local_newton || c->local_r) &&
	       (c->is_disc || c->separable);
}

int px_wide_init(struct px_kernel_ctx *c)
{
	const struct px_problem *p = c->p;

	c->wcoef = malloc(4 * p->n * sizeof *c->wcoef + 1);
	c->wcache = px_wide_cache_new();
	if (!c->wcoef || !c->wcache)
		return PX_ERR_NOMEM;
	for (size_t k = 0; k < p->n; k++) {
		c->wcoef[4 * k] = c->diag[9 * k + 3];     /* A_sn */
		c->wcoef[4 * k + 1] = c->diag[9 * k + 6]; /* A_tn */
		c->wcoef[4 * k + 2] = c->diag[9 * k + 7]; /* A_ts */
		c->wcoef[4 * k + 3] = p->friction[k].mu;
	}
	return PX_OK;
}

/* m ? a : b lane by lane (a macro: a function returning a vector would
 * change the ABI between the AVX2 and the baseline builds) */
#define SEL(m, a, b) ((v4)(((v4m)(a) & (m)) | ((v4m)(b) & ~(m))))

/* Lane j's friction rows of a separable set, as friction_diagonal does:
 * s first, then t seeing s's change through A_ts. */
static void separable_lane(const struct wide *s, uint32_t k, double ln,
			   const double *lam, double v1, double v2,
			   double *out)
{
	const double *r = s->a.r + 3 * (size_t)k;
	const double a_ts = s->a.coef[4 * (size_t)k + 2];
	double z[2], d;

	z[0] = lam[1] - r[1] * v1;
	z[1] = lam[2];
	s->a.project(s->a.fstate, &s->a.friction[k], ln, z, 2);
	d = z[0] - lam[1];
	out[1] = z[0];
	v2 += a_ts * d;
	z[0] = out[1];
	z[1] = lam[2] - r[2] * v2;
	s->a.project(s->a.fstate, &s->a.friction[k], ln, z, 2);
	out[2] = z[1];
}

/* The step and the loops over the lists, built once per instruction set
 * (kernel_wide_step.h). A lane reads its contact's and bodies' values
 * through a pointer (px_wide_zeros for the static world and an idle lane's
 * bodies; an idle lane reads lane 0's contact, its results dropped): the
 * baseline one value at a time, AVX2 four consecutive values of each lane
 * at once, transposed in registers (masked gathers were slower on grid-24,
 * AMD EPYC). W_T4(p, off, o0..o3): o_i[j] = p[j][off + i];
 * W_T3 the same for i < 3, reading no further; W_ONE(p, off). */
#define W_ONE(p, off) ((v4){(p)[0][off], (p)[1][off], (p)[2][off], (p)[3][off]})
#define W_NAME(x) x##_generic
#define W_T4(p, off, o0, o1, o2, o3)                                           \
	do {                                                                   \
		o0 = W_ONE(p, (off));                                          \
		o1 = W_ONE(p, (off) + 1);                                      \
		o2 = W_ONE(p, (off) + 2);                                      \
		o3 = W_ONE(p, (off) + 3);                                      \
	} while (0)
#define W_T3(p, off, o0, o1, o2)                                               \
	do {                                                                   \
		o0 = W_ONE(p, (off));                                          \
		o1 = W_ONE(p, (off) + 1);                                      \
		o2 = W_ONE(p, (off) + 2);                                      \
	} while (0)
#include "kernel_wide_step.h"
#undef W_NAME
#undef W_T4
#undef W_T3

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* each ISA's functions compiled for it: GCC's target pragma; clang reads
 * only its own attribute pragma */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define W_NAME(x) x##_avx2
/* the 4x4 transpose of rows r0..r3 into columns o0..o3 */
#define W_TRANSPOSE(r0, r1, r2, r3, o0, o1, o2, o3)                            \
	do {                                                                   \
		const __m256d t0_ = _mm256_unpacklo_pd(r0, r1);                \
		const __m256d t1_ = _mm256_unpackhi_pd(r0, r1);                \
		const __m256d t2_ = _mm256_unpacklo_pd(r2, r3);                \
		const __m256d t3_ = _mm256_unpackhi_pd(r2, r3);                \
		o0 = (v4)_mm256_permute2f128_pd(t0_, t2_, 0x20);               \
		o1 = (v4)_mm256_permute2f128_pd(t1_, t3_, 0x20);               \
		o2 = (v4)_mm256_permute2f128_pd(t0_, t2_, 0x31);               \
		o3 = (v4)_mm256_permute2f128_pd(t1_, t3_, 0x31);               \
	} while (0)
#define W_T4(p, off, o0, o1, o2, o3)                                           \
	W_TRANSPOSE(_mm256_loadu_pd((p)[0] + (off)),                           \
		    _mm256_loadu_pd((p)[1] + (off)),                           \
		    _mm256_loadu_pd((p)[2] + (off)),                           \
		    _mm256_loadu_pd((p)[3] + (off)), o0, o1, o2, o3)
/* 3 values per lane of an array of 3 per contact: 4 plain loads where
 * every lane's contact has one after it (the step's `last` is 0), masked
 * loads (slower) where one may be the array's last */
#define W_T3(p, off, o0, o1, o2)                                               \
	do {                                                                   \
		const __m256i m3_ = _mm256_set_epi64x(0, -1, -1, -1);          \
		v4 o3_;                                                        \
		if (!last)                                                     \
			W_T4(p, off, o0, o1, o2, o3_);                         \
		else                                                           \
			W_TRANSPOSE(_mm256_maskload_pd((p)[0] + (off), m3_),   \
				    _mm256_maskload_pd((p)[1] + (off), m3_),   \
				    _mm256_maskload_pd((p)[2] + (off), m3_),   \
				    _mm256_maskload_pd((p)[3] + (off), m3_),   \
				    o0, o1, o2, o3_);                          \
		(void)o3_;                                                     \
	} while (0)
#include "kernel_wide_step.h"
#undef W_NAME
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

/* the same 4-lane code with AVX-512VL's 32 vector registers, so that the
 * step's ~40 live vectors stay out of memory */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,avx512f,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512vl")
#endif
#define W_NAME(x) x##_avx512vl
#include "kernel_wide_step.h"
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

void px_wide_select(struct px_kernel_ctx *c)
{
	const char *want = getenv("PROXIMA_WIDE_ISA");

	c->wide_relax = relax_lists_generic;
	c->wide_isa = "generic";
	if (want && !strcmp(want, "generic"))
		return;
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512vl") &&
	    !(want && !strcmp(want, "avx2"))) {
		c->wide_relax = relax_lists_avx512vl;
		c->wide_isa = "avx512vl";
	} else if (__builtin_cpu_supports("avx2")) {
		c->wide_relax = relax_lists_avx2;
		c->wide_isa = "avx2";
	} else {
		c->wide_isa = "sse2";
	}
#endif
}
