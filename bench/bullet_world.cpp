/* bench/bullet_world: doc/scenes.md's benchmark scenes stepped by Bullet, the
 * peer side of issue 7's world benchmark (bench/ runs proxima's world on
 * the same scenes and prints the ratio).
 *
 *   bullet_world SCENE [--steps S] [--iterations I] [--warmup W]
 *                [--csv FILE] [--mu MU] [--ratio R] [--friction-dirs 1|2]
 *
 * SCENE is ballgrid-N, ballpile-N, boxstack-K, wall or heavyonlight, built
 * to the last number of doc/scenes.md: ground box as body 0, Z up, gravity
 * (0, 0, -9.81), restitution 0, no damping, no sleeping, identity
 * orientations, every body's friction sqrt(mu) (Bullet multiplies the two
 * bodies' coefficients). Stock Bullet otherwise: btDbvtBroadphase, the
 * default collision configuration, btSequentialImpulseConstraintSolver with
 * its default mode (warm starting, SIMD rows, split impulse, one friction
 * direction), I iterations, one fixed step of dt per stepSimulation call.
 *
 * Timing (CLOCK_MONOTONIC), per step, by overriding Bullet's own virtual
 * phases and calling the base class:
 *   collide  btCollisionWorld::performDiscreteCollisionDetection (AABBs,
 *            broadphase, narrowphase, manifold refresh);
 *   build    btSequentialImpulseConstraintSolver::
 *            solveGroupCacheFriendlySetup (solver bodies, contact and
 *            friction rows, warm start);
 *   solve    solveGroupCacheFriendlyIterations (the split-impulse pass,
 *            then the I sweeps of projected Gauss-Seidel);
 *   finish   solveGroupCacheFriendlyFinish (impulses and velocities
 *            written back);
 *   total    the whole stepSimulation call; other = total - the four
 *            (prediction, islands, integration, gravity).
 * The solver may be called once per batch of islands: the phases are summed
 * over the calls of a step. Sweeps are counted (solveSingleIteration) rather
 * than assumed, and the solve's cost per contact per sweep is
 * sum(solve) / sum(contact rows in a call x its sweeps). The means leave
 * out the first W steps (default 0): Bullet's first step creates every
 * pair, manifold and pool, and costs many steady steps. */
#include <btBulletDynamicsCommon.h>

#include "../sim/balls.h"

#include <getopt.h>
#include <time.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The process's CPU time (s): steadier than the wall clock on a busy
 * machine (issue 23's bench/substep.sh compares it with bench/world's). */
static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What one step cost and held; zeroed before every step. */
struct step_stats {
	double collide, build, solve, finish, total;
	long substeps;   /* collision passes: must be 1 */
	long contacts;   /* manifold points after collision */
	long solved;     /* contact rows the solver set up (all calls) */
	long rows;       /* contact + friction + rolling-friction rows */
	long sweeps;     /* most sweeps of one solver call */
	double contact_sweeps; /* sum over calls of contact rows x sweeps */
};

class timed_solver : public btSequentialImpulseConstraintSolver
{
public:
	step_stats *stats = nullptr;

protected:
	btScalar solveGroupCacheFriendlySetup(
		btCollisionObject **bodies, int n_bodies,
		btPersistentManifold **manifolds, int n_manifolds,
		btTypedConstraint **constraints, int n_constraints,
		const btContactSolverInfo &info, btIDebugDraw *draw) override
	{
		const double t0 = now();
		const btScalar r = btSequentialImpulseConstraintSolver::
			solveGroupCacheFriendlySetup(bodies, n_bodies, manifolds,
						     n_manifolds, constraints,
						     n_constraints, info, draw);

		stats->build += now() - t0;
		return r;
	}

	btScalar solveGroupCacheFriendlyIterations(
		btCollisionObject **bodies, int n_bodies,
		btPersistentManifold **manifolds, int n_manifolds,
		btTypedConstraint **constraints, int n_constraints,
		const btContactSolverInfo &info, btIDebugDraw *draw) override
	{
		const long contacts = m_tmpSolverContactConstraintPool.size();
		double t0;
		btScalar r;

		sweeps = 0;
		t0 = now();
		r = btSequentialImpulseConstraintSolver::
			solveGroupCacheFriendlyIterations(bodies, n_bodies,
							  manifolds, n_manifolds,
							  constraints,
							  n_constraints, info,
							  draw);
		stats->solve += now() - t0;
		stats->solved += contacts;
		stats->rows += contacts +
			       m_tmpSolverContactFrictionConstraintPool.size() +
			       m_tmpSolverContactRollingFrictionConstraintPool
				       .size();
		if (sweeps > stats->sweeps)
			stats->sweeps = sweeps;
		stats->contact_sweeps += (double)contacts * (double)sweeps;
		return r;
	}

	btScalar solveSingleIteration(int iteration, btCollisionObject **bodies,
				      int n_bodies,
				      btPersistentManifold **manifolds,
				      int n_manifolds,
				      btTypedConstraint **constraints,
				      int n_constraints,
				      const btContactSolverInfo &info,
				      btIDebugDraw *draw) override
	{
		sweeps++;
		return btSequentialImpulseConstraintSolver::solveSingleIteration(
			iteration, bodies, n_bodies, manifolds, n_manifolds,
			constraints, n_constraints, info, draw);
	}

	btScalar solveGroupCacheFriendlyFinish(btCollisionObject **bodies,
					       int n_bodies,
					       const btContactSolverInfo &info)
		override
	{
		const double t0 = now();
		const btScalar r = btSequentialImpulseConstraintSolver::
			solveGroupCacheFriendlyFinish(bodies, n_bodies, info);

		stats->finish += now() - t0;
		return r;
	}

private:
	long sweeps = 0;
};

class timed_world : public btDiscreteDynamicsWorld
{
public:
	step_stats *stats = nullptr;

	timed_world(btDispatcher *dispatcher, btBroadphaseInterface *broadphase,
		    btConstraintSolver *solver,
		    btCollisionConfiguration *config)
		: btDiscreteDynamicsWorld(dispatcher, broadphase, solver, config)
	{
	}

	void performDiscreteCollisionDetection() override
	{
		const double t0 = now();
		btDispatcher *d;

		btDiscreteDynamicsWorld::performDiscreteCollisionDetection();
		stats->collide += now() - t0;
		stats->substeps++;
		d = getDispatcher();
		for (int i = 0; i < d->getNumManifolds(); i++)
			stats->contacts +=
				d->getManifoldByIndexInternal(i)->getNumContacts();
	}
};

/* A body of a scene; shape 0 is the ground's. */
struct body_spec {
	int shape;
	bool is_sphere;
	double mass;
	double half[3]; /* box half extents, or radius in half[0] */
	double pos[3];
	double vel[3];
};

struct scene {
	char name[64];
	enum { BALLGRID, BALLPILE, BOXSTACK, WALL, HEAVY } kind;
	long n;
	double dt, mu;
	long steps;
	long tracked;
	std::vector<body_spec> bodies; /* [0] is the ground */
};

static body_spec ground(double cx, double cy, double hx, double hy)
{
	return body_spec{0, false, 0.0, {hx, hy, 1.0}, {cx, cy, -1.0}, {0, 0, 0}};
}

static body_spec sphere(double x, double y, double z)
{
	return body_spec{1, true, 1.0, {1.0, 0, 0}, {x, y, z}, {0, 0, 0}};
}

static body_spec box(int shape, double mass, double hx, double hy, double hz,
		     double x, double y, double z)
{
	return body_spec{shape, false, mass, {hx, hy, hz}, {x, y, z}, {0, 0, 0}};
}

/* The ball scenes' spheres from sim/balls.c, after their ground. */
static void add_balls(scene *s, const double *x, const double *v,
		      const double gc[3], const double gh[3])
{
	const long nb = s->n * s->n * s->n;

	s->bodies.push_back(ground(gc[0], gc[1], gh[0], gh[1]));
	for (long m = 0; m < nb; m++) {
		body_spec b = sphere(x[3 * m], x[3 * m + 1], x[3 * m + 2]);

		for (int d = 0; v && d < 3; d++)
			b.vel[d] = v[3 * m + d];
		s->bodies.push_back(b);
	}
	s->dt = 0.01;
	s->steps = 200;
}

static void build_ballgrid(scene *s)
{
	std::vector<double> x(3 * s->n * s->n * s->n);
	double gc[3], gh[3];

	px_ballgrid((size_t)s->n, x.data(), gc, gh);
	add_balls(s, x.data(), nullptr, gc, gh);
}

static void build_ballpile(scene *s)
{
	const long nb = s->n * s->n * s->n;
	std::vector<double> x(3 * nb), v(3 * nb);
	double gc[3], gh[3];

	px_ballpile((size_t)s->n, 12345, x.data(), v.data(), gc, gh);
	add_balls(s, x.data(), v.data(), gc, gh);
}

static void build_boxstack(scene *s)
{
	s->bodies.push_back(ground(0, 0, 50, 50));
	for (long k = 0; k < s->n; k++)
		s->bodies.push_back(box(1, 110.0, 0.7, 0.7, 0.3, 0, 0,
					0.3 + 0.6 * (double)k));
	s->dt = 1.0 / 60;
	s->steps = 600;
}

/* Running bond: even rows 10 full bricks at x = 0..9, odd rows a half
 * brick at each end and 9 full bricks at x = 0.5..8.5. */
static void build_wall(scene *s)
{
	s->bodies.push_back(ground(4.5, 0, 50, 50));
	for (int r = 0; r < 10; r++) {
		const double z = 0.25 + 0.5 * r;

		if (r % 2 == 0) {
			for (int i = 0; i < 10; i++)
				s->bodies.push_back(box(1, 1.0, 0.5, 0.25,
							0.25, (double)i, 0, z));
			continue;
		}
		s->bodies.push_back(box(2, 0.5, 0.25, 0.25, 0.25, -0.25, 0, z));
		for (int i = 0; i < 9; i++) {
			if (r == 9 && i == 4)
				s->tracked = (long)s->bodies.size();
			s->bodies.push_back(box(1, 1.0, 0.5, 0.25, 0.25,
						0.5 + i, 0, z));
		}
		s->bodies.push_back(box(2, 0.5, 0.25, 0.25, 0.25, 9.25, 0, z));
	}
	s->dt = 1.0 / 60;
	s->steps = 600;
}

static void build_heavy(scene *s, double ratio)
{
	s->bodies.push_back(ground(0, 0, 50, 50));
	s->bodies.push_back(box(1, 1.0, 0.5, 0.5, 0.5, 0, 0, 0.5));
	s->bodies.push_back(box(1, ratio, 0.5, 0.5, 0.5, 0, 0, 1.5));
	s->dt = 1.0 / 60;
	s->steps = 600;
}

/* Parses "NAME-N" with N >= 1 into *n. */
static bool sized(const char *arg, const char *name, long *n)
{
	const size_t len = strlen(name);
	char *end;

	if (strncmp(arg, name, len) != 0 || arg[len] != '-')
		return false;
	errno = 0;
	*n = strtol(arg + len + 1, &end, 10);
	return errno == 0 && end != arg + len + 1 && *end == '\0' && *n >= 1 &&
	       *n <= 1000;
}

static bool build_scene(const char *arg, double mu, double ratio, scene *s)
{
	snprintf(s->name, sizeof s->name, "%s", arg);
	s->mu = mu;
	s->tracked = -1;
	if (sized(arg, "ballgrid", &s->n)) {
		s->kind = scene::BALLGRID;
		build_ballgrid(s);
	} else if (sized(arg, "ballpile", &s->n)) {
		s->kind = scene::BALLPILE;
		build_ballpile(s);
	} else if (sized(arg, "boxstack", &s->n)) {
		s->kind = scene::BOXSTACK;
		build_boxstack(s);
	} else if (strcmp(arg, "wall") == 0) {
		s->kind = scene::WALL;
		build_wall(s);
	} else if (strcmp(arg, "heavyonlight") == 0) {
		s->kind = scene::HEAVY;
		build_heavy(s, ratio);
	} else {
		return false;
	}
	if (s->tracked < 0) /* the last body: sphere, top box, heavy cube */
		s->tracked = (long)s->bodies.size() - 1;
	return true;
}

/* doc/scenes.md's inertias: solid spheres 2/5 m r^2, boxes m/3 (b^2 + c^2). */
static btVector3 inertia(const body_spec &b)
{
	const double m = b.mass, *h = b.half;

	if (b.is_sphere)
		return btVector3(btScalar(0.4 * m * h[0] * h[0]),
				 btScalar(0.4 * m * h[0] * h[0]),
				 btScalar(0.4 * m * h[0] * h[0]));
	return btVector3(btScalar(m / 3 * (h[1] * h[1] + h[2] * h[2])),
			 btScalar(m / 3 * (h[0] * h[0] + h[2] * h[2])),
			 btScalar(m / 3 * (h[0] * h[0] + h[1] * h[1])));
}

/* The scene's bodies in the world, in its order (the ground first). Shape
 * 0 is the ground's; 1 and 2 the scene's (the unit sphere, or the first and
 * second box size met). */
static std::vector<btRigidBody *> add_bodies(btDiscreteDynamicsWorld *world,
					     const scene &s)
{
	const btScalar friction = btScalar(std::sqrt(s.mu));
	btCollisionShape *shapes[3] = {nullptr, nullptr, nullptr};
	std::vector<btRigidBody *> bodies;

	for (const body_spec &b : s.bodies) {
		btCollisionShape *&shape = shapes[b.shape];
		btTransform at;

		if (!shape) {
			if (b.is_sphere)
				shape = new btSphereShape(btScalar(b.half[0]));
			else
				shape = new btBoxShape(btVector3(
					btScalar(b.half[0]), btScalar(b.half[1]),
					btScalar(b.half[2])));
		}
		at.setIdentity();
		at.setOrigin(btVector3(btScalar(b.pos[0]), btScalar(b.pos[1]),
				       btScalar(b.pos[2])));
		btRigidBody::btRigidBodyConstructionInfo ci(
			btScalar(b.mass), nullptr, shape,
			b.mass > 0 ? inertia(b) : btVector3(0, 0, 0));
		ci.m_startWorldTransform = at;
		ci.m_friction = friction; /* Bullet's pair friction: the product */
		ci.m_rollingFriction = 0;
		ci.m_spinningFriction = 0;
		ci.m_restitution = 0;
		ci.m_linearDamping = 0;
		ci.m_angularDamping = 0;
		ci.m_additionalDamping = false;
		btRigidBody *body = new btRigidBody(ci);
		if (b.mass > 0) {
			body->setActivationState(DISABLE_DEACTIVATION);
			body->setLinearVelocity(btVector3(btScalar(b.vel[0]),
							  btScalar(b.vel[1]),
							  btScalar(b.vel[2])));
		}
		world->addRigidBody(body);
		bodies.push_back(body);
	}
	return bodies;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bullet_world SCENE [--steps S] [--iterations I] [--warmup W]\n"
		"                    [--csv FILE] [--mu MU] [--ratio R] [--friction-dirs 1|2]\n"
		"SCENE is ballgrid-N, ballpile-N, boxstack-K, wall or heavyonlight,\n"
		"as doc/scenes.md specifies (default steps: 200 for the ball\n"
		"scenes, 600 for the others). I: solver iterations (default 10,\n"
		"Bullet's). MU (default 0.5) is every pair's; R (default 100) the\n"
		"heavy cube's mass. --friction-dirs 2 sets Bullet's\n"
		"SOLVER_USE_2_FRICTION_DIRECTIONS (default: one direction).\n"
		"Prints one summary line, its means over steps W+1..S (default W 0);\n"
		"--csv writes one line per step.\n");
}

static bool parse_double(const char *s, double lo, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno == 0 && end != s && *end == '\0' && std::isfinite(*out) &&
	       *out >= lo;
}

static bool parse_long(const char *s, long lo, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && *out >= lo;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"steps", required_argument, nullptr, 's'},
		{"iterations", required_argument, nullptr, 'i'},
		{"warmup", required_argument, nullptr, 'w'},
		{"csv", required_argument, nullptr, 'c'},
		{"mu", required_argument, nullptr, 'm'},
		{"ratio", required_argument, nullptr, 'r'},
		{"friction-dirs", required_argument, nullptr, 'f'},
		{"help", no_argument, nullptr, 'h'},
		{nullptr, 0, nullptr, 0}};
	long steps = -1, iterations = 10, warmup = 0, dirs = 1;
	double mu = 0.5, ratio = 100.0;
	const char *csv_path = nullptr;
	FILE *csv = nullptr;
	scene s;
	int opt, which = 0;

	while ((opt = getopt_long(argc, argv, "h", longopts, &which)) != -1) {
		bool ok = true;

		switch (opt) {
		case 's': ok = parse_long(optarg, 1, &steps); break;
		case 'i': ok = parse_long(optarg, 1, &iterations) && iterations <= 1000000; break;
		case 'w': ok = parse_long(optarg, 0, &warmup); break;
		case 'c': csv_path = optarg; break;
		case 'm': ok = parse_double(optarg, 0, &mu); break;
		case 'r': ok = parse_double(optarg, 1e-300, &ratio); break;
		case 'f': ok = parse_long(optarg, 1, &dirs) && dirs <= 2; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
		if (!ok) {
			fprintf(stderr, "bullet_world: bad value '%s' for --%s\n",
				optarg, longopts[which].name);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!build_scene(argv[optind], mu, ratio, &s)) {
		fprintf(stderr,
			"bullet_world: unknown scene '%s' (ballgrid-N, ballpile-N, boxstack-K, wall, heavyonlight)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (steps >= 0)
		s.steps = steps;
	if (warmup >= s.steps) {
		fprintf(stderr,
			"bullet_world: --warmup %ld leaves none of the %ld steps to measure\n",
			warmup, s.steps);
		return EXIT_USAGE;
	}
	if (csv_path && !(csv = fopen(csv_path, "w"))) {
		fprintf(stderr, "bullet_world: %s: %s\n", csv_path,
			strerror(errno));
		return EXIT_FAIL;
	}

	/* Never torn down: Bullet's world destructor, like removeRigidBody,
	 * cleans every body's pairs by a scan of all pairs, O(bodies x
	 * pairs); the process's exit frees it all. */
	step_stats st = {};
	auto *config = new btDefaultCollisionConfiguration;
	auto *dispatcher = new btCollisionDispatcher(config);
	auto *broadphase = new btDbvtBroadphase;
	auto *solver = new timed_solver;
	auto *world = new timed_world(dispatcher, broadphase, solver, config);
	btContactSolverInfo &info = world->getSolverInfo();

	solver->stats = &st;
	world->stats = &st;
	world->setGravity(btVector3(0, 0, btScalar(-9.81)));
	info.m_numIterations = (int)iterations;
	if (dirs == 2)
		info.m_solverMode |= SOLVER_USE_2_FRICTION_DIRECTIONS;

	const std::vector<btRigidBody *> bodies = add_bodies(world, s);

	if (csv)
		fprintf(csv,
			"step,contacts,solver_contacts,rows,sweeps,collide_ms,build_ms,solve_ms,finish_ms,total_ms,tracked_x,tracked_y,tracked_z\n");
	double sum_collide = 0, sum_build = 0, sum_solve = 0, sum_finish = 0;
	double sum_total = 0, sum_contact_sweeps = 0;
	double sum_contacts = 0, sum_solved = 0, sum_rows = 0, sum_sweeps = 0;
	long first_contacts = -1;
	double cpu0 = warmup ? 0.0 : cpu_now();
	const btRigidBody *tracked = bodies[(size_t)s.tracked];
	const double *p0 = s.bodies[(size_t)s.tracked].pos;
	/* issue 23: the tracked body's distance from its start, and the
	 * largest over the run */
	auto drift_of = [p0](const btVector3 &p) {
		return std::sqrt(((double)p.x() - p0[0]) * ((double)p.x() - p0[0]) +
				 ((double)p.y() - p0[1]) * ((double)p.y() - p0[1]) +
				 ((double)p.z() - p0[2]) * ((double)p.z() - p0[2]));
	};
	double drift_max = 0;

	for (long step = 1; step <= s.steps; step++) {
		double t0;
		int substeps;

		st = step_stats{};
		t0 = now();
		substeps = world->stepSimulation(btScalar(s.dt), 0);
		st.total = now() - t0;
		if (substeps != 1 || st.substeps != 1) {
			fprintf(stderr,
				"bullet_world: step %ld ran %d substeps (%ld collision passes), not 1\n",
				step, substeps, st.substeps);
			return EXIT_FAIL;
		}
		if (step == 1)
			first_contacts = st.contacts;
		drift_max = std::fmax(drift_max,
				      drift_of(tracked->getCenterOfMassPosition()));
		if (csv) {
			const btVector3 &p = tracked->getCenterOfMassPosition();

			fprintf(csv,
				"%ld,%ld,%ld,%ld,%ld,%.6f,%.6f,%.6f,%.6f,%.6f,%.9g,%.9g,%.9g\n",
				step, st.contacts, st.solved, st.rows,
				st.sweeps, 1e3 * st.collide, 1e3 * st.build,
				1e3 * st.solve, 1e3 * st.finish, 1e3 * st.total,
				(double)p.x(), (double)p.y(), (double)p.z());
		}
		if (step == warmup)
			cpu0 = cpu_now();
		if (step <= warmup)
			continue;
		sum_collide += st.collide;
		sum_build += st.build;
		sum_solve += st.solve;
		sum_finish += st.finish;
		sum_total += st.total;
		sum_contacts += (double)st.contacts;
		sum_solved += (double)st.solved;
		sum_rows += (double)st.rows;
		sum_sweeps += (double)st.sweeps;
		sum_contact_sweeps += st.contact_sweeps;
	}
	if (csv && fclose(csv) != 0) {
		fprintf(stderr, "bullet_world: %s: write failed\n", csv_path);
		return EXIT_FAIL;
	}

	/* the largest drop of a body below its starting height */
	double max_drop = 0;
	for (size_t i = 1; i < bodies.size(); i++)
		max_drop = std::fmax(
			max_drop,
			s.bodies[i].pos[2] -
				(double)bodies[i]->getCenterOfMassPosition().z());

	const double per = 1.0 / (double)(s.steps - warmup);
	const btVector3 &p = tracked->getCenterOfMassPosition();

	printf("bullet scene=%s bodies=%zu steps=%ld warmup=%ld iterations=%ld dt=%.9g mu=%.9g"
	       " friction_dirs=%ld precision=%s contacts_first=%ld contacts_mean=%.1f"
	       " solver_contacts_mean=%.1f rows_mean=%.1f sweeps_mean=%.2f"
	       " collide_ms_per_step=%.4f build_ms_per_step=%.4f"
	       " solve_ms_per_step=%.4f finish_ms_per_step=%.4f"
	       " other_ms_per_step=%.4f total_ms_per_step=%.4f"
	       " build_ns_per_contact=%.1f solve_ns_per_contact_iteration=%.2f"
	       " tracked=%ld tracked_final=%.6f,%.6f,%.6f max_drop=%.6f",
	       s.name, bodies.size(), s.steps, warmup, iterations, s.dt, s.mu, dirs,
	       sizeof(btScalar) == sizeof(double) ? "double" : "single",
	       first_contacts, per * sum_contacts, per * sum_solved,
	       per * sum_rows, per * sum_sweeps, 1e3 * per * sum_collide,
	       1e3 * per * sum_build, 1e3 * per * sum_solve,
	       1e3 * per * sum_finish,
	       1e3 * per *
		       (sum_total - sum_collide - sum_build - sum_solve -
			sum_finish),
	       1e3 * per * sum_total,
	       sum_solved > 0 ? 1e9 * sum_build / sum_solved : 0.0,
	       sum_contact_sweeps > 0 ? 1e9 * sum_solve / sum_contact_sweeps
				      : 0.0,
	       s.tracked, (double)p.x(), (double)p.y(), (double)p.z(),
	       max_drop);
	{
		/* stands = within 1 cm at every step */
		printf(" cpu_ms_per_step=%.4f", 1e3 * per * (cpu_now() - cpu0));
		printf(" top_drift=%.6f top_drift_max=%.6f stands=%s",
		       drift_of(p), drift_max, drift_max <= 0.01 ? "yes" : "no");
	}
	if (s.kind == scene::BOXSTACK) {
		/* doc/scenes.md: collapsed = some box dropped by more than 0.15
		 * m, leaning = top box > 0.35 m from the bottom box
		 * horizontally */
		const btVector3 &bottom = bodies[1]->getCenterOfMassPosition();
		const double shift = std::hypot((double)(p.x() - bottom.x()),
						(double)(p.y() - bottom.y()));

		printf(" top_shift=%.6f collapsed=%s leaning=%s", shift,
		       max_drop > 0.15 ? "yes" : "no",
		       shift > 0.35 ? "yes" : "no");
	}
	printf("\n");
	return EXIT_OK;
}
