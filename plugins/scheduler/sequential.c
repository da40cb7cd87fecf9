/* Scheduler `sequential`: Gauss-Seidel on one core (Erleben 2017, Algorithm 2):
 * each contact is relaxed in the ordering's sequence and sees the updates of
 * the contacts before it. */
#include <proxima/plugin.h>

static int sequential_prepare(void *state, const struct px_kernel *kern,
			      char *err, size_t errlen)
{
	(void)state;
	(void)kern;
	(void)err;
	(void)errlen;
	return 0;
}

static void sequential_sweep(void *state, const struct px_kernel *kern,
			     const uint32_t *perm, int perm_changed, int part)
{
	const size_t n = kern->n_contacts;

	(void)state;
	(void)perm_changed;
	kern->relax_lists(kern->ctx, &perm, &n, 1, part);
}

/* What `proxima plugins --describe sequential` prints (ABI 1.4). */
static const char sequential_doc[] =
	"Gauss-Seidel on one core (Erleben 2017, Algorithm 2): each contact is\n"
	"relaxed in the ordering's sequence and sees the updates of the contacts\n"
	"before it at once (Catto 2005, Algorithm 4 in the factorized form: only\n"
	"the velocities of the contact's two bodies are read and written).\n"
	"\n"
	"Choose it for small problems, for reference results (it is what the\n"
	"other schedulers are measured against: Poulsen 2010, sec. 3.8 targets\n"
	"the quality of 50 of its sweeps) and whenever the ordering matters: it\n"
	"is the only scheduler that honours the permutation exactly. It is the\n"
	"default. No parameters.\n";

static const struct px_scheduler_ops sequential_ops = {
	.h = {
		.abi_major = PX_ABI_MAJOR,
		.abi_minor = PX_ABI_MINOR,
		.kind = PX_KIND_SCHEDULER,
		.ops_size = sizeof(struct px_scheduler_ops),
		.name = "sequential",
		.summary = "Gauss-Seidel on one core, in the ordering's sequence",
	},
	.prepare = sequential_prepare,
	.sweep = sequential_sweep,
	.doc = sequential_doc,
};

PX_PLUGIN_EXPORT const struct px_plugin_header *px_plugin_query(void);

const struct px_plugin_header *px_plugin_query(void)
{
	return &sequential_ops.h;
}
