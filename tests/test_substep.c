/* Substepping in the world (issue 23): one substep is today's step bit for
 * bit; the hash of every body state of three scenes (semi-implicit with
 * Baumgarte, Moreau without stabilization and with a torsional row,
 * post-stabilization) was taken with the code before substeps existed
 * (fb2105e). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../sim/scene.h"
#include "../sim/world.h"
#include "helpers.h"

static const char *const sweeps10_ini = "[solver]\n"
					"max_sweeps = 10\n"
					"abs_tol = 0\n"
					"rel_tol = 0\n";

static struct px_world *load(const char *name)
{
	char path[512];
	struct px_world *w = NULL;
	struct px_error err = {0};

	snprintf(path, sizeof path, "%s/scenes/%s", PX_TEST_SRCDIR, name);
	cr_assert_eq(px_scene_load(path, &w, &err), PX_OK, "%s", err.msg);
	return w;
}

/* FNV-1a over the bytes of every body's x, q, v, w after each step. */
static uint64_t trajectory_hash(struct px_world *w, const struct px_config *cfg,
				int steps)
{
	uint64_t h = 1469598103934665603u;
	struct px_step_stats st;
	struct px_error err = {0};

	for (int i = 0; i < steps; i++) {
		const struct px_body *b = px_world_bodies(w);

		cr_assert_eq(px_world_step(w, cfg, &st, &err), PX_OK, "%s",
			     err.msg);
		for (size_t k = 0; k < px_world_n_bodies(w); k++) {
			double s[13];
			const unsigned char *p = (const unsigned char *)s;

			memcpy(s, b[k].x, 3 * sizeof *s);
			memcpy(s + 3, b[k].q, 4 * sizeof *s);
			memcpy(s + 7, b[k].v, 3 * sizeof *s);
			memcpy(s + 10, b[k].w, 3 * sizeof *s);
			for (size_t j = 0; j < sizeof s; j++)
				h = (h ^ p[j]) * 1099511628211u;
		}
	}
	return h;
}

static uint64_t scene_hash(const char *name, enum px_stabilization stab,
			   int steps)
{
	struct px_config *cfg = config_from_text(sweeps10_ini);
	struct px_world *w = load(name);
	uint64_t h;

	px_world_settings_mut(w)->stabilization = stab;
	h = trajectory_hash(w, cfg, steps);
	px_world_destroy(w);
	px_config_free(cfg);
	return h;
}

Test(substep, one_substep_is_the_step_of_before_bit_for_bit)
{
	const uint64_t stack = scene_hash("boxstack-10.ini", PX_STAB_BAUMGARTE, 60);
	const uint64_t tower = scene_hash("tower.ini", PX_STAB_NONE, 30);
	const uint64_t post = scene_hash("heavyonlight.ini", PX_STAB_POST, 30);

	cr_assert_eq(stack, 0x675adbbe002b6a6eu, "boxstack-10: %#llx",
		     (unsigned long long)stack);
	cr_assert_eq(tower, 0xc561f886350b0326u, "tower: %#llx",
		     (unsigned long long)tower);
	cr_assert_eq(post, 0x83ed5a88efefd66eu, "heavyonlight, post: %#llx",
		     (unsigned long long)post);
}
