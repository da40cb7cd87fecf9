/* A world's per-step statistics as CSV (world.h). */
#include <stdio.h>

#include "world.h"

void px_step_stats_csv_header(FILE *f, int stages)
{
	fprintf(f, "step,time,contacts,cache_hits,sweeps,merit,converged,"
		   "collide_s,build_s,solve_s,stab_s,total_s,kinetic,"
		   "potential,max_depth%s\n",
		stages ? ",broad_s,narrow_s,cache_s,problem_s,integrate_s,post_s"
		       : "");
}

void px_step_stats_csv_row(FILE *f, const struct px_step_stats *s,
			   int stages)
{
	fprintf(f, "%llu,%.9g,%zu,%zu,%llu,%.6e,%d,%.6e,%.6e,%.6e,%.6e,%.6e,"
		   "%.12g,%.12g,%.6e",
		(unsigned long long)s->step, s->time, s->contacts,
		s->cache_hits, (unsigned long long)s->sweeps, s->merit,
		s->converged, s->seconds_collide, s->seconds_build,
		s->seconds_solve, s->seconds_stab, s->seconds_total,
		s->kinetic, s->potential, s->max_depth);
	if (stages)
		fprintf(f, ",%.6e,%.6e,%.6e,%.6e,%.6e,%.6e", s->seconds_broad,
			s->seconds_narrow, s->seconds_cache, s->seconds_problem,
			s->seconds_integrate, s->seconds_post);
	fputc('\n', f);
}

void px_step_stats_stages_add(const struct px_step_stats *s, double *seconds)
{
	seconds[PX_SIM_STAGE_BROAD] += s->seconds_broad;
	seconds[PX_SIM_STAGE_NARROW] += s->seconds_narrow;
	seconds[PX_SIM_STAGE_CACHE] += s->seconds_cache;
	seconds[PX_SIM_STAGE_PROBLEM] += s->seconds_problem;
	seconds[PX_SIM_STAGE_SOLVE] += s->seconds_solve;
	seconds[PX_SIM_STAGE_INTEGRATE] += s->seconds_integrate;
	seconds[PX_SIM_STAGE_POST] += s->seconds_post;
}
