/*
   Block red-black (grid) and block multicolour (graph) orderings of PCBRBILU: see brbordering.h.
*/
#include <petscmodsell/private/brbordering.h>
#include <petscmodsell/private/localityimpl.h>

static PetscInt BRBTargetBlocks(PetscInt m, PetscInt nsm, PetscInt minrows)
{
  PetscInt n = ((192 * PetscMax(nsm, 1) + 31) / 32) * 32; /* 32 x 6 per multiprocessor, a multiple of 32 */

  if (minrows > 0 && m / n < minrows) n = PetscMax(1, m / minrows);
  return n;
}

PetscErrorCode BRBOrderingGridBlocks(const PetscInt box[3], PetscInt nsm, PetscInt minrows, PetscInt nblk[3])
{
  const PetscInt m = box[0] * box[1] * box[2];
  PetscInt       nb, d = 0;
  PetscReal      side;

  PetscFunctionBegin;
  nb = BRBTargetBlocks(m, nsm, minrows);
  for (PetscInt a = 0; a < 3; a++) d += box[a] > 1;
  side = d ? PetscPowReal((PetscReal)m / (PetscReal)nb, 1.0 / d) : 1.0;
  for (PetscInt a = 0; a < 3; a++) {
    PetscInt b = (PetscInt)PetscFloorReal(box[a] / side + 0.5);
    nblk[a]    = PetscMax(1, PetscMin(b, box[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BRBOrderingGraphRows(PetscInt m, PetscInt nsm, PetscInt minrows, PetscInt *sh)
{
  const PetscInt nb = BRBTargetBlocks(m, nsm, minrows);

  PetscFunctionBegin;
  *sh = PetscMax(1, (m + nb - 1) / nb);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* perm is allocated here for a graph ordering only (a grid ordering's is made on demand: BRBOrderingGetPerm()) */
static PetscErrorCode BRBOrderingAlloc(PetscInt m, PetscInt nblocks, PetscInt ncolors, PetscBool perm, BRBOrdering *ord)
{
  BRBOrdering o;

  PetscFunctionBegin;
  PetscCall(PetscNew(&o));
  o->m       = m;
  o->nblocks = nblocks;
  o->ncolors = ncolors;
  if (perm) PetscCall(PetscMalloc1(m, &o->perm));
  PetscCall(PetscMalloc3(nblocks + 1, &o->bstart, ncolors + 1, &o->cstart, nblocks, &o->bid));
  *ord = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BRBOrderingCreateGrid(const PetscInt box[3], const PetscInt nblk[3], BRBOrdering *ord)
{
  const PetscInt m = box[0] * box[1] * box[2], nb = nblk[0] * nblk[1] * nblk[2];
  BRBOrdering    o;
  PetscInt       p = 0, b = 0;

  PetscFunctionBegin;
  for (PetscInt a = 0; a < 3; a++) PetscCheck(nblk[a] >= 1 && nblk[a] <= PetscMax(box[a], 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: %" PetscInt_FMT " blocks along axis %" PetscInt_FMT " of a local box of %" PetscInt_FMT " points: give 1 to %" PetscInt_FMT " (-pc_brbilu_blocks)", nblk[a], a, box[a], PetscMax(box[a], 1));
  PetscCall(BRBOrderingAlloc(m, nb, nb > 1 ? 2 : 1, PETSC_FALSE, &o));
  o->grid = PETSC_TRUE;
  for (PetscInt a = 0; a < 3; a++) {
    o->box[a]  = box[a];
    o->nblk[a] = nblk[a];
  }
  for (PetscInt c = 0; c < o->ncolors; c++) {
    o->cstart[c] = b;
    for (PetscInt iz = 0; iz < nblk[2]; iz++)
      for (PetscInt iy = 0; iy < nblk[1]; iy++)
        for (PetscInt ix = 0; ix < nblk[0]; ix++) {
          /* 64-bit products: a long box cut in many blocks exceeds 2^31 */
          const PetscInt x0 = (PetscInt)((PetscInt64)ix * box[0] / nblk[0]), x1 = (PetscInt)((PetscInt64)(ix + 1) * box[0] / nblk[0]);
          const PetscInt y0 = (PetscInt)((PetscInt64)iy * box[1] / nblk[1]), y1 = (PetscInt)((PetscInt64)(iy + 1) * box[1] / nblk[1]);
          const PetscInt z0 = (PetscInt)((PetscInt64)iz * box[2] / nblk[2]), z1 = (PetscInt)((PetscInt64)(iz + 1) * box[2] / nblk[2]);

          if ((ix + iy + iz) % 2 != c) continue;
          o->bid[b]    = ix + nblk[0] * (iy + nblk[1] * iz);
          o->bstart[b] = p;
          p += (x1 - x0) * (y1 - y0) * (z1 - z0);
          b++;
        }
  }
  o->cstart[o->ncolors] = b;
  o->bstart[b]          = p;
  PetscCheck(p == m && b == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: grid ordering lost rows");
  *ord = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BRBOrderingCreateGraph(Mat Ad, PetscInt sh, BRBOrdering *ord)
{
  MSLocality  loc;
  BRBOrdering o;
  PetscInt    b = 0, p = 0;

  PetscFunctionBegin;
  PetscCall(MSLocalityCompute(Ad, sh, &loc));
  PetscCheck(loc->ncolors >= 1 || loc->nblocks == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: the locality partition has no colours");
  PetscCall(BRBOrderingAlloc(loc->m, loc->nblocks, PetscMax(loc->ncolors, 1), PETSC_TRUE, &o));
  o->sh            = sh;
  o->bipartite     = loc->bipartite;
  o->ndisconnected = loc->ndisconnected;
  o->nedges        = loc->nedges;
  o->ninblock      = loc->ninblock;
  for (PetscInt c = 0; c < o->ncolors; c++) {
    o->cstart[c] = b;
    for (PetscInt q = 0; q < loc->nblocks; q++) {
      const PetscInt r0 = q * sh, r1 = PetscMin((q + 1) * sh, loc->m);

      if (loc->color[q] != c) continue;
      o->bid[b]    = q;
      o->bstart[b] = p;
      for (PetscInt r = r0; r < r1; r++) o->perm[p++] = loc->perm[r];
      b++;
    }
  }
  o->cstart[o->ncolors] = b;
  o->bstart[b]          = p;
  PetscCheck(p == loc->m && b == loc->nblocks, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: graph ordering lost rows");
  PetscCall(MSLocalityDestroy(&loc));
  *ord = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A grid ordering's perm, made on the first call: the GPU setup computes its own (MS_BRB_GRID_PERM) and needs none on
   the host (16.8 M rows at 256^3: about 0.03 s and 67 MB saved) */
PetscErrorCode BRBOrderingGetPerm(BRBOrdering o, const PetscInt **perm)
{
  PetscFunctionBegin;
  if (!o->perm) {
    PetscCheck(o->grid, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: a graph ordering without its permutation");
    PetscCall(PetscMalloc1(o->m, &o->perm));
    for (PetscInt b = 0; b < o->nblocks; b++) {
      const PetscInt id = o->bid[b], t[3] = {id % o->nblk[0], (id / o->nblk[0]) % o->nblk[1], id / (o->nblk[0] * o->nblk[1])};
      PetscInt       lo[3], hi[3], p = o->bstart[b];

      for (PetscInt a = 0; a < 3; a++) { /* 64-bit products: a long box cut in many blocks exceeds 2^31 */
        lo[a] = (PetscInt)((PetscInt64)t[a] * o->box[a] / o->nblk[a]);
        hi[a] = (PetscInt)((PetscInt64)(t[a] + 1) * o->box[a] / o->nblk[a]);
      }
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++)
          for (PetscInt i = lo[0]; i < hi[0]; i++) o->perm[p++] = i + o->box[0] * (j + o->box[1] * k);
      PetscCheck(p == o->bstart[b + 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: grid ordering lost rows");
    }
  }
  *perm = o->perm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BRBOrderingDestroy(BRBOrdering *ord)
{
  PetscFunctionBegin;
  if (!*ord) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*ord)->perm));
  PetscCall(PetscFree3((*ord)->bstart, (*ord)->cstart, (*ord)->bid));
  PetscCall(PetscFree(*ord));
  PetscFunctionReturn(PETSC_SUCCESS);
}
