/* Ordering `identity`: every sweep visits all contacts, whole, in the
 * problem's own order. */
#include <proxima/plugin.h>

static int identity_prepare(void *state, const struct px_problem_info *p,
			    uint32_t *perm, char *err, size_t errlen)
{
	(void)state;
	(void)err;
	(void)errlen;
	for (size_t k = 0; k < p->n_contacts; k++)
		perm[k] = (uint32_t)k;
	return 0;
}

static int identity_next(void *state, const struct px_sweep_state *s,
			 uint32_t *perm, int *changed)
{
	(void)state;
	(void)s;
	(void)perm;
	(void)changed; /* the permutation never changes */
	return PX_PART_FULL;
}

/* What `proxima plugins --describe identity` prints (ABI 1.4). */
static const char identity_doc[] =
	"Every sweep visits all contacts, whole (normal and friction rows\n"
	"together), in the problem's own order: plain Gauss-Seidel (Erleben 2017,\n"
	"Algorithm 2) or, with scheduler jacobi, plain Jacobi. The permutation\n"
	"never changes, so schedulers that prepare per-permutation lists\n"
	"(colored) reuse them.\n"
	"\n"
	"Choose it as the baseline and the default: its result depends only on\n"
	"the problem file, and for scenes it is the order in which the world\n"
	"builds the contacts. The other orderings are measured against it\n"
	"(bench/orderings.sh; Poulsen et al. (2010) report its heuristics as\n"
	"speedups over it). No parameters.\n";

static const struct px_ordering_ops identity_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_ORDERING,
		.ops_size = sizeof(struct px_ordering_ops),
		.name = "identity",
		.summary = "visit all contacts, whole, in the problem's order",
	},
	.prepare = identity_prepare,
	.next = identity_next,
	.doc = identity_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &identity_ops.h;
}
