/* The checkpoint container and its file (doc/checkpoint.md): a 32-byte
 * header, a table of 32 bytes per section, then the sections' bytes, each
 * at an offset that is a multiple of 8. Integers and doubles little-endian.
 *
 *   header   0  8  magic "\x89PXCKPT\n"
 *            8  4  format version (PX_CHECKPOINT_VERSION)
 *           12  4  header size (32)
 *           16  4  sections n
 *           20  4  table entry size (32)
 *           24  4  flags (0)
 *           28  4  CRC-32 of bytes 0..27 and of the table
 *   entry    0  4  tag (4 ASCII characters)
 *            4  4  records
 *            8  4  record size (0: one record of the section's layout)
 *           12  4  CRC-32 of the section's bytes
 *           16  8  offset from the file's start
 *           24  8  length (bytes)
 *
 * The file ends with the last section's bytes: a shorter file is
 * truncated. A plain format rather than HDF5: HDF5 is an optional part of
 * the build, and Debian's libhdf5 crashes on some corrupt files
 * (tests/fuzz/regress/hdf5-*.hdf5), which a restart must refuse, not
 * crash on. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"

#define HEADER_SIZE 32u
#define ENTRY_SIZE 32u

static const unsigned char magic[8] = {0x89, 'P', 'X', 'C', 'K', 'P', 'T',
				       '\n'};

struct section {
	char tag[4];
	uint32_t count, record_size;
	unsigned char *data;
	size_t len;
};

struct px_checkpoint {
	struct section s[PX_CHECKPOINT_MAX_SECTIONS];
	size_t n;
};

/* ---- CRC-32 and FNV-1a ------------------------------------------------ */

/* CRC-32 of the reflected polynomial 0xedb88320, four bits at a time: a
 * 16-entry table, constant, and no state to set up. */
uint32_t px_crc32(uint32_t crc, const void *buf, size_t len)
{
	static const uint32_t t[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c};
	const unsigned char *p = buf;

	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ t[crc & 15];
		crc = (crc >> 4) ^ t[crc & 15];
	}
	return ~crc;
}

uint64_t px_fnv1a(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3u;
	return h;
}

/* ---- encoding --------------------------------------------------------- */

static unsigned char *room(struct px_ckpt_buf *b, size_t len)
{
	unsigned char *at;

	if (b->failed)
		return NULL;
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		unsigned char *p;

		while (cap - b->len < len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = 1;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	at = b->p + b->len;
	b->len += len;
	return at;
}

static void le_store(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t le_load(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

void px_ckpt_put_u32(struct px_ckpt_buf *b, uint32_t v)
{
	unsigned char *p = room(b, 4);

	if (p)
		le_store(p, v, 4);
}

void px_ckpt_put_u64(struct px_ckpt_buf *b, uint64_t v)
{
	unsigned char *p = room(b, 8);

	if (p)
		le_store(p, v, 8);
}

void px_ckpt_put_f64(struct px_ckpt_buf *b, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof u);
	px_ckpt_put_u64(b, u);
}

void px_ckpt_put_bytes(struct px_ckpt_buf *b, const void *p, size_t len)
{
	unsigned char *at = room(b, len);

	if (at && len)
		memcpy(at, p, len);
}

void px_ckpt_put_str(struct px_ckpt_buf *b, const char *s)
{
	const size_t len = s ? strlen(s) : 0;

	px_ckpt_put_u32(b, (uint32_t)len);
	px_ckpt_put_bytes(b, s, len);
}

void px_ckpt_buf_free(struct px_ckpt_buf *b)
{
	free(b->p);
	*b = (struct px_ckpt_buf){0};
}

const unsigned char *px_ckpt_get_bytes(struct px_ckpt_cursor *c, size_t len)
{
	const unsigned char *p;

	if (c->failed || len > c->len - c->at) {
		c->failed = 1;
		return NULL;
	}
	p = c->p + c->at;
	c->at += len;
	return p;
}

uint32_t px_ckpt_get_u32(struct px_ckpt_cursor *c)
{
	const unsigned char *p = px_ckpt_get_bytes(c, 4);

	return p ? (uint32_t)le_load(p, 4) : 0;
}

uint64_t px_ckpt_get_u64(struct px_ckpt_cursor *c)
{
	const unsigned char *p = px_ckpt_get_bytes(c, 8);

	return p ? le_load(p, 8) : 0;
}

double px_ckpt_get_f64(struct px_ckpt_cursor *c)
{
	const uint64_t u = px_ckpt_get_u64(c);
	double v;

	memcpy(&v, &u, sizeof v);
	return v;
}

const char *px_ckpt_get_str(struct px_ckpt_cursor *c, uint32_t *len)
{
	*len = px_ckpt_get_u32(c);
	return (const char *)px_ckpt_get_bytes(c, *len);
}

/* ---- the container ---------------------------------------------------- */

int px_checkpoint_create(struct px_checkpoint **out, struct px_error *err)
{
	*out = calloc(1, sizeof **out);
	return *out ? PX_OK
		    : px_error_set(err, PX_ERR_NOMEM, "out of memory");
}

void px_checkpoint_destroy(struct px_checkpoint *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->s[i].data);
	free(c);
}

static const struct section *find(const struct px_checkpoint *c,
				  const char *tag)
{
	for (size_t i = 0; i < c->n; i++)
		if (!memcmp(c->s[i].tag, tag, 4))
			return c->s + i;
	return NULL;
}

int px_checkpoint_add(struct px_checkpoint *c, const char *tag,
		      uint32_t count, uint32_t record_size, const void *data,
		      size_t len, struct px_error *err)
{
	struct section *s;

	if (strlen(tag) != 4 || find(c, tag))
		return px_error_set(err, PX_ERR_INVALID,
				    "checkpoint section '%s': not a new 4-character tag",
				    tag);
	if (c->n == PX_CHECKPOINT_MAX_SECTIONS)
		return px_error_set(err, PX_ERR_INVALID,
				    "checkpoint: more than %u sections",
				    PX_CHECKPOINT_MAX_SECTIONS);
	if (record_size ? (uint64_t)count * record_size != len : count != 1)
		return px_error_set(err, PX_ERR_INVALID,
				    "checkpoint section '%s': %zu bytes are not %u records of %u",
				    tag, len, count, record_size);
	s = c->s + c->n;
	s->data = malloc(len + 1);
	if (!s->data)
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	if (len)
		memcpy(s->data, data, len);
	memcpy(s->tag, tag, 4);
	s->count = count;
	s->record_size = record_size;
	s->len = len;
	c->n++;
	return PX_OK;
}

const unsigned char *px_checkpoint_find(const struct px_checkpoint *c,
					const char *tag, uint32_t *count,
					uint32_t *record_size, size_t *len)
{
	const struct section *s = find(c, tag);

	if (!s)
		return NULL;
	if (count)
		*count = s->count;
	if (record_size)
		*record_size = s->record_size;
	if (len)
		*len = s->len;
	return s->data;
}

/* ---- the file --------------------------------------------------------- */

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The whole file's bytes into b. */
static void encode(const struct px_checkpoint *c, struct px_ckpt_buf *b)
{
	const size_t table = HEADER_SIZE + ENTRY_SIZE * c->n;
	size_t at = align8(table);
	uint32_t crc;

	px_ckpt_put_bytes(b, magic, sizeof magic);
	px_ckpt_put_u32(b, PX_CHECKPOINT_VERSION);
	px_ckpt_put_u32(b, HEADER_SIZE);
	px_ckpt_put_u32(b, (uint32_t)c->n);
	px_ckpt_put_u32(b, ENTRY_SIZE);
	px_ckpt_put_u32(b, 0);
	px_ckpt_put_u32(b, 0); /* the CRC, below */
	for (size_t i = 0; i < c->n; i++) {
		const struct section *s = c->s + i;

		px_ckpt_put_bytes(b, s->tag, 4);
		px_ckpt_put_u32(b, s->count);
		px_ckpt_put_u32(b, s->record_size);
		px_ckpt_put_u32(b, px_crc32(0, s->data, s->len));
		px_ckpt_put_u64(b, at);
		px_ckpt_put_u64(b, s->len);
		at = align8(at + s->len);
	}
	for (size_t i = 0; i < c->n; i++) {
		static const unsigned char zero[8];

		px_ckpt_put_bytes(b, zero, align8(b->len) - b->len);
		px_ckpt_put_bytes(b, c->s[i].data, c->s[i].len);
	}
	if (b->failed)
		return;
	crc = px_crc32(0, b->p, 28);
	crc = px_crc32(crc, b->p + HEADER_SIZE, table - HEADER_SIZE);
	le_store(b->p + 28, crc, 4);
}

/* The folder of path, for its fsync after the rename. */
static int sync_folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	int fd, rc;

	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int px_checkpoint_write(const struct px_checkpoint *c, const char *path,
			struct px_error *err)
{
	struct px_ckpt_buf b = {0};
	char tmp[4096];
	size_t done = 0;
	int fd, rc = PX_OK;

	if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof tmp)
		return px_error_set(err, PX_ERR_IO, "%s: path too long", path);
	encode(c, &b);
	if (b.failed) {
		px_ckpt_buf_free(&b);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0) {
		rc = px_error_set(err, PX_ERR_IO, "%s: cannot write: %s", path,
				  strerror(errno));
		px_ckpt_buf_free(&b);
		return rc;
	}
	while (done < b.len) {
		const ssize_t k = write(fd, b.p + done, b.len - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = px_error_set(err, PX_ERR_IO, "%s: cannot write: %s",
					  path, k < 0 ? strerror(errno)
						      : "no space written");
			break;
		}
		done += (size_t)k;
	}
	if (!rc && fsync(fd))
		rc = px_error_set(err, PX_ERR_IO, "%s: cannot write: %s", path,
				  strerror(errno));
	if (close(fd) && !rc)
		rc = px_error_set(err, PX_ERR_IO, "%s: cannot write: %s", path,
				  strerror(errno));
	if (!rc && rename(tmp, path))
		rc = px_error_set(err, PX_ERR_IO, "%s: cannot write: %s", path,
				  strerror(errno));
	if (rc)
		unlink(tmp);
	else
		sync_folder(path); /* the rename made durable; best effort */
	px_ckpt_buf_free(&b);
	return rc;
}

static int corrupt(struct px_error *err, const char *name, const char *what)
{
	return px_error_set(err, PX_ERR_FORMAT,
			    "%s: not a valid checkpoint: %s", name, what);
}

int px_checkpoint_parse(const unsigned char *buf, size_t len,
			const char *name, struct px_checkpoint **out,
			struct px_error *err)
{
	struct px_ckpt_cursor h = {.p = buf, .len = len};
	struct px_checkpoint *c;
	uint32_t version, n, crc;
	uint64_t end;
	char what[128];
	int rc;

	*out = NULL;
	if (len < sizeof magic || memcmp(buf, magic, sizeof magic))
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: not a proxima checkpoint (no checkpoint magic)",
				    name);
	if (len < HEADER_SIZE)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: truncated checkpoint: %zu bytes, less than its header",
				    name, len);
	px_ckpt_get_bytes(&h, sizeof magic);
	version = px_ckpt_get_u32(&h);
	if (version > PX_CHECKPOINT_VERSION || version == 0)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: checkpoint format version %u; this proxima reads versions 1 to %u",
				    name, version, PX_CHECKPOINT_VERSION);
	if (px_ckpt_get_u32(&h) != HEADER_SIZE)
		return corrupt(err, name, "header size is not 32");
	n = px_ckpt_get_u32(&h);
	if (px_ckpt_get_u32(&h) != ENTRY_SIZE)
		return corrupt(err, name, "table entry size is not 32");
	if (px_ckpt_get_u32(&h) != 0)
		return corrupt(err, name, "unknown flags");
	crc = px_ckpt_get_u32(&h);
	if (n > PX_CHECKPOINT_MAX_SECTIONS)
		return corrupt(err, name, "too many sections");
	if (len < HEADER_SIZE + (size_t)ENTRY_SIZE * n)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: truncated checkpoint: %zu bytes, less than its section table",
				    name, len);
	if (crc != px_crc32(px_crc32(0, buf, 28), buf + HEADER_SIZE,
			    (size_t)ENTRY_SIZE * n))
		return corrupt(err, name,
			       "the header's CRC-32 does not match");
	if ((rc = px_checkpoint_create(&c, err)))
		return rc;
	end = HEADER_SIZE + (uint64_t)ENTRY_SIZE * n;
	for (uint32_t i = 0; i < n; i++) {
		char tag[5] = {0};
		uint32_t count, rsize, scrc;
		uint64_t off, slen;

		memcpy(tag, px_ckpt_get_bytes(&h, 4), 4);
		count = px_ckpt_get_u32(&h);
		rsize = px_ckpt_get_u32(&h);
		scrc = px_ckpt_get_u32(&h);
		off = px_ckpt_get_u64(&h);
		slen = px_ckpt_get_u64(&h);
		for (int q = 0; q < 4; q++)
			if (tag[q] < 0x20 || tag[q] > 0x7e)
				tag[q] = '?';
		if (off < end || off % 8) {
			snprintf(what, sizeof what,
				 "section %u (%s) at a bad offset", i, tag);
			rc = corrupt(err, name, what);
			break;
		}
		if (off > len || slen > len - off) {
			rc = px_error_set(err, PX_ERR_FORMAT,
					  "%s: truncated checkpoint: %zu bytes, section %s needs %llu",
					  name, len, tag,
					  (unsigned long long)(off + slen));
			break;
		}
		for (uint64_t q = end; q < off; q++)
			if (buf[q]) {
				rc = corrupt(err, name,
					     "padding that is not zeros");
				break;
			}
		if (rc)
			break;
		if (px_crc32(0, buf + off, (size_t)slen) != scrc) {
			snprintf(what, sizeof what,
				 "section %s's CRC-32 does not match", tag);
			rc = corrupt(err, name, what);
			break;
		}
		if ((rc = px_checkpoint_add(c, tag, count, rsize, buf + off,
					    (size_t)slen, err))) {
			snprintf(what, sizeof what,
				 "section %u (%s): a repeated tag, or a length that is not its records",
				 i, tag);
			if (rc != PX_ERR_NOMEM)
				rc = corrupt(err, name, what);
			break;
		}
		end = off + slen;
	}
	if (!rc && end != len)
		rc = px_error_set(err, PX_ERR_FORMAT,
				  "%s: not a valid checkpoint: %zu bytes, its sections end at %llu",
				  name, len, (unsigned long long)end);
	if (rc) {
		px_checkpoint_destroy(c);
		return rc;
	}
	*out = c;
	return PX_OK;
}

int px_checkpoint_read(const char *path, struct px_checkpoint **out,
		       struct px_error *err)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	*out = NULL;
	if (!f)
		return px_error_set(err, PX_ERR_IO, "%s: cannot read: %s", path,
				    strerror(errno));
	for (;;) {
		size_t k;

		if (len == cap) {
			unsigned char *p = realloc(buf, cap ? 2 * cap : 65536);

			if (!p) {
				free(buf);
				fclose(f);
				return px_error_set(err, PX_ERR_NOMEM,
						    "out of memory");
			}
			buf = p;
			cap = cap ? 2 * cap : 65536;
		}
		k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		rc = px_error_set(err, PX_ERR_IO, "%s: cannot read: %s", path,
				  strerror(errno));
		free(buf);
		fclose(f);
		return rc;
	}
	fclose(f);
	rc = px_checkpoint_parse(buf, len, path, out, err);
	free(buf);
	return rc;
}
