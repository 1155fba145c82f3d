/*
   PCBRBILU: block red-black ordered ILU(0) / modified ILU(0) (relaxed, perturbed) with single-precision factors
   stored for coalesced substitution on the GPU (Shioya (2022): sections 3.2-3.3, chapter 4, section 5.3).

   Setup, per process on the local diagonal block Ad (block Jacobi across processes: the off-process couplings are
   ignored), every step by the backend's kernels from Ad's CSR where the PC computes:
     1. ordering (brbordering.h; kept while the nonzero pattern and the ordering options stay): a DMDA box cut in
        nearly cubic blocks coloured red/black, else the locality partition's blocks (computed where the PC computes),
        the colouring of their block graph (on the host, from the graph's edges) and the rows of a block by colours of
        its own graph (or in the partition's order);
     2. symbolic (kept likewise): the levels (wavefronts) of every block and the storage of brbilukernels.h (a block's
        rows by level, its slots slot-major), the map from every slot to the entry of Ad's CSR it starts from, the
        work counts;
     3. numeric (every setup): the check of Ad (PCMSOperatorAnalyse(): non-finite entries, diagonal, signs, diagonal
        dominance, symmetry), the choice of the factorization (PCBRBILUChoose()), then for each one tried: gather Ad's
        values, factorize colour by colour (one warp per block; its levels in order, the rows of a level on the
        lanes), test every pivot; convert the one kept to the factor precision.
   Apply: forward substitution colour by colour, then backward in reverse, one warp per block and colour phase (levels
   in order, resp. in reverse), b read in the user's order by the first kernel and x written in the user's order by
   the backward kernels.

   This file is the glue: the PC layer (pcmsimpl.h) supplies the operator, its blocks, device decision, vectors and
   staging; the kernels (brbilukernels.h) come as a table, host reference (brbilu_reference.c) or CUDA (brbilu.cu),
   chosen once per setup.
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/brbilukernels.h>
#include <petscmodsell/private/brbordering.h>
#include <petsctime.h>

static PetscLogEvent PC_BRBILUOrdering = 0, PC_BRBILUFactor = 0, PC_BRBILUApply = 0;

const char *const PCBRBILUTypes[]         = {"ilu", "milu", "rmilu", "pmilu", "auto", "PCBRBILUType", "PCBRBILU_", NULL};
const char *const PCBRBILUPrecisions[]    = {"single", "double", "PCBRBILUPrecision", "PCBRBILU_PRECISION_", NULL};
const char *const PCBRBILUOrderingTypes[] = {"auto", "grid", "graph", "PCBRBILUOrderingType", "PCBRBILU_ORDERING_", NULL};
const char *const PCBRBILUInnerOrderings[] = {"colors", "partition", "PCBRBILUInnerOrdering", "PCBRBILU_INNER_", NULL};

typedef struct {
  /* options */
  PCBRBILUType         type; /* PCBRBILU_AUTO: chosen at every setup */
  PetscReal            alpha, perturb, pivtol;
  PetscReal            shift; /* every factorization's diagonal a_ii (1 + shift) */
  PCBRBILUPrecision    precision;
  PCBRBILUOrderingType ordering;
  PCBRBILUInnerOrdering inner; /* rows inside a block of a graph ordering */
  PetscInt             nblk[3];  /* blocks per axis (grid), 0: automatic */
  PetscInt             brows;    /* rows per block (graph), 0: automatic */
  PetscInt             minrows;  /* smallest automatic block */
  PetscBool3           symmetric_opt;

  /* what the last setup did */
  PetscBool      setup, symmetric, structure;
  const char    *fallback; /* why a grid ordering was not used (NULL: not asked or used) */
  PCMSAnalysis   an;       /* the check of the operator's diagonal blocks */
  PCBRBILUType   ftype;    /* the factorization made */
  PetscReal      fshift;   /* with this shift */
  PetscReal      minratio; /* its smallest pivot ratio d_i / a_ii */
  char           symwhy[160], why[640]; /* why symmetric factors or not; why this factorization (automatic) */
  PetscLogDouble setup_time;
  PetscLogDouble tsplit[6]; /* last setup: operator (pcms layer), ordering, levels, slots, upload, factor (0 when kept) */
  PetscInt       nsetups, nsm;

  PCMSOperator        op;
  const MSBRBKernels *k;
  BRBOrdering         ord;
  MSBRBLayout         lay;
  PetscBool           laid; /* the layout of ord is built */
  PetscInt64          nslots, nlower, nupper, nlevels;
  PetscLogDouble      factor_flops, apply_flops;
  PetscInt            maxw, maxlev;

  /* backend memory */
  PCMSBuffer rstart, lstart, lptr;  /* the layout: blocks and levels */
  PCMSBuffer sperm, col, nl;        /* the layout: rows and slots */
  PCMSBuffer bid, tpos;             /* the GPU's apply on a grid ordering: bricks, places in a block's buffer */
  PCMSBuffer map, dmap;             /* slot / row -> CSR entry of Ad (value refreshes) */
  PCMSBuffer fvals, fdinv, y;       /* the factors, the substitution's work vector */
  PCMSBuffer work, d, status;       /* setup only */
  PCMSBuffer lperm;                 /* setup only: the locality partition of a graph ordering */
} PC_BRBILU;

static PetscInt PCBRBILUElem(PC_BRBILU *jac)
{
  return jac->precision == PCBRBILU_PRECISION_SINGLE ? (PetscInt)sizeof(float) : (PetscInt)sizeof(double);
}

/* device (or host) memory the apply reads and writes, and what is kept for value refreshes */
static void PCBRBILUBytes(PC_BRBILU *jac, size_t *apply, size_t *refresh)
{
  *apply   = jac->rstart.bytes + jac->lstart.bytes + jac->lptr.bytes + jac->sperm.bytes + jac->col.bytes + jac->nl.bytes + jac->fvals.bytes + jac->fdinv.bytes + jac->y.bytes + jac->bid.bytes + jac->tpos.bytes;
  *refresh = jac->map.bytes + jac->dmap.bytes;
}

static PetscErrorCode PCBRBILUFreeStructure(PC pc)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(BRBOrderingDestroy(&jac->ord));
  jac->laid = PETSC_FALSE;
  PetscCall(PCMSBufferDestroy(&jac->rstart));
  PetscCall(PCMSBufferDestroy(&jac->lstart));
  PetscCall(PCMSBufferDestroy(&jac->lptr));
  PetscCall(PCMSBufferDestroy(&jac->sperm));
  PetscCall(PCMSBufferDestroy(&jac->bid));
  PetscCall(PCMSBufferDestroy(&jac->tpos));
  PetscCall(PCMSBufferDestroy(&jac->col));
  PetscCall(PCMSBufferDestroy(&jac->nl));
  PetscCall(PCMSBufferDestroy(&jac->map));
  PetscCall(PCMSBufferDestroy(&jac->dmap));
  PetscCall(PCMSBufferDestroy(&jac->fvals));
  PetscCall(PCMSBufferDestroy(&jac->fdinv));
  PetscCall(PCMSBufferDestroy(&jac->y));
  PetscCall(PCMSBufferDestroy(&jac->work));
  PetscCall(PCMSBufferDestroy(&jac->d));
  PetscCall(PCMSBufferDestroy(&jac->lperm));
  PetscCall(PetscMemzero(&jac->lay, sizeof(jac->lay)));
  jac->structure = PETSC_FALSE;
  jac->setup     = PETSC_FALSE;
  jac->fallback  = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The DMDA box of the local rows (dof 1, star stencil, as many points as local rows: the PC's DM, else the operator's),
   or why there is none */
static PetscErrorCode PCBRBILUGetBox(PC pc, PetscInt m, PetscInt box[3], const char **why)
{
  DM       dm = pc->dm;
  PCMSGrid grid;

  PetscFunctionBegin;
  if (!dm) PetscCall(MatGetDM(pc->pmat, &dm));
  PetscCall(PCMSGetGrid(dm, &grid));
  *why = grid.why;
  if (*why) PetscFunctionReturn(PETSC_SUCCESS);
  if (grid.box[3] != 1) *why = "the DMDA has more than one degree of freedom per point";
  else if (grid.stencil != DMDA_STENCIL_STAR && grid.dim > 1) *why = "the DMDA's stencil is not a star (box stencils couple blocks of one colour)";
  else if (grid.box[0] * grid.box[1] * grid.box[2] != m) *why = "the DMDA's local box does not match the operator's local rows";
  for (PetscInt a = 0; a < 3; a++) box[a] = grid.box[a];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an exact-size buffer (the memory statistics read buf->bytes) in the PC's memory, content undefined */
static PetscErrorCode PCBRBILUBufferExact(PCMSOperator *op, PCMSBuffer *buf, size_t bytes, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PCMSBufferDestroy(buf));
  PetscCall(PCMSBufferEnsure(op, buf, bytes, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an exact-size buffer in the PC's memory holding an int copy of n PetscInts (small arrays: block starts) */
static PetscErrorCode PCBRBILUIntBuffer(PCMSOperator *op, PCMSBuffer *buf, const PetscInt *src, PetscInt64 n, const char *what)
{
  PetscFunctionBegin;
  PetscCall(PCMSBufferDestroy(buf));
  PetscCall(PCMSUploadInt(op, buf, src, n, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the layout's temporaries, freed once the backend has finished with them */
static PetscErrorCode PCBRBILUFreeTemporaries(PCMSOperator *op, PCMSBuffer *temps[], size_t n)
{
  PetscFunctionBegin;
  PetscCall(PCMSSynchronize(op)); /* kernels in flight may still read them */
  for (size_t i = 0; i < n; i++) PetscCall(PCMSBufferDestroy(temps[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A backend whose apply takes a grid ordering's blocks through a buffer (MSBRBLayout.tbuf, the GPU's shared memory)
   moves a block's right-hand side and solution between the user's order and the storage order through it: its size
   from the bricks' widths, the bricks, and every storage row's place in its block's buffer (tpos, 2 bytes a row).
   Bricks too large for the buffer keep the scattered copies through sperm. The function is the same either way.
   bricks: the layout's copy of the bricks (ord->bid) in the PC's memory, kept for the apply (moved into jac->bid:
   *bricks is then empty) when the buffer is used. */
static PetscErrorCode PCBRBILUBufferSetUp(PC pc, const MSBRBGrid *grid, PCMSBuffer *bricks)
{
  PC_BRBILU    *jac = (PC_BRBILU *)pc->data;
  PCMSOperator *op  = &jac->op;
  MSBRBLayout  *lay = &jac->lay;
  PetscInt      w[3], tbuf;
  void         *stream;
  int           err;

  PetscFunctionBegin;
  lay->tbuf = 0;
  /* the widest brick along each axis: the splits t box / nblk give widths floor(box / nblk) and ceil(box / nblk) */
  for (PetscInt a = 0; a < 3; a++) w[a] = (grid->box[a] + grid->nblk[a] - 1) / grid->nblk[a];
  tbuf = (w[0] + (w[0] & 1)) * w[1] * w[2];
  if (tbuf > jac->k->tbuf_max) {
    PetscCall(PetscInfo(pc, "PCBRBILU: bricks of up to %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " points: the apply's copies to and from the user's order go through sperm (a buffer of %" PetscInt_FMT " doubles is more than %d)\n", w[0], w[1], w[2], tbuf, jac->k->tbuf_max));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCMSBufferDestroy(&jac->bid));
  jac->bid = *bricks;
  PetscCall(PetscMemzero(bricks, sizeof(*bricks)));
  if (!jac->bid.ptr) PetscCall(PCMSUploadInt(op, &jac->bid, jac->ord->bid, jac->ord->nblocks, "PCBRBILU's bricks")); /* the layout read ord->bid itself */
  PetscCall(PCBRBILUBufferExact(op, &jac->tpos, sizeof(unsigned short) * (size_t)PetscMax(op->m, 1), "PCBRBILU's buffer places"));
  lay->grid = *grid;
  lay->bid  = (const int *)jac->bid.ptr;
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->places(lay, (unsigned short *)jac->tpos.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "buffer places", 0));
  lay->tpos = (const unsigned short *)jac->tpos.ptr;
  lay->tbuf = (int)tbuf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The storage layout of an ordering (brbilukernels.h): the levels (wavefronts) of every block, its rows stored by
   level, slot-major inside the block. Returns PETSC_FALSE in *ok when the operator couples two blocks of one colour (a
   grid ordering on an operator that is not a star stencil).

   All by the backend's kernels (MS_BRB_GRID_PERM, MS_BRB_GRAPH_PERM, MS_BRB_LEVELS, MS_BRB_STORAGE, MS_BRB_SLOTS), so
   that on the GPU nothing proportional to the rows is computed on the host or uploaded:
     0. the arrays the kernels read: the block starts (int), the ordering's perm (computed by the backend: a grid
        ordering's from the bricks, MS_BRB_GRID_PERM, a graph ordering's from the locality partition jac->lperm and
        the blocks' colour order, MS_BRB_GRAPH_PERM), Ad's CSR structure (csr: the shared layer's,
        PCMSOperatorGetCSR(): on the GPU the device CSR of aijcusparse when there is no empty row, a MATMODSELL's
        device image expanded there, else uploaded);
     1. the level pass (MS_BRB_LEVELS): positions, every row's level (wavefront) inside its block, counts, the widest
        row of each colour, the coupling test, the factorization's flops, the first level of each block; its
        MSBRBLevelInfo is read back (on the GPU the one synchronisation), and the host sizes the rest from it;
     2. the storage rows (MS_BRB_STORAGE): per block a stable counting sort by level (lptr, sperm, stor);
     3. the slots (MS_BRB_SLOTS: col, map, nl, dmap) from pos, stor and Ad's CSR structure.
   The host reference walks a grid ordering's rows in their own order, streaming through the CSR; the GPU one warp
   per block; both give the same arrays, bit for bit (the kernel tests, src/ksp/pc/tests/ex2.c, compare them). */
static PetscErrorCode PCBRBILUBuildLayout(PC pc, const PCMSCSR *csr, PetscBool *ok)
{
  PC_BRBILU      *jac = (PC_BRBILU *)pc->data;
  PCMSOperator   *op  = &jac->op;
  BRBOrdering     ord = jac->ord;
  MSBRBLayout    *lay = &jac->lay;
  const PetscInt  m = ord->m, nb = ord->nblocks, *bstart = ord->bstart, *cstart = ord->cstart;
  const int      *k_perm = NULL, *k_bid = NULL;
  PCMSBuffer      t_perm = {0}, t_bid = {0}, t_pos = {0}, t_lev = {0}, t_nu = {0}, t_stor = {0}, t_info = {0}, t_inner = {0};
  PCMSBuffer     *temps[] = {&t_perm, &t_bid, &t_pos, &t_lev, &t_nu, &t_stor, &t_info, &t_inner}; /* freed on every way out */
  PetscInt64      ns = m, nslots = 0, nlev;
  MSBRBLevelInfo  info;
  MSBRBGrid       grid;
  PetscLogDouble  t0, t1;
  void           *stream;
  int             err, *pos, *lev, *nu;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  *ok = PETSC_TRUE;
  PetscCheck(ord->ncolors <= MS_BRB_MAXCOLORS, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCBRBILU: the block colouring of the operator needs %" PetscInt_FMT " colours, more than the %d the kernels take; use larger blocks (-pc_brbilu_block_rows)", ord->ncolors, MS_BRB_MAXCOLORS);
  PetscCheck(ns < PETSC_INT32_MAX - 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCBRBILU: %" PetscInt64_FMT " rows on a process; the kernels take fewer than 2^31 - 64: use more processes", ns);
  /* the layout's host fields: colours and blocks */
  PetscCall(PetscMemzero(lay, sizeof(*lay)));
  lay->ncolors = (int)ord->ncolors;
  for (PetscInt c = 0; c < ord->ncolors; c++) {
    lay->nb[c]   = (int)(cstart[c + 1] - cstart[c]);
    lay->boff[c] = (int)cstart[c];
    lay->roff[c] = bstart[cstart[c]];
  }
  lay->boff[ord->ncolors] = (int)nb;
  lay->roff[ord->ncolors] = ns;
  if (ord->grid)
    for (PetscInt a = 0; a < 3; a++) {
      grid.box[a]  = (int)ord->box[a];
      grid.nblk[a] = (int)ord->nblk[a];
    }
  /* 0. what the kernels read, in the backend's memory */
  PetscCall(PCBRBILUIntBuffer(op, &jac->rstart, bstart, nb + 1, "PCBRBILU's block starts"));
  lay->rstart = (const int *)jac->rstart.ptr;
  PetscCall(PCMSIntArray(op, ord->bid, nb, &t_bid, ord->grid ? "PCBRBILU's bricks" : "PCBRBILU's blocks", &k_bid));
  PetscCheck(csr->m == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: the ordering has %" PetscInt_FMT " rows, the diagonal block %d", m, csr->m);
  PetscCall(PCMSBufferEnsure(op, &t_pos, sizeof(int) * (size_t)m, "PCBRBILU's positions"));
  PetscCall(PCMSBufferEnsure(op, &t_lev, sizeof(int) * (size_t)m, "PCBRBILU's levels"));
  PetscCall(PCMSBufferEnsure(op, &t_nu, sizeof(int) * (size_t)m, "PCBRBILU's upper counts"));
  PetscCall(PCMSBufferEnsure(op, &t_info, sizeof(MSBRBLevelInfo), "PCBRBILU's level pass counts"));
  PetscCall(PCBRBILUBufferExact(op, &jac->lstart, sizeof(int) * (size_t)(nb + 1), "PCBRBILU's block levels"));
  pos = (int *)t_pos.ptr;
  lev = (int *)t_lev.ptr;
  nu  = (int *)t_nu.ptr;
  /* the ordering's perm: computed where the PC computes, not uploaded */
  PetscCall(PCMSBufferEnsure(op, &t_perm, sizeof(int) * (size_t)m, "PCBRBILU's ordering"));
  PetscCall(PetscTime(&t1));
  jac->tsplit[4] += t1 - t0;
  t0 = t1;
  PetscCall(PCMSKernelBegin(op, &stream));
  if (ord->grid) err = jac->k->gridperm(lay, &grid, k_bid, (int *)t_perm.ptr, stream);
  else {
    PetscCheck(jac->lperm.ptr || !m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: a graph ordering without its partition");
    err = jac->k->graphperm(lay, (const int *)jac->lperm.ptr, (int)ord->sh, k_bid, (int *)t_perm.ptr, stream);
  }
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, ord->grid ? "grid ordering" : "graph ordering", 0));
  k_perm = (const int *)t_perm.ptr;
  if (!ord->grid && jac->inner == PCBRBILU_INNER_COLORS && m > 0) { /* a block's rows by colours of its own graph */
    PetscCall(PCMSBufferEnsure(op, &t_inner, sizeof(int) * 3 * (size_t)m, "PCBRBILU's inner ordering"));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->innerorder(lay, csr->ai, csr->aj, k_perm, (int *)t_inner.ptr + m, (int *)t_inner.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "inner ordering", 0));
    k_perm = (const int *)t_inner.ptr;
  }
  /* 1. levels: a row's level is 1 + the largest level of the earlier rows (logical order) of its block it is coupled
     to, in either direction (a_ij or a_ji), so that levels order the forward (lower entries) and the backward (upper
     entries) dependencies alike, whatever the pattern */
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->levels(lay, ord->grid ? &grid : NULL, ord->grid ? k_bid : NULL, csr->ai, csr->aj, k_perm, pos, lev, nu, (int *)jac->lstart.ptr, (MSBRBLevelInfo *)t_info.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "levels", 0));
  PetscCall(PCMSReadBack(op, &info, t_info.ptr, sizeof(info))); /* the one synchronisation */
  lay->lstart = (const int *)jac->lstart.ptr;
  *ok         = (PetscBool)!info.bad;
  jac->maxw   = 0;
  for (PetscInt c = 0; c < ord->ncolors && *ok; c++) {
    const PetscInt rc0 = bstart[cstart[c]], rc1 = bstart[cstart[c + 1]], W = info.W[c];

    PetscCheck(W < 65536, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCBRBILU: a row of the local diagonal block has %" PetscInt_FMT " off-diagonal entries; the kernels take at most 65535", W);
    lay->W[c]    = (int)W;
    lay->soff[c] = nslots;
    nslots += (PetscInt64)(rc1 - rc0) * W;
    /* the GPU's substitutions address a block's slots by 32-bit offsets from its first slot */
    for (PetscInt b = cstart[c]; b < cstart[c + 1]; b++) PetscCheck((PetscInt64)(bstart[b + 1] - bstart[b]) * W <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCBRBILU: block %" PetscInt_FMT " has %" PetscInt_FMT " rows of %" PetscInt_FMT " slots, more than 2^31 slots; use more blocks (-pc_brbilu_blocks or -pc_brbilu_block_rows)", b, bstart[b + 1] - bstart[b], W);
    jac->maxw = PetscMax(jac->maxw, W);
  }
  lay->soff[ord->ncolors] = nslots;
  nlev                    = info.nlev;
  if (*ok) {
    PetscCheck(nlev < PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: %" PetscInt64_FMT " levels", nlev);
    jac->nslots       = nslots;
    jac->nlevels      = nlev;
    jac->maxlev       = info.maxl;
    jac->nlower       = (PetscInt64)info.nlower;
    jac->nupper       = (PetscInt64)info.nupper;
    jac->factor_flops = (PetscLogDouble)info.ffi + 2.0 * m; /* per lower entry (k) a division and a multiply-add per upper entry of row k; per row the drop */
    jac->apply_flops  = 2.0 * (PetscLogDouble)(info.nlower + info.nupper) + (PetscLogDouble)m;
    /* 2. storage rows: a block's rows by level, in logical order inside a level */
    PetscCall(PCBRBILUBufferExact(op, &jac->lptr, sizeof(int) * (size_t)(nlev + 1), "PCBRBILU's level starts"));
    PetscCall(PCBRBILUBufferExact(op, &jac->sperm, sizeof(int) * (size_t)ns, "PCBRBILU's permutation"));
    PetscCall(PCMSBufferEnsure(op, &t_stor, sizeof(int) * (size_t)m, "PCBRBILU's storage rows"));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->storage(lay, k_perm, lev, nu, (int *)jac->lptr.ptr, (int *)jac->sperm.ptr, (int *)t_stor.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "storage", 0));
    lay->lptr  = (const int *)jac->lptr.ptr;
    lay->sperm = (const int *)jac->sperm.ptr;
  }
  PetscCall(PetscTime(&t1));
  jac->tsplit[2] += t1 - t0;
  t0 = t1;
  if (!*ok) { /* not a layout for this ordering: stop here */
    PetscCall(PCBRBILUFreeTemporaries(op, temps, PETSC_STATIC_ARRAY_LENGTH(temps)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* the factors' and the slots' arrays */
  PetscCall(PCMSBufferDestroy(&jac->col));
  PetscCall(PCMSBufferDestroy(&jac->map));
  PetscCall(PCMSBufferDestroy(&jac->nl));
  PetscCall(PCMSBufferDestroy(&jac->dmap));
  PetscCall(PCMSBufferEnsure(op, &jac->col, sizeof(int) * (size_t)nslots, "PCBRBILU's factor columns"));
  PetscCall(PCMSBufferEnsure(op, &jac->map, sizeof(int) * (size_t)nslots, "PCBRBILU's value map"));
  PetscCall(PCMSBufferEnsure(op, &jac->nl, sizeof(unsigned short) * (size_t)ns, "PCBRBILU's lower counts"));
  PetscCall(PCMSBufferEnsure(op, &jac->dmap, sizeof(int) * (size_t)ns, "PCBRBILU's diagonal map"));
  PetscCall(PCMSBufferEnsure(op, &jac->fvals, (size_t)PCBRBILUElem(jac) * (size_t)nslots, "PCBRBILU's factors"));
  PetscCall(PCMSBufferEnsure(op, &jac->fdinv, (size_t)PCBRBILUElem(jac) * (size_t)ns, "PCBRBILU's inverse pivots"));
  PetscCall(PCMSBufferEnsure(op, &jac->y, sizeof(double) * (size_t)ns, "PCBRBILU's substitution vector"));
  PetscCall(PetscTime(&t1));
  jac->tsplit[4] += t1 - t0;
  t0 = t1;
  /* 3. the slots, by the backend */
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->slots(lay, csr->ai, csr->aj, pos, (const int *)t_stor.ptr, (int *)jac->col.ptr, (int *)jac->map.ptr, (unsigned short *)jac->nl.ptr, (int *)jac->dmap.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "slots", 0));
  lay->col = (const int *)jac->col.ptr;
  lay->nl  = (const unsigned short *)jac->nl.ptr;
  if (ord->grid && jac->k->tbuf_max > 0) PetscCall(PCBRBILUBufferSetUp(pc, &grid, &t_bid));
  PetscCall(PCBRBILUFreeTemporaries(op, temps, PETSC_STATIC_ARRAY_LENGTH(temps)));
  jac->laid = PETSC_TRUE;
  PetscCall(PetscTime(&t1));
  jac->tsplit[3] += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A graph ordering (brbordering.h) made where the PC computes: the locality partition of Ad into blocks of sh rows
   (PCMSOperatorLocalityPerm(): on the GPU from the device CSR, into jac->lperm, kept for the layout's
   MS_BRB_GRAPH_PERM), the edges of its block graph (MS_BRB_BLOCK_EDGES: a few MB read back), then the colouring on the
   host (a graph of one node per block) */
static PetscErrorCode PCBRBILUGraphOrdering(PC pc, const PCMSCSR *csr, PetscInt sh)
{
  PC_BRBILU          *jac = (PC_BRBILU *)pc->data;
  PCMSOperator       *op  = &jac->op;
  const PetscInt      m = op->m, nb = m > 0 ? (m + sh - 1) / sh : 0;
  PCMSBuffer          t_blk = {0}, t_keys = {0}, t_info = {0};
  MSBRBEdgeInfo       info;
  unsigned long long *keys = NULL;
  PetscInt64          cap;
  void               *stream;
  int                 err;

  PetscFunctionBegin;
  PetscCheck(sh >= 1 && sh <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: %" PetscInt_FMT " rows per block", sh);
  PetscCall(PCMSBufferEnsure(op, &jac->lperm, sizeof(int) * (size_t)PetscMax(m, 1), "PCBRBILU's locality partition"));
  if (m > 0) PetscCall(PCMSOperatorLocalityPerm(op, csr, sh, (int *)jac->lperm.ptr));
  PetscCall(PCMSBufferEnsure(op, &t_blk, sizeof(int) * (size_t)PetscMax(m, 1), "PCBRBILU's blocks of the rows"));
  PetscCall(PCMSBufferEnsure(op, &t_info, sizeof(MSBRBEdgeInfo), "PCBRBILU's block graph counts"));
  /* the edges: a guess of the buffer first (a block of a 3-D mesh has a few tens of neighbours), the count if it was
     too small */
  cap = PetscMax((PetscInt64)32 * nb, 1024);
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscCall(PCMSBufferDestroy(&t_keys));
    PetscCall(PCMSBufferEnsure(op, &t_keys, sizeof(unsigned long long) * (size_t)cap, "PCBRBILU's block graph"));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->blockedges((int)m, csr->ai, csr->aj, (const int *)jac->lperm.ptr, (int)sh, (int *)t_blk.ptr, (unsigned long long *)t_keys.ptr, cap, (MSBRBEdgeInfo *)t_info.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "block graph", 0));
    PetscCall(PCMSReadBack(op, &info, t_info.ptr, sizeof(info)));
    if (info.nkeys <= cap) break;
    PetscCheck(!pass, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: the block graph grew from %" PetscInt64_FMT " to %" PetscInt64_FMT " edges", (PetscInt64)cap, (PetscInt64)info.nkeys);
    cap = info.nkeys;
  }
  PetscCall(PetscMalloc1(PetscMax(info.nkeys, 1), &keys));
  PetscCall(PCMSReadBack(op, keys, t_keys.ptr, sizeof(unsigned long long) * (size_t)info.nkeys));
  PetscCall(PCMSBufferDestroy(&t_keys));
  PetscCall(PCMSBufferDestroy(&t_blk));
  PetscCall(PCMSBufferDestroy(&t_info));
  PetscCall(BRBOrderingCreateGraph(m, sh, info.nkeys, keys, info.noff, info.ninblock, &jac->ord));
  PetscCall(PetscFree(keys));
  PetscCall(PetscInfo(pc, "PCBRBILU: graph ordering: %" PetscInt_FMT " blocks of %" PetscInt_FMT " rows, %" PetscInt64_FMT " block graph edges, %" PetscInt_FMT " colours%s; %.1f%% of the off-diagonal entries inside a block\n", nb, sh, (PetscInt64)info.nkeys, jac->ord->ncolors, jac->ord->bipartite ? " (bipartite)" : "", info.noff ? 100.0 * (double)info.ninblock / (double)info.noff : 100.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ordering and storage (kept while the pattern and the ordering options stay); csr: Ad's, with columns and values */
static PetscErrorCode PCBRBILUStructure(PC pc, const PCMSCSR *csr)
{
  PC_BRBILU    *jac = (PC_BRBILU *)pc->data;
  PCMSOperator *op  = &jac->op;
  const char   *why = NULL;
  PetscInt      box[3] = {0, 1, 1}, nblk[3] = {1, 1, 1}, sh, nsm = 0;
  PetscBool     ok;
  int           nsm32 = 0, err;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_BRBILUOrdering, pc, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  err = jac->k->multiprocessors(&nsm32);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCBRBILU: the %s kernel multiprocessors failed with code %d", jac->k->backend, err);
  jac->nsm = nsm = nsm32;
  if (op->m == 0) {
    PetscCall(BRBOrderingCreateGrid(box, nblk, &jac->ord));
  } else {
    if (jac->ordering != PCBRBILU_ORDERING_GRAPH) PetscCall(PCBRBILUGetBox(pc, op->m, box, &why));
    else why = "-pc_brbilu_ordering graph";
    PetscCheck(!why || jac->ordering != PCBRBILU_ORDERING_GRID, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PCBRBILU: -pc_brbilu_ordering grid needs a DMDA operator (dof 1, star stencil; the PC's DM or the matrix's): %s", why);
    if (!why) {
      if (jac->nblk[0] > 0) {
        for (PetscInt a = 0; a < 3; a++) nblk[a] = PetscMin(PetscMax(jac->nblk[a], 1), box[a]);
      } else PetscCall(BRBOrderingGridBlocks(box, nsm, jac->minrows, nblk));
      PetscCall(BRBOrderingCreateGrid(box, nblk, &jac->ord));
      PetscCall(PetscTime(&t1));
      jac->tsplit[1] += t1 - t0;
      PetscCall(PCBRBILUBuildLayout(pc, csr, &ok));
      PetscCall(PetscTime(&t0));
      if (!ok) {
        why = "the operator couples two blocks of one colour (not a star stencil on the DMDA)";
        PetscCheck(jac->ordering != PCBRBILU_ORDERING_GRID, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "PCBRBILU: -pc_brbilu_ordering grid: %s", why);
        PetscCall(PetscInfo(pc, "PCBRBILU: grid ordering not used: %s; graph ordering instead\n", why));
        PetscCall(BRBOrderingDestroy(&jac->ord));
      }
    }
    if (why) {
      jac->fallback = why;
      if (jac->brows > 0) sh = jac->brows;
      else PetscCall(BRBOrderingGraphRows(op->m, nsm, jac->minrows, &sh));
      PetscCall(PCBRBILUGraphOrdering(pc, csr, sh));
    }
  }
  PetscCall(PetscTime(&t1));
  jac->tsplit[1] += t1 - t0;
  if (!jac->laid) {
    PetscCall(PCBRBILUBuildLayout(pc, csr, &ok));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: the block colouring couples two blocks of one colour");
  }
  PetscCall(PCMSBufferDestroy(&jac->lperm)); /* the layout's kernels have run (PCBRBILUFreeTemporaries() waited) */
  jac->structure = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(PC_BRBILUOrdering, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the automatic choice's steps: the shifts s of ILU(0) of A + s diag(A) tried when ILU(0) itself breaks down (Manteuffel
   (1980)'s shifted incomplete factorization, with the shift growing tenfold) */
static const PetscReal PCBRBILUShifts[] = {1e-3, 1e-2, 1e-1, 1.0};

/* alpha and the diagonal's factor of a factorization */
static void PCBRBILUParameters(PC_BRBILU *jac, PCBRBILUType type, PetscReal shift, double *alpha, double *pertfac)
{
  *alpha   = type == PCBRBILU_ILU ? 0.0 : (type == PCBRBILU_RMILU ? (double)jac->alpha : 1.0);
  *pertfac = (type == PCBRBILU_PMILU ? 1.0 + (double)jac->perturb : 1.0) * (1.0 + (double)shift);
}

/* "rmilu(0)" or "ilu(0) of A + 0.01 diag(A)" */
static PetscErrorCode PCBRBILUFactorName(PCBRBILUType type, PetscReal shift, char *buf, size_t n)
{
  PetscFunctionBegin;
  if (shift > 0) PetscCall(PetscSNPrintf(buf, n, "%s(0) of A + %g diag(A)", PCBRBILUTypes[type], (double)shift));
  else PetscCall(PetscSNPrintf(buf, n, "%s(0)", PCBRBILUTypes[type]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One factorization (collective) of Ad's values (csr) with the given type and shift, into jac->work and jac->d: *gbad
   the first global row whose pivot failed the test (-1: none), *minratio the smallest d_i / a_ii of all processes */
static PetscErrorCode PCBRBILUFactorTry(PC pc, const PCMSCSR *csr, PCBRBILUType type, PetscReal shift, PetscInt64 *gbad, PetscReal *minratio)
{
  PC_BRBILU       *jac = (PC_BRBILU *)pc->data;
  PCMSOperator    *op  = &jac->op;
  const PetscInt64 ns  = jac->lay.roff[jac->lay.ncolors];
  double           alpha, pertfac;
  MSBRBStatus      st;
  PetscInt64       lbad;
  PetscReal        r;
  char             name[64];
  void            *stream;
  int              err;

  PetscFunctionBegin;
  PCBRBILUParameters(jac, type, shift, &alpha, &pertfac);
  PetscCall(PCMSBufferEnsure(op, &jac->work, sizeof(double) * (size_t)PetscMax(jac->nslots, 1), "PCBRBILU's factorization work"));
  PetscCall(PCMSBufferEnsure(op, &jac->d, sizeof(double) * (size_t)PetscMax(ns, 1), "PCBRBILU's pivots"));
  PetscCall(PCMSBufferEnsure(op, &jac->status, sizeof(MSBRBStatus), "PCBRBILU's status"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->factor(&jac->lay, (const int *)jac->map.ptr, (const int *)jac->dmap.ptr, csr->aa, alpha, pertfac, (double)jac->pivtol, (double *)jac->work.ptr, (double *)jac->d.ptr, (MSBRBStatus *)jac->status.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "factor", jac->factor_flops));
  PetscCall(PCMSReadBack(op, &st, jac->status.ptr, sizeof(st)));
  lbad = st.badrow == MS_BRB_BAD_NONE ? -1 : (PetscInt64)st.badrow;
  PetscCall(PCMSFirstBad(pc, op, 1, 1, &lbad, gbad));
  r = ns > 0 && st.minkey != MS_BRB_BAD_NONE ? (PetscReal)MSBRBRatioFromKey(st.minkey) : PETSC_MAX_REAL;
  if (PetscIsNanReal(r)) r = -PETSC_MAX_REAL;
  PetscCallMPI(MPIU_Allreduce(&r, minratio, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)pc)));
  PetscCall(PCBRBILUFactorName(type, shift, name, sizeof(name)));
  if (*gbad < 0) PetscCall(PetscInfo(pc, "PCBRBILU: %s: every pivot passed, the smallest ratio d_i / a_ii is %g\n", name, (double)*minratio));
  else PetscCall(PetscInfo(pc, "PCBRBILU: %s: the pivot of row %" PetscInt64_FMT " failed the test (d_i / a_ii > %g), the smallest ratio d_i / a_ii is %g\n", name, *gbad, (double)jac->pivtol, (double)*minratio));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* why the operator is not M-matrix-like (PCMSAnalysis.mmatrix false; the errors of the check excluded) */
static PetscErrorCode PCBRBILUNotMMatrix(const PCMSAnalysis *an, char *buf, size_t n)
{
  PetscFunctionBegin;
  if (an->negdiag >= 0) PetscCall(PetscSNPrintf(buf, n, "row %" PetscInt64_FMT " has a negative diagonal entry", an->negdiag));
  else if (an->posoff >= 0) PetscCall(PetscSNPrintf(buf, n, "%" PetscInt64_FMT " rows have positive off-diagonal entries, the first row %" PetscInt64_FMT, an->nposoff, an->posoff));
  else if (an->notdd >= 0) PetscCall(PetscSNPrintf(buf, n, "%" PetscInt64_FMT " rows are not diagonally dominant, the first row %" PetscInt64_FMT, an->nnotdd, an->notdd));
  else PetscCall(PetscSNPrintf(buf, n, "it is M-matrix-like"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: the error for global row g whose pivot failed in the factorization just made (jac->d), named with its
   block; remedy: what to do */
static PetscErrorCode PCBRBILUPivotError(PC pc, PetscInt64 g, PCBRBILUType type, PetscReal shift, const char *remedy)
{
  PC_BRBILU    *jac  = (PC_BRBILU *)pc->data;
  PCMSOperator *op   = &jac->op;
  MPI_Comm      comm = PetscObjectComm((PetscObject)pc);
  PetscReal     info[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}; /* rank, block, colour, pivot, a_ii, ix, iy, iz, rows */
  PetscMPIInt   rank;
  char          name[64], where[160];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (g >= op->rstart && g < op->rstart + op->m) {
    const PetscInt     o = (PetscInt)(g - op->rstart);
    PetscInt           s = 0, b = 0, c = 0, bid, ncols;
    int               *sp;
    double             piv;
    const PetscInt    *cols;
    const PetscScalar *vals;

    /* its storage row: found in sperm (only the setup's temporaries had the inverse) */
    PetscCall(PetscMalloc1(op->m, &sp));
    PetscCall(PCMSReadBack(op, sp, jac->sperm.ptr, sizeof(int) * (size_t)op->m));
    while (s < op->m && sp[s] != (int)o) s++;
    PetscCall(PetscFree(sp));
    PetscCheck(s < op->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBRBILU: row %" PetscInt_FMT " has no storage row", o);
    PetscCall(PCMSReadBack(op, &piv, (const double *)jac->d.ptr + s, sizeof(double)));
    /* a block's storage rows are its logical positions, rearranged by level */
    while (b + 1 < jac->ord->nblocks && s >= jac->ord->bstart[b + 1]) b++;
    while (c + 1 < jac->ord->ncolors && b >= jac->ord->cstart[c + 1]) c++;
    bid = jac->ord->bid[b];
    PetscCall(MatGetRow(op->Ad, o, &ncols, &cols, &vals));
    for (PetscInt e = 0; e < ncols; e++)
      if (cols[e] == o) info[4] = PetscRealPart(vals[e]);
    PetscCall(MatRestoreRow(op->Ad, o, &ncols, &cols, &vals));
    info[0] = rank;
    info[1] = (PetscReal)b;
    info[2] = (PetscReal)c;
    info[3] = piv;
    if (jac->ord->grid) {
      info[5] = (PetscReal)(bid % jac->ord->nblk[0]);
      info[6] = (PetscReal)((bid / jac->ord->nblk[0]) % jac->ord->nblk[1]);
      info[7] = (PetscReal)(bid / (jac->ord->nblk[0] * jac->ord->nblk[1]));
    } else info[5] = (PetscReal)bid;
    info[8] = (PetscReal)(jac->ord->bstart[b + 1] - jac->ord->bstart[b]);
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, info, 9, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(PCBRBILUFactorName(type, shift, name, sizeof(name)));
  if (jac->ord->grid)
    PetscCall(PetscSNPrintf(where, sizeof(where), "block (%d,%d,%d) of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " on process %d, colour %s, %d rows", (int)info[5], (int)info[6], (int)info[7], jac->ord->nblk[0], jac->ord->nblk[1], jac->ord->nblk[2], (int)info[0], info[2] == 0 ? "red" : "black", (int)info[8]));
  else PetscCall(PetscSNPrintf(where, sizeof(where), "block %d of the locality partition on process %d, colour %d, %d rows", (int)info[5], (int)info[0], (int)info[2], (int)info[8]));
  SETERRQ(comm, PETSC_ERR_MAT_LU_ZRPVT, "PCBRBILU: the %s factorization broke down in row %" PetscInt64_FMT " (global, user numbering; %s): its pivot is %g, its diagonal entry a_ii = %g; a pivot must have the sign of its diagonal entry and |pivot| > %g |a_ii| (-pc_brbilu_pivot_tol). %s", name, g, where, (double)info[3], (double)info[4], (double)jac->pivtol, remedy);
}

/* Collective: the error for an operator no ILU(0)-type factorization can take (a non-finite entry, a missing or zero
   diagonal entry), named with its row */
static PetscErrorCode PCBRBILUOperatorError(PC pc)
{
  PC_BRBILU    *jac  = (PC_BRBILU *)pc->data;
  PCMSOperator *op   = &jac->op;
  MPI_Comm      comm = PetscObjectComm((PetscObject)pc);
  PetscInt64    g    = jac->an.nonfinite >= 0 ? jac->an.nonfinite : jac->an.nodiag;
  PetscReal     info[4] = {0, 0, 0, 0}; /* column, value, has a diagonal entry, process */
  PetscMPIInt   rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (g >= op->rstart && g < op->rstart + op->m) {
    const PetscInt     o = (PetscInt)(g - op->rstart);
    PetscInt           ncols;
    const PetscInt    *cols;
    const PetscScalar *vals;

    PetscCall(MatGetRow(op->Ad, o, &ncols, &cols, &vals));
    for (PetscInt e = 0; e < ncols; e++) {
      const PetscReal v = PetscRealPart(vals[e]);

      if (cols[e] == o) info[2] = 1;
      if (jac->an.nonfinite >= 0 && PetscIsInfOrNanReal(v)) {
        info[0] = (PetscReal)(cols[e] + op->rstart);
        info[1] = v;
        break;
      }
    }
    PetscCall(MatRestoreRow(op->Ad, o, &ncols, &cols, &vals));
    info[3] = rank;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, info, 4, MPIU_REAL, MPIU_SUM, comm));
  PetscCheck(jac->an.nonfinite < 0, comm, PETSC_ERR_FP, "PCBRBILU: row %" PetscInt64_FMT " of the operator (global, user numbering; process %d) has the entry %g in column %" PetscInt64_FMT ", which is not finite: no preconditioner can use it; fix the assembly of the operator (a division by zero, an uninitialised value)", g, (int)info[3], (double)info[1], (PetscInt64)info[0]);
  SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCBRBILU: row %" PetscInt64_FMT " of the operator (global, user numbering; process %d) has %s in the process's diagonal block: ILU(0)-type factorizations divide by the diagonal. For a saddle-point (constrained) system use -pc_type fieldsplit, or PETSc's -pc_type ilu -pc_factor_shift_type nonzero; an empty row makes the operator singular: fix its assembly", g, (int)info[3], info[2] > 0 ? "a zero diagonal entry" : "no diagonal entry");
}

/* The factorization (collective), chosen (PCBRBILU_AUTO) or as set: the attempts, the choice and why (jac->ftype,
   fshift, minratio, why). *gbad >= 0: the last attempt broke down in that global row; *remedy then says what to do. */
static PetscErrorCode PCBRBILUChoose(PC pc, const PCMSCSR *csr, PetscInt64 *gbad, const char **remedy)
{
  PC_BRBILU     *jac = (PC_BRBILU *)pc->data;
  PCMSAnalysis  *an  = &jac->an;
  PCBRBILUType   type;
  PetscReal      shift = jac->shift;
  char           reason[200], name[64];
  size_t         len;

  PetscFunctionBegin;
  *remedy = NULL;
  PetscCall(PCBRBILUNotMMatrix(an, reason, sizeof(reason)));
  if (jac->type != PCBRBILU_AUTO) { /* as set: a breakdown is the user's to resolve */
    type = jac->type;
    PetscCall(PCBRBILUFactorTry(pc, csr, type, shift, gbad, &jac->minratio));
    if (type == PCBRBILU_ILU || an->mmatrix) PetscCall(PetscSNPrintf(jac->why, sizeof(jac->why), "as set (-pc_brbilu_type)"));
    else PetscCall(PetscSNPrintf(jac->why, sizeof(jac->why), "as set (-pc_brbilu_type); the modified factorizations are made for M-matrix-like operators, and in this one %s", reason));
    if (*gbad >= 0) {
      if (type == PCBRBILU_MILU && jac->ord->grid) *remedy = "Unperturbed modified ILU breaks down under block red-black ordering (Shioya (2022), ch. 4): use -pc_brbilu_type rmilu or pmilu, or auto (the default)";
      else if (type == PCBRBILU_ILU) *remedy = "Use -pc_brbilu_type auto (the default: ILU(0) with a growing diagonal shift where it breaks down), a shift (-pc_brbilu_shift 0.1), or -pc_type jacobi or gamg";
      else if (an->mmatrix) *remedy = "The modified factorizations' compensation cancelled the pivot: use -pc_brbilu_type auto (the default), ilu, or rmilu with a smaller -pc_brbilu_relax";
      else *remedy = "Relaxed and perturbed modified ILU need an M-matrix-like operator (a positive diagonal, off-diagonal entries <= 0, rows weakly diagonally dominant): use -pc_brbilu_type auto (the default) or ilu";
    }
    jac->ftype  = type;
    jac->fshift = shift;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* automatic: relaxed MILU where it is stable, ILU(0) otherwise, shifted when even that breaks down. Rows ordered by
     colours inside the blocks (a graph ordering's default inner ordering) drop much more fill than a natural order, all
     of which relaxed MILU moves to the pivots: ILU(0) there (under Richardson as a GAMG level smoother relaxed MILU
     took 442 GMRES iterations against 14, tests/ksp/ex1 fvm_gamg_brbilu; as CG's preconditioner on the gmsh FVM system
     of 218 k cells 135 against 129, CPU) */
  {
    PetscBool colors = (PetscBool)(!jac->ord->grid && jac->inner == PCBRBILU_INNER_COLORS && jac->op.m > 0);

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &colors, 1, MPI_C_BOOL, MPI_LOR, PetscObjectComm((PetscObject)pc)));
    type = an->mmatrix && !colors ? PCBRBILU_RMILU : PCBRBILU_ILU;
    if (an->mmatrix && !colors) PetscCall(PetscSNPrintf(jac->why, sizeof(jac->why), "automatic: the operator is M-matrix-like, where relaxed MILU is stable: a positive diagonal, off-diagonal entries <= 0, rows weakly diagonally dominant"));
    else if (an->mmatrix) PetscCall(PetscSNPrintf(jac->why, sizeof(jac->why), "automatic: the operator is M-matrix-like, but the rows of the graph ordering's blocks are ordered by colours, whose dropped fill relaxed MILU would move to the pivots (-pc_brbilu_inner_ordering partition keeps relaxed MILU)"));
    else PetscCall(PetscSNPrintf(jac->why, sizeof(jac->why), "automatic: relaxed MILU needs an M-matrix-like operator, and in this one %s", reason));
  }
  PetscCall(PCBRBILUFactorTry(pc, csr, type, shift, gbad, &jac->minratio));
  if (*gbad >= 0 && type == PCBRBILU_RMILU) {
    PetscCall(PetscStrlen(jac->why, &len));
    PetscCall(PetscSNPrintf(jac->why + len, sizeof(jac->why) - len, "; rmilu broke down in row %" PetscInt64_FMT ": ILU(0) instead", *gbad));
    type = PCBRBILU_ILU;
    PetscCall(PCBRBILUFactorTry(pc, csr, type, shift, gbad, &jac->minratio));
  }
  if (*gbad >= 0) {
    const PetscInt64 g0 = *gbad;

    for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(PCBRBILUShifts) && *gbad >= 0; k++) {
      if (PCBRBILUShifts[k] <= jac->shift) continue;
      shift = PCBRBILUShifts[k];
      PetscCall(PCBRBILUFactorTry(pc, csr, type, shift, gbad, &jac->minratio));
    }
    PetscCall(PCBRBILUFactorName(type, shift, name, sizeof(name)));
    PetscCall(PetscStrlen(jac->why, &len));
    PetscCall(PetscSNPrintf(jac->why + len, sizeof(jac->why) - len, "; ILU(0) broke down in row %" PetscInt64_FMT ": %s instead", g0, name));
    if (*gbad >= 0) *remedy = "Even ILU(0) with the diagonal doubled keeps a pivot of the wrong sign: the operator is far from diagonally dominant (a symmetric one with a positive diagonal is probably not positive definite, which CG needs). Use -pc_type jacobi or -pc_type gamg (with -ksp_type gmres or minres for an indefinite operator), or a larger shift (-pc_brbilu_type ilu -pc_brbilu_shift 10)";
  }
  jac->ftype  = type;
  jac->fshift = shift;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factors in their precision from the factorization (jac->work, jac->d), which are then freed */
static PetscErrorCode PCBRBILUConvert(PC pc)
{
  PC_BRBILU    *jac = (PC_BRBILU *)pc->data;
  PCMSOperator *op  = &jac->op;
  void         *stream;
  int           err;

  PetscFunctionBegin;
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->convert(&jac->lay, jac->precision == PCBRBILU_PRECISION_SINGLE, jac->symmetric, (const double *)jac->work.ptr, (const double *)jac->d.ptr, jac->fvals.ptr, jac->fdinv.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "convert", (PetscLogDouble)(jac->nupper + op->m)));
  PetscCall(PCMSSynchronize(op)); /* before the work arrays go */
  PetscCall(PCMSBufferDestroy(&jac->work));
  PetscCall(PCMSBufferDestroy(&jac->d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the symmetric variant: as set, else MatIsSymmetricKnown(), else the check's symmetry test (asked for here) */
static PetscErrorCode PCBRBILUSymmetry(PC pc, PetscBool *check)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;
  PetscBool  set, flg;

  PetscFunctionBegin;
  *check = PETSC_FALSE;
  if (jac->symmetric_opt != PETSC_BOOL3_UNKNOWN) {
    jac->symmetric = (PetscBool)(jac->symmetric_opt == PETSC_BOOL3_TRUE);
    PetscCall(PetscSNPrintf(jac->symwhy, sizeof(jac->symwhy), "as set, -pc_brbilu_symmetric %s", jac->symmetric ? "true" : "false"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatIsSymmetricKnown(pc->pmat, &set, &flg));
  if (set) {
    jac->symmetric = flg;
    PetscCall(PetscSNPrintf(jac->symwhy, sizeof(jac->symwhy), "the operator is known to be %s: MatIsSymmetricKnown()", flg ? "symmetric" : "nonsymmetric"));
  } else *check = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_BRBILU(PC pc)
{
  PC_BRBILU             *jac = (PC_BRBILU *)pc->data;
  PCMSOperator          *op  = &jac->op;
  /* no image: PCBRBILU reads the CSR of the diagonal block (block Jacobi across processes: Ao unused) */
  const PCMSImageRequest dreq = {PCMS_ENCODING_NONE, 0, PCMS_ORDERING_ANY, PETSC_FALSE}, oreq = {PCMS_ENCODING_NONE, 0, PCMS_ORDERING_ANY, PETSC_FALSE};
  PCMSCSR                csr;
  PetscLogDouble         t0, t1, tf;
  PetscBool              check;
  PetscInt64             gbad;
  const char            *remedy;
  char                   name[64];

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  jac->setup = PETSC_FALSE;
  for (PetscInt i = 0; i < 6; i++) jac->tsplit[i] = 0;
  PetscCall(PCMSOperatorSetUp(pc, op, &dreq, &oreq));
  PetscCall(PetscTime(&t1));
  jac->tsplit[0] = t1 - t0;
  jac->k         = PCMSKernels(op, MSBRBKernels);
  /* Ad's CSR where the PC computes (on the GPU aijcusparse's own arrays, a MATMODSELL's image's, else a copy): the
     ordering, the layout, the check and the factorization read it */
  PetscCall(PCMSOperatorGetCSR(op, PETSC_TRUE, PETSC_TRUE, &csr));
  if (op->rebuilt || !jac->structure) {
    PetscCall(PCBRBILUFreeStructure(pc));
    PetscCall(PCBRBILUStructure(pc, &csr));
  }
  PetscCall(PetscTime(&tf));
  PetscCall(PetscLogEventBegin(PC_BRBILUFactor, pc, 0, 0, 0));
  /* what the operator is: the check (every setup: the values may have changed), then the factorization */
  PetscCall(PCBRBILUSymmetry(pc, &check));
  PetscCall(PCMSOperatorAnalyse(pc, op, &csr, check, &jac->an));
  if (check) {
    jac->symmetric = jac->an.symmetric;
    if (jac->an.symmetric) PetscCall(PetscSNPrintf(jac->symwhy, sizeof(jac->symwhy), "the diagonal block of every process is symmetric, checked at setup"));
    else PetscCall(PetscSNPrintf(jac->symwhy, sizeof(jac->symwhy), "the diagonal block is not symmetric in row %" PetscInt64_FMT ", checked at setup", jac->an.asym));
  }
  if (jac->an.nonfinite >= 0 || jac->an.nodiag >= 0) {
    PetscCall(PCMSOperatorRestoreCSR(op, &csr));
    PetscCall(PetscLogEventEnd(PC_BRBILUFactor, pc, 0, 0, 0));
    PetscCall(PCBRBILUOperatorError(pc));
  }
  PetscCall(PCBRBILUChoose(pc, &csr, &gbad, &remedy));
  PetscCall(PCMSOperatorRestoreCSR(op, &csr));
  if (gbad >= 0) {
    PetscCall(PetscLogEventEnd(PC_BRBILUFactor, pc, 0, 0, 0));
    PetscCall(PCBRBILUPivotError(pc, gbad, jac->ftype, jac->fshift, remedy));
  }
  PetscCall(PCBRBILUConvert(pc));
  PetscCall(PetscLogEventEnd(PC_BRBILUFactor, pc, 0, 0, 0));
  PetscCall(PetscTime(&t1));
  jac->tsplit[5]  = t1 - tf;
  jac->setup_time = t1 - t0;
  PetscCall(PCBRBILUFactorName(jac->ftype, jac->fshift, name, sizeof(name)));
  PetscCall(PetscInfo(pc, "PCBRBILU: %s (%s); %s factors (%s)\n", name, jac->why, jac->symmetric ? "symmetric" : "nonsymmetric", jac->symwhy));
  PetscCall(PetscInfo(pc, "PCBRBILU setup %g s = operator %g + ordering %g + levels %g + slots %g + upload %g + factor %g s\n", jac->setup_time, jac->tsplit[0], jac->tsplit[1], jac->tsplit[2], jac->tsplit[3], jac->tsplit[4], jac->tsplit[5]));
  jac->nsetups++;
  jac->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_BRBILU(PC pc, Vec r, Vec z)
{
  PC_BRBILU         *jac = (PC_BRBILU *)pc->data;
  PCMSOperator      *op  = &jac->op;
  Vec                ru = r, zu = z;
  const PetscScalar *b;
  PetscScalar       *x;
  void              *stream;
  int                err;

  PetscFunctionBegin;
  PetscCheck(jac->setup, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBRBILU: the preconditioner is not set up: call PCSetUp() (or KSPSetUp()) first");
  PetscCall(PetscLogEventBegin(PC_BRBILUApply, pc, r, z, 0));
  PetscCall(PCMSStageIn(op, 0, r, PETSC_TRUE, &ru));
  PetscCall(PCMSStageIn(op, 1, z, PETSC_FALSE, &zu));
  PetscCall(PCMSVecGetArrayRead(op, ru, &b));
  PetscCall(PCMSVecGetArray(op, zu, PETSC_MEMORY_ACCESS_WRITE, &x));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->apply(&jac->lay, jac->precision == PCBRBILU_PRECISION_SINGLE, jac->fvals.ptr, jac->fdinv.ptr, (const double *)b, (double *)x, (double *)jac->y.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "apply", jac->apply_flops));
  PetscCall(PCMSVecRestoreArrayRead(op, ru, &b));
  PetscCall(PCMSVecRestoreArray(op, zu, PETSC_MEMORY_ACCESS_WRITE, &x));
  PetscCall(PCMSStageOut(z, zu));
  PetscCall(PetscLogEventEnd(PC_BRBILUApply, pc, r, z, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_BRBILU(PC pc)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCBRBILUFreeStructure(pc));
  PetscCall(PCMSBufferDestroy(&jac->status));
  PetscCall(PCMSOperatorReset(&jac->op));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ordering must be made again (an option that changes it) */
static void PCBRBILUInvalidate(PC_BRBILU *jac)
{
  jac->structure = PETSC_FALSE;
}

static PetscErrorCode PCSetFromOptions_BRBILU(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_BRBILU           *jac = (PC_BRBILU *)pc->data;
  PCBRBILUType         type = jac->type;
  PCBRBILUPrecision    prec = jac->precision;
  PCBRBILUOrderingType ordt = jac->ordering;
  PCBRBILUInnerOrdering inner = jac->inner;
  PetscReal            alpha = jac->alpha, pert = jac->perturb, ptol = jac->pivtol, shift = jac->shift;
  PetscInt             nblk[3] = {jac->nblk[0], jac->nblk[1], jac->nblk[2]}, nmax = 3, brows = jac->brows, minrows = jac->minrows;
  PetscBool            flg, sym;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Block red-black ILU(0) options");
  PetscCall(PetscOptionsEnum("-pc_brbilu_type", "Factorization: auto (rmilu on an M-matrix-like operator, else ilu; ilu when rmilu breaks down, then ilu with a growing diagonal shift), ilu, milu (modified: dropped fill added to the pivot), rmilu (relaxed: alpha times it), pmilu (perturbed: diagonal times 1 + zeta h^2, then milu)", "PCBRBILUSetType", PCBRBILUTypes, (PetscEnum)type, (PetscEnum *)&type, &flg));
  if (flg) PetscCall(PCBRBILUSetType(pc, type));
  PetscCall(PetscOptionsReal("-pc_brbilu_shift", "Diagonal shift s of every factorization: the diagonal a_ii (1 + s) (auto raises it where ILU(0) breaks down)", "PCBRBILUSetShift", shift, &shift, &flg));
  if (flg) PetscCall(PCBRBILUSetShift(pc, shift));
  PetscCall(PetscOptionsRangeReal("-pc_brbilu_relax", "Relaxation alpha of rmilu (Shioya (2022): 0.95; 0 is ilu, 1 is milu)", "PCBRBILUSetRelaxation", alpha, &alpha, &flg, 0.0, 1.0));
  if (flg) PetscCall(PCBRBILUSetRelaxation(pc, alpha));
  PetscCall(PetscOptionsReal("-pc_brbilu_perturb", "Perturbation zeta h^2 of pmilu: the diagonal is multiplied by 1 + this (Shioya (2022): 0.01)", "PCBRBILUSetPerturbation", pert, &pert, &flg));
  if (flg) PetscCall(PCBRBILUSetPerturbation(pc, pert));
  PetscCall(PetscOptionsEnum("-pc_brbilu_factor_precision", "Precision of the stored factors (vectors stay double)", "PCBRBILUSetFactorPrecision", PCBRBILUPrecisions, (PetscEnum)prec, (PetscEnum *)&prec, &flg));
  if (flg) PetscCall(PCBRBILUSetFactorPrecision(pc, prec));
  PetscCall(PetscOptionsReal("-pc_brbilu_pivot_tol", "A pivot d_i with d_i / a_ii <= this (too small, of the other sign than a_ii, or not finite) is a breakdown", "PCBRBILUSetPivotTolerance", ptol, &ptol, &flg));
  if (flg) PetscCall(PCBRBILUSetPivotTolerance(pc, ptol));
  PetscCall(PetscOptionsEnum("-pc_brbilu_ordering", "Block ordering: auto (grid on a DMDA operator, else graph), grid (DMDA bricks, red-black), graph (locality partition and its colouring)", "PCBRBILUSetOrdering", PCBRBILUOrderingTypes, (PetscEnum)ordt, (PetscEnum *)&ordt, &flg));
  if (flg) PetscCall(PCBRBILUSetOrdering(pc, ordt));
  PetscCall(PetscOptionsEnum("-pc_brbilu_inner_ordering", "Rows inside a block of the graph ordering: colors (by colours of the block's own graph: few levels) or partition (the locality partition's order: levels of about two rows)", "PCBRBILUSetInnerOrdering", PCBRBILUInnerOrderings, (PetscEnum)inner, (PetscEnum *)&inner, &flg));
  if (flg) PetscCall(PCBRBILUSetInnerOrdering(pc, inner));
  PetscCall(PetscOptionsIntArray("-pc_brbilu_blocks", "Blocks per axis bx,by,bz of the process's DMDA box (grid ordering; default: nearly cubic blocks, 192 per GPU multiprocessor)", "PCBRBILUSetBlocks", nblk, &nmax, &flg));
  if (flg) {
    for (PetscInt a = nmax; a < 3; a++) nblk[a] = 1;
    PetscCall(PCBRBILUSetBlocks(pc, nblk[0], nblk[1], nblk[2]));
  }
  PetscCall(PetscOptionsBoundedInt("-pc_brbilu_block_rows", "Rows per block of the graph ordering (0: automatic, by the same rule as the grid's)", "PCBRBILUSetBlockRows", brows, &brows, &flg, 0));
  if (flg) PetscCall(PCBRBILUSetBlockRows(pc, brows));
  PetscCall(PetscOptionsBoundedInt("-pc_brbilu_min_block_rows", "Smallest automatic block (small problems get fewer, larger blocks)", "PCBRBILUSetBlockRows", minrows, &minrows, &flg, 1));
  if (flg && minrows != jac->minrows) {
    jac->minrows = minrows;
    PCBRBILUInvalidate(jac);
  }
  sym = jac->symmetric_opt == PETSC_BOOL3_TRUE ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscOptionsBool("-pc_brbilu_symmetric", "Symmetric (IC-type) factors M = (I + L) D (I + L)^T, for CG (default: when the operator is symmetric: MatIsSymmetricKnown(), else checked at setup)", "PCBRBILUSetSymmetric", sym, &sym, &flg));
  if (flg) PetscCall(PCBRBILUSetSymmetric(pc, sym ? PETSC_BOOL3_TRUE : PETSC_BOOL3_FALSE));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_BRBILU(PC pc, PetscViewer viewer)
{
  PC_BRBILU  *jac = (PC_BRBILU *)pc->data;
  PetscBool   isascii;
  const char *where;
  size_t      ab, rb;
  PetscReal   mem[3], gm[3];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (!jac->setup) {
    if (jac->type == PCBRBILU_AUTO) PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization: automatic (rmilu on an M-matrix-like operator, else ilu; ilu when rmilu breaks down, then ilu with a growing diagonal shift)\n"));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization: %s(0), as set\n", PCBRBILUTypes[jac->type]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  factors in %s precision, pivot tolerance %g (relative to |a_ii|)\n", PCBRBILUPrecisions[jac->precision], (double)jac->pivtol));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  (not set up yet)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    char name[64];

    PetscCall(PCBRBILUFactorName(jac->ftype, jac->fshift, name, sizeof(name)));
    if (jac->ftype == PCBRBILU_RMILU) PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization: %s, relaxation alpha %g\n", name, (double)jac->alpha));
    else if (jac->ftype == PCBRBILU_PMILU) PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization: %s, perturbation zeta h^2 %g (diagonal times %g)\n", name, (double)jac->perturb, (double)(1 + jac->perturb)));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization: %s\n", name));
    PetscCall(PetscViewerASCIIPrintf(viewer, "    %s\n", jac->why));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  factors in %s precision, pivot tolerance %g (relative to |a_ii|: every pivot has the sign of its diagonal entry)\n", PCBRBILUPrecisions[jac->precision], (double)jac->pivtol));
  if (!jac->symmetric) PetscCall(PetscViewerASCIIPrintf(viewer, "  nonsymmetric factors: M = (I + L) D (I + U~) (%s)\n", jac->symwhy));
  else if (jac->an.negdiag < 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  symmetric (IC-type) factors: M = (I + L) D (I + L^T) with positive pivots, symmetric positive definite: usable with CG (%s)\n", jac->symwhy));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  symmetric (IC-type) factors: M = (I + L) D (I + L^T); the operator has negative diagonal entries (row %" PetscInt64_FMT "), so neither it nor M is positive definite: not for CG (%s)\n", jac->an.negdiag, jac->symwhy));
  PetscCall(PCMSOperatorDescribe(&jac->op, &where, NULL));
  if (jac->ord->grid)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  ordering: block red-black on the DMDA box (process 0: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " points, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " blocks%s), %" PetscInt_FMT " colours\n", jac->ord->box[0], jac->ord->box[1], jac->ord->box[2], jac->ord->nblk[0], jac->ord->nblk[1], jac->ord->nblk[2], jac->nblk[0] ? ", as set" : "", jac->ord->ncolors));
  else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  ordering: block multicolour on the locality partition (process 0: %" PetscInt_FMT " blocks of %" PetscInt_FMT " rows, %" PetscInt_FMT " colours%s, %.1f%% of the off-diagonal entries inside a block), the rows of a block %s\n", jac->ord->nblocks, jac->ord->sh, jac->ord->ncolors, jac->ord->bipartite ? ", red-black" : "", jac->ord->noff ? 100.0 * (double)jac->ord->ninblock / (double)jac->ord->noff : 100.0, jac->inner == PCBRBILU_INNER_COLORS ? "by colours of its own graph" : "in the partition's order"));
    if (jac->fallback && jac->ordering != PCBRBILU_ORDERING_GRAPH) PetscCall(PetscViewerASCIIPrintf(viewer, "  (no grid ordering: %s)\n", jac->fallback));
  }
  PCBRBILUBytes(jac, &ab, &rb);
  mem[0] = (PetscReal)ab;
  mem[1] = (PetscReal)rb;
  mem[2] = (PetscReal)jac->op.m;
  PetscCallMPI(MPIU_Allreduce(mem, gm, 3, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)pc)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  on the %s; %" PetscInt_FMT " slots per row at most; levels (wavefronts) of a block: %" PetscInt_FMT " at most, %.1f rows per level on average (process 0; on the GPU one warp per block and colour phase, the rows of a level on its lanes)\n", where, jac->maxw, jac->maxlev, jac->nlevels > 0 ? (double)jac->op.m / (double)jac->nlevels : 0.0));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %s memory per unknown: %.1f bytes for the factors and the apply, %.1f more kept for value refreshes\n", jac->op.device ? "device" : "host", gm[2] > 0 ? (double)(gm[0] / gm[2]) : 0.0, gm[2] > 0 ? (double)(gm[1] / gm[2]) : 0.0));
  {
    PetscReal bytes;

    PetscCall(PCBRBILUGetStatistics(pc, &bytes, NULL));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  one application moves at least %.6g MB (all processes)\n", (double)(bytes / 1e6)));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  setup time %.4g s (last of %" PetscInt_FMT " setups, process 0) = operator %.4g s + ordering %.4g s + levels %.4g s + slots %.4g s + upload %.4g s + factor %.4g s\n", jac->setup_time, jac->nsetups, jac->tsplit[0], jac->tsplit[1], jac->tsplit[2], jac->tsplit[3], jac->tsplit[4], jac->tsplit[5]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* public interface                                                                                */

static PetscErrorCode PCBRBILUSetType_BRBILU(PC pc, PCBRBILUType type)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  jac->type = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetType - Sets the factorization of `PCBRBILU`

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PCBRBILU_AUTO` (default), `PCBRBILU_ILU`, `PCBRBILU_MILU`, `PCBRBILU_RMILU` or `PCBRBILU_PMILU`

  Options Database Key:
. -pc_brbilu_type <auto> - the factorization

  Level: intermediate

  Notes:
  `PCBRBILU_AUTO` chooses at every setup from a check of the operator: rmilu where it is M-matrix-like (a positive
  diagonal, off-diagonal entries <= 0, rows weakly diagonally dominant: the operators modified ILU was designed for),
  ilu otherwise; ilu when rmilu breaks down, then ilu of A + s diag(A) with s = 0.001, 0.01, 0.1, 1 until no pivot
  breaks down. A breakdown is a pivot d_i with d_i / a_ii <= the pivot tolerance: too small, or of the other sign than
  its diagonal entry. An explicit type is kept: its breakdown is an error naming the row and what to do instead.
  `PCBRBILUGetFactorization()` tells what the last setup made; `-ksp_view` and `-info` say why.

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUGetType()`, `PCBRBILUSetRelaxation()`, `PCBRBILUSetPerturbation()`
@*/
PetscErrorCode PCBRBILUSetType(PC pc, PCBRBILUType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscCheck(type >= PCBRBILU_ILU && type <= PCBRBILU_AUTO, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: unknown factorization type %d", (int)type);
  PetscTryMethod(pc, "PCBRBILUSetType_C", (PC, PCBRBILUType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUGetType_BRBILU(PC pc, PCBRBILUType *type)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  *type = jac->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUGetType - Gets the factorization of `PCBRBILU`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the factorization

  Level: intermediate

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetType()`
@*/
PetscErrorCode PCBRBILUGetType(PC pc, PCBRBILUType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(type, 2);
  PetscUseMethod(pc, "PCBRBILUGetType_C", (PC, PCBRBILUType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetRelaxation_BRBILU(PC pc, PetscReal alpha)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  jac->alpha = alpha;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetRelaxation - Sets the relaxation alpha of the rmilu factorization of `PCBRBILU`: alpha times the dropped
  fill is added to the pivot (0: ilu, 1: milu)

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- alpha - in [0, 1] (default 0.95, Shioya (2022))

  Options Database Key:
. -pc_brbilu_relax <0.95> - the relaxation

  Level: intermediate

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetType()`
@*/
PetscErrorCode PCBRBILUSetRelaxation(PC pc, PetscReal alpha)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, alpha, 2);
  PetscCheck(alpha >= 0 && alpha <= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: the relaxation %g must be in [0, 1]", (double)alpha);
  PetscTryMethod(pc, "PCBRBILUSetRelaxation_C", (PC, PetscReal), (pc, alpha));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetPerturbation_BRBILU(PC pc, PetscReal perturb)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  jac->perturb = perturb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetPerturbation - Sets the perturbation zeta h^2 of the pmilu factorization of `PCBRBILU`: the diagonal is
  multiplied by 1 + zeta h^2 before the modified factorization

  Logically Collective

  Input Parameters:
+ pc      - the preconditioner context
- perturb - the product zeta h^2 (default 0.01, Shioya (2022)), at least 0

  Options Database Key:
. -pc_brbilu_perturb <0.01> - the perturbation

  Level: intermediate

  Note:
  Shioya (2022) writes the perturbation as E = zeta h^2 diag(A) with the mesh size h; the preconditioner takes the
  product zeta h^2 itself, a relative change of the diagonal, so that it applies to operators without a grid.

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetType()`
@*/
PetscErrorCode PCBRBILUSetPerturbation(PC pc, PetscReal perturb)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, perturb, 2);
  PetscCheck(perturb >= 0 && PetscIsNormalReal(1 + perturb), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: the perturbation %g must be at least 0 and finite", (double)perturb);
  PetscTryMethod(pc, "PCBRBILUSetPerturbation_C", (PC, PetscReal), (pc, perturb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetFactorPrecision_BRBILU(PC pc, PCBRBILUPrecision precision)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  if (jac->precision != precision) {
    jac->precision = precision;
    PCBRBILUInvalidate(jac);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetFactorPrecision - Sets the precision the factors of `PCBRBILU` are stored in (the factorization and the
  vectors are double)

  Logically Collective

  Input Parameters:
+ pc        - the preconditioner context
- precision - `PCBRBILU_PRECISION_SINGLE` (default) or `PCBRBILU_PRECISION_DOUBLE`

  Options Database Key:
. -pc_brbilu_factor_precision <single> - the precision

  Level: intermediate

.seealso: [](ch_ksp), `PCBRBILU`
@*/
PetscErrorCode PCBRBILUSetFactorPrecision(PC pc, PCBRBILUPrecision precision)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, precision, 2);
  PetscCheck(precision == PCBRBILU_PRECISION_SINGLE || precision == PCBRBILU_PRECISION_DOUBLE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: unknown precision %d", (int)precision);
  PetscTryMethod(pc, "PCBRBILUSetFactorPrecision_C", (PC, PCBRBILUPrecision), (pc, precision));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetPivotTolerance_BRBILU(PC pc, PetscReal tol)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  jac->pivtol = tol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetPivotTolerance - Sets the pivot test of `PCBRBILU`: a pivot d_i with |d_i| <= tol |a_ii| (or not finite)
  stops the setup with an error naming the row and its block

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- tol - at least 0 (default 1e-8)

  Options Database Key:
. -pc_brbilu_pivot_tol <1e-8> - the tolerance

  Level: advanced

.seealso: [](ch_ksp), `PCBRBILU`
@*/
PetscErrorCode PCBRBILUSetPivotTolerance(PC pc, PetscReal tol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, tol, 2);
  PetscCheck(tol >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: the pivot tolerance %g must be at least 0", (double)tol);
  PetscTryMethod(pc, "PCBRBILUSetPivotTolerance_C", (PC, PetscReal), (pc, tol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetOrdering_BRBILU(PC pc, PCBRBILUOrderingType ordering)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  if (jac->ordering != ordering) {
    jac->ordering = ordering;
    PCBRBILUInvalidate(jac);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetOrdering - Sets how `PCBRBILU` makes its blocks

  Logically Collective

  Input Parameters:
+ pc       - the preconditioner context
- ordering - `PCBRBILU_ORDERING_AUTO` (default: grid on a DMDA operator, else graph), `PCBRBILU_ORDERING_GRID` or
             `PCBRBILU_ORDERING_GRAPH`

  Options Database Key:
. -pc_brbilu_ordering <auto> - the ordering

  Level: advanced

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetBlocks()`, `PCBRBILUSetBlockRows()`
@*/
PetscErrorCode PCBRBILUSetOrdering(PC pc, PCBRBILUOrderingType ordering)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, ordering, 2);
  PetscCheck(ordering >= PCBRBILU_ORDERING_AUTO && ordering <= PCBRBILU_ORDERING_GRAPH, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: unknown ordering %d", (int)ordering);
  PetscTryMethod(pc, "PCBRBILUSetOrdering_C", (PC, PCBRBILUOrderingType), (pc, ordering));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetBlocks_BRBILU(PC pc, PetscInt bx, PetscInt by, PetscInt bz)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  jac->nblk[0] = bx;
  jac->nblk[1] = bx ? by : 0;
  jac->nblk[2] = bx ? bz : 0;
  PCBRBILUInvalidate(jac);  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetBlocks - Sets the blocks per axis of the grid ordering of `PCBRBILU` (each process's DMDA box is cut in
  bx x by x bz nearly equal bricks)

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
. bx - blocks along x (0: automatic for all three)
. by - blocks along y
- bz - blocks along z

  Options Database Key:
. -pc_brbilu_blocks <bx,by,bz> - the blocks

  Level: intermediate

  Note:
  A count larger than the box's points along that axis is reduced to it.

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetOrdering()`
@*/
PetscErrorCode PCBRBILUSetBlocks(PC pc, PetscInt bx, PetscInt by, PetscInt bz)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, bx, 2);
  PetscValidLogicalCollectiveInt(pc, by, 3);
  PetscValidLogicalCollectiveInt(pc, bz, 4);
  PetscCheck(bx == 0 || (bx > 0 && by > 0 && bz > 0), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: blocks per axis %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ": give three positive counts (or 0 for automatic)", bx, by, bz);
  PetscTryMethod(pc, "PCBRBILUSetBlocks_C", (PC, PetscInt, PetscInt, PetscInt), (pc, bx, by, bz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetBlockRows_BRBILU(PC pc, PetscInt rows)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  jac->brows = rows;
  PCBRBILUInvalidate(jac);  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetBlockRows - Sets the rows per block of the graph ordering of `PCBRBILU`

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- rows - rows per block (0: automatic)

  Options Database Key:
. -pc_brbilu_block_rows <0> - the rows per block

  Level: advanced

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetOrdering()`
@*/
PetscErrorCode PCBRBILUSetBlockRows(PC pc, PetscInt rows)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, rows, 2);
  PetscCheck(rows >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: %" PetscInt_FMT " rows per block: give a positive count or 0 (automatic)", rows);
  PetscTryMethod(pc, "PCBRBILUSetBlockRows_C", (PC, PetscInt), (pc, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetSymmetric_BRBILU(PC pc, PetscBool3 sym)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  jac->symmetric_opt = sym;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetSymmetric - Sets whether `PCBRBILU` builds symmetric (IC-type) factors M = (I + L) D (I + L)^T

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- sym - `PETSC_BOOL3_TRUE`, `PETSC_BOOL3_FALSE` or `PETSC_BOOL3_UNKNOWN` (default: symmetric when `MatIsSymmetricKnown()`
        says the operator is, or, when it does not tell, when the setup's check finds the diagonal block symmetric on
        every process)

  Options Database Key:
. -pc_brbilu_symmetric - symmetric factors

  Level: intermediate

  Note:
  With symmetric factors the upper factor is the transpose of the lower one (the same stored numbers), so that M is
  symmetric and `KSPCG` can use it; on a nonsymmetric operator this is a different (and worse) preconditioner.

.seealso: [](ch_ksp), `PCBRBILU`
@*/
PetscErrorCode PCBRBILUSetSymmetric(PC pc, PetscBool3 sym)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCBRBILUSetSymmetric_C", (PC, PetscBool3), (pc, sym));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUGetOrdering_BRBILU(PC pc, IS *is)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;
  PetscInt  *idx;
  int       *sp;

  PetscFunctionBegin;
  PetscCheck(jac->setup, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBRBILU: set the preconditioner up first");
  PetscCall(PetscMalloc1(jac->op.m, &idx));
  PetscCall(PetscMalloc1(PetscMax(jac->op.m, 1), &sp));
  if (jac->op.m) PetscCall(PCMSReadBack(&jac->op, sp, jac->sperm.ptr, sizeof(int) * (size_t)jac->op.m));
  for (PetscInt i = 0; i < jac->op.m; i++) idx[i] = jac->op.rstart + sp[i];
  PetscCall(PetscFree(sp));
  PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)pc), jac->op.m, idx, PETSC_OWN_POINTER, is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUGetOrdering - Gets the elimination order of `PCBRBILU` after its setup: is[i] is the global row (user
  numbering) eliminated i-th among this process's rows (`MatPermute()` with it gives the matrix the factorization works
  on, per process). It is the storage order (blocks colour by colour, a block's rows by level): every two coupled rows
  keep the order of the block ordering, so that an ILU(0) in this order has the same factors.

  Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. is - the ordering (a parallel `IS` to destroy)

  Level: developer

.seealso: [](ch_ksp), `PCBRBILU`
@*/
PetscErrorCode PCBRBILUGetOrdering(PC pc, IS *is)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(is, 2);
  PetscUseMethod(pc, "PCBRBILUGetOrdering_C", (PC, IS *), (pc, is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUGetStatistics_BRBILU(PC pc, PetscReal *bytes, PetscReal *memory)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;
  PetscReal  v[3], g[3];
  size_t     ab, rb;
  PetscInt64 ns;
  PetscReal  es;

  PetscFunctionBegin;
  PetscCheck(jac->setup, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBRBILU: set the preconditioner up first");
  ns = jac->lay.roff[jac->lay.ncolors];
  es = (PetscReal)PCBRBILUElem(jac);
  PCBRBILUBytes(jac, &ab, &rb);
  /* the permutation twice: sperm (4 bytes a row), or on the GPU with a grid ordering tpos (2 bytes) */
  v[0] = (PetscReal)jac->nslots * (es + 4) + (PetscReal)ns * (es + 2 * 2 + 2 * (jac->lay.tbuf > 0 ? 2 : 4) + 3 * 8) + (PetscReal)jac->op.m * 16 + 2.0 * (PetscReal)(jac->rstart.bytes + jac->lstart.bytes + jac->lptr.bytes);
  v[1] = (PetscReal)ab;
  v[2] = (PetscReal)jac->op.m;
  PetscCallMPI(MPIU_Allreduce(v, g, 3, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)pc)));
  if (bytes) *bytes = g[0];
  if (memory) *memory = g[2] > 0 ? g[1] / g[2] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUGetStatistics - Gets the memory traffic of one application of `PCBRBILU` and its memory per unknown, summed over
  the processes

  Collective

  Input Parameter:
. pc - the preconditioner context (set up)

  Output Parameters:
+ bytes  - bytes one application must move at least: every stored factor entry and column once, per storage row the
           inverse pivot, the lower count and the permutation (twice: on the GPU with a grid ordering the row's place
           in its block's buffer, 2 bytes), the work vector written, read and written again,
           b read and x written, the block and level starts twice (neighbours' values assumed in cache); may be `NULL`
- memory - bytes per unknown of the factors and the apply's arrays (device memory on the GPU); may be `NULL`

  Level: developer

.seealso: [](ch_ksp), `PCBRBILU`
@*/
PetscErrorCode PCBRBILUGetStatistics(PC pc, PetscReal *bytes, PetscReal *memory)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCBRBILUGetStatistics_C", (PC, PetscReal *, PetscReal *), (pc, bytes, memory));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetShift_BRBILU(PC pc, PetscReal shift)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  jac->shift = shift;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetShift - Sets the diagonal shift of the factorizations of `PCBRBILU`: the diagonal entries are multiplied
  by 1 + shift before the factorization (an incomplete factorization of A + shift diag(A), Manteuffel (1980))

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- shift - at least 0 (default 0)

  Options Database Key:
. -pc_brbilu_shift <0> - the shift

  Level: advanced

  Note:
  With `PCBRBILU_AUTO` this is the smallest shift: where ILU(0) breaks down the setup tries the shifts 0.001, 0.01,
  0.1, 1 above it. With pmilu the perturbation applies too.

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUGetShift()`, `PCBRBILUSetType()`, `PCBRBILUGetFactorization()`
@*/
PetscErrorCode PCBRBILUSetShift(PC pc, PetscReal shift)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, shift, 2);
  PetscCheck(shift >= 0 && PetscIsNormalReal(1 + shift), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: the shift %g must be at least 0 and finite", (double)shift);
  PetscTryMethod(pc, "PCBRBILUSetShift_C", (PC, PetscReal), (pc, shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUGetShift_BRBILU(PC pc, PetscReal *shift)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  *shift = jac->shift;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUGetShift - Gets the diagonal shift set for the factorizations of `PCBRBILU`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. shift - the shift

  Level: advanced

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetShift()`, `PCBRBILUGetFactorization()`
@*/
PetscErrorCode PCBRBILUGetShift(PC pc, PetscReal *shift)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(shift, 2);
  PetscUseMethod(pc, "PCBRBILUGetShift_C", (PC, PetscReal *), (pc, shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUGetFactorization_BRBILU(PC pc, PCBRBILUType *type, PetscReal *shift, PetscBool *symmetric)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(jac->setup, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBRBILU: set the preconditioner up first");
  if (type) *type = jac->ftype;
  if (shift) *shift = jac->fshift;
  if (symmetric) *symmetric = jac->symmetric;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUGetFactorization - Gets the factorization the last setup of `PCBRBILU` made (with `PCBRBILU_AUTO`, the one
  it chose)

  Not Collective

  Input Parameter:
. pc - the preconditioner context (set up)

  Output Parameters:
+ type      - `PCBRBILU_ILU`, `PCBRBILU_MILU`, `PCBRBILU_RMILU` or `PCBRBILU_PMILU` (may be `NULL`)
. shift     - the diagonal shift s: the factorization of A + s diag(A) (may be `NULL`)
- symmetric - whether the factors are symmetric, M = (I + L) D (I + L)^T (may be `NULL`)

  Level: intermediate

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetType()`, `PCBRBILUSetShift()`, `PCBRBILUSetSymmetric()`
@*/
PetscErrorCode PCBRBILUGetFactorization(PC pc, PCBRBILUType *type, PetscReal *shift, PetscBool *symmetric)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCBRBILUGetFactorization_C", (PC, PCBRBILUType *, PetscReal *, PetscBool *), (pc, type, shift, symmetric));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUSetInnerOrdering_BRBILU(PC pc, PCBRBILUInnerOrdering inner)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  if (jac->inner != inner) {
    jac->inner = inner;
    PCBRBILUInvalidate(jac);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUSetInnerOrdering - Sets the order of the rows inside a block of the graph ordering of `PCBRBILU`

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- inner - `PCBRBILU_INNER_COLORS` (default) or `PCBRBILU_INNER_PARTITION`

  Options Database Key:
. -pc_brbilu_inner_ordering <colors> - the order

  Level: advanced

  Note:
  The rows of a block are factorized and substituted level by level (wavefronts), one GPU warp per block. In the
  partition's order the levels of an unstructured operator hold about two rows each and the warp walks its block
  nearly row by row; by colours of the block's own graph (a greedy colouring in the partition's order) a block has as
  many levels as colours, a few, at the price of a weaker ILU (more iterations). The grid ordering of a `DMDA` keeps
  the lexicographic order inside a brick (its levels are the brick's diagonal planes).

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUGetInnerOrdering()`, `PCBRBILUSetOrdering()`, `PCBRBILUSetBlockRows()`
@*/
PetscErrorCode PCBRBILUSetInnerOrdering(PC pc, PCBRBILUInnerOrdering inner)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, inner, 2);
  PetscCheck(inner == PCBRBILU_INNER_COLORS || inner == PCBRBILU_INNER_PARTITION, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBRBILU: unknown inner ordering %d", (int)inner);
  PetscTryMethod(pc, "PCBRBILUSetInnerOrdering_C", (PC, PCBRBILUInnerOrdering), (pc, inner));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBRBILUGetInnerOrdering_BRBILU(PC pc, PCBRBILUInnerOrdering *inner)
{
  PC_BRBILU *jac = (PC_BRBILU *)pc->data;

  PetscFunctionBegin;
  *inner = jac->inner;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBRBILUGetInnerOrdering - Gets the order of the rows inside a block of the graph ordering of `PCBRBILU`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. inner - the order

  Level: advanced

.seealso: [](ch_ksp), `PCBRBILU`, `PCBRBILUSetInnerOrdering()`
@*/
PetscErrorCode PCBRBILUGetInnerOrdering(PC pc, PCBRBILUInnerOrdering *inner)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(inner, 2);
  PetscUseMethod(pc, "PCBRBILUGetInnerOrdering_C", (PC, PCBRBILUInnerOrdering *), (pc, inner));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the methods of the public Set/Get functions (PetscTryMethod, PetscUseMethod) */
static const PCMSMethod PCBRBILUMethods[] = {
  {"PCBRBILUSetType_C", (PetscErrorCodeFn *)PCBRBILUSetType_BRBILU},
  {"PCBRBILUGetType_C", (PetscErrorCodeFn *)PCBRBILUGetType_BRBILU},
  {"PCBRBILUSetRelaxation_C", (PetscErrorCodeFn *)PCBRBILUSetRelaxation_BRBILU},
  {"PCBRBILUSetPerturbation_C", (PetscErrorCodeFn *)PCBRBILUSetPerturbation_BRBILU},
  {"PCBRBILUSetFactorPrecision_C", (PetscErrorCodeFn *)PCBRBILUSetFactorPrecision_BRBILU},
  {"PCBRBILUSetPivotTolerance_C", (PetscErrorCodeFn *)PCBRBILUSetPivotTolerance_BRBILU},
  {"PCBRBILUSetOrdering_C", (PetscErrorCodeFn *)PCBRBILUSetOrdering_BRBILU},
  {"PCBRBILUSetBlocks_C", (PetscErrorCodeFn *)PCBRBILUSetBlocks_BRBILU},
  {"PCBRBILUSetBlockRows_C", (PetscErrorCodeFn *)PCBRBILUSetBlockRows_BRBILU},
  {"PCBRBILUSetSymmetric_C", (PetscErrorCodeFn *)PCBRBILUSetSymmetric_BRBILU},
  {"PCBRBILUGetOrdering_C", (PetscErrorCodeFn *)PCBRBILUGetOrdering_BRBILU},
  {"PCBRBILUGetStatistics_C", (PetscErrorCodeFn *)PCBRBILUGetStatistics_BRBILU},
  {"PCBRBILUSetShift_C", (PetscErrorCodeFn *)PCBRBILUSetShift_BRBILU},
  {"PCBRBILUGetShift_C", (PetscErrorCodeFn *)PCBRBILUGetShift_BRBILU},
  {"PCBRBILUGetFactorization_C", (PetscErrorCodeFn *)PCBRBILUGetFactorization_BRBILU},
  {"PCBRBILUSetInnerOrdering_C", (PetscErrorCodeFn *)PCBRBILUSetInnerOrdering_BRBILU},
  {"PCBRBILUGetInnerOrdering_C", (PetscErrorCodeFn *)PCBRBILUGetInnerOrdering_BRBILU},
};

static PetscErrorCode PCDestroy_BRBILU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_BRBILU(pc));
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCBRBILUMethods), PCBRBILUMethods, PETSC_FALSE));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCBRBILU - "brbilu" - block red-black ordered ILU(0), modified ILU(0), relaxed and perturbed modified ILU(0), with
   the factors stored in single precision for coalesced substitution on the GPU (Shioya (2022): sections
   3.2-3.3, chapter 4, section 5.3)

   Options Database Keys:
+  -pc_brbilu_type <auto>                - auto (chosen from the operator, below), ilu, milu (dropped fill added to the
                                           pivot: M has A's row sums), rmilu (alpha times it), pmilu (diagonal times
                                           1 + zeta h^2 first, then milu)
.  -pc_brbilu_relax <0.95>               - alpha of rmilu
.  -pc_brbilu_perturb <0.01>             - zeta h^2 of pmilu
.  -pc_brbilu_shift <0>                  - every factorization of A + s diag(A) (auto: the smallest shift tried)
.  -pc_brbilu_factor_precision <single>  - single or double factors (vectors stay double)
.  -pc_brbilu_pivot_tol <1e-8>           - pivot test: d_i / a_ii <= tol (too small, of the other sign, not finite) is a breakdown
.  -pc_brbilu_ordering <auto>            - auto, grid (DMDA bricks), graph (locality partition)
.  -pc_brbilu_inner_ordering <colors>    - rows inside a graph ordering's block: colors (by colours of the block's
                                           own graph: few levels) or partition (the partition's order)
.  -pc_brbilu_blocks <bx,by,bz>          - blocks per axis of each process's DMDA box
.  -pc_brbilu_block_rows <0>             - rows per block of the graph ordering (0: automatic)
.  -pc_brbilu_min_block_rows <64>        - smallest automatic block
-  -pc_brbilu_symmetric                  - symmetric (IC-type) factors, for CG (default: when the operator is symmetric:
                                           MatIsSymmetricKnown(), else checked at setup)

   Level: intermediate

   Notes:
   Each process works on its diagonal block (block Jacobi across processes: off-process couplings are ignored). The
   local rows are cut into blocks, the blocks coloured so that blocks of one colour are not coupled, and the rows
   numbered colour by colour (red first), block by block; ILU(0)-type factorization in that order then needs, for a
   row, only rows of its own block (earlier) and of earlier colours: all blocks of one colour are factorized and
   substituted at once, one GPU warp per block. Inside a block the rows are grouped in levels (wavefronts: a row's
   level is one more than the highest level of the earlier rows of its block it is coupled to; on a brick the
   hyperplanes ix + iy + iz), the rows of a level are independent and go to the warp's lanes, the levels one after
   the other. The elimination order and every row's sums are those of the logical order, so the levels change the
   parallel schedule, not the preconditioner. On a DMDA operator (dof 1, star
   stencil: the PC's DM or the matrix's) the blocks are nearly cubic bricks of the process's box, coloured red/black
   by a checkerboard of block indices; their number follows Shioya (2022), section 5.3.4: the smallest multiple of 32
   giving 32 x 6 blocks per GPU multiprocessor, but blocks of at least -pc_brbilu_min_block_rows points. Other
   operators use the locality partition (blocks of nearby rows found from the graph) and its block colouring:
   2 colours when the block graph is bipartite, else more (greedy), one phase per colour.

   The factors of a block are stored by level, slot-major: the lanes of a warp read consecutive addresses. The first
   kernel reads b in the user's order and the backward kernels write x in the user's order (the permutation costs no
   separate pass). A change of the operator's values only (same nonzero state) keeps the ordering and the storage
   and factorizes again.

   Every setup checks the process's diagonal block (one pass: non-finite entries and missing or zero diagonal
   entries, errors naming the row; negative diagonal entries, positive off-diagonal entries, weak diagonal dominance,
   and the symmetry when `MatIsSymmetricKnown()` does not tell). The default factorization (auto) is rmilu where the
   block is M-matrix-like (a positive diagonal, off-diagonal entries <= 0, rows weakly diagonally dominant: the case
   modified ILU was designed for) and its blocks keep a natural order inside (grid ordering, or inner ordering
   partition), else ilu; ilu when rmilu breaks down; then ilu of A + s diag(A) with s = 0.001, 0.01, 0.1, 1 until no
   pivot breaks down (Manteuffel (1980)); where even that fails, an error naming the row and remedies (-pc_type jacobi
   or gamg, a larger shift). A pivot breaks down when d_i / a_ii <= the pivot tolerance: too small, or of the other sign
   than its diagonal entry (relaxed MILU on an operator that is not M-matrix-like: an indefinite M under CG, or an M^-1
   that GMRES cannot use). An explicit type is kept; its breakdown is an error naming the row, its block and the
   remedy. `-ksp_view` and `-info` say what was chosen and why; `PCBRBILUGetFactorization()` returns it.

   Unperturbed modified ILU (milu) breaks down under block red-black ordering when an interior black block has only
   interior red neighbours towards decreasing coordinates (Shioya (2022), theorem 2: e.g. at least 4 blocks along every
   axis and 5 along one, on an operator with zero row sums inside); rmilu (alpha 0.95) and pmilu (zeta h^2 = 0.01) keep
   the pivots away from zero (theorems 3 and 4).

   With symmetric factors (-pc_brbilu_symmetric, or a symmetric operator) M = (I + L) D (I + L)^T; its pivots have the
   signs of the diagonal entries, so that on a symmetric operator with a positive diagonal M is symmetric positive
   definite: `KSPCG` can use it; otherwise use `KSPBCGS` (the paper's method) or `KSPGMRES`.

   On the GPU every step of the setup runs on the device from the operator's device CSR (for a graph ordering: the
   locality partition, the block graph's edges, the inner ordering; the levels, storage, slots, check and
   factorization); the host colours the block graph (one node per block).

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCILU`, `PCBJACOBI`, `PCBJSMOOTH`, `PCBRBILUSetType()`,
          `PCBRBILUSetRelaxation()`, `PCBRBILUSetPerturbation()`, `PCBRBILUSetFactorPrecision()`, `PCBRBILUSetBlocks()`,
          `PCBRBILUSetPivotTolerance()`, `PCBRBILUSetSymmetric()`, `PCBRBILUGetOrdering()`, `PCBRBILUSetShift()`,
          `PCBRBILUSetInnerOrdering()`, `PCBRBILUGetFactorization()`
M*/
static PetscErrorCode PCCreate_BRBILU(PC pc)
{
  PC_BRBILU *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data           = (void *)jac;
  jac->type          = PCBRBILU_AUTO;
  jac->alpha         = 0.95;
  jac->perturb       = 0.01;
  jac->pivtol        = 1e-8;
  jac->precision     = PCBRBILU_PRECISION_SINGLE;
  jac->ordering      = PCBRBILU_ORDERING_AUTO;
  jac->inner         = PCBRBILU_INNER_COLORS;
  jac->minrows       = 64;
  jac->symmetric_opt = PETSC_BOOL3_UNKNOWN;

  pc->ops->apply          = PCApply_BRBILU;
  pc->ops->setup          = PCSetUp_BRBILU;
  pc->ops->reset          = PCReset_BRBILU;
  pc->ops->destroy        = PCDestroy_BRBILU;
  pc->ops->setfromoptions = PCSetFromOptions_BRBILU;
  pc->ops->view           = PCView_BRBILU;
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCBRBILUMethods), PCBRBILUMethods, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode PCRegister_BRBILU_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCBRBILU, PCCreate_BRBILU));
  PetscCall(PetscLogEventRegister("PCBRBILUOrdering", PC_CLASSID, &PC_BRBILUOrdering));
  PetscCall(PetscLogEventRegister("PCBRBILUFactor", PC_CLASSID, &PC_BRBILUFactor));
  PetscCall(PetscLogEventRegister("PCBRBILUApply", PC_CLASSID, &PC_BRBILUApply));
  PetscFunctionReturn(PETSC_SUCCESS);
}
