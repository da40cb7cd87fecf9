/* Problem files. */
#ifndef PROXIMA_IO_H
#define PROXIMA_IO_H

#include <proxima/error.h>
#include <proxima/problem.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* Read a Siconos FrictionContactProblem text file (.dat; dense or sparse
 * block storage of W, then q and mu; ../shared/problems/README.md sec. 1)
 * into an assembled problem with A = W, b = q. On error *out stays NULL and
 * err names the file and what is wrong. */
int px_dat_read(const char *path, struct px_problem **out,
		struct px_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
