/* What the OpenMP schedulers (jacobi, colored, naive) share: the `threads`
 * and `serial_below` keys and how they resolve into the team a sweep runs
 * on, grow-only buffers sized at prepare time, the per-body refresh of the
 * velocities and a describe line. Compiled into each of them (hidden, never
 * exported: tests/plugin_symbols.sh). */
#ifndef PX_SCHEDULER_COMMON_H
#define PX_SCHEDULER_COMMON_H

#include <stddef.h>

#include <proxima/plugin.h>

/* The first two entries of each parallel scheduler's parameter table. */
#define TEAM_PARAMS                                                            \
	{"threads", PX_PARAM_INT, "0",                                         \
	 "OpenMP threads (0: OpenMP's default, OMP_NUM_THREADS)", 0, 4096,    \
	 NULL},                                                                \
	{"serial_below", PX_PARAM_INT, "1024",                                 \
	 "problems with fewer rows run on one thread (waking the team costs more)", \
	 0, 1e15, NULL}
enum { TEAM_P_THREADS, TEAM_P_SERIAL_BELOW, TEAM_N_PARAMS };

struct team {
	int threads;       /* the resolved `threads` key, >= 1 */
	long serial_below; /* rows */
	size_t rows;       /* of the problem of the last prepare */
	int size;          /* threads of its sweeps: 1 below serial_below */
};

/* A zeroed plugin state of `size` bytes whose first member is a struct
 * team, set from the values of TEAM_PARAMS: threads = 0 becomes OpenMP's
 * default (omp_get_max_threads() now), and 1 without OpenMP. Returns 0, or
 * -1 with a message in err. */
int team_state_create(size_t size, const union px_value *v, void **state,
		      char *err, size_t errlen);
/* At prepare: the team size of this problem's sweeps. */
void team_prepare(struct team *t, const struct px_kernel *kern);
/* The parallel_for of the schedulers whose state starts with a struct
 * team (ABI 1.6): the ranges [n t / T, n (t + 1) / T) of T threads, T the
 * resolved `threads`, or one range on one thread when n < serial_below
 * (n items count as rows: a contact has 3 or 4, a body 6). */
void team_parallel_for(void *state, size_t n,
		       void (*body)(void *ctx, size_t begin, size_t end),
		       void *ctx);
/* "N threads", or "1 thread (R rows < serial_below S)" when it stays
 * serial, written at buf (len bytes). */
void team_describe(const struct team *t, char *buf, size_t len);

/* A buffer that only grows, so that repeated solves do not allocate. */
struct buffer {
	void *p;
	size_t bytes;
};

/* At least `bytes` bytes in b->p. Returns 0, or -1 with a message in err
 * (b unchanged). */
int buffer_reserve(struct buffer *b, size_t bytes, char *err, size_t errlen);
void buffer_free(struct buffer *b);

/* Every body's velocities gathered again from its contacts' lambda
 * (kern->refresh per body: the same sums in the same order whatever the
 * thread count), as a worksharing loop: call it from every thread of a
 * parallel region, or outside one. No-op for assembled problems. */
void refresh_bodies(const struct px_kernel *kern);

#endif
