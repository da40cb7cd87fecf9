/* Checks of what plugins hand the core (issue 22). px_check_perm: an
 * ordering's permutation, checked after prepare always and after every
 * rewrite under check = on.
 *
 * [solver] check = on: the friction plugin's projections run
 * through a wrapper that hands the plugin a copy of z between two guard
 * values and checks, after each call, that the guards are intact (the
 * plugin wrote only its nf rows) and the impulse is finite. The hot path
 * never fails: the first fault is recorded, and the driver reports it after
 * the sweep, naming the plugin, the contact and the sweep. Costs a copy
 * and a few compares per projection: for finding a bad plugin, not for
 * timing. */
#ifndef PX_CHECK_H
#define PX_CHECK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <proxima/error.h>
#include <proxima/plugin.h>

enum px_check_fault {
	PX_CHECK_OK = 0,
	PX_CHECK_NONFINITE = 1, /* project returned a non-finite impulse */
	PX_CHECK_OUTSIDE = 2,   /* project wrote outside z[0 .. nf) */
};

struct px_check {
	const struct px_friction_ops *fr; /* the plugin's */
	const void *fstate;
	const struct px_friction_params *friction; /* the problem's, per contact */
	struct px_friction_ops ops; /* fr with its projections wrapped; the
				       kernel calls these with state = this */
	atomic_int fault;           /* enum px_check_fault, the first one */
	atomic_size_t contact;      /* where it happened */
};

/* Wrap fr (its state fstate) for a problem whose contacts' friction
 * parameters are friction[]. */
void px_check_init(struct px_check *c, const struct px_friction_ops *fr,
		   const void *fstate,
		   const struct px_friction_params *friction);

/* The first position of perm (n entries) that is not a contact left
 * unvisited by the positions before it, or n when perm is a permutation of
 * 0 .. n-1; seen: n bytes of scratch. */
size_t px_check_perm(const uint32_t *perm, size_t n, unsigned char *seen);

/* PX_OK, or PX_ERR_PLUGIN naming the plugin, the fault, its contact and
 * sweep (1-based) when one was recorded. */
int px_check_report(struct px_check *c, uint64_t sweep, struct px_error *err);

#endif
