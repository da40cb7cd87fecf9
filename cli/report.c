/* What the command writes about one solve, shared by `proxima solve` and
 * `proxima compare`: the per-sweep history as CSV (with the work, sweeps
 * plus the accelerator's products with A), the time per sweep, the
 * names of the merits and what a divergence means. */
#include <stdint.h>
#include <stdio.h>

#include <proxima/proxima.h>

#include "cli.h"
#include "outfile.h"

static const char *const part_name[] = {"full", "normal", "friction"};

int px_cli_write_history(const char *path, const struct px_report *rep,
			 struct px_error *err)
{
	struct px_outfile o;
	uint64_t products = 0;
	size_t a = 0;
	FILE *f;

	if (px_outfile_open(&o, path, err))
		return PX_ERR_IO;
	f = o.f;
	fprintf(f, "sweep,part,accepted,residual,merit,seconds,work\n");
	for (size_t i = 0; i < rep->n_history; i++) {
		const struct px_sweep_record *h = &rep->history[i];

		/* work: the sweeps so far and the products with A of the
		 * accelerator's calls before this sweep, in sweep
		 * equivalents */
		for (; a < rep->n_accel && rep->accel[a].after_sweep <= i; a++)
			products += rep->accel[a].products;
		fprintf(f, "%zu,%s,%d,%.17g,%.17g,%.9f,%llu\n", i + 1,
			part_name[h->part], h->accepted, h->residual, h->merit,
			h->seconds, (unsigned long long)(i + 1 + products));
	}
	return px_outfile_commit(&o, err);
}

double px_cli_us_per_sweep(const struct px_report *rep)
{
	/* without the plugins' set-up and the accelerator's calls */
	if (!rep->sweeps)
		return 0.0;
	return 1e6 * (rep->seconds - rep->prepare_seconds - rep->accel_seconds) /
	       (double)rep->sweeps;
}

const char *px_cli_kernel_name(const struct px_report *rep)
{
	static const char *const name[] = {"general", "rigid 3-row",
					   "wide rigid 3-row, 4 SIMD lanes"};

	return name[rep->rigid_kernel >= 0 && rep->rigid_kernel <= 2
			    ? rep->rigid_kernel
			    : 0];
}

const char *px_cli_merit_name(int merit)
{
	static const char *const name[] = {"delta", "fc3d", "natural",
					   "minmap"};

	return merit >= 0 && merit < 4 ? name[merit] : "?";
}

const char *px_cli_divergence_name(int diverged)
{
	return diverged == PX_DIVERGED_R		? "rfactor"
	       : diverged == PX_DIVERGED_NONFINITE ? "nonfinite"
						   : "none";
}

const char *px_cli_divergence_text(int diverged)
{
	if (diverged == PX_DIVERGED_R)
		return "the rfactor plugin shrank an r-factor to 0 or made it non-finite (the sweep was rolled back: the solution is the last finite iterate)";
	return "the iterate turned non-finite and the rfactor plugin kept R; [solver] check = on names a friction plugin at fault (the sweep was rolled back: the solution is the last finite iterate)";
}
