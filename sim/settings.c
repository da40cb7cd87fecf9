/* The world's default settings (world.h). A stand-in with the values of
 * sim/world_bodies.c, so that the scene reader builds without the world
 * stepping; whoever merges both keeps one of the two definitions. */
#include "world.h"

void sim_settings_default(struct sim_settings *s)
{
	*s = (struct sim_settings){
	    .gravity = {0.0, 0.0, -9.81},
	    .dt = 0.01,
	    .steps = 100,
	    .stepping = SIM_SEMI_IMPLICIT,
	    .stabilization = SIM_STAB_BAUMGARTE,
	    .beta = 0.2,
	    .slop = 1e-3,
	    .margin = 1e-3,
	    .restitution_threshold = 0.1,
	    .warm_start = 1,
	    .gyroscopic = 0,
	};
}
