/* sim_collide_pair: dispatch a pair of bodies to the routine of its two
 * shape kinds. The routines take the shapes in kind order; a pair of one
 * kind is taken in index order, so that swapping the arguments gives the
 * same points and feature ids with flipped normals. */
#include "narrow.h"

/* [kind of the first][kind of the second], first <= second */
/* clang-format off */
static const sim_pair_fn pair_fns[4][4] = {
	[SIM_SPHERE] = {
		[SIM_SPHERE] = sim_narrow_sphere_sphere,
		[SIM_BOX] = sim_narrow_sphere_box,
		[SIM_CAPSULE] = sim_narrow_sphere_capsule,
		[SIM_PLANE] = sim_narrow_sphere_plane,
	},
	[SIM_BOX] = {
		[SIM_BOX] = sim_narrow_box_box,
		[SIM_CAPSULE] = sim_narrow_box_capsule,
		[SIM_PLANE] = sim_narrow_box_plane,
	},
	[SIM_CAPSULE] = {
		[SIM_CAPSULE] = sim_narrow_capsule_capsule,
		[SIM_PLANE] = sim_narrow_capsule_plane,
	},
	/* plane-plane: none */
};
/* clang-format on */

int sim_collide_pair(const struct sim_body *a, uint32_t ia,
		     const struct sim_body *b, uint32_t ib, double margin,
		     struct sim_contact *out)
{
	const unsigned ka = (unsigned)a->shape.kind;
	const unsigned kb = (unsigned)b->shape.kind;
	int swap, n;
	sim_pair_fn fn;

	if ((a->is_static && b->is_static) || ka > SIM_PLANE || kb > SIM_PLANE)
		return 0;
	swap = ka > kb || (ka == kb && ib < ia);
	fn = swap ? pair_fns[kb][ka] : pair_fns[ka][kb];
	if (!fn)
		return 0;
	n = swap ? fn(b, a, margin, out) : fn(a, b, margin, out);
	for (int k = 0; k < n; k++) {
		out[k].a = ia;
		out[k].b = ib;
		if (swap)
			for (int i = 0; i < 3; i++)
				out[k].n[i] = -out[k].n[i];
	}
	return n;
}
