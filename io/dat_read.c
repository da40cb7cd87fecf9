/* Reader for Siconos FrictionContactProblem text files (.dat), the format of
 * doc/design.md, section 8: d, nc, W (dense column-major or
 * sparse block), q, mu, and an optional legacy integer trailer.
 *
 * The whole file is read into memory and taken as a stream of whitespace-
 * separated tokens, which is what Siconos's fscanf-based reader sees. We are
 * stricter than Siconos: every token must be a whole number or a finite real,
 * W must be a 3nc x 3nc matrix of 3 x 3 blocks, the block sequence numbers
 * must match, and nothing but one 0/1 trailer may follow mu. Every error
 * names the file, what was expected and what was found, and for a bad token
 * its line, its position in the token stream and the item it should be.
 *
 * Before an array is allocated from a count read in the file, the file must
 * still hold enough tokens to fill it, so a tiny file claiming a huge problem
 * never allocates more than a few times its own size. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxima/io.h>

#include "assemble.h"

#define SHOW_MAX 40 /* characters of a bad token quoted in a message */

/* What a token is supposed to be, formatted only when an error needs it. */
enum what_kind {
	WHAT_NAME,      /* name */
	WHAT_INDEX,     /* name[a] */
	WHAT_NTH,       /* name a+1 of b */
	WHAT_BLOCK_SEQ, /* block a sequence number */
	WHAT_BLOCK_VAL, /* block a value b+1 of 9 */
};

struct what {
	enum what_kind kind;
	const char *name;
	uint64_t a, b;
};

struct reader {
	const char *path;
	struct px_error *err;
	char *buf;     /* the file, NUL-terminated; tokens are cut in place */
	size_t len;
	size_t pos;    /* next unread byte */
	size_t line;   /* line of buf[pos], from 1 */
	size_t ntok;   /* tokens in the file */
	size_t tok;    /* tokens consumed */
	const char *text; /* the last token read, NUL-terminated */
	size_t text_len;
	size_t text_line;
};

/* Block-sparse W as px_problem_set_assembled takes it. */
struct bsr {
	size_t *rowptr;
	uint32_t *cols;
	double *blocks; /* 3 x 3 row-major */
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static void describe(const struct what *w, char *out, size_t size)
{
	unsigned long long a = w->a, b = w->b;

	switch (w->kind) {
	case WHAT_NAME:
		snprintf(out, size, "%s", w->name);
		break;
	case WHAT_INDEX:
		snprintf(out, size, "%s[%llu]", w->name, a);
		break;
	case WHAT_NTH:
		snprintf(out, size, "%s %llu of %llu", w->name, a + 1, b);
		break;
	case WHAT_BLOCK_SEQ:
		snprintf(out, size, "block %llu sequence number", a);
		break;
	case WHAT_BLOCK_VAL:
		snprintf(out, size, "block %llu value %llu of 9", a, b + 1);
		break;
	}
}

/* "line L, token T 'text'" for the last token read: at most SHOW_MAX
 * characters of it, bytes other than printable ASCII as \xNN, so the message
 * stays one readable line whatever the file holds. */
static void where(const struct reader *rd, char *out, size_t size)
{
	char shown[4 * SHOW_MAX + 4];
	size_t at = 0, i;

	for (i = 0; i < rd->text_len && i < SHOW_MAX; i++) {
		unsigned char c = (unsigned char)rd->text[i];

		if (c > 0x20 && c < 0x7f)
			shown[at++] = (char)c;
		else
			at += (size_t)snprintf(shown + at, sizeof shown - at,
					       "\\x%02x", c);
	}
	if (i < rd->text_len)
		at += (size_t)snprintf(shown + at, sizeof shown - at, "...");
	shown[at] = '\0';
	snprintf(out, size, "line %zu, token %zu '%s'", rd->text_line, rd->tok,
		 shown);
}

/* Message about the last token: "<path>: line L, token T 'x' <problem> (w)". */
static int token_error(const struct reader *rd, const struct what *w,
		       const char *problem)
{
	char at[256], item[96];

	where(rd, at, sizeof at);
	describe(w, item, sizeof item);
	return px_error_set(rd->err, PX_ERR_FORMAT, "%s: %s %s (%s)", rd->path,
			    at, problem, item);
}

static int load(struct reader *rd)
{
	FILE *f = fopen(rd->path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL;
	const char *nul;

	if (!f)
		return px_error_set(rd->err, PX_ERR_IO, "%s: cannot open: %s",
				    rd->path, strerror(errno));
	for (;;) {
		size_t got;

		if (!buf || n == cap) {
			char *nb;

			if (buf) {
				if (cap > SIZE_MAX / 2 - 1)
					goto nomem;
				cap *= 2;
			}
			nb = realloc(buf, cap + 1);
			if (!nb)
				goto nomem;
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;

		free(buf);
		fclose(f);
		return px_error_set(rd->err, PX_ERR_IO, "%s: cannot read: %s",
				    rd->path, strerror(e));
	}
	fclose(f);
	nul = memchr(buf, '\0', n);
	if (nul) {
		size_t at = (size_t)(nul - buf);

		free(buf);
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: NUL byte at offset %zu, expected a text file",
				    rd->path, at);
	}
	buf[n] = '\0';
	rd->buf = buf;
	rd->len = n;
	rd->line = 1;
	for (size_t i = 0; i < n;) {
		while (i < n && is_space(buf[i]))
			i++;
		if (i == n)
			break;
		rd->ntok++;
		while (i < n && !is_space(buf[i]))
			i++;
	}
	if (rd->ntok == 0)
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: empty file: expected a .dat contact problem (its first number is the dimension d, 3)",
				    rd->path);
	return PX_OK;
nomem:
	free(buf);
	fclose(f);
	return px_error_set(rd->err, PX_ERR_NOMEM,
			    "%s: out of memory reading the file (%zu bytes so far)",
			    rd->path, n);
}

static size_t remaining(const struct reader *rd)
{
	return rd->ntok - rd->tok;
}

/* Cut the next token; at end of file, a "truncated" error naming w. */
static int next_token(struct reader *rd, const struct what *w)
{
	char *b = rd->buf;
	size_t i = rd->pos, start;

	while (i < rd->len && is_space(b[i])) {
		if (b[i] == '\n')
			rd->line++;
		i++;
	}
	if (i == rd->len) {
		char item[96];

		rd->pos = i;
		describe(w, item, sizeof item);
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: truncated: expected %s, found end of file",
				    rd->path, item);
	}
	start = i;
	while (i < rd->len && !is_space(b[i]))
		i++;
	rd->text = b + start;
	rd->text_len = i - start;
	rd->text_line = rd->line;
	rd->tok++;
	if (i < rd->len) {
		if (b[i] == '\n')
			rd->line++;
		b[i++] = '\0'; /* the separator; buf[len] is already NUL */
	}
	rd->pos = i;
	return PX_OK;
}

static int read_int(struct reader *rd, const struct what *w, int *out)
{
	char *end;
	long v;
	int rc = next_token(rd, w);

	if (rc)
		return rc;
	errno = 0;
	v = strtol(rd->text, &end, 10);
	if (end != rd->text + rd->text_len || rd->text_len == 0)
		return token_error(rd, w, "is not an integer");
	if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
		return token_error(rd, w, "is out of range");
	*out = (int)v;
	return PX_OK;
}

static int read_real(struct reader *rd, const struct what *w, double *out)
{
	char *end;
	double v;
	int rc = next_token(rd, w);

	if (rc)
		return rc;
	errno = 0;
	v = strtod(rd->text, &end);
	if (end != rd->text + rd->text_len || rd->text_len == 0)
		return token_error(rd, w, "is not a number");
	if (isinf(v) && errno == ERANGE)
		return token_error(rd, w, "is out of range");
	if (!isfinite(v))
		return token_error(rd, w, "is not finite");
	*out = v;
	return PX_OK;
}

/* count reals into dst[0..count) (dst may be NULL: check and drop them). */
static int read_reals(struct reader *rd, double *dst, uint64_t count,
		      struct what w)
{
	for (uint64_t i = 0; i < count; i++) {
		double v;
		int rc;

		w.a = i;
		rc = read_real(rd, &w, &v);
		if (rc)
			return rc;
		if (dst)
			dst[i] = v;
	}
	return PX_OK;
}

static int nomem(const struct reader *rd, const char *what)
{
	return px_error_set(rd->err, PX_ERR_NOMEM, "%s: out of memory for %s",
			    rd->path, what);
}

static int read_header(struct reader *rd, int *nc, int *storage)
{
	static const struct what w_d = { WHAT_NAME, "d", 0, 0 };
	static const struct what w_nc = { WHAT_NAME, "nc", 0, 0 };
	static const struct what w_st = { WHAT_NAME, "W storage", 0, 0 };
	static const struct what w_s0 = { WHAT_NAME, "W size0", 0, 0 };
	static const struct what w_s1 = { WHAT_NAME, "W size1", 0, 0 };
	int d, size0, size1, rc;
	long long n;

	if ((rc = read_int(rd, &w_d, &d)))
		return rc;
	if (d != 3)
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: only 3D (d = 3) problems are supported, found d = %d",
				    rd->path, d);
	if ((rc = read_int(rd, &w_nc, nc)))
		return rc;
	if (*nc < 1)
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: nc = %d, expected at least 1 contact",
				    rd->path, *nc);
	if ((rc = read_int(rd, &w_st, storage)))
		return rc;
	if (*storage != 0 && *storage != 1)
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: W storage %d is not supported, expected 0 (dense) or 1 (sparse block)",
				    rd->path, *storage);
	if ((rc = read_int(rd, &w_s0, &size0)) ||
	    (rc = read_int(rd, &w_s1, &size1)))
		return rc;
	n = 3LL * *nc;
	if (size0 != size1 || size0 != n)
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: W is %d x %d, expected a square %lld x %lld matrix (3 * nc = %lld)",
				    rd->path, size0, size1, n, n, n);
	return PX_OK;
}

static int read_dense(struct reader *rd, size_t nc, struct bsr *w)
{
	static const struct what w_s0 = { WHAT_NAME, "dense W size0 (repeated)",
					  0, 0 };
	static const struct what w_s1 = { WHAT_NAME, "dense W size1 (repeated)",
					  0, 0 };
	const size_t n = 3 * nc;
	const uint64_t count = (uint64_t)n * n;
	const struct what w_val = { WHAT_NTH, "W value", 0, count };
	size_t nnz = 0, at = 0;
	double *v;
	int s0, s1, rc;

	if ((rc = read_int(rd, &w_s0, &s0)) || (rc = read_int(rd, &w_s1, &s1)))
		return rc;
	if ((size_t)s0 != n || (size_t)s1 != n)
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: dense W: size repeated as %d x %d, expected %zu x %zu",
				    rd->path, s0, s1, n, n);
	if (remaining(rd) / n < n) /* fewer than n * n tokens left */
		return read_reals(rd, NULL, count, w_val); /* fails */
	v = malloc(n * n * sizeof *v);
	if (!v)
		return nomem(rd, "the dense W");
	if ((rc = read_reals(rd, v, count, w_val))) {
		free(v);
		return rc;
	}

	/* Column-major: W[r][c] = v[c * n + r]. Keep the diagonal blocks and
	 * every off-diagonal block with a non-zero entry. */
	w->rowptr = malloc((nc + 1) * sizeof *w->rowptr);
	if (!w->rowptr)
		goto nomem;
	for (size_t i = 0; i < nc; i++) {
		w->rowptr[i] = nnz;
		for (size_t j = 0; j < nc; j++) {
			int keep = i == j;

			for (size_t c = 3 * j; c < 3 * j + 3 && !keep; c++)
				for (size_t r = 3 * i; r < 3 * i + 3; r++)
					keep |= v[c * n + r] != 0.0;
			nnz += keep;
		}
	}
	w->rowptr[nc] = nnz;
	w->cols = malloc(nnz * sizeof *w->cols);
	w->blocks = malloc(nnz * 9 * sizeof *w->blocks);
	if (!w->cols || !w->blocks)
		goto nomem;
	for (size_t i = 0; i < nc; i++) {
		for (size_t j = 0; j < nc; j++) {
			double *blk = w->blocks + 9 * at;
			int keep = i == j;

			for (size_t a = 0; a < 3; a++)
				for (size_t b = 0; b < 3; b++) {
					blk[3 * a + b] =
						v[(3 * j + b) * n + 3 * i + a];
					keep |= blk[3 * a + b] != 0.0;
				}
			if (keep)
				w->cols[at++] = (uint32_t)j;
		}
	}
	free(v);
	return PX_OK;
nomem:
	free(v);
	return nomem(rd, "the dense W");
}

static int sbm_error(const struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "<path>: sparse W: <fmt>". */
static int sbm_error(const struct reader *rd, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return px_error_set(rd->err, PX_ERR_FORMAT, "%s: sparse W: %s",
			    rd->path, what);
}

/* The bn cumulative sizes of one dimension must be 3, 6, ..., 3 bn. */
static int read_cumulative(struct reader *rd, int bn, const char *name)
{
	struct what w = { WHAT_NTH, name, 0, (uint64_t)bn };

	for (int i = 0; i < bn; i++) {
		int v, rc;

		w.a = (uint64_t)i;
		if ((rc = read_int(rd, &w, &v)))
			return rc;
		if (v != 3 * (i + 1))
			return sbm_error(rd,
					 "%s %d of %d is %d, expected %d (3 x 3 blocks)",
					 name, i + 1, bn, v, 3 * (i + 1));
	}
	return PX_OK;
}

/* Block values of b blocks (sequence number and 9 column-major reals each)
 * into dst as row-major blocks; dst NULL: check and drop them. */
static int read_blocks(struct reader *rd, double *dst, size_t nb)
{
	struct what w_seq = { WHAT_BLOCK_SEQ, NULL, 0, 0 };
	struct what w_val = { WHAT_BLOCK_VAL, NULL, 0, 0 };

	for (size_t b = 0; b < nb; b++) {
		int seq, rc;

		w_seq.a = w_val.a = b;
		if ((rc = read_int(rd, &w_seq, &seq)))
			return rc;
		if (seq < 0 || (size_t)seq != b)
			return sbm_error(rd,
					 "block %zu: sequence number is %d, expected %zu",
					 b, seq, b);
		for (int k = 0; k < 9; k++) {
			double v;

			w_val.b = (uint64_t)k;
			if ((rc = read_real(rd, &w_val, &v)))
				return rc;
			if (dst)
				dst[9 * b + 3 * (k % 3) + k / 3] = v;
		}
	}
	return PX_OK;
}

static int read_sbm(struct reader *rd, size_t nc, struct bsr *w)
{
	static const struct what w_nb = { WHAT_NAME, "nbblocks", 0, 0 };
	static const struct what w_bn0 = { WHAT_NAME, "bn0", 0, 0 };
	static const struct what w_bn1 = { WHAT_NAME, "bn1", 0, 0 };
	static const struct what w_f1 = { WHAT_NAME, "filled1", 0, 0 };
	static const struct what w_f2 = { WHAT_NAME, "filled2", 0, 0 };
	struct what w_rp = { WHAT_INDEX, "rowptr", 0, 0 };
	struct what w_bc = { WHAT_INDEX, "bcol", 0, 0 };
	int nbblocks, bn0, bn1, filled1, filled2, v, prev = 0, rc;
	size_t nb, *mark = NULL;

	if ((rc = read_int(rd, &w_nb, &nbblocks)))
		return rc;
	if (nbblocks < 1)
		return sbm_error(rd, "nbblocks = %d, expected at least 1",
				 nbblocks);
	if ((rc = read_int(rd, &w_bn0, &bn0)) ||
	    (rc = read_int(rd, &w_bn1, &bn1)))
		return rc;
	if (bn0 < 0 || bn1 < 0 || (size_t)bn0 != nc || (size_t)bn1 != nc)
		return sbm_error(rd, "%d x %d blocks, expected %zu x %zu (nc)",
				 bn0, bn1, nc, nc);
	if ((rc = read_cumulative(rd, bn0, "cumulative row size")) ||
	    (rc = read_cumulative(rd, bn1, "cumulative column size")))
		return rc;
	/* 2 nc tokens were just read, so arrays of nc + 1 are small. */
	if ((rc = read_int(rd, &w_f1, &filled1)))
		return rc;
	if (filled1 < 1 || filled1 > bn0 + 1)
		return sbm_error(rd, "filled1 = %d, expected 1 .. %d (bn0 + 1)",
				 filled1, bn0 + 1);
	if ((rc = read_int(rd, &w_f2, &filled2)))
		return rc;
	if (filled2 != nbblocks)
		return sbm_error(rd, "filled2 = %d, expected nbblocks = %d",
				 filled2, nbblocks);
	nb = (size_t)nbblocks;

	w->rowptr = malloc((nc + 1) * sizeof *w->rowptr);
	if (!w->rowptr)
		return nomem(rd, "the sparse W");
	for (int i = 0; i < filled1; i++) {
		w_rp.a = (uint64_t)i;
		if ((rc = read_int(rd, &w_rp, &v)))
			return rc;
		if (i == 0 && v != 0)
			return sbm_error(rd, "rowptr[0] = %d, expected 0", v);
		if (v < prev)
			return sbm_error(rd,
					 "rowptr[%d] = %d is less than rowptr[%d] = %d",
					 i, v, i - 1, prev);
		if (i == filled1 - 1 && v != nbblocks)
			return sbm_error(rd,
					 "rowptr[%d] = %d, expected nbblocks = %d (last entry)",
					 i, v, nbblocks);
		w->rowptr[i] = (size_t)v;
		prev = v;
	}
	for (size_t i = (size_t)filled1; i <= nc; i++)
		w->rowptr[i] = nb; /* block rows >= filled1 - 1 are empty */

	if (remaining(rd) < nb) {
		for (size_t b = 0; b < nb; b++) { /* fails */
			w_bc.a = b;
			if ((rc = read_int(rd, &w_bc, &v)))
				return rc;
		}
	}
	w->cols = malloc(nb * sizeof *w->cols);
	mark = malloc(nc * sizeof *mark);
	if (!w->cols || !mark) {
		free(mark);
		return nomem(rd, "the sparse W");
	}
	for (size_t b = 0; b < nb; b++) {
		w_bc.a = b;
		if ((rc = read_int(rd, &w_bc, &v)))
			goto out;
		if (v < 0 || v >= bn1) {
			rc = sbm_error(rd,
				       "bcol[%zu]: block column %d out of range, expected 0 .. %d",
				       b, v, bn1 - 1);
			goto out;
		}
		w->cols[b] = (uint32_t)v;
	}
	for (size_t j = 0; j < nc; j++)
		mark[j] = SIZE_MAX;
	for (size_t i = 0; i < nc; i++) {
		for (size_t b = w->rowptr[i]; b < w->rowptr[i + 1]; b++) {
			size_t *m = &mark[w->cols[b]];

			if (*m != SIZE_MAX && *m >= w->rowptr[i]) {
				rc = sbm_error(rd,
					       "block row %zu has block column %u twice (blocks %zu and %zu)",
					       i, w->cols[b], *m, b);
				goto out;
			}
			*m = b;
		}
	}
	free(mark);
	mark = NULL;

	if (remaining(rd) / 10 < nb) /* fewer than 10 tokens per block left */
		return read_blocks(rd, NULL, nb); /* fails */
	w->blocks = malloc(nb * 9 * sizeof *w->blocks);
	if (!w->blocks)
		return nomem(rd, "the sparse W");
	rc = read_blocks(rd, w->blocks, nb);
out:
	free(mark);
	return rc;
}

/* q into b, mu into the friction parameters, then the optional trailer. */
static int read_vectors(struct reader *rd, struct px_problem *p, size_t nc)
{
	struct px_friction_params *fr = px_problem_friction(p);
	struct what w_mu = { WHAT_INDEX, "mu", 0, 0 };
	const struct what w_q = { WHAT_INDEX, "q", 0, 0 };
	int rc = read_reals(rd, px_problem_b(p), 3 * (uint64_t)nc, w_q);

	if (rc)
		return rc;
	for (size_t k = 0; k < nc; k++) {
		double mu;

		w_mu.a = k;
		if ((rc = read_real(rd, &w_mu, &mu)))
			return rc;
		if (mu < 0)
			return px_error_set(rd->err, PX_ERR_FORMAT,
					    "%s: mu[%zu] = %.*s is negative",
					    rd->path, k, SHOW_MAX, rd->text);
		fr[k].mu = fr[k].mu_s = fr[k].mu_t = mu;
		fr[k].mu_tau = 0.0;
	}
	for (size_t t = 0; remaining(rd) > 0; t++) {
		const struct what w_tr = { WHAT_NAME, "trailer", 0, 0 };
		char at[256];

		next_token(rd, &w_tr); /* cannot fail: tokens remain */
		if (t == 0 && (!strcmp(rd->text, "0") || !strcmp(rd->text, "1")))
			continue; /* Siconos's legacy trailer */
		where(rd, at, sizeof at);
		return px_error_set(rd->err, PX_ERR_FORMAT,
				    "%s: unexpected data after mu: %s (only one legacy trailer 0 or 1 may follow)",
				    rd->path, at);
	}
	return PX_OK;
}

int px_dat_read(const char *path, struct px_problem **out,
		struct px_error *err)
{
	struct reader rd = { .path = path, .err = err };
	struct bsr w = { NULL, NULL, NULL };
	struct px_problem *p = NULL;
	struct px_error sub;
	int nc, storage, rc;

	*out = NULL;
	if ((rc = load(&rd)) || (rc = read_header(&rd, &nc, &storage)))
		goto out;
	rc = storage == 0 ? read_dense(&rd, (size_t)nc, &w) :
			    read_sbm(&rd, (size_t)nc, &w);
	if (rc)
		goto out;
	/* nc is bounded by the tokens read so far: b and mu are small. */
	if ((rc = px_problem_create((size_t)nc, 3, &p, &sub))) {
		rc = io_core_error(path, rc, &sub, err);
		goto out;
	}
	if ((rc = read_vectors(&rd, p, (size_t)nc)) ||
	    (rc = io_assemble(path, p, w.rowptr, w.cols, w.blocks, err)))
		goto out;
	*out = p;
	p = NULL;
out:
	px_problem_destroy(p);
	free(w.rowptr);
	free(w.cols);
	free(w.blocks);
	free(rd.buf);
	return rc;
}
