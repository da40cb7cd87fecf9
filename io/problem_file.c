/* Which reader a problem file needs: FCLib (HDF5) or Siconos .dat, by name
 * for files to write and by content for files to read. */
#include <stdio.h>
#include <string.h>

#include <proxima/io.h>

/* HDF5's format signature, at offset 0 of every file written without a
 * user block (libfclib never writes one). */
static const char hdf5_signature[] = "\211HDF\r\n\032\n";
#define SIGNATURE_LEN (sizeof hdf5_signature - 1)

static int has_suffix(const char *path, const char *suffix)
{
	size_t n = strlen(path), k = strlen(suffix);

	return n > k && strcmp(path + n - k, suffix) == 0;
}

enum px_file_format px_file_format_of_name(const char *path)
{
	if (has_suffix(path, ".dat"))
		return PX_FILE_DAT;
	if (has_suffix(path, ".hdf5") || has_suffix(path, ".h5"))
		return PX_FILE_FCLIB;
	return PX_FILE_UNKNOWN;
}

enum px_file_format px_file_format_of_file(const char *path)
{
	char head[SIGNATURE_LEN];
	FILE *f = fopen(path, "rb");
	size_t got = 0;

	if (f) {
		got = fread(head, 1, sizeof head, f);
		fclose(f);
	}
	if (got == SIGNATURE_LEN && memcmp(head, hdf5_signature, got) == 0)
		return PX_FILE_FCLIB;
	/* A file named .hdf5 that is not HDF5 goes to the FCLib reader, whose
	 * "not an HDF5 file" says more than a .dat parse error would. */
	return px_file_format_of_name(path) == PX_FILE_FCLIB ? PX_FILE_FCLIB
							     : PX_FILE_DAT;
}

int px_problem_read(const char *path, struct px_problem **out,
		    enum px_fclib_r which, double **r, struct px_error *err)
{
	*out = NULL;
	if (px_file_format_of_file(path) == PX_FILE_FCLIB)
		return px_fclib_read(path, out, which, r, err);
	if (which != PX_FCLIB_R_NONE)
		return px_error_set(err, PX_ERR_INVALID,
				    "%s: a .dat file holds no %s (only FCLib files do)",
				    path,
				    which == PX_FCLIB_R_GUESS ? "initial guess"
							      : "solution");
	return px_dat_read(path, out, err);
}
