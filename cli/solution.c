/* A solution lambda for `proxima solve --out' and its distributed twin
 * (mpi/solve_file.c), in the format its file name says: text, one number
 * per line (exactly: %.17g), for .txt and .csv; NumPy's .npy (format
 * version 1.0: a header saying little-endian float64 of shape (m,), then
 * the doubles) for .npy. A run's final state (`proxima run --state',
 * cli/run.c and mpi/run_scene.c). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "outfile.h"
#include "solution.h"

#define FORMATS ".txt, .csv or .npy"

/* The extension of path's last component, with its dot; "" when none. */
static const char *extension(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return dot && dot != base ? dot : "";
}

static int format_of(const char *ext)
{
	if (strcasecmp(ext, ".txt") == 0 || strcasecmp(ext, ".csv") == 0)
		return PX_SOLUTION_TEXT;
	if (strcasecmp(ext, ".npy") == 0)
		return PX_SOLUTION_NPY;
	return -1;
}

int px_cli_solution_format(const char *path, char *msg, size_t len)
{
	const char *ext = extension(path);

	if (format_of(ext) >= 0)
		return format_of(ext);
	if (*ext)
		snprintf(msg, len, "--out '%s': cannot write %s (writes " FORMATS ")",
			 path, ext);
	else
		snprintf(msg, len, "--out '%s': no extension to say the format (writes " FORMATS ")",
			 path);
	return -1;
}

static int write_text(FILE *f, const double *lambda, size_t m)
{
	for (size_t i = 0; i < m; i++)
		if (fprintf(f, "%.17g\n", lambda[i]) < 0)
			return -1;
	return 0;
}

/* NumPy's format 1.0 (numpy.lib.format): magic, version, the header's
 * length (2 bytes, little-endian), the header (a Python dict literal padded
 * with spaces to a newline so that the data start at a multiple of 64),
 * then the data, C order. */
static int write_npy(FILE *f, const double *lambda, size_t m)
{
	char header[128];
	const int n = snprintf(header, sizeof header,
			       "{'descr': '<f8', 'fortran_order': False, 'shape': (%zu,), }",
			       m);
	const size_t pre = 10; /* magic 6, version 2, length 2 */
	size_t total = pre + (size_t)n + 1;
	unsigned char lead[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};

	total = (total + 63) / 64 * 64;
	lead[8] = (unsigned char)((total - pre) & 0xff);
	lead[9] = (unsigned char)((total - pre) >> 8);
	if (fwrite(lead, 1, pre, f) != pre ||
	    fwrite(header, 1, (size_t)n, f) != (size_t)n)
		return -1;
	for (size_t i = pre + (size_t)n; i + 1 < total; i++)
		if (fputc(' ', f) == EOF)
			return -1;
	if (fputc('\n', f) == EOF)
		return -1;
	for (size_t i = 0; i < m; i++) {
		unsigned char b[8];
		uint64_t u;

		memcpy(&u, lambda + i, sizeof u);
		for (int k = 0; k < 8; k++)
			b[k] = (unsigned char)(u >> (8 * k));
		if (fwrite(b, 1, sizeof b, f) != sizeof b)
			return -1;
	}
	return 0;
}

int px_cli_write_solution(const char *path, const double *lambda, size_t m,
			  struct px_error *err)
{
	const int npy = format_of(extension(path)) == PX_SOLUTION_NPY;
	struct px_outfile o;

	if (px_outfile_open(&o, path, err))
		return PX_ERR_IO;
	/* a failed write leaves its error on the stream: commit says why */
	if (npy)
		write_npy(o.f, lambda, m);
	else
		write_text(o.f, lambda, m);
	return px_outfile_commit(&o, err);
}

void px_cli_state_header(FILE *f)
{
	fprintf(f, "body,mass,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,jx,jy,jz\n");
}

void px_cli_state_row(FILE *f, uint64_t index, const struct px_body *b,
		      const double impulse[3])
{
	const double *col[5] = {b->x, b->q, b->v, b->w, impulse};
	const int len[5] = {3, 4, 3, 3, 3};

	fprintf(f, "%llu,%a", (unsigned long long)index,
		b->is_static ? 0.0 : b->mass);
	for (int c = 0; c < 5; c++)
		for (int i = 0; i < len[c]; i++)
			fprintf(f, ",%a", col[c][i]);
	fputc('\n', f);
}
