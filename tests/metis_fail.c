/* METIS_PartGraphKway that always fails as out of memory, preloaded into
 * the ranks of a distributed solve (tests/test_mpi.c) so that the
 * partitioner's failure path runs: the real METIS does not fail on any
 * graph proxima builds. */
#include <metis.h>

/* exported: the build hides symbols by default */
__attribute__((visibility("default"))) int
METIS_PartGraphKway(idx_t *nvtxs, idx_t *ncon, idx_t *xadj, idx_t *adjncy,
		    idx_t *vwgt, idx_t *vsize, idx_t *adjwgt, idx_t *nparts,
		    real_t *tpwgts, real_t *ubvec, idx_t *options,
		    idx_t *edgecut, idx_t *part)
{
	(void)nvtxs;
	(void)ncon;
	(void)xadj;
	(void)adjncy;
	(void)vwgt;
	(void)vsize;
	(void)adjwgt;
	(void)nparts;
	(void)tpwgts;
	(void)ubvec;
	(void)options;
	(void)edgecut;
	(void)part;
	return METIS_ERROR_MEMORY;
}
