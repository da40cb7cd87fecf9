/* Fuzz target: the Siconos .dat reader (px_dat_read). A read either gives
 * a problem or one error line; the error must name the file. */
#include <proxima/proxima.h>

#include "fuzz.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct px_problem *p = NULL;
	struct px_error err = {0};

	fuzz_file(path, ".dat", data, size);
	if (px_dat_read(path, &p, &err) == PX_OK) {
		if (!p)
			abort();
		px_problem_destroy(p);
	} else if (p || !strstr(err.msg, path) || strchr(err.msg, '\n')) {
		abort();
	}
	return 0;
}
