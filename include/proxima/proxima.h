/* proxima: rigid-body frictional contact problems. Umbrella header. */
#ifndef PROXIMA_H
#define PROXIMA_H

#include <proxima/config.h>
#include <proxima/error.h>
#include <proxima/io.h>
#include <proxima/loader.h>
#include <proxima/plugin.h>
#include <proxima/problem.h>
#include <proxima/sim.h>
#include <proxima/solver.h>

#endif
