/* FCLib entry points of a build without libfclib and HDF5 (configure found
 * them missing, or --without-fclib): each fails with one line saying so. */
#include <proxima/io.h>

static int unsupported(const char *path, struct px_error *err)
{
	return px_error_set(err, PX_ERR_UNSUPPORTED,
			    "%s: proxima was built without FCLib support (libfclib-dev, libhdf5-dev)",
			    path);
}

int px_fclib_read(const char *path, struct px_problem **out,
		  enum px_fclib_r which, double **r, struct px_error *err)
{
	(void)which;
	*out = NULL;
	if (r)
		*r = NULL;
	return unsupported(path, err);
}

int px_fclib_write(const char *path, const struct px_problem *p,
		   const double *r, struct px_error *err)
{
	(void)p;
	(void)r;
	return unsupported(path, err);
}
