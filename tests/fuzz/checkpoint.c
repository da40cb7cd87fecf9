/* Fuzz target: the checkpoint reader (px_checkpoint_read, issue 35), then,
 * for a file it accepts, the world's load (px_world_checkpoint_load) into
 * an empty world and a config with the random ordering (whose state a
 * checkpoint holds), and two steps of that world when it has few bodies.
 * The input's first byte picks a mode: odd, the CRC-32s of the rest are
 * made right before it is read, so that the mutations reach the sections'
 * decoding instead of stopping at a CRC; even, the rest is read as it is.
 * Either way a refusal is one line naming the file, never a crash. */
#include <proxima/proxima.h>

#include "../../sim/checkpoint.h"
#include "../../sim/world.h"
#include "fuzz.h"

#define MAX_STEPPED_BODIES 64

static char path[64];
static struct px_config *cfg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const struct px_config_layer l[] = {
	    {PX_LAYER_TEXT,
	     "[solver]\nmax_sweeps = 20\n"
	     "[ordering]\nplugin = random\n",
	     "(fuzz)"},
	};
	struct px_error err = {0};

	(void)argc;
	(void)argv;
	fuzz_plugin_path();
	if (px_config_build(l, 1, &cfg, &err)) {
		fprintf(stderr, "fuzz checkpoint: %s\n", err.msg);
		abort();
	}
	return 0;
}

static uint64_t le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The CRC-32s of the file in b made right where its table allows. */
static void fix_crcs(uint8_t *b, size_t size)
{
	const uint64_t n = size >= 32 ? le(b + 16, 4) : 0;

	if (n > PX_CHECKPOINT_MAX_SECTIONS || size < 32 + 32 * n)
		return;
	for (uint64_t i = 0; i < n; i++) {
		uint8_t *e = b + 32 + 32 * i;
		const uint64_t off = le(e + 16, 8), len = le(e + 24, 8);

		if (off <= size && len <= size - off)
			put32(e + 12, px_crc32(0, b + off, (size_t)len));
	}
	put32(b + 28, px_crc32(px_crc32(0, b, 28), b + 32, (size_t)(32 * n)));
}

static void load(const struct px_checkpoint *c)
{
	struct px_world_settings s;
	struct px_world *w = NULL;
	struct px_checkpoint_ids ids = {.scene_name = "s", .config_name = "c"};
	struct px_error err = {0};
	size_t len;
	const unsigned char *meta =
	    px_checkpoint_find(c, "META", NULL, NULL, &len);
	struct px_ckpt_cursor cur = {.p = meta, .len = meta ? len : 0};
	int rc;

	/* the file's own ids: the load then goes past the comparisons */
	px_ckpt_get_u64(&cur);
	px_ckpt_get_u64(&cur);
	ids.scene = px_ckpt_get_u64(&cur);
	ids.settings = px_ckpt_get_u64(&cur);
	ids.config = px_ckpt_get_u64(&cur);
	px_world_settings_default(&s);
	if (px_world_create(&s, &w, &err))
		abort();
	rc = px_world_checkpoint_load(w, cfg, &ids, c, path, &err);
	if (rc && (!strstr(err.msg, path) || strchr(err.msg, '\n')))
		abort();
	if (!rc && px_world_n_bodies(w) <= MAX_STEPPED_BODIES) {
		struct px_step_stats st;

		for (int i = 0; i < 2 && !rc; i++)
			rc = px_world_step(w, cfg, &st, &err);
	}
	px_world_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct px_checkpoint *c = NULL;
	struct px_error err = {0};
	uint8_t *b;

	if (size < 1)
		return 0;
	b = malloc(size);
	if (!b)
		abort();
	memcpy(b, data + 1, size - 1);
	if (data[0] & 1)
		fix_crcs(b, size - 1);
	fuzz_file(path, ".ckpt", b, size - 1);
	free(b);
	if (px_checkpoint_read(path, &c, &err) == PX_OK) {
		if (!c)
			abort();
		load(c);
		px_checkpoint_destroy(c);
	} else if (c || !strstr(err.msg, path) || strchr(err.msg, '\n')) {
		abort();
	}
	return 0;
}
