/* What the problem-file readers (io/dat_read.c, io/fclib_read.c) share. */
#ifndef PX_IO_ASSEMBLE_H
#define PX_IO_ASSEMBLE_H

#include <proxima/io.h>

/* The core's complaint (in sub) about a problem read from path, as the
 * file's: "<path>: <message>". Past the reader's own checks only running
 * out of memory is expected; anything else is still the file's fault. */
int io_core_error(const char *path, int rc, const struct px_error *sub,
		  struct px_error *err);

/* Give p its assembled A (px_problem_set_assembled) and check the whole
 * problem (px_problem_validate), errors as io_core_error's. */
int io_assemble(const char *path, struct px_problem *p, const size_t *rowptr,
		const uint32_t *cols, const double *blocks,
		struct px_error *err);

#endif
