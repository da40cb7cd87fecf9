/* bench/child.h: one measurement in a forked child process under a wall
 * clock and a memory cap (issue 33), so that a solver that runs away or
 * blows up loses that measurement, not the run: Siconos's PROX took 24 GiB
 * in one process on a rock pile, and no peer solver can be stopped from
 * outside but by its process. */
#ifndef PX_BENCH_CHILD_H
#define PX_BENCH_CHILD_H

#include <stddef.h>

/* Why a measurement ended: its function's own verdict (CHILD_OK, or
 * CHILD_MEMORY, CHILD_ERROR for an error it met), or the parent's. */
enum child_why {
	CHILD_OK = 0,     /* the function returned; its output came back */
	CHILD_TIME = 1,   /* killed at the wall-clock cap */
	CHILD_MEMORY = 2, /* out of memory: the function said so, or the
			     child crashed right after a failed allocation
			     (errno ENOMEM) */
	CHILD_CRASH = 3,  /* a signal (SIGSEGV, SIGABRT, ...), or an exit
			     without its output */
	CHILD_ERROR = 4,  /* the function met an error (its message is its
			     own to print) */
};

/* The measurement: fills out (len bytes) and returns CHILD_OK, or
 * CHILD_MEMORY or CHILD_ERROR. Runs in the child: what it changes in
 * memory stays there, only out comes back. */
typedef int (*child_fn)(void *ctx, void *out);

struct child_caps {
	double wall;    /* seconds from the fork, > 0 */
	double mem_gib; /* RLIMIT_AS of the child in GiB; 0: none */
};

struct child_report {
	int why;         /* enum child_why */
	int signal;      /* the signal that ended the child, 0: none */
	double seconds;  /* the child's wall time, fork to reaping */
	double killed_at; /* CHILD_TIME: when SIGKILL was sent, from the
			     fork (the rest of seconds is the kernel's
			     tear-down of the child); else 0 */
	double peak_mib; /* its peak resident memory (wait4's ru_maxrss) */
};

/* Run fn(ctx, out) in a forked child under caps; out (len bytes) holds
 * the function's output when rep->why is CHILD_OK, else it is untouched.
 * Returns 0, or -1 when no child could be started (pipe, fork). stdout
 * and stderr are flushed before the fork. */
int child_run(child_fn fn, void *ctx, void *out, size_t len,
	      const struct child_caps *caps, struct child_report *rep);

/* "-", "time", "memory", "crash", "error" for enum child_why. */
const char *child_why_name(int why);

#endif
