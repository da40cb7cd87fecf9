/* What the machine allows (bench/roofline): the last-level cache's size,
 * the streaming bandwidth of a STREAM-like triad (McCalpin 1995) and the
 * double-precision FMA throughput, on 1..T OpenMP threads. */
#ifndef PX_BENCH_ROOFLINE_MACHINE_H
#define PX_BENCH_ROOFLINE_MACHINE_H

#include <stddef.h>

/* The largest data or unified cache of cpu0 in bytes, from
 * /sys/devices/system/cpu/cpu0/cache/index*, its level into *level; 0
 * when sysfs does not say. */
size_t roofline_llc_bytes(int *level);

/* Bandwidth (bytes/s) of a[i] = b[i] + s c[i] over three arrays of n
 * doubles each, split among `threads` OpenMP threads, counted as STREAM
 * counts it (24 bytes per i: two reads, one write, no write-allocate), the
 * best pass of those run in min_time seconds (at least 3). 0 if the
 * arrays cannot be allocated. */
double roofline_triad(size_t n, int threads, double min_time);

/* Double-precision flops/s of independent FMA chains (an FMA is 2 flops)
 * on `threads` threads, the best of the repetitions run in min_time
 * seconds, in the widest vectors the CPU offers at run time; *isa names
 * them (avx512f, avx2+fma, or the baseline's 2-lane multiply and add). */
double roofline_fma_peak(int threads, double min_time, const char **isa);

#endif
