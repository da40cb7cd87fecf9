/* The length of a 2-vector without hypot's cost (private, not installed). */
#ifndef PX_NORM2_H
#define PX_NORM2_H

#include <float.h>
#include <math.h>

/* |(a, b)|: sqrt(a^2 + b^2) where the sum of squares neither overflows
 * nor falls below DBL_MIN (it is then within an ulp or so of hypot's),
 * else hypot itself. glibc's hypot, correctly rounded, costs several
 * times a square root: called for every |y_t| of the exact local solves
 * and the fc3d merit it was their largest single cost on small problems
 * (issue 33). */
static inline double px_norm2(double a, double b)
{
	const double s = a * a + b * b;

	if (s >= DBL_MIN && s <= DBL_MAX)
		return sqrt(s);
	return hypot(a, b);
}

#endif
