/* The bytes and flops one contact-sweep of sequential Gauss-Seidel moves
 * (bench/roofline), counted from the data structures the kernels read and
 * write (core/kernel.c, core/kernel_rigid3.c, problem_impl.h) and the
 * problem's own sizes. */
#ifndef PX_BENCH_ROOFLINE_MODEL_H
#define PX_BENCH_ROOFLINE_MODEL_H

#include <stddef.h>

#include <proxima/proxima.h>

struct roofline_cost {
	/* per contact-sweep: every per-contact array streamed once, every
	 * dynamic body's data once per sweep (the least traffic: a body's
	 * data stays cached between its contacts), written bytes once */
	double bytes;
	/* of which the bodies' share; and the body bytes the loads gather
	 * per contact (from any cache level): what the sweep touches */
	double body_bytes, gathered;
	double flops;
	double footprint; /* bytes of every array the sweeps touch */
	double changed;	  /* the share of contacts whose impulse moves */
};

/* The cost of p's sweeps with the rigid 3-row kernel (rigid3) or the
 * general one, lambda the solve's answer (a contact whose impulse is zero
 * there is counted as one whose update leaves the bodies alone). 0, or
 * PX_ERR_NOMEM. */
int roofline_cost(const struct px_problem *p, int rigid3, const double *lambda,
		  struct roofline_cost *out);

#endif
