/* The cost of a checkpoint (doc/benchmarks.md, doc/checkpoint.md): step a
 * scene a few steps (10 sweeps each) so that its contact cache fills, then
 * REPEATS times save the world into a checkpoint and write it (temporary
 * name, fsync, rename), read it back and load it into a fresh world of the
 * same scene. Prints the file's size, its sections' records, and the best
 * time of each phase, whole and per byte; a body is 232 bytes and a cached
 * contact 72 (doc/checkpoint.md), and every phase is linear in the bytes
 * (an encoding pass, a CRC-32 pass, one write or read). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/checkpoint.h"
#include "../sim/scene.h"
#include "../sim/world.h"
#include "common.h"

static void fail(const char *what, const struct px_error *err)
{
	fprintf(stderr, "bench/checkpoint: %s: %s\n", what, err->msg);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *scene = argc > 1 ? argv[1] : "scenes/ballgrid-40.ini";
	const char *path = argc > 4 ? argv[4] : "bench-checkpoint.ckpt";
	const int steps = argc > 2 ? atoi(argv[2]) : 3;
	const int repeats = argc > 3 ? atoi(argv[3]) : 3;
	struct px_world *w = NULL, *fresh = NULL;
	struct px_config *cfg = NULL, *cfg2 = NULL;
	struct px_error err = {0};
	struct px_checkpoint_ids ids;
	struct px_step_stats st;
	double best[4] = {1e30, 1e30, 1e30, 1e30};
	uint32_t n_bodies = 0, n_cache = 0;
	size_t bytes = 0;
	FILE *f;

	if (px_scene_load(scene, &w, &err) ||
	    px_scene_load(scene, &fresh, &err))
		fail(scene, &err);
	if (bench_config("[solver]\nmax_sweeps = 10\n", &cfg, &err) ||
	    bench_config("[solver]\nmax_sweeps = 10\n", &cfg2, &err))
		fail("config", &err);
	ids.scene = px_world_scene_hash(w);
	ids.settings = px_world_settings_hash(w);
	ids.scene_name = scene;
	ids.config_name = "max_sweeps = 10";
	if (px_checkpoint_config_hash(cfg, &ids.config, &err))
		fail("config", &err);
	for (int i = 0; i < steps; i++)
		if (px_world_step(w, cfg, &st, &err))
			fail("step", &err);
	for (int r = 0; r < repeats; r++) {
		struct px_checkpoint *c = NULL, *back = NULL;
		double t[5];

		t[0] = bench_now();
		if (px_checkpoint_create(&c, &err) ||
		    px_world_checkpoint_save(w, cfg, &ids, c, &err))
			fail("save", &err);
		t[1] = bench_now();
		if (px_checkpoint_write(c, path, &err))
			fail("write", &err);
		t[2] = bench_now();
		if (px_checkpoint_read(path, &back, &err))
			fail("read", &err);
		t[3] = bench_now();
		if (px_world_checkpoint_load(fresh, cfg2, &ids, back, path,
					     &err))
			fail("load", &err);
		t[4] = bench_now();
		for (int k = 0; k < 4; k++)
			if (t[k + 1] - t[k] < best[k])
				best[k] = t[k + 1] - t[k];
		px_checkpoint_find(back, "BODY", &n_bodies, NULL, NULL);
		px_checkpoint_find(back, "CACH", &n_cache, NULL, NULL);
		px_checkpoint_destroy(c);
		px_checkpoint_destroy(back);
	}
	f = fopen(path, "rb");
	if (f) {
		fseek(f, 0, SEEK_END);
		bytes = (size_t)ftell(f);
		fclose(f);
	}
	for (size_t i = 0; i < px_world_n_bodies(w); i++) {
		const struct px_body *x = px_world_bodies(w) + i,
				     *y = px_world_bodies(fresh) + i;

		if (memcmp(x->x, y->x, sizeof x->x) ||
		    memcmp(x->v, y->v, sizeof x->v)) {
			fprintf(stderr,
				"bench/checkpoint: the loaded world differs\n");
			return 1;
		}
	}
	printf("scene=%s steps=%d repeats=%d\n", bench_base_name(scene), steps,
	       repeats);
	printf("bytes=%zu bodies=%u cached_contacts=%u body_bytes=232 "
	       "contact_bytes=72\n",
	       bytes, n_bodies, n_cache);
	{
		static const char *const phase[] = {"save", "write", "read",
						    "load"};

		for (int k = 0; k < 4; k++)
			printf("%s_s=%.4f ns_per_byte=%.2f ns_per_body=%.0f "
			       "ns_per_contact=%.0f\n",
			       phase[k], best[k], 1e9 * best[k] / (double)bytes,
			       232e9 * best[k] / (double)bytes,
			       72e9 * best[k] / (double)bytes);
	}
	remove(path);
	px_world_destroy(w);
	px_world_destroy(fresh);
	px_config_free(cfg);
	px_config_free(cfg2);
	return 0;
}
