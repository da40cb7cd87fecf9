/* The sweep's tally (kernel.h, struct px_tally): what every relax_lists
 * call of the kernels (kernel.c, kernel_rigid3.c) adds to it. */
#include <string.h>

#include "kernel.h"

static void merge_max(_Atomic uint64_t *to, double x)
{
	uint64_t v, cur = atomic_load_explicit(to, memory_order_relaxed);

	memcpy(&v, &x, sizeof v);
	while (v > cur && !atomic_compare_exchange_weak_explicit(
				  to, &cur, v, memory_order_relaxed,
				  memory_order_relaxed))
		;
}

void px_tally_merge(struct px_tally *t, const struct px_tally_part *part)
{
	/* fabs made them non-negative (+0 included), and nf tells NaN */
	merge_max(&t->dn, part->dn);
	merge_max(&t->df, part->df);
	merge_max(&t->amax, part->amax);
	if (part->nf != 0.0)
		atomic_store_explicit(&t->nonfinite, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->contacts, part->contacts,
				  memory_order_relaxed);
}
