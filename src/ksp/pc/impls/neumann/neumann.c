/*
   PCNEUMANN: truncated Neumann-series (Neu1, Neu2) and scaled Incomplete Poisson (IP) preconditioners on the
   diagonally scaled operator, with optional subdomain deflation (Gupta, van Gijzen and Vuik (2011): eq. 7, 8, 15, 16; section 4, eq. 17).

   With A = L + D + U on the local diagonal block Ad and A~ = D^-1/2 A D^-1/2 = I + L~ + U~ (never formed):
     neu1: M^-1 = D^-1/2 (I - U~)(I - L~) D^-1/2                 = (I - D^-1 U)(I - D^-1 L) D^-1
     neu2: M^-1 = D^-1/2 (I - U~ + U~^2)(I - L~ + L~^2) D^-1/2   = (I - G_U + G_U^2)(I - G_L + G_L^2) D^-1
     ip:   M^-1 = D^-1/2 drop((I - L~)(I - U~)) D^-1/2, stored explicitly (eq. 7 on A~, where D~ = I), entries of
           the scaled product below -pc_neumann_ip_drop in absolute value dropped (the diagonal is kept)
   (U~ = L~^T for a symmetric operator: the paper's K^T K). neu1/neu2 are 2/4 passes of one kernel over the mod-SELL
   image of Ad (neumannkernels.h), ip one product with the image of the explicit matrix.

   Deflation (Gupta, van Gijzen and Vuik (2011), section 4): Z piecewise constant on subdomains (DMDA operators: the local box cut into n^d
   boxes; others: the locality blocks of localityimpl.h, or blocks of consecutive rows), the subdomains, E = Z^T A Z's
   rows (dense, nsub x nsub over all processes) and Z^T A built where the PC computes (kernels blocks, order, cut,
   galerkin: on the GPU for a device operator, bit for bit the host's), E inverted on the host once per setup, the
   process's rows of E^-1 kept in the PC's memory. PCApply is the
   A-DEF2 two-level preconditioner z = y + Z E^-1 Z^T (r - A y), y = M^-1 r; PCPreSolve makes the initial residual
   orthogonal to Z (x0 <- x0 + Z E^-1 Z^T r0), on which subspace A-DEF2 equals the symmetric BNN preconditioner
   P^T M^-1 P + Q, so PETSc's plain CG applies (docs/neumann.md).

   MPI: the series and IP per process on Ad (block Jacobi across processes); deflation global (one gather of the
   processes' subdomain sums per apply; with a GPU operator that is one device-to-host copy of nsub_local values).
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/neumannkernels.h>
#include <petscblaslapack.h>

const char *const PCNeumannTypes[] = {"neu1", "neu2", "ip", "jacobi", "PCNeumannType", "PCNEUMANN_", NULL};

static PetscLogEvent PC_NeuSetUp = 0, PC_NeuApply = 0, PC_NeuDeflation = 0, PC_NeuDeflSetUp = 0;

typedef struct {
  /* options */
  PCNeumannType type;
  PetscReal     ip_drop;
  PetscInt      defl_n, defl_bs;
  PetscBool     defl_contig; /* subdomains of consecutive rows (the paper's stripes) instead of locality blocks */
  PetscBool     warn;

  PCMSOperator        op; /* the operator, its blocks and images (PC layer) */
  const MSNeuKernels *k;
  PCMSBuffer          dinv, status, w1, w2;
  PCMSBuffer          sptr[2], scols[2], svals[2], swidth; /* split copies of G_L (0) and G_U (1) */
  PetscInt64          sslots[2];                           /* their slots (padding included) */

  /* what the setups found */
  PetscReal lnorm;  /* ||L~||_inf, max over the processes */
  PetscBool warned; /* the message about lnorm >= 1 was given */
  PetscInt  nsetups;

  /* ip */
  Mat        ipmat; /* the explicit D^-1/2 drop(...) D^-1/2 of the local block (host SeqAIJ) */
  MSImage    ipimg; /* its image in the PC's memory */
  PetscInt64 ipnnz, ipnnz_full;

  /* deflation */
  PetscBool    defl;
  const char  *defl_kind;
  PetscInt     nl, nt, noff; /* local and total subdomains, the first of this process */
  PetscMPIInt *counts, *displs;
  PCMSBuffer   sub, order, off, einv, gl, g, c, work;
  PetscBool    ordered;          /* rows reordered by subdomain for the restriction (else subdomains of consecutive rows) */
  PetscInt     maxitems;         /* the most rows plus list entries of one subdomain */
  PetscBool    zta;              /* one process: Z^T A kept (w, the list x*), Z^T A y without a product with A */
  PCMSBuffer   zw, xrow, xval, xoff, cnt; /* w[c]: column c of Z^T A in c's own subdomain; the other entries, by subdomain */
  PetscInt     nx;
  PetscScalar *Eh;       /* this process's rows of E (host, nl x nt, row-major): PCNeumannGetCoarseMatrix() */
  PetscScalar *hgl, *hg; /* host copies (several processes) */
  Vec          t;        /* A y */
  PetscBool    saved_nonzero, presolved;
  PetscInt     defl_box[3];
  PetscBool    defl_device;  /* the subdomains, E and Z^T A were computed on the GPU */
  PetscLogDouble tdefl[4];   /* setup times: subdomains, Galerkin (E, Z^T A), coarse factorization, total */
} PC_Neumann;

/* -------------------------------------------------------------------------------------------------------------- */

static PetscErrorCode PCNeumannFreeDeflation(PC_Neumann *jac)
{
  PetscFunctionBegin;
  PetscCall(PCMSBufferDestroy(&jac->sub));
  PetscCall(PCMSBufferDestroy(&jac->order));
  PetscCall(PCMSBufferDestroy(&jac->off));
  PetscCall(PCMSBufferDestroy(&jac->einv));
  PetscCall(PCMSBufferDestroy(&jac->gl));
  PetscCall(PCMSBufferDestroy(&jac->g));
  PetscCall(PCMSBufferDestroy(&jac->c));
  PetscCall(PCMSBufferDestroy(&jac->work));
  PetscCall(PCMSBufferDestroy(&jac->zw));
  PetscCall(PCMSBufferDestroy(&jac->xrow));
  PetscCall(PCMSBufferDestroy(&jac->xval));
  PetscCall(PCMSBufferDestroy(&jac->xoff));
  PetscCall(PCMSBufferDestroy(&jac->cnt));
  jac->zta      = PETSC_FALSE;
  jac->ordered  = PETSC_FALSE;
  jac->nx       = 0;
  jac->maxitems = 0;
  PetscCall(PetscFree2(jac->counts, jac->displs));
  PetscCall(PetscFree2(jac->hgl, jac->hg));
  PetscCall(PetscFree(jac->Eh));
  PetscCall(VecDestroy(&jac->t));
  jac->defl = PETSC_FALSE;
  jac->nl = jac->nt = jac->noff = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonal block's CSR (columns ascending, values) as the deflation kernels read it: the shared layer's, in the PC's
   memory (PCMSOperatorGetCSR(): on the host the matrix's arrays; on the GPU aijcusparse's device arrays, a MATMODSELL's
   device image expanded there, else copies) */
static void PCNeumannCSRView(const PCMSCSR *csr, MSNeuCSR *A)
{
  A->m   = csr->m;
  A->nnz = csr->nnz;
  A->ai  = csr->ai;
  A->aj  = csr->aj;
  A->aa  = csr->aa;
}

/* The subdomain of every local row (jac->sub, in the PC's memory: m ints); *nl subdomains on this process.
   DMDA boxes on the host (uploaded on the GPU); blocks of consecutive rows by the kernel blocks; locality blocks from
   the locality partition of the block's CSR (PCMSOperatorLocalityPerm(): the same permutation on the host and on the
   GPU, bit for bit, docs/matrix.md), then the kernel blocks (sub[perm[r]] = r / bs). */
static PetscErrorCode PCNeumannSubdomains(PC pc, const PCMSCSR *csr, PetscInt *nl)
{
  PC_Neumann   *jac = (PC_Neumann *)pc->data;
  PCMSOperator *op  = &jac->op;
  PetscInt      m   = op->m;
  const PetscInt *box;
  PCMSGrid      grid;
  DM            dm;
  void         *stream;
  int           err;

  PetscFunctionBegin;
  PetscCall(PCMSBufferEnsure(op, &jac->sub, (size_t)PetscMax(m, 1) * sizeof(int), "PCNEUMANN's subdomain map"));
  PetscCall(MatGetDM(pc->pmat, &dm));
  PetscCall(PCMSGetGrid(dm, &grid));
  box = grid.box;
  if (box[0] && !jac->defl_bs && (PetscInt64)box[0] * box[1] * box[2] * box[3] == m) {
    const PetscInt n = jac->defl_n, nx = box[0], ny = box[1], nz = box[2], dof = box[3];
    const PetscInt sx = PetscMin(n, nx), sy = ny > 1 ? PetscMin(n, ny) : 1, sz = nz > 1 ? PetscMin(n, nz) : 1;
    int           *sub;

    PetscCall(PetscMalloc1(PetscMax(m, 1), &sub));
    for (PetscInt o = 0; o < m; o++) {
      const PetscInt p = o / dof, ix = p % nx, iy = (p / nx) % ny, iz = p / (nx * ny);
      sub[o] = (int)((ix * sx) / nx + sx * ((iy * sy) / ny + sy * ((iz * sz) / nz)));
    }
    PetscCall(PCMSBufferUpload(op, &jac->sub, sub, (size_t)m * sizeof(int), "PCNEUMANN's subdomain map"));
    PetscCall(PCMSSynchronize(op)); /* sub is freed */
    PetscCall(PetscFree(sub));
    *nl              = sx * sy * sz;
    jac->ordered     = PETSC_TRUE;
    jac->defl_kind   = "boxes of the DMDA's local box";
    jac->defl_box[0] = sx;
    jac->defl_box[1] = sy;
    jac->defl_box[2] = sz;
  } else {
    PetscInt   bs = jac->defl_bs;
    PCMSBuffer perm = {0};

    if (!bs) {
      const PetscInt n3 = jac->defl_n * jac->defl_n * jac->defl_n;
      bs                = PetscMax(1, (m + n3 - 1) / n3);
    }
    PetscCheck(bs <= PETSC_INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "PCNEUMANN: deflation block size %" PetscInt_FMT " too large", bs);
    *nl = m ? (m + bs - 1) / bs : 0;
    if (m && !jac->defl_contig) { /* the locality partition: perm (new -> old) in the PC's memory */
      PetscCall(PCMSBufferEnsure(op, &perm, (size_t)m * sizeof(int), "PCNEUMANN's locality partition"));
      PetscCall(PCMSOperatorLocalityPerm(op, csr, bs, (int *)perm.ptr));
    }
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->blocks((int)m, (const int *)perm.ptr, (int)bs, (int *)jac->sub.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "blocks", 0.0));
    PetscCall(PCMSSynchronize(op)); /* perm is freed */
    PetscCall(PCMSBufferDestroy(&perm));
    jac->ordered     = (PetscBool)!jac->defl_contig;
    jac->defl_kind   = jac->defl_contig ? "blocks of consecutive rows" : "locality blocks";
    jac->defl_box[0] = bs;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Z, E = Z^T A Z over all processes, its inverse (host), the process's rows of E^-1 in the PC's memory. Where the PC
   computes (the GPU for a device operator): the subdomains, their order, E's rows from the diagonal block and, with one
   process, Z^T A (kernels galerkin and cut). Only E's rows come back to the host; the off-process block's
   contributions to E (several processes) are added there, from its rows, with the ghost columns' subdomains. */
static PetscErrorCode PCNeumannSetUpDeflation(PC pc)
{
  PC_Neumann    *jac  = (PC_Neumann *)pc->data;
  PCMSOperator  *op   = &jac->op;
  MPI_Comm       comm = PetscObjectComm((PetscObject)pc);
  PetscMPIInt    size, rank;
  PetscInt       m = op->m, nl = 0, nt;
  PetscScalar   *E, *Einv;
  PetscBLASInt   bn, info;
  PCMSCSR        csr;
  MSNeuCSR       A;
  PCMSBuffer     Ebuf = {0};
  MSNeuZtA       Z;
  void          *stream;
  int            err, *hoff = NULL, *hxoff = NULL;
  PetscLogDouble t0, t1, t2, t3;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_NeuDeflSetUp, pc, 0, 0, 0));
  PetscCall(PCNeumannFreeDeflation(jac));
  PetscCall(PetscTime(&t0));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  jac->defl_device = op->device;
  PetscCall(PCMSOperatorGetCSR(op, PETSC_TRUE, PETSC_TRUE, &csr));
  PCNeumannCSRView(&csr, &A);
  PetscCall(PCNeumannSubdomains(pc, &csr, &nl));
  PetscCall(PCMSSynchronize(op));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscMalloc2(size, &jac->counts, size, &jac->displs));
  {
    PetscMPIInt nlm;
    PetscCall(PetscMPIIntCast(nl, &nlm));
    PetscCallMPI(MPI_Allgather(&nlm, 1, MPI_INT, jac->counts, 1, MPI_INT, comm));
  }
  nt = 0;
  for (PetscMPIInt p = 0; p < size; p++) {
    jac->displs[p] = (PetscMPIInt)nt;
    nt += jac->counts[p];
  }
  jac->nl   = nl;
  jac->nt   = nt;
  jac->noff = jac->displs[rank];
  PetscCheck(nt > 0, comm, PETSC_ERR_ARG_WRONG, "PCNEUMANN: deflation needs at least one subdomain (the operator has no rows?)");
  PetscCheck((PetscInt64)nt * nt <= 64 * 1024 * 1024, comm, PETSC_ERR_ARG_OUTOFRANGE, "PCNEUMANN: %" PetscInt_FMT " subdomains over all processes: the dense E = Z^T A Z would hold %g entries; use fewer subdomains (-pc_neumann_deflation_subdomains, -pc_neumann_deflation_block_size)", nt, (double)nt * nt);

  /* the rows by subdomain (the restriction's order), E's rows from Ad and, with one process, Z^T A */
  PetscCall(PCMSBufferEnsure(op, &jac->off, sizeof(int) * (size_t)(nl + 1), "PCNEUMANN's subdomain offsets"));
  if (jac->ordered) PetscCall(PCMSBufferEnsure(op, &jac->order, sizeof(int) * (size_t)PetscMax(m, 1), "PCNEUMANN's rows by subdomain"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->order((int)m, (const int *)jac->sub.ptr, (int)nl, jac->ordered ? (int *)jac->order.ptr : NULL, (int *)jac->off.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "order", 0.0));
  jac->zta = (PetscBool)!op->mpi;
  PetscCall(PetscMemzero(&Z, sizeof(Z)));
  if (jac->zta) {
    long long ncut;

    PetscCall(PCMSBufferEnsure(op, &jac->cnt, sizeof(long long), "PCNEUMANN's list length"));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->cut(&A, (const int *)jac->sub.ptr, (long long *)jac->cnt.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "cut", 0.0));
    PetscCall(PCMSReadBack(op, &ncut, jac->cnt.ptr, sizeof(ncut)));
    PetscCheck(ncut >= 0 && ncut <= A.nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCNEUMANN: %lld entries between subdomains of %d", ncut, A.nnz);
    PetscCall(PCMSBufferEnsure(op, &jac->zw, (size_t)PetscMax(m, 1) * sizeof(PetscScalar), "PCNEUMANN's Z^T A (own subdomains)"));
    PetscCall(PCMSBufferEnsure(op, &jac->xrow, (size_t)PetscMax(ncut, 1) * sizeof(int), "PCNEUMANN's Z^T A (other subdomains: columns)"));
    PetscCall(PCMSBufferEnsure(op, &jac->xval, (size_t)PetscMax(ncut, 1) * sizeof(PetscScalar), "PCNEUMANN's Z^T A (other subdomains: values)"));
    PetscCall(PCMSBufferEnsure(op, &jac->xoff, sizeof(int) * (size_t)(nl + 1), "PCNEUMANN's Z^T A (other subdomains: offsets)"));
    Z.zw   = (double *)jac->zw.ptr;
    Z.xrow = (int *)jac->xrow.ptr;
    Z.xval = (double *)jac->xval.ptr;
    Z.xoff = (int *)jac->xoff.ptr;
    Z.cap  = ncut;
    Z.nx   = (long long *)jac->cnt.ptr;
  }
  PetscCall(PCMSBufferEnsure(op, &Ebuf, sizeof(double) * (size_t)PetscMax(nl * nt, 1), "PCNEUMANN's rows of the coarse matrix"));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->galerkin(&A, (const int *)jac->sub.ptr, (int)nl, (int)nt, (int)jac->noff, (double *)Ebuf.ptr, jac->zta ? &Z : NULL, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "galerkin", (PetscLogDouble)A.nnz));
  PetscCall(PetscMalloc1((size_t)PetscMax(nl * nt, 1), &jac->Eh));
  if (nl) PetscCall(PCMSReadBack(op, jac->Eh, Ebuf.ptr, sizeof(double) * (size_t)nl * nt));
  PetscCall(PetscMalloc2(nl + 1, &hoff, nl + 1, &hxoff));
  PetscCall(PCMSReadBack(op, hoff, jac->off.ptr, sizeof(int) * (size_t)(nl + 1)));
  if (jac->zta) {
    long long nx;

    PetscCall(PCMSReadBack(op, &nx, jac->cnt.ptr, sizeof(nx)));
    PetscCheck(nx >= 0 && nx <= Z.cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCNEUMANN: Z^T A has %lld entries outside the columns' subdomains, more than the %lld entries between subdomains", nx, Z.cap);
    jac->nx = (PetscInt)nx;
    PetscCall(PCMSReadBack(op, hxoff, jac->xoff.ptr, sizeof(int) * (size_t)(nl + 1)));
  } else
    for (PetscInt j = 0; j <= nl; j++) hxoff[j] = 0;
  jac->maxitems = 0;
  for (PetscInt j = 0; j < nl; j++) jac->maxitems = PetscMax(jac->maxitems, (PetscInt)(hoff[j + 1] - hoff[j]) + (PetscInt)(hxoff[j + 1] - hxoff[j]));
  PetscCall(PetscFree2(hoff, hxoff));
  PetscCall(PCMSBufferDestroy(&Ebuf));
  PetscCall(PCMSOperatorRestoreCSR(op, &csr));

  /* several processes: the off-process block's contributions, with the global subdomains of the ghost columns */
  if (op->mpi) {
    Vec                gs, hgv;
    PetscScalar       *a;
    const PetscScalar *ga;
    int               *sub;
    PetscInt          *gsub_ghost;

    PetscCall(PetscMalloc1(PetscMax(m, 1), &sub));
    if (m) PetscCall(PCMSReadBack(op, sub, jac->sub.ptr, sizeof(int) * (size_t)m));
    PetscCall(VecCreateMPI(comm, m, PETSC_DETERMINE, &gs));
    PetscCall(VecGetArrayWrite(gs, &a));
    for (PetscInt o = 0; o < m; o++) a[o] = (PetscScalar)(sub[o] + jac->noff);
    PetscCall(VecRestoreArrayWrite(gs, &a));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, op->nghost, &hgv));
    /* the layer's scatter works between vectors of the PC's memory type; these are host vectors of the same layout */
    PetscCall(VecScatterBegin(op->scat, gs, hgv, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(op->scat, gs, hgv, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(PetscMalloc1(PetscMax(op->nghost, 1), &gsub_ghost));
    PetscCall(VecGetArrayRead(hgv, &ga));
    for (PetscInt k = 0; k < op->nghost; k++) gsub_ghost[k] = (PetscInt)PetscRealPart(ga[k]);
    PetscCall(VecRestoreArrayRead(hgv, &ga));
    PetscCall(VecDestroy(&hgv));
    PetscCall(VecDestroy(&gs));
    for (PetscInt o = 0; o < m; o++) {
      PetscScalar       *row = jac->Eh + (size_t)sub[o] * nt;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscInt           nc;

      PetscCall(MatGetRow(op->Ao, o, &nc, &cols, &vals));
      for (PetscInt k = 0; k < nc; k++) row[gsub_ghost[cols[k]]] += vals[k];
      PetscCall(MatRestoreRow(op->Ao, o, &nc, &cols, &vals));
    }
    PetscCall(PetscFree(gsub_ghost));
    PetscCall(PetscFree(sub));
  }
  PetscCall(PetscTime(&t2));

  /* all rows of E on every process, the inverse by Cholesky (E is SPD when A is) */
  PetscCall(PetscMalloc2((size_t)nt * nt, &E, (size_t)PetscMax(nl * nt, 1), &Einv));
  {
    PetscMPIInt *rc, *rd;
    PetscCall(PetscMalloc2(size, &rc, size, &rd));
    for (PetscMPIInt p = 0; p < size; p++) {
      rc[p] = (PetscMPIInt)((PetscInt64)jac->counts[p] * nt);
      rd[p] = (PetscMPIInt)((PetscInt64)jac->displs[p] * nt);
    }
    PetscCallMPI(MPI_Allgatherv(jac->Eh, (PetscMPIInt)(nl * nt), MPIU_SCALAR, E, rc, rd, MPIU_SCALAR, comm));
    PetscCall(PetscFree2(rc, rd));
  }
  PetscCall(PetscBLASIntCast(nt, &bn));
  PetscCallBLAS("LAPACKpotrf", LAPACKpotrf_("L", &bn, E, &bn, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_MAT_CH_ZRPVT, "PCNEUMANN: the coarse matrix E = Z^T A Z of the deflation is not positive definite (LAPACK potrf: %d at subdomain %d): the operator must be SPD, with no subdomain in its null space; add a Dirichlet condition or turn deflation off", (int)info, (int)info - 1);
  PetscCallBLAS("LAPACKpotri", LAPACKpotri_("L", &bn, E, &bn, &info));
  PetscCheck(info == 0, comm, PETSC_ERR_LIB, "PCNEUMANN: LAPACK potri failed (%d) inverting the coarse matrix", (int)info);
  /* column-major lower triangle of the inverse: entry (i, j), i >= j, at E[i + j nt]; rows noff .. noff+nl-1 */
  for (PetscInt i = 0; i < nl; i++)
    for (PetscInt j = 0; j < nt; j++) {
      const PetscInt gi = jac->noff + i;
      Einv[(size_t)i * nt + j] = gi >= j ? E[gi + (size_t)j * nt] : E[j + (size_t)gi * nt];
    }

  /* into the PC's memory */
  PetscCall(PCMSBufferEnsure(op, &jac->einv, (size_t)PetscMax(nl * nt, 1) * sizeof(PetscScalar), "PCNEUMANN's rows of the inverse coarse matrix"));
  PetscCall(PCMSBufferEnsure(op, &jac->gl, (size_t)PetscMax(nl, 1) * sizeof(PetscScalar), "PCNEUMANN's subdomain sums"));
  PetscCall(PCMSBufferEnsure(op, &jac->g, (size_t)nt * sizeof(PetscScalar), "PCNEUMANN's subdomain sums"));
  PetscCall(PCMSBufferEnsure(op, &jac->c, (size_t)PetscMax(nl, 1) * sizeof(PetscScalar), "PCNEUMANN's coarse correction"));
  if (jac->k->restrict_work) PetscCall(PCMSBufferEnsure(op, &jac->work, sizeof(double) * (size_t)PetscMax(nl, 1) * (size_t)MS_NEU_NCHUNKS(jac->maxitems), "PCNEUMANN's restriction partial sums"));
  PetscCall(PCMSBufferUpload(op, &jac->einv, Einv, (size_t)nl * nt * sizeof(PetscScalar), "PCNEUMANN's rows of the inverse coarse matrix"));
  PetscCall(PCMSSynchronize(op)); /* the host arrays are freed below */
  PetscCall(PetscFree2(E, Einv));
  PetscCall(PetscMalloc2(PetscMax(nl, 1), &jac->hgl, nt, &jac->hg));
  PetscCall(MatCreateVecs(pc->pmat, &jac->t, NULL));
  jac->defl = PETSC_TRUE;
  PetscCall(PetscTime(&t3));
  jac->tdefl[0] = t1 - t0;
  jac->tdefl[1] = t2 - t1;
  jac->tdefl[2] = t3 - t2;
  jac->tdefl[3] = t3 - t0;
  PetscCall(PetscInfo(pc, "deflation setup on the %s: %" PetscInt_FMT " subdomains (%s), subdomains %.4f s, Galerkin (E, Z^T A: %" PetscInt_FMT " entries outside the columns' subdomains) %.4f s, coarse factorization %.4f s, total %.4f s\n", op->device ? "GPU" : "host", nt, jac->defl_kind, (double)jac->tdefl[0], jac->nx, (double)jac->tdefl[1], (double)jac->tdefl[2], (double)jac->tdefl[3]));
  PetscCall(PetscLogEventEnd(PC_NeuDeflSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the strictly lower (lower) or upper part of D^-1/2 Ad D^-1/2 as a SeqAIJ matrix (s = D^-1/2; nnz: work, m) */
static PetscErrorCode PCNeumannScaledPart(Mat Ad, const PetscScalar *s, PetscBool lower, PetscInt *nnz, Mat *P)
{
  PetscInt m;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(Ad, &m, NULL));
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt *cols;
    PetscInt        nc;
    PetscCall(MatGetRow(Ad, i, &nc, &cols, NULL));
    nnz[i] = 0;
    for (PetscInt k = 0; k < nc; k++) nnz[i] += lower ? cols[k] < i : cols[k] > i;
    PetscCall(MatRestoreRow(Ad, i, &nc, &cols, NULL));
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, m, 0, nnz, P));
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    PetscCall(MatGetRow(Ad, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (lower ? cols[k] < i : cols[k] > i) PetscCall(MatSetValue(*P, i, cols[k], s[i] * vals[k] * s[cols[k]], INSERT_VALUES));
    PetscCall(MatRestoreRow(Ad, i, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The explicit scaled IP matrix of the local block: D^-1/2 drop((I - L~)(I - U~)) D^-1/2 (host SeqAIJ) */
static PetscErrorCode PCNeumannBuildIP(PC pc)
{
  PC_Neumann        *jac = (PC_Neumann *)pc->data;
  PCMSOperator      *op  = &jac->op;
  PetscInt           m = op->m, *nnz;
  Mat                Lt, Ut, LLt, Mt;
  Vec                d;
  const PetscScalar *da;
  PetscScalar       *s;

  PetscFunctionBegin;
  PetscCall(MatDestroy(&jac->ipmat));
  PetscCall(PetscMalloc2(m, &s, m, &nnz));
  PetscCall(MatCreateVecs(op->Ad, &d, NULL));
  PetscCall(MatGetDiagonal(op->Ad, d));
  PetscCall(VecGetArrayRead(d, &da));
  for (PetscInt i = 0; i < m; i++) s[i] = 1.0 / PetscSqrtReal(PetscRealPart(da[i])); /* positive: checked before */
  PetscCall(VecRestoreArrayRead(d, &da));
  PetscCall(VecDestroy(&d));
  /* L~, U~ (strictly lower and upper parts of the scaled block; U~ = L~^T for a symmetric operator) */
  PetscCall(PCNeumannScaledPart(op->Ad, s, PETSC_TRUE, nnz, &Lt));
  PetscCall(PCNeumannScaledPart(op->Ad, s, PETSC_FALSE, nnz, &Ut));
  /* (I - L~)(I - U~) = I - L~ - U~ + L~ U~ */
  PetscCall(MatMatMult(Lt, Ut, MAT_INITIAL_MATRIX, PETSC_DETERMINE, &LLt));
  PetscCall(MatAXPY(LLt, -1.0, Lt, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(LLt, -1.0, Ut, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatDestroy(&Ut));
  PetscCall(MatShift(LLt, 1.0));
  PetscCall(MatDestroy(&Lt));
  /* drop |entry| < tol off the diagonal, scale by D^-1/2 on both sides */
  jac->ipnnz = jac->ipnnz_full = 0;
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    PetscCall(MatGetRow(LLt, i, &nc, &cols, &vals));
    nnz[i] = 0;
    for (PetscInt k = 0; k < nc; k++) nnz[i] += (cols[k] == i || PetscAbsScalar(vals[k]) >= jac->ip_drop);
    jac->ipnnz += nnz[i];
    jac->ipnnz_full += nc;
    PetscCall(MatRestoreRow(LLt, i, &nc, &cols, &vals));
  }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, m, 0, nnz, &Mt));
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    PetscCall(MatGetRow(LLt, i, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++)
      if (cols[k] == i || PetscAbsScalar(vals[k]) >= jac->ip_drop) PetscCall(MatSetValue(Mt, i, cols[k], s[i] * vals[k] * s[cols[k]], INSERT_VALUES));
    PetscCall(MatRestoreRow(LLt, i, &nc, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(Mt, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Mt, MAT_FINAL_ASSEMBLY));
  PetscCall(MatDestroy(&LLt));
  PetscCall(PetscFree2(s, nnz));
  jac->ipmat = Mt;
  PetscCall(PCMSImageSetUp(op, jac->ipmat, &jac->ipimg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannFreeSplit(PC_Neumann *jac)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < 2; k++) {
    PetscCall(PCMSBufferDestroy(&jac->sptr[k]));
    PetscCall(PCMSBufferDestroy(&jac->scols[k]));
    PetscCall(PCMSBufferDestroy(&jac->svals[k]));
    jac->sslots[k] = 0;
  }
  PetscCall(PCMSBufferDestroy(&jac->swidth));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the split copy of G_L (k = 0) or G_U (k = 1) as the kernels see it */
static PetscErrorCode PCNeumannSplitView(PC_Neumann *jac, PetscInt k, const MSImageView *v, MSNeuSplit *S)
{
  PetscFunctionBegin;
  S->m       = v->m;
  S->sh      = v->sh;
  S->nslices = v->nslices;
  S->perm    = v->perm;
  S->ptr     = (const long long *)jac->sptr[k].ptr;
  S->cols    = (int *)jac->scols[k].ptr;
  S->vals    = (double *)jac->svals[k].ptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The split copies of G_L = D^-1 L and G_U = D^-1 U from the image, where the PC computes: the widths of the slices
   (one kernel, one read back), their offsets on the host, the entries (one kernel) */
static PetscErrorCode PCNeumannSetUpSplit(PC pc)
{
  PC_Neumann   *jac = (PC_Neumann *)pc->data;
  PCMSOperator *op  = &jac->op;
  MSImageView   v;
  void         *stream;
  int           err, *width;
  long long    *ptr;

  PetscFunctionBegin;
  PetscCall(PCMSOperatorGetView(op, 0, &v));
  PetscCall(PCMSBufferEnsure(op, &jac->swidth, (size_t)PetscMax(v.nslices, 1) * sizeof(int), "PCNEUMANN's slice widths"));
  PetscCall(PetscMalloc2(PetscMax(v.nslices, 1), &width, v.nslices + 1, &ptr));
  for (PetscInt k = 0; k < 2; k++) {
    const int            part = k ? MS_PART_UPPER : MS_PART_LOWER;
    MSNeuSplit           S;
    size_t               slots;
    const MSImageLayout *lay;

    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->split_width(&v, part, (int *)jac->swidth.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "split_width", 0.0));
    if (v.nslices > 0) PetscCall(PCMSReadBack(op, width, jac->swidth.ptr, (size_t)v.nslices * sizeof(int)));
    ptr[0] = 0;
    for (PetscInt s = 0; s < v.nslices; s++) ptr[s + 1] = ptr[s] + (long long)width[s] * v.sh;
    slots = (size_t)ptr[v.nslices];
    jac->sslots[k] = (PetscInt64)slots;
    PetscCall(PCMSBufferEnsure(op, &jac->sptr[k], (size_t)(v.nslices + 1) * sizeof(long long), "PCNEUMANN's split copy (slice offsets)"));
    PetscCall(PCMSBufferEnsure(op, &jac->scols[k], PetscMax(slots, 1) * sizeof(int), "PCNEUMANN's split copy (columns)"));
    PetscCall(PCMSBufferEnsure(op, &jac->svals[k], PetscMax(slots, 1) * sizeof(PetscScalar), "PCNEUMANN's split copy (values)"));
    PetscCall(PCMSBufferUpload(op, &jac->sptr[k], ptr, (size_t)(v.nslices + 1) * sizeof(long long), "PCNEUMANN's split copy (slice offsets)"));
    PetscCall(PCNeumannSplitView(jac, k, &v, &S));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->split_fill(&v, part, (const double *)jac->dinv.ptr, &S, stream);
    PetscCall(MSImageGetLayout(op->img[0], &lay));
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "split_fill", (PetscLogDouble)lay->noffdiag / 2));
    PetscCall(PCMSSynchronize(op)); /* ptr is reused (host) by the next part and freed below */
  }
  PetscCall(PetscFree2(width, ptr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_Neumann(PC pc)
{
  PC_Neumann            *jac  = (PC_Neumann *)pc->data;
  PCMSOperator          *op   = &jac->op;
  MPI_Comm               comm = PetscObjectComm((PetscObject)pc);
  const PCMSImageRequest dreq = {PCMS_ENCODING_MODSELL, 0, PCMS_ORDERING_ANY, PETSC_FALSE}, oreq = {PCMS_ENCODING_PLAIN, 0, PCMS_ORDERING_ANY, PETSC_FALSE};
  MSImageView            v;
  MSNeuStatus            st;
  void                  *stream;
  int                    err;
  PetscInt64             loc, glob;
  PetscReal              lnorm;
  const MSImageLayout   *lay;
  const size_t           bytes = (size_t)PetscMax(op->m, 1) * sizeof(PetscScalar);

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_NeuSetUp, pc, 0, 0, 0));
  PetscCall(PCMSOperatorSetUp(pc, op, &dreq, &oreq));
  jac->k = PCMSKernels(op, MSNeuKernels);
  PetscCall(PCMSBufferEnsure(op, &jac->status, sizeof(MSNeuStatus), "PCNEUMANN's status"));
  PetscCall(PCMSBufferEnsure(op, &jac->dinv, (size_t)PetscMax(op->m, 1) * sizeof(PetscScalar), "PCNEUMANN's inverse diagonal"));
  (void)bytes;
  if (jac->type == PCNEUMANN_NEU1 || jac->type == PCNEUMANN_NEU2) {
    PetscCall(PCMSBufferEnsure(op, &jac->w1, (size_t)PetscMax(op->m, 1) * sizeof(PetscScalar), "PCNEUMANN's work vector"));
    if (jac->type == PCNEUMANN_NEU2) PetscCall(PCMSBufferEnsure(op, &jac->w2, (size_t)PetscMax(op->m, 1) * sizeof(PetscScalar), "PCNEUMANN's work vector"));
  }

  /* inverse diagonal, first bad row, ||L~||_inf: one read back */
  PetscCall(PCMSOperatorGetView(op, 0, &v));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->diag(&v, (double *)jac->dinv.ptr, (MSNeuStatus *)jac->status.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "diag", (PetscLogDouble)op->m));
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->lnorm(&v, (const double *)jac->dinv.ptr, (MSNeuStatus *)jac->status.ptr, stream);
  PetscCall(MSImageGetLayout(op->img[0], &lay));
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "lnorm", 2.0 * (PetscLogDouble)lay->noffdiag + 2.0 * op->m));
  PetscCall(PCMSReadBack(op, &st, jac->status.ptr, sizeof(st)));
  loc = st.badrow == MS_NEU_BAD_NONE ? -1 : (PetscInt64)st.badrow;
  PetscCall(PCMSFirstBad(pc, op, 1, 1, &loc, &glob));
  if (glob >= 0) PetscCall(PCMSErrorDiagonal(pc, (PetscInt)glob, "the Neumann-series and Incomplete Poisson preconditioners scale the operator by D^-1/2 (Gupta, van Gijzen and Vuik (2011), eq. 8): every diagonal entry must be positive", "PCNEUMANN is meant for SPD operators (e.g. pressure Poisson matrices); scale the system by -1 if it is negative definite, or use another preconditioner"));
  PetscCall(PetscMemcpy(&lnorm, &st.lnorm, sizeof(lnorm)));
  if (PetscIsNanReal(lnorm)) lnorm = PETSC_INFINITY;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &lnorm, 1, MPIU_REAL, MPIU_MAX, comm));
  jac->lnorm = lnorm;
  PetscCall(PetscInfo(pc, "||L~||_inf of the scaled strictly lower part: %g\n", (double)lnorm));
  if (lnorm >= 1.0 && (jac->type == PCNEUMANN_NEU1 || jac->type == PCNEUMANN_NEU2)) {
    PetscCall(PetscInfo(pc, "||L~||_inf = %g >= 1: the Neumann series of (I + L~)^-1 need not converge\n", (double)lnorm));
    if (jac->warn && !jac->warned) PetscCall(PetscPrintf(comm, "WARNING PCNEUMANN: ||L~||_inf = %g >= 1 for the diagonally scaled operator D^-1/2 A D^-1/2 = I + L~ + L~^T: the truncated Neumann series need not converge and the preconditioner may be poor (-pc_neumann_warn false silences this)\n", (double)lnorm));
    jac->warned = PETSC_TRUE;
  }

  if (jac->type == PCNEUMANN_NEU1 || jac->type == PCNEUMANN_NEU2) PetscCall(PCNeumannSetUpSplit(pc));
  else PetscCall(PCNeumannFreeSplit(jac));
  if (jac->type == PCNEUMANN_IP) PetscCall(PCNeumannBuildIP(pc));
  else {
    PetscCall(MatDestroy(&jac->ipmat));
    PetscCall(MSImageDestroy(&jac->ipimg));
  }
  if (jac->defl_n > 0 || jac->defl_bs > 0) PetscCall(PCNeumannSetUpDeflation(pc));
  else PetscCall(PCNeumannFreeDeflation(jac));
  jac->nsetups++;
  PetscCall(PetscLogEventEnd(PC_NeuSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* flops of one tri pass: its triangle's entries multiply-add (and the scaling of x), the scaling of b, the update */
static PetscLogDouble PCNeumannTriFlops(const MSImageLayout *img, int scale_b, int scale_x)
{
  return (PetscLogDouble)img->noffdiag * (scale_x ? 1.5 : 1.0) + (scale_b ? 2.0 : 1.0) * (PetscLogDouble)img->m;
}

static PetscErrorCode PCNeumannTri(PC pc, int part, const PetscScalar *b, int scale_b, const PetscScalar *x, int scale_x, PetscScalar *y)
{
  PC_Neumann          *jac = (PC_Neumann *)pc->data;
  PCMSOperator        *op  = &jac->op;
  MSImageView          v;
  MSNeuSplit           S;
  const MSImageLayout *lay;
  void                *stream;
  int                  err;

  PetscFunctionBegin;
  PetscCall(PCMSOperatorGetView(op, 0, &v));
  PetscCall(PCNeumannSplitView(jac, part == MS_PART_LOWER ? 0 : 1, &v, &S));
  PetscCall(PCMSKernelBegin(op, &stream));
  PetscCall(MSImageGetLayout(op->img[0], &lay));
  err = jac->k->tri(&S, (const double *)jac->dinv.ptr, b, scale_b, x, scale_x, y, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, part == MS_PART_LOWER ? "tri (lower)" : "tri (upper)", PCNeumannTriFlops(lay, scale_b, scale_x)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = M^-1 x on the local arrays */
static PetscErrorCode PCNeumannSeries(PC pc, const PetscScalar *xa, PetscScalar *ya)
{
  PC_Neumann   *jac = (PC_Neumann *)pc->data;
  PCMSOperator *op  = &jac->op;
  PetscScalar  *w1 = (PetscScalar *)jac->w1.ptr, *w2 = (PetscScalar *)jac->w2.ptr;

  PetscFunctionBegin;
  switch (jac->type) {
  case PCNEUMANN_NEU1:
    PetscCall(PCNeumannTri(pc, MS_PART_LOWER, xa, 1, xa, 1, w1)); /* p = (I - G_L) D^-1 r */
    PetscCall(PCNeumannTri(pc, MS_PART_UPPER, w1, 0, w1, 0, ya)); /* z = (I - G_U) p */
    break;
  case PCNEUMANN_NEU2:
    PetscCall(PCNeumannTri(pc, MS_PART_LOWER, xa, 1, xa, 1, w1)); /* t = q - G_L q, q = D^-1 r */
    PetscCall(PCNeumannTri(pc, MS_PART_LOWER, xa, 1, w1, 0, w2)); /* p = q - G_L t */
    PetscCall(PCNeumannTri(pc, MS_PART_UPPER, w2, 0, w2, 0, w1)); /* t = p - G_U p */
    PetscCall(PCNeumannTri(pc, MS_PART_UPPER, w2, 0, w1, 0, ya)); /* z = p - G_U t */
    break;
  case PCNEUMANN_JACOBI: {
    void *stream;
    int   err;
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->scale((int)op->m, (const double *)jac->dinv.ptr, xa, ya, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "scale", (PetscLogDouble)op->m));
  } break;
  case PCNEUMANN_IP: /* one product with the image of the explicit matrix (it logs its flops) */
    PetscCall(PCMSImageMult(op, jac->ipimg, xa, NULL, ya));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* c = E^-1 Z^T (a - b) (b may be NULL), or with zta c = E^-1 Z^T (a - A b) from the stored Z^T A (one process), for the
   process's subdomains, where the PC computes */
static PetscErrorCode PCNeumannCoarse(PC pc, const PetscScalar *a, const PetscScalar *b, PetscBool zta)
{
  PC_Neumann   *jac = (PC_Neumann *)pc->data;
  PCMSOperator *op  = &jac->op;
  void         *stream;
  int           err;
  const double *g;
  MSNeuDefl     D;

  PetscFunctionBegin;
  PetscCheck(!zta || (jac->zta && b), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCNEUMANN: Z^T A is not stored");
  D.m        = (int)op->m;
  D.nsub     = (int)jac->nl;
  D.maxitems = (int)jac->maxitems;
  D.order    = jac->ordered ? (const int *)jac->order.ptr : NULL;
  D.off      = (const int *)jac->off.ptr;
  D.w        = jac->zta ? (const double *)jac->zw.ptr : NULL;
  D.xoff     = jac->zta ? (const int *)jac->xoff.ptr : NULL;
  D.xrow     = jac->zta ? (const int *)jac->xrow.ptr : NULL;
  D.xval     = jac->zta ? (const double *)jac->xval.ptr : NULL;
  D.work     = (double *)jac->work.ptr;
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->restrict_(&D, a, b, (int)zta, (double *)jac->gl.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "restrict", (zta ? 3.0 : (b ? 2.0 : 1.0)) * op->m + 2.0 * (zta ? jac->nx : 0)));
  if (op->mpi) { /* the subdomain sums of all processes (on the GPU: one device-to-host copy of nl values) */
    PetscCall(PCMSReadBack(op, jac->hgl, jac->gl.ptr, (size_t)jac->nl * sizeof(PetscScalar)));
    PetscCallMPI(MPI_Allgatherv(jac->hgl, (PetscMPIInt)jac->nl, MPIU_SCALAR, jac->hg, jac->counts, jac->displs, MPIU_SCALAR, PetscObjectComm((PetscObject)pc)));
    PetscCall(PCMSBufferUpload(op, &jac->g, jac->hg, (size_t)jac->nt * sizeof(PetscScalar), "PCNEUMANN's subdomain sums"));
    g = (const double *)jac->g.ptr;
  } else g = (const double *)jac->gl.ptr;
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->coarse((int)jac->nl, (int)jac->nt, (const double *)jac->einv.ptr, g, (double *)jac->c.ptr, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "coarse", 2.0 * jac->nl * jac->nt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = y + Z c */
static PetscErrorCode PCNeumannProlong(PC pc, const PetscScalar *y, PetscScalar *z)
{
  PC_Neumann   *jac = (PC_Neumann *)pc->data;
  PCMSOperator *op  = &jac->op;
  void         *stream;
  int           err;

  PetscFunctionBegin;
  PetscCall(PCMSKernelBegin(op, &stream));
  err = jac->k->prolong((int)op->m, (const int *)jac->sub.ptr, (const double *)jac->c.ptr, y, z, stream);
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "prolong", (PetscLogDouble)op->m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_Neumann(PC pc, Vec x, Vec y)
{
  PC_Neumann        *jac = (PC_Neumann *)pc->data;
  PCMSOperator      *op  = &jac->op;
  const PetscScalar *xa, *ta;
  PetscScalar       *ya;
  Vec                xu, yu;

  PetscFunctionBegin;
  PetscCheck(jac->nsetups, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCNEUMANN: the preconditioner is not set up");
  PetscCall(PetscLogEventBegin(PC_NeuApply, pc, x, y, 0));
  PetscCall(PCMSStageIn(op, 0, x, PETSC_TRUE, &xu));
  PetscCall(PCMSStageIn(op, 1, y, PETSC_FALSE, &yu));
  PetscCall(PCMSVecGetArrayRead(op, xu, &xa));
  PetscCall(PCMSVecGetArray(op, yu, PETSC_MEMORY_ACCESS_WRITE, &ya));
  PetscCall(PCNeumannSeries(pc, xa, ya));
  PetscCall(PCMSVecRestoreArray(op, yu, PETSC_MEMORY_ACCESS_WRITE, &ya));
  if (jac->defl) { /* A-DEF2: z = y + Z E^-1 Z^T (r - A y) */
    PetscCall(PetscLogEventBegin(PC_NeuDeflation, pc, 0, 0, 0));
    if (jac->zta) { /* one process: Z^T A y from the stored Z^T A, no product with A */
      PetscCall(PCMSVecGetArrayRead(op, yu, &ta));
      PetscCall(PCNeumannCoarse(pc, xa, ta, PETSC_TRUE));
      PetscCall(PCMSVecRestoreArrayRead(op, yu, &ta));
    } else {
      PetscCall(MatMult(pc->pmat, yu, jac->t));
      PetscCall(PCMSVecGetArrayRead(op, jac->t, &ta));
      PetscCall(PCNeumannCoarse(pc, xa, ta, PETSC_FALSE));
      PetscCall(PCMSVecRestoreArrayRead(op, jac->t, &ta));
    }
    PetscCall(PCMSVecGetArray(op, yu, PETSC_MEMORY_ACCESS_READ_WRITE, &ya));
    PetscCall(PCNeumannProlong(pc, ya, ya));
    PetscCall(PCMSVecRestoreArray(op, yu, PETSC_MEMORY_ACCESS_READ_WRITE, &ya));
    PetscCall(PetscLogEventEnd(PC_NeuDeflation, pc, 0, 0, 0));
  }
  PetscCall(PCMSVecRestoreArrayRead(op, xu, &xa));
  PetscCall(PCMSStageOut(y, yu));
  PetscCall(PetscLogEventEnd(PC_NeuApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* deflation: x0 <- x0 + Z E^-1 Z^T (b - A x0), so that the initial residual is orthogonal to Z */
static PetscErrorCode PCPreSolve_Neumann(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_Neumann        *jac = (PC_Neumann *)pc->data;
  PCMSOperator      *op  = &jac->op;
  PetscBool          nonzero;
  const PetscScalar *ra;
  PetscScalar       *xa;
  Vec                ru, xu;

  PetscFunctionBegin;
  jac->presolved = PETSC_FALSE;
  if (!jac->defl || !b || !x) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(PC_NeuDeflation, pc, 0, 0, 0));
  PetscCall(KSPGetInitialGuessNonzero(ksp, &nonzero));
  if (nonzero) {
    PetscCall(MatMult(pc->pmat, x, jac->t));
    PetscCall(VecAYPX(jac->t, -1.0, b));
  } else {
    PetscCall(VecCopy(b, jac->t));
    PetscCall(VecZeroEntries(x));
  }
  PetscCall(PCMSStageIn(op, 0, jac->t, PETSC_TRUE, &ru));
  PetscCall(PCMSStageIn(op, 1, x, PETSC_TRUE, &xu));
  PetscCall(PCMSVecGetArrayRead(op, ru, &ra));
  PetscCall(PCNeumannCoarse(pc, ra, NULL, PETSC_FALSE));
  PetscCall(PCMSVecRestoreArrayRead(op, ru, &ra));
  PetscCall(PCMSVecGetArray(op, xu, PETSC_MEMORY_ACCESS_READ_WRITE, &xa));
  PetscCall(PCNeumannProlong(pc, xa, xa));
  PetscCall(PCMSVecRestoreArray(op, xu, PETSC_MEMORY_ACCESS_READ_WRITE, &xa));
  PetscCall(PCMSStageOut(x, xu));
  jac->saved_nonzero = nonzero;
  jac->presolved     = PETSC_TRUE;
  PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  PetscCall(PetscLogEventEnd(PC_NeuDeflation, pc, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCPostSolve_Neumann(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  (void)b;
  (void)x;
  if (jac->presolved) PetscCall(KSPSetInitialGuessNonzero(ksp, jac->saved_nonzero));
  jac->presolved = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_Neumann(PC pc)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCNeumannFreeDeflation(jac));
  PetscCall(PCNeumannFreeSplit(jac));
  PetscCall(MatDestroy(&jac->ipmat));
  PetscCall(MSImageDestroy(&jac->ipimg));
  PetscCall(PCMSBufferDestroy(&jac->dinv));
  PetscCall(PCMSBufferDestroy(&jac->status));
  PetscCall(PCMSBufferDestroy(&jac->w1));
  PetscCall(PCMSBufferDestroy(&jac->w2));
  PetscCall(PCMSOperatorReset(&jac->op));
  jac->nsetups = 0;
  jac->warned  = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_Neumann(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_Neumann   *jac  = (PC_Neumann *)pc->data;
  PCNeumannType type = jac->type;
  PetscReal     drop = jac->ip_drop;
  PetscInt      n = jac->defl_n, bs = jac->defl_bs;
  PetscBool     flg, warn = jac->warn;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Neumann-series / Incomplete Poisson options");
  PetscCall(PetscOptionsEnum("-pc_neumann_type", "neu1: (I - U~)(I - L~); neu2: (I - U~ + U~^2)(I - L~ + L~^2); ip: scaled Incomplete Poisson (I - L~)(I - U~), explicit; jacobi: D^-1", "PCNeumannSetType", PCNeumannTypes, (PetscEnum)type, (PetscEnum *)&type, &flg));
  if (flg) PetscCall(PCNeumannSetType(pc, type));
  PetscCall(PetscOptionsReal("-pc_neumann_ip_drop", "ip: drop the entries of the scaled (I - L~)(I - L~^T) below this in absolute value (the diagonal is kept)", "PCNeumannSetIPDrop", drop, &drop, &flg));
  if (flg) PetscCall(PCNeumannSetIPDrop(pc, drop));
  PetscCall(PetscOptionsInt("-pc_neumann_deflation_subdomains", "Subdomain deflation: n subdomains per axis of the DMDA's local box (n^3 locality blocks per process for other operators); 0: no deflation", "PCNeumannSetDeflation", n, &n, NULL));
  PetscCall(PetscOptionsInt("-pc_neumann_deflation_block_size", "Subdomain deflation on locality blocks of this many rows (any operator); 0: from -pc_neumann_deflation_subdomains", "PCNeumannSetDeflation", bs, &bs, NULL));
  PetscCall(PCNeumannSetDeflation(pc, n, bs));
  PetscCall(PetscOptionsBool("-pc_neumann_deflation_contiguous", "Without a DMDA: subdomains of consecutive rows (the paper's stripe-wise vectors; no partition computed) instead of locality blocks", "", jac->defl_contig, &jac->defl_contig, NULL));
  PetscCall(PetscOptionsBool("-pc_neumann_warn", "Print a warning (once) when ||L~||_inf >= 1 (the Neumann series need not converge)", "", warn, &warn, NULL));
  jac->warn = warn;
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_Neumann(PC pc, PetscViewer viewer)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;
  PetscBool   isascii;
  const char *where, *image;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  type %s: %s\n", PCNeumannTypes[jac->type],
                                   jac->type == PCNEUMANN_NEU1 ? "M^-1 = D^-1/2 (I - U~)(I - L~) D^-1/2 (Gupta, van Gijzen and Vuik (2011), eq. 15)" : (jac->type == PCNEUMANN_NEU2 ? "M^-1 = D^-1/2 (I - U~ + U~^2)(I - L~ + L~^2) D^-1/2 (Gupta, van Gijzen and Vuik (2011), eq. 16)" : (jac->type == PCNEUMANN_IP ? "M^-1 = D^-1/2 drop((I - L~)(I - U~)) D^-1/2, explicit (Gupta, van Gijzen and Vuik (2011), eq. 7 on the scaled operator)" : "M^-1 = D^-1 (the series' first term: Jacobi, for comparisons with deflation)"))));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  scaling: A~ = D^-1/2 A D^-1/2 = I + L~ + U~ per process on its diagonal block (not formed: folded into the kernels)\n"));
  if (jac->type == PCNEUMANN_IP) PetscCall(PetscViewerASCIIPrintf(viewer, "  ip drop tolerance %g\n", (double)jac->ip_drop));
  if (jac->defl_n > 0 || jac->defl_bs > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "  deflation requested: %" PetscInt_FMT " subdomains per axis, block size %" PetscInt_FMT "\n", jac->defl_n, jac->defl_bs));
  if (!jac->nsetups) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  (not set up yet)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCMSOperatorDescribe(&jac->op, &where, &image));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  ||L~||_inf of the scaled strictly lower part: %g%s\n", (double)jac->lnorm, jac->lnorm >= 1.0 ? " >= 1: the Neumann series need not converge" : " < 1"));
  if (jac->type == PCNEUMANN_NEU1 || jac->type == PCNEUMANN_NEU2) {
    const MSImageLayout *lay = NULL;
    PetscInt64           sl[3];

    if (jac->op.img[0]) PetscCall(MSImageGetLayout(jac->op.img[0], &lay));
    sl[0] = jac->sslots[0];
    sl[1] = jac->sslots[1];
    sl[2] = lay ? (PetscInt64)lay->noffdiag : 0;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, sl, 3, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)pc)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  split copies of D^-1 L and D^-1 U (read by the passes instead of the image): %" PetscInt64_FMT " + %" PetscInt64_FMT " slots for %" PetscInt64_FMT " off-diagonal entries, %g MiB\n", sl[0], sl[1], sl[2], (double)((sl[0] + sl[1]) * (sizeof(int) + sizeof(PetscScalar))) / 1048576.0));
  }
  if (jac->type == PCNEUMANN_IP) {
    PetscInt64 nz[2] = {jac->ipnnz, jac->ipnnz_full};
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, nz, 2, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)pc)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  ip: %" PetscInt64_FMT " nonzeros kept of %" PetscInt64_FMT " in (I - L~)(I - L~^T)\n", nz[0], nz[1]));
  }
  if (jac->defl) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  deflation (A-DEF2, initial residual made orthogonal to Z): %" PetscInt_FMT " subdomains in all (%s), coarse matrix E = Z^T A Z of size %" PetscInt_FMT ", inverse stored dense\n", jac->nt, jac->defl_kind, jac->nt));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  deflation setup on the %s (process 0): subdomains %.4f s, E and Z^T A %.4f s, coarse factorization %.4f s\n", jac->defl_device ? "GPU" : "host", (double)jac->tdefl[0], (double)jac->tdefl[1], (double)jac->tdefl[2]));
    if (jac->zta) PetscCall(PetscViewerASCIIPrintf(viewer, "  Z^T A stored (%" PetscInt_FMT " entries outside the columns' own subdomains): Z^T A y without a product with A\n", jac->nx));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  Z^T A y through a product with A (several processes)\n"));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "  no deflation\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  computed on the %s, reading %s\n", where, image));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* public interface                                                                                */

static PetscErrorCode PCNeumannSetType_Neumann(PC pc, PCNeumannType type)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  if (jac->type != type) {
    jac->type = type;
    pc->setupcalled = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetType - Sets the preconditioner `PCNEUMANN` applies

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- type - `PCNEUMANN_NEU1`, `PCNEUMANN_NEU2` (default), `PCNEUMANN_IP` or `PCNEUMANN_JACOBI`

  Options Database Key:
. -pc_neumann_type <neu1,neu2,ip,jacobi> - the type

  Level: intermediate

.seealso: [](ch_ksp), `PCNEUMANN`, `PCNeumannGetType()`
@*/
PetscErrorCode PCNeumannSetType(PC pc, PCNeumannType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscCheck(type >= PCNEUMANN_NEU1 && type <= PCNEUMANN_JACOBI, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCNEUMANN: unknown type %d (neu1, neu2, ip or jacobi)", (int)type);
  PetscTryMethod(pc, "PCNeumannSetType_C", (PC, PCNeumannType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetType_Neumann(PC pc, PCNeumannType *type)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  *type = jac->type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetType - Gets the preconditioner `PCNEUMANN` applies

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the type

  Level: intermediate

.seealso: [](ch_ksp), `PCNEUMANN`, `PCNeumannSetType()`
@*/
PetscErrorCode PCNeumannGetType(PC pc, PCNeumannType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(type, 2);
  PetscUseMethod(pc, "PCNeumannGetType_C", (PC, PCNeumannType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetIPDrop_Neumann(PC pc, PetscReal drop)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  if (jac->ip_drop != drop) {
    jac->ip_drop    = drop;
    pc->setupcalled = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetIPDrop - Sets the drop tolerance of the explicit scaled Incomplete Poisson matrix of `PCNEUMANN`

  Logically Collective

  Input Parameters:
+ pc   - the preconditioner context
- drop - entries of (I - L~)(I - L~^T) (scaled operator) below this in absolute value are dropped, the diagonal is
         kept (default 0.1: for the scaled 5-point Laplacian this keeps the pattern of A, as in Gupta, van Gijzen and Vuik (2011))

  Options Database Key:
. -pc_neumann_ip_drop <0.1> - the tolerance

  Level: intermediate

.seealso: [](ch_ksp), `PCNEUMANN`, `PCNeumannGetIPDrop()`
@*/
PetscErrorCode PCNeumannSetIPDrop(PC pc, PetscReal drop)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, drop, 2);
  PetscCheck(drop >= 0.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCNEUMANN: the drop tolerance %g must be nonnegative (0 keeps every entry)", (double)drop);
  PetscTryMethod(pc, "PCNeumannSetIPDrop_C", (PC, PetscReal), (pc, drop));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetIPDrop_Neumann(PC pc, PetscReal *drop)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  *drop = jac->ip_drop;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetIPDrop - Gets the drop tolerance of the explicit scaled Incomplete Poisson matrix of `PCNEUMANN`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. drop - the tolerance

  Level: intermediate

.seealso: [](ch_ksp), `PCNEUMANN`, `PCNeumannSetIPDrop()`
@*/
PetscErrorCode PCNeumannGetIPDrop(PC pc, PetscReal *drop)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(drop, 2);
  PetscUseMethod(pc, "PCNeumannGetIPDrop_C", (PC, PetscReal *), (pc, drop));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannSetDeflation_Neumann(PC pc, PetscInt n, PetscInt bs)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  if (jac->defl_n != n || jac->defl_bs != bs) {
    jac->defl_n     = n;
    jac->defl_bs    = bs;
    pc->setupcalled = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannSetDeflation - Sets the subdomain deflation of `PCNEUMANN`

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
. n  - subdomains per axis of each process's local box for an operator created by a `DMDA` (n^d boxes), or n^3
       locality blocks per process for other operators; 0: no deflation (default)
- bs - locality blocks of this many rows per subdomain, for any operator (overrides `n`); 0: from `n`

  Options Database Keys:
+ -pc_neumann_deflation_subdomains <n> - subdomains per axis
- -pc_neumann_deflation_block_size <bs> - rows per locality block

  Level: intermediate

.seealso: [](ch_ksp), `PCNEUMANN`, `PCNeumannGetDeflation()`, `PCDEFLATION`
@*/
PetscErrorCode PCNeumannSetDeflation(PC pc, PetscInt n, PetscInt bs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, n, 2);
  PetscValidLogicalCollectiveInt(pc, bs, 3);
  PetscCheck(n >= 0 && bs >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCNEUMANN: the deflation subdomains per axis (%" PetscInt_FMT ") and block size (%" PetscInt_FMT ") must be nonnegative (0: off)", n, bs);
  PetscCheck(n <= 1024, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCNEUMANN: %" PetscInt_FMT " subdomains per axis is too many for a dense coarse matrix", n);
  PetscTryMethod(pc, "PCNeumannSetDeflation_C", (PC, PetscInt, PetscInt), (pc, n, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetDeflation_Neumann(PC pc, PetscInt *n, PetscInt *bs, PetscInt *nsub)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  if (n) *n = jac->defl_n;
  if (bs) *bs = jac->defl_bs;
  if (nsub) *nsub = jac->defl ? jac->nt : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetDeflation - Gets the subdomain deflation settings of `PCNEUMANN` and, after a setup, the coarse size

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ n    - subdomains per axis, or `NULL`
. bs   - rows per locality block, or `NULL`
- nsub - the number of subdomains over all processes in the last setup (0: no deflation), or `NULL`

  Level: intermediate

.seealso: [](ch_ksp), `PCNEUMANN`, `PCNeumannSetDeflation()`
@*/
PetscErrorCode PCNeumannGetDeflation(PC pc, PetscInt *n, PetscInt *bs, PetscInt *nsub)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCNeumannGetDeflation_C", (PC, PetscInt *, PetscInt *, PetscInt *), (pc, n, bs, nsub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetSubdomains_Neumann(PC pc, IS *sub)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;
  PetscInt   *idx;
  int        *s32;
  PetscInt    m;

  PetscFunctionBegin;
  PetscCheck(jac->defl, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCNEUMANN: set up the preconditioner with deflation first (PCNeumannSetDeflation(), PCSetUp())");
  m = jac->op.m;
  PetscCall(PetscMalloc1(PetscMax(m, 1), &idx));
  PetscCall(PetscMalloc1(PetscMax(m, 1), &s32));
  if (m) PetscCall(PCMSReadBack(&jac->op, s32, jac->sub.ptr, sizeof(int) * (size_t)m));
  for (PetscInt o = 0; o < m; o++) idx[o] = jac->noff + s32[o];
  PetscCall(PetscFree(s32));
  PetscCall(ISCreateGeneral(PetscObjectComm((PetscObject)pc), m, idx, PETSC_OWN_POINTER, sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetSubdomains - Gets the subdomain of every local row in the deflation of `PCNEUMANN` (the last setup)

  Collective

  Input Parameter:
. pc - the preconditioner context, set up with deflation

  Output Parameter:
. sub - an `IS` on the preconditioner's communicator, one entry per local row: the global number of the row's subdomain
        (the subdomains of process p are numbered after those of processes 0 .. p-1); destroy it with `ISDestroy()`

  Level: developer

  Note:
  On the GPU the subdomains live in device memory; this copies them to the host.

.seealso: [](ch_ksp), `PCNEUMANN`, `PCNeumannSetDeflation()`, `PCNeumannGetCoarseMatrix()`
@*/
PetscErrorCode PCNeumannGetSubdomains(PC pc, IS *sub)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(sub, 2);
  PetscUseMethod(pc, "PCNeumannGetSubdomains_C", (PC, IS *), (pc, sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetCoarseMatrix_Neumann(PC pc, Mat *E)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;
  PetscScalar *a;
  PetscInt     lda;

  PetscFunctionBegin;
  PetscCheck(jac->defl, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCNEUMANN: set up the preconditioner with deflation first (PCNeumannSetDeflation(), PCSetUp())");
  PetscCall(MatCreateDense(PetscObjectComm((PetscObject)pc), jac->nl, PETSC_DECIDE, jac->nt, jac->nt, NULL, E));
  PetscCall(MatDenseGetLDA(*E, &lda));
  PetscCall(MatDenseGetArrayWrite(*E, &a));
  for (PetscInt i = 0; i < jac->nl; i++)
    for (PetscInt j = 0; j < jac->nt; j++) a[i + j * lda] = jac->Eh[(size_t)i * jac->nt + j];
  PetscCall(MatDenseRestoreArrayWrite(*E, &a));
  PetscCall(MatAssemblyBegin(*E, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*E, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetCoarseMatrix - Gets a copy of the coarse matrix E = Z^T A Z of the deflation of `PCNEUMANN` (the last setup)

  Collective

  Input Parameter:
. pc - the preconditioner context, set up with deflation

  Output Parameter:
. E - a `MATDENSE` matrix on the preconditioner's communicator, of size the number of subdomains over all processes,
      each process holding the rows of its subdomains (numbered as in `PCNeumannGetSubdomains()`); destroy it with
      `MatDestroy()`

  Level: developer

  Note:
  E is computed where the preconditioner computes (on the GPU for a device operator, in an order of the additions that
  makes it equal bit for bit to the host's), factored on the host; the copy is the matrix before the factorization.

.seealso: [](ch_ksp), `PCNEUMANN`, `PCNeumannSetDeflation()`, `PCNeumannGetSubdomains()`
@*/
PetscErrorCode PCNeumannGetCoarseMatrix(PC pc, Mat *E)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(E, 2);
  PetscUseMethod(pc, "PCNeumannGetCoarseMatrix_C", (PC, Mat *), (pc, E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCNeumannGetLowerNorm_Neumann(PC pc, PetscReal *norm)
{
  PC_Neumann *jac = (PC_Neumann *)pc->data;

  PetscFunctionBegin;
  PetscCheck(jac->nsetups, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCNEUMANN: call PCSetUp() first");
  *norm = jac->lnorm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCNeumannGetLowerNorm - Gets ||L~||_inf, the infinity norm of the strictly lower part of the diagonally scaled
  operator (max over the processes' diagonal blocks), computed by the last setup; the Neumann series of
  (I + L~)^-1 converges when it is below 1

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameter:
. norm - the norm

  Level: intermediate

.seealso: [](ch_ksp), `PCNEUMANN`
@*/
PetscErrorCode PCNeumannGetLowerNorm(PC pc, PetscReal *norm)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(norm, 2);
  PetscUseMethod(pc, "PCNeumannGetLowerNorm_C", (PC, PetscReal *), (pc, norm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the methods of the public Set/Get functions (PetscTryMethod, PetscUseMethod) */
static const PCMSMethod PCNeumannMethods[] = {
  {"PCNeumannSetType_C", (PetscErrorCodeFn *)PCNeumannSetType_Neumann},
  {"PCNeumannGetType_C", (PetscErrorCodeFn *)PCNeumannGetType_Neumann},
  {"PCNeumannSetIPDrop_C", (PetscErrorCodeFn *)PCNeumannSetIPDrop_Neumann},
  {"PCNeumannGetIPDrop_C", (PetscErrorCodeFn *)PCNeumannGetIPDrop_Neumann},
  {"PCNeumannSetDeflation_C", (PetscErrorCodeFn *)PCNeumannSetDeflation_Neumann},
  {"PCNeumannGetDeflation_C", (PetscErrorCodeFn *)PCNeumannGetDeflation_Neumann},
  {"PCNeumannGetSubdomains_C", (PetscErrorCodeFn *)PCNeumannGetSubdomains_Neumann},
  {"PCNeumannGetCoarseMatrix_C", (PetscErrorCodeFn *)PCNeumannGetCoarseMatrix_Neumann},
  {"PCNeumannGetLowerNorm_C", (PetscErrorCodeFn *)PCNeumannGetLowerNorm_Neumann},
};

static PetscErrorCode PCDestroy_Neumann(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_Neumann(pc));
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCNeumannMethods), PCNeumannMethods, PETSC_FALSE));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCNEUMANN - "neumann" - truncated Neumann-series (Neu1, Neu2) and scaled Incomplete Poisson preconditioners on the
   diagonally scaled operator, with optional subdomain deflation (Gupta, van Gijzen and Vuik (2011)), computed on the
   GPU when the operator lives there

   Options Database Keys:
+  -pc_neumann_type <neu2>                  - neu1, neu2, ip, or jacobi (D^-1: the first term, for comparisons with deflation)
.  -pc_neumann_ip_drop <0.1>                - ip: drop tolerance on the scaled explicit matrix
.  -pc_neumann_deflation_subdomains <0>     - subdomain deflation: n per axis (DMDA operators), n^3 locality blocks (others)
.  -pc_neumann_deflation_block_size <0>     - subdomain deflation on locality blocks of this many rows
.  -pc_neumann_deflation_contiguous <false> - subdomains of consecutive rows instead of locality blocks (no DMDA)
-  -pc_neumann_warn <true>                  - print a warning once when ||L~||_inf >= 1

   Level: intermediate

   Notes:
   With A~ = D^-1/2 A D^-1/2 = I + L~ + U~ (L~ strictly lower, U~ = L~^T for symmetric A) the preconditioners are
   neu1: M^-1 = D^-1/2 (I - U~)(I - L~) D^-1/2, neu2: D^-1/2 (I - U~ + U~^2)(I - L~ + L~^2) D^-1/2 (truncations of the
   Neumann series of (I + L~)^-1, which converges when ||L~||_inf < 1), ip: D^-1/2 (I - L~)(I - L~^T) D^-1/2 stored
   explicitly with small entries dropped. The user's matrix is not modified: the scaling is folded into the kernels,
   which read the operator's modified Sliced ELLPACK image (the `MATMODSELL` image, or one the preconditioner builds for
   other AIJ matrices). All three are symmetric for a symmetric operator, so `KSPCG` applies. On several processes
   each process works on its diagonal block (block Jacobi across processes).

   With deflation the preconditioner is the two-level A-DEF2 form z = y + Z E^-1 Z^T (r - A y), y = M^-1 r, with Z
   piecewise constant on subdomains and E = Z^T A Z inverted once per setup; `PCPreSolve()` corrects the initial guess
   so that the initial residual is orthogonal to Z, where A-DEF2 coincides with the symmetric BNN preconditioner
   (docs/neumann.md). Use it as the preconditioner of the outer `KSP` (its `PCPreSolve()` is then called).

   A zero, negative or missing diagonal entry is an error naming the row.

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCJACOBI`, `PCDEFLATION`, `PCNeumannSetType()`, `PCNeumannSetIPDrop()`, `PCNeumannSetDeflation()`, `PCNeumannGetLowerNorm()`, `PCNeumannGetSubdomains()`, `PCNeumannGetCoarseMatrix()`, `MATMODSELL`
M*/
static PetscErrorCode PCCreate_Neumann(PC pc)
{
  PC_Neumann *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data     = (void *)jac;
  jac->type    = PCNEUMANN_NEU2;
  jac->ip_drop = 0.1;
  jac->warn    = PETSC_TRUE;

  pc->ops->apply          = PCApply_Neumann;
  pc->ops->setup          = PCSetUp_Neumann;
  pc->ops->reset          = PCReset_Neumann;
  pc->ops->destroy        = PCDestroy_Neumann;
  pc->ops->setfromoptions = PCSetFromOptions_Neumann;
  pc->ops->view           = PCView_Neumann;
  pc->ops->presolve       = PCPreSolve_Neumann;
  pc->ops->postsolve      = PCPostSolve_Neumann;
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCNeumannMethods), PCNeumannMethods, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Registration and log events (called from PetscModSELLRegisterPCs_Private()) */
PETSC_INTERN PetscErrorCode PCRegister_Neumann_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCNEUMANN, PCCreate_Neumann));
  PetscCall(PetscLogEventRegister("PCNeumannSetUp", PC_CLASSID, &PC_NeuSetUp));
  PetscCall(PetscLogEventRegister("PCNeumannApply", PC_CLASSID, &PC_NeuApply));
  PetscCall(PetscLogEventRegister("PCNeumannDefl", PC_CLASSID, &PC_NeuDeflation));
  PetscCall(PetscLogEventRegister("PCNeumannDeflSetUp", PC_CLASSID, &PC_NeuDeflSetUp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
