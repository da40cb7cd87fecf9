/* The pieces of a semismooth Newton step on Alart and Curnier's
 * reformulation (3-row contacts, disc friction) that the ssn and prox
 * accelerators share (ac_newton.c): one contact's phi and generalized
 * derivative, the Jacobian's values on A's block pattern, and its LU
 * factorization and solve by UMFPACK (SuiteSparse). */
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

/* UMFPACK's factors of J (its scalar CSR rows jp, ji, jx of order m, which
 * UMFPACK reads as the columns of J^T): the symbolic analysis of the
 * pattern, kept for a solve, and the numeric factors of one step. */
struct ac_lu {
	int m;
	const int *jp, *ji;
	const double *jx;
	void *symbolic, *numeric;
	double peak; /* the largest peak memory UMFPACK reported, bytes */
};

/* The numeric factorization of J's current values (the symbolic analysis
 * at the first call). Returns UMFPACK's status: UMFPACK_OK, else the
 * factors are freed (UMFPACK_WARNING_singular_matrix: J is singular). */
int ac_factor(struct ac_lu *lu);

/* d = -J^-1 phi by the factors of ac_factor, which are freed; work holds m
 * doubles. Returns 0, or -1 when UMFPACK fails or d is not finite. */
int ac_solve(struct ac_lu *lu, const double *phi, double *d, double *work);

/* The symbolic analysis (and factors) freed: a new pattern may follow. */
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
