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
 * truncated. It is written through core/outfile.c: under a temporary name
 * beside it, fsynced and renamed into place. A plain format rather than
 * HDF5: HDF5 is an optional part of the build, and Debian's libhdf5
 * crashes on some corrupt files (tests/fuzz/regress/hdf5-*.hdf5), which a
 * restart must refuse, not crash on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "checkpoint.h"

#define HEADER_SIZE 32u
#define ENTRY_SIZE 32u

static const unsigned char magic[8] = {0x89, 'P', 'X', 'C',
				       'K',  'P', 'T', '\n'};

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

/* CRC-32 of the reflected polynomial 0xedb88320, a byte at a time from a
 * constant table (no state to set up): about 2 ns a byte, against 15 for
 * four bits at a time, on a checkpoint of 28 MB (doc/benchmarks.md). */
uint32_t px_crc32(uint32_t crc, const void *buf, size_t len)
{
	static const uint32_t t[256] = {
	    0x00000000, 0x77073096, 0xee0e612c, 0x990951ba, 0x076dc419,
	    0x706af48f, 0xe963a535, 0x9e6495a3, 0x0edb8832, 0x79dcb8a4,
	    0xe0d5e91e, 0x97d2d988, 0x09b64c2b, 0x7eb17cbd, 0xe7b82d07,
	    0x90bf1d91, 0x1db71064, 0x6ab020f2, 0xf3b97148, 0x84be41de,
	    0x1adad47d, 0x6ddde4eb, 0xf4d4b551, 0x83d385c7, 0x136c9856,
	    0x646ba8c0, 0xfd62f97a, 0x8a65c9ec, 0x14015c4f, 0x63066cd9,
	    0xfa0f3d63, 0x8d080df5, 0x3b6e20c8, 0x4c69105e, 0xd56041e4,
	    0xa2677172, 0x3c03e4d1, 0x4b04d447, 0xd20d85fd, 0xa50ab56b,
	    0x35b5a8fa, 0x42b2986c, 0xdbbbc9d6, 0xacbcf940, 0x32d86ce3,
	    0x45df5c75, 0xdcd60dcf, 0xabd13d59, 0x26d930ac, 0x51de003a,
	    0xc8d75180, 0xbfd06116, 0x21b4f4b5, 0x56b3c423, 0xcfba9599,
	    0xb8bda50f, 0x2802b89e, 0x5f058808, 0xc60cd9b2, 0xb10be924,
	    0x2f6f7c87, 0x58684c11, 0xc1611dab, 0xb6662d3d, 0x76dc4190,
	    0x01db7106, 0x98d220bc, 0xefd5102a, 0x71b18589, 0x06b6b51f,
	    0x9fbfe4a5, 0xe8b8d433, 0x7807c9a2, 0x0f00f934, 0x9609a88e,
	    0xe10e9818, 0x7f6a0dbb, 0x086d3d2d, 0x91646c97, 0xe6635c01,
	    0x6b6b51f4, 0x1c6c6162, 0x856530d8, 0xf262004e, 0x6c0695ed,
	    0x1b01a57b, 0x8208f4c1, 0xf50fc457, 0x65b0d9c6, 0x12b7e950,
	    0x8bbeb8ea, 0xfcb9887c, 0x62dd1ddf, 0x15da2d49, 0x8cd37cf3,
	    0xfbd44c65, 0x4db26158, 0x3ab551ce, 0xa3bc0074, 0xd4bb30e2,
	    0x4adfa541, 0x3dd895d7, 0xa4d1c46d, 0xd3d6f4fb, 0x4369e96a,
	    0x346ed9fc, 0xad678846, 0xda60b8d0, 0x44042d73, 0x33031de5,
	    0xaa0a4c5f, 0xdd0d7cc9, 0x5005713c, 0x270241aa, 0xbe0b1010,
	    0xc90c2086, 0x5768b525, 0x206f85b3, 0xb966d409, 0xce61e49f,
	    0x5edef90e, 0x29d9c998, 0xb0d09822, 0xc7d7a8b4, 0x59b33d17,
	    0x2eb40d81, 0xb7bd5c3b, 0xc0ba6cad, 0xedb88320, 0x9abfb3b6,
	    0x03b6e20c, 0x74b1d29a, 0xead54739, 0x9dd277af, 0x04db2615,
	    0x73dc1683, 0xe3630b12, 0x94643b84, 0x0d6d6a3e, 0x7a6a5aa8,
	    0xe40ecf0b, 0x9309ff9d, 0x0a00ae27, 0x7d079eb1, 0xf00f9344,
	    0x8708a3d2, 0x1e01f268, 0x6906c2fe, 0xf762575d, 0x806567cb,
	    0x196c3671, 0x6e6b06e7, 0xfed41b76, 0x89d32be0, 0x10da7a5a,
	    0x67dd4acc, 0xf9b9df6f, 0x8ebeeff9, 0x17b7be43, 0x60b08ed5,
	    0xd6d6a3e8, 0xa1d1937e, 0x38d8c2c4, 0x4fdff252, 0xd1bb67f1,
	    0xa6bc5767, 0x3fb506dd, 0x48b2364b, 0xd80d2bda, 0xaf0a1b4c,
	    0x36034af6, 0x41047a60, 0xdf60efc3, 0xa867df55, 0x316e8eef,
	    0x4669be79, 0xcb61b38c, 0xbc66831a, 0x256fd2a0, 0x5268e236,
	    0xcc0c7795, 0xbb0b4703, 0x220216b9, 0x5505262f, 0xc5ba3bbe,
	    0xb2bd0b28, 0x2bb45a92, 0x5cb36a04, 0xc2d7ffa7, 0xb5d0cf31,
	    0x2cd99e8b, 0x5bdeae1d, 0x9b64c2b0, 0xec63f226, 0x756aa39c,
	    0x026d930a, 0x9c0906a9, 0xeb0e363f, 0x72076785, 0x05005713,
	    0x95bf4a82, 0xe2b87a14, 0x7bb12bae, 0x0cb61b38, 0x92d28e9b,
	    0xe5d5be0d, 0x7cdcefb7, 0x0bdbdf21, 0x86d3d2d4, 0xf1d4e242,
	    0x68ddb3f8, 0x1fda836e, 0x81be16cd, 0xf6b9265b, 0x6fb077e1,
	    0x18b74777, 0x88085ae6, 0xff0f6a70, 0x66063bca, 0x11010b5c,
	    0x8f659eff, 0xf862ae69, 0x616bffd3, 0x166ccf45, 0xa00ae278,
	    0xd70dd2ee, 0x4e048354, 0x3903b3c2, 0xa7672661, 0xd06016f7,
	    0x4969474d, 0x3e6e77db, 0xaed16a4a, 0xd9d65adc, 0x40df0b66,
	    0x37d83bf0, 0xa9bcae53, 0xdebb9ec5, 0x47b2cf7f, 0x30b5ffe9,
	    0xbdbdf21c, 0xcabac28a, 0x53b39330, 0x24b4a3a6, 0xbad03605,
	    0xcdd70693, 0x54de5729, 0x23d967bf, 0xb3667a2e, 0xc4614ab8,
	    0x5d681b02, 0x2a6f2b94, 0xb40bbe37, 0xc30c8ea1, 0x5a05df1b,
	    0x2d02ef8d,
	};
	const unsigned char *p = buf;

	crc = ~crc;
	for (size_t i = 0; i < len; i++)
		crc = (crc >> 8) ^ t[(crc ^ p[i]) & 255];
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
	return *out ? PX_OK : px_error_set(err, PX_ERR_NOMEM, "out of memory");
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

int px_checkpoint_add(struct px_checkpoint *c, const char *tag, uint32_t count,
		      uint32_t record_size, const void *data, size_t len,
		      struct px_error *err)
{
	struct section *s;

	if (strlen(tag) != 4 || find(c, tag))
		return px_error_set(
		    err, PX_ERR_INVALID,
		    "checkpoint section '%s': not a new 4-character tag", tag);
	if (c->n == PX_CHECKPOINT_MAX_SECTIONS)
		return px_error_set(err, PX_ERR_INVALID,
				    "checkpoint: more than %u sections",
				    PX_CHECKPOINT_MAX_SECTIONS);
	if (record_size ? (uint64_t)count * record_size != len : count != 1)
		return px_error_set(err, PX_ERR_INVALID,
				    "checkpoint section '%s': %zu bytes are "
				    "not %u records of %u",
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

int px_checkpoint_write(const struct px_checkpoint *c, const char *path,
			struct px_error *err)
{
	struct px_ckpt_buf b = {0};
	struct px_outfile o;
	int rc;

	encode(c, &b);
	if (b.failed) {
		px_ckpt_buf_free(&b);
		return px_error_set(err, PX_ERR_NOMEM, "out of memory");
	}
	rc = px_outfile_open(&o, path, err);
	if (!rc) {
		/* a short write shows in the commit's flush */
		fwrite(b.p, 1, b.len, o.f);
		rc = px_outfile_commit(&o, err);
	}
	px_ckpt_buf_free(&b);
	return rc;
}

static int corrupt(struct px_error *err, const char *name, const char *what)
{
	return px_error_set(err, PX_ERR_FORMAT,
			    "%s: not a valid checkpoint: %s", name, what);
}

int px_checkpoint_parse(const unsigned char *buf, size_t len, const char *name,
			struct px_checkpoint **out, struct px_error *err)
{
	struct px_ckpt_cursor h = {.p = buf, .len = len};
	struct px_checkpoint *c;
	uint32_t version, n, crc;
	uint64_t end;
	char what[128];
	int rc;

	*out = NULL;
	if (len < sizeof magic || memcmp(buf, magic, sizeof magic))
		return px_error_set(
		    err, PX_ERR_FORMAT,
		    "%s: not a proxima checkpoint (no checkpoint magic)", name);
	if (len < HEADER_SIZE)
		return px_error_set(
		    err, PX_ERR_FORMAT,
		    "%s: truncated checkpoint: %zu bytes, less than its header",
		    name, len);
	px_ckpt_get_bytes(&h, sizeof magic);
	version = px_ckpt_get_u32(&h);
	if (version > PX_CHECKPOINT_VERSION || version == 0)
		return px_error_set(err, PX_ERR_FORMAT,
				    "%s: checkpoint format version %u; this "
				    "proxima reads versions 1 to %u",
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
				    "%s: truncated checkpoint: %zu bytes, less "
				    "than its section table",
				    name, len);
	if (crc != px_crc32(px_crc32(0, buf, 28), buf + HEADER_SIZE,
			    (size_t)ENTRY_SIZE * n))
		return corrupt(err, name, "the header's CRC-32 does not match");
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
					  "%s: truncated checkpoint: %zu "
					  "bytes, section %s needs %llu",
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
				 "section %u (%s): a repeated tag, or a length "
				 "that is not its records",
				 i, tag);
			if (rc != PX_ERR_NOMEM)
				rc = corrupt(err, name, what);
			break;
		}
		end = off + slen;
	}
	if (!rc && end != len)
		rc = px_error_set(err, PX_ERR_FORMAT,
				  "%s: not a valid checkpoint: %zu bytes, its "
				  "sections end at %llu",
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
