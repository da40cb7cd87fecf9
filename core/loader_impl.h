/* What the core, not plugins or programs, keeps on a loaded plugin. */
#ifndef PX_LOADER_IMPL_H
#define PX_LOADER_IMPL_H

#include <stdint.h>

#include <proxima/loader.h>

/* Which solver (px_solver_create) last ran this plugin's once-per-solver
 * preparation (scheduler.prepare): a solver sharing the config with others
 * prepares it again when another did since. 0: none yet. */
uint64_t px_plugin_prepared_for(const struct px_plugin *pl);
void px_plugin_mark_prepared(const struct px_plugin *pl, uint64_t solver);

#endif
