/* proxima's side of the world benchmark (bench/world.sh): step a scene file
 * with a fixed number of sweeps per step and print the per-step breakdown
 * (collision, problem build, solve) and the solve time per contact per
 * sweep, in the same key=value form as bench/bullet_world. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/scene.h"
#include "../sim/vec.h"
#include "../sim/world.h"
#include "common.h"

static int set_stabilization(struct px_world_settings *s, const char *name)
{
	static const struct {
		const char *name;
		enum px_stabilization stab;
	} names[] = {{"baumgarte", PX_STAB_BAUMGARTE},
		     {"post", PX_STAB_POST},
		     {"none", PX_STAB_NONE},
		     {"soft", PX_STAB_SOFT}};

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i].name)) {
			s->stabilization = names[i].stab;
			return 0;
		}
	return -1;
}

/* The dynamic body that starts highest (the first of equals): the top of
 * a stack, a wall or a tower. */
static size_t highest(const struct px_world *w)
{
	const struct px_body *b = px_world_bodies(w);
	size_t top = 0;

	for (size_t i = 1; i < px_world_n_bodies(w); i++)
		if (!b[i].is_static && (b[top].is_static || b[i].x[2] > b[top].x[2]))
			top = i;
	return top;
}

static double distance(const double a[3], const double b[3])
{
	double d[3];

	v3_sub(a, b, d);
	return v3_norm(d);
}

/* The process's CPU time (s): steadier than the wall clock on a busy
 * machine, and bench/world runs on one thread unless --threads. */
static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench/world SCENE.ini [--name NAME] [--steps S] [--warmup W] [--iterations I] [--substeps N] [--stabilization baumgarte|post|none|soft] [--hertz HZ] [--dt DT] [--threads T] [--friction NAME] [--ordering NAME] [--seed S (random ordering)] [--csv FILE]\n");
}

int main(int argc, char **argv)
{
	const char *scene = NULL, *name = NULL, *csv_path = NULL;
	const char *friction = "disc", *ordering = "identity", *seed = NULL;
	unsigned long steps = 0, iters = 10, threads = 1, warmup = 0,
		      substeps = 0;
	const char *stab = NULL;
	double top0[3] = {0, 0, 0}, e0 = 0.0;
	size_t hi = 0;
	double hertz = -1.0, dt = 0.0, cpu0 = 0.0, cpu = 0.0;
	size_t contacts_first = 0;
	double *z0 = NULL, max_drop = 0.0, drift_max = 0.0;
	struct px_world *w = NULL;
	struct px_config *cfg = NULL;
	struct px_error err = {0};
	struct px_step_stats st;
	double collide = 0, build = 0, solve = 0, total = 0, contacts = 0,
	       work = 0, sweeps = 0;
	size_t n_bodies = 0;
	char text[512];
	FILE *csv = NULL;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && strcmp(argv[i], "--steps") == 0)
			steps = strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--warmup") == 0)
			warmup = strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--iterations") == 0)
			iters = strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--substeps") == 0)
			substeps = strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--dt") == 0)
			dt = strtod(argv[++i], NULL);
		else if (i + 1 < argc && strcmp(argv[i], "--hertz") == 0)
			hertz = strtod(argv[++i], NULL);
		else if (i + 1 < argc &&
			 strcmp(argv[i], "--stabilization") == 0)
			stab = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
			threads = strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--name") == 0)
			name = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--friction") == 0)
			friction = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--ordering") == 0)
			ordering = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
			seed = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "--csv") == 0)
			csv_path = argv[++i];
		else if (!scene && argv[i][0] != '-')
			scene = argv[i];
		else {
			usage();
			return 2;
		}
	}
	if (!scene || !iters || !threads) {
		usage();
		return 2;
	}
	/* exactly `iters` sweeps per step: a tolerance that is never met,
	 * and the cheap delta merit (the defaults' fc3d, Siconos's error
	 * after every sweep, would cost more than the sweep: Bullet tests
	 * nothing between its iterations) */
	snprintf(text, sizeof text,
		 "[solver]\nmax_sweeps = %lu\nabs_tol = 0\nrel_tol = 0\n"
		 "merit = delta\n"
		 "[friction]\nplugin = %s\n[ordering]\nplugin = %s\n%s%s%s"
		 "[rfactor]\nplugin = local\nnu = 1\n"
		 "[scheduler]\nplugin = %s\n%s",
		 iters, friction, ordering, seed ? "seed = " : "",
		 seed ? seed : "", seed ? "\n" : "",
		 threads > 1 ? "colored" : "sequential",
		 threads > 1 ? "threads = " : "");
	if (threads > 1)
		snprintf(text + strlen(text), sizeof text - strlen(text),
			 "%lu\n", threads);
	if (bench_config(text, &cfg, &err) || px_scene_load(scene, &w, &err))
		goto fail;
	n_bodies = px_world_n_bodies(w);
	if (substeps)
		px_world_settings_mut(w)->substeps = (uint32_t)substeps;
	if (dt > 0.0)
		px_world_settings_mut(w)->dt = dt;
	if (hertz >= 0.0)
		px_world_settings_mut(w)->contact_hertz = hertz;
	if (stab && set_stabilization(px_world_settings_mut(w), stab)) {
		usage();
		goto out;
	}
	if (!n_bodies) {
		fprintf(stderr, "bench/world: %s has no bodies\n", scene);
		goto out;
	}
	hi = highest(w);
	memcpy(top0, px_world_bodies(w)[hi].x, sizeof top0);
	e0 = px_world_kinetic_energy(w) + px_world_potential_energy(w);
	if (!steps)
		steps = px_world_settings(w)->steps;
	if (warmup >= steps) {
		fprintf(stderr, "bench/world: --warmup %lu leaves no step of %lu to measure\n",
			warmup, steps);
		goto out;
	}
	z0 = malloc((n_bodies + 1) * sizeof *z0);
	if (!z0)
		goto out;
	for (size_t i = 0; i < n_bodies; i++)
		z0[i] = px_world_bodies(w)[i].x[2];
	if (csv_path) {
		csv = fopen(csv_path, "w");
		if (!csv) {
			perror(csv_path);
			goto out;
		}
		fprintf(csv, "step,contacts,collide_s,build_s,solve_s,total_s\n");
	}
	for (unsigned long i = 0; i < steps; i++) {
		if (i == warmup)
			cpu0 = cpu_seconds();
		if (px_world_step(w, cfg, &st, &err))
			goto fail;
		if (i == 0)
			contacts_first = st.contacts;
		for (size_t k = 0; k < n_bodies; k++) {
			const double drop = z0[k] - px_world_bodies(w)[k].x[2];

			max_drop = drop > max_drop ? drop : max_drop;
		}
		drift_max = fmax(drift_max,
				 distance(px_world_bodies(w)[hi].x, top0));
		if (csv)
			fprintf(csv, "%lu,%zu,%.6e,%.6e,%.6e,%.6e\n", i + 1,
				st.contacts, st.seconds_collide,
				st.seconds_build, st.seconds_solve,
				st.seconds_total);
		if (i < warmup)
			continue;
		collide += st.seconds_collide;
		build += st.seconds_build;
		solve += st.seconds_solve;
		total += st.seconds_total;
		contacts += (double)st.contacts;
		work += (double)st.contacts * (double)st.sweeps;
		sweeps += (double)st.sweeps;
	}
	cpu = cpu_seconds() - cpu0;
	{
		const struct px_body *b = px_world_bodies(w);
		const struct px_body *top = b + n_bodies - 1;
		const double m = (double)(steps - warmup);

		name = name ? name : scene;
		printf("proxima scene=%s bodies=%zu steps=%lu warmup=%lu iterations=%lu threads=%lu dt=%g contacts_first=%zu contacts_mean=%.1f collide_ms_per_step=%.4f build_ms_per_step=%.4f solve_ms_per_step=%.4f total_ms_per_step=%.4f solve_ns_per_contact_iteration=%.2f tracked=%zu tracked_final=%.6f,%.6f,%.6f max_drop=%.6f",
		       name, n_bodies, steps, warmup, iters, threads,
		       px_world_settings(w)->dt,
		       contacts_first, contacts / m, 1e3 * collide / m,
		       1e3 * build / m, 1e3 * solve / m, 1e3 * total / m,
		       work > 0 ? 1e9 * solve / work : 0.0, n_bodies - 1,
		       top->x[0], top->x[1], top->x[2], max_drop);
		/* doc/scenes.md's verdicts on a box stack (ground, then bottom
		 * up) */
		if (strncmp(name, "boxstack", 8) == 0 && n_bodies > 2) {
			const double shift = hypot(top->x[0] - b[1].x[0],
						   top->x[1] - b[1].x[1]);

			printf(" top_shift=%.6f collapsed=%s leaning=%s", shift,
			       max_drop > 0.15 ? "yes" : "no",
			       shift > 0.35 ? "yes" : "no");
		}
		{
			const double drift = distance(b[hi].x, top0);
			const double e1 = px_world_kinetic_energy(w) +
					  px_world_potential_energy(w);

			/* stands: the top body within 1 cm of its start at
			 * every step */
			printf(" cpu_ms_per_step=%.4f", 1e3 * cpu / m);
			printf(" substeps=%u sweeps_per_step=%.1f top=%zu top_drift=%.6f top_drift_max=%.6f stands=%s energy_start=%.6g energy_end=%.6g energy_drift=%.6g",
			       px_world_settings(w)->substeps, sweeps / m, hi,
			       drift, drift_max, drift_max <= 0.01 ? "yes" : "no", e0, e1,
			       e0 != 0.0 ? (e1 - e0) / fabs(e0) : e1 - e0);
		}
		putchar('\n');
	}
	goto out;
fail:
	fprintf(stderr, "bench/world: %s\n", err.msg);
out:
	if (csv)
		fclose(csv);
	free(z0);
	px_world_destroy(w);
	px_config_free(cfg);
	return err.code ? 1 : 0;
}
