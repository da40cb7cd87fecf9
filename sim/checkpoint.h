/* Checkpoints (issue 35): a world's state, and what else a run needs to go
 * on from it bit for bit, in a versioned binary file (doc/checkpoint.md
 * describes it byte by byte; tools/checkpoint.py reads it).
 *
 * A checkpoint is a list of sections, each a 4-character tag and bytes
 * (records of a fixed size, or one record of its own layout), with a
 * CRC-32 per section and one over the header and the section table. The
 * numbers inside are little-endian whatever the host (px_ckpt_put_*,
 * px_ckpt_get_*), so a file moves between machines. sim/checkpoint.c
 * holds the container and the file; world_checkpoint.c the world's
 * sections (META, BODY, CACH, PLUG); a program adds its own (proxima run
 * adds TOTS for its totals).
 *
 * Files are written to a temporary name in the same folder, fsynced and
 * renamed into place: a crash leaves the previous checkpoint or none.
 * Reading checks everything before anything is used: a refused file is
 * one line in err naming it, and never a crash (tests/fuzz/checkpoint.c). */
#ifndef PX_SIM_CHECKPOINT_H
#define PX_SIM_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include <proxima/proxima.h>

/* The format version this code writes, and the newest it reads. */
#define PX_CHECKPOINT_VERSION 1u

/* The most sections a file may hold. */
#define PX_CHECKPOINT_MAX_SECTIONS 64u

struct px_checkpoint;

/* An empty checkpoint. */
int px_checkpoint_create(struct px_checkpoint **out, struct px_error *err);
void px_checkpoint_destroy(struct px_checkpoint *c);

/* Add a section (a copy of data[0..len)): count records of record_size
 * bytes (len = count * record_size), or record_size 0 for one record of
 * the section's own layout (count 1). A tag added twice is an error. */
int px_checkpoint_add(struct px_checkpoint *c, const char *tag, uint32_t count,
		      uint32_t record_size, const void *data, size_t len,
		      struct px_error *err);

/* The section of tag, or NULL: its bytes, *len, and *count records of
 * *record_size bytes (any of them may be NULL). */
const unsigned char *px_checkpoint_find(const struct px_checkpoint *c,
					const char *tag, uint32_t *count,
					uint32_t *record_size, size_t *len);

/* Write c to path (core/outfile.c: a temporary name beside it, fsync,
 * rename, the folder fsynced); a failure is "PATH: cannot write: <why>"
 * and leaves the file there as it was. */
int px_checkpoint_write(const struct px_checkpoint *c, const char *path,
			struct px_error *err);

/* Read and check the file path into *out. Refusals (PX_ERR_FORMAT, or
 * PX_ERR_IO) name path: not a checkpoint, a newer format version,
 * truncated, a CRC-32 that does not match, a malformed table. */
int px_checkpoint_read(const char *path, struct px_checkpoint **out,
		       struct px_error *err);

/* px_checkpoint_read of bytes in memory, name standing for the file in
 * messages. */
int px_checkpoint_parse(const unsigned char *buf, size_t len, const char *name,
			struct px_checkpoint **out, struct px_error *err);

/* CRC-32 (ISO-HDLC, zlib's crc32) of buf, continued from crc (0 first). */
uint32_t px_crc32(uint32_t crc, const void *buf, size_t len);

/* FNV-1a 64 of buf, continued from h (PX_FNV_START first). */
#define PX_FNV_START 0xcbf29ce484222325u
uint64_t px_fnv1a(uint64_t h, const void *buf, size_t len);

/* ---- encoding: a growing buffer and a reading cursor ------------------ */

struct px_ckpt_buf {
	unsigned char *p;
	size_t len, cap;
	int failed; /* out of memory: the puts since did nothing */
};

void px_ckpt_put_u32(struct px_ckpt_buf *b, uint32_t v);
void px_ckpt_put_u64(struct px_ckpt_buf *b, uint64_t v);
void px_ckpt_put_f64(struct px_ckpt_buf *b, double v); /* its bits */
/* A string: u32 length, then its bytes (no NUL). */
void px_ckpt_put_str(struct px_ckpt_buf *b, const char *s);
void px_ckpt_put_bytes(struct px_ckpt_buf *b, const void *p, size_t len);
void px_ckpt_buf_free(struct px_ckpt_buf *b);

struct px_ckpt_cursor {
	const unsigned char *p;
	size_t len, at;
	int failed; /* read past the end: the gets since gave 0 */
};

uint32_t px_ckpt_get_u32(struct px_ckpt_cursor *c);
uint64_t px_ckpt_get_u64(struct px_ckpt_cursor *c);
double px_ckpt_get_f64(struct px_ckpt_cursor *c);
/* A string as put: *len bytes at the returned pointer (not
 * NUL-terminated), or NULL past the end. */
const char *px_ckpt_get_str(struct px_ckpt_cursor *c, uint32_t *len);
const unsigned char *px_ckpt_get_bytes(struct px_ckpt_cursor *c, size_t len);

/* ---- a world's sections (world_checkpoint.c) -------------------------- */

struct px_world;

/* What a checkpoint belongs to: the hashes a restart compares, and the
 * names it says when they differ. */
struct px_checkpoint_ids {
	uint64_t scene;		/* px_world_scene_hash of the world as loaded */
	uint64_t settings;	/* px_world_settings_hash */
	uint64_t config;	/* px_checkpoint_config_hash */
	const char *scene_name; /* e.g. the scene's path */
	const char *config_name; /* e.g. px_config_source */
};

/* The hash of a world's bodies (every field, in order): taken right after
 * the scene is loaded, it names the scene. */
uint64_t px_world_scene_hash(const struct px_world *w);

/* The hash of the world's settings but the step count (a restart may run
 * longer): dt, gravity, stepping, stabilization, substeps, contact cache,
 * soft contact. */
uint64_t px_world_settings_hash(const struct px_world *w);

/* The hash of the config in effect (px_config_write's text) but its
 * source and time_limit (a restart may have another deadline). */
int px_checkpoint_config_hash(const struct px_config *cfg, uint64_t *out,
			      struct px_error *err);

/* Add w's sections to c: META (ids, step, time), BODY (every body, every
 * field), CACH (the contact cache: pairs, feature ids, points, impulses)
 * and PLUG (the state of cfg's plugins that keep one across solves,
 * through their persist ops, ABI 1.8). */
int px_world_checkpoint_save(const struct px_world *w,
			     const struct px_config *cfg,
			     const struct px_checkpoint_ids *ids,
			     struct px_checkpoint *c, struct px_error *err);

/* Check c (read from path) against ids, then put its state into w and
 * cfg's plugins. A refusal is one line naming path: another scene, other
 * settings or another config (PX_ERR_INVALID), a malformed section
 * (PX_ERR_FORMAT). Refused for the ids, w and cfg are unchanged; refused
 * later, they may be half restored: destroy them. */
int px_world_checkpoint_load(struct px_world *w, struct px_config *cfg,
			     const struct px_checkpoint_ids *ids,
			     const struct px_checkpoint *c, const char *path,
			     struct px_error *err);

/* The step a checkpoint was taken after (META), for messages; 0 when c
 * has no META. */
uint64_t px_checkpoint_step(const struct px_checkpoint *c);

#endif
