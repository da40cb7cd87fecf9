/* Checks of what plugins hand the core: an ordering's permutation, and
 * under [solver] check = on the friction plugin's projections, guarded
 * (see check.h). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "kernel.h"

#define GUARD 0x1.5a5a5a5a5a5a5p+777 /* a value no projection makes */
#define MAX_NF 8

static void record(const struct px_check *cc,
		   const struct px_friction_params *fp, int fault)
{
	struct px_check *c = (struct px_check *)cc; /* the driver's */
	int none = PX_CHECK_OK;

	if (atomic_compare_exchange_strong(&c->fault, &none, fault))
		atomic_store(&c->contact, (size_t)(fp - c->friction));
}

/* z back from the guarded copy g, after checking what the call did */
static void settle(const struct px_check *c,
		   const struct px_friction_params *fp, const double *g,
		   double *z, uint32_t nf)
{
	if (g[0] != GUARD || g[nf + 1] != GUARD)
		record(c, fp, PX_CHECK_OUTSIDE);
	for (uint32_t i = 0; i < nf; i++)
		if (!isfinite(g[i + 1]))
			record(c, fp, PX_CHECK_NONFINITE);
	memcpy(z, g + 1, nf * sizeof *z);
}

static void checked_project(const void *state,
			    const struct px_friction_params *fp,
			    double lambda_n, double *z, uint32_t nf)
{
	const struct px_check *c = state;
	double g[MAX_NF + 2];

	g[0] = g[nf + 1] = GUARD;
	memcpy(g + 1, z, nf * sizeof *z);
	c->fr->project(c->fstate, fp, lambda_n, g + 1, nf);
	settle(c, fp, g, z, nf);
}

static void checked_metric(const void *state,
			   const struct px_friction_params *fp,
			   double lambda_n, const double *m, double *z,
			   uint32_t nf)
{
	const struct px_check *c = state;
	double g[MAX_NF + 2];

	g[0] = g[nf + 1] = GUARD;
	memcpy(g + 1, z, nf * sizeof *z);
	c->fr->project_metric(c->fstate, fp, lambda_n, m, g + 1, nf);
	settle(c, fp, g, z, nf);
}

void px_check_init(struct px_check *c, const struct px_friction_ops *fr,
		   const void *fstate,
		   const struct px_friction_params *friction)
{
	c->fr = fr;
	c->fstate = fstate;
	c->friction = friction;
	c->ops = *fr;
	c->ops.project = checked_project;
	if (px_friction_project_metric(fr))
		c->ops.project_metric = checked_metric;
	atomic_init(&c->fault, PX_CHECK_OK);
	atomic_init(&c->contact, 0);
}

int px_check_report(struct px_check *c, uint64_t sweep, struct px_error *err)
{
	static const char *const what[] = {
		[PX_CHECK_NONFINITE] = "returned a non-finite impulse",
		[PX_CHECK_OUTSIDE] = "wrote outside the friction rows it was given",
	};
	const int fault = atomic_load(&c->fault);

	if (fault == PX_CHECK_OK)
		return PX_OK;
	return px_error_set(err, PX_ERR_PLUGIN,
			    "friction plugin '%s': project %s (contact %zu, sweep %llu; [solver] check = on)",
			    c->fr->h.name, what[fault], atomic_load(&c->contact),
			    (unsigned long long)sweep);
}

size_t px_check_perm(const uint32_t *perm, size_t n, unsigned char *seen)
{
	memset(seen, 0, n);
	for (size_t i = 0; i < n; i++) {
		if (perm[i] >= n || seen[perm[i]])
			return i;
		seen[perm[i]] = 1;
	}
	return n;
}
