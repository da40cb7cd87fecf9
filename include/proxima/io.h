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
 * block storage of W, then q and mu; doc/design.md, section 8)
 * into an assembled problem with A = W, b = q. On error *out stays NULL and
 * err names the file and what is wrong. */
int px_dat_read(const char *path, struct px_problem **out,
		struct px_error *err);

/* Write an assembled problem with 3-row contacts as a .dat file that
 * px_dat_read (and Siconos) reads back bit for bit: sparse block storage of
 * A's stored blocks, every real printed with %.17g. */
int px_dat_write(const char *path, const struct px_problem *p,
		 struct px_error *err);

/* FCLib HDF5 files (doc/design.md, section 8), through libfclib.
 * Without FCLib in the build every px_fclib_* call fails with
 * PX_ERR_UNSUPPORTED and a message saying so. */

/* Which impulses r of an FCLib file px_fclib_read also returns. */
enum px_fclib_r {
	PX_FCLIB_R_NONE = 0,
	PX_FCLIB_R_GUESS = 1,    /* the first guess, /guesses/1/r */
	PX_FCLIB_R_SOLUTION = 2, /* the solution, /solution/r */
};

/* Read an FCLib problem into an assembled problem with A = W, b = q:
 * a local problem (W in CSR, CSC or triplet storage; spacedim 3; no V, R),
 * or a global one (M, H, f, w, mu, no G) condensed to W = H^T M^-1 H,
 * q = H^T M^-1 f + w, which needs M block-diagonal with blocks of at most
 * PX_FCLIB_MAX_M_BLOCK rows. With which != PX_FCLIB_R_NONE, *r gets a
 * malloc'd copy of those impulses (n_contacts * 3; an error when the file
 * has none). On error *out (and *r) stay NULL and err names the file and the
 * dataset. Entries stored twice in a sparse matrix are refused. */
#define PX_FCLIB_MAX_M_BLOCK 64
int px_fclib_read(const char *path, struct px_problem **out,
		  enum px_fclib_r which, double **r, struct px_error *err);

/* Write an assembled problem with 3-row contacts as an FCLib local problem
 * (W in CSR storage, the stored blocks of A in full), replacing path; with
 * r not NULL also /solution: r and u = W r + q. */
int px_fclib_write(const char *path, const struct px_problem *p,
		   const double *r, struct px_error *err);

/* File formats, told apart by name (outputs) or by content (inputs). */
enum px_file_format {
	PX_FILE_UNKNOWN = 0,
	PX_FILE_DAT = 1,   /* Siconos .dat text */
	PX_FILE_FCLIB = 2, /* FCLib HDF5 */
};

/* By name: .dat, .hdf5 or .h5; anything else is PX_FILE_UNKNOWN. */
enum px_file_format px_file_format_of_name(const char *path);

/* A file to read: FCLib when it starts with the HDF5 signature or its name
 * says so (the FCLib reader then reports a file that is not HDF5), else
 * .dat. */
enum px_file_format px_file_format_of_file(const char *path);

/* Read either format (by px_file_format_of_file). which and r as for
 * px_fclib_read; a .dat file holds no impulses, so asking for them is an
 * error. */
int px_problem_read(const char *path, struct px_problem **out,
		    enum px_fclib_r which, double **r, struct px_error *err);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
