/* Turning the world's contacts into a contact problem and its impulses
 * back into body velocity or position changes (Erleben 2017, Appendix A, Catto
 * 2005, sec. 4).
 *
 * Collision normals point from body a to body b; a problem's normal points
 * from its body b to its body a (v_n > 0 separates). Contact k of the
 * problem therefore takes the collision's b as its body a, unless that one
 * is static: then the two swap and the normal turns. */
#ifndef PX_SIM_WORLD_PROBLEM_H
#define PX_SIM_WORLD_PROBLEM_H

#include "world_impl.h"

/* Per contact: the problem's bodies (dynamic index or PX_STATIC), frame
 * (rows n, s, t), lever arms from the bodies' centres, and whether the
 * problem's body a is the collision's a (flipped normal). */
struct px_contact_rows {
	uint32_t pa, pb;
	uint32_t world_a, world_b; /* world indices of pa, pb (or UINT32_MAX) */
	double frame[9];
	double ra[3], rb[3];
	int flipped;
};

/* Per dynamic body: its world index, inverse mass and world inverse
 * inertia (9, row-major). */
struct px_dynamics {
	size_t n;
	uint32_t *world;    /* n */
	uint32_t *dyn;      /* per world body: dynamic index or PX_STATIC */
	double *inv_mass;   /* n */
	double *inv_inertia; /* 9 n */
};

/* The impulse l (n, s, t rows) of a contact in world coordinates:
 * f = l_n n + l_s s + l_t t, acting on the problem's body a. */
static inline void px_contact_rows_impulse(const struct px_contact_rows *r,
					   const double *l, double f[3])
{
	for (int i = 0; i < 3; i++)
		f[i] = l[0] * r->frame[i] + l[1] * r->frame[3 + i] +
		       l[2] * r->frame[6 + i];
}

int px_dynamics_build(const struct px_world *w, struct px_dynamics *d,
		       struct px_error *err);
void px_dynamics_free(struct px_dynamics *d);

/* rows[k] of contacts[k]. */
void px_contact_rows_build(const struct px_world *w,
			    const struct px_dynamics *d,
			    const struct px_contact *c, size_t n,
			    struct px_contact_rows *rows);

/* The problem of n contacts with bs rows (3: rigid form; 4: factorized
 * with a torsional row), geometry, A and friction (frictionless when
 * frictionless != 0); b is left at zero. */
int px_world_problem_build(const struct px_world *w, const struct px_dynamics *d,
		      const struct px_contact *c,
		      const struct px_contact_rows *rows, size_t n,
		      uint32_t bs, int frictionless, struct px_problem **out,
		      struct px_error *err);

/* rows[k] of contacts[k] and their problem (px_world_problem_build) in one
 * pass over the contacts: the rows are read while still in cache rather
 * than in a second pass over their 144 bytes per contact. */
int px_world_rows_problem_build(const struct px_world *w,
				const struct px_dynamics *d,
				const struct px_contact *c,
				struct px_contact_rows *rows, size_t n,
				uint32_t bs, int frictionless,
				struct px_problem **out, struct px_error *err);

/* dv[6 per dynamic body] += M^-1 J^T lambda: linear then angular. */
void px_impulses_apply(const struct px_dynamics *d,
			const struct px_contact_rows *rows, size_t n,
			uint32_t bs, const double *lambda, double *dv);

/* The contact cache (world_cache.c). lambda (n * bs) of the matched
 * contacts from the cache, zero elsewhere (claimed: n_cache + 1 bytes of
 * scratch); returns the number matched. */
size_t px_world_warm_start(const struct px_world *w,
			   const struct px_contact *c,
			   const struct px_contact_rows *rows, size_t n,
			   uint32_t bs, double *lambda, unsigned char *claimed);

/* Old body i is body renumber[i] of n now, or gone (UINT32_MAX): the
 * cache entries of gone bodies are dropped, the others renumbered and
 * sorted by pair again (px_world_set_bodies). */
void px_world_cache_renumber(struct px_world *w, const uint32_t *renumber,
			     size_t n);

/* Replace the cache by the impulses lambda of contacts c. */
int px_world_cache_store(struct px_world *w, const struct px_contact *c,
			  const struct px_contact_rows *rows, size_t n,
			  uint32_t bs, const double *lambda,
			  struct px_error *err);

#endif
