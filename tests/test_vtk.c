/* VTK output (io/vtk.h) of the bodies' surfaces (sim/mesh.h): the meshes
 * are closed, outward and on the shapes' surfaces; a frame of a scene and a
 * .pvd are well-formed XML with consistent counts (checked by python3's XML
 * parser, or xmllint); files that cannot be written give one error line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/vtk.h"
#include "../sim/mesh.h"
#include "../sim/scene.h"
#include "../sim/vec.h"
#include "helpers.h"

static void mesh(const struct px_body *b, double *p, uint32_t *t, size_t *np,
		 size_t *nt)
{
	px_body_mesh(b, p, t, np, nt);
	cr_assert_leq(*np, PX_MESH_MAX_POINTS);
	cr_assert_leq(*nt, PX_MESH_MAX_TRIS);
	for (size_t i = 0; i < 3 * *nt; i++)
		cr_assert_lt(t[i], *np);
}

/* Closed and consistently oriented: every directed edge once, and its
 * reverse once. Returns the enclosed (signed) volume. */
static double closed_volume(const double *p, const uint32_t *t, size_t nt)
{
	double vol = 0.0;

	for (size_t i = 0; i < nt; i++) {
		const uint32_t *a = t + 3 * i;
		double c[3];

		for (int e = 0; e < 3; e++) {
			const uint32_t u = a[e], v = a[(e + 1) % 3];
			int same = 0, reverse = 0;

			for (size_t j = 0; j < nt; j++)
				for (int f = 0; f < 3; f++) {
					const uint32_t x = t[3 * j + f];
					const uint32_t y = t[3 * j + (f + 1) % 3];

					same += x == u && y == v;
					reverse += x == v && y == u;
				}
			cr_assert(same == 1 && reverse == 1,
				  "edge %u-%u: %d times, reverse %d", u, v, same,
				  reverse);
		}
		v3_cross(p + 3 * a[1], p + 3 * a[2], c);
		vol += v3_dot(p + 3 * a[0], c) / 6.0;
	}
	return vol;
}

/* Bodies away from the origin and turned, so that a wrong transform
 * shows. */
static struct px_body body(enum px_shape_kind k)
{
	struct px_body b = {.shape = {.kind = k,
				       .radius = 0.7,
				       .half = {0.5, 1.0, 1.5},
				       .half_length = 1.2,
				       .normal = {0.6, 0.0, 0.8}},
			     .x = {3.0, -2.0, 5.0},
			     .q = {0.5, 0.5, 0.5, 0.5}};

	return b;
}

/* distance from p to the segment of a capsule b (its body z axis) */
static double to_axis(const struct px_body *b, const double *p)
{
	double r[9], d[3], l[3], s;

	quat_to_matrix(b->q, r);
	v3_sub(p, b->x, d);
	mat_tmul(r, d, l);
	s = fmax(-b->shape.half_length, fmin(b->shape.half_length, l[2]));
	l[2] -= s;
	return v3_norm(l);
}

Test(vtk, meshes_are_closed_outward_and_on_the_surface)
{
	double p[3 * PX_MESH_MAX_POINTS];
	uint32_t t[3 * PX_MESH_MAX_TRIS];
	size_t np, nt;
	struct px_body b = body(PX_BOX);
	double vol;

	mesh(&b, p, t, &np, &nt);
	cr_assert(np == 8 && nt == 12);
	/* volume about the origin is translation invariant when closed */
	cr_assert_float_eq(closed_volume(p, t, nt), 6.0, 1e-12);
	b = body(PX_SPHERE);
	mesh(&b, p, t, &np, &nt);
	cr_assert(np == 26 && nt == 48);
	vol = closed_volume(p, t, nt);
	cr_assert(vol > 0.5 * px_shape_volume(&b.shape) &&
		  vol < px_shape_volume(&b.shape));
	for (size_t i = 0; i < np; i++) {
		double d[3];

		v3_sub(p + 3 * i, b.x, d);
		cr_assert_float_eq(v3_norm(d), 0.7, 1e-12);
	}
	b = body(PX_CAPSULE);
	mesh(&b, p, t, &np, &nt);
	cr_assert(np == 34 && nt == 64);
	vol = closed_volume(p, t, nt);
	cr_assert(vol > 0.6 * px_shape_volume(&b.shape) &&
		  vol < px_shape_volume(&b.shape));
	for (size_t i = 0; i < np; i++)
		cr_assert_float_eq(to_axis(&b, p + 3 * i), 0.7, 1e-12);
	b = body(PX_PLANE);
	mesh(&b, p, t, &np, &nt);
	cr_assert(np == 4 && nt == 2);
	for (size_t i = 0; i < nt; i++) {
		double e1[3], e2[3], n[3];

		v3_sub(p + 3 * t[3 * i + 1], p + 3 * t[3 * i], e1);
		v3_sub(p + 3 * t[3 * i + 2], p + 3 * t[3 * i], e2);
		v3_cross(e1, e2, n);
		cr_assert_float_eq(v3_dot(n, b.shape.normal), v3_norm(n), 1e-9);
		cr_assert_float_eq(v3_norm(n), 20.0 * 20.0, 1e-9); /* 2 x area */
	}
	for (size_t i = 0; i < np; i++) {
		double d[3];

		v3_sub(p + 3 * i, b.x, d);
		cr_assert_float_eq(v3_dot(d, b.shape.normal), 0.0, 1e-12);
	}
}

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof dir, "/tmp/px_test_vtk_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

/* Run `python3 -c script file` (or, without python3, only xmllint's
 * well-formedness check) and return its first output line in out; 0 if
 * neither is installed: the test then skips, visibly (python3 is in the
 * package's Build-Depends; xmllint is libxml2-utils). */
#define NO_XML_CHECKER                                                        \
	"neither python3 nor xmllint (libxml2-utils) is installed: the XML " \
	"is not parsed"
static int check_xml(const char *script, const char *file, char *out,
		     size_t len)
{
	char cmd[4096];
	FILE *f;

	if (system("command -v python3 >/dev/null 2>&1") == 0)
		snprintf(cmd, sizeof cmd, "python3 -c '%s' '%s'", script, file);
	else if (system("command -v xmllint >/dev/null 2>&1") == 0)
		snprintf(cmd, sizeof cmd,
			 "xmllint --noout '%s' && echo well-formed", file);
	else
		return 0;
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	out[0] = '\0';
	if (!fgets(out, (int)len, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	cr_assert_eq(pclose(f), 0, "%s failed: %s", cmd, out);
	return 1;
}

/* Counts of the frame, checked against each other: points, triangles,
 * the triangles of each body in order. */
static const char frame_check[] =
	"import sys, xml.dom.minidom as m\n"
	"d = m.parse(sys.argv[1])\n"
	"assert d.documentElement.getAttribute(\"type\") == \"PolyData\"\n"
	"pc = d.getElementsByTagName(\"Piece\")\n"
	"assert len(pc) == 1\n"
	"np = int(pc[0].getAttribute(\"NumberOfPoints\"))\n"
	"nt = int(pc[0].getAttribute(\"NumberOfPolys\"))\n"
	"a = {x.getAttribute(\"Name\"): x.firstChild.data.split()\n"
	"     for x in d.getElementsByTagName(\"DataArray\")}\n"
	"assert len(a[\"Points\"]) == 3 * np\n"
	"assert len(a[\"body\"]) == nt and len(a[\"speed\"]) == nt\n"
	"c = [int(v) for v in a[\"connectivity\"]]\n"
	"assert len(c) == 3 * nt and 0 <= min(c) and max(c) < np\n"
	"assert [int(v) for v in a[\"offsets\"]] == list(range(3, 3 * nt + 1, 3))\n"
	"b = [int(v) for v in a[\"body\"]]\n"
	"assert b == sorted(b)\n"
	"print(np, nt, *[b.count(i) for i in range(max(b) + 1)])\n";

Test(vtk, frame_of_a_scene)
{
	char scene[64], file[128], out[256], want[256];
	struct px_world_settings s;
	struct px_body *b;
	struct px_error err = {0};
	size_t n;

	write_temp_ini("[body floor]\nshape = plane\nnormal = 0, 0, 1\n"
		       "[body crate]\nshape = box\nhalf = 1, 2, 3\n"
		       "position = 0, 0, 3\nrotation = 0, 0, 1, 30\nmass = 1\n"
		       "velocity = 3, 4, 0\n"
		       "[grid balls]\nshape = sphere\nradius = 0.5\n"
		       "count = 2, 1, 1\nspacing = 1, 1, 1\norigin = 5, 0, 0.5\n"
		       "mass = 1\n"
		       "[body pill]\nshape = capsule\nradius = 0.2\n"
		       "half_length = 0.5\nposition = -3, 0, 0.2\n"
		       "rotation = 0, 1, 0, 90\nmass = 1\n",
		       scene, sizeof scene);
	cr_assert_eq(px_scene_read(scene, &s, &b, &n, &err), PX_OK, "%s",
		     err.msg);
	unlink(scene);
	cr_assert_eq(n, 5);
	make_dir();
	snprintf(file, sizeof file, "%s/frame_0001.vtp", dir);
	cr_assert_eq(px_vtk_write_frame(file, n, px_body_vtk_part, b, &err),
		     PX_OK, "%s", err.msg);
	free(b);
	{
		/* the counts where the file states them, and the speed */
		FILE *f = fopen(file, "r");
		char text[1 << 16];
		size_t len = fread(text, 1, sizeof text - 1, f);

		fclose(f);
		text[len] = '\0';
		cr_assert_not_null(strstr(text, "<Piece NumberOfPoints=\"98\" "));
		cr_assert_not_null(strstr(text, "NumberOfPolys=\"174\">"));
		cr_assert_not_null(strstr(text, "\n5\n5\n5\n"));
	}
	snprintf(want, sizeof want, "98 174 2 12 48 48 64");
	if (!check_xml(frame_check, file, out, sizeof out)) {
		unlink(file);
		rmdir(dir);
		cr_skip_test(NO_XML_CHECKER);
	}
	cr_assert(!strcmp(out, want) || !strcmp(out, "well-formed"), "%s",
		  out);
	unlink(file);
	rmdir(dir);
}

static const char pvd_check[] =
	"import sys, xml.dom.minidom as m\n"
	"d = m.parse(sys.argv[1])\n"
	"assert d.documentElement.getAttribute(\"type\") == \"Collection\"\n"
	"s = d.getElementsByTagName(\"DataSet\")\n"
	"print(\"|\".join(x.getAttribute(\"timestep\") + \" \" +\n"
	"               x.getAttribute(\"file\") for x in s))\n";

Test(vtk, collection)
{
	const char *files[3] = {"frame_0.vtp", "a&b<1>.vtp", "sub/q\"x\".vtp"};
	const double times[3] = {0.0, 0.01, 1.0 / 3.0};
	struct px_error err = {0};
	char file[128], out[512];

	make_dir();
	snprintf(file, sizeof file, "%s/run.pvd", dir);
	cr_assert_eq(px_vtk_write_pvd(file, files, times, 3, &err), PX_OK,
		     "%s", err.msg);
	if (!check_xml(pvd_check, file, out, sizeof out)) {
		unlink(file);
		rmdir(dir);
		cr_skip_test(NO_XML_CHECKER);
	}
	cr_assert(!strcmp(out, "0 frame_0.vtp|0.01 a&b<1>.vtp|"
			       "0.33333333333333331 sub/q\"x\".vtp") ||
			  !strcmp(out, "well-formed"),
		  "%s", out);
	unlink(file);
	rmdir(dir);
}

Test(vtk, unwritable_files)
{
	struct px_body b = body(PX_BOX);
	struct px_error err = {0};
	const char *f = "frame.vtp";
	const double t = 0.0;

	cr_assert_eq(px_vtk_write_frame("/nonexistent/f.vtp", 1,
					px_body_vtk_part, &b, &err),
		     PX_ERR_IO);
	cr_assert_str_eq(err.msg,
			 "/nonexistent/f.vtp: cannot write: No such file or directory");
	cr_assert_eq(px_vtk_write_pvd("/nonexistent/r.pvd", &f, &t, 1, &err),
		     PX_ERR_IO);
	cr_assert_str_eq(err.msg,
			 "/nonexistent/r.pvd: cannot write: No such file or directory");
	if (access("/dev/full", W_OK) == 0) {
		cr_assert_eq(px_vtk_write_frame("/dev/full", 1,
						px_body_vtk_part, &b, &err),
			     PX_ERR_IO);
		cr_assert_str_eq(err.msg,
				 "/dev/full: cannot write: No space left on device");
	}
}

/* A frame's contacts: the vertices, in order, with each contact's values
 * on one line (repr: the 17 digits written read back exactly). */
static const char contacts_check[] =
	"import sys, xml.dom.minidom as m\n"
	"d = m.parse(sys.argv[1])\n"
	"assert d.documentElement.getAttribute(\"type\") == \"PolyData\"\n"
	"pc = d.getElementsByTagName(\"Piece\")\n"
	"assert len(pc) == 1\n"
	"n = int(pc[0].getAttribute(\"NumberOfPoints\"))\n"
	"assert int(pc[0].getAttribute(\"NumberOfVerts\")) == n\n"
	"a = {x.getAttribute(\"Name\"): [float(v) for v in x.firstChild.data.split()]\n"
	"     for x in d.getElementsByTagName(\"DataArray\")}\n"
	"assert a[\"connectivity\"] == list(range(n))\n"
	"assert a[\"offsets\"] == list(range(1, n + 1))\n"
	"k = [(\"Points\", 3), (\"normal\", 3), (\"normal_impulse\", 1),\n"
	"     (\"friction\", 3), (\"impulse\", 3), (\"body\", 1), (\"other\", 1)]\n"
	"for name, c in k:\n"
	"    assert len(a[name]) == c * n, name\n"
	"print(n, *[repr(a[name][c * i + j]) for i in range(n)\n"
	"           for name, c in k for j in range(c)])\n";

/* A box sliding on the floor under a box resting on it. */
static const char *const sliding_ini =
	"[world]\ndt = 0.01\nsteps = 10\nmu = 0.5\n"
	"[body floor]\nshape = plane\nnormal = 0, 0, 1\n"
	"[body slider]\nshape = box\nhalf = 0.5, 0.5, 0.5\n"
	"position = 0, 0, 0.5\nmass = 1\nvelocity = 1, 0, 0\n"
	"[body rider]\nshape = box\nhalf = 0.4, 0.4, 0.4\n"
	"position = 0.1, 0, 1.4\nmass = 1\nvelocity = 1, 0, 0\n";

Test(vtk, contacts_are_the_worlds_with_their_impulses)
{
	static char out[1 << 16];
	char scene[64], file[128];
	struct px_config *cfg = config_from_text("");
	struct px_error err = {0};
	struct px_world *w = NULL;
	struct px_step_stats st;
	struct px_vtk_contact *vc = NULL;
	const struct px_contact *c;
	const struct px_body *b;
	const double *l;
	double friction_x = 0.0;
	uint32_t bs;
	size_t n, nv, got;
	char *s, *end;

	write_temp_ini(sliding_ini, scene, sizeof scene);
	cr_assert_eq(px_scene_load(scene, &w, &err), PX_OK, "%s", err.msg);
	unlink(scene);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(px_world_step(w, cfg, &st, &err), PX_OK, "%s",
			     err.msg);
	n = px_world_contacts(w, &c, &l, &bs);
	b = px_world_bodies(w);
	cr_assert_geq(n, 8, "%zu contacts", n);
	cr_assert_eq(bs, 3);
	cr_assert_eq(px_world_vtk_contacts(w, &vc, &nv, &err), PX_OK, "%s",
		     err.msg);
	cr_assert_eq(nv, n);
	make_dir();
	snprintf(file, sizeof file, "%s/contacts_000003.vtp", dir);
	cr_assert_eq(px_vtk_write_contacts(file, nv, vc, &err), PX_OK, "%s",
		     err.msg);
	free(vc);
	if (!check_xml(contacts_check, file, out, sizeof out)) {
		unlink(file);
		rmdir(dir);
		cr_skip_test(NO_XML_CHECKER);
	}
	unlink(file);
	rmdir(dir);
	if (!strcmp(out, "well-formed"))
		cr_skip_test("xmllint only: the values are not read back");
	got = strtoul(out, &s, 10);
	cr_assert_eq(got, n, "%s", out);
	for (size_t k = 0; k < n; k++) {
		double v[15], fn, fs;
		const double *lk = l + 3 * k;
		uint32_t body, other;

		for (int j = 0; j < 15; j++) {
			v[j] = strtod(s, &end);
			cr_assert(end != s, "contact %zu: %s", k, s);
			s = end;
		}
		body = (uint32_t)v[13];
		other = (uint32_t)v[14];
		/* the point and the normal impulse are the world's */
		for (int i = 0; i < 3; i++)
			cr_assert_eq(v[i], c[k].p[i], "contact %zu", k);
		cr_assert_eq(v[6], lk[0], "contact %zu", k);
		/* the pair is the contact's; the normal is the collision's,
		 * turned to point into the body it pushes (towards its
		 * centre from the contact point) */
		cr_assert((body == c[k].a && other == c[k].b) ||
			  (body == c[k].b && other == c[k].a));
		cr_assert(!b[body].is_static);
		{
			const double sign = body == c[k].b ? 1.0 : -1.0;
			double to_centre[3];

			for (int i = 0; i < 3; i++)
				cr_assert_eq(v[3 + i], sign * c[k].n[i]);
			v3_sub(b[body].x, c[k].p, to_centre);
			cr_assert_gt(v3_dot(v + 3, to_centre), 0.0);
		}
		/* friction: tangential, as long as the world's tangential
		 * impulse; the impulse is their sum */
		fn = v3_dot(v + 7, v + 3);
		fs = sqrt(v3_dot(v + 7, v + 7));
		cr_assert_leq(fabs(fn), 1e-15 * (fs + 1e-300));
		cr_assert_float_eq(fs, hypot(lk[1], lk[2]),
				   1e-14 * (fs + 1e-300), "contact %zu", k);
		for (int i = 0; i < 3; i++)
			cr_assert_float_eq(v[10 + i], v[6] * v[3 + i] + v[7 + i],
					   1e-15 * (fabs(v[6]) + fs + 1e-300));
		cr_assert_geq(v[6], 0.0);
		if (body == 1)
			friction_x += v[7];
		else if (other == 1)
			friction_x -= v[7];
	}
	/* the slider moves along +x: friction holds it back */
	cr_assert_lt(friction_x, 0.0);
	px_world_destroy(w);
	px_config_free(cfg);
}
