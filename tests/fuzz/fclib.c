/* Fuzz target: the FCLib HDF5 reader through a temporary file, asking for
 * the solution's impulses too (most inputs have none). It runs fc_read, the
 * reader itself, in this process: px_fclib_read would run it in a child,
 * out of the fuzzer's sight. */
#include <proxima/proxima.h>

#include "../../io/fclib_io.h"

#include "fuzz.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct px_problem *p = NULL;
	struct px_error err = {0};
	double *r = NULL;
	enum px_fclib_r which = size % 2 ? PX_FCLIB_R_SOLUTION : PX_FCLIB_R_NONE;

	fuzz_file(path, ".hdf5", data, size);
	if (fc_read(path, &p, which, &r, &err) == PX_OK) {
		if (!p || (which != PX_FCLIB_R_NONE) != (r != NULL))
			abort();
		px_problem_destroy(p);
		free(r);
	} else if (p || r || !err.msg[0] || strchr(err.msg, '\n')) {
		abort();
	}
	return 0;
}
