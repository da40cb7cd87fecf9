/* A stable merge sort of contact indices by a key (sort.h). Written here
 * rather than taken from qsort: qsort is not stable, and glibc's may
 * allocate, which an ordering's next must not. */
#include "sort.h"

/* Does contact a come strictly before contact b? */
static int before(const double *key, int direction, uint32_t a, uint32_t b)
{
	return direction == PX_DESCENDING ? key[a] > key[b] : key[a] < key[b];
}

/* Merge the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi);
 * on equal keys the left run goes first (stability). */
static void merge(const double *key, int direction, const uint32_t *src,
		  uint32_t *dst, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, o = lo;

	while (i < mid && j < hi)
		dst[o++] = before(key, direction, src[j], src[i]) ? src[j++]
								    : src[i++];
	while (i < mid)
		dst[o++] = src[i++];
	while (j < hi)
		dst[o++] = src[j++];
}

void px_sort_contacts(const double *key, size_t n, int direction,
		      uint32_t *perm, uint32_t *tmp)
{
	uint32_t *src = perm, *dst = tmp, *t;

	for (size_t k = 0; k < n; k++)
		perm[k] = (uint32_t)k;
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;

			merge(key, direction, src, dst, lo, mid, hi);
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != perm)
		for (size_t k = 0; k < n; k++)
			perm[k] = src[k];
}
