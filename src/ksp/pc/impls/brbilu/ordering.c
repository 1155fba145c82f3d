/*
   Block red-black (grid) and block multicolour (graph) orderings of PCBRBILU: see brbordering.h.
*/
#include <petscmodsell/private/brbordering.h>

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

static PetscErrorCode BRBOrderingAlloc(PetscInt m, PetscInt nblocks, PetscInt ncolors, BRBOrdering *ord)
{
  BRBOrdering o;

  PetscFunctionBegin;
  PetscCall(PetscNew(&o));
  o->m       = m;
  o->nblocks = nblocks;
  o->ncolors = ncolors;
  PetscCall(PetscMalloc3(nblocks + 1, &o->bstart, ncolors + 1, &o->cstart, PetscMax(nblocks, 1), &o->bid));
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
  PetscCall(BRBOrderingAlloc(m, nb, nb > 1 ? 2 : 1, &o));
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

/* colours of the block graph (bi, bj: both directions, sorted): two when it is bipartite (breadth-first), else first
   fit in block order */
static PetscErrorCode BRBOrderingColor(PetscInt nb, const PetscInt *bi, const PetscInt *bj, PetscInt *color, PetscInt *ncolors, PetscBool *bipartite)
{
  PetscInt *queue;
  PetscBool bip = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(nb, 1), &queue));
  for (PetscInt b = 0; b < nb; b++) color[b] = -1;
  for (PetscInt s = 0; s < nb && bip; s++) {
    PetscInt head = 0, tail = 0;

    if (color[s] >= 0) continue;
    color[s]      = 0;
    queue[tail++] = s;
    while (head < tail && bip) {
      const PetscInt b = queue[head++];

      for (PetscInt k = bi[b]; k < bi[b + 1]; k++) {
        const PetscInt c = bj[k];

        if (color[c] < 0) {
          color[c]      = 1 - color[b];
          queue[tail++] = c;
        } else if (color[c] == color[b]) bip = PETSC_FALSE;
      }
    }
  }
  if (!bip) { /* first fit in block order */
    PetscInt *used;

    PetscCall(PetscMalloc1(nb + 1, &used));
    for (PetscInt b = 0; b < nb; b++) used[b] = -1;
    for (PetscInt b = 0; b < nb; b++) color[b] = -1;
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt c = 0;

      for (PetscInt k = bi[b]; k < bi[b + 1]; k++)
        if (color[bj[k]] >= 0) used[color[bj[k]]] = b;
      while (used[c] == b) c++;
      color[b] = c;
    }
    PetscCall(PetscFree(used));
  }
  *ncolors = 0;
  for (PetscInt b = 0; b < nb; b++) *ncolors = PetscMax(*ncolors, color[b] + 1);
  *bipartite = bip;
  PetscCall(PetscFree(queue));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BRBOrderingCreateGraph(PetscInt m, PetscInt sh, PetscInt64 nkeys, const unsigned long long *keys, PetscInt64 noff, PetscInt64 ninblock, BRBOrdering *ord)
{
  const PetscInt nb = m > 0 ? (m + sh - 1) / sh : 0;
  BRBOrdering    o;
  PetscInt      *bi, *bj, *cur, *color, ncolors = 0, b = 0, p = 0;
  PetscBool      bip = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCheck(sh >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: %" PetscInt_FMT " rows per block", sh);
  PetscCheck(2 * nkeys < PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCBRBILU: %" PetscInt64_FMT " edges of the block graph; use larger blocks (-pc_brbilu_block_rows)", nkeys);
  /* the block graph, both directions, each row ascending (the keys are ascending: the q < r halves come in order, the
     r > q halves are appended in order of q) */
  PetscCall(PetscCalloc4(nb + 1, &bi, PetscMax(2 * nkeys, 1), &bj, nb + 1, &cur, PetscMax(nb, 1), &color));
  for (PetscInt64 k = 0; k < nkeys; k++) {
    const PetscInt q = (PetscInt)(keys[k] / (unsigned long long)nb), r = (PetscInt)(keys[k] % (unsigned long long)nb);

    PetscCheck(q < r && r < nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: a block graph edge %" PetscInt_FMT " - %" PetscInt_FMT " of %" PetscInt_FMT " blocks", q, r, nb);
    bi[q + 1]++;
    bi[r + 1]++;
  }
  for (PetscInt q = 0; q < nb; q++) bi[q + 1] += bi[q];
  for (PetscInt q = 0; q < nb; q++) cur[q] = bi[q];
  for (PetscInt64 k = 0; k < nkeys; k++) { /* r's neighbours q < r, ascending in q */
    const PetscInt q = (PetscInt)(keys[k] / (unsigned long long)nb), r = (PetscInt)(keys[k] % (unsigned long long)nb);

    if (q < r) bj[cur[r]++] = q;
  }
  for (PetscInt64 k = 0; k < nkeys; k++) { /* then q's neighbours r > q, ascending (keys ascending) */
    const PetscInt q = (PetscInt)(keys[k] / (unsigned long long)nb), r = (PetscInt)(keys[k] % (unsigned long long)nb);

    bj[cur[q]++] = r;
  }
  PetscCall(BRBOrderingColor(nb, bi, bj, color, &ncolors, &bip));
  PetscCall(BRBOrderingAlloc(m, nb, PetscMax(ncolors, 1), &o));
  o->sh        = sh;
  o->bipartite = bip;
  o->nbedges   = nkeys;
  o->noff      = noff;
  o->ninblock  = ninblock;
  for (PetscInt c = 0; c < o->ncolors; c++) {
    o->cstart[c] = b;
    for (PetscInt q = 0; q < nb; q++) {
      if (color[q] != c) continue;
      o->bid[b]    = q;
      o->bstart[b] = p;
      p += PetscMin((q + 1) * sh, m) - q * sh;
      b++;
    }
  }
  o->cstart[o->ncolors] = b;
  o->bstart[b]          = p;
  PetscCheck(p == m && b == nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: graph ordering lost rows");
  PetscCall(PetscFree4(bi, bj, cur, color));
  *ord = o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode BRBOrderingDestroy(BRBOrdering *ord)
{
  PetscFunctionBegin;
  if (!*ord) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree3((*ord)->bstart, (*ord)->cstart, (*ord)->bid));
  PetscCall(PetscFree(*ord));
  PetscFunctionReturn(PETSC_SUCCESS);
}
