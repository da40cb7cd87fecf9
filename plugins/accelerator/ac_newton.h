/* The pieces of a semismooth Newton step on Alart and Curnier's
 * reformulation (3-row contacts, disc friction) that the ssn and prox
 * accelerators share (ac_newton.c): one contact's phi and generalized
 * derivative, the Jacobian's values on A's block pattern, and its LU
 * factorization and solve by UMFPACK or KLU (SuiteSparse). */
#ifndef PX_AC_NEWTON_H
#define PX_AC_NEWTON_H

#include "ssn_matrix.h"

/* Whether the host's problem is one these pieces solve: 3-row contacts,
 * the disc friction set, and A given as blocks or through the contacts'
 * bodies (ABI 1.7). 0, or 1 with the reason in err. */
int ac_refused(const struct px_accel_host *h, char *err, size_t errlen);

/* One contact's phi at x from v, the velocity the reformulation sees (A x
 * + b, or that of a regularized problem), with the contact's r_n, r_t
 * and mu:
 *     y_n = x_n - r_n v_n,  y_t = x_t - r_t v_t
 *     phi_n = x_n - max(0, y_n),  phi_t = x_t - proj_disc(mu max(0, y_n))(y_t)
 * into f; G (3x3 row-major, when not NULL) the projection's generalized
 * derivative with respect to y. Returns |phi|^2. */
double ac_contact(const double x[3], const double v[3], double rn, double rt,
		  double mu, double f[3], double G[9]);

/* J's values into jx, on the scalar pattern ssn_matrix_pattern made: row
 * block i is G_i diag(rho_i) (A_ij + sigma I [i = j]) plus (1 + reg) I -
 * G_i on the diagonal block; g holds G_i (9 per contact), rho r_n and r_t
 * (2 per contact). */
void ac_jacobian(const struct ssn_matrix *a, const double *g,
		 const double *rho, double sigma, double reg, double *jx);

/* The sparse LU of J (its scalar CSR rows jp, ji, jx of order m, which
 * UMFPACK and KLU read as the columns of J^T): the symbolic analysis of
 * the pattern, kept for a solve, and the numeric factors of one step.
 *
 * backend AC_LU_UMFPACK (ssn's): UMFPACK, the factors made and freed in
 * each step, refine as UMFPACK's default (2 steps of iterative
 * refinement) or 0 (none). AC_LU_KLU (prox's): KLU (SuiteSparse), whose
 * factors stay from one step to the next: a step refactorizes J's new
 * values with the pivots of the last full factorization (klu_refactor),
 * and factorizes afresh, with partial pivoting, when that fails or the
 * pivot ratio min |U_kk| / max |U_kk| falls below AC_KLU_RCOND.
 * AC_LU_AUTO: KLU, unless its analysis estimates more than
 * AC_KLU_MAX_FLOPS flops per factorization (much fill: UMFPACK's dense
 * kernels are faster there), then UMFPACK for the rest of the solve. */
enum { AC_LU_UMFPACK, AC_LU_KLU, AC_LU_AUTO };
#define AC_KLU_RCOND 1e-10
#define AC_KLU_MAX_FLOPS 3e6

struct ac_lu {
	int m;
	const int *jp, *ji;
	const double *jx;
	int backend; /* AC_LU_*: AC_LU_AUTO resolves at the first factor */
	int refine;  /* UMFPACK's iterative refinement: 1 its default, 0 none */
	void *symbolic, *numeric;           /* UMFPACK's */
	void *ksymbolic, *knumeric, *kcommon; /* KLU's */
	double peak; /* the largest peak memory UMFPACK or KLU reported, bytes */
	double rcond0; /* KLU's pivot ratio at its last full factorization */
	unsigned long long factors, refactors; /* full and KLU's reused */
};

/* The numeric factorization of J's current values (the symbolic analysis
 * at the first call). Returns UMFPACK_OK, else the factors are freed and
 * the status is UMFPACK's (UMFPACK_WARNING_singular_matrix: J is
 * singular; KLU's failures are reported as that or
 * UMFPACK_ERROR_out_of_memory). */
int ac_factor(struct ac_lu *lu);

/* d = -J^-1 phi by the factors of ac_factor (UMFPACK's are freed); work
 * holds m doubles. Returns 0, or -1 when the solve fails or d is not
 * finite. */
int ac_solve(struct ac_lu *lu, const double *phi, double *d, double *work);

/* The symbolic analysis (and factors) freed: a new pattern may follow;
 * backend and refine stay. */
void ac_lu_free(struct ac_lu *lu);

/* A Newton system of one solve: A, J's scalar pattern (jp, ji: J's rows
 * as UMFPACK's columns) and values (jx, nnz of them), and their LU. */
struct ac_system {
	struct ssn_matrix a;
	size_t nnz;
	int *jp, *ji;
	double *jx;
	struct ac_lu lu;
};

/* j for the host's problem: A copied or probed (ssn_matrix_build), J's
 * arrays allocated and its pattern set, the LU pointed at them. 0, or -1
 * (out of memory, or more non-zeros than UMFPACK's int indices hold). */
int ac_system_build(struct ac_system *j, const struct px_accel_host *h);

/* Everything of j freed (j may be zero or half built). */
void ac_system_free(struct ac_system *j);

/* The bytes of j's arrays (A and J; not UMFPACK's). */
double ac_system_bytes(const struct ac_system *j);

#endif
