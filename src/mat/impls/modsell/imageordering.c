/*
   The row ordering of a mod-SELL image (see imageimpl.h): MATMODSELL_ORDERING_AUTO's choice from the pattern, the slice
   height under the partition ordering, and the permutation: RCM here, bricks and partition where they are first needed
   (imagebuild.c).
*/
#include "imageimpl.h"

/* MATMODSELL_ORDERING_BRICKS (msbricks.h): the columns of a box of nx x ny x nz points of dof rows for slices of sh
   rows. The brick: from 1 x 1 x 1 points, the smallest extent (x first) doubled while it stays within the box and
   within sh / dof points (8 x 8 x 8 for 512 rows, 8 x 4 x 4 for 128, 8 x 8 x 1 for 64 on a 2D grid); the columns run
   along the longest axis (the last of equal ones), and each other axis of n points is cut into round(n / w) nearly
   equal parts, w the brick's extent along it. On sides that are multiples of the brick a slice is the brick (whole
   layers of the columns), as with bricks of a fixed size, which this ordering replaces: those left partial bricks at
   the high ends of other sides, and the slices running across them took more CG iterations than Jacobi (PETSc's ex45,
   slices of 512, the CPU: 60 against 57 at 33^3, 103 against 96 at 57^3; with the columns 33 and 52). Cross-sections of
   the side of a cube of one slice instead of the brick's (3 x 3 points for 32 rows) cut slices in partial layers and
   took more iterations on boxes the bricks tile (ex45 8^3, slices of 32: 13 against 11; 16^3, 128 on two processes:
   22 against 19). brick: the widest parts and the layers of a slice, for PCView(). */
PetscErrorCode MSBricksSetUp(const PetscInt box[4], PetscInt sh, MSBricks *k, PetscInt brick[3])
{
  const PetscInt pts = PetscMax(1, sh / PetscMax(1, box[3]));
  PetscInt       w[3] = {1, 1, 1}, a = 2, b, c;

  PetscFunctionBegin;
  /* the brick: from 1 x 1 x 1, the smallest extent (x first) doubled while it stays within the box and within pts */
  for (;;) {
    PetscInt best = -1;
    for (PetscInt d = 0; d < 3; d++)
      if (2 * w[d] <= box[d] && 2 * w[0] * w[1] * w[2] <= pts && (best < 0 || w[d] < w[best])) best = d;
    if (best < 0) break;
    w[best] *= 2;
  }
  for (PetscInt d = 1; d >= 0; d--)
    if (box[d] > box[a]) a = d;
  b = a == 0 ? 1 : 0;
  c = a == 2 ? 1 : 2;
  for (PetscInt d = 0; d < 3; d++) k->n[d] = (int)box[d];
  k->dof  = (int)box[3];
  k->a    = (int)a;
  k->p[a] = 1;
  k->p[b] = (int)PetscMax(1, PetscMin(box[b], (PetscInt)PetscFloorReal((PetscReal)box[b] / (PetscReal)w[b] + 0.5)));
  k->p[c] = (int)PetscMax(1, PetscMin(box[c], (PetscInt)PetscFloorReal((PetscReal)box[c] / (PetscReal)w[c] + 0.5)));
  brick[b] = (box[b] + k->p[b] - 1) / k->p[b];
  brick[c] = (box[c] + k->p[c] - 1) / k->p[c];
  brick[a] = PetscMax(1, PetscMin(box[a], (PetscInt)PetscFloorReal((PetscReal)pts / ((PetscReal)box[b] / k->p[b] * (PetscReal)box[c] / k->p[c]) + 0.5)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the bricks ordering applies to this block: check the box, choose the columns */
static PetscErrorCode MSImageBricksCheck(MSImage img)
{
  const PetscInt *box = img->req.box, nx = box[0], ny = box[1], nz = box[2], dof = box[3];

  PetscFunctionBegin;
  PetscCheck(nx > 0 && ny > 0 && nz > 0 && dof > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MATMODSELL ordering bricks needs the grid of a DMDA: create the matrix with DMCreateMatrix() on a DMDA, or use -mat_modsell_ordering natural or rcm");
  PetscCheck(nx * ny * nz * dof == img->lay.m, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATMODSELL ordering bricks: the DMDA box of this process (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " points, %" PetscInt_FMT " dof) does not have the matrix's %" PetscInt_FMT " local rows; use -mat_modsell_ordering natural or rcm", nx, ny, nz, dof, img->lay.m);
  PetscCall(MSBricksSetUp(box, img->lay.sh, &img->bk, img->lay.brick));
  img->bricks = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* perm (new -> old) of the bricks ordering on the host (MSBricksOld()), made when a host path needs it; the device path
   computes the same with MSCUDABricksPerm() */
PetscErrorCode MSImageBricksPermHost(MSImage img)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(img->lay.m, &img->perm));
  for (PetscInt r = 0; r < img->lay.m; r++) img->perm[r] = MSBricksOld(&img->bk, r);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MATMODSELL_ORDERING_AUTO for a square block of more than one slice: bricks for a DMDA block when the request takes
   them (auto_bricks: the slices serve as a preconditioner's blocks). Otherwise the statistic of the matrix's own
   order: the fraction of the off-diagonal entries that lie in their row's slice, counted in one pass over the CSR
   column indices of every slice, or, above MS_AUTO_SAMPLE slices, of one slice in k, evenly spaced (at least
   MS_AUTO_SAMPLE / 2 slices): the full pass cost a core 37 ms per 28.5 M entries (the 4.1 M-cell demo matrix), on the
   setup's critical path, for a fraction whose sampling error over a thousand slices is far below the margin of the
   choice.
   When the slices are a preconditioner's blocks (auto_bricks) and the block holds at least MS_AUTO_BLOCKS of the
   partition's blocks, that fraction is compared with what compact blocks would keep (MSImageCompactEstimate(): balls of
   the partition's block height grown breadth-first from MS_AUTO_SEEDS rows evenly spaced; it overestimates the
   partition by 0.01-0.06: FE systems of the suite and FVM meshes, 30-220 k rows, blocks of 1024): natural when the
   order keeps at least MS_AUTO_COMPACT of it, else partition. A mesh generator's or an FE library's numbering is local
   (20-50% in a slice, well above a random numbering's) but its slices are not compact, and the blocks of the
   partition took far fewer CG + PCBJSMOOTH iterations (the CPU, natural slices of 512 against partition blocks of
   1024: natural / estimate, iterations): P2 Poisson 205 k (library numbering: vertices, then edges) 0.40, 165 against
   116; anisotropic P1 205 k 0.45, 161 against 160 (192 against 90 at 1 M); P1 elasticity 55 k 0.55, 563 against 419;
   FVM on gmsh's tetrahedra 218 k in gmsh's order 0.24, 289 against 116; P1 on gmsh's nodes 31 k 0.22, 123 against 59.
   At 118 k unknowns (femsystems.py --unknowns 120000, CPU, PETSc's default tolerances): P2 Poisson 34% in a slice
   against an estimate of 83%, natural 137 iterations, partition (auto's choice) 98; anisotropic P1 40% against 88%,
   natural 129, partition (auto's choice) 136.
   Where the order is nearly as compact the partition gains less than its permuted product costs: a lexicographic
   48^3 grid 0.73, 98 against 89; FVM hexahedra 216 k numbered along the grid 0.74, 292 against 182; tetrahedra 162 k
   0.87, 230 against 183 (the product in the natural order: 0.25 ms on the 10.4 M-tetrahedra mesh against 0.61 ms
   partitioned, H100, docs/matrix.md).
   Otherwise (the image serves the product, or too few blocks): natural when that fraction is at least MS_AUTO_LOCAL
   above what a random numbering gives (about sh/m: small blocks, where a slice is a good part of the block, are not
   taken for local by chance; at most 50%): a numbered mesh, whose product reads x in order; else partition (a randomly
   numbered mesh).
   When the image serves the product alone (auto_window), a slice whose columns are few in its slice but all near it (a
   lexicographic 3D grid with n^2 > sh, a 27-point stencil, several fields per point) reads x from a window the caches
   hold: natural too when the sampled slices' columns span on average at most m / MS_AUTO_WINDOW rows (a random
   numbering spans about m). H100, 2026-11-25 (docs/results/2026-11-25-h100-wide-rows): 27-point Laplacian 160^3
   natural 0.485 ms against 0.633 ms partitioned; 3 fields on 110^3 points 1.369 against 1.634 ms. */
#define MS_AUTO_LOCAL   0.15
#define MS_AUTO_SAMPLE  2048
#define MS_AUTO_WINDOW  8
#define MS_AUTO_COMPACT (2.0 / 3.0)
#define MS_AUTO_SEEDS   16
#define MS_AUTO_BLOCKS  4

/* The fraction of the off-diagonal entries of the rows of a compact block of B rows that lie inside the block, estimated
   on MS_AUTO_SEEDS balls grown breadth-first along the rows' columns from rows evenly spaced (a ball stops early when
   its seed's component is smaller) */
static PetscErrorCode MSImageCompactEstimate(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscInt B, PetscReal *frac)
{
  PetscInt  *mark, *queue;
  PetscInt64 in = 0, all = 0;

  PetscFunctionBegin;
  B = PetscMin(B, m);
  PetscCall(PetscCalloc1(m, &mark));
  PetscCall(PetscMalloc1(B, &queue));
  for (PetscInt s = 0; s < MS_AUTO_SEEDS; s++) {
    const PetscInt seed = (PetscInt)(((2 * (PetscInt64)s + 1) * m) / (2 * MS_AUTO_SEEDS)), stamp = s + 1;
    PetscInt       head = 0, n = 0;

    if (mark[seed] == stamp) continue;
    queue[n++]  = seed;
    mark[seed] = stamp;
    while (head < n && n < B) {
      const PetscInt r = queue[head++];
      for (PetscInt e = ai[r]; e < ai[r + 1] && n < B; e++)
        if (mark[aj[e]] != stamp) {
          mark[aj[e]] = stamp;
          queue[n++]  = aj[e];
        }
    }
    for (PetscInt i = 0; i < n; i++)
      for (PetscInt e = ai[queue[i]]; e < ai[queue[i] + 1]; e++)
        if (aj[e] != queue[i]) {
          all++;
          in += mark[aj[e]] == stamp;
        }
  }
  PetscCall(PetscFree(mark));
  PetscCall(PetscFree(queue));
  *frac = all ? (PetscReal)in / (PetscReal)all : 1.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MSImageChooseOrdering(MSImage img, PetscInt m, const PetscInt *ai, const PetscInt *aj)
{
  const MSImageRequest *req = &img->req;
  const PetscInt        sh = img->lay.sh, nslices = (m + sh - 1) / sh;
  const PetscInt        block = req->partition_block ? req->partition_block : PetscMax(sh, req->partition_sh); /* the partition's */
  PetscInt              stride = nslices > MS_AUTO_SAMPLE ? nslices / (MS_AUTO_SAMPLE / 2) : 1;
  PetscInt64            loc, off, span, nspan;

  PetscFunctionBegin;
  for (;;) {
    loc = off = span = nspan = 0;
    for (PetscInt first = 0; first < m; first += stride * sh) {
      const PetscInt last = PetscMin(first + sh, m);
      PetscInt       cmin = PETSC_INT_MAX, cmax = -1;
      for (PetscInt r = first; r < last; r++) {
        for (PetscInt e = ai[r]; e < ai[r + 1]; e++) {
          const PetscInt c = aj[e];
          if (c == r) continue;
          off++;
          loc += (c >= first && c < last);
          cmin = PetscMin(cmin, c);
          cmax = PetscMax(cmax, c);
        }
      }
      if (cmax >= 0) { /* the rows the slice's columns span, its own included */
        span += PetscMax(cmax, last - 1) - PetscMin(cmin, first) + 1;
        nspan++;
      }
    }
    if (off > 0 || stride == 1) break;
    stride = 1; /* the sampled slices have no off-diagonal entry: count them all */
  }
  img->nat_local    = loc;
  img->nat_off      = off;
  img->nat_stride   = stride;
  img->nat_span     = span;
  img->nat_nspan    = nspan;
  img->nat_windowed = PETSC_FALSE;
  img->lay.auto_compact = -1.0;
  img->lay.auto_natural = off > 0 ? (PetscReal)loc / (PetscReal)off : 1.0;
  if (req->auto_bricks && req->box[0] > 0 && req->box[0] * req->box[1] * req->box[2] * req->box[3] == m) img->lay.applied = MATMODSELL_ORDERING_BRICKS;
  else if (req->auto_bricks && off > 0 && m >= MS_AUTO_BLOCKS * block) { /* the slices are a preconditioner's blocks */
    PetscCall(MSImageCompactEstimate(m, ai, aj, block, &img->lay.auto_compact));
    img->lay.applied = img->lay.auto_natural >= MS_AUTO_COMPACT * img->lay.auto_compact ? MATMODSELL_ORDERING_NATURAL : MATMODSELL_ORDERING_PARTITION;
  } else if (off == 0 || (PetscReal)loc >= PetscMin(MS_AUTO_LOCAL + (PetscReal)sh / (PetscReal)m, 0.5) * (PetscReal)off) img->lay.applied = MATMODSELL_ORDERING_NATURAL;
  else if (req->auto_window && nspan > 0 && (PetscReal)span <= (PetscReal)nspan * (PetscReal)m / MS_AUTO_WINDOW) {
    img->lay.applied  = MATMODSELL_ORDERING_NATURAL;
    img->nat_windowed = PETSC_TRUE;
  } else img->lay.applied = MATMODSELL_ORDERING_PARTITION;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The ordering of a new pattern: the slice height asked for, the ordering applied (AUTO's choice), the slice height and
   block height under the partition ordering, and the permutation (kept when only the slice height changed) */
PetscErrorCode MSImageOrderingPrepare(MSImage img, Mat A)
{
  const MSImageRequest *req = &img->req;
  MSImageLayout        *l   = &img->lay;
  const PetscInt        m = l->m;
  const PetscBool       square = (PetscBool)(l->m == l->n);
  PetscObjectId         id;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  l->sh           = req->sh;
  l->applied      = square ? req->ordering : MATMODSELL_ORDERING_NATURAL;
  img->nat_local  = img->nat_off = -1;
  img->nat_stride = 1;
  l->auto_natural = l->auto_compact = -1.0;
  if (req->ordering == MATMODSELL_ORDERING_AUTO) {
    if (square && m > l->sh) {
      const PetscInt *ai, *aj;
      PetscInt        nrow;
      PetscBool       done;

      PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
      PetscCall(MSImageChooseOrdering(img, m, ai, aj));
      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
      if (l->auto_compact >= 0) PetscCall(PetscInfo(A, "ordering auto for a preconditioner's blocks (slices of %" PetscInt_FMT " rows): %s; in the matrix's order %.1f%% of the off-diagonal entries lie in their row's slice, compact blocks of %" PetscInt_FMT " rows would hold about %.1f%% (natural needs at least %.0f%% of that)\n", l->sh, MatModSELLOrderings[l->applied], 100.0 * (double)l->auto_natural, req->partition_block ? req->partition_block : PetscMax(l->sh, req->partition_sh), 100.0 * (double)l->auto_compact, 100.0 * MS_AUTO_COMPACT));
      else PetscCall(PetscInfo(A, "ordering auto (slices of %" PetscInt_FMT " rows): %s; in the matrix's order %.1f%% of the off-diagonal entries lie in their row's slice\n", l->sh, MatModSELLOrderings[l->applied], 100.0 * (double)l->auto_natural));
    } else l->applied = MATMODSELL_ORDERING_NATURAL;
  }
  /* the partition's compact blocks (partition_block rows); the image's slices partition_sh rows, e.g. halves of the
     blocks for the matrix's own products (as fast a product as slices of 128 on a randomly numbered mesh: H100,
     docs/locality.md) or the blocks themselves for a preconditioner that works on them */
  if (req->partition_sh && l->applied == MATMODSELL_ORDERING_PARTITION && square) l->sh = PetscMax(req->sh, req->partition_sh);
  img->psh = req->partition_block ? req->partition_block : l->sh;
  /* the RCM permutation depends only on the pattern, the partition's also on its block height (not on the slice height):
     keep it when only other settings changed */
  if (img->perm && (l->applied != img->perm_ordering || (l->applied != MATMODSELL_ORDERING_RCM && l->applied != MATMODSELL_ORDERING_PARTITION) || (l->applied == MATMODSELL_ORDERING_PARTITION && img->perm_sh != img->psh) || !square || img->perm_id != id || img->perm_nzstate != A->nonzerostate)) PetscCall(PetscFree(img->perm));
  img->perm_id       = id;
  img->perm_nzstate  = A->nonzerostate;
  img->perm_ordering = l->applied;
  img->perm_sh       = img->psh;
  if (l->applied == MATMODSELL_ORDERING_RCM && square && m > 1 && !img->perm) {
    IS              rp, cp;
    const PetscInt *idx;

    PetscCall(MatGetOrdering(A, MATORDERINGRCM, &rp, &cp));
    PetscCall(PetscMalloc1(m, &img->perm));
    PetscCall(ISGetIndices(rp, &idx));
    PetscCall(PetscArraycpy(img->perm, idx, m));
    PetscCall(ISRestoreIndices(rp, &idx));
    PetscCall(ISDestroy(&rp));
    PetscCall(ISDestroy(&cp));
  }
  /* the partition (compact blocks of one slice each) is computed by the first build, host or device */
  img->partition = (PetscBool)(l->applied == MATMODSELL_ORDERING_PARTITION && square && m > 1);
  img->bricks    = PETSC_FALSE;
  l->brick[0] = l->brick[1] = l->brick[2] = 0;
  if (l->applied == MATMODSELL_ORDERING_BRICKS && square && m > 0) PetscCall(MSImageBricksCheck(img));
  PetscFunctionReturn(PETSC_SUCCESS);
}
