/*
   PCBISAI: block incomplete sparse approximate inverse (block-ISAI) of the block ILU(0) factors (Ma et al. (2021), sections
   3.1-3.2, Algorithm 1), applied as two block sparse products z = M_U (M_L r), no triangular solve.

   Setup on the local diagonal block Ad of each process (block Jacobi across processes), block size bs from
   MatGetBlockSize() (1 to 8):
     1. Ad as a BSR matrix on its block pattern (a block is nonzero when any of its entries is stored; every diagonal
        block is kept). The pattern and the map from Ad's CSR entries to BSR values are built once per nonzero
        pattern; a change of values only refills the values.
     2. Block ILU(0) on that pattern, F = L + U - I (L unit block lower, U block upper): exact (row order, on the
        host; the GPU path uploads F) or by fixed-point sweeps (ParILU-style, Jacobi updates from the previous
        sweep, on the backend); the diagonal blocks of U inverted explicitly (Gauss-Jordan with partial pivoting).
     3. The patterns S(|L|^k), S(|U|^k) by symbolic products on the host, once per nonzero pattern and level.
     4. The approximate inverses M_L, M_U: each block column j solves L(J,J) X = E_j (U(J,J) X = E_j) on its pattern
        rows J, one warp per column on the GPU, gathering the blocks of the small system from F (never stored).
   Apply: two BSR products on the backend.

   The glue (this file) takes the operator, its split and vectors from the PC layer (pcmsimpl.h); the kernels
   (bisaikernels.h) come as a table, the host reference (bisai_reference.c) or CUDA (bisai.cu), chosen once per
   setup. A BAIJ operator, which the layer does not take, is given to it as an AIJ copy (kept between setups and
   refreshed with MAT_REUSE_MATRIX while the nonzero pattern stays).
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/bisaikernels.h>
#include <petscmodsell.h>
#include <petsctime.h>

static PetscLogEvent PC_BISAIILU = 0, PC_BISAIPattern = 0, PC_BISAIInverse = 0, PC_BISAIApply = 0;

const char *const PCBISAIILUTypes[]  = {"exact", "sweeps", "PCBISAIILUType", "PCBISAI_ILU_", NULL};
const char *const PCBISAISpMVTypes[] = {"own", "cusparse", "PCBISAISpMVType", "PCBISAI_SPMV_", NULL};

/* one approximate inverse: BSR by rows (the apply) and its column view (the setup) */
typedef struct {
  int           nnzb;
  int          *rowptr, *cols;          /* host */
  int          *colptr, *rowidx, *pos;  /* host: column view */
  PetscLogDouble flops;                 /* of its computation */
  PCMSBuffer    d_rowptr, d_cols, d_colptr, d_rowidx, d_pos, vals;
} PCBISAIInv;

typedef struct {
  /* options */
  PetscInt        level, sweeps;
  PCBISAIILUType  ilu;
  PCBISAISpMVType spmv;
  void                 *library;  /* the library's handle and descriptor of -pc_bisai_spmv cusparse (bsr_mult_library) */
  const MSBISAIKernels *libtable; /* the table that created it (its library_destroy frees it) */

  /* the structure (rebuilt with the operator's nonzero pattern, the block size or the level) */
  PetscInt   bs, nb, nnzb, built_level, nnz_ad;
  int       *rowptr, *cols, *rowidx, *diag; /* block pattern of Ad = pattern of F (host) */
  int       *map;                           /* CSR entry of Ad -> value index in the BSR array */
  double    *hA, *hF, *hDinv;               /* host values of A; F and Dinv of the exact factorization (GPU path) */
  PCBISAIInv inv[2];                        /* 0: M_L, 1: M_U */
  PCMSBuffer d_rowptr, d_cols, d_rowidx, d_diag, A, F, S, Dinv, bad;
  Vec        work;
  Mat        aij; /* AIJ copy of a BAIJ operator */
  PetscObjectId    aij_src;
  PetscObjectState aij_nzstate;
  PetscLogDouble   ilu_triples, nlower; /* flop counts of the factorization */

  PCMSOperator          op;
  const MSBISAIKernels *k;

  /* what the last setup did */
  PetscInt       nsetups;
  PetscBool      patterns_reused;
  PetscLogDouble t_ilu, t_pattern, t_inverse, t_upload, t_setup;
} PC_BISAI;

/* whether the apply's products go to the library's BSR product (cuSPARSE's bsrmv): asked for, the backend has one,
   and it takes the block size */
static PetscBool PCBISAIUsesLibrary(PC_BISAI *jac)
{
  return (PetscBool)(jac->k && jac->k->bsr_mult_library && jac->spmv == PCBISAI_SPMV_CUSPARSE && jac->bs >= jac->k->library_min_bs);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* backend memory                                                                                               */

static PetscErrorCode PCBISAIInvFree(PCBISAIInv *M)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(M->rowptr, M->cols));
  PetscCall(PetscFree3(M->colptr, M->rowidx, M->pos));
  PetscCall(PCMSBufferDestroy(&M->d_rowptr));
  PetscCall(PCMSBufferDestroy(&M->d_cols));
  PetscCall(PCMSBufferDestroy(&M->d_colptr));
  PetscCall(PCMSBufferDestroy(&M->d_rowidx));
  PetscCall(PCMSBufferDestroy(&M->d_pos));
  PetscCall(PCMSBufferDestroy(&M->vals));
  M->nnzb  = 0;
  M->flops = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBISAIFreeStructure(PC pc)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  PetscCall(PetscFree4(jac->rowptr, jac->cols, jac->rowidx, jac->diag));
  PetscCall(PetscFree(jac->map));
  PetscCall(PetscFree(jac->hA));
  PetscCall(PetscFree(jac->hF));
  PetscCall(PetscFree(jac->hDinv));
  for (PetscInt w = 0; w < 2; w++) PetscCall(PCBISAIInvFree(&jac->inv[w]));
  PetscCall(PCMSBufferDestroy(&jac->d_rowptr));
  PetscCall(PCMSBufferDestroy(&jac->d_cols));
  PetscCall(PCMSBufferDestroy(&jac->d_rowidx));
  PetscCall(PCMSBufferDestroy(&jac->d_diag));
  PetscCall(PCMSBufferDestroy(&jac->A));
  PetscCall(PCMSBufferDestroy(&jac->F));
  PetscCall(PCMSBufferDestroy(&jac->S));
  PetscCall(PCMSBufferDestroy(&jac->Dinv));
  PetscCall(PCMSBufferDestroy(&jac->bad));
  PetscCall(VecDestroy(&jac->work));
  jac->nb = jac->nnzb = jac->nnz_ad = 0;
  jac->built_level                  = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* symbolic phases (host)                                                                                       */

/* The block pattern of Ad (m rows, CSR ia/ja) with every diagonal block, and the map of its entries to BSR values */
static PetscErrorCode PCBISAIBlockPattern(PC pc, PetscInt m, const PetscInt *ia, const PetscInt *ja)
{
  PC_BISAI      *jac = (PC_BISAI *)pc->data;
  const PetscInt bs = jac->bs, nb = m / bs, bs2 = bs * bs;
  int           *mark, cnt = 0;

  PetscFunctionBegin;
  jac->nb     = nb;
  jac->nnz_ad = ia[m];
  PetscCall(PetscMalloc1(nb, &mark));
  for (PetscInt j = 0; j < nb; j++) mark[j] = -1;
  /* count */
  for (PetscInt i = 0; i < nb; i++) {
    mark[i] = (int)i;
    cnt++;
    for (PetscInt r = i * bs; r < (i + 1) * bs; r++)
      for (PetscInt e = ia[r]; e < ia[r + 1]; e++)
        if (mark[ja[e] / bs] != (int)i) {
          mark[ja[e] / bs] = (int)i;
          cnt++;
        }
  }
  jac->nnzb = cnt;
  PetscCall(PetscMalloc4(nb + 1, &jac->rowptr, cnt, &jac->cols, cnt, &jac->rowidx, nb, &jac->diag));
  PetscCall(PetscMalloc1(ia[m], &jac->map));
  for (PetscInt j = 0; j < nb; j++) mark[j] = -1;
  jac->rowptr[0] = 0;
  cnt            = 0;
  for (PetscInt i = 0; i < nb; i++) {
    const int beg = cnt;

    mark[i]           = (int)i;
    jac->cols[cnt++] = (int)i;
    for (PetscInt r = i * bs; r < (i + 1) * bs; r++)
      for (PetscInt e = ia[r]; e < ia[r + 1]; e++)
        if (mark[ja[e] / bs] != (int)i) {
          mark[ja[e] / bs] = (int)i;
          jac->cols[cnt++] = (int)(ja[e] / bs);
        }
    PetscCall(PetscSortMPIInt(cnt - beg, jac->cols + beg));
    jac->rowptr[i + 1] = cnt;
    for (int p = beg; p < cnt; p++) {
      jac->rowidx[p] = (int)i;
      if (jac->cols[p] == (int)i) jac->diag[i] = p;
    }
    /* the value index of each entry: binary search of its block column in the sorted row */
    for (PetscInt r = i * bs; r < (i + 1) * bs; r++)
      for (PetscInt e = ia[r]; e < ia[r + 1]; e++) {
        const int c = (int)(ja[e] / bs);
        int       lo = beg, hi = cnt;

        while (lo < hi) {
          const int mid = lo + (hi - lo) / 2;
          if (jac->cols[mid] < c) lo = mid + 1;
          else hi = mid;
        }
        jac->map[e] = (int)((PetscInt)lo * bs2 + (r - i * bs) * bs + ja[e] % bs);
      }
  }
  /* flops of the factorization: triples (i,k,j), k < min(i,j), (i,k), (k,j), (i,j) in the pattern */
  jac->ilu_triples = 0;
  jac->nlower      = 0;
  for (PetscInt j = 0; j < nb; j++) mark[j] = -1;
  for (PetscInt i = 0; i < nb; i++) {
    for (int p = jac->rowptr[i]; p < jac->rowptr[i + 1]; p++) mark[jac->cols[p]] = (int)i;
    for (int p = jac->rowptr[i]; p < jac->diag[i]; p++) {
      const int k = jac->cols[p];
      jac->nlower++;
      for (int q = jac->diag[k] + 1; q < jac->rowptr[k + 1]; q++)
        if (mark[jac->cols[q]] == (int)i) jac->ilu_triples++;
    }
  }
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* S(|T|^k) for T the lower (with the diagonal) or upper part of the block pattern of F, its column view, and the
   flops of the block-ISAI columns on it */
static PetscErrorCode PCBISAIPowerPattern(PC pc, PetscBool lower, PetscInt level, PCBISAIInv *M)
{
  PC_BISAI   *jac = (PC_BISAI *)pc->data;
  const int   nb = (int)jac->nb;
  const int  *frp = jac->rowptr, *fc = jac->cols, *dg = jac->diag;
  int        *prp, *pc_, *mark, *next, cap, cnt;
  PetscInt64 pairs = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nb, &mark));
  /* level 1: T itself */
  cnt = 0;
  for (int i = 0; i < nb; i++) cnt += lower ? dg[i] - frp[i] + 1 : frp[i + 1] - dg[i];
  PetscCall(PetscMalloc1(nb + 1, &prp));
  PetscCall(PetscMalloc1(PetscMax(cnt, 1), &pc_));
  prp[0] = 0;
  cnt    = 0;
  for (int i = 0; i < nb; i++) {
    const int lo = lower ? frp[i] : dg[i], hi = lower ? dg[i] + 1 : frp[i + 1];
    for (int p = lo; p < hi; p++) pc_[cnt++] = fc[p];
    prp[i + 1] = cnt;
  }
  /* level l + 1: row i of P T = the union of the rows of T named by row i of P */
  for (PetscInt l = 1; l < level; l++) {
    int *qrp, *qc;

    cap = 2 * cnt + 16;
    PetscCall(PetscMalloc1(nb + 1, &qrp));
    PetscCall(PetscMalloc1(cap, &qc));
    for (int j = 0; j < nb; j++) mark[j] = -1;
    qrp[0] = 0;
    cnt    = 0;
    for (int i = 0; i < nb; i++) {
      const int beg = cnt;
      for (int p = prp[i]; p < prp[i + 1]; p++) {
        const int j = pc_[p], lo = lower ? frp[j] : dg[j], hi = lower ? dg[j] + 1 : frp[j + 1];
        for (int q = lo; q < hi; q++)
          if (mark[fc[q]] != i) {
            mark[fc[q]] = i;
            if (cnt == cap) {
              cap *= 2;
              PetscCall(PetscRealloc(sizeof(int) * (size_t)cap, &qc));
            }
            qc[cnt++] = fc[q];
          }
      }
      PetscCall(PetscSortMPIInt(cnt - beg, qc + beg));
      qrp[i + 1] = cnt;
    }
    PetscCall(PetscFree(prp));
    PetscCall(PetscFree(pc_));
    prp = qrp;
    pc_ = qc;
  }
  PetscCall(PetscFree2(M->rowptr, M->cols));
  PetscCall(PetscFree3(M->colptr, M->rowidx, M->pos));
  M->nnzb = cnt;
  PetscCall(PetscMalloc2(nb + 1, &M->rowptr, PetscMax(cnt, 1), &M->cols));
  PetscCall(PetscArraycpy(M->rowptr, prp, nb + 1));
  PetscCall(PetscArraycpy(M->cols, pc_, cnt));
  PetscCall(PetscFree(prp));
  PetscCall(PetscFree(pc_));
  /* the column view: rows ascending within each column */
  PetscCall(PetscMalloc3(nb + 1, &M->colptr, PetscMax(cnt, 1), &M->rowidx, PetscMax(cnt, 1), &M->pos));
  PetscCall(PetscMalloc1(nb + 1, &next));
  for (int j = 0; j <= nb; j++) M->colptr[j] = 0;
  for (int p = 0; p < cnt; p++) M->colptr[M->cols[p] + 1]++;
  for (int j = 0; j < nb; j++) M->colptr[j + 1] += M->colptr[j];
  for (int j = 0; j < nb; j++) next[j] = M->colptr[j];
  for (int i = 0; i < nb; i++)
    for (int p = M->rowptr[i]; p < M->rowptr[i + 1]; p++) {
      const int t  = next[M->cols[p]]++;
      M->rowidx[t] = i;
      M->pos[t]    = p;
    }
  PetscCall(PetscFree(next));
  /* flops: each block (J_q, J_p) of the small system found in F costs a block product and a subtraction */
  for (int j = 0; j < nb; j++) mark[j] = -1;
  for (int j = 0; j < nb; j++) {
    for (int t = M->colptr[j]; t < M->colptr[j + 1]; t++) mark[M->rowidx[t]] = j;
    for (int t = M->colptr[j]; t < M->colptr[j + 1]; t++) {
      const int r = M->rowidx[t], lo = lower ? frp[r] : dg[r] + 1, hi = lower ? dg[r] : frp[r + 1];
      for (int q = lo; q < hi; q++)
        if (mark[fc[q]] == j) pairs++;
    }
  }
  {
    const PetscLogDouble b3 = (PetscLogDouble)jac->bs * jac->bs * jac->bs;
    M->flops = 2.0 * b3 * (PetscLogDouble)pairs + (lower ? 0.0 : 2.0 * b3 * cnt);
  }
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* setup                                                                                                        */

static PetscErrorCode PCBISAIReadBad(PC pc, int *bad)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCMSReadBack(&jac->op, bad, jac->bad.ptr, sizeof(int)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* collective: the first singular diagonal block of U over all processes, as an error naming its global block row */
static PetscErrorCode PCBISAICheckSingular(PC pc, int bad)
{
  PC_BISAI  *jac = (PC_BISAI *)pc->data;
  PetscInt64 loc = (bad == MS_BISAI_NONE || bad < 0 || bad >= jac->nb) ? -1 : (PetscInt64)bad * jac->bs, glob;

  PetscFunctionBegin;
  PetscCall(PCMSFirstBad(pc, &jac->op, 1, 1, &loc, &glob));
  if (glob >= 0) {
    const PetscInt row = (PetscInt)glob;
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_MAT_LU_ZRPVT,
            "PCBISAI: the diagonal block of block row %" PetscInt_FMT " (rows %" PetscInt_FMT " to %" PetscInt_FMT ") of the block ILU(0) factor U is singular (a pivot zero, not finite, or below 1e-14 times the block's largest entry%s): check that block of the operator (a missing or singular diagonal block, a row without entries), reorder the unknowns, or use another block size%s",
            row / jac->bs, row, row + jac->bs - 1, jac->ilu == PCBISAI_ILU_SWEEPS ? ", after the fixed-point sweeps" : "", jac->ilu == PCBISAI_ILU_SWEEPS ? "; with -pc_bisai_ilu sweeps try more sweeps (-pc_bisai_ilu_sweeps) or -pc_bisai_ilu exact" : "");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

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

static PetscErrorCode PCSetUp_BISAI(PC pc)
{
  PC_BISAI          *jac  = (PC_BISAI *)pc->data;
  PCMSOperator      *op   = &jac->op;
  MPI_Comm           comm = PetscObjectComm((PetscObject)pc);
  PetscInt           bs, m, n, bs2;
  PetscBool          rebuild, newpat, done, ok;
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscLogDouble     t, t0;
  void              *stream;
  int                err, bad = MS_BISAI_NONE;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  t              = t0;
  jac->t_ilu     = 0;
  jac->t_pattern = 0;
  jac->t_inverse = 0;
  jac->t_upload  = 0;
  PetscCall(MatGetBlockSize(pc->pmat, &bs));
  PetscCheck(bs >= 1 && bs <= MS_BISAI_MAXBS, comm, PETSC_ERR_SUP, "PCBISAI works with block sizes 1 to %d; the operator's block size is %" PetscInt_FMT ": set a supported one with MatSetBlockSize() (or -mat_block_size), e.g. the number of fields per grid point", MS_BISAI_MAXBS, bs);
  PetscCall(PCBISAIOperatorSetUp(pc));
  jac->k = PCMSKernels(op, MSBISAIKernels);
  m      = op->m;
  ok     = (PetscBool)(m % bs == 0);
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_C_BOOL, MPI_LAND, comm));
  PetscCheck(ok, comm, PETSC_ERR_ARG_SIZ, "PCBISAI: the rows of some process are not a multiple of the block size %" PetscInt_FMT ": distribute whole blocks to the processes", bs);
  bs2     = bs * bs;
  rebuild = (PetscBool)(op->rebuilt || bs != jac->bs || !jac->rowptr || jac->nb * bs != m);
  newpat  = (PetscBool)(rebuild || jac->built_level != jac->level);
  if (rebuild) PetscCall(PCBISAIFreeStructure(pc));
  jac->bs              = bs;
  jac->patterns_reused = (PetscBool)!newpat;

  /* 1. Ad as BSR (host) */
  PetscCall(PetscLogEventBegin(PC_BISAIPattern, pc, 0, 0, 0));
  PetscCall(MatGetRowIJ(op->Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done && n == m, PETSC_COMM_SELF, PETSC_ERR_SUP, "PCBISAI: cannot read the CSR structure of the diagonal block (type %s)", ((PetscObject)op->Ad)->type_name);
  if (rebuild) {
    PetscCall(PCBISAIBlockPattern(pc, m, ia, ja));
    PetscCall(PetscMalloc1((size_t)jac->nnzb * bs2, &jac->hA));
  }
  PetscCall(PetscLogEventEnd(PC_BISAIPattern, pc, 0, 0, 0));
  PetscCall(PCBISAIElapsed(jac, &t, &jac->t_pattern));
  PetscCall(PetscLogEventBegin(PC_BISAIILU, pc, 0, 0, 0));
  PetscCall(MatSeqAIJGetArrayRead(op->Ad, &a));
  PetscCall(PetscArrayzero(jac->hA, (size_t)jac->nnzb * bs2));
  for (PetscInt e = 0; e < jac->nnz_ad; e++) jac->hA[jac->map[e]] = PetscRealPart(a[e]);
  PetscCall(MatSeqAIJRestoreArrayRead(op->Ad, &a));
  PetscCall(MatRestoreRowIJ(op->Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(PetscLogEventEnd(PC_BISAIILU, pc, 0, 0, 0));
  PetscCall(PCBISAIElapsed(jac, &t, &jac->t_ilu));

  /* the factor's pattern on the backend */
  if (rebuild) {
    PetscCall(PCMSBufferUpload(&jac->op, &jac->d_rowptr, jac->rowptr, sizeof(int) * (jac->nb + 1), "PCBISAI's block pattern"));
    PetscCall(PCMSBufferUpload(&jac->op, &jac->d_cols, jac->cols, sizeof(int) * jac->nnzb, "PCBISAI's block pattern"));
    PetscCall(PCMSBufferUpload(&jac->op, &jac->d_rowidx, jac->rowidx, sizeof(int) * jac->nnzb, "PCBISAI's block pattern"));
    PetscCall(PCMSBufferUpload(&jac->op, &jac->d_diag, jac->diag, sizeof(int) * jac->nb, "PCBISAI's block pattern"));
  }
  PetscCall(PCMSBufferEnsure(op, &jac->F, sizeof(double) * jac->nnzb * bs2, "PCBISAI's block ILU(0) factors"));
  PetscCall(PCMSBufferEnsure(op, &jac->Dinv, sizeof(double) * jac->nb * bs2, "PCBISAI's inverse diagonal blocks"));
  PetscCall(PCMSBufferEnsure(op, &jac->bad, sizeof(int), "PCBISAI's status"));
  PetscCall(PCBISAIElapsed(jac, &t, &jac->t_upload));

  /* 2. block ILU(0) */
  PetscCall(PetscLogEventBegin(PC_BISAIILU, pc, 0, 0, 0));
  {
    const PetscLogDouble b3 = (PetscLogDouble)bs * bs2;
    const int            nb = (int)jac->nb, nnzb = (int)jac->nnzb;

    if (jac->ilu == PCBISAI_ILU_EXACT) { /* on the host, into F and Dinv themselves or (GPU) host arrays then uploaded */
      const size_t bF = sizeof(double) * jac->nnzb * bs2, bD = sizeof(double) * jac->nb * bs2;
      double      *F, *Dinv;

      PetscCall(PCMSBufferGetHostArray(op, &jac->F, bF, "PCBISAI's block ILU(0) factors", (void **)&jac->hF, (void **)&F));
      PetscCall(PCMSBufferGetHostArray(op, &jac->Dinv, bD, "PCBISAI's inverse diagonal blocks", (void **)&jac->hDinv, (void **)&Dinv));
      err = MSBISAIILUExact_Reference(nb, (int)bs, jac->rowptr, jac->cols, jac->diag, jac->hA, F, Dinv, &bad);
      PetscCheck(err != MS_KERNEL_ERR_MEM, PETSC_COMM_SELF, PETSC_ERR_MEM, "PCBISAI: the exact block ILU(0) could not allocate its work array");
      PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCBISAI: the exact block ILU(0) failed with code %d", err);
      PetscCall(PetscLogFlops(2.0 * b3 * (jac->ilu_triples + jac->nlower) + 4.0 * b3 * nb));
      PetscCall(PetscLogEventEnd(PC_BISAIILU, pc, 0, 0, 0));
      PetscCall(PCBISAIElapsed(jac, &t, &jac->t_ilu));
      PetscCall(PCMSBufferCommit(op, &jac->F, F, bF, "PCBISAI's block ILU(0) factors"));
      PetscCall(PCMSBufferCommit(op, &jac->Dinv, Dinv, bD, "PCBISAI's inverse diagonal blocks"));
      PetscCall(PCBISAIElapsed(jac, &t, &jac->t_upload));
    } else {
      PetscCall(PCMSBufferUpload(&jac->op, &jac->A, jac->hA, sizeof(double) * jac->nnzb * bs2, "PCBISAI's copy of the operator's blocks"));
      PetscCall(PCMSBufferEnsure(op, &jac->S, sizeof(double) * jac->nnzb * bs2, "PCBISAI's sweep residual"));
      PetscCall(PCBISAIElapsed(jac, &t, &jac->t_upload));
      /* initial guess L = I, U = triu(A) */
      PetscCall(PCMSKernelBegin(op, &stream));
      err = jac->k->ilu_update((int)bs, nnzb, (const int *)jac->d_rowidx.ptr, (const int *)jac->d_cols.ptr, (const double *)jac->A.ptr, NULL, (double *)jac->F.ptr, stream);
      PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "ilu_update", 0.0));
      for (PetscInt s = 0; s < jac->sweeps; s++) {
        PetscCall(PCMSKernelBegin(op, &stream));
        err = jac->k->invert_diag(nb, (int)bs, (const int *)jac->d_diag.ptr, (const double *)jac->F.ptr, (double *)jac->Dinv.ptr, (int *)jac->bad.ptr, stream);
        PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "invert_diag", 4.0 * b3 * nb));
        PetscCall(PCMSKernelBegin(op, &stream));
        err = jac->k->ilu_residual((int)bs, nnzb, (const int *)jac->d_rowptr.ptr, (const int *)jac->d_rowidx.ptr, (const int *)jac->d_cols.ptr, (const double *)jac->A.ptr, (const double *)jac->F.ptr, (double *)jac->S.ptr, stream);
        PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "ilu_residual", 2.0 * b3 * jac->ilu_triples + (PetscLogDouble)nnzb * bs2));
        PetscCall(PCMSKernelBegin(op, &stream));
        err = jac->k->ilu_update((int)bs, nnzb, (const int *)jac->d_rowidx.ptr, (const int *)jac->d_cols.ptr, (const double *)jac->S.ptr, (const double *)jac->Dinv.ptr, (double *)jac->F.ptr, stream);
        PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "ilu_update", 2.0 * b3 * jac->nlower));
      }
      PetscCall(PetscLogEventEnd(PC_BISAIILU, pc, 0, 0, 0));
      PetscCall(PCBISAIElapsed(jac, &t, &jac->t_ilu));
    }
    /* the inverse diagonal blocks of the final U (the exact factorization has them already) */
    PetscCall(PetscLogEventBegin(PC_BISAIInverse, pc, 0, 0, 0));
    if (jac->ilu == PCBISAI_ILU_SWEEPS) {
      PetscCall(PCMSKernelBegin(op, &stream));
      err = jac->k->invert_diag(nb, (int)bs, (const int *)jac->d_diag.ptr, (const double *)jac->F.ptr, (double *)jac->Dinv.ptr, (int *)jac->bad.ptr, stream);
      PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "invert_diag", 4.0 * b3 * nb));
      PetscCall(PCBISAIReadBad(pc, &bad));
    }
    PetscCall(PetscLogEventEnd(PC_BISAIInverse, pc, 0, 0, 0));
    PetscCall(PCBISAIElapsed(jac, &t, &jac->t_inverse));
  }
  PetscCall(PCBISAICheckSingular(pc, bad));

  /* 3. the patterns of the inverses */
  if (newpat) {
    PetscCall(PetscLogEventBegin(PC_BISAIPattern, pc, 0, 0, 0));
    for (PetscInt w = 0; w < 2; w++) PetscCall(PCBISAIPowerPattern(pc, (PetscBool)(w == 0), jac->level, &jac->inv[w]));
    jac->built_level = jac->level;
    PetscCall(PetscLogEventEnd(PC_BISAIPattern, pc, 0, 0, 0));
    PetscCall(PCBISAIElapsed(jac, &t, &jac->t_pattern));
    for (PetscInt w = 0; w < 2; w++) {
      PCBISAIInv *M = &jac->inv[w];

      PetscCall(PCMSBufferUpload(&jac->op, &M->d_rowptr, M->rowptr, sizeof(int) * (jac->nb + 1), "PCBISAI's inverse pattern"));
      PetscCall(PCMSBufferUpload(&jac->op, &M->d_cols, M->cols, sizeof(int) * M->nnzb, "PCBISAI's inverse pattern"));
      PetscCall(PCMSBufferUpload(&jac->op, &M->d_colptr, M->colptr, sizeof(int) * (jac->nb + 1), "PCBISAI's inverse pattern"));
      PetscCall(PCMSBufferUpload(&jac->op, &M->d_rowidx, M->rowidx, sizeof(int) * M->nnzb, "PCBISAI's inverse pattern"));
      PetscCall(PCMSBufferUpload(&jac->op, &M->d_pos, M->pos, sizeof(int) * M->nnzb, "PCBISAI's inverse pattern"));
      PetscCall(PCMSBufferEnsure(op, &M->vals, sizeof(double) * M->nnzb * bs2, "PCBISAI's approximate inverse"));
    }
    PetscCall(PCBISAIElapsed(jac, &t, &jac->t_upload));
  }

  /* 4. the approximate inverses */
  PetscCall(PetscLogEventBegin(PC_BISAIInverse, pc, 0, 0, 0));
  for (PetscInt w = 0; w < 2; w++) {
    PCBISAIInv *M = &jac->inv[w];

    PetscCall(PCMSKernelBegin(op, &stream));
    if (w == 0) err = jac->k->isai_lower((int)jac->nb, (int)bs, (const int *)jac->d_rowptr.ptr, (const int *)jac->d_cols.ptr, (const double *)jac->F.ptr, (const int *)M->d_colptr.ptr, (const int *)M->d_rowidx.ptr, (const int *)M->d_pos.ptr, (double *)M->vals.ptr, stream);
    else err = jac->k->isai_upper((int)jac->nb, (int)bs, (const int *)jac->d_rowptr.ptr, (const int *)jac->d_cols.ptr, (const double *)jac->F.ptr, (const double *)jac->Dinv.ptr, (const int *)M->d_colptr.ptr, (const int *)M->d_rowidx.ptr, (const int *)M->d_pos.ptr, (double *)M->vals.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, w == 0 ? "isai_lower" : "isai_upper", M->flops));
  }
  PetscCall(PetscLogEventEnd(PC_BISAIInverse, pc, 0, 0, 0));
  PetscCall(PCBISAIElapsed(jac, &t, &jac->t_inverse));
  if (!jac->work) PetscCall(PCMSCreateVec(op, PETSC_COMM_SELF, m, &jac->work));
  if (PCBISAIUsesLibrary(jac) && !jac->library) { /* the library's handle, here rather than in the first apply */
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->bsr_mult_library(&jac->library, 0, (int)jac->bs, 0, NULL, NULL, NULL, NULL, NULL, stream);
    jac->libtable = jac->k;
    PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCBISAI: creating the %s handle failed with its status %d; use -pc_bisai_spmv own", jac->k->library, -err);
    PetscCall(PCMSKernelEnd(op, err, jac->k->library, "handle creation", 0.0));
  }
  /* the setup-only arrays of the sweeps are not kept */
  PetscCall(PCMSBufferDestroy(&jac->S));
  PetscCall(PCMSBufferDestroy(&jac->A));
  PetscCall(PetscTime(&t));
  jac->t_setup = t - t0;
  jac->nsetups++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------------------- */
/* apply                                                                                                        */

static PetscErrorCode PCBISAIMult(PC pc, PCBISAIInv *M, const PetscScalar *x, PetscScalar *y)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;
  void     *stream;
  int       err;

  PetscFunctionBegin;
  PetscCall(PCMSKernelBegin(&jac->op, &stream));
  if (PCBISAIUsesLibrary(jac)) {
    err = jac->k->bsr_mult_library(&jac->library, (int)jac->nb, (int)jac->bs, M->nnzb, (const int *)M->d_rowptr.ptr, (const int *)M->d_cols.ptr, (const double *)M->vals.ptr, x, y, stream);
    PetscCheck(err >= 0, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCBISAI: the %s BSR product failed with its status %d; use -pc_bisai_spmv own", jac->k->library, -err);
    PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->library, "bsrmv", 2.0 * (PetscLogDouble)M->nnzb * jac->bs * jac->bs));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  err = jac->k->bsr_mult((int)jac->nb, (int)jac->bs, (const int *)M->d_rowptr.ptr, (const int *)M->d_cols.ptr, (const double *)M->vals.ptr, x, y, stream);
  PetscCall(PCMSKernelEnd(&jac->op, err, jac->k->backend, "bsr_mult", 2.0 * (PetscLogDouble)M->nnzb * jac->bs * jac->bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_BISAI(PC pc, Vec x, Vec y)
{
  PC_BISAI          *jac = (PC_BISAI *)pc->data;
  PCMSOperator      *op  = &jac->op;
  const PetscScalar *xa, *wr;
  PetscScalar       *ya, *wa;
  Vec                xu, yu;

  PetscFunctionBegin;
  PetscCheck(jac->work, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBISAI: the preconditioner is not set up");
  PetscCall(PetscLogEventBegin(PC_BISAIApply, pc, x, y, 0));
  PetscCall(PCMSStageIn(op, 0, x, PETSC_TRUE, &xu));
  PetscCall(PCMSStageIn(op, 1, y, PETSC_FALSE, &yu));
  PetscCall(PCMSVecGetArrayRead(op, xu, &xa));
  PetscCall(PCMSVecGetArray(op, jac->work, PETSC_MEMORY_ACCESS_WRITE, &wa));
  PetscCall(PCBISAIMult(pc, &jac->inv[0], xa, wa)); /* w = M_L x */
  PetscCall(PCMSVecRestoreArray(op, jac->work, PETSC_MEMORY_ACCESS_WRITE, &wa));
  PetscCall(PCMSVecRestoreArrayRead(op, xu, &xa));
  PetscCall(PCMSVecGetArrayRead(op, jac->work, &wr));
  PetscCall(PCMSVecGetArray(op, yu, PETSC_MEMORY_ACCESS_WRITE, &ya));
  PetscCall(PCBISAIMult(pc, &jac->inv[1], wr, ya)); /* y = M_U w */
  PetscCall(PCMSVecRestoreArray(op, yu, PETSC_MEMORY_ACCESS_WRITE, &ya));
  PetscCall(PCMSVecRestoreArrayRead(op, jac->work, &wr));
  PetscCall(PCMSStageOut(y, yu));
  PetscCall(PetscLogEventEnd(PC_BISAIApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_BISAI(PC pc)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCBISAIFreeStructure(pc));
  if (jac->library) {
    int err = jac->libtable->library_destroy(&jac->library);

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
  PC_BISAI      *jac = (PC_BISAI *)pc->data;
  PetscInt       level = jac->level, sweeps = jac->sweeps;
  PCBISAIILUType  ilu   = jac->ilu;
  PCBISAISpMVType spmv  = jac->spmv;
  PetscBool       flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Block incomplete sparse approximate inverse (block-ISAI) options");
  PetscCall(PetscOptionsRangeInt("-pc_bisai_level", "Pattern S(|L|^k), S(|U|^k) of the approximate inverses of the block ILU(0) factors: k (1 to 3)", "PCBISAISetLevel", level, &level, &flg, 1, 3));
  if (flg) PetscCall(PCBISAISetLevel(pc, level));
  PetscCall(PetscOptionsEnum("-pc_bisai_ilu", "Block ILU(0) factorization: exact (row order, on the host) or sweeps (fixed-point iteration where the preconditioner runs)", "PCBISAISetILUType", PCBISAIILUTypes, (PetscEnum)ilu, (PetscEnum *)&ilu, &flg));
  if (flg) PetscCall(PCBISAISetILUType(pc, ilu));
  PetscCall(PetscOptionsBoundedInt("-pc_bisai_ilu_sweeps", "Fixed-point sweeps of -pc_bisai_ilu sweeps (from L = I, U = triu(A))", "PCBISAISetILUSweeps", sweeps, &sweeps, &flg, 0));
  if (flg) PetscCall(PCBISAISetILUSweeps(pc, sweeps));
  PetscCall(PetscOptionsEnum("-pc_bisai_spmv", "Kernel of the two block sparse products on the GPU: own or cusparse (cusparseDbsrmv, for comparison); the host kernel without a GPU", "PCBISAISetSpMVType", PCBISAISpMVTypes, (PetscEnum)spmv, (PetscEnum *)&spmv, &flg));
  if (flg) PetscCall(PCBISAISetSpMVType(pc, spmv));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_BISAI(PC pc, PetscViewer viewer)
{
  PC_BISAI      *jac = (PC_BISAI *)pc->data;
  MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
  PetscBool      isascii;
  const char    *where;
  PetscInt64     cnt[6];
  PetscLogDouble tm[5], mem[4];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (jac->ilu == PCBISAI_ILU_EXACT) PetscCall(PetscViewerASCIIPrintf(viewer, "  block-ISAI of the block ILU(0) factors, level %" PetscInt_FMT " (patterns S(|L|^%" PetscInt_FMT "), S(|U|^%" PetscInt_FMT ")), exact block ILU(0) (row order, host)\n", jac->level, jac->level, jac->level));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  block-ISAI of the block ILU(0) factors, level %" PetscInt_FMT " (patterns S(|L|^%" PetscInt_FMT "), S(|U|^%" PetscInt_FMT ")), block ILU(0) by %" PetscInt_FMT " fixed-point sweeps\n", jac->level, jac->level, jac->level, jac->sweeps));
  if (!jac->nsetups) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  (not set up yet)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCMSOperatorDescribe(&jac->op, &where, NULL));
  /* nonzero blocks over the processes: A's diagonal blocks, L (with its unit diagonal), U, M_L, M_U, block rows */
  cnt[0] = jac->nnzb;
  cnt[1] = (PetscInt64)jac->nlower + jac->nb;
  cnt[2] = (PetscInt64)jac->nnzb - (PetscInt64)jac->nlower;
  cnt[3] = jac->inv[0].nnzb;
  cnt[4] = jac->inv[1].nnzb;
  cnt[5] = jac->nb;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, cnt, 6, MPIU_INT64, MPI_SUM, comm));
  tm[0] = jac->t_ilu;
  tm[1] = jac->t_pattern;
  tm[2] = jac->t_inverse;
  tm[3] = jac->t_upload;
  tm[4] = jac->t_setup;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, tm, 5, MPIU_PETSCLOGDOUBLE, MPI_MAX, comm));
  {
    const PetscLogDouble bs2 = (PetscLogDouble)jac->bs * jac->bs;
    mem[0] = 8.0 * jac->nnz_ad + 4.0 * jac->nnz_ad + 4.0 * (jac->nb * jac->bs + 1);                         /* the operator's diagonal block, CSR */
    mem[1] = 8.0 * bs2 * (jac->nnzb + jac->nb) + 4.0 * (3.0 * jac->nnzb + 2.0 * jac->nb + 1);               /* F, Dinv and the pattern */
    mem[2] = 8.0 * bs2 * (jac->inv[0].nnzb + jac->inv[1].nnzb) + 4.0 * (jac->inv[0].nnzb + jac->inv[1].nnzb + 2.0 * (jac->nb + 1)); /* M_L, M_U (apply) */
    mem[3] = 8.0 * (jac->inv[0].nnzb + jac->inv[1].nnzb) + 4.0 * 2.0 * (jac->nb + 1);                       /* column views (setup) */
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, mem, 4, MPIU_PETSCLOGDOUBLE, MPI_SUM, comm));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  block size %" PetscInt_FMT ", %" PetscInt64_FMT " block rows, on the %s; per process on its diagonal block (block Jacobi across processes)\n", jac->bs, cnt[5], where));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  nonzero blocks: A %" PetscInt64_FMT ", L %" PetscInt64_FMT " (with its unit diagonal), U %" PetscInt64_FMT ", M_L %" PetscInt64_FMT ", M_U %" PetscInt64_FMT " (M_L + M_U: %.2f x A)\n", cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], cnt[0] ? (double)(cnt[3] + cnt[4]) / (double)cnt[0] : 0.0));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  memory (%s): factors and inverse diagonal blocks %.3g MB, M_L + M_U %.3g MB, column views %.3g MB; the operator's diagonal block (CSR) %.3g MB\n", jac->op.device ? "device" : "host", mem[1] / 1e6, mem[2] / 1e6, mem[3] / 1e6, mem[0] / 1e6));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  last setup: %.4g s = block ILU %.4g s + patterns %.4g s + inverses %.4g s + upload %.4g s (max over processes)\n", tm[4], tm[0], tm[1], tm[2], tm[3]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  patterns: %s at the last setup\n", jac->patterns_reused ? "reused (the operator's values changed only)" : "computed"));
  if (PCBISAIUsesLibrary(jac)) PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: two block sparse products, %s bsrmv\n", jac->k->library));
  else if (jac->k->bsr_mult_library && jac->spmv == PCBISAI_SPMV_CUSPARSE) PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: two block sparse products, own BSR kernel (GPU; %s bsrmv takes blocks of %d or more)\n", jac->k->library, jac->k->library_min_bs));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  apply: two block sparse products, %s\n", !jac->op.device ? "host kernel" : "own BSR kernel (GPU)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* public interface                                                                                */

static PetscErrorCode PCBISAISetLevel_BISAI(PC pc, PetscInt level)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;

  PetscFunctionBegin;
  jac->level = level;
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

  Note:
  Denser patterns (higher k) approximate the inverses of the triangular factors better (fewer Krylov iterations) at
  the price of more memory, setup and work per application.

.seealso: [](ch_ksp), `PCBISAI`, `PCBISAIGetLevel()`
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
  *level = jac->level;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetLevel - Gets the level k of the patterns of `PCBISAI`'s approximate inverses

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. level - the level

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
  PCBISAISetILUType - Sets how `PCBISAI` computes its block ILU(0) factors

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PCBISAI_ILU_EXACT` (default: row order on the host; the GPU path uploads the factors) or
         `PCBISAI_ILU_SWEEPS` (fixed-point sweeps where the preconditioner runs, see `PCBISAISetILUSweeps()`)

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
  PCBISAIGetILUType - Gets how `PCBISAI` computes its block ILU(0) factors

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
  PCBISAISetILUSweeps - Sets the number of fixed-point sweeps of `PCBISAI`'s block ILU(0) with `PCBISAI_ILU_SWEEPS`

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
  PCBISAIGetILUSweeps - Gets the number of fixed-point sweeps of `PCBISAI`'s block ILU(0)

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
  PCBISAISetSpMVType - Sets the GPU kernel of the two block sparse products of `PCBISAI`'s apply

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
  PCBISAIGetSpMVType - Gets the GPU kernel of the two block sparse products of `PCBISAI`'s apply

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

/* a sequential BAIJ matrix from blocks of a BSR array: the blocks of rows rowptr/cols selected by keep (NULL: all),
   plus identity diagonal blocks when unitdiag */
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

static PetscErrorCode PCBISAIGetFactors_BISAI(PC pc, Mat *L, Mat *U, Mat *ML, Mat *MU)
{
  PC_BISAI *jac = (PC_BISAI *)pc->data;
  double   *h;
  size_t    bs2;

  PetscFunctionBegin;
  PetscCheck(jac->nsetups && jac->work, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBISAI: the factors are computed by the setup: call PCSetUp() (or KSPSetUp()) first");
  bs2 = (size_t)jac->bs * jac->bs;
  if (L || U) {
    PetscCall(PetscMalloc1(PetscMax((size_t)jac->nnzb * bs2, 1), &h));
    PetscCall(PCMSReadBack(&jac->op, h, jac->F.ptr, sizeof(double) * jac->nnzb * bs2));
    if (L) PetscCall(PCBISAICreateBAIJ(jac->nb, jac->bs, jac->rowptr, jac->cols, h, -1, PETSC_TRUE, L));
    if (U) PetscCall(PCBISAICreateBAIJ(jac->nb, jac->bs, jac->rowptr, jac->cols, h, 1, PETSC_FALSE, U));
    PetscCall(PetscFree(h));
  }
  for (PetscInt w = 0; w < 2; w++) {
    PCBISAIInv *M   = &jac->inv[w];
    Mat        *out = w == 0 ? ML : MU;

    if (!out) continue;
    PetscCall(PetscMalloc1(PetscMax((size_t)M->nnzb * bs2, 1), &h));
    PetscCall(PCMSReadBack(&jac->op, h, M->vals.ptr, sizeof(double) * M->nnzb * bs2));
    PetscCall(PCBISAICreateBAIJ(jac->nb, jac->bs, M->rowptr, M->cols, h, 0, PETSC_FALSE, out));
    PetscCall(PetscFree(h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBISAIGetFactors - Gets host copies of the block ILU(0) factors and of the approximate inverses computed by
  `PCBISAI` on this process's diagonal block

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ L  - the unit block lower factor (its identity diagonal blocks stored), or `NULL`
. U  - the block upper factor, or `NULL`
. ML - the approximate inverse of `L` on the pattern S(|L|^k), or `NULL`
- MU - the approximate inverse of `U` on the pattern S(|U|^k), or `NULL`

  Level: developer

  Notes:
  The matrices are new sequential `MATSEQBAIJ` matrices (block size of the operator, the rows of this process)
  with every block of the patterns stored, zero or not; the caller destroys them. On the GPU the values are copied
  from the device. The preconditioner applies z = MU (ML r) on each process.

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
   PCBISAI - "bisai" - block incomplete sparse approximate inverse (block-ISAI) of the block ILU(0) factors
   (Ma et al. (2021), sections 3.1-3.2, Algorithm 1), applied as two block sparse
   matrix-vector products, computed on the GPU when the operator is there

   Options Database Keys:
+  -pc_bisai_level <1>             - the patterns S(|L|^k), S(|U|^k) of the approximate inverses, k = 1, 2 or 3
.  -pc_bisai_ilu <exact,sweeps>    - block ILU(0) exact in row order on the host (default), or by fixed-point sweeps
.  -pc_bisai_ilu_sweeps <5>        - the fixed-point sweeps of -pc_bisai_ilu sweeps
-  -pc_bisai_spmv <own,cusparse>   - the GPU kernel of the two products: the plugin's (default) or cuSPARSE's bsrmv

   Level: intermediate

   Notes:
   The block size is the operator's (`MatGetBlockSize()`, 1 to 8); a block is nonzero when any of its entries is
   stored. Operators: AIJ-family matrices (aij, aijcusparse, modsell, ...) and BAIJ (through an AIJ copy, on the host).
   On several processes each works on its diagonal block (block Jacobi across processes).

   The setup computes the block ILU(0) factors L (unit block lower) and U (block upper) on the block pattern of the
   operator, the explicit inverses of U's diagonal blocks, and approximate inverses M_L of L on S(|L|^k) and M_U of U
   on S(|U|^k): each block column j of M_L solves the small block triangular system L(J,J) X = E_j restricted to its
   pattern rows J (so L M_L = I on the pattern), likewise for M_U. On the GPU one warp solves one column, reading the
   blocks of the small system from the factors (they are never stored). The apply is z = M_U (M_L r): two block
   sparse products, no triangular solve. The patterns are computed on the host once per nonzero pattern; a setup
   after a change of the operator's values only recomputes the values.

   A singular diagonal block of U is an error naming its block row. `PCView()` reports the block size, the level,
   the nonzero blocks of L, U, M_L, M_U, the memory and the setup time split into block ILU, patterns, inverses and
   upload; `-log_view` shows the events PCBISAIILU, PCBISAIPattern, PCBISAIInverse and PCBISAIApply.

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCILU`, `PCPBJACOBI`, `PCBISAISetLevel()`, `PCBISAISetILUType()`,
          `PCBISAISetILUSweeps()`, `PCBISAISetSpMVType()`, `PCBISAIGetFactors()`, `MATMODSELL`
M*/
static PetscErrorCode PCCreate_BISAI(PC pc)
{
  PC_BISAI *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data    = (void *)jac;
  jac->level  = 1;
  jac->ilu    = PCBISAI_ILU_EXACT;
  jac->sweeps = 5;
  jac->spmv   = PCBISAI_SPMV_OWN;

  pc->ops->apply          = PCApply_BISAI;
  pc->ops->setup          = PCSetUp_BISAI;
  pc->ops->reset          = PCReset_BISAI;
  pc->ops->destroy        = PCDestroy_BISAI;
  pc->ops->setfromoptions = PCSetFromOptions_BISAI;
  pc->ops->view           = PCView_BISAI;
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
