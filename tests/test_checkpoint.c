/* Checkpoints (sim/checkpoint.c, sim/world_checkpoint.c; issue 35): the
 * container's round trip, the refusal of every corrupted, truncated or
 * newer file with its exact message, and a world saved after some steps
 * and loaded into a fresh one stepping on bit for bit like the original,
 * the random ordering's generator included; the persist ops (ABI 1.8) read
 * only from plugins that declare them. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/checkpoint.h"
#include "../sim/scene.h"
#include "../sim/world.h"
#include "helpers.h"

static struct px_checkpoint *sample(void)
{
	struct px_checkpoint *c;
	struct px_error err = {0};
	const double rec[3] = {1.5, -0.0, 1e-300};

	cr_assert_eq(px_checkpoint_create(&c, &err), PX_OK);
	cr_assert_eq(px_checkpoint_add(c, "ABCD", 3, 8, rec, sizeof rec, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_eq(px_checkpoint_add(c, "TEXT", 1, 0, "hello", 5, &err),
		     PX_OK, "%s", err.msg);
	cr_assert_eq(px_checkpoint_add(c, "NONE", 0, 72, NULL, 0, &err), PX_OK,
		     "%s", err.msg);
	return c;
}

/* The bytes of a checkpoint file into *len (malloc'd). */
static unsigned char *file_bytes(const struct px_checkpoint *c, size_t *len)
{
	char path[] = "/tmp/px_ckpt_XXXXXX";
	const int fd = mkstemp(path);
	struct px_error err = {0};
	unsigned char *buf;
	struct stat sb;
	FILE *f;

	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(px_checkpoint_write(c, path, &err), PX_OK, "%s", err.msg);
	cr_assert_eq(stat(path, &sb), 0);
	buf = malloc((size_t)sb.st_size + 8); /* 8: room to add bytes */
	f = fopen(path, "rb");
	*len = fread(buf, 1, (size_t)sb.st_size, f);
	fclose(f);
	unlink(path);
	return buf;
}

Test(checkpoint, round_trip)
{
	struct px_checkpoint *c = sample(), *back;
	struct px_error err = {0};
	size_t len, n;
	uint32_t count, rsize;
	unsigned char *buf = file_bytes(c, &len);
	const unsigned char *p;
	double rec[3];

	/* header 32, table 3 x 32, ABCD 24 at 128, TEXT 5 at 152 (+3 pad),
	 * NONE 0 at 160 */
	cr_assert_eq(len, 160);
	cr_assert_eq(memcmp(buf, "\x89PXCKPT\n\1\0\0\0", 12), 0);
	cr_assert_eq(px_checkpoint_parse(buf, len, "f", &back, &err), PX_OK,
		     "%s", err.msg);
	p = px_checkpoint_find(back, "ABCD", &count, &rsize, &n);
	cr_assert(p && count == 3 && rsize == 8 && n == 24);
	memcpy(rec, p, sizeof rec);
	cr_assert(rec[0] == 1.5 && signbit(rec[1]) && rec[2] == 1e-300);
	p = px_checkpoint_find(back, "TEXT", &count, &rsize, &n);
	cr_assert(p && count == 1 && rsize == 0 && n == 5 &&
		  !memcmp(p, "hello", 5));
	cr_assert(px_checkpoint_find(back, "NONE", &count, NULL, &n) &&
		  count == 0 && n == 0);
	cr_assert_null(px_checkpoint_find(back, "XXXX", NULL, NULL, NULL));
	/* the CRC is zlib's: "123456789" -> cbf43926 */
	cr_assert_eq(px_crc32(0, "123456789", 9), 0xcbf43926u);
	px_checkpoint_destroy(back);
	px_checkpoint_destroy(c);
	free(buf);
}

static void refused(const unsigned char *buf, size_t len, const char *want)
{
	struct px_checkpoint *c = NULL;
	struct px_error err = {0};

	cr_assert_neq(px_checkpoint_parse(buf, len, "f.ckpt", &c, &err), PX_OK);
	cr_assert_null(c);
	cr_assert_str_eq(err.msg, want);
}

Test(checkpoint, refusals)
{
	struct px_checkpoint *c = sample();
	size_t len;
	unsigned char *buf = file_bytes(c, &len);

	refused(buf, 4,
		"f.ckpt: not a proxima checkpoint (no checkpoint magic)");
	refused((const unsigned char *)"[world]\ndt = 1\n", 15,
		"f.ckpt: not a proxima checkpoint (no checkpoint magic)");
	refused(buf, 20,
		"f.ckpt: truncated checkpoint: 20 bytes, less than its header");
	refused(buf, 100,
		"f.ckpt: truncated checkpoint: 100 bytes, less than its "
		"section table");
	refused(
	    buf, 150,
	    "f.ckpt: truncated checkpoint: 150 bytes, section ABCD needs 152");
	refused(
	    buf, 159,
	    "f.ckpt: truncated checkpoint: 159 bytes, section NONE needs 160");
	memset(buf + len, 0, 8);
	refused(buf, len + 8,
		"f.ckpt: not a valid checkpoint: 168 bytes, its sections end "
		"at 160");
	buf[140] ^= 1; /* a bit of ABCD */
	refused(buf, len,
		"f.ckpt: not a valid checkpoint: section ABCD's CRC-32 does "
		"not match");
	buf[140] ^= 1;
	buf[70] ^= 4; /* the table */
	refused(buf, len,
		"f.ckpt: not a valid checkpoint: the header's CRC-32 does not "
		"match");
	buf[70] ^= 4;
	buf[8] = 2; /* a newer format */
	refused(buf, len,
		"f.ckpt: checkpoint format version 2; this proxima reads "
		"versions 1 to 1");
	buf[8] = 1;
	{
		struct px_checkpoint *ok = NULL;
		struct px_error err = {0};

		cr_assert_eq(px_checkpoint_parse(buf, len, "f", &ok, &err),
			     PX_OK, "%s", err.msg);
		px_checkpoint_destroy(ok);
	}
	px_checkpoint_destroy(c);
	free(buf);
}

/* Every single-byte change of a file is refused: the CRCs cover the
 * header, the table and the sections, and the padding must be zeros. */
Test(checkpoint, every_byte)
{
	struct px_checkpoint *c = sample();
	size_t len;
	unsigned char *buf = file_bytes(c, &len);

	for (size_t i = 0; i < len; i++) {
		struct px_checkpoint *back = NULL;
		struct px_error err = {0};
		int rc;

		buf[i] ^= 0x10;
		rc = px_checkpoint_parse(buf, len, "f", &back, &err);
		cr_assert_neq(rc, PX_OK, "byte %zu", i);
		buf[i] ^= 0x10;
	}
	px_checkpoint_destroy(c);
	free(buf);
}

static struct px_world *load(const char *name)
{
	char path[512];
	struct px_world *w = NULL;
	struct px_error err = {0};

	snprintf(path, sizeof path, "%s/scenes/%s", PX_TEST_SRCDIR, name);
	cr_assert_eq(px_scene_load(path, &w, &err), PX_OK, "%s", err.msg);
	return w;
}

static void ids_of(const struct px_world *w, const struct px_config *cfg,
		   struct px_checkpoint_ids *ids)
{
	struct px_error err = {0};

	ids->scene = px_world_scene_hash(w);
	ids->settings = px_world_settings_hash(w);
	cr_assert_eq(px_checkpoint_config_hash(cfg, &ids->config, &err), PX_OK,
		     "%s", err.msg);
	ids->scene_name = "ballpile-8.ini";
	ids->config_name = "(test)";
}

/* Whether the bodies of a and b have the same poses and velocities, bit
 * for bit (field by field: a struct's padding is no state). */
static int same_state(const struct px_world *a, const struct px_world *b)
{
	const struct px_body *x = px_world_bodies(a), *y = px_world_bodies(b);

	if (px_world_n_bodies(a) != px_world_n_bodies(b))
		return 0;
	for (size_t i = 0; i < px_world_n_bodies(a); i++)
		if (memcmp(x[i].x, y[i].x, sizeof x[i].x) ||
		    memcmp(x[i].q, y[i].q, sizeof x[i].q) ||
		    memcmp(x[i].v, y[i].v, sizeof x[i].v) ||
		    memcmp(x[i].w, y[i].w, sizeof x[i].w))
			return 0;
	return 1;
}

static void steps(struct px_world *w, const struct px_config *cfg, int n)
{
	struct px_step_stats st;
	struct px_error err = {0};

	for (int i = 0; i < n; i++)
		cr_assert_eq(px_world_step(w, cfg, &st, &err), PX_OK, "%s",
			     err.msg);
}

static const char *const random_ini = "[solver]\nmax_sweeps = 20\n"
				      "[ordering]\nplugin = random\n"
				      "seed = 7\nreshuffle = once\n";

/* A ball pile with the random ordering and 2 substeps: 30 steps, a
 * checkpoint, 20 more; a fresh world and config loaded from the
 * checkpoint take the same 20 steps to the same bits. */
Test(checkpoint, world_restart_bit_exact)
{
	struct px_world *a = load("ballpile-8.ini"),
			*b = load("ballpile-8.ini");
	struct px_config *ca = config_from_text(random_ini),
			 *cb = config_from_text(random_ini);
	struct px_checkpoint_ids ids;
	struct px_checkpoint *c, *back;
	struct px_error err = {0};
	size_t len;
	unsigned char *buf;

	px_world_settings_mut(a)->substeps = 2;
	px_world_settings_mut(b)->substeps = 2;
	ids_of(a, ca, &ids);
	steps(a, ca, 30);
	cr_assert_eq(px_checkpoint_create(&c, &err), PX_OK);
	cr_assert_eq(px_world_checkpoint_save(a, ca, &ids, c, &err), PX_OK,
		     "%s", err.msg);
	buf = file_bytes(c, &len);
	cr_assert_eq(px_checkpoint_parse(buf, len, "f", &back, &err), PX_OK,
		     "%s", err.msg);
	cr_assert_eq(px_checkpoint_step(back), 30);
	cr_assert_eq(px_world_checkpoint_load(b, cb, &ids, back, "f", &err),
		     PX_OK, "%s", err.msg);
	steps(a, ca, 20);
	steps(b, cb, 20);
	cr_assert(same_state(a, b), "the restarted world differs");
	/* without the generator's state the order differs, and so do the
	 * bits: the test would catch a checkpoint that forgot it */
	{
		struct px_world *d = load("ballpile-8.ini");
		struct px_config *cd = config_from_text(random_ini),
				 *fresh = config_from_text(random_ini);

		px_world_settings_mut(d)->substeps = 2;
		cr_assert_eq(
		    px_world_checkpoint_load(d, cd, &ids, back, "f", &err),
		    PX_OK, "%s", err.msg);
		steps(d, fresh, 20);
		px_config_free(fresh);
		cr_assert_not(same_state(a, d));
		px_world_destroy(d);
		px_config_free(cd);
	}
	px_checkpoint_destroy(back);
	px_checkpoint_destroy(c);
	free(buf);
	px_world_destroy(a);
	px_world_destroy(b);
	px_config_free(ca);
	px_config_free(cb);
}

Test(checkpoint, world_refusals)
{
	struct px_world *a = load("ballpile-8.ini"),
			*b = load("boxstack-10.ini");
	struct px_config *ca = config_from_text(random_ini),
			 *c2 = config_from_text(
			     "[ordering]\nplugin = random\nseed = 8\n");
	struct px_checkpoint_ids ids, other;
	struct px_checkpoint *c;
	struct px_error err = {0};

	ids_of(a, ca, &ids);
	steps(a, ca, 3);
	cr_assert_eq(px_checkpoint_create(&c, &err), PX_OK);
	cr_assert_eq(px_world_checkpoint_save(a, ca, &ids, c, &err), PX_OK,
		     "%s", err.msg);
	ids_of(b, ca, &other);
	other.scene_name = "boxstack-10.ini";
	cr_assert_eq(px_world_checkpoint_load(b, ca, &other, c, "f", &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "f: checkpoint of another scene "
				  "(ballpile-8.ini), not of boxstack-10.ini");
	px_world_destroy(b);
	b = load("ballpile-8.ini");
	ids_of(b, c2, &other);
	other.config_name = "seed8.ini";
	cr_assert_eq(px_world_checkpoint_load(b, c2, &other, c, "f", &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg, "f: checkpoint of another solver config "
				  "((test)), not of this run's (seed8.ini)");
	ids_of(b, ca, &other);
	px_world_settings_mut(b)->substeps = 3;
	other.settings = px_world_settings_hash(b);
	cr_assert_eq(px_world_checkpoint_load(b, ca, &other, c, "f", &err),
		     PX_ERR_INVALID);
	cr_assert_str_eq(err.msg,
			 "f: checkpoint of other world settings: this run's "
			 "(the scene's [world], --cache) change the steps");
	/* the time limit changes nothing that is hashed */
	px_config_settings_mut(ca)->time_limit = 5;
	px_world_settings_mut(b)->substeps = 1;
	px_world_settings_mut(b)->steps = 7; /* nor does the step count */
	ids_of(b, ca, &other);
	cr_assert_eq(other.config, ids.config);
	cr_assert_eq(other.settings, ids.settings);
	px_checkpoint_destroy(c);
	px_world_destroy(a);
	px_world_destroy(b);
	px_config_free(ca);
	px_config_free(c2);
}

static size_t one_size(const void *state)
{
	(void)state;
	return 1;
}

static void one_save(const void *state, unsigned char *buf)
{
	(void)state;
	buf[0] = 1;
}

static int one_load(void *state, const unsigned char *buf, size_t len,
		    char *err, size_t errlen)
{
	(void)state;
	(void)buf;
	(void)len;
	(void)err;
	(void)errlen;
	return 0;
}

/* The host reads persist (ABI 1.8) only from plugins of minor >= 8 whose
 * ops struct covers it, and only with its three operations; the shipped
 * random ordering has it, identity (no state) not. */
Test(checkpoint, persist_ops_by_minor)
{
	static const struct px_persist_ops ops = {one_size, one_save,
						  one_load};
	static const struct px_persist_ops half = {one_size, one_save, NULL};
	struct px_ordering_ops o = {
	    .h = {.abi_major = PX_ABI_MAJOR,
		  .abi_minor = 8,
		  .kind = PX_KIND_ORDERING,
		  .ops_size = sizeof(struct px_ordering_ops),
		  .name = "t"},
	    .persist = &ops,
	};
	struct px_config *cfg = config_from_text("[ordering]\nplugin = random\n"),
			 *id = config_from_text("[ordering]\nplugin = identity\n");

	cr_assert_eq(px_plugin_persist(&o.h), &ops);
	o.h.abi_minor = 7;
	cr_assert_null(px_plugin_persist(&o.h));
	o.h.abi_minor = 8;
	o.h.ops_size = offsetof(struct px_ordering_ops, persist);
	cr_assert_null(px_plugin_persist(&o.h));
	o.h.ops_size = sizeof(struct px_ordering_ops);
	o.persist = &half;
	cr_assert_null(px_plugin_persist(&o.h));
	cr_assert_not_null(px_plugin_persist(
	    px_plugin_header(px_config_plugin(cfg, PX_KIND_ORDERING))));
	cr_assert_null(px_plugin_persist(
	    px_plugin_header(px_config_plugin(id, PX_KIND_ORDERING))));
	px_config_free(cfg);
	px_config_free(id);
}
