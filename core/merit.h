/* Merit functions with caller-owned workspace (private to the core). */
#ifndef PX_MERIT_H
#define PX_MERIT_H

#include <proxima/problem.h>

#include "kernel.h"

/* px_merit_fc3d with u (n * bs) as workspace; u holds A lambda + b after. */
double px_merit_fc3d_ws(const struct px_problem *p, const double *lambda,
			double *u, double *abs_out);
double px_merit_natural_ws(const struct px_problem *p, const double *lambda,
			   double *u, double r_c, px_project_fn project,
			   const void *fstate);
/* The certificate of a stop test other than fc3d: the fixed-point residual
 * of the configured friction set with unit r, relative like fc3d:
 * ||lambda - prox(lambda - v)||_2 / max(||b||, ||lambda||, ||v||). */
double px_merit_check_ws(const struct px_problem *p, const double *lambda,
			 double *u, px_project_fn project, const void *fstate);
double px_merit_minmap_ws(const struct px_problem *p, const double *lambda,
			  double *u);

#endif
