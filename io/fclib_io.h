/* What the FCLib reader and writer (io/fclib_*.c) share; built only with
 * FCLib (HAVE_FCLIB). */
#ifndef PX_FCLIB_IO_H
#define PX_FCLIB_IO_H

#include <fclib.h> /* before hdf5.h: it picks HDF5's API versions */
#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include <proxima/io.h>

/* HDF5 prints its error stack on stderr unless told not to, and library
 * code never prints (doc/style.md, rule 4): every HDF5 or libfclib call runs
 * between fc_quiet_begin and fc_quiet_end, which restores the caller's
 * handler. */
struct fc_quiet {
	H5E_auto2_t func;
	void *data;
};
void fc_quiet_begin(struct fc_quiet *q);
void fc_quiet_end(const struct fc_quiet *q);

/* fclib_read.c: px_fclib_read's reader, in this process. fclib_child.c's
 * px_fclib_read runs it in a child process, since libhdf5 1.10 itself
 * crashes (SIGFPE, SIGSEGV) on some corrupt files that no check before it
 * can recognise (tests/fuzz/regress/hdf5-*.hdf5). */
int fc_read(const char *path, struct px_problem **out, enum px_fclib_r which,
	    double **r, struct px_error *err);

/* fclib_check.c: libfclib's readers exit(1) on a missing dataset and
 * overrun their buffers on a dataset longer than the sizes they read, so
 * before calling them we check, in an open file, every group and dataset
 * they will read: present, of the right class and length. Each names the
 * file and the first dataset found wrong. On success *nc is the number of
 * contacts (rows of W, columns of H, over 3). */
int fc_check_local(hid_t file, const char *path, size_t *nc,
		   struct px_error *err);
int fc_check_global(hid_t file, const char *path, size_t *nc,
		    struct px_error *err);
/* Read the m impulses r that `which` names into a malloc'd *r. */
int fc_read_r(hid_t file, const char *path, enum px_fclib_r which, size_t m,
	      double **r, struct px_error *err);

/* Every value finite: else an error naming name[i]. */
int fc_check_finite(const char *path, const char *name, const double *x,
		    size_t n, struct px_error *err);

/* fclib_rows.c: a sparse matrix read by libfclib (CSR, CSC or triplet),
 * checked and regrouped by row. */
struct fc_rows {
	uint32_t m, n;  /* rows, columns */
	size_t *start;  /* entries of row r: [start[r], start[r + 1]) */
	uint32_t *col;  /* column of each entry */
	double *val;
};

/* Check a (pointers, indices in range, values finite, no entry stored
 * twice) and regroup it; name is its group in the file, for messages. */
int fc_rows_from_fclib(const char *path, const char *name,
		       const struct fclib_matrix *a, struct fc_rows *out,
		       struct px_error *err);
void fc_rows_free(struct fc_rows *r);

/* A as px_problem_set_assembled takes it: 3 x 3 row-major blocks. */
struct fc_bsr {
	size_t *rowptr;
	uint32_t *cols;
	double *blocks;
};
void fc_bsr_free(struct fc_bsr *b);

/* The 3 x 3 blocks of a (m = n = 3 nc) that hold a non-zero entry. */
int fc_bsr_from_rows(const char *path, const struct fc_rows *a, size_t nc,
		     struct fc_bsr *out, struct px_error *err);

/* fclib_global.c: W = H^T M^-1 H as blocks and q = H^T M^-1 f + w (3 nc
 * values) of a checked global problem. */
int fc_condense(const char *path, const struct fclib_global *g, size_t nc,
		struct fc_bsr *w, double *q, struct px_error *err);

#endif
