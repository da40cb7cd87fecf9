/* A world's per-step statistics as CSV (world.h). */
#include <stdio.h>

#include "world.h"

void px_step_stats_csv_header(FILE *f)
{
	fprintf(f, "step,time,contacts,cache_hits,sweeps,merit,converged,"
		   "collide_s,build_s,solve_s,stab_s,total_s,kinetic,"
		   "potential,max_depth\n");
}

void px_step_stats_csv_row(FILE *f, const struct px_step_stats *s)
{
	fprintf(f, "%llu,%.9g,%zu,%zu,%llu,%.6e,%d,%.6e,%.6e,%.6e,%.6e,%.6e,"
		   "%.12g,%.12g,%.6e\n",
		(unsigned long long)s->step, s->time, s->contacts,
		s->cache_hits, (unsigned long long)s->sweeps, s->merit,
		s->converged, s->seconds_collide, s->seconds_build,
		s->seconds_solve, s->seconds_stab, s->seconds_total,
		s->kinetic, s->potential, s->max_depth);
}
