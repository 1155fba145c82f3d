/*
   PCBISAI: block incomplete sparse approximate inverses (block-ISAI) of block incomplete factors (Ma et al. (2021),
   sections 3.1-3.2, Algorithm 1), applied as block sparse products, no triangular solve.

   Setup on the local diagonal block Ad of each process (block Jacobi across processes), every step on the backend
   where the preconditioner runs (the GPU when the operator is there; the host reference kernels otherwise, one table):
     0. Choices from the matrix: the block size (the user's, else the operator's, else its largest divisor up to
        MS_BISAI_MAXBS), checks of the entries (a non-finite entry is an error naming its row) and of the symmetry
        (marked, or measured by the check kernel), and the variant:
          ILU: block ILU(0) A ~ L U, M^-1 = M_U M_L with M_L ~ L^-1 on S(|L|^k), M_U ~ U^-1 on S(|U|^k);
          IC:  block IC(0) A ~ L D L^T (the same row-order factorization with positive definite diagonal blocks D,
               U replaced by D L^T), M^-1 = G^T D^-1 G with G = M_L: symmetric positive definite, for CG.
        The symmetric variant on a symmetric operator, the ILU variant otherwise, a user's choice kept.
     1. The block pattern of Ad (every diagonal block kept) and the map of Ad's CSR entries to BSR values, from the
        CSR in the backend's memory (once per nonzero pattern); the values gathered every setup.
     2. The factorization on that pattern: exact in row order (on the GPU one warp per block row, a row starting when
        the rows it depends on are done) or by fixed-point sweeps; diagonal blocks inverted explicitly. A singular
        block (ILU), or a block of D that is not positive definite (IC: the factorization is retried on
        A + alpha diag(A), as PETSc's ICC shifts), is an error naming its block row and a remedy.
     3. The patterns S(|L|^k), S(|U|^k) by symbolic products, and their column views (once per pattern and level).
     4. The approximate inverses: each block column j of M_L solves L(J,J) X = E_j (of M_U: U(J,J) X = E_j) on its
        pattern rows J, one warp per column on the GPU, the blocks of the small system read from F (never stored);
        the symmetric variant's H = G^T D^-1 by a transposing gather.
     5. A probe of the approximate inverses: e = |p - L (M_L p)| / |p| (and the same for U) for a fixed vector p. The
        apply refines the triangular solves by Richardson steps y <- y + M (b - T y) (Anzt et al. (2018)): the probe
        measures the residual after 0 to 3 steps, and the setup takes the fewest steps that bring it to 0.25
        (symmetric variant) or 0.02 (ILU variant), else 3. When no number of steps brings it below 1 the approximate
        inverse is no approximation: a higher level is tried (when the user did not set one), and then the
        preconditioner falls back to block Jacobi on the operator's diagonal blocks, saying so.
   Apply: the products (and steps) on the backend.

   The glue (this file) takes the operator, its split and vectors from the PC layer (pcmsimpl.h); the kernels
   (bisaikernels.h) come as a table, the host reference (bisai_reference.c) or CUDA (bisai.cu), chosen once per
   setup. A BAIJ operator, which the layer does not take, is given to it as an AIJ copy (kept between setups and
   refreshed with MAT_REUSE_MATRIX while the nonzero pattern stays).
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/bisaikernels.h>
#include <petscmodsell.h>
#include <petscksp.h>
#include <petsctime.h>

static PetscLogEvent PC_BISAIILU = 0, PC_BISAIPattern = 0, PC_BISAIInverse = 0, PC_BISAIApply = 0;

const char *const PCBISAIVariants[]  = {"auto", "ilu", "ic", "PCBISAIVariant", "PCBISAI_VARIANT_", NULL};
const char *const PCBISAIILUTypes[]  = {"exact", "sweeps", "PCBISAIILUType", "PCBISAI_ILU_", NULL};
const char *const PCBISAISpMVTypes[] = {"own", "cusparse", "PCBISAISpMVType", "PCBISAI_SPMV_", NULL};

#define PCBISAI_SYMTOL     1e-10 /* the relative tolerance of the measured symmetry (MSBISAIAsymmetric()) */
#define PCBISAI_SHIFTS     6     /* the symmetric factorization's retries: alpha = 1e-3, 1e-2, ..., 100 */
#define PCBISAI_STEPS_MAX  8     /* Richardson steps a user may set */
#define PCBISAI_PROBE_STEPS 3    /* the Richardson steps the probe measures (and the automatic choice takes at most) */
#define PCBISAI_PROBE_IC    0.25 /* the probe residual the automatic steps aim at: symmetric variant (CG: below it a step
                                    costs more than the iterations it saves on the finite-element systems) */
#define PCBISAI_PROBE_ILU   0.02 /* ILU variant: GMRES's iterations cost more, and the nonsymmetric systems of the suite
                                    need the triangular solves close to exact to converge like ILU(0) */

/* one approximate inverse: BSR by rows (the apply) and its column view (the setup) */
typedef struct {
  PetscInt       nnzb;
  PCMSBuffer     rowptr, cols;         /* by rows (not for H: its rows are G's column view) */
  PCMSBuffer     colptr, rowidx, pos;  /* column view */
  PCMSBuffer     vals;
  const int     *arp, *acols;          /* the apply's rows: rowptr, cols, or for H G's colptr, rowidx */
  PetscLogDouble products;             /* block products of its computation at the last setup */
} PCBISAIInv;

typedef struct {
  /* options */
  PetscInt        level, bs_set, steps_set, sweeps; /* bs_set 0: the operator's; steps_set -1: automatic */
  PetscBool       level_set, shift;
  PCBISAIVariant  variant;
  PCBISAIILUType  ilu;
  PCBISAISpMVType spmv;
  void                 *library;  /* the library's handle and descriptor of -pc_bisai_spmv cusparse (bsr_mult_library) */
  const MSBISAIKernels *libtable; /* the table that created it (its library_destroy frees it) */

  /* the structure: rebuilt with the operator's nonzero pattern or the block size */
  PetscInt   bs, nb, nnzb, nlower, nnz_ad;
  PCMSBuffer rowptr, cols, rowidx, diag, map; /* block pattern of Ad (= of F), CSR entry of Ad -> BSR value index */
  PCMSBuffer part;                            /* the lower (with the diagonal) part of it: rows then columns */
  /* the inverses' patterns: rebuilt with the structure, the level, the variant or the fallback */
  PetscInt   built_level;
  PetscInt   built_kind; /* 0 none, 1 ILU, 2 IC, 3 block Jacobi */
  PCBISAIInv inv[2];     /* 0: M_L = G (or block Jacobi's D_A^-1), 1: M_U or H */
  /* values */
  PCMSBuffer A, F, S, Dinv, iwork, status;
  Vec        w[2];
  Mat        aij; /* AIJ copy of a BAIJ operator */
  PetscObjectId    aij_src;
  PetscObjectState aij_nzstate;

  PCMSOperator          op;
  const MSBISAIKernels *k;

  /* what the last setup chose, and why */
  PetscBool ic, fallback;
  PetscInt  steps, level_used, nshifts;
  PetscReal alpha, probe[PCBISAI_PROBE_STEPS + 1];
  char      why_bs[160], why_variant[320], why_steps[320], why_fallback[320];
  char      ksp_note[320]; /* a remark on the Krylov method seen at PCPreSolve() */

  PetscInt       nsetups;
  PetscBool      patterns_reused;
  PetscLogDouble t_symbolic, t_ilu, t_pattern, t_inverse, t_probe, t_setup;
} PC_BISAI;

/* whether the apply's products go to the library's BSR product (cuSPARSE's bsrmv): asked for, the backend has one,
   and it takes the block size */
static PetscBool PCBISAIUsesLibrary(PC_BISAI *jac)
{
  return (PetscBool)(jac->k && jac->k->bsr_mult_library && jac->spmv == PCBISAI_SPMV_CUSPARSE && jac->bs >= jac->k->library_min_bs);
}

/* pointers to the fields of the status struct in the backend's memory */
#define PCBISAIStatusField(jac, field) ((void *)((char *)(jac)->status.ptr + offsetof(MSBISAIStatus, field)))

/* ---------------------------------------------------------------------------------------------------------- */
/* memory                                                                                                       */

static PetscErrorCode PCBISAIInvFree(PCBISAIInv *M)
{
  PetscFunctionBegin;
  PetscCall(PCMSBufferDestroy(&M->rowptr));
  PetscCall(PCMSBufferDestroy(&M->cols));
  PetscCall(PCMSBufferDestroy(&M->colptr));
  PetscCall(PCMSBufferDestroy(&M->rowidx));
  PetscCall(PCMSBufferDestroy(&M->pos));
  PetscCall(PCMSBufferDestroy(&M->vals));
  M->arp      = NULL;
  M->acols    = NULL;
  M->nnzb     = 0;
  M->products = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIFreePatterns(PC_BISAI *jac)
{
  PetscFunctionBegin;
  for (PetscInt w = 0; w < 2; w++) PetscCall(PCBISAIInvFree(&jac->inv[w]));
  jac->built_level = 0;
  jac->built_kind  = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIFreeStructure(PC_BISAI *jac)
{
  PetscFunctionBegin;
  PetscCall(PCBISAIFreePatterns(jac));
  PetscCall(PCMSBufferDestroy(&jac->rowptr));
  PetscCall(PCMSBufferDestroy(&jac->cols));
  PetscCall(PCMSBufferDestroy(&jac->rowidx));
  PetscCall(PCMSBufferDestroy(&jac->diag));
  PetscCall(PCMSBufferDestroy(&jac->map));
  PetscCall(PCMSBufferDestroy(&jac->part));
  PetscCall(PCMSBufferDestroy(&jac->A));
  PetscCall(PCMSBufferDestroy(&jac->F));
  PetscCall(PCMSBufferDestroy(&jac->S));
  PetscCall(PCMSBufferDestroy(&jac->Dinv));
  PetscCall(PCMSBufferDestroy(&jac->iwork));
  PetscCall(PCMSBufferDestroy(&jac->status));
  for (PetscInt w = 0; w < 2; w++) PetscCall(VecDestroy(&jac->w[w]));
  jac->nb = jac->nnzb = jac->nnz_ad = jac->nlower = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* helpers of the setup                                                                                         */

static PetscErrorCode PCBISAIElapsed(PC_BISAI *jac, PetscLogDouble *t, PetscLogDouble *acc)
{
  PetscLogDouble now;

  PetscFunctionBegin;
  PetscCall(PCMSSynchronize(&jac->op));
  PetscCall(PetscTime(&now));
  *acc += now - *t;
  *t = now;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIReadStatus(PC_BISAI *jac, MSBISAIStatus *st)
{
  PetscFunctionBegin;
  PetscCall(PCMSReadBack(&jac->op, st, jac->status.ptr, sizeof(*st)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ptr[0..n] from the counts in ptr[1..n] by the scan kernel; returns the total, an error past 2^31 - 1 */
static PetscErrorCode PCBISAIScan(PC pc, PetscInt n, int *ptr, const char *what, PetscInt *total)
{
  PC_BISAI     *jac = (PC_BISAI *)pc->data;
  MSBISAIStatus st;
  void         *stream;
  int           err;

  PetscFunctionBegin;
  PetscCall(PCMSKernelBegin(&jac->op, &stream));
  err = jac->k->scan((int)n, ptr, (long long *)PCBISAIStatusField(jac, total), stream);
  PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->backend, "scan", 0.0));
  PetscCall(PCBISAIReadStatus(jac, &st));
  PetscCheck(st.total >= 0 && st.total < PETSC_INT32_MAX / (jac->bs * jac->bs), PETSC_COMM_SELF, PETSC_ERR_SUP, "PCBISAI: %s has %lld blocks of %" PetscInt_FMT " x %" PetscInt_FMT " on this process; the kernels take fewer than 2^31 / %" PetscInt_FMT " of them: use more processes or a lower level (-pc_bisai_level)", what, st.total, jac->bs, jac->bs, jac->bs * jac->bs);
  *total = (PetscInt)st.total;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the deterministic probe vector: entries in [-1, 1) from a hash of the global row, the same on every backend and
   for every number of processes */
static PetscErrorCode PCBISAIProbeVector(PC_BISAI *jac, Vec v)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt i = 0; i < n; i++) {
    unsigned long long h = (unsigned long long)(jac->op.rstart + i) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    a[i] = (PetscScalar)((double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operator the layer sees: pc->pmat, or an AIJ copy of a BAIJ one; the layer takes pc->pmat, so a BAIJ operator
   is replaced by its copy for the duration of the call */
static PetscErrorCode PCBISAIOperatorSetUp(PC pc)
{
  PC_BISAI              *jac  = (PC_BISAI *)pc->data;
  /* no image: PCBISAI reads the CSR of the diagonal block (block Jacobi across processes: Ao unused) */
  const PCMSImageRequest dreq = {PCMS_ENCODING_NONE, 0, PCMS_ORDERING_ANY, PETSC_FALSE}, oreq = {PCMS_ENCODING_NONE, 0, PCMS_ORDERING_ANY, PETSC_FALSE};
  PetscBool              isbaij;
  Mat                    save = pc->pmat;
  PetscErrorCode         ierr;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc->pmat, &isbaij, MATSEQBAIJ, MATMPIBAIJ, ""));
  if (!isbaij) {
    PetscCall(MatDestroy(&jac->aij));
    PetscCall(PCMSOperatorSetUp(pc, &jac->op, &dreq, &oreq));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    PetscObjectId id;

    PetscCall(PetscObjectGetId((PetscObject)pc->pmat, &id));
    if (jac->aij && id == jac->aij_src && pc->pmat->nonzerostate == jac->aij_nzstate) PetscCall(MatConvert(pc->pmat, MATAIJ, MAT_REUSE_MATRIX, &jac->aij));
    else {
      PetscCall(MatDestroy(&jac->aij));
      PetscCall(MatConvert(pc->pmat, MATAIJ, MAT_INITIAL_MATRIX, &jac->aij));
    }
    jac->aij_src     = id;
    jac->aij_nzstate = pc->pmat->nonzerostate;
  }
  pc->pmat = jac->aij;
  ierr     = PCMSOperatorSetUp(pc, &jac->op, &dreq, &oreq);
  pc->pmat = save;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block size: the user's (PCBISAISetBlockSize()), else the operator's, else (above MS_BISAI_MAXBS) its largest
   divisor that the kernels take; every process's rows a multiple of it (collective) */
static PetscErrorCode PCBISAIResolveBlockSize(PC pc, PetscInt *bs)
{
  PC_BISAI   *jac  = (PC_BISAI *)pc->data;
  MPI_Comm    comm = PetscObjectComm((PetscObject)pc);
  PetscInt    mbs;
  PetscInt64  bad[2];
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(pc->pmat, &mbs));
  if (jac->bs_set) {
    *bs = jac->bs_set;
    PetscCall(PetscSNPrintf(jac->why_bs, sizeof(jac->why_bs), "set by the user with -pc_bisai_block_size; the operator's is %" PetscInt_FMT, mbs));
  } else if (mbs <= MS_BISAI_MAXBS) {
    *bs = PetscMax(mbs, 1);
    PetscCall(PetscSNPrintf(jac->why_bs, sizeof(jac->why_bs), "the operator's (MatGetBlockSize())"));
  } else {
    for (*bs = MS_BISAI_MAXBS; mbs % *bs; (*bs)--) { }
    PetscCall(PetscSNPrintf(jac->why_bs, sizeof(jac->why_bs), "the largest divisor up to %d of the operator's block size %" PetscInt_FMT " (-pc_bisai_block_size sets another)", MS_BISAI_MAXBS, mbs));
    PetscCall(PetscInfo(pc, "PCBISAI: the operator's block size %" PetscInt_FMT " is above %d: block size %" PetscInt_FMT ", its largest divisor up to %d\n", mbs, MS_BISAI_MAXBS, *bs, MS_BISAI_MAXBS));
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  bad[0] = jac->op.m % *bs ? (PetscInt64)rank : PETSC_INT64_MAX; /* the first process whose rows do not divide */
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, bad, 1, MPIU_INT64, MPI_MIN, comm));
  if (bad[0] != PETSC_INT64_MAX) {
    PetscInt mloc = rank == (PetscMPIInt)bad[0] ? jac->op.m : 0;

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &mloc, 1, MPIU_INT, MPI_SUM, comm));
    SETERRQ(comm, PETSC_ERR_ARG_SIZ, "PCBISAI: block size %" PetscInt_FMT " (%s) does not divide the %" PetscInt_FMT " rows of process %" PetscInt64_FMT ": give every process whole blocks (MatSetSizes() with a multiple of the block size), or set a block size that divides every process's rows with -pc_bisai_block_size (1 always does)", *bs, jac->why_bs, mloc, bad[0]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The global row of the first local row over the processes (collective), -1 for none; local: a local row or
   MS_BISAI_NONE */
static PetscErrorCode PCBISAIFirstRow(PC pc, int local, PetscInt64 *row)
{
  PC_BISAI  *jac = (PC_BISAI *)pc->data;
  PetscInt64 loc = (local == MS_BISAI_NONE || local < 0) ? -1 : (PetscInt64)local;

  PetscFunctionBegin;
  PetscCall(PCMSFirstBad(pc, &jac->op, 1, 1, &loc, row));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same for a local block row: the global row of its first row (the global block row is that over bs: every
   process's rows are whole blocks) */
static PetscErrorCode PCBISAIFirstBlock(PC pc, int local, PetscInt64 *row)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCBISAIFirstRow(pc, (local == MS_BISAI_NONE || local < 0) ? MS_BISAI_NONE : local * (int)jac->bs, row));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* symbolic phase                                                                                               */

/* the block pattern of Ad and the map of its entries (the structure) */
static PetscErrorCode PCBISAIBlockPattern(PC pc, const PCMSCSR *csr)
{
  PC_BISAI     *jac = (PC_BISAI *)pc->data;
  PCMSOperator *op  = &jac->op;
  const int     nb  = (int)jac->nb, bs = (int)jac->bs;
  void         *stream;
  int           err;

  PetscFunctionBegin;
  PetscCall(PCMSBufferEnsure(op, &jac->rowptr, sizeof(int) * (nb + 1), "PCBISAI's block pattern"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->block_count(nb, bs, csr->ai, csr->aj, (int *)jac->rowptr.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "block_count", 0.0));
  PetscCall(PCBISAIScan(pc, nb, (int *)jac->rowptr.ptr, "the block pattern of the operator", &jac->nnzb));
  PetscCall(PCMSBufferEnsure(op, &jac->cols, sizeof(int) * PetscMax(jac->nnzb, 1), "PCBISAI's block pattern"));
  PetscCall(PCMSBufferEnsure(op, &jac->rowidx, sizeof(int) * PetscMax(jac->nnzb, 1), "PCBISAI's block pattern"));
  PetscCall(PCMSBufferEnsure(op, &jac->diag, sizeof(int) * PetscMax(nb, 1), "PCBISAI's block pattern"));
  PetscCall(PCMSBufferEnsure(op, &jac->map, sizeof(int) * PetscMax(csr->nnz, 1), "PCBISAI's map of the operator's entries"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->block_fill(nb, bs, csr->ai, csr->aj, (const int *)jac->rowptr.ptr, (int *)jac->cols.ptr, (int *)jac->rowidx.ptr, (int *)jac->diag.ptr, (int *)jac->map.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "block_fill", 0.0));
  jac->nnz_ad = csr->nnz;
  /* the lower part with the diagonal (level 1 of M_L): rows, then its columns after them in one buffer */
  {
    PetscInt nl;
    int     *prp;

    PetscCall(PCMSBufferEnsure(op, &jac->part, sizeof(int) * (nb + 1), "PCBISAI's lower pattern"));
    prp = (int *)jac->part.ptr;
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->pattern_part(nb, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, (const int *)jac->diag.ptr, 1, prp, NULL, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "pattern_part", 0.0));
    PetscCall(PCBISAIScan(pc, nb, prp, "the lower block pattern", &nl));
    jac->nlower = nl - nb;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M's pattern by rows: the part (lower, or upper) of F's pattern raised to the level by symbolic products */
static PetscErrorCode PCBISAIPowerPattern(PC pc, PetscBool lower, PetscInt level, PCBISAIInv *M)
{
  PC_BISAI     *jac = (PC_BISAI *)pc->data;
  PCMSOperator *op  = &jac->op;
  const int     nb  = (int)jac->nb;
  PCMSBuffer    trp = {0}, tcols = {0};
  PetscInt      nt;
  void         *stream;
  int           err;

  PetscFunctionBegin;
  /* level 1: T itself */
  PetscCall(PCMSBufferEnsure(op, &trp, sizeof(int) * (nb + 1), "PCBISAI's inverse pattern"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->pattern_part(nb, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, (const int *)jac->diag.ptr, (int)lower, (int *)trp.ptr, NULL, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "pattern_part", 0.0));
  PetscCall(PCBISAIScan(pc, nb, (int *)trp.ptr, "the factor's pattern", &nt));
  PetscCall(PCMSBufferEnsure(op, &tcols, sizeof(int) * PetscMax(nt, 1), "PCBISAI's inverse pattern"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->pattern_part(nb, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, (const int *)jac->diag.ptr, (int)lower, (int *)trp.ptr, (int *)tcols.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "pattern_part", 0.0));
  M->rowptr = trp;
  M->cols   = tcols;
  M->nnzb   = nt;
  /* level l + 1: row i of P T = the union of the rows of T named by row i of P */
  for (PetscInt l = 1; l < level; l++) {
    PCMSBuffer qrp = {0}, qcols = {0};
    PetscInt   nq;

    PetscCall(PCMSBufferEnsure(op, &qrp, sizeof(int) * (nb + 1), "PCBISAI's inverse pattern"));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->pattern_power(nb, (const int *)M->rowptr.ptr, (const int *)M->cols.ptr, (const int *)trp.ptr, (const int *)tcols.ptr, (int *)qrp.ptr, NULL, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "pattern_power", 0.0));
    PetscCall(PCBISAIScan(pc, nb, (int *)qrp.ptr, "the approximate inverse's pattern S(|T|^k)", &nq));
    PetscCall(PCMSBufferEnsure(op, &qcols, sizeof(int) * PetscMax(nq, 1), "PCBISAI's inverse pattern"));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->pattern_power(nb, (const int *)M->rowptr.ptr, (const int *)M->cols.ptr, (const int *)trp.ptr, (const int *)tcols.ptr, (int *)qrp.ptr, (int *)qcols.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "pattern_power", 0.0));
    if (M->rowptr.ptr != trp.ptr) {
      PetscCall(PCMSBufferDestroy(&M->rowptr));
      PetscCall(PCMSBufferDestroy(&M->cols));
    }
    M->rowptr = qrp;
    M->cols   = qcols;
    M->nnzb   = nq;
  }
  if (M->rowptr.ptr != trp.ptr) {
    PetscCall(PCMSBufferDestroy(&trp));
    PetscCall(PCMSBufferDestroy(&tcols));
  }
  /* the column view: rows ascending within each column */
  PetscCall(PCMSBufferEnsure(op, &M->colptr, sizeof(int) * (nb + 1), "PCBISAI's inverse column view"));
  PetscCall(PCMSBufferEnsure(op, &M->rowidx, sizeof(int) * PetscMax(M->nnzb, 1), "PCBISAI's inverse column view"));
  PetscCall(PCMSBufferEnsure(op, &M->pos, sizeof(int) * PetscMax(M->nnzb, 1), "PCBISAI's inverse column view"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->pattern_transpose(nb, (int)M->nnzb, (const int *)M->rowptr.ptr, (const int *)M->cols.ptr, (int *)M->colptr.ptr, (int *)M->rowidx.ptr, (int *)M->pos.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "pattern_transpose", 0.0));
  PetscCall(PCMSBufferEnsure(op, &M->vals, sizeof(double) * PetscMax(M->nnzb * jac->bs * jac->bs, 1), "PCBISAI's approximate inverse"));
  M->arp   = (const int *)M->rowptr.ptr;
  M->acols = (const int *)M->cols.ptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the patterns of the last setup's kind (1 ILU, 2 IC, 3 block Jacobi) and level */
static PetscErrorCode PCBISAIPatterns(PC pc, PetscInt kind, PetscInt level)
{
  PC_BISAI     *jac = (PC_BISAI *)pc->data;
  PCMSOperator *op  = &jac->op;

  PetscFunctionBegin;
  if (jac->built_kind == kind && (kind == 3 || jac->built_level == level)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCBISAIFreePatterns(jac));
  if (kind == 3) { /* block Jacobi: the block diagonal, D_A^-1 in inv[0] */
    PCBISAIInv *D = &jac->inv[0];
    int        *h;

    PetscCall(PetscMalloc1(jac->nb + 1, &h));
    for (PetscInt i = 0; i <= jac->nb; i++) h[i] = (int)i;
    PetscCall(PCMSBufferUpload(op, &D->rowptr, h, sizeof(int) * (jac->nb + 1), "PCBISAI's block diagonal"));
    PetscCall(PCMSBufferUpload(op, &D->cols, h, sizeof(int) * PetscMax(jac->nb, 1), "PCBISAI's block diagonal"));
    PetscCall(PetscFree(h));
    PetscCall(PCMSBufferEnsure(op, &D->vals, sizeof(double) * PetscMax(jac->nb * jac->bs * jac->bs, 1), "PCBISAI's block diagonal"));
    D->nnzb  = jac->nb;
    D->arp   = (const int *)D->rowptr.ptr;
    D->acols = (const int *)D->cols.ptr;
  } else {
    PetscCall(PCBISAIPowerPattern(pc, PETSC_TRUE, level, &jac->inv[0]));
    if (kind == 1) PetscCall(PCBISAIPowerPattern(pc, PETSC_FALSE, level, &jac->inv[1]));
    else { /* H = G^T D^-1: its rows are G's columns */
      PCBISAIInv *H = &jac->inv[1];

      H->nnzb  = jac->inv[0].nnzb;
      H->arp   = (const int *)jac->inv[0].colptr.ptr;
      H->acols = (const int *)jac->inv[0].rowidx.ptr;
      PetscCall(PCMSBufferEnsure(op, &H->vals, sizeof(double) * PetscMax(H->nnzb * jac->bs * jac->bs, 1), "PCBISAI's approximate inverse"));
    }
  }
  jac->built_kind  = kind;
  jac->built_level = level;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* numeric phase                                                                                                */

/* The factorization of A (jac->A, the values of this setup) into F and Dinv: exact or by sweeps, spd = the symmetric
   variant; *bad the local block row whose diagonal block failed, or MS_BISAI_NONE */
static PetscErrorCode PCBISAIFactor(PC pc, int *bad)
{
  PC_BISAI            *jac = (PC_BISAI *)pc->data;
  PCMSOperator        *op  = &jac->op;
  const int            nb = (int)jac->nb, bs = (int)jac->bs, nnzb = (int)jac->nnzb, spd = (int)jac->ic;
  const PetscLogDouble b3 = (PetscLogDouble)bs * bs * bs;
  MSBISAIStatus        st;
  void                *stream;
  int                  err;

  PetscFunctionBegin;
  if (jac->ilu == PCBISAI_ILU_EXACT) {
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->ilu_exact(nb, bs, nnzb, spd, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, (const int *)jac->diag.ptr, (const double *)jac->A.ptr, (double *)jac->F.ptr, (double *)jac->Dinv.ptr, (int *)jac->iwork.ptr, (int *)PCBISAIStatusField(jac, bad), (unsigned long long *)PCBISAIStatusField(jac, products), stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "ilu_exact", 0.0));
    PetscCall(PCBISAIReadStatus(jac, &st));
    PetscCall(op->device ? PetscLogGpuFlops(2.0 * b3 * (PetscLogDouble)st.products + 4.0 * b3 * nb) : PetscLogFlops(2.0 * b3 * (PetscLogDouble)st.products + 4.0 * b3 * nb));
  } else {
    PetscLogDouble triples = 0;

    PetscCall(PCMSBufferEnsure(op, &jac->S, sizeof(double) * PetscMax(jac->nnzb * bs * bs, 1), "PCBISAI's sweep residual"));
    /* initial guess L = I, U = triu(A) */
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->ilu_update(bs, nnzb, (const int *)jac->rowidx.ptr, (const int *)jac->cols.ptr, (const double *)jac->A.ptr, NULL, (double *)jac->F.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "ilu_update", 0.0));
    for (PetscInt s = 0; s < jac->sweeps; s++) {
      PetscCall(PCMSKernelBegin(op, &stream));
      err = jac->k->invert_diag(nb, bs, spd, (const int *)jac->diag.ptr, (const double *)jac->F.ptr, (double *)jac->Dinv.ptr, (int *)PCBISAIStatusField(jac, bad), stream);
      PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "invert_diag", 4.0 * b3 * nb));
      PetscCall(PCMSKernelBegin(op, &stream));
      err = jac->k->ilu_residual(bs, nnzb, (const int *)jac->rowptr.ptr, (const int *)jac->rowidx.ptr, (const int *)jac->cols.ptr, (const double *)jac->A.ptr, (const double *)jac->F.ptr, (double *)jac->S.ptr, s == 0 ? (unsigned long long *)PCBISAIStatusField(jac, products) : NULL, stream);
      PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "ilu_residual", 2.0 * b3 * triples + (PetscLogDouble)nnzb * bs * bs));
      if (s == 0) { /* the block products of one sweep, for the flops of the others */
        PetscCall(PCBISAIReadStatus(jac, &st));
        triples = (PetscLogDouble)st.products;
        PetscCall(op->device ? PetscLogGpuFlops(2.0 * b3 * triples) : PetscLogFlops(2.0 * b3 * triples));
      }
      PetscCall(PCMSKernelBegin(op, &stream));
      err = jac->k->ilu_update(bs, nnzb, (const int *)jac->rowidx.ptr, (const int *)jac->cols.ptr, (const double *)jac->S.ptr, (const double *)jac->Dinv.ptr, (double *)jac->F.ptr, stream);
      PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "ilu_update", 2.0 * b3 * jac->nlower));
    }
    /* the inverse diagonal blocks of the final U */
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->invert_diag(nb, bs, spd, (const int *)jac->diag.ptr, (const double *)jac->F.ptr, (double *)jac->Dinv.ptr, (int *)PCBISAIStatusField(jac, bad), stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "invert_diag", 4.0 * b3 * nb));
    PetscCall(PCBISAIReadStatus(jac, &st));
    PetscCall(PCMSBufferDestroy(&jac->S));
  }
  *bad = st.bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the local block row of the first diagonal block of the operator that is singular (spd = 0) or not positive
   definite (spd = 1), MS_BISAI_NONE; Dinv is overwritten */
static PetscErrorCode PCBISAIOperatorBlocks(PC pc, int spd, int *bad)
{
  PC_BISAI     *jac = (PC_BISAI *)pc->data;
  MSBISAIStatus st;
  void         *stream;
  int           err;

  PetscFunctionBegin;
  PetscCall(PCMSKernelBegin(&jac->op, &stream));
  err = jac->k->invert_diag((int)jac->nb, (int)jac->bs, spd, (const int *)jac->diag.ptr, (const double *)jac->A.ptr, (double *)jac->Dinv.ptr, (int *)PCBISAIStatusField(jac, bad), stream);
  PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->backend, "invert_diag", 4.0 * jac->bs * jac->bs * jac->bs * jac->nb));
  PetscCall(PCBISAIReadStatus(jac, &st));
  *bad = st.bad;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the values of A from the CSR (again after a shift) */
static PetscErrorCode PCBISAIValues(PC pc, const PCMSCSR *csr)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;
  void     *stream;
  int       err;

  PetscFunctionBegin;
  PetscCall(PCMSKernelBegin(&jac->op, &stream));
  err = jac->k->values(csr->nnz, (const int *)jac->map.ptr, csr->aa, (long long)jac->nnzb * jac->bs * jac->bs, (double *)jac->A.ptr, stream);
  PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->backend, "values", 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factorization with the variant's safeguards (collective): the symmetric variant needs positive definite diagonal
   blocks of the operator (else, chosen automatically, it gives way to the ILU variant; chosen by the user or with the
   operator marked SPD, an error), and retries a breakdown on A + alpha diag(A) (as PETSc's ICC shifts); a singular
   block of U is an error naming its block row and a remedy */
static PetscErrorCode PCBISAIFactorSafe(PC pc, const PCMSCSR *csr, PetscBool spd_marked)
{
  PC_BISAI      *jac  = (PC_BISAI *)pc->data;
  MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
  const PetscInt bs   = jac->bs;
  PetscInt64     row;
  int            bad;

  PetscFunctionBegin;
  jac->alpha   = 0;
  jac->nshifts = 0;
  if (jac->ic) {
    PetscCall(PCBISAIOperatorBlocks(pc, 1, &bad));
    PetscCall(PCBISAIFirstBlock(pc, bad, &row));
    if (row >= 0) {
      PetscCheck(jac->variant == PCBISAI_VARIANT_AUTO && !spd_marked, comm, PETSC_ERR_ARG_WRONG,
                 "PCBISAI: the diagonal block of the operator's block row %" PetscInt64_FMT " (rows %" PetscInt64_FMT " to %" PetscInt64_FMT ") is not symmetric positive definite, so neither is the operator%s: the symmetric variant (block IC(0)) and KSPCG do not apply; use -pc_bisai_variant ilu with -ksp_type gmres",
                 row / bs, row, row + bs - 1, spd_marked ? " (although it is marked SPD: MAT_SPD)" : "");
      jac->ic = PETSC_FALSE;
      PetscCall(PetscSNPrintf(jac->why_variant, sizeof(jac->why_variant), "the operator is symmetric but not positive definite (the diagonal block of block row %" PetscInt64_FMT " is not)", row / bs));
      PetscCall(PetscInfo(pc, "PCBISAI: block ILU(0): %s\n", jac->why_variant));
    }
  }
  for (;;) {
    PetscCall(PCBISAIFactor(pc, &bad));
    PetscCall(PCBISAIFirstBlock(pc, bad, &row));
    if (row < 0) break;
    if (!jac->ic) {
      int        abad;
      PetscInt64 arow;

      PetscCall(PCBISAIOperatorBlocks(pc, 0, &abad));
      PetscCall(PCBISAIFirstBlock(pc, abad, &arow));
      SETERRQ(comm, PETSC_ERR_MAT_LU_ZRPVT, "PCBISAI: the diagonal block of block row %" PetscInt64_FMT " (rows %" PetscInt64_FMT " to %" PetscInt64_FMT ") of the block ILU(0) factor U is singular (a pivot zero, not finite, or below 1e-14 times the block's largest entry%s)%s; %s", row / bs, row, row + bs - 1,
              jac->ilu == PCBISAI_ILU_SWEEPS ? ", after the fixed-point sweeps" : "", arow == row ? ": the operator's own diagonal block there is singular (a row without entries, a zero block of a saddle-point system)" : "",
              arow == row ? "set a block size that keeps the coupled unknowns of a node in one block (-pc_bisai_block_size), or use -pc_type ilu -pc_factor_shift_type nonzero"
                          : (jac->ilu == PCBISAI_ILU_SWEEPS ? "use -pc_bisai_ilu exact, or more sweeps (-pc_bisai_ilu_sweeps)" : "reorder the unknowns, or use -pc_type ilu -pc_factor_shift_type nonzero"));
    }
    /* a breakdown of the symmetric factorization: the operator's blocks are positive definite, D's are not */
    PetscCheck(jac->shift && jac->nshifts < PCBISAI_SHIFTS, comm, PETSC_ERR_MAT_CH_ZRPVT,
               "PCBISAI: the block IC(0) factorization broke down at block row %" PetscInt64_FMT " (rows %" PetscInt64_FMT " to %" PetscInt64_FMT "): the diagonal block of D there is not positive definite%s; %s", row / bs, row, row + bs - 1,
               jac->nshifts ? " even on the shifted operator A + alpha diag(A)" : "", jac->shift ? "use -pc_type gamg or -pc_type pbjacobi" : "-pc_bisai_shift retries the factorization on shifted operators A + alpha diag(A); or use -pc_type gamg or -pc_type pbjacobi");
    jac->alpha = jac->nshifts ? 10.0 * jac->alpha : 1e-3;
    jac->nshifts++;
    PetscCall(PetscInfo(pc, "PCBISAI: block IC(0) broke down at block row %" PetscInt64_FMT ": factorizing A + %.0e diag(A)\n", row / bs, (double)jac->alpha));
    PetscCall(PCBISAIValues(pc, csr));
    {
      void *stream;
      int   err;

      PetscCall(PCMSKernelBegin(&jac->op, &stream));
      err = jac->k->shift((int)jac->nb, (int)bs, (const int *)jac->diag.ptr, 1.0 + (double)jac->alpha, (double *)jac->A.ptr, stream);
      PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->backend, "shift", (PetscLogDouble)jac->nb * bs));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the approximate inverses from F and Dinv (or block Jacobi's D_A^-1 from the operator's blocks) */
static PetscErrorCode PCBISAIInverses(PC pc)
{
  PC_BISAI            *jac = (PC_BISAI *)pc->data;
  PCMSOperator        *op  = &jac->op;
  const int            nb = (int)jac->nb, bs = (int)jac->bs;
  const PetscLogDouble b3 = (PetscLogDouble)bs * bs * bs;
  MSBISAIStatus        st;
  void                *stream;
  int                  err;

  PetscFunctionBegin;
  if (jac->fallback) {
    PCBISAIInv *D = &jac->inv[0];

    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->invert_diag(nb, bs, (int)jac->ic, (const int *)jac->diag.ptr, (const double *)jac->A.ptr, (double *)D->vals.ptr, (int *)PCBISAIStatusField(jac, bad), stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "invert_diag", 4.0 * b3 * nb));
    PetscCall(PCBISAIReadStatus(jac, &st));
    {
      PetscInt64 row;

      PetscCall(PCBISAIFirstBlock(pc, st.bad, &row));
      PetscCheck(row < 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_MAT_LU_ZRPVT, "PCBISAI: the diagonal block of the operator's block row %" PetscInt64_FMT " (rows %" PetscInt64_FMT " to %" PetscInt64_FMT ") is singular: block Jacobi, to which PCBISAI fell back, cannot invert it; use -pc_type ilu -pc_factor_shift_type nonzero", row / jac->bs, row, row + jac->bs - 1);
    }
    D->products = nb;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt w = 0; w < 2; w++) {
    PCBISAIInv *M = &jac->inv[w];

    PetscCall(PCMSKernelBegin(op, &stream));
    if (w == 1 && jac->ic) {
      err         = jac->k->isai_transpose(bs, (int)jac->inv[0].nnzb, (const int *)jac->inv[0].rowidx.ptr, (const int *)jac->inv[0].pos.ptr, (const double *)jac->inv[0].vals.ptr, (const double *)jac->Dinv.ptr, (double *)M->vals.ptr, stream);
      M->products = (PetscLogDouble)M->nnzb;
      PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "isai_transpose", 2.0 * b3 * M->products));
      continue;
    }
    if (w == 0) err = jac->k->isai_lower(nb, bs, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, (const double *)jac->F.ptr, (const int *)M->colptr.ptr, (const int *)M->rowidx.ptr, (const int *)M->pos.ptr, (double *)M->vals.ptr, (unsigned long long *)PCBISAIStatusField(jac, products), stream);
    else err = jac->k->isai_upper(nb, bs, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, (const double *)jac->F.ptr, (const double *)jac->Dinv.ptr, (const int *)M->colptr.ptr, (const int *)M->rowidx.ptr, (const int *)M->pos.ptr, (double *)M->vals.ptr, (unsigned long long *)PCBISAIStatusField(jac, products), stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, w == 0 ? "isai_lower" : "isai_upper", 0.0));
    PetscCall(PCBISAIReadStatus(jac, &st));
    M->products = (PetscLogDouble)st.products;
    PetscCall(op->device ? PetscLogGpuFlops(2.0 * b3 * M->products) : PetscLogFlops(2.0 * b3 * M->products));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M x (add: y += M x) with the apply's kernel */
static PetscErrorCode PCBISAIMult(PC pc, PCBISAIInv *M, const PetscScalar *x, PetscBool add, PetscScalar *y)
{
  PC_BISAI            *jac   = (PC_BISAI *)pc->data;
  const PetscLogDouble flops = 2.0 * (PetscLogDouble)M->nnzb * jac->bs * jac->bs + (add ? (PetscLogDouble)jac->nb * jac->bs : 0.0);
  void                *stream;
  int                  err;

  PetscFunctionBegin;
  PetscCall(PCMSKernelBegin(&jac->op, &stream));
  if (PCBISAIUsesLibrary(jac)) {
    err = jac->k->bsr_mult_library(&jac->library, (int)jac->nb, (int)jac->bs, (int)M->nnzb, M->arp, M->acols, (const double *)M->vals.ptr, x, (int)add, y, stream);
    if (jac->library) jac->libtable = jac->k; /* the probe's products create the handle before the setup's step does */
    PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCBISAI: the %s BSR product failed with its status %d; use -pc_bisai_spmv own", jac->k->library, -err);
    PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->library, "bsrmv", flops));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  err = jac->k->bsr_mult((int)jac->nb, (int)jac->bs, M->arp, M->acols, (const double *)M->vals.ptr, x, (int)add, y, stream);
  PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->backend, "bsr_mult", flops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = b - T x, T = L (lower) or U */
static PetscErrorCode PCBISAIFactorResidual(PC pc, PetscBool lower, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  PC_BISAI            *jac = (PC_BISAI *)pc->data;
  const PetscLogDouble nbl = lower ? (PetscLogDouble)jac->nlower : (PetscLogDouble)(jac->nnzb - jac->nlower);
  void                *stream;
  int                  err;

  PetscFunctionBegin;
  PetscCall(PCMSKernelBegin(&jac->op, &stream));
  err = jac->k->factor_residual((int)jac->nb, (int)jac->bs, (int)lower, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, (const int *)jac->diag.ptr, (const double *)jac->F.ptr, b, x, y, stream);
  PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->backend, "factor_residual", 2.0 * nbl * jac->bs * jac->bs + 2.0 * jac->nb * jac->bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y ~ T^-1 b: y = M b, then steps Richardson steps y += M (b - T y); t is work; y, t, b distinct */
static PetscErrorCode PCBISAITriangular(PC pc, PetscInt w, const PetscScalar *b, PetscScalar *y, PetscScalar *t)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCBISAIMult(pc, &jac->inv[w], b, PETSC_FALSE, y));
  for (PetscInt s = 0; s < jac->steps; s++) {
    PetscCall(PCBISAIFactorResidual(pc, (PetscBool)(w == 0), b, y, t));
    PetscCall(PCBISAIMult(pc, &jac->inv[w], t, PETSC_TRUE, y));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the probe: for the lower (w = 0) and, in the ILU variant, the upper factor T_w, the residuals of the triangular solve
   T_w y = p after s = 0, ..., PCBISAI_PROBE_STEPS Richardson steps, e_s = |p - T_w y_s| / |p| (y_0 = M_w p,
   y_{s+1} = y_s + M_w (p - T_w y_s)), for a fixed vector p; jac->probe[s] the largest over the factors and the
   processes (collective) */
static PetscErrorCode PCBISAIProbe(PC pc)
{
  PC_BISAI          *jac = (PC_BISAI *)pc->data;
  PCMSOperator      *op  = &jac->op;
  const PetscScalar *pa;
  PetscScalar       *ya, *ta;
  Vec                p, t;
  PetscReal          e[PCBISAI_PROBE_STEPS + 1], np, nt;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(jac->w[0], &p));
  PetscCall(VecDuplicate(jac->w[0], &t));
  PetscCall(PCBISAIProbeVector(jac, p));
  PetscCall(VecNorm(p, NORM_2, &np));
  for (PetscInt s = 0; s <= PCBISAI_PROBE_STEPS; s++) e[s] = 0;
  for (PetscInt w = 0; w < (jac->ic ? 1 : 2); w++) {
    PetscCall(PCMSVecGetArrayRead(op, p, &pa));
    PetscCall(PCMSVecGetArray(op, jac->w[0], PETSC_MEMORY_ACCESS_WRITE, &ya));
    PetscCall(PCBISAIMult(pc, &jac->inv[w], pa, PETSC_FALSE, ya));
    PetscCall(PCMSVecRestoreArray(op, jac->w[0], PETSC_MEMORY_ACCESS_WRITE, &ya));
    PetscCall(PCMSVecRestoreArrayRead(op, p, &pa));
    for (PetscInt s = 0; s <= PCBISAI_PROBE_STEPS; s++) {
      PetscCall(PCMSVecGetArrayRead(op, p, &pa));
      PetscCall(PCMSVecGetArray(op, jac->w[0], PETSC_MEMORY_ACCESS_READ_WRITE, &ya));
      PetscCall(PCMSVecGetArray(op, t, PETSC_MEMORY_ACCESS_WRITE, &ta));
      PetscCall(PCBISAIFactorResidual(pc, (PetscBool)(w == 0), pa, ya, ta));
      if (s < PCBISAI_PROBE_STEPS) PetscCall(PCBISAIMult(pc, &jac->inv[w], ta, PETSC_TRUE, ya));
      PetscCall(PCMSVecRestoreArray(op, t, PETSC_MEMORY_ACCESS_WRITE, &ta));
      PetscCall(PCMSVecRestoreArray(op, jac->w[0], PETSC_MEMORY_ACCESS_READ_WRITE, &ya));
      PetscCall(PCMSVecRestoreArrayRead(op, p, &pa));
      PetscCall(VecNorm(t, NORM_2, &nt));
      nt = np > 0 ? nt / np : 0;
      if (PetscIsInfOrNanReal(nt)) nt = PETSC_MAX_REAL;
      e[s] = PetscMax(e[s], nt);
    }
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, e, PCBISAI_PROBE_STEPS + 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)pc)));
  for (PetscInt s = 0; s <= PCBISAI_PROBE_STEPS; s++) jac->probe[s] = e[s];
  PetscCall(VecDestroy(&p));
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Patterns, inverses and the probe; the Richardson steps (when the user did not set them): the fewest s <= 3 whose
   probe residual e_s is at most the variant's target, else the s of the smallest e_s below 1; when every e_s is 1 or
   more the approximate inverse is no approximation even with steps: the level is raised (when the user did not set
   it), and at level 3 block Jacobi is used */
static PetscErrorCode PCBISAIApproximateInverses(PC pc, PetscLogDouble *t)
{
  PC_BISAI       *jac = (PC_BISAI *)pc->data;
  const PetscReal target = jac->ic ? PCBISAI_PROBE_IC : PCBISAI_PROBE_ILU;
  PetscInt        best;

  PetscFunctionBegin;
  jac->fallback        = PETSC_FALSE;
  jac->level_used      = jac->level;
  jac->why_fallback[0] = 0;
  for (;;) {
    const PetscInt kind  = jac->ic ? 2 : 1;
    PetscBool      built = (PetscBool)(jac->built_kind == kind && jac->built_level == jac->level_used);

    PetscCall(PetscLogEventBegin(PC_BISAIPattern, pc, 0, 0, 0));
    PetscCall(PCBISAIPatterns(pc, kind, jac->level_used));
    PetscCall(PetscLogEventEnd(PC_BISAIPattern, pc, 0, 0, 0));
    if (!built) jac->patterns_reused = PETSC_FALSE;
    PetscCall(PCBISAIElapsed(jac, t, &jac->t_pattern));
    PetscCall(PetscLogEventBegin(PC_BISAIInverse, pc, 0, 0, 0));
    PetscCall(PCBISAIInverses(pc));
    PetscCall(PetscLogEventEnd(PC_BISAIInverse, pc, 0, 0, 0));
    PetscCall(PCBISAIElapsed(jac, t, &jac->t_inverse));
    if (!jac->w[0]) {
      for (PetscInt w = 0; w < 2; w++) PetscCall(PCMSCreateVec(&jac->op, PETSC_COMM_SELF, jac->op.m, &jac->w[w]));
    }
    PetscCall(PCBISAIProbe(pc));
    PetscCall(PCBISAIElapsed(jac, t, &jac->t_probe));
    best = 0;
    for (PetscInt s = 1; s <= PCBISAI_PROBE_STEPS; s++)
      if (jac->probe[s] < jac->probe[best]) best = s;
    if (jac->probe[best] < 1.0 || jac->level_set || jac->steps_set >= 0 || jac->level_used >= 3) break;
    PetscCall(PetscInfo(pc, "PCBISAI: the approximate inverses at level %" PetscInt_FMT " leave probe residuals >= 1 with up to %d Richardson steps: level %" PetscInt_FMT "\n", jac->level_used, PCBISAI_PROBE_STEPS, jac->level_used + 1));
    jac->level_used++;
  }
  if (jac->steps_set >= 0) {
    jac->steps = jac->steps_set;
    PetscCall(PetscSNPrintf(jac->why_steps, sizeof(jac->why_steps), "set by the user; probe residual %.3g", (double)jac->probe[PetscMin(jac->steps, PCBISAI_PROBE_STEPS)]));
  } else if (jac->probe[best] < 1.0) {
    jac->steps = best;
    for (PetscInt s = PCBISAI_PROBE_STEPS; s >= 0; s--)
      if (jac->probe[s] <= target) jac->steps = s;
    PetscCall(PetscSNPrintf(jac->why_steps, sizeof(jac->why_steps), "automatic: the fewest steps whose probe residual |p - T y| / |p| is at most %g, else the smallest residual; residuals %.3g, %.3g, %.3g, %.3g with 0 to 3 steps", (double)target, (double)jac->probe[0], (double)jac->probe[1], (double)jac->probe[2], (double)jac->probe[3]));
  } else {
    jac->steps = 0;
    PetscCall(PetscSNPrintf(jac->why_fallback, sizeof(jac->why_fallback), "the approximate inverse%s at level %" PetscInt_FMT " leave%s probe residuals |p - T y| / |p| of at least %.3g with 0 to %d Richardson steps: no approximation of the inverse factors", jac->ic ? "" : "s", jac->level_used, jac->ic ? "s" : "", (double)jac->probe[best], PCBISAI_PROBE_STEPS));
    PetscCall(PetscInfo(pc, "PCBISAI: block Jacobi on the operator's diagonal blocks: %s\n", jac->why_fallback));
    jac->fallback = PETSC_TRUE;
    PetscCall(PCBISAIPatterns(pc, 3, 0));
    PetscCall(PCBISAIInverses(pc));
    PetscCall(PCBISAIElapsed(jac, t, &jac->t_inverse));
  }
  if (!jac->fallback) PetscCall(PetscInfo(pc, "PCBISAI: level %" PetscInt_FMT ", %" PetscInt_FMT " Richardson steps: %s\n", jac->level_used, jac->steps, jac->why_steps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The variant: the user's, else symmetric when the operator is marked symmetric (or SPD), else as measured by the
   check kernel (asym: the global row of the first asymmetric entry, -1 for none; the check runs only when needed) */
static PetscErrorCode PCBISAIChooseVariant(PC pc, PetscBool *need_measure, PetscBool *spd_marked)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;
  PetscBool set, flg;

  PetscFunctionBegin;
  *need_measure = PETSC_FALSE;
  PetscCall(MatIsSPDKnown(pc->pmat, &set, &flg));
  *spd_marked = (PetscBool)(set && flg);
  if (jac->variant != PCBISAI_VARIANT_AUTO) {
    jac->ic = (PetscBool)(jac->variant == PCBISAI_VARIANT_IC);
    PetscCall(PetscSNPrintf(jac->why_variant, sizeof(jac->why_variant), "set by the user (-pc_bisai_variant %s)", PCBISAIVariants[jac->variant]));
  } else if (*spd_marked) {
    jac->ic = PETSC_TRUE;
    PetscCall(PetscSNPrintf(jac->why_variant, sizeof(jac->why_variant), "the operator is marked SPD (MAT_SPD)"));
  } else {
    PetscCall(MatIsSymmetricKnown(pc->pmat, &set, &flg));
    if (set) {
      jac->ic = flg;
      PetscCall(PetscSNPrintf(jac->why_variant, sizeof(jac->why_variant), "the operator is marked %s (MAT_SYMMETRIC)", flg ? "symmetric" : "nonsymmetric"));
    } else *need_measure = PETSC_TRUE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_BISAI(PC pc)
{
  PC_BISAI      *jac  = (PC_BISAI *)pc->data;
  PCMSOperator  *op   = &jac->op;
  MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
  PetscInt       bs;
  PetscBool      rebuild, measure = PETSC_FALSE, spd_marked = PETSC_FALSE;
  PCMSCSR        csr;
  MSBISAIStatus  st;
  PetscInt64     row[2];
  PetscLogDouble t, t0;
  void          *stream;
  int            err;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  t               = t0;
  jac->t_symbolic = jac->t_ilu = jac->t_pattern = jac->t_inverse = jac->t_probe = 0;
  jac->ksp_note[0] = 0;
  PetscCall(PCBISAIOperatorSetUp(pc));
  jac->k = PCMSKernels(op, MSBISAIKernels);
  PetscCall(PCBISAIResolveBlockSize(pc, &bs));
  rebuild = (PetscBool)(op->rebuilt || bs != jac->bs || !jac->rowptr.ptr || jac->nb * bs != op->m);
  if (rebuild) PetscCall(PCBISAIFreeStructure(jac));
  jac->bs              = bs;
  jac->nb              = op->m / bs;
  jac->patterns_reused = (PetscBool)!rebuild;
  PetscCall(PCMSBufferEnsure(op, &jac->status, sizeof(MSBISAIStatus), "PCBISAI's status"));

  /* 0. the entries: finite, and (for the automatic variant) symmetric or not */
  PetscCall(PCBISAIChooseVariant(pc, &measure, &spd_marked));
  PetscCall(PCMSOperatorGetCSR(op, PETSC_TRUE, PETSC_TRUE, &csr));
  PetscCall(PetscLogEventBegin(PC_BISAIPattern, pc, 0, 0, 0));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->check(csr.m, csr.ai, csr.aj, csr.aa, measure ? PCBISAI_SYMTOL : -1.0, (int *)PCBISAIStatusField(jac, check), stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "check", 0.0));
  PetscCall(PCBISAIReadStatus(jac, &st));
  PetscCall(PCBISAIFirstRow(pc, st.check[0], &row[0]));
  PetscCall(PCBISAIFirstRow(pc, st.check[1], &row[1]));
  if (row[0] >= 0) {
    PetscCall(PCMSOperatorRestoreCSR(op, &csr));
    SETERRQ(comm, PETSC_ERR_FP, "PCBISAI: row %" PetscInt64_FMT " of the operator has an entry that is not finite (NaN or Inf): correct the assembly of that row (a preconditioner cannot make such a system solvable)", row[0]);
  }
  if (measure) {
    jac->ic = (PetscBool)(row[1] < 0);
    if (jac->ic) PetscCall(PetscSNPrintf(jac->why_variant, sizeof(jac->why_variant), "the operator is symmetric (measured: every entry of the diagonal block equals its transpose to %g relative)", PCBISAI_SYMTOL));
    else PetscCall(PetscSNPrintf(jac->why_variant, sizeof(jac->why_variant), "the operator is not symmetric (measured: row %" PetscInt64_FMT " has an entry that differs from its transpose)", row[1]));
  }
  PetscCall(PetscInfo(pc, "PCBISAI: block %s(0): %s\n", jac->ic ? "IC" : "ILU", jac->why_variant));

  /* 1. the block pattern (a new nonzero pattern or block size) and the values */
  if (rebuild) PetscCall(PCBISAIBlockPattern(pc, &csr));
  PetscCall(PCMSBufferEnsure(op, &jac->A, sizeof(double) * PetscMax(jac->nnzb * bs * bs, 1), "PCBISAI's copy of the operator's blocks"));
  PetscCall(PCMSBufferEnsure(op, &jac->F, sizeof(double) * PetscMax(jac->nnzb * bs * bs, 1), "PCBISAI's block factors"));
  PetscCall(PCMSBufferEnsure(op, &jac->Dinv, sizeof(double) * PetscMax(jac->nb * bs * bs, 1), "PCBISAI's inverse diagonal blocks"));
  PetscCall(PCMSBufferEnsure(op, &jac->iwork, sizeof(int) * (jac->nb + 1), "PCBISAI's factorization work"));
  PetscCall(PCBISAIValues(pc, &csr));
  PetscCall(PetscLogEventEnd(PC_BISAIPattern, pc, 0, 0, 0));
  PetscCall(PCBISAIElapsed(jac, &t, &jac->t_symbolic));

  /* 2. the factorization */
  PetscCall(PetscLogEventBegin(PC_BISAIILU, pc, 0, 0, 0));
  {
    PetscErrorCode ierr = PCBISAIFactorSafe(pc, &csr, spd_marked);

    if (ierr) { /* the error after the CSR is given back */
      PetscCall(PCMSOperatorRestoreCSR(op, &csr));
      PetscCall(ierr);
    }
  }
  PetscCall(PCMSOperatorRestoreCSR(op, &csr));
  if (jac->ic) { /* U = D L^T, so that the symmetric apply's Richardson steps on U keep M^-1 symmetric */
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->ic_upper((int)jac->nb, (int)bs, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, (const int *)jac->diag.ptr, (double *)jac->F.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "ic_upper", 2.0 * bs * bs * bs * (PetscLogDouble)(jac->nnzb - jac->nlower - jac->nb)));
  }
  PetscCall(PetscLogEventEnd(PC_BISAIILU, pc, 0, 0, 0));
  PetscCall(PCBISAIElapsed(jac, &t, &jac->t_ilu));

  /* 3-5. the approximate inverses, the probe, the steps */
  PetscCall(PCBISAIApproximateInverses(pc, &t));
  if (PCBISAIUsesLibrary(jac) && !jac->library) { /* the library's handle, here rather than in the first apply */
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->bsr_mult_library(&jac->library, 0, (int)jac->bs, 0, NULL, NULL, NULL, NULL, 0, NULL, stream);
    if (jac->library) jac->libtable = jac->k;
    PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCBISAI: creating the %s handle failed with its status %d; use -pc_bisai_spmv own", jac->k->library, -err);
    PetscCall(PCMSKernelEnd(op, err, jac->k->library, "handle creation", 0.0));
  }
  PetscCall(PetscTime(&t));
  jac->t_setup = t - t0;
  jac->nsetups++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* apply                                                                                                        */

static PetscErrorCode PCApply_BISAI(PC pc, Vec x, Vec y)
{
  PC_BISAI          *jac = (PC_BISAI *)pc->data;
  PCMSOperator      *op  = &jac->op;
  const PetscScalar *xa;
  PetscScalar       *ya, *wa, *ta;
  Vec                xu, yu;

  PetscFunctionBegin;
  PetscCheck(jac->w[0], PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBISAI: the preconditioner is not set up");
  PetscCall(PetscLogEventBegin(PC_BISAIApply, pc, x, y, 0));
  PetscCall(PCMSStageIn(op, 0, x, PETSC_TRUE, &xu));
  PetscCall(PCMSStageIn(op, 1, y, PETSC_FALSE, &yu));
  PetscCall(PCMSVecGetArrayRead(op, xu, &xa));
  PetscCall(PCMSVecGetArray(op, yu, PETSC_MEMORY_ACCESS_WRITE, &ya));
  if (jac->fallback) PetscCall(PCBISAIMult(pc, &jac->inv[0], xa, PETSC_FALSE, ya)); /* block Jacobi */
  else {
    PetscCall(PCMSVecGetArray(op, jac->w[0], PETSC_MEMORY_ACCESS_WRITE, &wa));
    PetscCall(PCMSVecGetArray(op, jac->w[1], PETSC_MEMORY_ACCESS_WRITE, &ta));
    PetscCall(PCBISAITriangular(pc, 0, xa, wa, ta)); /* w ~ L^-1 x */
    PetscCall(PCBISAITriangular(pc, 1, wa, ya, ta)); /* y ~ U^-1 w (the symmetric variant: D^-1 folded into H) */
    PetscCall(PCMSVecRestoreArray(op, jac->w[1], PETSC_MEMORY_ACCESS_WRITE, &ta));
    PetscCall(PCMSVecRestoreArray(op, jac->w[0], PETSC_MEMORY_ACCESS_WRITE, &wa));
  }
  PetscCall(PCMSVecRestoreArray(op, yu, PETSC_MEMORY_ACCESS_WRITE, &ya));
  PetscCall(PCMSVecRestoreArrayRead(op, xu, &xa));
  PetscCall(PCMSStageOut(y, yu));
  PetscCall(PetscLogEventEnd(PC_BISAIApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Krylov method that uses the preconditioner: the ILU variant (and block Jacobi on a nonsymmetric operator) is not
   symmetric, so a method for symmetric positive definite preconditioners (CG and its relatives) is noted in -info and
   PCView() */
static PetscErrorCode PCPreSolve_BISAI(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;
  PetscBool spd_method;
  KSPType   type;

  PetscFunctionBegin;
  (void)b;
  (void)x;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &spd_method, KSPCG, KSPPIPECG, KSPPIPECGRR, KSPPIPELCG, KSPGROPPCG, KSPPIPECG2, KSPCR, KSPPIPECR, KSPMINRES, KSPSYMMLQ, "cgdevice", ""));
  jac->ksp_note[0] = 0;
  if (spd_method && !jac->ic) {
    PetscCall(KSPGetType(ksp, &type));
    if (jac->variant == PCBISAI_VARIANT_ILU) PetscCall(PetscSNPrintf(jac->ksp_note, sizeof(jac->ksp_note), "WARNING: KSP %s expects a symmetric positive definite preconditioner, and the ILU variant set by the user is not symmetric: -pc_bisai_variant ic (or auto, on a symmetric operator) gives one", type));
    else PetscCall(PetscSNPrintf(jac->ksp_note, sizeof(jac->ksp_note), "WARNING: KSP %s expects a symmetric positive definite operator and preconditioner, and %s, so PCBISAI uses its ILU variant, which is not symmetric: use -ksp_type gmres", type, jac->why_variant));
    PetscCall(PetscInfo(pc, "PCBISAI: %s\n", jac->ksp_note));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_BISAI(PC pc)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCBISAIFreeStructure(jac));
  if (jac->library) {
    int err;

    PetscCheck(jac->libtable, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBISAI: the BSR product library's handle has no table to destroy it");
    err = jac->libtable->library_destroy(&jac->library);

    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCBISAI: destroying the %s handle failed with its status %d", jac->libtable->library, -err);
  }
  PetscCall(PCMSOperatorReset(&jac->op));
  PetscCall(MatDestroy(&jac->aij));
  jac->nsetups = 0;
  jac->bs      = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_BISAI(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_BISAI       *jac   = (PC_BISAI *)pc->data;
  PetscInt        level = jac->level, sweeps = jac->sweeps, bs = jac->bs_set, steps = jac->steps_set;
  PCBISAIVariant  variant = jac->variant;
  PCBISAIILUType  ilu     = jac->ilu;
  PCBISAISpMVType spmv    = jac->spmv;
  PetscBool       flg, shift = jac->shift;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Block incomplete sparse approximate inverse (block-ISAI) options");
  PetscCall(PetscOptionsEnum("-pc_bisai_variant", "Factorization: auto (ic on a symmetric operator whose diagonal blocks are positive definite, else ilu), ilu (block ILU(0), M^-1 = M_U M_L) or ic (block IC(0), M^-1 = G^T D^-1 G: SPD, for CG)", "PCBISAISetVariant", PCBISAIVariants, (PetscEnum)variant, (PetscEnum *)&variant, &flg));
  if (flg) PetscCall(PCBISAISetVariant(pc, variant));
  PetscCall(PetscOptionsRangeInt("-pc_bisai_block_size", "Block size of the blocks (0: the operator's, or its largest divisor up to 8)", "PCBISAISetBlockSize", bs, &bs, &flg, 0, MS_BISAI_MAXBS));
  if (flg) PetscCall(PCBISAISetBlockSize(pc, bs));
  PetscCall(PetscOptionsRangeInt("-pc_bisai_level", "Pattern S(|L|^k), S(|U|^k) of the approximate inverses: k (1 to 3; default 1, raised while the approximate inverse is no approximation)", "PCBISAISetLevel", level, &level, &flg, 1, 3));
  if (flg) PetscCall(PCBISAISetLevel(pc, level));
  PetscCall(PetscOptionsRangeInt("-pc_bisai_steps", "Richardson steps y += M (b - T y) refining each triangular solve (-1: automatic, from a probe of the approximate inverses)", "PCBISAISetSteps", steps, &steps, &flg, -1, PCBISAI_STEPS_MAX));
  if (flg) PetscCall(PCBISAISetSteps(pc, steps));
  PetscCall(PetscOptionsBool("-pc_bisai_shift", "On a breakdown of the symmetric factorization, retry it on A + alpha diag(A), alpha = 1e-3, 1e-2, ..., 100", "PCBISAISetShift", shift, &shift, &flg));
  if (flg) PetscCall(PCBISAISetShift(pc, shift));
  PetscCall(PetscOptionsEnum("-pc_bisai_ilu", "Block factorization: exact (row order, where the preconditioner runs) or sweeps (fixed-point iteration where the preconditioner runs)", "PCBISAISetILUType", PCBISAIILUTypes, (PetscEnum)ilu, (PetscEnum *)&ilu, &flg));
  if (flg) PetscCall(PCBISAISetILUType(pc, ilu));
  PetscCall(PetscOptionsBoundedInt("-pc_bisai_ilu_sweeps", "Fixed-point sweeps of -pc_bisai_ilu sweeps (from L = I, U = triu(A))", "PCBISAISetILUSweeps", sweeps, &sweeps, &flg, 0));
  if (flg) PetscCall(PCBISAISetILUSweeps(pc, sweeps));
  PetscCall(PetscOptionsEnum("-pc_bisai_spmv", "Kernel of the block sparse products on the GPU: own or cusparse (cusparseDbsrmv, for comparison); the host kernel without a GPU", "PCBISAISetSpMVType", PCBISAISpMVTypes, (PetscEnum)spmv, (PetscEnum *)&spmv, &flg));
  if (flg) PetscCall(PCBISAISetSpMVType(pc, spmv));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_BISAI(PC pc, PetscViewer viewer)
{
  PC_BISAI      *jac  = (PC_BISAI *)pc->data;
  MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
  PetscBool      isascii;
  const char    *where;
  PetscInt64     cnt[6];
  PetscLogDouble tm[6], mem[3];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (!jac->nsetups) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  block-ISAI, variant %s, level %" PetscInt_FMT ", block factorization %s (not set up yet)\n", PCBISAIVariants[jac->variant], jac->level, PCBISAIILUTypes[jac->ilu]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCMSOperatorDescribe(&jac->op, &where, NULL));
  if (jac->ic) PetscCall(PetscViewerASCIIPrintf(viewer, "  block-ISAI, symmetric variant: block IC(0) A ~ L D L^T, M^-1 = G^T D^-1 G with G ~ L^-1 on S(|L|^%" PetscInt_FMT "): symmetric positive definite\n", jac->level_used));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  block-ISAI, ILU variant: block ILU(0) A ~ L U, M^-1 = M_U M_L with M_L ~ L^-1 on S(|L|^%" PetscInt_FMT "), M_U ~ U^-1 on S(|U|^%" PetscInt_FMT "): not symmetric\n", jac->level_used, jac->level_used));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  variant: %s\n", jac->why_variant));
  if (jac->ilu == PCBISAI_ILU_EXACT) PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization: exact, in row order on the %s", where));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  factorization: %" PetscInt_FMT " fixed-point sweeps on the %s", jac->sweeps, where));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  if (jac->nshifts) PetscCall(PetscViewerASCIIPrintf(viewer, "; shifted: A + %.0e diag(A) after %" PetscInt_FMT " breakdown%s\n", (double)jac->alpha, jac->nshifts, jac->nshifts > 1 ? "s" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  if (jac->fallback) PetscCall(PetscViewerASCIIPrintf(viewer, "  FALLBACK: block Jacobi on the operator's diagonal blocks: %s\n", jac->why_fallback));
  else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  level %" PetscInt_FMT ": %s\n", jac->level_used, jac->level_set ? "set by the user" : (jac->level_used > jac->level ? "raised: the lower levels' approximate inverses were no approximation (probe residual >= 1)" : "the default")));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  Richardson steps per triangular solve: %" PetscInt_FMT " (%s)\n", jac->steps, jac->why_steps));
  }
  if (jac->ksp_note[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "  %s\n", jac->ksp_note));
  /* nonzero blocks over the processes: A's diagonal blocks, L (with its unit diagonal), U, M_L, M_U, block rows */
  cnt[0] = jac->nnzb;
  cnt[1] = (PetscInt64)jac->nlower + jac->nb;
  cnt[2] = (PetscInt64)jac->nnzb - (PetscInt64)jac->nlower;
  cnt[3] = jac->inv[0].nnzb;
  cnt[4] = jac->fallback ? 0 : jac->inv[1].nnzb;
  cnt[5] = jac->nb;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, cnt, 6, MPIU_INT64, MPI_SUM, comm));
  tm[0] = jac->t_symbolic;
  tm[1] = jac->t_ilu;
  tm[2] = jac->t_pattern;
  tm[3] = jac->t_inverse;
  tm[4] = jac->t_probe;
  tm[5] = jac->t_setup;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, tm, 6, MPIU_PETSCLOGDOUBLE, MPI_MAX, comm));
  {
    const PetscLogDouble bs2 = (PetscLogDouble)jac->bs * jac->bs;
    mem[0] = 8.0 * jac->nnz_ad + 4.0 * jac->nnz_ad + 4.0 * (jac->nb * jac->bs + 1);                                      /* the operator's diagonal block, CSR */
    mem[1] = 8.0 * bs2 * (2.0 * jac->nnzb + jac->nb) + 4.0 * (3.0 * jac->nnzb + 2.0 * jac->nb + 1) + 4.0 * jac->nnz_ad; /* A, F, Dinv, the pattern, the map */
    mem[2] = 8.0 * bs2 * (cnt[3] + cnt[4]) / PetscMax(cnt[5], 1) * jac->nb + 4.0 * 3.0 * (jac->inv[0].nnzb + jac->inv[1].nnzb); /* M_L, M_U and the column views */
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, mem, 3, MPIU_PETSCLOGDOUBLE, MPI_SUM, comm));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  block size %" PetscInt_FMT ", %" PetscInt64_FMT " block rows, on the %s; per process on its diagonal block (block Jacobi across processes)\n", jac->bs, cnt[5], where));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  block size: %s\n", jac->why_bs));
  if (jac->fallback) PetscCall(PetscViewerASCIIPrintf(viewer, "  nonzero blocks: A %" PetscInt64_FMT ", L %" PetscInt64_FMT " (with its unit diagonal), U %" PetscInt64_FMT "; applied: the %" PetscInt64_FMT " inverse diagonal blocks\n", cnt[0], cnt[1], cnt[2], cnt[3]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  nonzero blocks: A %" PetscInt64_FMT ", L %" PetscInt64_FMT " (with its unit diagonal), U %" PetscInt64_FMT ", %s %" PetscInt64_FMT ", %s %" PetscInt64_FMT " (%s: %.2f x A)\n", cnt[0], cnt[1], cnt[2], jac->ic ? "G" : "M_L", cnt[3], jac->ic ? "H = G^T D^-1" : "M_U", cnt[4], jac->ic ? "G + H" : "M_L + M_U", cnt[0] ? (double)(cnt[3] + cnt[4]) / (double)cnt[0] : 0.0));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  memory (%s): operator blocks, factors and inverse diagonal blocks %.3g MB, approximate inverses %.3g MB; the operator's diagonal block (CSR) %.3g MB\n", jac->op.device ? "device" : "host", mem[1] / 1e6, mem[2] / 1e6, mem[0] / 1e6));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  last setup: %.4g s = symbolic and values %.4g s + factorization %.4g s + patterns %.4g s + inverses %.4g s + probe %.4g s (max over processes)\n", tm[5], tm[0], tm[1], tm[2], tm[3], tm[4]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  patterns: %s at the last setup\n", jac->patterns_reused ? "reused (the operator's values changed only)" : "computed"));
  if (PCBISAIUsesLibrary(jac)) PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: block sparse products, %s bsrmv\n", jac->k->library));
  else if (jac->k->bsr_mult_library && jac->spmv == PCBISAI_SPMV_CUSPARSE) PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: block sparse products, own BSR kernel (GPU; %s bsrmv takes blocks of %d or more)\n", jac->k->library, jac->k->library_min_bs));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: block sparse products, %s\n", !jac->op.device ? "host kernel" : "own BSR kernel (GPU)"));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* public interface                                                                                */

static PetscErrorCode PCBISAISetLevel_BISAI(PC pc, PetscInt level)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->level     = level;
  jac->level_set = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAISetLevel - Sets the level k of the patterns S(|L|^k), S(|U|^k) of the approximate inverses of `PCBISAI`

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- level - 1, 2 or 3 (default 1)

  Options Database Key:
. -pc_bisai_level <1> - the level

  Level: intermediate

  Notes:
  Denser patterns (higher k) approximate the inverses of the triangular factors better (fewer Krylov iterations) at
  the price of more memory, setup and work per application; the Richardson steps (`PCBISAISetSteps()`) usually buy
  more accuracy for the same work. Without a level set, the setup raises the level while the probe of the
  approximate inverses shows no approximation at all (a residual of 1 or more), and falls back to block Jacobi when
  level 3 does not help either.

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAIGetLevel()`, `PCBISAISetSteps()`
@*/
PetscErrorCode PCBISAISetLevel(PC pc, PetscInt level)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, level, 2);
  PetscCheck(level >= 1 && level <= 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBISAI: the level of the patterns S(|L|^k) is 1, 2 or 3, not %" PetscInt_FMT, level);
  PetscTryMethod(pc, "PCBISAISetLevel_C", (PC, PetscInt), (pc, level));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetLevel_BISAI(PC pc, PetscInt *level)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  *level = jac->nsetups && !jac->fallback ? jac->level_used : jac->level;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetLevel - Gets the level k of the patterns of `PCBISAI`'s approximate inverses

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. level - the level set (default 1); after a setup that raised it, the level in use

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetLevel()`
@*/
PetscErrorCode PCBISAIGetLevel(PC pc, PetscInt *level)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(level, 2);
  PetscUseMethod(pc, "PCBISAIGetLevel_C", (PC, PetscInt *), (pc, level));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAISetILUType_BISAI(PC pc, PCBISAIILUType type)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->ilu = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAISetILUType - Sets how `PCBISAI` computes its block incomplete factors (ILU(0), or IC(0) in the symmetric
  variant)

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PCBISAI_ILU_EXACT` (default: row order where the preconditioner runs; on the GPU one warp per block row,
         each row starting when the rows it depends on are done) or `PCBISAI_ILU_SWEEPS` (fixed-point sweeps, see
         `PCBISAISetILUSweeps()`)

  Options Database Key:
. -pc_bisai_ilu <exact,sweeps> - the variant

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAIGetILUType()`, `PCBISAISetILUSweeps()`
@*/
PetscErrorCode PCBISAISetILUType(PC pc, PCBISAIILUType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscCheck(type == PCBISAI_ILU_EXACT || type == PCBISAI_ILU_SWEEPS, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBISAI: the block ILU(0) variant is PCBISAI_ILU_EXACT or PCBISAI_ILU_SWEEPS, not %d", (int)type);
  PetscTryMethod(pc, "PCBISAISetILUType_C", (PC, PCBISAIILUType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetILUType_BISAI(PC pc, PCBISAIILUType *type)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  *type = jac->ilu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetILUType - Gets how `PCBISAI` computes its block incomplete factors

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the variant

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetILUType()`
@*/
PetscErrorCode PCBISAIGetILUType(PC pc, PCBISAIILUType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(type, 2);
  PetscUseMethod(pc, "PCBISAIGetILUType_C", (PC, PCBISAIILUType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAISetILUSweeps_BISAI(PC pc, PetscInt sweeps)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->sweeps = sweeps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAISetILUSweeps - Sets the number of fixed-point sweeps of `PCBISAI`'s block factorization with `PCBISAI_ILU_SWEEPS`

  Logically Collective

  Input Parameters:
+ pc     - the preconditioner context
- sweeps - the number of sweeps (default 5); 0 keeps the initial guess L = I, U = triu(A)

  Options Database Key:
. -pc_bisai_ilu_sweeps <5> - the sweeps

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetILUType()`, `PCBISAIGetILUSweeps()`
@*/
PetscErrorCode PCBISAISetILUSweeps(PC pc, PetscInt sweeps)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, sweeps, 2);
  PetscCheck(sweeps >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBISAI: the number of fixed-point sweeps, %" PetscInt_FMT ", must be nonnegative", sweeps);
  PetscTryMethod(pc, "PCBISAISetILUSweeps_C", (PC, PetscInt), (pc, sweeps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetILUSweeps_BISAI(PC pc, PetscInt *sweeps)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  *sweeps = jac->sweeps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetILUSweeps - Gets the number of fixed-point sweeps of `PCBISAI`'s block factorization

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. sweeps - the sweeps

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetILUSweeps()`
@*/
PetscErrorCode PCBISAIGetILUSweeps(PC pc, PetscInt *sweeps)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(sweeps, 2);
  PetscUseMethod(pc, "PCBISAIGetILUSweeps_C", (PC, PetscInt *), (pc, sweeps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAISetSpMVType_BISAI(PC pc, PCBISAISpMVType type)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->spmv = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAISetSpMVType - Sets the GPU kernel of the block sparse products of `PCBISAI`'s apply

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PCBISAI_SPMV_OWN` (default: the plugin's BSR kernel) or `PCBISAI_SPMV_CUSPARSE` (cuSPARSE's
         `cusparseDbsrmv()` on the same arrays)

  Options Database Key:
. -pc_bisai_spmv <own,cusparse> - the kernel

  Level: intermediate

  Note:
  Both kernels compute the same products (to rounding); cuSPARSE's is there to compare with. On the host (no GPU, or
  an operator that stays on the host) the host kernel runs whatever is set, and so does the own kernel for block size
  1 (`cusparseDbsrmv()` failed on 1 x 1 blocks: CUDA 13.0, an H100, 2026-11-24). The cuSPARSE
  handle is created at the setup.

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAIGetSpMVType()`, `PCBISAISpMVType`
@*/
PetscErrorCode PCBISAISetSpMVType(PC pc, PCBISAISpMVType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscCheck(type == PCBISAI_SPMV_OWN || type == PCBISAI_SPMV_CUSPARSE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBISAI: the product kernel is PCBISAI_SPMV_OWN or PCBISAI_SPMV_CUSPARSE, not %d", (int)type);
  PetscTryMethod(pc, "PCBISAISetSpMVType_C", (PC, PCBISAISpMVType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetSpMVType_BISAI(PC pc, PCBISAISpMVType *type)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  *type = jac->spmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetSpMVType - Gets the GPU kernel of the block sparse products of `PCBISAI`'s apply

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the kernel

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetSpMVType()`
@*/
PetscErrorCode PCBISAIGetSpMVType(PC pc, PCBISAISpMVType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(type, 2);
  PetscUseMethod(pc, "PCBISAIGetSpMVType_C", (PC, PCBISAISpMVType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAISetVariant_BISAI(PC pc, PCBISAIVariant variant)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->variant = variant;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAISetVariant - Sets the factorization `PCBISAI` approximates

  Logically Collective

  Input Parameters:
+ pc      - the preconditioner context
- variant - `PCBISAI_VARIANT_AUTO` (default), `PCBISAI_VARIANT_ILU` or `PCBISAI_VARIANT_IC`

  Options Database Key:
. -pc_bisai_variant <auto,ilu,ic> - the variant

  Level: intermediate

  Notes:
  `PCBISAI_VARIANT_IC` computes block IC(0) factors A ~ L D L^T (D block diagonal, its blocks symmetric positive
  definite) and applies M^-1 = G^T D^-1 G with G the approximate inverse of L: a symmetric positive definite
  preconditioner, for `KSPCG`. A breakdown (a block of D that is not positive definite) is retried on
  A + alpha diag(A) (see `PCBISAISetShift()`); an operator whose own diagonal blocks are not positive definite is an
  error. `PCBISAI_VARIANT_ILU` computes block ILU(0) factors and applies M^-1 = M_U M_L, which is not symmetric: for
  `KSPGMRES` and `KSPBCGS`. `PCBISAI_VARIANT_AUTO` takes IC when the operator is symmetric, marked
  (`MatIsSPDKnown()`, `MatIsSymmetricKnown()`) or measured at the setup (every entry of the diagonal block equals its
  transpose to 1e-10 relative), and ILU otherwise, or when a diagonal block of a symmetric operator is not positive
  definite. `PCView()` says which and why.

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAIGetVariant()`, `PCBISAIVariant`, `PCBISAISetShift()`
@*/
PetscErrorCode PCBISAISetVariant(PC pc, PCBISAIVariant variant)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, variant, 2);
  PetscCheck(variant >= PCBISAI_VARIANT_AUTO && variant <= PCBISAI_VARIANT_IC, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBISAI: the variant is PCBISAI_VARIANT_AUTO, PCBISAI_VARIANT_ILU or PCBISAI_VARIANT_IC, not %d", (int)variant);
  PetscTryMethod(pc, "PCBISAISetVariant_C", (PC, PCBISAIVariant), (pc, variant));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetVariant_BISAI(PC pc, PCBISAIVariant *variant)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  *variant = jac->nsetups ? (jac->ic ? PCBISAI_VARIANT_IC : PCBISAI_VARIANT_ILU) : jac->variant;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetVariant - Gets the factorization `PCBISAI` approximates

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. variant - before the setup the variant set; after it the variant in use (`PCBISAI_VARIANT_ILU` or
            `PCBISAI_VARIANT_IC`)

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetVariant()`
@*/
PetscErrorCode PCBISAIGetVariant(PC pc, PCBISAIVariant *variant)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(variant, 2);
  PetscUseMethod(pc, "PCBISAIGetVariant_C", (PC, PCBISAIVariant *), (pc, variant));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAISetBlockSize_BISAI(PC pc, PetscInt bs)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->bs_set = bs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAISetBlockSize - Sets the size of `PCBISAI`'s blocks

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- bs - 1 to 8, or 0 (default): the operator's block size (`MatGetBlockSize()`), or its largest divisor up to 8

  Options Database Key:
. -pc_bisai_block_size <0> - the block size

  Level: intermediate

  Note:
  Blocks group the unknowns of one node (the fields of a grid point, the displacement components of a finite-element
  node). The block size must divide every process's number of rows: another one is an error at the setup.

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAIGetBlockSize()`
@*/
PetscErrorCode PCBISAISetBlockSize(PC pc, PetscInt bs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, bs, 2);
  PetscCheck(bs >= 0 && bs <= MS_BISAI_MAXBS, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBISAI: the block size is 1 to %d (0: the operator's), not %" PetscInt_FMT, MS_BISAI_MAXBS, bs);
  PetscTryMethod(pc, "PCBISAISetBlockSize_C", (PC, PetscInt), (pc, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetBlockSize_BISAI(PC pc, PetscInt *bs)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  *bs = jac->nsetups ? jac->bs : jac->bs_set;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetBlockSize - Gets the size of `PCBISAI`'s blocks

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. bs - before the setup the block size set (0: the operator's); after it the block size in use

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetBlockSize()`
@*/
PetscErrorCode PCBISAIGetBlockSize(PC pc, PetscInt *bs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(bs, 2);
  PetscUseMethod(pc, "PCBISAIGetBlockSize_C", (PC, PetscInt *), (pc, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAISetSteps_BISAI(PC pc, PetscInt steps)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->steps_set = steps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAISetSteps - Sets the number of Richardson steps with which `PCBISAI` refines each triangular solve

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- steps - 0 to 8, or -1 (default, `PETSC_DECIDE`): chosen at the setup from a probe of the approximate inverses

  Options Database Key:
. -pc_bisai_steps <-1> - the steps

  Level: intermediate

  Notes:
  A triangular solve T y = b is approximated by y = M b, M the approximate inverse of T, followed by steps
  y <- y + M (b - T y) (Anzt et al. (2018)): each costs one product with the factor T and one with M. The symmetric
  variant takes the same steps on L and on U = D L^T, so that the preconditioner stays symmetric.

  The automatic choice measures at the setup, for a fixed vector p, the residuals e_s = |p - T y_s| / |p| after
  s = 0, 1, 2, 3 steps (the largest over the factors and the processes) and takes the fewest steps with e_s <= 0.25
  in the symmetric variant (CG: below that a step costs more than the iterations it saves) or e_s <= 0.02 in the ILU
  variant (GMRES spends more per iteration, and nonsymmetric systems need the triangular solves close to exact to
  converge like ILU(0)), else 3 steps. When every e_s is 1 or more the approximate inverse is no approximation: the
  level is raised (when not set), and at level 3 the preconditioner falls back to block Jacobi on the operator's
  diagonal blocks. `PCView()` shows the residuals and the choice.

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAIGetSteps()`, `PCBISAISetLevel()`
@*/
PetscErrorCode PCBISAISetSteps(PC pc, PetscInt steps)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, steps, 2);
  PetscCheck(steps >= -1 && steps <= PCBISAI_STEPS_MAX, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBISAI: the Richardson steps are 0 to %d (-1: automatic), not %" PetscInt_FMT, PCBISAI_STEPS_MAX, steps);
  PetscTryMethod(pc, "PCBISAISetSteps_C", (PC, PetscInt), (pc, steps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetSteps_BISAI(PC pc, PetscInt *steps)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  *steps = jac->nsetups ? jac->steps : jac->steps_set;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetSteps - Gets the number of Richardson steps of `PCBISAI`'s triangular solves

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. steps - before the setup the steps set (-1: automatic); after it the steps in use

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetSteps()`
@*/
PetscErrorCode PCBISAIGetSteps(PC pc, PetscInt *steps)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(steps, 2);
  PetscUseMethod(pc, "PCBISAIGetSteps_C", (PC, PetscInt *), (pc, steps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAISetShift_BISAI(PC pc, PetscBool shift)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->shift = shift;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAISetShift - Sets whether `PCBISAI` retries a broken-down symmetric factorization on shifted operators

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- shift - `PETSC_TRUE` (default): on a block of D that is not positive definite, factor A + alpha diag(A) for
          alpha = 1e-3, 1e-2, ..., 100 until the factorization succeeds (as PETSc's ICC shifts); `PETSC_FALSE`: an error

  Options Database Key:
. -pc_bisai_shift <true> - whether to shift

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAIGetShift()`, `PCBISAISetVariant()`
@*/
PetscErrorCode PCBISAISetShift(PC pc, PetscBool shift)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, shift, 2);
  PetscTryMethod(pc, "PCBISAISetShift_C", (PC, PetscBool), (pc, shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetShift_BISAI(PC pc, PetscBool *shift)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  *shift = jac->shift;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetShift - Gets whether `PCBISAI` retries a broken-down symmetric factorization on shifted operators

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. shift - whether it does

  Level: intermediate

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetShift()`
@*/
PetscErrorCode PCBISAIGetShift(PC pc, PetscBool *shift)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(shift, 2);
  PetscUseMethod(pc, "PCBISAIGetShift_C", (PC, PetscBool *), (pc, shift));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a sequential BAIJ matrix from blocks of a BSR array: the blocks of rows rowptr/cols selected by part (0: all, -1:
   strictly lower, 1: upper with the diagonal), plus identity diagonal blocks when unitdiag */
static PetscErrorCode PCBISAICreateBAIJ(PetscInt nb, PetscInt bs, const int *rowptr, const int *cols, const double *vals, PetscInt part, PetscBool unitdiag, Mat *M)
{
  PetscInt    *nnz;
  PetscScalar *blk, *eye;
  const PetscInt bs2 = bs * bs;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(PetscMax(nb, 1), &nnz, bs2, &blk, bs2, &eye));
  for (PetscInt e = 0; e < bs2; e++) eye[e] = (e / bs == e % bs) ? 1.0 : 0.0;
  for (PetscInt i = 0; i < nb; i++) {
    nnz[i] = unitdiag ? 1 : 0;
    for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
      if (part == 0 || (part < 0 && cols[p] < i) || (part > 0 && cols[p] >= i)) nnz[i]++;
  }
  PetscCall(MatCreateSeqBAIJ(PETSC_COMM_SELF, bs, nb * bs, nb * bs, 0, nnz, M));
  for (PetscInt i = 0; i < nb; i++) {
    if (unitdiag) PetscCall(MatSetValuesBlocked(*M, 1, &i, 1, &i, eye, INSERT_VALUES));
    for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
      if (part == 0 || (part < 0 && cols[p] < i) || (part > 0 && cols[p] >= i)) {
        const PetscInt j = cols[p];
        for (PetscInt e = 0; e < bs2; e++) blk[e] = vals[(size_t)p * bs2 + e];
        PetscCall(MatSetValuesBlocked(*M, 1, &i, 1, &j, blk, INSERT_VALUES));
      }
  }
  PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree3(nnz, blk, eye));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* host copies of a pattern in the backend's memory */
static PetscErrorCode PCBISAIReadPattern(PC_BISAI *jac, const int *rp, const int *cols, PetscInt nnzb, int **hrp, int **hcols)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc2(jac->nb + 1, hrp, PetscMax(nnzb, 1), hcols));
  PetscCall(PCMSReadBack(&jac->op, *hrp, rp, sizeof(int) * (jac->nb + 1)));
  PetscCall(PCMSReadBack(&jac->op, *hcols, cols, sizeof(int) * nnzb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIGetFactors_BISAI(PC pc, Mat *L, Mat *U, Mat *ML, Mat *MU)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;
  double   *h;
  int      *rp, *cols;
  size_t    bs2;

  PetscFunctionBegin;
  PetscCheck(jac->nsetups && jac->w[0], PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBISAI: the factors are computed by the setup: call PCSetUp() (or KSPSetUp()) first");
  PetscCheck(!jac->fallback || (!ML && !MU), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "PCBISAI: the last setup fell back to block Jacobi (%s): there are no approximate inverses", jac->why_fallback);
  bs2 = (size_t)jac->bs * jac->bs;
  if (L || U) {
    PetscCall(PCBISAIReadPattern(jac, (const int *)jac->rowptr.ptr, (const int *)jac->cols.ptr, jac->nnzb, &rp, &cols));
    PetscCall(PetscMalloc1(PetscMax((size_t)jac->nnzb * bs2, 1), &h));
    PetscCall(PCMSReadBack(&jac->op, h, jac->F.ptr, sizeof(double) * jac->nnzb * bs2));
    if (L) PetscCall(PCBISAICreateBAIJ(jac->nb, jac->bs, rp, cols, h, -1, PETSC_TRUE, L));
    if (U) PetscCall(PCBISAICreateBAIJ(jac->nb, jac->bs, rp, cols, h, 1, PETSC_FALSE, U));
    PetscCall(PetscFree(h));
    PetscCall(PetscFree2(rp, cols));
  }
  for (PetscInt w = 0; w < 2; w++) {
    PCBISAIInv *M   = &jac->inv[w];
    Mat        *out = w == 0 ? ML : MU;

    if (!out) continue;
    PetscCall(PCBISAIReadPattern(jac, M->arp, M->acols, M->nnzb, &rp, &cols));
    PetscCall(PetscMalloc1(PetscMax((size_t)M->nnzb * bs2, 1), &h));
    PetscCall(PCMSReadBack(&jac->op, h, M->vals.ptr, sizeof(double) * M->nnzb * bs2));
    PetscCall(PCBISAICreateBAIJ(jac->nb, jac->bs, rp, cols, h, 0, PETSC_FALSE, out));
    PetscCall(PetscFree(h));
    PetscCall(PetscFree2(rp, cols));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetFactors - Gets host copies of the block incomplete factors and of the approximate inverses computed by
  `PCBISAI` on this process's diagonal block

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ L  - the unit block lower factor (its identity diagonal blocks stored), or `NULL`
. U  - the block upper factor (in the symmetric variant U = D L^T, D its diagonal blocks), or `NULL`
. ML - the approximate inverse of `L` on the pattern S(|L|^k) (G in the symmetric variant), or `NULL`
- MU - the approximate inverse of `U` on the pattern S(|U|^k), or in the symmetric variant H = G^T D^-1, or `NULL`

  Level: developer

  Notes:
  The matrices are new sequential `MATSEQBAIJ` matrices (the preconditioner's block size, the rows of this process)
  with every block of the patterns stored, zero or not; the caller destroys them. On the GPU the values are copied
  from the device. The preconditioner applies z = MU (ML r) on each process (with `PCBISAISetSteps()` steps,
  Richardson refinements of the two triangular solves). After a setup that fell back to block Jacobi there are no
  approximate inverses (an error).

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAISetLevel()`
@*/
PetscErrorCode PCBISAIGetFactors(PC pc, Mat *L, Mat *U, Mat *ML, Mat *MU)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCBISAIGetFactors_C", (PC, Mat *, Mat *, Mat *, Mat *), (pc, L, U, ML, MU));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the methods of the public Set/Get functions (PetscTryMethod, PetscUseMethod) */
static const PCMSMethod PCBISAIMethods[] = {
  {"PCBISAISetLevel_C", (PetscErrorCodeFn *)PCBISAISetLevel_BISAI},
  {"PCBISAIGetLevel_C", (PetscErrorCodeFn *)PCBISAIGetLevel_BISAI},
  {"PCBISAISetILUType_C", (PetscErrorCodeFn *)PCBISAISetILUType_BISAI},
  {"PCBISAIGetILUType_C", (PetscErrorCodeFn *)PCBISAIGetILUType_BISAI},
  {"PCBISAISetILUSweeps_C", (PetscErrorCodeFn *)PCBISAISetILUSweeps_BISAI},
  {"PCBISAIGetILUSweeps_C", (PetscErrorCodeFn *)PCBISAIGetILUSweeps_BISAI},
  {"PCBISAISetSpMVType_C", (PetscErrorCodeFn *)PCBISAISetSpMVType_BISAI},
  {"PCBISAIGetSpMVType_C", (PetscErrorCodeFn *)PCBISAIGetSpMVType_BISAI},
  {"PCBISAIGetFactors_C", (PetscErrorCodeFn *)PCBISAIGetFactors_BISAI},
  {"PCBISAISetVariant_C", (PetscErrorCodeFn *)PCBISAISetVariant_BISAI},
  {"PCBISAIGetVariant_C", (PetscErrorCodeFn *)PCBISAIGetVariant_BISAI},
  {"PCBISAISetBlockSize_C", (PetscErrorCodeFn *)PCBISAISetBlockSize_BISAI},
  {"PCBISAIGetBlockSize_C", (PetscErrorCodeFn *)PCBISAIGetBlockSize_BISAI},
  {"PCBISAISetSteps_C", (PetscErrorCodeFn *)PCBISAISetSteps_BISAI},
  {"PCBISAIGetSteps_C", (PetscErrorCodeFn *)PCBISAIGetSteps_BISAI},
  {"PCBISAISetShift_C", (PetscErrorCodeFn *)PCBISAISetShift_BISAI},
  {"PCBISAIGetShift_C", (PetscErrorCodeFn *)PCBISAIGetShift_BISAI},
};

static PetscErrorCode PCDestroy_BISAI(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_BISAI(pc));
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCBISAIMethods), PCBISAIMethods, PETSC_FALSE));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCBISAI - "bisai" - block incomplete sparse approximate inverses (block-ISAI) of block incomplete factors
   (Ma et al. (2021), sections 3.1-3.2, Algorithm 1), applied as block sparse matrix-vector products; the setup and
   the apply run on the GPU when the operator is there

   Options Database Keys:
+  -pc_bisai_variant <auto,ilu,ic> - block ILU(0) with M^-1 = M_U M_L, or block IC(0) with M^-1 = G^T D^-1 G
                                     (symmetric positive definite, for CG); auto: ic on a symmetric operator
.  -pc_bisai_block_size <0>        - the block size (0: the operator's)
.  -pc_bisai_level <1>             - the patterns S(|L|^k), S(|U|^k) of the approximate inverses, k = 1, 2 or 3
.  -pc_bisai_steps <-1>            - Richardson steps refining each triangular solve (-1: from a probe at the setup)
.  -pc_bisai_shift <true>          - retry a broken-down block IC(0) on A + alpha diag(A)
.  -pc_bisai_ilu <exact,sweeps>    - the factorization: exact in row order (default), or by fixed-point sweeps
.  -pc_bisai_ilu_sweeps <5>        - the fixed-point sweeps of -pc_bisai_ilu sweeps
-  -pc_bisai_spmv <own,cusparse>   - the GPU kernel of the products: the plugin's (default) or cuSPARSE's bsrmv

   Level: intermediate

   Notes:
   The block size is the user's, else the operator's (`MatGetBlockSize()`; above 8 its largest divisor up to 8); a
   block is nonzero when any of its entries is stored. Operators: AIJ-family matrices (aij, aijcusparse, modsell,
   ...) and BAIJ (through an AIJ copy, on the host). On several processes each works on its diagonal block (block
   Jacobi across processes).

   The setup checks the operator (an entry that is not finite is an error naming its row), chooses the variant (the
   symmetric one when the operator is symmetric: marked, or measured by comparing every entry with its transpose),
   computes the block incomplete factors on the block pattern of the operator (exact, in row order; on the GPU one
   warp per block row, a row starting when the rows it depends on are done), the explicit inverses of the diagonal
   blocks, and approximate inverses of the factors: each block column j of M_L solves the small block triangular
   system L(J,J) X = E_j restricted to its pattern rows J (so L M_L = I on the pattern), likewise for M_U; in the
   symmetric variant the second factor is H = G^T D^-1, G = M_L. A probe of the approximate inverses
   (|p - T M p| / |p| for a fixed vector p) chooses Richardson steps that refine the triangular solves, or, when
   the approximate inverses are no approximation, a higher level or block Jacobi. The patterns are computed once
   per nonzero pattern; a setup after a change of the operator's values only recomputes the values.

   Errors name the block row and a remedy: a singular diagonal block of U (ILU variant), a diagonal block of the
   operator that is not positive definite (symmetric variant chosen by the user, or on an operator marked SPD), a
   breakdown of the block IC(0) that shifts do not cure, a block size that does not divide a process's rows.
   `PCView()` reports each choice and why, the nonzero blocks of the factors and approximate inverses, the memory and
   the setup time by phase; with a Krylov method for SPD preconditioners (`KSPCG`, ...) and the nonsymmetric variant it
   prints a warning. `-log_view` shows the events PCBISAIILU, PCBISAIPattern, PCBISAIInverse and PCBISAIApply.

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCILU`, `PCICC`, `PCPBJACOBI`, `PCBISAISetVariant()`,
          `PCBISAISetBlockSize()`, `PCBISAISetLevel()`, `PCBISAISetSteps()`, `PCBISAISetShift()`, `PCBISAISetILUType()`,
          `PCBISAISetILUSweeps()`, `PCBISAISetSpMVType()`, `PCBISAIGetFactors()`, `MATMODSELL`
M*/
static PetscErrorCode PCCreate_BISAI(PC pc)
{
  PC_BISAI *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data    = (void *)jac;
  jac->level     = 1;
  jac->steps_set = -1;
  jac->shift     = PETSC_TRUE;
  jac->variant   = PCBISAI_VARIANT_AUTO;
  jac->ilu       = PCBISAI_ILU_EXACT;
  jac->sweeps    = 5;
  jac->spmv      = PCBISAI_SPMV_OWN;

  pc->ops->apply          = PCApply_BISAI;
  pc->ops->setup          = PCSetUp_BISAI;
  pc->ops->reset          = PCReset_BISAI;
  pc->ops->destroy        = PCDestroy_BISAI;
  pc->ops->setfromoptions = PCSetFromOptions_BISAI;
  pc->ops->view           = PCView_BISAI;
  pc->ops->presolve       = PCPreSolve_BISAI;
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCBISAIMethods), PCBISAIMethods, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Registration and log events (called from PetscModSELLRegisterPCs_Private()) */
PETSC_INTERN PetscErrorCode PCRegister_BISAI_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCBISAI, PCCreate_BISAI));
  PetscCall(PetscLogEventRegister("PCBISAIILU", PC_CLASSID, &PC_BISAIILU));
  PetscCall(PetscLogEventRegister("PCBISAIPattern", PC_CLASSID, &PC_BISAIPattern));
  PetscCall(PetscLogEventRegister("PCBISAIInverse", PC_CLASSID, &PC_BISAIInverse));
  PetscCall(PetscLogEventRegister("PCBISAIApply", PC_CLASSID, &PC_BISAIApply));
  PetscFunctionReturn(PETSC_SUCCESS);
}
