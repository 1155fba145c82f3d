/*
   PCRUIZ: Ruiz equilibration (paper 000, section 5.4, Algorithm 4) used as a diagonal preconditioner.

   Setup finds inverse scalings sr = D_r^-1, sc = D_c^-1 (sr = sc = D^-1 in symmetric mode) such that the
   rows (and columns) of B = D_r^-1 A D_c^-1 have unit p-norm, by the Ruiz iteration
       n_i = ||B_i,:||_p,  c_j = ||B_:,j||_p,   sr_i <- sr_i / sqrt(n_i),  sc_j <- sc_j / sqrt(c_j)
   (symmetric mode: rows only, one scaling). The operator is never modified: every sweep reads a_ij
   from the mod-SELL image (MATMODSELL's own image, or one this PC builds for other AIJ operators) and
   computes |a_ij| sr_i sc_j on the fly. Sweep k measures the deviation max |1 - norm| of the scaling
   D_k (on checking sweeps: the first, every check_every-th and the max_it-th) and produces D_{k+1};
   the iteration stops at the first checking sweep whose deviation is <= tol (or at sweep max_it) and
   keeps D_k: the reported deviation is exactly that of the returned scaling. Sweeps = passes over
   the matrix; the scaling was updated sweeps - 1 times.

   Apply: z = sr .* sc .* r (D^-2 r, or D_c^-1 D_r^-1 r); PCApplySymmetricLeft/Right: D_r^-1, D_c^-1.

   MPI: A = [Ad | Ao] on each process (MatMPIAIJGetSeqAIJ). Each sweep scatters the column scalings
   to the ghost vector (overlapped with the pass over Ad), the pass over Ad leaves partial row
   accumulations that the pass over Ao finishes; in nonsymmetric mode the column accumulations of Ao
   (ghost columns) are sent back to their owners with a reverse scatter (ADD, or MAX for p = infinity).

   Host (reference) and device (ruiz.cu) compute the same function; see ruizcuda.h for the notation.
*/
#include <petscmodsell/private/modsellimpl.h>
#include <petscmodsell/private/ruizcuda.h>
#include <petsctime.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

static PetscLogEvent PC_RuizSweep = 0, PC_RuizCheck = 0, PC_RuizApply = 0;

typedef struct {
  PetscReal          dev;
  unsigned long long badrow, badcol; /* local keys index*4 + code, MS_RUIZ_BAD_NONE when none */
} PCRuizStatus;

typedef struct {
  /* options */
  NormType   norm;
  PetscReal  tol;
  PetscInt   max_it, check_every;
  PetscBool3 symmetric_opt;

  /* what the last setup did */
  PetscBool      symmetric, symmetric_auto, device, mpi, own_image, converged;
  PetscInt       sweeps;
  PetscReal      deviation;
  PetscLogDouble setup_time;
  PetscInt       nsetups;

  /* structure, reused while the operator keeps its pattern */
  PetscObjectId    matid, aoid;
  PetscObjectState matnz;
  MSImage          own[2]; /* own images of the diagonal and off-diagonal blocks (NULL: unused) */
  VecScatter       scat;   /* global column scaling -> ghost vector (MPI) */
  Vec              s[2];   /* inverse row scaling (symmetric: the only one), double buffered */
  Vec              c[2];   /* inverse column scaling (nonsymmetric) */
  Vec              ghost;  /* ghost column scalings (MPI) */
  Vec              racc;   /* partial row accumulations (MPI) */
  Vec              cacc;   /* column accumulations (nonsymmetric) */
  Vec              cghost; /* column accumulations of the ghost columns (nonsymmetric, MPI) */

  /* the result */
  Vec       isr, isc; /* inverse scalings D_r^-1, D_c^-1 (references to s[], c[]) */
  Vec       w;        /* isr .* isc: the preconditioner (nonsymmetric mode; symmetric applies isr twice) */
  Vec       Dr, Dc;   /* D_r, D_c (Dc == Dr in symmetric mode), computed on request (PCRuizGetScaling()) */
  PetscBool dr_valid; /* Dr, Dc hold the reciprocals of the current isr, isc */

  PCRuizStatus hstatus;
  void        *d_status; /* MSRuizCUDAStatus on the device */
} PC_Ruiz;

static inline int PCRuizPCode(NormType t)
{
  return t == NORM_1 ? MS_RUIZ_P1 : (t == NORM_2 ? MS_RUIZ_P2 : MS_RUIZ_PINF);
}

/* the norms PCRUIZ equilibrates in (-pc_ruiz_norm offers only these), in the order of PCRuizNorms[] */
static const char *const PCRuizNorms[]     = {"1", "2", "infinity"};
static const NormType    PCRuizNormTypes[] = {NORM_1, NORM_2, NORM_INFINITY};

static const char *PCRuizNormName(NormType t)
{
  return t == NORM_1 ? "1" : (t == NORM_2 ? "2" : "infinity");
}

/* ---------------------------------------------------------------------------------------------- */
/* host reference: the same arithmetic, in the same order, as rz_rows_kernel / rz_cols_kernel      */

static inline PetscReal RzPw(int p, PetscReal v)
{
  return p == MS_RUIZ_P2 ? v * v : v;
}

static inline PetscReal RzComb(int p, PetscReal acc, PetscReal t)
{
  if (p == MS_RUIZ_PINF) return (t > acc || t != t) ? t : acc;
  return acc + t;
}

static inline PetscReal RzRoot(int p, PetscReal a)
{
  return p == MS_RUIZ_P2 ? PetscSqrtReal(a) : a;
}

static inline PetscReal RzMaxNaN(PetscReal a, PetscReal b)
{
  return (a > b || a != a) ? a : b;
}

static inline void RzBad(unsigned long long *key, PetscInt i, int code)
{
  const unsigned long long k = (unsigned long long)i * 4ULL + (unsigned long long)code;
  if (k < *key) *key = k;
}

static void PCRuizRowPassHost(MSImage img, PetscBool diagblock, int p, const PetscScalar *sr, const PetscScalar *sc, const PetscScalar *acc_in, PetscScalar *acc_out, PetscScalar *sr_new, PetscScalar *colacc, PetscBool check, PetscBool first, PetscBool checkdiag, PCRuizStatus *st)
{
  const PetscInt sh = img->sh, m = img->m;

  for (PetscInt s = 0; s < img->nslices; s++) {
    const PetscInt   first_row = s * sh, nr = PetscMin(sh, m - first_row);
    const PetscInt64 beg       = img->sliceptr[s];
    const PetscInt   w         = (PetscInt)((img->sliceptr[s + 1] - beg) / sh);

    for (PetscInt t = 0; t < nr; t++) {
      const PetscInt r = first_row + t, o = img->perm ? img->perm[r] : r;
      PetscReal      acc = acc_in ? acc_in[o] : 0.0, dval = 0.0;

      if (img->diag) {
        const PetscReal a = img->diag[r], v = PetscAbsReal(a);
        dval = a;
        acc  = RzComb(p, acc, RzPw(p, v * (sc ? sc[o] : 1.0)));
        if (colacc) colacc[o] = RzComb(p, colacc[o], RzPw(p, v * (sr ? sr[o] : 1.0)));
      }
      for (PetscInt k = 0; k < w; k++) {
        const PetscInt64 slot = beg + (PetscInt64)k * sh + t;
        const int        c    = img->cols[slot];
        PetscInt         j;
        PetscReal        a, v;

        if (!c) continue;
        a = img->vals[slot];
        v = PetscAbsReal(a);
        if (c < 0) {
          const PetscInt q = -c - 1;
          j                = img->perm ? img->perm[first_row + q] : first_row + q;
          if (diagblock && q == t) dval = a;
        } else {
          j = c - 1;
          if (diagblock && j == o) dval = a;
        }
        acc = RzComb(p, acc, RzPw(p, v * (sc ? sc[j] : 1.0)));
        if (colacc) colacc[j] = RzComb(p, colacc[j], RzPw(p, v * (sr ? sr[o] : 1.0)));
      }
      if (acc_out) acc_out[o] = acc;
      else {
        const PetscReal sro = sr ? sr[o] : 1.0, n = sro * RzRoot(p, acc);
        sr_new[o]         = sro / PetscSqrtReal(n);
        if (check) st->dev = RzMaxNaN(st->dev, PetscAbsReal(1.0 - n));
        if (first) {
          if (PetscIsInfOrNanReal(n)) RzBad(&st->badrow, o, MS_RUIZ_BAD_NONFINITE);
          else if (n == 0.0) RzBad(&st->badrow, o, MS_RUIZ_BAD_ZERO);
        }
      }
      if (first && checkdiag && diagblock && !(dval > 0.0)) RzBad(&st->badrow, o, MS_RUIZ_BAD_DIAG);
    }
  }
}

static void PCRuizColPassHost(PetscInt n, int p, const PetscScalar *sc, const PetscScalar *cacc, PetscScalar *sc_new, PetscBool check, PetscBool first, PCRuizStatus *st)
{
  for (PetscInt j = 0; j < n; j++) {
    const PetscReal scj = sc ? sc[j] : 1.0, c = scj * RzRoot(p, cacc[j]);
    sc_new[j]           = scj / PetscSqrtReal(c);
    if (check) st->dev = RzMaxNaN(st->dev, PetscAbsReal(1.0 - c));
    if (first) {
      if (PetscIsInfOrNanReal(c)) RzBad(&st->badcol, j, MS_RUIZ_BAD_NONFINITE);
      else if (c == 0.0) RzBad(&st->badcol, j, MS_RUIZ_BAD_ZERO);
    }
  }
}

/* flops of one pass over an image: per stored entry |a| * s (and the square for p = 2) and the
   accumulation, once for the rows and once more for the columns; per finished row root, product,
   square root, division and deviation */
static PetscLogDouble PCRuizPassFlops(MSImage img, int p, PetscBool cols, PetscBool finish)
{
  const PetscLogDouble nz = (PetscLogDouble)img->noffdiag + (img->diag ? (PetscLogDouble)img->m : 0.0);
  const PetscLogDouble fe = p == MS_RUIZ_P2 ? 3.0 : 2.0;
  return nz * fe * (cols ? 2.0 : 1.0) + (finish ? 5.0 * (PetscLogDouble)img->m : 0.0);
}

/* ---------------------------------------------------------------------------------------------- */
/* device glue (compiled only with CUDA): raw device pointers to the kernels of ruiz.cu            */

#if defined(PETSC_HAVE_CUDA)
static PetscErrorCode PCRuizRowPassDevice(PC_Ruiz *jac, MSImage img, PetscBool diagblock, int p, const PetscScalar *sr, const PetscScalar *sc, const PetscScalar *acc_in, PetscScalar *acc_out, PetscScalar *sr_new, PetscScalar *colacc, PetscBool check, PetscBool first, PetscBool checkdiag)
{
  MSRuizCUDAImage di;
  cudaStream_t    stream;

  PetscFunctionBegin;
  PetscCheck(img->dev_pattern || !img->m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCRUIZ: the device image of the operator is not set up");
  di.m          = (int)img->m;
  di.sh         = (int)img->sh;
  di.nslices    = (int)img->nslices;
  di.sliceptr   = (const long long *)img->d_sliceptr;
  di.cols       = (const int *)img->d_cols;
  di.vals       = (const double *)img->d_vals;
  di.diag       = (const double *)img->d_diag;
  di.perm       = (const int *)img->d_perm;
  di.local_cols = (int)(img->local_cols && img->m == img->n);
  di.diag_block = (int)diagblock;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSRuizCUDARowPass(&di, p, sr, sc, acc_in, acc_out, sr_new, colacc, (int)check, (int)first, (int)checkdiag, (MSRuizCUDAStatus *)jac->d_status, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(PCRuizPassFlops(img, p, (PetscBool)(colacc != NULL), (PetscBool)(acc_out == NULL))));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizColPassDevice(PC_Ruiz *jac, PetscInt n, int p, const PetscScalar *sc, const PetscScalar *cacc, PetscScalar *sc_new, PetscBool check, PetscBool first)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSRuizCUDAColPass((int)n, p, sc, cacc, sc_new, (int)check, (int)first, (MSRuizCUDAStatus *)jac->d_status, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops(5.0 * n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizResetStatusDevice(PC_Ruiz *jac, PetscBool first)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  if (!jac->d_status) PetscCall(MSDeviceMalloc(&jac->d_status, sizeof(MSRuizCUDAStatus), "PCRUIZ's status"));
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA((cudaError_t)MSRuizCUDAResetStatus((MSRuizCUDAStatus *)jac->d_status, (int)first, stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the only device -> host transfer of the iteration: 24 bytes on checking sweeps */
static PetscErrorCode PCRuizReadStatusDevice(PC_Ruiz *jac, PCRuizStatus *st)
{
  MSRuizCUDAStatus h;
  cudaStream_t     stream;
  double           dev;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaMemcpyAsync(&h, jac->d_status, sizeof(h), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)sizeof(h)));
  PetscCall(PetscMemcpy(&dev, &h.dev, sizeof(dev)));
  st->dev    = dev;
  st->badrow = h.badrow;
  st->badcol = h.badcol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizApplyDevice(PetscInt n, const PetscScalar *a, PetscBool square, const PetscScalar *x, PetscScalar *y)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(PetscLogGpuTimeBegin());
  PetscCallCUDA((cudaError_t)MSRuizCUDAPointwiseMult((int)n, a, (int)square, x, y, stream));
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(PetscLogGpuFlops((PetscLogDouble)(square ? 2 * n : n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizSyncDevice(void)
{
  cudaStream_t stream;

  PetscFunctionBegin;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* ---------------------------------------------------------------------------------------------- */

static PetscErrorCode PCRuizCheckMemType(PC pc, PetscMemType mt)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCheck(jac->device ? PetscMemTypeDevice(mt) : PetscMemTypeHost(mt), PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCRUIZ: an internal vector is not in %s memory", jac->device ? "device" : "host");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One pass over the rows of one image. vsc may equal vsr (symmetric mode); vacc_in, vacc_out, vsr_new,
   vcolacc may be NULL. */
static PetscErrorCode PCRuizRowPass(PC pc, MSImage img, PetscBool diagblock, Vec vsr, Vec vsc, Vec vacc_in, Vec vacc_out, Vec vsr_new, Vec vcolacc, PetscBool check, PetscBool first, PetscBool checkdiag)
{
  PC_Ruiz           *jac = (PC_Ruiz *)pc->data;
  const int          p   = PCRuizPCode(jac->norm);
  const PetscScalar *sr, *sc, *acc_in = NULL;
  PetscScalar       *acc_out = NULL, *sr_new = NULL, *colacc = NULL;
  PetscMemType       mt;

  PetscFunctionBegin;
  sr = sc = NULL; /* a NULL scaling vector: all ones (the first sweep) */
  if (vsr) {
    PetscCall(VecGetArrayReadAndMemType(vsr, &sr, &mt));
    PetscCall(PCRuizCheckMemType(pc, mt));
  }
  if (vsc && vsc != vsr) {
    PetscCall(VecGetArrayReadAndMemType(vsc, &sc, &mt));
    PetscCall(PCRuizCheckMemType(pc, mt));
  } else sc = sr;
  if (vacc_in) {
    PetscCall(VecGetArrayReadAndMemType(vacc_in, &acc_in, &mt));
    PetscCall(PCRuizCheckMemType(pc, mt));
  }
  if (vacc_out) {
    PetscCall(VecGetArrayWriteAndMemType(vacc_out, &acc_out, &mt));
    PetscCall(PCRuizCheckMemType(pc, mt));
  }
  if (vsr_new) {
    PetscCall(VecGetArrayWriteAndMemType(vsr_new, &sr_new, &mt));
    PetscCall(PCRuizCheckMemType(pc, mt));
  }
  if (vcolacc) {
    PetscCall(VecGetArrayAndMemType(vcolacc, &colacc, &mt));
    PetscCall(PCRuizCheckMemType(pc, mt));
  }
  PetscCheck(vacc_out || vsr_new, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCRUIZ: a pass must store partial sums or new scalings");
  if (jac->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(PCRuizRowPassDevice(jac, img, diagblock, p, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag));
#endif
  } else {
    PCRuizRowPassHost(img, diagblock, p, sr, sc, acc_in, acc_out, sr_new, colacc, check, first, checkdiag, &jac->hstatus);
    PetscCall(PetscLogFlops(PCRuizPassFlops(img, p, (PetscBool)(colacc != NULL), (PetscBool)(acc_out == NULL))));
  }
  if (vsr) PetscCall(VecRestoreArrayReadAndMemType(vsr, &sr));
  if (vsc && vsc != vsr) PetscCall(VecRestoreArrayReadAndMemType(vsc, &sc));
  if (vacc_in) PetscCall(VecRestoreArrayReadAndMemType(vacc_in, &acc_in));
  if (vacc_out) PetscCall(VecRestoreArrayWriteAndMemType(vacc_out, &acc_out));
  if (vsr_new) PetscCall(VecRestoreArrayWriteAndMemType(vsr_new, &sr_new));
  if (vcolacc) PetscCall(VecRestoreArrayAndMemType(vcolacc, &colacc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizColPass(PC pc, Vec vsc, Vec vcacc, Vec vsc_new, PetscBool check, PetscBool first)
{
  PC_Ruiz           *jac = (PC_Ruiz *)pc->data;
  const int          p   = PCRuizPCode(jac->norm);
  const PetscScalar *sc, *cacc;
  PetscScalar       *sc_new;
  PetscMemType       mt;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(vsc_new, &n));
  sc = NULL; /* a NULL scaling vector: all ones (the first sweep) */
  if (vsc) {
    PetscCall(VecGetArrayReadAndMemType(vsc, &sc, &mt));
    PetscCall(PCRuizCheckMemType(pc, mt));
  }
  PetscCall(VecGetArrayReadAndMemType(vcacc, &cacc, &mt));
  PetscCall(PCRuizCheckMemType(pc, mt));
  PetscCall(VecGetArrayWriteAndMemType(vsc_new, &sc_new, &mt));
  PetscCall(PCRuizCheckMemType(pc, mt));
  if (jac->device) {
#if defined(PETSC_HAVE_CUDA)
    PetscCall(PCRuizColPassDevice(jac, n, p, sc, cacc, sc_new, check, first));
#endif
  } else {
    PCRuizColPassHost(n, p, sc, cacc, sc_new, check, first, &jac->hstatus);
    PetscCall(PetscLogFlops(5.0 * n));
  }
  if (vsc) PetscCall(VecRestoreArrayReadAndMemType(vsc, &sc));
  PetscCall(VecRestoreArrayReadAndMemType(vcacc, &cacc));
  PetscCall(VecRestoreArrayWriteAndMemType(vsc_new, &sc_new));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizResetStatus(PC pc, PetscBool first)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  jac->hstatus.dev = 0.0;
  if (first) jac->hstatus.badrow = jac->hstatus.badcol = MS_RUIZ_BAD_NONE;
#if defined(PETSC_HAVE_CUDA)
  if (jac->device) PetscCall(PCRuizResetStatusDevice(jac, first));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizReadStatus(PC pc, PCRuizStatus *st)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  *st = jac->hstatus;
#if defined(PETSC_HAVE_CUDA)
  if (jac->device) PetscCall(PCRuizReadStatusDevice(jac, st));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Errors found by the first sweep: the smallest global key over the processes names the first
   offending row (then column); every process raises the same error */
static PetscErrorCode PCRuizValidate(PC pc, const PCRuizStatus *st)
{
  PC_Ruiz   *jac  = (PC_Ruiz *)pc->data;
  MPI_Comm   comm = PetscObjectComm((PetscObject)pc);
  PetscInt64 loc[2], glob[2];
  PetscInt   rstart, cstart;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(pc->pmat, &rstart, NULL));
  PetscCall(MatGetOwnershipRangeColumn(pc->pmat, &cstart, NULL));
  loc[0] = st->badrow == MS_RUIZ_BAD_NONE ? PETSC_INT64_MAX : (PetscInt64)((st->badrow / 4 + (unsigned long long)rstart) * 4 + st->badrow % 4);
  loc[1] = st->badcol == MS_RUIZ_BAD_NONE ? PETSC_INT64_MAX : (PetscInt64)((st->badcol / 4 + (unsigned long long)cstart) * 4 + st->badcol % 4);
  PetscCallMPI(MPIU_Allreduce(loc, glob, 2, MPIU_INT64, MPI_MIN, comm));
  if (glob[0] != PETSC_INT64_MAX) {
    const PetscInt row = (PetscInt)(glob[0] / 4);
    switch ((int)(glob[0] % 4)) {
    case MS_RUIZ_BAD_NONFINITE:
      SETERRQ(comm, PETSC_ERR_FP, "PCRUIZ: row %" PetscInt_FMT " of the operator has a non-finite %s-norm: it holds an Inf or NaN entry (or entries too large for the p-th power in double precision); fix the assembly of the matrix", row, PCRuizNormName(jac->norm));
    case MS_RUIZ_BAD_ZERO:
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCRUIZ: row %" PetscInt_FMT " of the operator is zero (no nonzero entry): no diagonal scaling gives it unit norm and the operator is singular; fix the assembly of the matrix", row);
    default: {
      PetscReal d     = 0.0;
      PetscBool found = PETSC_FALSE;

      PetscCall(PetscModSELLGetDiagonalEntry(pc->pmat, row, &d, &found));
      if (!found) SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCRUIZ: row %" PetscInt_FMT " of the operator has no diagonal entry: symmetric Ruiz scaling needs a positive diagonal; use -pc_ruiz_symmetric false for independent row and column scalings", row);
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCRUIZ: row %" PetscInt_FMT " of the operator has the diagonal entry %g <= 0: symmetric Ruiz scaling needs a positive diagonal (an SPD operator); use -pc_ruiz_symmetric false for independent row and column scalings, or scale the system by -1 if it is negative definite", row, (double)d);
    }
    }
  }
  if (glob[1] != PETSC_INT64_MAX) {
    const PetscInt col = (PetscInt)(glob[1] / 4);
    if (glob[1] % 4 == MS_RUIZ_BAD_NONFINITE) SETERRQ(comm, PETSC_ERR_FP, "PCRUIZ: column %" PetscInt_FMT " of the operator has a non-finite %s-norm (entries too large for the p-th power in double precision); rescale the system", col, PCRuizNormName(jac->norm));
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "PCRUIZ: column %" PetscInt_FMT " of the operator is zero (no nonzero entry): no diagonal scaling gives it unit norm and the operator is singular; fix the assembly of the matrix", col);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Free what depends on the operator's structure */
static PetscErrorCode PCRuizFreeStructure(PC pc)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCall(MSImageDestroy(&jac->own[0]));
  PetscCall(MSImageDestroy(&jac->own[1]));
  PetscCall(VecScatterDestroy(&jac->scat));
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(VecDestroy(&jac->s[i]));
    PetscCall(VecDestroy(&jac->c[i]));
  }
  PetscCall(VecDestroy(&jac->ghost));
  PetscCall(VecDestroy(&jac->racc));
  PetscCall(VecDestroy(&jac->cacc));
  PetscCall(VecDestroy(&jac->cghost));
  PetscCall(VecDestroy(&jac->w));
  PetscCall(VecDestroy(&jac->Dr));
  PetscCall(VecDestroy(&jac->Dc));
  jac->isr = jac->isc = NULL;
  jac->matid = jac->aoid = 0;
  jac->matnz = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizCreateVec(PC pc, MPI_Comm comm, PetscInt n, Vec *v)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCall(VecCreate(comm, v));
  PetscCall(VecSetSizes(*v, n, PETSC_DETERMINE));
#if defined(PETSC_HAVE_CUDA)
  if (jac->device) PetscCall(VecSetType(*v, VECCUDA));
  else PetscCall(VecSetType(*v, VECSTANDARD));
#else
  (void)jac;
  PetscCall(VecSetType(*v, VECSTANDARD));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Vectors and the ghost scatter for the current operator */
static PetscErrorCode PCRuizCreateStructure(PC pc, Mat Ao, const PetscInt *garray)
{
  PC_Ruiz *jac  = (PC_Ruiz *)pc->data;
  MPI_Comm comm = PetscObjectComm((PetscObject)pc);
  PetscInt m;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(pc->pmat, &m, NULL));
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(PCRuizCreateVec(pc, comm, m, &jac->s[i]));
    if (!jac->symmetric) PetscCall(PCRuizCreateVec(pc, comm, m, &jac->c[i]));
  }
  if (!jac->symmetric) { /* symmetric mode applies D^-2 from D^-1 itself: no product vector */
    PetscCall(PCRuizCreateVec(pc, comm, m, &jac->w));
    PetscCall(PCRuizCreateVec(pc, comm, m, &jac->cacc));
  }
  if (jac->mpi) {
    PetscInt nghost;
    IS       from;

    PetscCall(MatGetLocalSize(Ao, NULL, &nghost));
    PetscCall(PCRuizCreateVec(pc, PETSC_COMM_SELF, nghost, &jac->ghost));
    PetscCall(PCRuizCreateVec(pc, comm, m, &jac->racc));
    if (!jac->symmetric) PetscCall(PCRuizCreateVec(pc, PETSC_COMM_SELF, nghost, &jac->cghost));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nghost, garray, PETSC_COPY_VALUES, &from));
    PetscCall(VecScatterCreate(jac->s[0], from, jac->ghost, NULL, &jac->scat));
    PetscCall(ISDestroy(&from));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The image of a block: MATMODSELL's own, or one this PC keeps */
static PetscErrorCode PCRuizGetImage(PC pc, Mat B, PetscInt which, MSImage *img)
{
  PC_Ruiz     *jac   = (PC_Ruiz *)pc->data;
  PetscMemType mtype = jac->device ? PETSC_MEMTYPE_DEVICE : PETSC_MEMTYPE_HOST;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJModSELLGetImage(B, mtype, img));
  if (*img) {
    PetscCall(MSImageDestroy(&jac->own[which]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  jac->own_image = PETSC_TRUE;
  if (!jac->own[which]) {
    PetscCall(MSImageCreate(&jac->own[which]));
    if (which == 1) { /* off-diagonal block: plain encoding */
      jac->own[which]->diag_apart = PETSC_FALSE;
      jac->own[which]->local_cols = PETSC_FALSE;
    }
  }
  PetscCall(MSImageSetUp(jac->own[which], B, mtype));
  *img = jac->own[which];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_Ruiz(PC pc)
{
  PC_Ruiz        *jac  = (PC_Ruiz *)pc->data;
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);
  Mat             A    = pc->pmat, Ad, Ao = NULL;
  const PetscInt *garray = NULL;
  MSImage         imgd, imgo = NULL;
  PetscBool       isseq, ismpi, symmetric, symauto = PETSC_FALSE, device, rebuild;
  PetscInt        M, N, m, n, cur = 0;
  PetscObjectId   id, aoid = 0;
  PetscLogDouble  t0, t1;
  PCRuizStatus    st;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &isseq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATMPIAIJ, &ismpi));
  PetscCheck(isseq || ismpi, comm, PETSC_ERR_SUP, "PCRUIZ needs an AIJ-family matrix (aij, aijcusparse, modsell, ...) to build the preconditioner from, not a matrix of type %s: use -mat_type aij or modsell, or MatConvert()", ((PetscObject)A)->type_name);
  PetscCheck(A->assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "PCRUIZ: the matrix must be assembled (MatAssemblyBegin/End) before the preconditioner is set up");
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetLocalSize(A, &m, &n));
  {
    PetscBool same = (PetscBool)(m == n); /* collective, so that no process goes on alone */

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, comm));
    PetscCheck(M == N && same, comm, PETSC_ERR_ARG_SIZ, "PCRUIZ needs a square operator with equal row and column layouts: it is %" PetscInt_FMT " x %" PetscInt_FMT " and its local rows and columns differ on some process", M, N);
  }
  { /* the GPU kernels index a process's rows with 32-bit integers */
    PetscInt mmax = m;

    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &mmax, 1, MPIU_INT, MPI_MAX, comm));
    PetscCheck(mmax < PETSC_INT32_MAX, comm, PETSC_ERR_SUP, "PCRUIZ: a process holds %" PetscInt_FMT " rows of the operator; at most %d per process fit the 32-bit row indices of its kernels: use more MPI processes", mmax, PETSC_INT32_MAX - 1);
  }

  /* mode */
  if (jac->symmetric_opt == PETSC_BOOL3_UNKNOWN) {
    PetscBool set, flg;

    symauto   = PETSC_TRUE;
    symmetric = PETSC_FALSE;
    PetscCall(MatIsSymmetricKnown(A, &set, &flg));
    if (set && flg) symmetric = PETSC_TRUE;
    if (!symmetric) {
      PetscCall(MatIsSPDKnown(A, &set, &flg));
      if (set && flg) symmetric = PETSC_TRUE;
    }
  } else symmetric = (PetscBool)(jac->symmetric_opt == PETSC_BOOL3_TRUE);
  PetscCall(PetscModSELLUseDevice(A, &device));

  /* structure: rebuilt when the operator or its pattern or the mode changed */
  if (ismpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
    PetscCall(PetscObjectGetId((PetscObject)Ao, &aoid));
  } else Ad = A;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  rebuild = (PetscBool)(!jac->s[0] || id != jac->matid || A->nonzerostate != jac->matnz || aoid != jac->aoid || symmetric != jac->symmetric || device != jac->device || ismpi != jac->mpi);
  if (rebuild) PetscCall(PCRuizFreeStructure(pc));
  jac->symmetric      = symmetric;
  jac->symmetric_auto = symauto;
  jac->device         = device;
  jac->mpi            = ismpi;
  jac->own_image      = PETSC_FALSE;
  PetscCall(PCRuizGetImage(pc, Ad, 0, &imgd));
  if (ismpi) PetscCall(PCRuizGetImage(pc, Ao, 1, &imgo));
  PetscCheck(imgd->m == m && imgd->n == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCRUIZ: the image of the diagonal block has the wrong size");
  if (rebuild) {
    PetscCall(PCRuizCreateStructure(pc, Ao, garray));
    jac->matid = id;
    jac->matnz = A->nonzerostate;
    jac->aoid  = aoid;
  }

  /* the Ruiz iteration, from D_0 = I: on one process the first sweep takes the unit scalings as NULL
     vectors (nothing to set or read); with several the ghost scatter needs them stored */
  if (ismpi) {
    PetscCall(VecSet(jac->s[0], 1.0));
    if (!symmetric) PetscCall(VecSet(jac->c[0], 1.0));
  }
  for (PetscInt k = 0;; k++) {
    const PetscBool first = (PetscBool)(k == 0);
    const PetscBool check = (PetscBool)(first || k % jac->check_every == 0 || k >= jac->max_it);
    const PetscBool unit  = (PetscBool)(first && !ismpi);
    Vec             sr = unit ? NULL : jac->s[cur], sr_new = jac->s[1 - cur];
    Vec             sc = unit ? NULL : (symmetric ? sr : jac->c[cur]);

    PetscCall(PetscLogEventBegin(PC_RuizSweep, pc, 0, 0, 0));
    if (check) PetscCall(PCRuizResetStatus(pc, first));
    if (ismpi) PetscCall(VecScatterBegin(jac->scat, sc, jac->ghost, INSERT_VALUES, SCATTER_FORWARD));
    if (!symmetric) {
      PetscCall(VecZeroEntries(jac->cacc));
      if (ismpi) PetscCall(VecZeroEntries(jac->cghost));
    }
    PetscCall(PCRuizRowPass(pc, imgd, PETSC_TRUE, sr, sc, NULL, ismpi ? jac->racc : NULL, ismpi ? NULL : sr_new, symmetric ? NULL : jac->cacc, check, first, symmetric));
    if (ismpi) {
      PetscCall(VecScatterEnd(jac->scat, sc, jac->ghost, INSERT_VALUES, SCATTER_FORWARD));
      PetscCall(PCRuizRowPass(pc, imgo, PETSC_FALSE, sr, jac->ghost, jac->racc, NULL, sr_new, symmetric ? NULL : jac->cghost, check, first, PETSC_FALSE));
    }
    if (!symmetric) {
      if (ismpi) {
        const InsertMode im = jac->norm == NORM_INFINITY ? MAX_VALUES : ADD_VALUES;
        PetscCall(VecScatterBegin(jac->scat, jac->cghost, jac->cacc, im, SCATTER_REVERSE));
        PetscCall(VecScatterEnd(jac->scat, jac->cghost, jac->cacc, im, SCATTER_REVERSE));
      }
      PetscCall(PCRuizColPass(pc, sc, jac->cacc, jac->c[1 - cur], check, first));
    }
    PetscCall(PetscLogEventEnd(PC_RuizSweep, pc, 0, 0, 0));
    if (check) {
      PetscReal dev;

      PetscCall(PetscLogEventBegin(PC_RuizCheck, pc, 0, 0, 0));
      PetscCall(PCRuizReadStatus(pc, &st));
      if (first) PetscCall(PCRuizValidate(pc, &st));
      dev = PetscIsNanReal(st.dev) ? PETSC_INFINITY : st.dev;
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &dev, 1, MPIU_REAL, MPIU_MAX, comm));
      PetscCall(PetscLogEventEnd(PC_RuizCheck, pc, 0, 0, 0));
      PetscCall(PetscInfo(pc, "Ruiz sweep %" PetscInt_FMT ": deviation %g\n", k, (double)dev));
      if (dev <= jac->tol || k >= jac->max_it) {
        if (unit) { /* D_0 = I is kept: store it */
          PetscCall(VecSet(jac->s[cur], 1.0));
          if (!symmetric) PetscCall(VecSet(jac->c[cur], 1.0));
        }
        jac->sweeps    = k + 1;
        jac->deviation = dev;
        jac->converged = (PetscBool)(dev <= jac->tol);
        break;
      }
    }
    cur = 1 - cur;
  }
  if (!jac->converged) PetscCall(PetscInfo(pc, "Ruiz scaling did not reach the tolerance %g in %" PetscInt_FMT " sweeps: deviation %g\n", (double)jac->tol, jac->max_it, (double)jac->deviation));

  /* the result: D_r^-1, D_c^-1, their product, and D_r, D_c */
  jac->isr = jac->s[cur];
  jac->isc = symmetric ? jac->s[cur] : jac->c[cur];
  if (!symmetric) PetscCall(VecPointwiseMult(jac->w, jac->isr, jac->isc));
  jac->dr_valid = PETSC_FALSE; /* D_r, D_c themselves only when asked for: the apply needs w alone */
#if defined(PETSC_HAVE_CUDA)
  if (jac->device) PetscCall(PCRuizSyncDevice()); /* for an honest setup time */
#endif
  PetscCall(PetscTime(&t1));
  jac->setup_time = t1 - t0;
  jac->nsetups++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = a .* x on the device when x and y are there (no host synchronization), else on the host */
/* y = a .* x, or y = a .* a .* x (square: the symmetric mode's D^-2 from D^-1) */
static PetscErrorCode PCRuizDiagonalApply(PC pc, Vec a, PetscBool square, Vec x, Vec y)
{
  const PetscScalar *xa, *aa;
  PetscScalar       *ya;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCheck(a, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCRUIZ: the preconditioner is not set up");
  PetscCall(PetscLogEventBegin(PC_RuizApply, pc, x, y, 0));
  PetscCall(VecGetLocalSize(x, &n));
#if defined(PETSC_HAVE_CUDA)
  {
    PetscMemType mx, my, ma;
    PetscBool    dev;

    PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
    PetscCall(VecGetArrayWriteAndMemType(y, &ya, &my));
    dev = (PetscBool)(PetscMemTypeDevice(mx) && PetscMemTypeDevice(my));
    if (dev) {
      PetscCall(VecGetArrayReadAndMemType(a, &aa, &ma));
      if (PetscMemTypeDevice(ma)) PetscCall(PCRuizApplyDevice(n, aa, square, xa, ya));
      else dev = PETSC_FALSE;
      PetscCall(VecRestoreArrayReadAndMemType(a, &aa));
    }
    PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
    PetscCall(VecRestoreArrayWriteAndMemType(y, &ya));
    if (dev) {
      PetscCall(PetscLogEventEnd(PC_RuizApply, pc, x, y, 0));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
#endif
  PetscCall(VecGetArrayRead(a, &aa));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  if (square)
    for (PetscInt i = 0; i < n; i++) ya[i] = aa[i] * (aa[i] * xa[i]);
  else
    for (PetscInt i = 0; i < n; i++) ya[i] = aa[i] * xa[i];
  PetscCall(VecRestoreArrayRead(a, &aa));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(PetscLogFlops((PetscLogDouble)(square ? 2 * n : n)));
  PetscCall(PetscLogEventEnd(PC_RuizApply, pc, x, y, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_Ruiz(PC pc, Vec x, Vec y)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  /* symmetric mode: z = D^-1 (D^-1 r) from the one scaling vector (no product vector to store) */
  if (jac->symmetric) PetscCall(PCRuizDiagonalApply(pc, jac->isr, PETSC_TRUE, x, y));
  else PetscCall(PCRuizDiagonalApply(pc, jac->w, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricLeft_Ruiz(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCRuizDiagonalApply(pc, ((PC_Ruiz *)pc->data)->isr, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplySymmetricRight_Ruiz(PC pc, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(PCRuizDiagonalApply(pc, ((PC_Ruiz *)pc->data)->isc, PETSC_FALSE, x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_Ruiz(PC pc)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCRuizFreeStructure(pc));
#if defined(PETSC_HAVE_CUDA)
  if (jac->d_status) PetscCallCUDA(cudaFree(jac->d_status));
#endif
  jac->d_status = NULL;
  jac->nsetups  = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_Ruiz(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_Ruiz(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCRuizGetScaling_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCRuizGetConvergence_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_Ruiz(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_Ruiz  *jac = (PC_Ruiz *)pc->data;
  PetscReal tol;
  PetscInt  it, inorm = 0;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Ruiz equilibration options");
  for (PetscInt k = 0; k < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(PCRuizNormTypes); k++)
    if (PCRuizNormTypes[k] == jac->norm) inorm = k;
  PetscCall(PetscOptionsEList("-pc_ruiz_norm", "p-norm the rows (and columns) of the scaled operator are equilibrated in", "PCRUIZ", PCRuizNorms, (PetscInt)PETSC_STATIC_ARRAY_LENGTH(PCRuizNorms), PCRuizNorms[inorm], &inorm, NULL));
  jac->norm = PCRuizNormTypes[inorm];
  tol       = jac->tol;
  PetscCall(PetscOptionsReal("-pc_ruiz_tol", "Stop when the largest deviation |1 - norm| of a row (or column) of the scaled operator is at most this", "PCRUIZ", tol, &tol, NULL));
  PetscCheck(tol >= 0.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCRUIZ: -pc_ruiz_tol %g must be nonnegative (0 runs all -pc_ruiz_max_it sweeps)", (double)tol);
  jac->tol = tol;
  it       = jac->max_it;
  PetscCall(PetscOptionsInt("-pc_ruiz_max_it", "Maximum number of updates of the scaling", "PCRUIZ", it, &it, NULL));
  PetscCheck(it >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCRUIZ: -pc_ruiz_max_it %" PetscInt_FMT " must be nonnegative", it);
  jac->max_it = it;
  it          = jac->check_every;
  PetscCall(PetscOptionsInt("-pc_ruiz_check_every", "Compute the deviation (one device-to-host read) every this many sweeps", "PCRUIZ", it, &it, NULL));
  PetscCheck(it >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCRUIZ: -pc_ruiz_check_every %" PetscInt_FMT " must be at least 1", it);
  jac->check_every = it;
  PetscCall(PetscOptionsBool3("-pc_ruiz_symmetric", "Symmetric scaling D^-1 A D^-1 (true), row and column scalings Dr^-1 A Dc^-1 (false), or symmetric when the matrix is flagged symmetric or SPD (auto)", "PCRUIZ", jac->symmetric_opt, &jac->symmetric_opt, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_Ruiz(PC pc, PetscViewer viewer)
{
  PC_Ruiz  *jac = (PC_Ruiz *)pc->data;
  PetscBool isascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  Ruiz equilibration in the %s-norm, tolerance %g on max |1 - norm|, at most %" PetscInt_FMT " sweeps, deviation checked every %" PetscInt_FMT " sweeps\n", PCRuizNormName(jac->norm), (double)jac->tol, jac->max_it, jac->check_every));
  if (!jac->nsetups) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  mode: %s (not set up yet)\n", jac->symmetric_opt == PETSC_BOOL3_UNKNOWN ? "auto" : (jac->symmetric_opt == PETSC_BOOL3_TRUE ? "symmetric" : "nonsymmetric")));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  mode: %s%s\n", jac->symmetric ? "symmetric, D^-1 A D^-1, apply z = D^-2 r" : "nonsymmetric, Dr^-1 A Dc^-1, apply z = Dc^-1 Dr^-1 r", jac->symmetric_auto ? (jac->symmetric ? " (auto: the matrix is flagged symmetric)" : " (auto: the matrix is not flagged symmetric)") : ""));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  sweeps: %" PetscInt_FMT ", final deviation %g (%s)\n", jac->sweeps, (double)jac->deviation, jac->converged ? "converged" : "tolerance not reached"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  setup: %g s on the %s, reading %s\n", (double)jac->setup_time, jac->device ? "device" : "host", jac->own_image ? "the PC's own mod-SELL image of the operator" : "the MATMODSELL image of the operator"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizGetScaling_Ruiz(PC pc, Vec *Dr, Vec *Dc)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCheck(jac->nsetups && jac->isr, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCRUIZ: the scaling is computed by the setup: call PCSetUp() (or KSPSetUp()) first");
  if (!jac->dr_valid) {
    if (!jac->Dr) PetscCall(VecDuplicate(jac->isr, &jac->Dr));
    if (!jac->symmetric && !jac->Dc) PetscCall(VecDuplicate(jac->isc, &jac->Dc));
    PetscCall(VecCopy(jac->isr, jac->Dr));
    PetscCall(VecReciprocal(jac->Dr));
    if (!jac->symmetric) {
      PetscCall(VecCopy(jac->isc, jac->Dc));
      PetscCall(VecReciprocal(jac->Dc));
    }
    jac->dr_valid = PETSC_TRUE;
  }
  if (Dr) *Dr = jac->Dr;
  if (Dc) *Dc = jac->symmetric ? jac->Dr : jac->Dc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizGetScaling - Gets the diagonal scalings computed by a `PCRUIZ` preconditioner

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ Dr - the row scaling D_r (the scaled operator is D_r^-1 A D_c^-1), or `NULL`
- Dc - the column scaling D_c (the same vector as `Dr` in symmetric mode), or `NULL`

  Level: intermediate

  Notes:
  The vectors belong to the preconditioner: do not destroy or change them. They hold the result of the
  last `PCSetUp()` and are overwritten by the next one. They live where the preconditioner ran (device
  vectors for a GPU operator).

  The preconditioner applies z = D_c^-1 D_r^-1 r (z = D^-2 r in symmetric mode).

.seealso: [](ch_ksp), `PCRUIZ`, `PCJACOBI`, `PCRuizGetConvergence()`
@*/
PetscErrorCode PCRuizGetScaling(PC pc, Vec *Dr, Vec *Dc)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCRuizGetScaling_C", (PC, Vec *, Vec *), (pc, Dr, Dc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCRuizGetConvergence_Ruiz(PC pc, PetscInt *sweeps, PetscReal *deviation, PetscBool *converged, PetscLogDouble *time)
{
  PC_Ruiz *jac = (PC_Ruiz *)pc->data;

  PetscFunctionBegin;
  PetscCheck(jac->nsetups, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCRUIZ: the scaling is computed by the setup: call PCSetUp() (or KSPSetUp()) first");
  if (sweeps) *sweeps = jac->sweeps;
  if (deviation) *deviation = jac->deviation;
  if (converged) *converged = jac->converged;
  if (time) *time = jac->setup_time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCRuizGetConvergence - Gets how the last setup of a `PCRUIZ` preconditioner went

  Not Collective

  Input Parameter:
. pc - the preconditioner context, set up

  Output Parameters:
+ sweeps    - passes over the matrix (the scaling was updated sweeps - 1 times), or `NULL`
. deviation - max |1 - norm| over the rows (and columns) of the scaled operator with the returned scaling, or `NULL`
. converged - whether the deviation is at most the tolerance `-pc_ruiz_tol`, or `NULL`
- time      - wall time of the setup in seconds (device work included), or `NULL`

  Level: intermediate

.seealso: [](ch_ksp), `PCRUIZ`, `PCRuizGetScaling()`
@*/
PetscErrorCode PCRuizGetConvergence(PC pc, PetscInt *sweeps, PetscReal *deviation, PetscBool *converged, PetscLogDouble *time)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCRuizGetConvergence_C", (PC, PetscInt *, PetscReal *, PetscBool *, PetscLogDouble *), (pc, sweeps, deviation, converged, time));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCRUIZ - "ruiz" - Ruiz equilibration used as a diagonal preconditioner (paper 000, Wikberg 2024, section 5.4,
   Algorithm 4), computed on the GPU when the operator's vectors live there

   Options Database Keys:
+  -pc_ruiz_norm <2>                      - the p-norm of the rows (and columns): 1, 2 or infinity
.  -pc_ruiz_tol <1e-8>                    - stop when max |1 - norm| over the rows (and columns) of the scaled operator is at most this
.  -pc_ruiz_max_it <100>                  - at most this many updates of the scaling
.  -pc_ruiz_check_every <5>               - compute the deviation (one device-to-host read of one number) every this many sweeps
-  -pc_ruiz_symmetric <true,false,auto>   - symmetric scaling D^-1 A D^-1, row and column scalings D_r^-1 A D_c^-1, or
                                            symmetric when the matrix is flagged symmetric or SPD (`MatSetOption()`) (default auto)

   Level: intermediate

   Notes:
   The setup iterates the scalings without changing the matrix. In symmetric mode it finds D such that the rows
   (and so the columns) of D^-1 A D^-1 have unit p-norm, by D <- sqrt(R) D with R the row norms of the current
   scaled operator; in nonsymmetric mode it updates the row and column scalings the same way from the row and
   column norms of D_r^-1 A D_c^-1. The preconditioner is z = D^-2 r (z = D_c^-1 D_r^-1 r); with
   `KSPSetPCSide`(ksp, `PC_SYMMETRIC`) the Krylov method sees D_r^-1 A D_c^-1 (`PCApplySymmetricLeft()` is D_r^-1,
   `PCApplySymmetricRight()` is D_c^-1). Any positive diagonal preconditioner is SPD, so `KSPCG` may be used in
   both modes.

   Every sweep reads the operator once through its modified Sliced ELLPACK image: the `MATMODSELL` image itself, or
   an image the preconditioner builds for other AIJ matrices. On the GPU each sweep is one kernel per image block,
   with the column scalings of the slice's own rows in shared memory; the deviation is reduced on the device and
   read back only on checking sweeps. On several processes the column scalings of the off-process columns are
   exchanged every sweep. The host computes the same function.

   A zero row or column, an Inf or NaN entry, or (in symmetric mode) a missing, zero or negative diagonal entry is
   an error naming the first offending row (or column). A new setup after a change of the operator's values reuses
   the images and communication structures and recomputes the scaling from D = I.

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCJACOBI`, `PCRuizGetScaling()`, `PCRuizGetConvergence()`, `MATMODSELL`
M*/
static PetscErrorCode PCCreate_Ruiz(PC pc)
{
  PC_Ruiz *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data           = (void *)jac;
  jac->norm          = NORM_2;
  jac->tol           = 1e-8;
  jac->max_it        = 100;
  jac->check_every   = 5;
  jac->symmetric_opt = PETSC_BOOL3_UNKNOWN;

  pc->ops->apply               = PCApply_Ruiz;
  pc->ops->applytranspose      = PCApply_Ruiz;
  pc->ops->setup               = PCSetUp_Ruiz;
  pc->ops->reset               = PCReset_Ruiz;
  pc->ops->destroy             = PCDestroy_Ruiz;
  pc->ops->setfromoptions      = PCSetFromOptions_Ruiz;
  pc->ops->view                = PCView_Ruiz;
  pc->ops->applysymmetricleft  = PCApplySymmetricLeft_Ruiz;
  pc->ops->applysymmetricright = PCApplySymmetricRight_Ruiz;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCRuizGetScaling_C", PCRuizGetScaling_Ruiz));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCRuizGetConvergence_C", PCRuizGetConvergence_Ruiz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Registration and log events (called from PetscModSELLRegisterPCs_Private()) */
PETSC_INTERN PetscErrorCode PCRegister_Ruiz_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCRUIZ, PCCreate_Ruiz));
  PetscCall(PetscLogEventRegister("PCRuizSweep", PC_CLASSID, &PC_RuizSweep));
  PetscCall(PetscLogEventRegister("PCRuizCheck", PC_CLASSID, &PC_RuizCheck));
  PetscCall(PetscLogEventRegister("PCRuizApply", PC_CLASSID, &PC_RuizApply));
  PetscFunctionReturn(PETSC_SUCCESS);
}
