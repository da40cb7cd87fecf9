/* The end of every problem-file reader: hand A to the core, check the
 * problem, and report what the core refuses as the file's error. */
#include "assemble.h"

int io_core_error(const char *path, int rc, const struct px_error *sub,
		  struct px_error *err)
{
	return px_error_set(err, rc == PX_ERR_NOMEM ? rc : PX_ERR_FORMAT,
			    "%s: %s", path, sub->msg);
}

int io_assemble(const char *path, struct px_problem *p, const size_t *rowptr,
		const uint32_t *cols, const double *blocks,
		struct px_error *err)
{
	struct px_error sub;
	int rc;

	if ((rc = px_problem_set_assembled(p, rowptr, cols, blocks, &sub)) ||
	    (rc = px_problem_validate(p, &sub)))
		return io_core_error(path, rc, &sub, err);
	return PX_OK;
}
