/* bench/roofline_machine.h: the machine's limits, measured. The triad is
 * STREAM's (McCalpin 1995, "Memory bandwidth and machine balance"); the
 * FMA peak runs 12 or 16 independent chains of a = a m + c per thread, more
 * than an FMA's latency times the FMA units, so that throughput and not
 * latency bounds them, in the widest vectors __builtin_cpu_supports finds
 * (one build for any x86-64; other CPUs take the baseline's vectors). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "common.h"
#include "roofline_machine.h"

#if defined(__x86_64__)
#include <immintrin.h>
/* the triad's loop in each vector width the CPU may offer, chosen at load */
#define ROOFLINE_CLONES                                                        \
	__attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ROOFLINE_CLONES
#endif

size_t roofline_llc_bytes(int *level)
{
	size_t best = 0;

	*level = 0;
	for (int i = 0; i < 16; i++) {
		char path[96], type[32] = "", size[32] = "";
		int lv = 0;
		FILE *f;
		char *end;
		size_t bytes;

		snprintf(path, sizeof path,
			 "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fscanf(f, "%d", &lv) != 1)
			lv = 0;
		fclose(f);
		snprintf(path, sizeof path,
			 "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%31s", type) != 1)
				type[0] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof path,
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%31s", size) != 1)
				size[0] = '\0';
			fclose(f);
		}
		if (!strcmp(type, "Instruction"))
			continue;
		bytes = strtoull(size, &end, 10);
		if (*end == 'K')
			bytes <<= 10;
		else if (*end == 'M')
			bytes <<= 20;
		if (lv > *level || (lv == *level && bytes > best)) {
			*level = lv;
			best = bytes;
		}
	}
	return best;
}

ROOFLINE_CLONES
static void triad_range(double *restrict a, const double *restrict b,
			const double *restrict c, double s, size_t lo,
			size_t hi)
{
	for (size_t i = lo; i < hi; i++)
		a[i] = b[i] + s * c[i];
}

/* thread t's share of [0, n) */
static void share(size_t n, int threads, int t, size_t *lo, size_t *hi)
{
	*lo = n * (size_t)t / (size_t)threads;
	*hi = n * ((size_t)t + 1) / (size_t)threads;
}

double roofline_triad(size_t n, int threads, double min_time)
{
	double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
	       *c = malloc(n * sizeof *c);
	double best = 0.0, start = 0.0;

	if (!a || !b || !c) {
		free(a);
		free(b);
		free(c);
		return 0.0;
	}
	/* first touch by the thread that streams each part (NUMA) */
#pragma omp parallel num_threads(threads)
	{
		size_t lo, hi;

		share(n, threads, omp_get_thread_num(), &lo, &hi);
		for (size_t i = lo; i < hi; i++) {
			a[i] = 0.0;
			b[i] = 1.0;
			c[i] = 2.0;
		}
	}
	start = bench_now();
	for (int pass = 0; pass < 3 || bench_now() - start < min_time; pass++) {
		const double t0 = bench_now();
		double dt;

#pragma omp parallel num_threads(threads)
		{
			size_t lo, hi;

			share(n, threads, omp_get_thread_num(), &lo, &hi);
			triad_range(a, b, c, 3.0, lo, hi);
		}
		dt = bench_now() - t0;
		if (dt > 0.0 && 24.0 * (double)n / dt > best)
			best = 24.0 * (double)n / dt;
	}
	/* a[] is read, so that the passes cannot be dropped */
	if (a[n / 2] != 7.0)
		best = 0.0;
	free(a);
	free(b);
	free(c);
	return best;
}

/* CHAINS_n(OP): OP(0) ... OP(n - 1), the chains written out so that each
 * stays in a register */
#define CHAINS_12(OP)                                                          \
	OP(0)                                                                  \
	OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)
#define CHAINS_16(OP) CHAINS_12(OP) OP(12) OP(13) OP(14) OP(15)

/* FMA_CHAINS(LANES, CHAINS): the body of a function of `iters` that runs
 * `iters` rounds of every chain and returns the sum of their lanes, in the
 * vector type V of LANES doubles with the intrinsics V_SET1, V_FMA, V_ADD,
 * V_ZERO and V_STORE, which each ISA's function defines first */
#define DECL(j) V x##j = V_SET1(1.0 + 1e-3 * (j));
#define STEP(j) x##j = V_FMA(x##j, m, c);
#define SUM(j) s = V_ADD(s, x##j);
#define FMA_CHAINS(LANES, CHAINS)                                             \
	const V m = V_SET1(0.999999), c = V_SET1(1e-7);                       \
	V s = V_ZERO();                                                       \
	double out[LANES], sum = 0.0;                                         \
                                                                               \
	CHAINS(DECL)                                                          \
	for (uint64_t i = 0; i < iters; i++) {                                \
		CHAINS(STEP)                                                  \
	}                                                                     \
	CHAINS(SUM)                                                           \
	V_STORE(out, s);                                                      \
	for (int i = 0; i < (LANES); i++)                                     \
		sum += out[i];                                                \
	return sum;

#if defined(__x86_64__)
#define V __m512d
#define V_SET1 _mm512_set1_pd
#define V_FMA _mm512_fmadd_pd
#define V_ADD _mm512_add_pd
#define V_ZERO _mm512_setzero_pd
#define V_STORE _mm512_storeu_pd
__attribute__((target("avx512f"))) static double fma_avx512(uint64_t iters)
{
	FMA_CHAINS(8, CHAINS_16)
}
#undef V
#undef V_SET1
#undef V_FMA
#undef V_ADD
#undef V_ZERO
#undef V_STORE

#define V __m256d
#define V_SET1 _mm256_set1_pd
#define V_FMA _mm256_fmadd_pd
#define V_ADD _mm256_add_pd
#define V_ZERO _mm256_setzero_pd
#define V_STORE _mm256_storeu_pd
__attribute__((target("avx2,fma"))) static double fma_avx2(uint64_t iters)
{
	FMA_CHAINS(4, CHAINS_12)
}
#undef V
#undef V_SET1
#undef V_FMA
#undef V_ADD
#undef V_ZERO
#undef V_STORE
#endif
#undef DECL
#undef STEP
#undef SUM

/* the baseline: 2-lane vectors (SSE2, NEON), a multiply and an add (or
 * the FMA the compiler contracts them into) */
typedef double v2d __attribute__((vector_size(16)));
#define DECL(j) v2d x##j = {1.0 + 1e-3 * (j), 1.0 + 1e-3 * (j)};
#define STEP(j) x##j = x##j * m + c;
#define SUM(j) s += x##j;
static double fma_base(uint64_t iters)
{
	const v2d m = {0.999999, 0.999999}, c = {1e-7, 1e-7};
	v2d s = {0.0, 0.0};

	CHAINS_12(DECL)
	for (uint64_t i = 0; i < iters; i++) {
		CHAINS_12(STEP)
	}
	CHAINS_12(SUM)
	return s[0] + s[1];
}
#undef DECL
#undef STEP
#undef SUM

double roofline_fma_peak(int threads, double min_time, const char **isa)
{
	const uint64_t iters = 1u << 20;
	double (*run)(uint64_t) = fma_base;
	double per_iter = 12 * 2 * 2, best = 0.0, sink = 0.0, start;

	*isa = "baseline 2-lane";
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx512f")) {
		run = fma_avx512;
		per_iter = 16 * 8 * 2;
		*isa = "avx512f";
	} else if (__builtin_cpu_supports("avx2") &&
		   __builtin_cpu_supports("fma")) {
		run = fma_avx2;
		per_iter = 12 * 4 * 2;
		*isa = "avx2+fma";
	}
#endif
	start = bench_now();
	for (int rep = 0; rep < 3 || bench_now() - start < min_time; rep++) {
		const double t0 = bench_now();
		double dt;

#pragma omp parallel num_threads(threads) reduction(+ : sink)
		sink += run(iters);
		dt = bench_now() - t0;
		if (dt > 0.0 && per_iter * (double)iters * threads / dt > best)
			best = per_iter * (double)iters * threads / dt;
	}
	/* the chains converge to c / (1 - m) = 0.1: a sum that is not
	 * finite means the arithmetic went wrong */
	return sink == sink ? best : 0.0;
}
