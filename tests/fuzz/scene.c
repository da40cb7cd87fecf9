/* Fuzz target: the scene reader and its generators (px_scene_read), then,
 * for scenes of a few bodies, a world built from them stepped twice with
 * the default solver config (a bounded number of sweeps). */
#include <proxima/proxima.h>

#include "../../sim/scene.h"
#include "../../sim/world.h"
#include "fuzz.h"

#define MAX_STEPPED_BODIES 64

static char path[64];
static struct px_config *cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct px_error err = {0};

	(void)argc;
	(void)argv;
	fuzz_plugin_path();
	if (px_config_read(NULL, &cfg, &err)) {
		fprintf(stderr, "fuzz scene: %s\n", err.msg);
		abort();
	}
	px_config_settings_mut(cfg)->max_sweeps = 50;
	return 0;
}

static void step(const struct px_world_settings *s,
		 const struct px_body *bodies, size_t n)
{
	struct px_world *w = NULL;
	struct px_error err = {0};
	struct px_step_stats st;
	int rc = px_world_create(s, &w, &err);

	for (size_t i = 0; !rc && i < n; i++)
		if (px_world_add_body(w, &bodies[i], NULL, &err))
			abort(); /* the reader accepted what the world refuses */
	for (int i = 0; !rc && i < 2; i++)
		rc = px_world_step(w, cfg, &st, &err);
	if (rc && (!err.msg[0] || strchr(err.msg, '\n')))
		abort();
	px_world_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct px_world_settings s;
	struct px_body *bodies = NULL;
	struct px_error err = {0};
	size_t n = 0;

	fuzz_file(path, ".ini", data, size);
	if (px_scene_read(path, &s, &bodies, &n, &err) == PX_OK) {
		if (n && !bodies)
			abort();
		if (n <= MAX_STEPPED_BODIES)
			step(&s, bodies, n);
		free(bodies);
	} else if (bodies || n || !strstr(err.msg, path) ||
		   strchr(err.msg, '\n')) {
		abort();
	}
	return 0;
}
