/*
   The row ordering of a mod-SELL image (see imageimpl.h): MATMODSELL_ORDERING_AUTO's choice from the pattern, the slice
   height under the partition ordering, and the permutation: RCM here, bricks and partition where they are first needed
   (imagebuild.c).
*/
#include "imageimpl.h"

/* MATMODSELL_ORDERING_BRICKS: the brick of about sh rows (bx x by x bz points of dof rows) for a box of
   nx x ny x nz points: starting from 1 x 1 x 1, the smallest extent (x first) is doubled while the brick
   stays within the box and within sh rows */
PetscErrorCode MSImageBrickSize(const PetscInt box[4], PetscInt sh, PetscInt brick[3])
{
  const PetscInt pts = PetscMax(1, sh / PetscMax(1, box[3]));

  PetscFunctionBegin;
  brick[0] = brick[1] = brick[2] = 1;
  for (;;) {
    PetscInt best = -1;
    for (PetscInt d = 0; d < 3; d++)
      if (2 * brick[d] <= box[d] && 2 * brick[0] * brick[1] * brick[2] <= pts && (best < 0 || brick[d] < brick[best])) best = d;
    if (best < 0) break;
    brick[best] *= 2;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the bricks ordering applies to this block: check the box, choose the brick */
static PetscErrorCode MSImageBricksCheck(MSImage img)
{
  const PetscInt *box = img->req.box, nx = box[0], ny = box[1], nz = box[2], dof = box[3];

  PetscFunctionBegin;
  PetscCheck(nx > 0 && ny > 0 && nz > 0 && dof > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "MATMODSELL ordering bricks needs the grid of a DMDA: create the matrix with DMCreateMatrix() on a DMDA, or use -mat_modsell_ordering natural or rcm");
  PetscCheck(nx * ny * nz * dof == img->lay.m, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MATMODSELL ordering bricks: the DMDA box of this process (%" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " points, %" PetscInt_FMT " dof) does not have the matrix's %" PetscInt_FMT " local rows; use -mat_modsell_ordering natural or rcm", nx, ny, nz, dof, img->lay.m);
  PetscCall(MSImageBrickSize(box, img->lay.sh, img->lay.brick));
  img->bricks = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* perm (new -> old) of the bricks ordering: bricks in lexicographic order (x fastest), the points of a brick
   lexicographically, the dof of a point together; local row of point (i, j, k), component c:
   ((k ny + j) nx + i) dof + c (DMDA's ordering of a process's box). Made when a host path needs it; the device path
   computes the same with MSCUDABricksPerm() */
PetscErrorCode MSImageBricksPermHost(MSImage img)
{
  const PetscInt nx = img->req.box[0], ny = img->req.box[1], nz = img->req.box[2], dof = img->req.box[3], *b = img->lay.brick;
  PetscInt       r = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(img->lay.m, &img->perm));
  for (PetscInt kb = 0; kb < nz; kb += b[2])
    for (PetscInt jb = 0; jb < ny; jb += b[1])
      for (PetscInt ib = 0; ib < nx; ib += b[0])
        for (PetscInt k = kb; k < PetscMin(kb + b[2], nz); k++)
          for (PetscInt j = jb; j < PetscMin(jb + b[1], ny); j++)
            for (PetscInt i = ib; i < PetscMin(ib + b[0], nx); i++)
              for (PetscInt c = 0; c < dof; c++) img->perm[r++] = ((k * ny + j) * nx + i) * dof + c;
  PetscCheck(r == img->lay.m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bricks ordering covers %" PetscInt_FMT " of %" PetscInt_FMT " rows", r, img->lay.m);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MATMODSELL_ORDERING_AUTO for a square block of more than one slice: bricks for a DMDA block when the request takes
   them (auto_bricks: the slices serve as a preconditioner's blocks); else natural when the fraction of the off-diagonal
   entries that lie in their row's slice in the matrix's own order is at least MS_AUTO_LOCAL above what a random
   numbering gives (about sh/m: small blocks, where a slice is a good part of the block, are not taken for local by
   chance; at most 50%): a numbered mesh, whose slices are already compact and whose product reads x in order; else
   partition (a randomly numbered mesh). The statistic is one pass over the CSR column indices of every slice, or, above
   MS_AUTO_SAMPLE slices, of one slice in k, evenly spaced (at least MS_AUTO_SAMPLE / 2 slices): the full pass cost a
   core 37 ms per 28.5 M entries (the 4.1 M-cell demo matrix), on the setup's critical path, for a fraction whose
   sampling error over a thousand slices is far below the margin of the choice.
   When the image serves the product alone (auto_window), a slice whose columns are few in its slice but all near it (a
   lexicographic 3D grid with n^2 > sh, a 27-point stencil, several fields per point) reads x from a window the caches
   hold: natural too when the sampled slices' columns span on average at most m / MS_AUTO_WINDOW rows (a random
   numbering spans about m). H100, 2026-11-25 (docs/results/2026-11-25-h100-wide-rows): 27-point Laplacian 160^3
   natural 0.485 ms against 0.633 ms partitioned; 3 fields on 110^3 points 1.369 against 1.634 ms. */
#define MS_AUTO_LOCAL  0.15
#define MS_AUTO_SAMPLE 2048
#define MS_AUTO_WINDOW 8
static PetscErrorCode MSImageChooseOrdering(MSImage img, PetscInt m, const PetscInt *ai, const PetscInt *aj)
{
  const MSImageRequest *req = &img->req;
  const PetscInt        sh = img->lay.sh, nslices = (m + sh - 1) / sh;
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
  if (req->auto_bricks && req->box[0] > 0 && req->box[0] * req->box[1] * req->box[2] * req->box[3] == m) img->lay.applied = MATMODSELL_ORDERING_BRICKS;
  else if (off == 0 || (PetscReal)loc >= PetscMin(MS_AUTO_LOCAL + (PetscReal)sh / (PetscReal)m, 0.5) * (PetscReal)off) img->lay.applied = MATMODSELL_ORDERING_NATURAL;
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
  if (req->ordering == MATMODSELL_ORDERING_AUTO) {
    if (square && m > l->sh) {
      const PetscInt *ai, *aj;
      PetscInt        nrow;
      PetscBool       done;

      PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
      PetscCall(MSImageChooseOrdering(img, m, ai, aj));
      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ai, &aj, &done));
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
