/* Solfec-1.0's own convex intersection (cvi.c) on BM24's first touch: a one-element block
 * (0.06 x 0.06 x 0.17 m) tilted by TILT about its edge x = y = 0, lifted by LIFT, against a
 * table element (top y = 0) on SIDE -1 (x in [-0.06, 0]) or +1 (x in [0, 0.06]) of the edge,
 * GEOMETRIC_EPSILON 1e-8.  Prints the polytope's normal (block to table) as goc.c's
 * point_normal_spair_area_gap forms it (A^2-weighted normals of the surface planes: the
 * block's six, the table element's five outer faces; its face x = 0 is inner) and its area
 * (half the surface).  Used by docs/fem.md (BM24) and tests/test_contact_edge_on_face.py.
 *
 *   S=path/to/solfec-1.0-src
 *   gcc -O1 -w -I$S -DGEOMDEBUG=1 -DDEBUG=1 tools/bm24_cvi_edge.c $S/cvi.c $S/hul.c $S/gjk.c \
 *       $S/alg.c $S/mem.c $S/err.c $S/set.c $S/tri.c $S/map.c $S/kdt.c $S/tsi.c $S/spx.c \
 *       $S/hyb.c $S/ext/predicates.c -lm -o cvi_edge
 *   ./cvi_edge 0.009948 0 -1
 *
 * (DEBUG: hul.c builds the triangle adjacency inside ASSERT_DEBUG, which is empty without it.) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "cvi.h"
#include "alg.h"

void exactinit (void);

static void brick (double x0, double y0, double z0, double x1, double y1, double z1, double *v)
{
  double c [8][3] = {{x0,y0,z0},{x1,y0,z0},{x1,y1,z0},{x0,y1,z0},{x0,y0,z1},{x1,y0,z1},{x1,y1,z1},{x0,y1,z1}};
  for (int i = 0; i < 8; i ++) for (int j = 0; j < 3; j ++) v [3*i+j] = c [i][j];
}

/* a plane as Solfec stores it: outward normal, then a point on it */
static void plane (double *p, double nx, double ny, double nz, const double *x)
{
  p [0] = nx; p [1] = ny; p [2] = nz; p [3] = x [0]; p [4] = x [1]; p [5] = x [2];
}

int main (int argc, char **argv)
{
  if (argc < 4) { fprintf (stderr, "usage: %s TILT LIFT SIDE\n", argv [0]); return 1; }
  exactinit ();
  GEOMETRIC_EPSILON = 1e-8;
  double tilt = atof (argv [1]), lift = atof (argv [2]);
  int side = atoi (argv [3]);
  double va [24], pa [36], vb [24], pb [36], c = cos (tilt), s = sin (tilt);

  brick (0, 0, 0, 0.06, 0.06, 0.17, va);
  for (int i = 0; i < 8; i ++)
  {
    double x = va [3*i], y = va [3*i+1];
    va [3*i] = c*x - s*y;
    va [3*i+1] = s*x + c*y + lift;
  }
  /* block: base (through vertex 0), side x = 0, top (vertex 6), far side (vertex 1), ends */
  plane (pa, s, -c, 0, va);
  plane (pa+6, -c, -s, 0, va);
  plane (pa+12, -s, c, 0, va+18);
  plane (pa+18, c, s, 0, va+3);
  plane (pa+24, 0, 0, -1, va);
  plane (pa+30, 0, 0, 1, va+12);

  double x0 = side < 0 ? -0.06 : 0.0, x1 = side < 0 ? 0.0 : 0.06;
  double lo [3] = {x0, -0.06, -0.05}, hi [3] = {x1, 0.0, 0.22};
  brick (x0, -0.06, -0.05, x1, 0.0, 0.22, vb);
  plane (pb, 0, 1, 0, hi);                 /* table top */
  plane (pb+6, 0, -1, 0, lo);
  plane (pb+12, 0, 0, -1, lo);
  plane (pb+18, 0, 0, 1, hi);
  if (side < 0) { plane (pb+24, -1, 0, 0, lo); plane (pb+30, 1, 0, 0, hi); }  /* last: the inner face x = 0 */
  else { plane (pb+24, 1, 0, 0, hi); plane (pb+30, -1, 0, 0, lo); }
  int nsa = 6, nsb = 5, m, nv;
  double *pv, n [3] = {0, 0, 0}, area = 0.0;

  TRI *tri = cvi (va, 8, pa, 6, vb, 8, pb, 6, NON_REGULARIZED, &m, &pv, &nv);
  if (!tri) { printf ("no intersection\n"); return 0; }
  for (TRI *t = tri; t < tri + m; t ++)
  {
    double a;
    TRIANGLE_AREA (t->ver[0], t->ver[1], t->ver[2], a);
    if (t->flg > 0 && t->flg <= nsa) { ADDMUL (n, a*a, t->out, n); }
    if (t->flg < 0 && -t->flg <= nsb) { SUBMUL (n, a*a, t->out, n); }
    area += a;
  }
  NORMALIZE (n);
  printf ("tilt %g lift %g side %+d: %d triangles, %d vertices, normal %.6f %.6f %.6f, area %.6e\n",
          tilt, lift, side, m, nv, n [0], n [1], n [2], 0.5 * area);
  free (tri);
  return 0;
}
