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
			 "/nonexistent/f.vtp: cannot open for writing: No such file or directory");
	cr_assert_eq(px_vtk_write_pvd("/nonexistent/r.pvd", &f, &t, 1, &err),
		     PX_ERR_IO);
	cr_assert_str_eq(err.msg,
			 "/nonexistent/r.pvd: cannot open for writing: No such file or directory");
	if (access("/dev/full", W_OK) == 0) {
		cr_assert_eq(px_vtk_write_frame("/dev/full", 1,
						px_body_vtk_part, &b, &err),
			     PX_ERR_IO);
		cr_assert_str_eq(err.msg,
				 "/dev/full: cannot write: No space left on device");
	}
}
