/*
   The bricks ordering of MATMODSELL (MATMODSELL_ORDERING_BRICKS, and MATMODSELL_ORDERING_AUTO on a DMDA matrix under a
   slice-based preconditioner): the rows of a process's box of grid points in an order whose consecutive runs of a slice
   height are compact pieces of the grid, whatever the box's size. Plain C, so that the host (imageordering.c) and the
   GPU (MSCUDABricksPerm(), cuda/modsellkernels.cu) compute the same permutation with the same function.

   The box (n[0] x n[1] x n[2] points, dof rows per point, DMDA's local row ((z ny + y) nx + x) dof + component) is cut
   into columns along its longest axis a: the two other axes b, c (b the faster in DMDA's order) are split into p[b] and
   p[c] nearly equal parts (widths differing by at most one, the wider first), so that every column's cross-section is
   about that of a brick of one slice (MSBricksSetUp(), src/mat/impls/modsell/imageordering.c). The rows are numbered column by column, the columns in
   boustrophedon order (the rows of columns along b, alternately forwards and backwards, one row of columns per part
   of c), each column layer by layer along a, upwards in even columns and downwards in odd ones, a layer's points
   lexicographically (b fastest, in the direction of the row of columns: b descending in the backward rows) with the
   components of a point together. A run of a slice's rows is then a stack of layers of one column (connected when the
   slice holds more points than a layer), or where it passes from one column to the next, the end of one and the start
   of the other at the same side of the box: the last point of a column's last layer and the first of the next one's
   first layer lie on their common face, so that the two pieces touch. Every slice is compact, for any box (bricks of a
   fixed size do not tile a box whose sides are not multiples of theirs, and slices running across partial bricks are
   scattered).
*/
#pragma once

#if defined(__CUDACC__)
  #define MS_BRICKS_HD static __host__ __device__ __forceinline__
#else
  #define MS_BRICKS_HD static inline
#endif

typedef struct {
  int n[3]; /* points along x, y, z */
  int dof;  /* rows per point */
  int a;    /* the axis of the columns */
  int p[3]; /* parts of each axis (p[a] = 1) */
} MSBricks;

/* the part holding coordinate x of an axis of n points split into p nearly equal parts (the n % p wider ones first),
   its first coordinate and its width */
MS_BRICKS_HD int MSBricksPart(int x, int n, int p)
{
  const int q = n / p, rem = n % p;

  return x < rem * (q + 1) ? x / (q + 1) : rem + (x - rem * (q + 1)) / q;
}
MS_BRICKS_HD int MSBricksStart(int i, int n, int p)
{
  const int q = n / p, rem = n % p;

  return i * q + (i < rem ? i : rem);
}
MS_BRICKS_HD int MSBricksWidth(int i, int n, int p)
{
  return n / p + (i < n % p ? 1 : 0);
}

/* the local row (DMDA's numbering) of new row r */
MS_BRICKS_HD int MSBricksOld(const MSBricks *k, long long r)
{
  const int       a = k->a, b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2, d = k->dof;
  const int       na = k->n[a], nb = k->n[b], nc = k->n[c], pb = k->p[b], pc = k->p[c];
  const long long rowsc = (long long)nb * na * d; /* rows per coordinate of c */
  const int       ic = MSBricksPart((int)(r / rowsc), nc, pc), c0 = MSBricksStart(ic, nc, pc), wc = MSBricksWidth(ic, nc, pc);
  const long long r1    = r - (long long)c0 * rowsc;
  const long long rowsb = (long long)wc * na * d; /* rows per coordinate of b in this row of columns */
  const int       rev = ic & 1, xb = (int)(r1 / rowsb), bc = rev ? nb - 1 - xb : xb;
  const int       ib = MSBricksPart(bc, nb, pb), b0 = MSBricksStart(ib, nb, pb), wb = MSBricksWidth(ib, nb, pb);
  const long long r2 = r1 - (long long)(rev ? nb - b0 - wb : b0) * rowsb; /* row inside the column */
  const long long lay = (long long)wb * wc * d;
  const int       ka = (int)(r2 / lay), q = (int)(r2 - ka * lay), comp = q % d, pt = q / d;
  const int       up = ((ic * pb + (rev ? pb - 1 - ib : ib)) & 1) == 0;
  int             x[3];

  x[a] = up ? ka : na - 1 - ka;
  x[b] = rev ? b0 + wb - 1 - pt % wb : b0 + pt % wb;
  x[c] = c0 + pt / wb;
  return (int)((((long long)x[2] * k->n[1] + x[1]) * k->n[0] + x[0]) * d + comp);
}
