/* Alart and Curnier's reformulation of 3-row contacts with disc friction,
 * its generalized Jacobian on A's block pattern and its LU by UMFPACK: the
 * semismooth Newton pieces of the ssn and prox accelerators
 * (ac_newton.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/klu.h>
#include <suitesparse/umfpack.h>

#include "ac_newton.h"

int ac_refused(const struct px_accel_host *h, char *err, size_t errlen)
{
	const struct px_problem_info *p = h->p;

	if (p->bs != 3 || !(h->friction_flags & PX_FRICTION_IS_DISC)) {
		snprintf(err, errlen,
			 "supports the disc friction set on 3-row contacts only (friction plugin '%s', %u rows per contact)",
			 h->friction_name, (unsigned)p->bs);
		return 1;
	}
	if (!(h->a_rowptr && h->a_cols && h->a_blocks) &&
	    !(p->body_a && p->body_b)) {
		snprintf(err, errlen,
			 "the host gives neither the blocks of A nor the bodies of the contacts (plugin ABI 1.7)");
		return 1;
	}
	return 0;
}

double ac_contact(const double x[3], const double v[3], double rn, double rt,
		  double mu, double f[3], double G[9])
{
	const double yn = x[0] - rn * v[0];
	const double yt[2] = {x[1] - rt * v[1], x[2] - rt * v[2]};
	const double R = yn > 0.0 ? mu * yn : 0.0;
	const double nrm = hypot(yt[0], yt[1]);

	f[0] = x[0] - (yn > 0.0 ? yn : 0.0);
	if (G)
		memset(G, 0, 9 * sizeof *G);
	if (G && yn > 0.0)
		G[0] = 1.0;
	if (nrm <= R) { /* sticking: y_t inside the disc */
		f[1] = x[1] - yt[0];
		f[2] = x[2] - yt[1];
		if (G)
			G[4] = G[8] = 1.0;
	} else { /* sliding, or no normal force: onto the disc's edge */
		const double h0 = yt[0] / nrm, h1 = yt[1] / nrm;
		const double c = R / nrm;

		f[1] = x[1] - R * h0;
		f[2] = x[2] - R * h1;
		if (G) {
			if (yn > 0.0) {
				G[3] = mu * h0;
				G[6] = mu * h1;
			}
			G[4] = c * (1.0 - h0 * h0);
			G[5] = G[7] = -c * h0 * h1;
			G[8] = c * (1.0 - h1 * h1);
		}
	}
	return f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
}

void ac_jacobian(const struct ssn_matrix *a, const double *g,
		 const double *rho, double sigma, double reg, double *jx)
{
	for (size_t i = 0; i < a->n; i++) {
		const double *G = g + 9 * i;
		const double r[3] = {rho[2 * i], rho[2 * i + 1],
				     rho[2 * i + 1]};
		const size_t nb = a->ptr[i + 1] - a->ptr[i];

		for (size_t q = a->ptr[i]; q < a->ptr[i + 1]; q++) {
			const double *B = a->blk + 9 * q;
			const int on_diag = q == a->diag[i];
			const size_t off = q - a->ptr[i];

			for (int row = 0; row < 3; row++)
				for (int c = 0; c < 3; c++) {
					double v = 0.0;

					for (int l = 0; l < 3; l++)
						v += G[3 * row + l] * r[l] *
						     (B[3 * l + c] +
						      (on_diag && l == c) * sigma);
					if (on_diag)
						v += (row == c) * (1.0 + reg) -
						     G[3 * row + c];
					/* scalar row 3i + row: nb blocks of 3 */
					jx[a->ptr[i] * 9 + row * 3 * nb +
					   3 * off + c] = v;
				}
		}
	}
}

/* UMFPACK's controls: its defaults, without iterative refinement unless
 * lu->refine. */
static void umf_control(const struct ac_lu *lu, double *control)
{
	umfpack_di_defaults(control);
	if (!lu->refine)
		control[UMFPACK_IRSTEP] = 0.0;
}

static int umf_factor(struct ac_lu *lu)
{
	double info[UMFPACK_INFO], control[UMFPACK_CONTROL];
	int st;

	umf_control(lu, control);
	if (!lu->symbolic) {
		st = umfpack_di_symbolic(lu->m, lu->m, lu->jp, lu->ji, lu->jx,
					 &lu->symbolic, control, info);
		if (st != UMFPACK_OK) {
			lu->symbolic = NULL;
			return st;
		}
	}
	st = umfpack_di_numeric(lu->jp, lu->ji, lu->jx, lu->symbolic,
				&lu->numeric, control, info);
	lu->peak = fmax(lu->peak, info[UMFPACK_PEAK_MEMORY] *
					  info[UMFPACK_SIZE_OF_UNIT]);
	if (st != UMFPACK_OK && lu->numeric)
		umfpack_di_free_numeric(&lu->numeric);
	if (st != UMFPACK_OK)
		lu->numeric = NULL;
	else
		lu->factors++;
	return st;
}

static void klu_drop(struct ac_lu *lu)
{
	klu_common *c = lu->kcommon;
	klu_symbolic *sym = lu->ksymbolic;
	klu_numeric *num = lu->knumeric;

	if (num)
		klu_free_numeric(&num, c);
	if (sym)
		klu_free_symbolic(&sym, c);
	free(c);
	lu->knumeric = lu->ksymbolic = lu->kcommon = NULL;
}

/* KLU's status as UMFPACK's */
static int klu_status(const klu_common *c)
{
	return c->status == KLU_OUT_OF_MEMORY ? UMFPACK_ERROR_out_of_memory
					       : UMFPACK_WARNING_singular_matrix;
}

/* KLU's common block and symbolic analysis of J's pattern, once. */
static int klu_analysis(struct ac_lu *lu)
{
	klu_common *c = lu->kcommon;

	if (!c) {
		if (!(c = malloc(sizeof *c)))
			return UMFPACK_ERROR_out_of_memory;
		klu_defaults(c); /* halt_if_singular: a zero pivot fails */
		lu->kcommon = c;
	}
	if (!lu->ksymbolic &&
	    !(lu->ksymbolic = klu_analyze(lu->m, (int *)lu->jp,
					  (int *)lu->ji, c)))
		return klu_status(c);
	return UMFPACK_OK;
}

static int klu_factor_lu(struct ac_lu *lu)
{
	klu_common *c;
	klu_symbolic *sym;
	klu_numeric *num;
	int *jp = (int *)lu->jp, *ji = (int *)lu->ji;
	double *jx = (double *)lu->jx;
	int st = klu_analysis(lu);

	if (st != UMFPACK_OK)
		return st;
	c = lu->kcommon;
	sym = lu->ksymbolic;
	num = lu->knumeric;
	/* the last pivots, while they stay as good as a fresh factorization's
	 * (within 1000 times its pivot ratio) */
	if (num && klu_refactor(jp, ji, jx, sym, num, c) &&
	    klu_rcond(sym, num, c) &&
	    c->rcond >= fmin(AC_KLU_RCOND, 1e-3 * lu->rcond0)) {
		lu->refactors++;
		lu->peak = fmax(lu->peak, (double)c->mempeak);
		return UMFPACK_OK;
	}
	if (num)
		klu_free_numeric(&num, c);
	lu->knumeric = num = klu_factor(jp, ji, jx, sym, c);
	lu->peak = fmax(lu->peak, (double)c->mempeak);
	if (!num)
		return klu_status(c);
	lu->factors++;
	lu->rcond0 = klu_rcond(sym, num, c) ? c->rcond : 0.0;
	return UMFPACK_OK;
}

int ac_factor(struct ac_lu *lu)
{
	if (lu->backend == AC_LU_AUTO) {
		/* KLU's analysis estimates the factorization's flops */
		int st = klu_analysis(lu);

		if (st != UMFPACK_OK)
			return st;
		lu->backend = AC_LU_KLU;
		if (((klu_symbolic *)lu->ksymbolic)->est_flops >
		    AC_KLU_MAX_FLOPS) {
			klu_drop(lu);
			lu->backend = AC_LU_UMFPACK;
		}
	}
	if (lu->backend == AC_LU_UMFPACK)
		return umf_factor(lu);
	return klu_factor_lu(lu);
}

int ac_solve(struct ac_lu *lu, const double *phi, double *d, double *work)
{
	const size_t m = (size_t)lu->m;
	int ok;

	if (lu->backend != AC_LU_UMFPACK) {
		/* KLU factored J^T: its transposed solve is J's */
		for (size_t i = 0; i < m; i++)
			d[i] = -phi[i];
		ok = klu_tsolve(lu->ksymbolic, lu->knumeric, lu->m, 1, d,
				lu->kcommon);
	} else {
		double info[UMFPACK_INFO], control[UMFPACK_CONTROL];

		umf_control(lu, control);
		for (size_t i = 0; i < m; i++)
			work[i] = -phi[i];
		/* UMFPACK holds J^T (J's rows as its columns): solve its
		 * transpose */
		ok = umfpack_di_solve(UMFPACK_At, lu->jp, lu->ji, lu->jx, d,
				      work, lu->numeric, control,
				      info) == UMFPACK_OK;
		umfpack_di_free_numeric(&lu->numeric);
		lu->numeric = NULL;
	}
	if (!ok)
		return -1;
	for (size_t i = 0; i < m; i++)
		if (!isfinite(d[i]))
			return -1;
	return 0;
}

void ac_lu_free(struct ac_lu *lu)
{
	if (lu->numeric)
		umfpack_di_free_numeric(&lu->numeric);
	if (lu->symbolic)
		umfpack_di_free_symbolic(&lu->symbolic);
	lu->numeric = lu->symbolic = NULL;
	klu_drop(lu);
}

int ac_system_build(struct ac_system *j, const struct px_accel_host *h)
{
	const size_t n = h->p->n_contacts, m = 3 * n;

	if (ssn_matrix_build(&j->a, h))
		return -1;
	j->nnz = 9 * j->a.ptr[n];
	if (j->nnz > (size_t)2147483647)
		return -1;
	j->jp = malloc((m + 1) * sizeof *j->jp);
	j->ji = malloc((j->nnz + 1) * sizeof *j->ji);
	j->jx = malloc((j->nnz + 1) * sizeof *j->jx);
	if (!j->jp || !j->ji || !j->jx)
		return -1;
	ssn_matrix_pattern(&j->a, j->jp, j->ji);
	j->lu = (struct ac_lu){.m = (int)m,
			       .jp = j->jp,
			       .ji = j->ji,
			       .jx = j->jx,
			       .backend = AC_LU_UMFPACK,
			       .refine = 1};
	return 0;
}

void ac_system_free(struct ac_system *j)
{
	ssn_matrix_free(&j->a);
	ac_lu_free(&j->lu);
	free(j->jp);
	free(j->ji);
	free(j->jx);
	j->jp = j->ji = NULL;
	j->jx = NULL;
}

double ac_system_bytes(const struct ac_system *j)
{
	const size_t n = j->a.n;

	if (!j->a.ptr)
		return 0.0;
	return (double)((3 * n + 1) * sizeof *j->jp +
			(j->nnz + 1) * (sizeof *j->ji + sizeof *j->jx) +
			2 * (n + 1) * sizeof *j->a.ptr +
			j->a.ptr[n] * (sizeof *j->a.col + 9 * sizeof *j->a.blk));
}
