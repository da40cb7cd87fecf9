/* Arrays that grow one element at a time, by doubling: shared by the core,
 * the world and the command line (private, not installed). */
#ifndef PX_GROW_H
#define PX_GROW_H

#include <stdlib.h>

/* p, an array of *cap elements of `size` bytes, made to hold element n,
 * the next to be written (n <= *cap): p itself while n < *cap, else p
 * reallocated to twice *cap elements (`first` from none) and *cap
 * updated. NULL when out of memory: p and *cap are then unchanged. */
static inline void *px_grow(void *p, size_t *cap, size_t n, size_t size,
			    size_t first)
{
	const size_t want = *cap ? 2 * *cap : first;
	void *q;

	if (n < *cap)
		return p;
	q = realloc(p, want * size);
	if (q)
		*cap = want;
	return q;
}

#endif
