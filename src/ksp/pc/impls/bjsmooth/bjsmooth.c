/*
   PCBJSMOOTH: block Jacobi smoother / preconditioner on the slices of the mod-SELL image
   (Wikberg (2024), chapter 4: equations 4.8-4.9, 4.14, 4.15 and section 4.3.1).

   Blocks are the slices (sh consecutive image rows) of the mod-SELL image of the local diagonal block
   of the operator: MATMODSELL's own image when it stores the diagonal apart with in-slice (negative)
   column codes and has the requested slice height, else an image this PC builds (any AIJ operator).
   One outer iteration, for every block l at once (synchronous: reads x^(k), writes x^(k+1) to another
   array; asynchronous: one array, blocks see what other blocks have written):
       rl   = b_l - sum_j A_lj x_j - A_ll x_l    (the off-block and off-process entries, eq. 4.8)
       y    ~ A_ll^-1 rl  (inner sweeps from y = 0: Jacobi, warp-serialised GS/SGS (eq. 4.14), CG or Chebyshev)
       x_l <- x_l + y                               (eq. 4.9)
   On several processes the blocks are local to each process; the off-process entries use the ghost
   values of x at the start of the outer iteration (block Jacobi across processes).

   PCApply: z = M^-1 r is the result of -pc_bjsmooth_its outer iterations from z = 0.
   PCApplyRichardson: its * (-pc_bjsmooth_its) outer iterations from the given guess, on the GPU without
   host work per sweep (the tolerances are not tested: the given number of iterations is run, like PCSOR).

   This file is the glue: the PC layer (pcmsimpl.h) supplies the operator, its images, vectors and the ghost
   exchange; the kernels (bjsmoothkernels.h) come as a table, host reference (bjsmooth_reference.c) or CUDA
   (bjsmooth.cu), chosen once per setup.
*/
#include <petscmodsell/private/pcmsimpl.h>
#include <petscmodsell/private/bjsmoothkernels.h>

static PetscLogEvent PC_BJSmoothSweep = 0, PC_BJSmoothApply = 0;

const char *const PCBJSmoothInners[] = {"jacobi", "gs", "sgs", "cg", "chebyshev", "auto", "PCBJSmoothInner", "PCBJSMOOTH_INNER_", NULL};

/* slices of the diagonal block whose symmetry the setup checks at most (evenly spaced; MS_BJS_SYMMETRY): 256 slices of
   512 rows, every slice up to 131072 rows; a nonsymmetric discretisation (convection) is nonsymmetric everywhere */
#define BJS_SYMMETRY_SLICES 256

/* what kind of operator M^-1 the settings give (for PCView and the manual page) */
typedef enum {
  BJS_KIND_SPD,       /* symmetric, positive definite for every SPD operator */
  BJS_KIND_SPD_COND,  /* symmetric; positive definite when the iteration converges (e.g. diagonally dominant operators) */
  BJS_KIND_NONSYM,    /* linear, not symmetric */
  BJS_KIND_NONSYM_OP, /* linear, not symmetric because the operator's blocks are not */
  BJS_KIND_NONLINEAR  /* depends nonlinearly on r: needs a flexible Krylov method */
} BJSKind;


typedef struct {
  /* options */
  PetscInt        bs; /* block size = slice height; 0: the operator's (MATMODSELL) or MS_SLICE_HEIGHT_SLICE_PC */
  PCBJSmoothInner inner_set; /* as set: a method, or PCBJSMOOTH_INNER_AUTO */
  PCBJSmoothInner inner;     /* in use: inner_set, or the automatic choice of the last setup (never AUTO) */
  PetscInt        inner_its, its;
  PetscBool       inner_its_auto; /* inner_its follows the block size (PCBJSmoothAutoSweeps()) until set */
  PetscReal       inner_rtol;
  PetscReal       cheb_ratio; /* inner Chebyshev's interval: [hi / ratio, hi]; 0: automatic, from the block size */
  PetscBool       async, force_global;
  MatModSELLOrdering ordering; /* the blocks' image: PCMS_ORDERING_ANY (the operator's), or the PC's own in this ordering */

  /* the last setup */
  PCMSOperator        op; /* the operator, its blocks, images and ghost exchange (PC layer) */
  const MSBJSKernels *k;  /* the kernels of the backend the operator lives on */
  PetscBool           setup;
  PetscInt            sh, nloc, nblocks;
  PetscReal           gersh;            /* the analysis's Gershgorin bound of the blocks' D^-1 A_ll minus 1 */
  PetscReal           cheb_lo, cheb_hi; /* inner Chebyshev: hi = 1 + gersh, lo = hi / cheb_ratio */
  /* the symmetry of the blocks (PCBJSmoothSymmetry()) and the choice of the inner method (PCBJSmoothChoose()) */
  PetscBool     sym;        /* the blocks A_ll are symmetric (known, or checked; rows decoupled in their block aside) */
  PetscBool     sym_known;  /* from MatIsSymmetricKnown() */
  MSBJSSymmetry symres;     /* the check, summed over the processes (nchecked 0 and firstrow NONE: not run) */
  PetscInt      sym_stride; /* one slice in sym_stride checked */
  PetscBool3    ksp_sym;    /* the Krylov method of the last solve needs a symmetric preconditioner (PCPreSolve()) */
  char          innerwhy[256];
  PCMSBuffer          chebtab;          /* its coefficients (MSBJSChebTable()) for cheb_its sweeps, in the backend's memory */
  PetscInt            cheb_its;         /* 0: no table */
  PetscReal           cheb_tab_lo, cheb_tab_hi;
  PetscBool           use_shared;
  size_t              smem, smem_needed, smem_optin;
  Vec                 offp, work;
  PCMSBuffer          status; /* MSBJSStatus */

  /* zero-guess Jacobi path: the compact in-slice block, nloc x m (the pattern kernel extract_local) */
  PCMSBuffer zlc, zlv, zdinv;
  PCMSBuffer zwork; /* a permuted image on the GPU: the result in the image's order, before it is gathered back, or
                       the bucketed permutation's copies (bjsmoothkernels.h, MS_BJS_BUCKET_WORK) */
  PetscBool  zfast; /* zero-guess sweeps use it */

  /* a permuted image on the GPU with more than one bucket of its permuted product (MSPermBuckets): the
     sweeps move b, offp, xin and the result through the buckets instead of a random access per row */
  PetscBool bucketed;
  PetscInt  nbuckets, chunk;
} PC_BJSmooth;

/* flops of one outer sweep (approximate for the inner methods with a tolerance: the maximum) */
static PetscLogDouble BJSSweepFlops(PC_BJSmooth *jac, const MSImageLayout *img, PetscBool zero)
{
  const PetscLogDouble m   = (PetscLogDouble)img->m, nz = (PetscLogDouble)img->nnz;
  const PetscLogDouble loc = img->counted ? (PetscLogDouble)img->nlocal : (PetscLogDouble)jac->nloc * m;
  PetscLogDouble       f   = (zero ? 0.0 : 2.0 * nz) + m; /* rhs and the final update */
  PetscLogDouble       sweep;

  switch (jac->inner) {
  case PCBJSMOOTH_INNER_JACOBI:
    sweep = 2.0 * loc + 2.0 * m;
    break;
  case PCBJSMOOTH_INNER_GS:
    sweep = 2.0 * loc + 2.0 * m;
    break;
  case PCBJSMOOTH_INNER_SGS:
    sweep = 4.0 * loc + 4.0 * m;
    break;
  case PCBJSMOOTH_INNER_CHEBYSHEV:
    sweep = 2.0 * loc + 7.0 * m;
    break;
  default:
    sweep = 2.0 * loc + 12.0 * m;
  }
  return f + sweep * (PetscLogDouble)jac->inner_its;
}


/* inner chebyshev: the table of the interval and sweeps set now (built again when they changed since the setup) */
static PetscErrorCode PCBJSmoothChebTable(PC pc, const double **tab)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *tab = NULL;
  if (jac->inner != PCBJSMOOTH_INNER_CHEBYSHEV) PetscFunctionReturn(PETSC_SUCCESS);
  if (jac->cheb_its != jac->inner_its || jac->cheb_tab_lo != jac->cheb_lo || jac->cheb_tab_hi != jac->cheb_hi) {
    double *h;

    PetscCheck(jac->cheb_hi > jac->cheb_lo && jac->cheb_lo > 0.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ORDER, "PCBJSMOOTH: inner chebyshev has no interval: call PCSetUp() after PCBJSmoothSetInner()");
    PetscCall(PetscMalloc1(MS_BJS_CHEB_TABLE(jac->inner_its), &h));
    MSBJSChebTable((double)jac->cheb_lo, (double)jac->cheb_hi, (int)jac->inner_its, h);
    PetscCall(PCMSBufferUpload(&jac->op, &jac->chebtab, h, MS_BJS_CHEB_TABLE(jac->inner_its) * sizeof(double), "PCBJSMOOTH's Chebyshev coefficients"));
    PetscCall(PetscFree(h));
    jac->cheb_its    = jac->inner_its;
    jac->cheb_tab_lo = jac->cheb_lo;
    jac->cheb_tab_hi = jac->cheb_hi;
  }
  *tab = (const double *)jac->chebtab.ptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One outer sweep: xout = sweep(xin) (xin ignored when zero; xin == xout in asynchronous mode) */
static PetscErrorCode PCBJSmoothSweep(PC pc, Vec b, Vec xin, Vec xout, PetscBool zero)
{
  PC_BJSmooth                *jac = (PC_BJSmooth *)pc->data;
  PCMSOperator               *op  = &jac->op;
  const PetscBool             inplace = (PetscBool)(xin == xout);
  const PetscMemoryAccessMode W = PETSC_MEMORY_ACCESS_WRITE, RW = PETSC_MEMORY_ACCESS_READ_WRITE;
  const PetscScalar          *ba, *xi = NULL, *op_ = NULL;
  const double               *cheb;
  PetscScalar                *xo;
  MSImageView                 v;
  const MSImageLayout        *lay;
  const MSPermBuckets        *ppb = NULL;
  MSPermBuckets               pb;
  void                       *stream;
  int                         err;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_BJSmoothSweep, pc, b, xout, 0));
  if (op->mpi && !zero) { /* off-process part with the ghost values of xin */
    const PetscScalar *g;
    PetscScalar       *o;

    PetscCall(PCMSGhostBegin(op, xin, op->ghost));
    PetscCall(PCMSGhostEnd(op, xin, op->ghost));
    /* offp = 0 + Ao g: the image's own product (it logs 2 nnz - m flops, negative for a sparse Ao) */
    PetscCall(VecZeroEntries(jac->offp));
    PetscCall(PCMSVecGetArrayRead(op, op->ghost, &g));
    PetscCall(PCMSVecGetArray(op, jac->offp, RW, &o));
    PetscCall(PCMSImageMult(op, op->img[1], g, o, o));
    PetscCall(PCMSVecRestoreArrayRead(op, op->ghost, &g));
    PetscCall(PCMSVecRestoreArray(op, jac->offp, RW, &o));
    PetscCall(PCMSVecGetArrayRead(op, jac->offp, &op_));
  }
  PetscCall(PCMSVecGetArrayRead(op, b, &ba));
  if (inplace) PetscCall(PCMSVecGetArray(op, xout, RW, &xo));
  else {
    if (!zero) PetscCall(PCMSVecGetArrayRead(op, xin, &xi));
    PetscCall(PCMSVecGetArray(op, xout, W, &xo));
  }
  if (inplace) xi = xo;
  PetscCall(PCMSOperatorGetView(op, 0, &v));
  if (jac->bucketed) { /* the arrays were built at setup (the image rebuilt since: built again here) */
    PetscBool has;

    PetscCall(PCMSOperatorGetPermBuckets(op, &v, &pb, &has));
    if (has && pb.nbuckets > 1 && jac->zwork.bytes >= MS_BJS_BUCKET_WORK(op->m, op_ != NULL, zero) * sizeof(double)) ppb = &pb;
  }
  PetscCall(PCBJSmoothChebTable(pc, &cheb));
  PetscCall(PCMSKernelBegin(op, &stream));
  if (zero && jac->zfast) err = jac->k->zero_jacobi(&v, ppb, (int)jac->nloc, (const short *)jac->zlc.ptr, (const double *)jac->zlv.ptr, (const double *)jac->zdinv.ptr, (int)jac->inner_its, cheb, ba, op_, xo, (double *)jac->zwork.ptr, stream);
  else err = jac->k->sweep(&v, ppb, (int)jac->inner, (int)jac->inner_its, (double)jac->inner_rtol, cheb, (int)jac->nloc, (int)jac->use_shared, jac->smem, (int)zero, (int)jac->async, ba, op_, xi, xo, (double *)jac->zwork.ptr, stream);
  PetscCall(MSImageGetLayout(op->img[0], &lay));
  PetscCall(PCMSKernelEnd(op, err, jac->k->backend, zero && jac->zfast ? "zero_jacobi" : "sweep", BJSSweepFlops(jac, lay, zero)));
  PetscCall(PCMSVecRestoreArrayRead(op, b, &ba));
  if (inplace) PetscCall(PCMSVecRestoreArray(op, xout, RW, &xo));
  else {
    if (!zero) PetscCall(PCMSVecRestoreArrayRead(op, xin, &xi));
    PetscCall(PCMSVecRestoreArray(op, xout, W, &xo));
  }
  if (op_) PetscCall(PCMSVecRestoreArrayRead(op, jac->offp, &op_));
  PetscCall(PetscLogEventEnd(PC_BJSmoothSweep, pc, b, xout, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n outer iterations for A x = b from x (zero: from 0); w is a work vector like x (synchronous mode:
   the iterations alternate between x and w so that the last one lands in x). No host synchronization. */
static PetscErrorCode PCBJSmoothOuter(PC pc, Vec b, Vec x, Vec w, PetscInt n, PetscBool zero)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  Vec          in  = x;

  PetscFunctionBegin;
  PetscCheck(jac->setup, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "PCBJSMOOTH: the preconditioner is not set up: call PCSetUp() (or KSPSetUp()) first");
  if (n <= 0) {
    if (zero) PetscCall(VecZeroEntries(x));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (jac->async) {
    for (PetscInt k = 0; k < n; k++) PetscCall(PCBJSmoothSweep(pc, b, x, x, (PetscBool)(zero && k == 0)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!zero && n % 2 == 1) { /* the first sweep must not write into its own input */
    PetscCall(VecCopy(x, w));
    in = w;
  }
  for (PetscInt k = 0; k < n; k++) {
    Vec out = ((n - 1 - k) % 2 == 0) ? x : w;

    PetscCall(PCBJSmoothSweep(pc, b, in, out, (PetscBool)(zero && k == 0)));
    in = out;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The vectors the sweeps run on: r and z themselves, or (a GPU setup given vectors in host memory, e.g. from
   VecCreate() without -vec_type) device copies; work is a device vector like them */
static PetscErrorCode PCBJSmoothVecs(PC pc, Vec r, Vec z, PetscBool zin, Vec *ru, Vec *zu)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *ru = r;
  *zu = z;
  PetscCall(PCMSStageIn(&jac->op, 0, r, PETSC_TRUE, ru));
  PetscCall(PCMSStageIn(&jac->op, 1, z, zin, zu));
  if (!jac->async && jac->its > 1 && !jac->work) PetscCall(VecDuplicate(*zu, &jac->work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode PCApply_BJSmooth(PC pc, Vec r, Vec z)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  Vec          ru, zu;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(PC_BJSmoothApply, pc, r, z, 0));
  PetscCall(PCBJSmoothVecs(pc, r, z, PETSC_FALSE, &ru, &zu));
  PetscCall(PCBJSmoothOuter(pc, ru, zu, jac->work, jac->its, PETSC_TRUE));
  PetscCall(PCMSStageOut(z, zu));
  PetscCall(PetscLogEventEnd(PC_BJSmoothApply, pc, r, z, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyRichardson_BJSmooth(PC pc, Vec b, Vec y, Vec w, PetscReal rtol, PetscReal abstol, PetscReal dtol, PetscInt its, PetscBool guesszero, PetscInt *outits, PCRichardsonConvergedReason *reason)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  Vec          bu, yu;

  PetscFunctionBegin;
  (void)rtol;
  (void)abstol;
  (void)dtol;
  PetscCall(PetscLogEventBegin(PC_BJSmoothApply, pc, b, y, 0));
  PetscCall(PCBJSmoothVecs(pc, b, y, (PetscBool)!guesszero, &bu, &yu));
  if (yu != y) { /* w is in host memory like y: a device work vector instead */
    if (!jac->work) PetscCall(VecDuplicate(yu, &jac->work));
    w = jac->work;
  }
  PetscCall(PCBJSmoothOuter(pc, bu, yu, w, its * jac->its, guesszero));
  PetscCall(PCMSStageOut(y, yu));
  PetscCall(PetscLogEventEnd(PC_BJSmoothApply, pc, b, y, 0));
  *outits = its;
  *reason = PCRICHARDSON_CONVERGED_ITS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* ---------------------------------------------------------------------------------------------- */

static PetscErrorCode PCBJSmoothFreeWork(PC pc)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&jac->offp));
  PetscCall(VecDestroy(&jac->work));
  PetscCall(PCMSBufferDestroy(&jac->zlc));
  PetscCall(PCMSBufferDestroy(&jac->zlv));
  PetscCall(PCMSBufferDestroy(&jac->zdinv));
  PetscCall(PCMSBufferDestroy(&jac->zwork));
  PetscCall(PCMSBufferDestroy(&jac->chebtab));
  jac->cheb_its = 0;
  jac->zfast    = PETSC_FALSE;
  jac->bucketed = PETSC_FALSE;
  jac->setup = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the inner sweeps when not set: 5, with inner chebyshev 5 (sh / 512)^(2/3) rounded for blocks above 512 rows (8 for
   1024): a larger block's polynomial needs a higher degree for the same accuracy (its interval is wider, the ratio
   below): FVM tetrahedra 10.4 M, randomly numbered, partition blocks of 1024: 728 CG iterations with 8 sweeps against
   877 with blocks of 512 and 5 sweeps, at the same time per iteration (H100, 2026-11-24,
   docs/bjsmooth.md) */
static PetscInt PCBJSmoothAutoSweeps(PCBJSmoothInner inner, PetscInt sh)
{
  if (inner != PCBJSMOOTH_INNER_CHEBYSHEV || sh <= 512) return 5;
  return (PetscInt)PetscFloorReal(5.0 * PetscPowReal((PetscReal)sh / 512.0, 2.0 / 3.0) + 0.5);
}

/* inner chebyshev's ratio: the one set, else 20 (sh / 512)^(2/3), at least 4: the smallest eigenvalue of a block's
   D^-1 A_ll of a 3D Laplacian falls like its rows^(-2/3) (1 - cos(pi / 9) = 0.06 for a brick of 8^3, 0.19 for 4^3);
   the fewest CG iterations with 20 for blocks of 512 (FVM tetrahedra, ex45), 4-10 for blocks of 64 (a 7-point 8^3
   grid): iteration counts of host runs, 2026-11-24, docs/bjsmooth.md */
static PetscReal PCBJSmoothChebRatio(PC_BJSmooth *jac)
{
  if (jac->cheb_ratio > 0.0) return jac->cheb_ratio;
  return PetscMax((PetscReal)4.0, (PetscReal)(20.0 * PetscPowReal((PetscReal)jac->sh / 512.0, 2.0 / 3.0)));
}

/* nloc (eq. 4.15), the diagonal check and the non-finite values, on the images where they live; errors name the
   first offending row over all processes */
static PetscErrorCode PCBJSmoothAnalyze(PC pc)
{
  PC_BJSmooth  *jac = (PC_BJSmooth *)pc->data;
  PCMSOperator *op  = &jac->op;
  PetscInt64    bad[2] = {-1, -1}, g[2]; /* the first row with a non-finite value, with a diagonal not positive */
  void         *stream;

  PetscFunctionBegin;
  PetscCall(PCMSBufferEnsure(op, &jac->status, sizeof(MSBJSStatus), "PCBJSMOOTH's setup status"));
  for (PetscInt which = 0; which < (op->mpi ? 2 : 1); which++) {
    MSImageView v;
    MSBJSStatus h;
    int         err;

    PetscCall(PCMSOperatorGetView(op, which, &v));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->analyze(&v, (MSBJSStatus *)jac->status.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "analyze", 0.0));
    PetscCall(PCMSReadBack(op, &h, jac->status.ptr, sizeof(h)));
    if (!which) {
      double g;

      jac->nloc = (PetscInt)h.maxloc;
      bad[1]    = h.badrow == MS_BJS_BAD_NONE ? -1 : (PetscInt64)h.badrow;
      PetscCall(PetscMemcpy(&g, &h.gersh, sizeof(g)));
      jac->gersh = (PetscReal)g;
    }
    if (h.badval != MS_BJS_BAD_NONE && (bad[0] < 0 || (PetscInt64)h.badval < bad[0])) bad[0] = (PetscInt64)h.badval;
  }
  PetscCall(PCMSFirstBad(pc, op, 1, 2, bad, g));
  PetscCheck(g[0] < 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_FP, "PCBJSMOOTH: row %" PetscInt_FMT " of the operator holds a non-finite entry (Inf or NaN): fix the assembly of the matrix", (PetscInt)g[0]);
  if (g[1] >= 0) PetscCall(PCMSErrorDiagonal(pc, (PetscInt)g[1], "the block sweeps divide by the diagonal and need an SPD-like operator", "assemble a positive diagonal, scale the system by -1 if it is negative definite, or use another preconditioner"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A permuted image on the GPU: the bucketed permutation of its product, shared with the image's own product (built
   here when it is not yet, so that no application allocates), and the work the sweeps need: the result in the image's
   order (zero-guess Jacobi path, one bucket), or the copies of the bucketed path (bjsmoothkernels.h,
   MS_BJS_BUCKET_WORK: b and the result from a zero guess; offp and xin too for the sweeps from a nonzero iterate,
   run when there is more than one synchronous outer iteration; others from a nonzero iterate, e.g.
   PCApplyRichardson() with a nonzero guess and one outer iteration, read through perm) */
static PetscErrorCode PCBJSmoothSetUpBuckets(PC pc)
{
  PC_BJSmooth  *jac   = (PC_BJSmooth *)pc->data;
  PCMSOperator *op    = &jac->op;
  size_t        bytes = 0;
  MSImageView   v;
  MSPermBuckets pb;
  PetscBool     has;

  PetscFunctionBegin;
  jac->bucketed = PETSC_FALSE;
  jac->nbuckets = 1;
  jac->chunk    = 0;
  if (!jac->k->permuted_work || op->m <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCMSOperatorGetView(op, 0, &v));
  if (!v.perm) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCMSOperatorGetPermBuckets(op, &v, &pb, &has));
  if (has && pb.nbuckets > 1) {
    const PetscBool nonzero = (PetscBool)(jac->its > 1 && !jac->async);

    jac->bucketed = PETSC_TRUE;
    jac->nbuckets = pb.nbuckets;
    jac->chunk    = pb.chunk;
    bytes         = MS_BJS_BUCKET_WORK(op->m, PETSC_FALSE, PETSC_TRUE) * sizeof(double);
    if (nonzero) bytes = PetscMax(bytes, MS_BJS_BUCKET_WORK(op->m, op->mpi, PETSC_FALSE) * sizeof(double));
  }
  if (!jac->bucketed && jac->zfast) bytes = (size_t)op->m * sizeof(double);
  if (bytes) PetscCall(PCMSBufferEnsure(op, &jac->zwork, bytes, jac->bucketed ? "PCBJSMOOTH's copies of b, the off-process part, the iterate and the result in the buckets of the permuted image" : "PCBJSMOOTH's result in the image's order"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The symmetry of the blocks A_ll: MatIsSymmetricKnown() when the operator tells (a symmetric operator has symmetric
   blocks; one known nonsymmetric is taken as such), else the check of the blocks on the backend (MS_BJS_SYMMETRY: every
   in-slice entry against its transpose, on at most BJS_SYMMETRY_SLICES slices of each process), summed over the
   processes: the blocks are symmetric when no entry differs (rows decoupled in their block, e.g. Dirichlet rows kept
   with a one on the diagonal, aside) */
static PetscErrorCode PCBJSmoothSymmetry(PC pc)
{
  PC_BJSmooth  *jac = (PC_BJSmooth *)pc->data;
  PCMSOperator *op  = &jac->op;
  PetscBool     set, flg;
  PetscInt64    cnt[3];
  PetscInt      first;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&jac->symres, sizeof(jac->symres)));
  jac->symres.firstrow = MS_BJS_BAD_NONE;
  jac->sym_stride      = 0;
  PetscCall(MatIsSymmetricKnown(pc->pmat, &set, &flg));
  jac->sym_known = set;
  if (set) {
    jac->sym = flg;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  jac->sym_stride = PetscMax(1, (jac->nblocks + BJS_SYMMETRY_SLICES - 1) / BJS_SYMMETRY_SLICES);
  {
    MSImageView   v;
    MSBJSSymmetry h;
    void         *stream;
    int           err;

    PetscCall(PCMSBufferEnsure(op, &jac->status, PetscMax(sizeof(MSBJSStatus), sizeof(MSBJSSymmetry)), "PCBJSMOOTH's setup status"));
    PetscCall(PCMSOperatorGetView(op, 0, &v));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = jac->k->symmetry(&v, (int)jac->sym_stride, (MSBJSSymmetry *)jac->status.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, jac->k->backend, "symmetry", 0.0));
    PetscCall(PCMSReadBack(op, &h, jac->status.ptr, sizeof(h)));
    cnt[0] = (PetscInt64)h.nchecked;
    cnt[1] = (PetscInt64)h.nasym;
    cnt[2] = (PetscInt64)h.ndecoupled;
    first  = h.firstrow == MS_BJS_BAD_NONE ? PETSC_INT_MAX : (PetscInt)h.firstrow + op->rstart;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, cnt, 3, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)pc)));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &first, 1, MPIU_INT, MPI_MIN, PetscObjectComm((PetscObject)pc)));
  jac->symres.nchecked   = (unsigned long long)cnt[0];
  jac->symres.nasym      = (unsigned long long)cnt[1];
  jac->symres.ndecoupled = (unsigned long long)cnt[2];
  jac->symres.firstrow   = first == PETSC_INT_MAX ? MS_BJS_BAD_NONE : (unsigned long long)first;
  jac->sym               = (PetscBool)(cnt[1] == 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the symmetry of the blocks in words (for PCView and -info) */
static PetscErrorCode PCBJSmoothSymmetryWhy(PC_BJSmooth *jac, char *why, size_t len)
{
  PetscFunctionBegin;
  if (jac->sym_known) PetscCall(PetscSNPrintf(why, len, "the operator is known to be %s (MatIsSymmetricKnown())", jac->sym ? "symmetric" : "nonsymmetric"));
  else if (!jac->sym) PetscCall(PetscSNPrintf(why, len, "the operator's blocks are not symmetric: %llu of %llu in-block entries differ from their transpose, the first in row %llu (checked at setup%s)", jac->symres.nasym, jac->symres.nchecked, jac->symres.firstrow, jac->sym_stride > 1 ? ", a sample of the blocks" : ""));
  else if (jac->symres.ndecoupled) PetscCall(PetscSNPrintf(why, len, "the operator's blocks are symmetric (checked at setup%s: %llu in-block entries) but for %llu entries coupling rows to rows with no other coupling in their block (Dirichlet rows), which keep the blocks' spectrum real", jac->sym_stride > 1 ? " on a sample of the blocks" : "", jac->symres.nchecked, jac->symres.ndecoupled));
  else PetscCall(PetscSNPrintf(why, len, "the operator's blocks are symmetric (checked at setup%s: %llu in-block entries)", jac->sym_stride > 1 ? " on a sample of the blocks" : "", jac->symres.nchecked));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inner method: the one set, or (PCBJSMOOTH_INNER_AUTO) chebyshev on symmetric blocks (an SPD M^-1 for every SPD
   operator), else Gauss-Seidel: gs, or sgs when the Krylov method of the solve needs a symmetric preconditioner (CG; a
   symmetric splitting of each block). On the suite's randomly numbered SUPG system (24389 unknowns, the CPU) GMRES(30)
   did not converge with inner chebyshev in 2000 iterations and BiCGStab diverged; gs: 550 and 163 iterations, sgs with 3
   sweeps (6 passes): 494 and 144. -info says what was chosen and why, and when a method set does not fit. */
static PetscErrorCode PCBJSmoothChoose(PC pc)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  char         sym[224];

  PetscFunctionBegin;
  PetscCall(PCBJSmoothSymmetryWhy(jac, sym, sizeof(sym)));
  if (jac->inner_set != PCBJSMOOTH_INNER_AUTO) {
    jac->inner = jac->inner_set;
    PetscCall(PetscSNPrintf(jac->innerwhy, sizeof(jac->innerwhy), "as set"));
    if (!jac->sym && (jac->inner == PCBJSMOOTH_INNER_CHEBYSHEV || jac->inner == PCBJSMOOTH_INNER_CG)) PetscCall(PetscInfo(pc, "PCBJSMOOTH: inner %s as set, but %s: the method assumes symmetric blocks and may diverge; -pc_bjsmooth_inner auto (gs here) is safe\n", PCBJSmoothInners[jac->inner], sym));
    if (jac->inner == PCBJSMOOTH_INNER_GS && jac->ksp_sym == PETSC_BOOL3_TRUE) PetscCall(PetscInfo(pc, "PCBJSMOOTH: inner gs as set gives a nonsymmetric preconditioner, but the Krylov method needs a symmetric one: use -pc_bjsmooth_inner sgs or auto\n"));
  } else if (jac->sym) {
    jac->inner = PCBJSMOOTH_INNER_CHEBYSHEV;
    PetscCall(PetscSNPrintf(jac->innerwhy, sizeof(jac->innerwhy), "automatic: %s", sym));
  } else if (jac->ksp_sym == PETSC_BOOL3_TRUE) {
    jac->inner = PCBJSMOOTH_INNER_SGS;
    PetscCall(PetscSNPrintf(jac->innerwhy, sizeof(jac->innerwhy), "automatic: %s; symmetric Gauss-Seidel for a Krylov method that needs a symmetric preconditioner", sym));
  } else {
    jac->inner = PCBJSMOOTH_INNER_GS;
    PetscCall(PetscSNPrintf(jac->innerwhy, sizeof(jac->innerwhy), "automatic: %s", sym));
  }
  PetscCall(PetscInfo(pc, "PCBJSMOOTH: inner %s (%s)\n", PCBJSmoothInners[jac->inner], jac->innerwhy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What depends on the inner method: its sweeps and Chebyshev interval, the shared memory, the zero-guess path, the
   buckets' work and the Chebyshev table */
static PetscErrorCode PCBJSmoothSetUpInner(PC pc)
{
  PC_BJSmooth  *jac = (PC_BJSmooth *)pc->data;
  PCMSOperator *op  = &jac->op;
  int           use_shared, err;

  PetscFunctionBegin;
  if (jac->inner_its_auto) jac->inner_its = PCBJSmoothAutoSweeps(jac->inner, jac->sh);
  jac->cheb_hi = jac->inner == PCBJSMOOTH_INNER_CHEBYSHEV ? 1.0 + jac->gersh : 0.0; /* 0: not Chebyshev */
  jac->cheb_lo = jac->cheb_hi / PCBJSmoothChebRatio(jac);

  /* shared memory (eq. 4.15) and the fallback */
  err = jac->k->configure((int)jac->sh, (int)jac->nloc, (int)jac->inner, (int)jac->force_global, &use_shared, &jac->smem, &jac->smem_needed, &jac->smem_optin);
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_GPU, "PCBJSMOOTH: the %s kernel configure failed with code %d", jac->k->backend, err);
  jac->use_shared = (PetscBool)(use_shared != 0);
  if (!jac->use_shared && !jac->force_global) PetscCall(PetscInfo(pc, "PCBJSMOOTH: %zu bytes of shared memory per block (slice height %" PetscInt_FMT ", %" PetscInt_FMT " in-slice entries per row) exceed the device's limit %zu: the inner sweeps read the in-slice coefficients from global memory\n", jac->smem_needed, jac->sh, jac->nloc, jac->smem_optin));

  /* zero-guess Jacobi (and Chebyshev) path: the compact in-slice block, refreshed at every setup (the values may have changed) */
  jac->zfast = PETSC_FALSE;
  if ((jac->inner == PCBJSMOOTH_INNER_JACOBI || jac->inner == PCBJSMOOTH_INNER_CHEBYSHEV) && jac->inner_rtol == 0.0 && !jac->force_global && jac->nloc > 0 && jac->nloc <= MS_PATTERN_MAXLOC && op->m > 0) {
    const MSPatternKernels *pk = PCMSKernels(op, MSPatternKernels);
    const size_t            nl = (size_t)jac->nloc * (size_t)op->m;
    MSImageView             v;
    void                   *stream;

    PetscCall(PCMSBufferEnsure(op, &jac->zlc, nl * sizeof(short), "PCBJSMOOTH's compact in-slice columns"));
    PetscCall(PCMSBufferEnsure(op, &jac->zlv, nl * sizeof(double), "PCBJSMOOTH's compact in-slice values"));
    PetscCall(PCMSBufferEnsure(op, &jac->zdinv, (size_t)op->m * sizeof(double), "PCBJSMOOTH's inverse diagonal"));
    PetscCall(PCMSOperatorGetView(op, 0, &v));
    PetscCall(PCMSKernelBegin(op, &stream));
    err = pk->extract_local(&v, (int)jac->nloc, MS_PART_ALL, (short *)jac->zlc.ptr, (double *)jac->zlv.ptr, (double *)jac->zdinv.ptr, stream);
    PetscCall(PCMSKernelEnd(op, err, pk->backend, "extract_local", (PetscLogDouble)op->m));
    jac->zfast = PETSC_TRUE;
  }
  PetscCall(PCBJSmoothSetUpBuckets(pc));
  {
    const double *tab;

    PetscCall(PCBJSmoothChebTable(pc, &tab)); /* now, not in the first application */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetUp_BJSmooth(PC pc)
{
  PC_BJSmooth           *jac = (PC_BJSmooth *)pc->data;
  PCMSOperator          *op  = &jac->op;
  const PCMSImageRequest dreq = {PCMS_ENCODING_MODSELL, jac->bs, jac->ordering, PETSC_TRUE}, oreq = {PCMS_ENCODING_PLAIN, 0, PCMS_ORDERING_ANY, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCall(PCMSOperatorSetUp(pc, op, &dreq, &oreq));
  jac->k = PCMSKernels(op, MSBJSKernels);
  if (op->rebuilt) PetscCall(PCBJSmoothFreeWork(pc));
  {
    const MSImageLayout *l;

    PetscCall(MSImageGetLayout(op->img[0], &l));
    jac->sh      = l->sh;
    jac->nblocks = l->nslices;
  }
  if (op->mpi && !jac->offp) PetscCall(PCMSCreateVec(op, PetscObjectComm((PetscObject)pc), op->m, &jac->offp));
  PetscCall(PCBJSmoothAnalyze(pc));
  PetscCall(PCBJSmoothSymmetry(pc));
  PetscCall(PCBJSmoothChoose(pc));
  PetscCall(PCBJSmoothSetUpInner(pc));
  jac->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Krylov method of the solve: does it need a symmetric preconditioner? The automatic inner method follows (sgs
   instead of gs on nonsymmetric blocks); the setup's parts that depend on the method are made again when it changes */
static PetscErrorCode PCPreSolve_BJSmooth(PC pc, KSP ksp, Vec b, Vec x)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;
  PetscBool    symksp;
  PetscBool3   need;

  PetscFunctionBegin;
  (void)b;
  (void)x;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &symksp, KSPCG, KSPPIPECG, KSPPIPECGRR, KSPPIPELCG, KSPPIPECG2, KSPGROPPCG, KSPFCG, KSPPIPEFCG, KSPNASH, KSPSTCG, KSPGLTR, KSPQCG, KSPMINRES, KSPSYMMLQ, KSPCR, KSPPIPECR, KSPCGDEVICE, ""));
  need = symksp ? PETSC_BOOL3_TRUE : PETSC_BOOL3_FALSE;
  if (need == jac->ksp_sym) PetscFunctionReturn(PETSC_SUCCESS);
  jac->ksp_sym = need;
  if (jac->setup && jac->inner_set == PCBJSMOOTH_INNER_AUTO && !jac->sym) { /* only then does the Krylov method matter */
    const PCBJSmoothInner old = jac->inner;

    PetscCall(PCBJSmoothChoose(pc));
    if (jac->inner != old) PetscCall(PCBJSmoothSetUpInner(pc));
  } else if (jac->setup && jac->inner_set == PCBJSMOOTH_INNER_GS && need == PETSC_BOOL3_TRUE) PetscCall(PetscInfo(pc, "PCBJSMOOTH: inner gs as set gives a nonsymmetric preconditioner, but the Krylov method (%s) needs a symmetric one: use -pc_bjsmooth_inner sgs or auto\n", ((PetscObject)ksp)->type_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_BJSmooth(PC pc)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCBJSmoothFreeWork(pc));
  PetscCall(PCMSOperatorReset(&jac->op));
  PetscCall(PCMSBufferDestroy(&jac->status));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_BJSmooth(PC pc, PetscOptionItems PetscOptionsObject)
{
  PC_BJSmooth    *jac   = (PC_BJSmooth *)pc->data;
  PetscInt        bs    = jac->bs, iits = jac->inner_its, its = jac->its;
  PetscBool       iitsset;
  PetscReal       rtol  = jac->inner_rtol, ratio = jac->cheb_ratio;
  PCBJSmoothInner inner = jac->inner_set;
  PetscBool       async = jac->async, global = jac->force_global, flg;
  /* "operator", then MatModSELLOrderings' names in the enum's order */
  const char *ords[MATMODSELL_ORDERING_AUTO + 2] = {"operator"};
  PetscInt    ord = jac->ordering == PCMS_ORDERING_ANY ? 0 : (PetscInt)jac->ordering + 1;

  PetscFunctionBegin;
  for (PetscInt o = 0; o <= MATMODSELL_ORDERING_AUTO; o++) ords[o + 1] = MatModSELLOrderings[o];
  PetscOptionsHeadBegin(PetscOptionsObject, "Block Jacobi smoother (mod-SELL slices) options");
  PetscCall(PetscOptionsEList("-pc_bjsmooth_ordering", "Row ordering of the image whose slices are the blocks: operator (the MATMODSELL operator's image, else auto), or the PC's own image of the operator in this ordering (the operator's product is unchanged)", "PCBJSMOOTH", ords, PETSC_STATIC_ARRAY_LENGTH(ords), ords[ord], &ord, &flg));
  if (flg) PetscCall(PCBJSmoothSetOrdering(pc, ord ? (MatModSELLOrdering)(ord - 1) : PCBJSMOOTH_ORDERING_OPERATOR));
  PetscCall(PetscOptionsBoundedInt("-pc_bjsmooth_block_size", "Rows per block = slice height of the mod-SELL image (a multiple of 32, at most 1024; 0: the MATMODSELL operator's slice height, else 512; an operator's slice height not set is 512 under bjsmooth)", "PCBJSmoothSetBlockSize", bs, &bs, &flg, 0));
  if (flg) PetscCall(PCBJSmoothSetBlockSize(pc, bs));
  PetscCall(PetscOptionsEnum("-pc_bjsmooth_inner", "Inner method on each block: jacobi, gs (warp-serialised forward Gauss-Seidel), sgs (forward then backward), cg, chebyshev, or auto (chebyshev on symmetric blocks, else gs, sgs under CG)", "PCBJSmoothSetInner", PCBJSmoothInners, (PetscEnum)inner, (PetscEnum *)&inner, NULL));
  PetscCall(PetscOptionsBoundedInt("-pc_bjsmooth_inner_its", "Inner sweeps (iterations) per block and outer iteration (at most, with -pc_bjsmooth_inner_rtol); default: 5, with inner chebyshev 5 (block size / 512)^(2/3) for larger blocks (8 for 1024)", "PCBJSmoothSetInner", iits, &iits, &iitsset, 1));
  if (!iitsset) iits = PETSC_CURRENT;
  PetscCall(PetscOptionsRangeReal("-pc_bjsmooth_inner_rtol", "Stop the inner sweeps of a block when its residual norm is at most this times its right-hand side's (0: always -pc_bjsmooth_inner_its)", "PCBJSmoothSetInner", rtol, &rtol, NULL, 0.0, 1.0));
  PetscCall(PCBJSmoothSetInner(pc, inner, iits, rtol));
  PetscCall(PetscOptionsReal("-pc_bjsmooth_chebyshev_ratio", "Inner chebyshev: the interval is [hi / ratio, hi], hi a Gershgorin bound of the spectrum of each block's D^-1 A (ratio > 1; 0: 20 (block size / 512)^(2/3), at least 4)", "PCBJSmoothSetChebyshevRatio", ratio, &ratio, &flg));
  if (flg) PetscCall(PCBJSmoothSetChebyshevRatio(pc, ratio));
  PetscCall(PetscOptionsBoundedInt("-pc_bjsmooth_its", "Outer (block Jacobi) iterations per application", "PCBJSmoothSetIterations", its, &its, &flg, 1));
  if (flg) PetscCall(PCBJSmoothSetIterations(pc, its));
  PetscCall(PetscOptionsBool("-pc_bjsmooth_async", "Block-asynchronous outer iterations (one array; blocks read what others already wrote): M^-1 becomes nonlinear", "PCBJSmoothSetAsync", async, &async, &flg));
  if (flg) PetscCall(PCBJSmoothSetAsync(pc, async));
  PetscCall(PetscOptionsBool("-pc_bjsmooth_global_coefficients", "Read the in-slice coefficients from global memory in the inner sweeps (the fallback taken when they do not fit in shared memory)", "PCBJSmoothSetGlobalCoefficients", global, &global, &flg));
  if (flg) PetscCall(PCBJSmoothSetGlobalCoefficients(pc, global));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------- */
/* public interface                                                                                */

static PetscErrorCode PCBJSmoothSetBlockSize_BJSmooth(PC pc, PetscInt bs)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  jac->bs = bs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothSetBlockSize - Sets the rows per block of `PCBJSMOOTH`: the slice height of the mod-SELL image it works on

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- bs - a multiple of 32, at most 1024; 0 (default): the slice height of a `MATMODSELL` operator (512 unless set with
        `MatModSELLSetSliceHeight()`), else 512

  Options Database Key:
. -pc_bjsmooth_block_size <0> - the block size

  Level: intermediate

  Notes:
  With a `MATMODSELL` operator of another slice height the preconditioner builds its own image of the operator.

  A `MATMODSELL` operator whose slice height was not set takes slices of 512 rows when `PCBJSMOOTH` uses its image
  (before the image is built): blocks of 512 take fewer outer iterations than blocks of 128 at the same cost per
  iteration on the GPU (docs/bjsmooth.md).

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothGetBlockSize()`, `MatModSELLSetSliceHeight()`
@*/
PetscErrorCode PCBJSmoothSetBlockSize(PC pc, PetscInt bs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, bs, 2);
  PetscCheck(bs >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: the block size %" PetscInt_FMT " must be 0 (automatic) or a multiple of 32 up to 1024", bs);
  if (bs) PetscCall(MSCheckSliceHeight(PetscObjectComm((PetscObject)pc), bs));
  PetscTryMethod(pc, "PCBJSmoothSetBlockSize_C", (PC, PetscInt), (pc, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothGetBlockSize_BJSmooth(PC pc, PetscInt *bs)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *bs = jac->setup ? jac->sh : jac->bs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothGetBlockSize - Gets the block size of `PCBJSMOOTH`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. bs - the block size set (0: automatic), or after a setup the one in use

  Level: intermediate

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothSetBlockSize()`
@*/
PetscErrorCode PCBJSmoothGetBlockSize(PC pc, PetscInt *bs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(bs, 2);
  PetscUseMethod(pc, "PCBJSmoothGetBlockSize_C", (PC, PetscInt *), (pc, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothSetInner_BJSmooth(PC pc, PCBJSmoothInner inner, PetscInt its, PetscReal rtol)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  if (jac->setup && inner != jac->inner_set) pc->setupcalled = PETSC_FALSE; /* the setup's paths and interval follow the method */
  jac->inner_set = inner;
  if (inner != PCBJSMOOTH_INNER_AUTO) jac->inner = inner;
  if (its == PETSC_DETERMINE) {
    if (jac->setup && !jac->inner_its_auto) pc->setupcalled = PETSC_FALSE;
    jac->inner_its_auto = PETSC_TRUE;
  } else if (its != PETSC_CURRENT) {
    jac->inner_its      = its;
    jac->inner_its_auto = PETSC_FALSE;
  }
  if (rtol != (PetscReal)PETSC_CURRENT) jac->inner_rtol = rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothSetInner - Sets the method `PCBJSMOOTH` runs inside each block

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
. inner - `PCBJSMOOTH_INNER_AUTO` (default), `PCBJSMOOTH_INNER_CHEBYSHEV`, `PCBJSMOOTH_INNER_JACOBI`, `PCBJSMOOTH_INNER_GS`,
          `PCBJSMOOTH_INNER_SGS` or `PCBJSMOOTH_INNER_CG`
. its   - inner sweeps per block and outer iteration, at least 1 (the most with a tolerance), `PETSC_DETERMINE` (the default:
          5, with inner Chebyshev 5 (block size / 512)^(2/3) rounded for blocks of more than 512 rows, 8 for 1024), or
          `PETSC_CURRENT`
- rtol  - stop a block's sweeps when its residual norm is at most this times its right-hand side's, in [0, 1)
          (0, the default: always its sweeps), or `PETSC_CURRENT`

  Options Database Keys:
+ -pc_bjsmooth_inner <auto,chebyshev,jacobi,gs,sgs,cg> - the method
. -pc_bjsmooth_inner_its <5>            - the sweeps (default: from the block size)
- -pc_bjsmooth_inner_rtol <0>           - the tolerance

  Level: intermediate

  Notes:
  `PCBJSMOOTH_INNER_AUTO` chooses at every setup: chebyshev when the operator's blocks are symmetric
  (`MatIsSymmetricKnown()`, else checked: every entry inside a block against its transpose, rows with no other entry in
  their block, such as Dirichlet rows, aside), which gives an SPD preconditioner for every SPD operator; else gs, or sgs
  when the Krylov method of the solve needs a symmetric preconditioner (`KSPCG` and its variants, `KSPMINRES`, ...;
  known from `PCPreSolve()`, so `PCView()` after `KSPSolve()` shows it). Chebyshev's interval is real: on blocks of a
  nonsymmetric operator (convection) it can diverge. A method set is kept; `-info` says when it does not fit the operator.

  Inner CG and a tolerance make the preconditioner nonlinear: use a flexible Krylov method (`PCView()` says which
  settings suit `KSPCG`).

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothGetInner()`, `PCBJSmoothSetIterations()`, `PCBJSmoothInner`
@*/
PetscErrorCode PCBJSmoothSetInner(PC pc, PCBJSmoothInner inner, PetscInt its, PetscReal rtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, inner, 2);
  PetscValidLogicalCollectiveInt(pc, its, 3);
  PetscValidLogicalCollectiveReal(pc, rtol, 4);
  PetscCheck(inner >= PCBJSMOOTH_INNER_JACOBI && inner <= PCBJSMOOTH_INNER_AUTO, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: unknown inner method %d: use PCBJSMOOTH_INNER_AUTO, _JACOBI, _GS, _SGS, _CG or _CHEBYSHEV", (int)inner);
  PetscCheck(its >= 1 || its == PETSC_CURRENT || its == PETSC_DETERMINE, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: %" PetscInt_FMT " inner sweeps: give at least 1 (or PETSC_DETERMINE: from the block size)", its);
  PetscCheck((rtol >= 0.0 && rtol < 1.0) || rtol == (PetscReal)PETSC_CURRENT, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: the inner tolerance %g must be in [0, 1)", (double)rtol);
  PetscTryMethod(pc, "PCBJSmoothSetInner_C", (PC, PCBJSmoothInner, PetscInt, PetscReal), (pc, inner, its, rtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothGetInner_BJSmooth(PC pc, PCBJSmoothInner *inner, PetscInt *its, PetscReal *rtol)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  if (inner) *inner = jac->inner_set == PCBJSMOOTH_INNER_AUTO && !jac->setup ? PCBJSMOOTH_INNER_AUTO : jac->inner;
  if (its) *its = jac->inner_its;
  if (rtol) *rtol = jac->inner_rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothGetInner - Gets the method `PCBJSMOOTH` runs inside each block

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameters:
+ inner - the method, or `NULL`: the one set; with `PCBJSMOOTH_INNER_AUTO` after a setup the one chosen
. its   - the inner sweeps, or `NULL`
- rtol  - the inner tolerance, or `NULL`

  Level: intermediate

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothSetInner()`
@*/
PetscErrorCode PCBJSmoothGetInner(PC pc, PCBJSmoothInner *inner, PetscInt *its, PetscReal *rtol)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCBJSmoothGetInner_C", (PC, PCBJSmoothInner *, PetscInt *, PetscReal *), (pc, inner, its, rtol));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothSetChebyshevRatio_BJSmooth(PC pc, PetscReal ratio)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  jac->cheb_ratio = ratio;
  if (jac->setup) jac->cheb_lo = jac->cheb_hi / PCBJSmoothChebRatio(jac);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothSetChebyshevRatio - Sets the interval of `PCBJSMOOTH`'s inner Chebyshev iteration

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- ratio - greater than 1: the interval is [hi / ratio, hi]; 0 (default): automatic, 20 (bs / 512)^(2/3) and at least 4
          for blocks of bs rows

  Options Database Key:
. -pc_bjsmooth_chebyshev_ratio <0> - the ratio

  Level: advanced

  Notes:
  hi is 1 plus the largest sum, over the rows with a positive diagonal, of the absolute values of a row's in-block
  entries divided by its diagonal entry: a Gershgorin bound of the spectrum of every block's D^-1 A_ll, computed at
  setup. Because hi bounds the spectrum, the inner polynomial is positive on it and one outer iteration gives a
  symmetric positive definite M^-1 for every SPD operator, whatever the ratio and the number of sweeps. The ratio
  only places the low end: the sweeps damp the error components of the block between hi / ratio and hi, those below
  less. The smallest eigenvalue of a block of a 3D Laplacian falls like its rows^(-2/3), hence the automatic ratio:
  20 took the fewest CG iterations on 7-point Laplacians and FVM tetrahedral meshes with 5 sweeps and blocks of 512
  rows, 4-10 with blocks of 64 (docs/bjsmooth.md).

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothGetChebyshevRatio()`, `PCBJSmoothSetInner()`, `PCBJSMOOTH_INNER_CHEBYSHEV`
@*/
PetscErrorCode PCBJSmoothSetChebyshevRatio(PC pc, PetscReal ratio)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, ratio, 2);
  PetscCheck(ratio == 0.0 || (ratio > 1.0 && PetscIsNormalReal(ratio)), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: the Chebyshev ratio %g must be 0 (automatic) or a finite number greater than 1 (the interval is [hi / ratio, hi])", (double)ratio);
  PetscTryMethod(pc, "PCBJSmoothSetChebyshevRatio_C", (PC, PetscReal), (pc, ratio));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothGetChebyshevRatio_BJSmooth(PC pc, PetscReal *ratio)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *ratio = jac->cheb_ratio;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothGetChebyshevRatio - Gets the ratio of the interval of `PCBJSMOOTH`'s inner Chebyshev iteration

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. ratio - the interval is [hi / ratio, hi]; 0: automatic (`PCBJSmoothSetChebyshevRatio()`)

  Level: advanced

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothSetChebyshevRatio()`
@*/
PetscErrorCode PCBJSmoothGetChebyshevRatio(PC pc, PetscReal *ratio)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(ratio, 2);
  PetscUseMethod(pc, "PCBJSmoothGetChebyshevRatio_C", (PC, PetscReal *), (pc, ratio));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothSetIterations_BJSmooth(PC pc, PetscInt its)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  jac->its = its;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothSetIterations - Sets the outer (block Jacobi) iterations of one application of `PCBJSMOOTH`

  Logically Collective

  Input Parameters:
+ pc  - the preconditioner context
- its - at least 1 (default 1); as a smoother (`PCApplyRichardson()`) each Richardson iteration runs this many

  Options Database Key:
. -pc_bjsmooth_its <1> - the iterations

  Level: intermediate

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothGetIterations()`, `PCBJSmoothSetInner()`
@*/
PetscErrorCode PCBJSmoothSetIterations(PC pc, PetscInt its)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, its, 2);
  PetscCheck(its >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: %" PetscInt_FMT " outer iterations: give at least 1", its);
  PetscTryMethod(pc, "PCBJSmoothSetIterations_C", (PC, PetscInt), (pc, its));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothGetIterations_BJSmooth(PC pc, PetscInt *its)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *its = jac->its;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothGetIterations - Gets the outer iterations of one application of `PCBJSMOOTH`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. its - the iterations

  Level: intermediate

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothSetIterations()`
@*/
PetscErrorCode PCBJSmoothGetIterations(PC pc, PetscInt *its)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(its, 2);
  PetscUseMethod(pc, "PCBJSmoothGetIterations_C", (PC, PetscInt *), (pc, its));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothSetAsync_BJSmooth(PC pc, PetscBool async)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  jac->async = async;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothSetAsync - Sets whether the outer iterations of `PCBJSMOOTH` are block-asynchronous (one array; a block
  reads what other blocks already wrote), which makes the preconditioner nonlinear

  Logically Collective

  Input Parameters:
+ pc    - the preconditioner context
- async - `PETSC_TRUE` for asynchronous iterations (default `PETSC_FALSE`)

  Options Database Key:
. -pc_bjsmooth_async - asynchronous iterations

  Level: advanced

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothGetAsync()`
@*/
PetscErrorCode PCBJSmoothSetAsync(PC pc, PetscBool async)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, async, 2);
  PetscTryMethod(pc, "PCBJSmoothSetAsync_C", (PC, PetscBool), (pc, async));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothGetAsync_BJSmooth(PC pc, PetscBool *async)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *async = jac->async;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothGetAsync - Gets whether the outer iterations of `PCBJSMOOTH` are block-asynchronous

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. async - the setting

  Level: advanced

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothSetAsync()`
@*/
PetscErrorCode PCBJSmoothGetAsync(PC pc, PetscBool *async)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(async, 2);
  PetscUseMethod(pc, "PCBJSmoothGetAsync_C", (PC, PetscBool *), (pc, async));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothSetGlobalCoefficients_BJSmooth(PC pc, PetscBool global)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  jac->force_global = global;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothSetGlobalCoefficients - Makes the inner sweeps of `PCBJSMOOTH` read the in-slice coefficients from the image
  in global memory instead of a copy in shared memory (the fallback taken when they do not fit; for testing)

  Logically Collective

  Input Parameters:
+ pc     - the preconditioner context
- global - `PETSC_TRUE` to force the global-memory path (default `PETSC_FALSE`)

  Options Database Key:
. -pc_bjsmooth_global_coefficients - force it

  Level: developer

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothGetGlobalCoefficients()`
@*/
PetscErrorCode PCBJSmoothSetGlobalCoefficients(PC pc, PetscBool global)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, global, 2);
  PetscTryMethod(pc, "PCBJSmoothSetGlobalCoefficients_C", (PC, PetscBool), (pc, global));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothGetGlobalCoefficients_BJSmooth(PC pc, PetscBool *global)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *global = jac->force_global;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothGetGlobalCoefficients - Gets whether `PCBJSMOOTH` is forced to read the in-slice coefficients from global memory

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. global - the setting

  Level: developer

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothSetGlobalCoefficients()`
@*/
PetscErrorCode PCBJSmoothGetGlobalCoefficients(PC pc, PetscBool *global)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(global, 2);
  PetscUseMethod(pc, "PCBJSmoothGetGlobalCoefficients_C", (PC, PetscBool *), (pc, global));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothSetOrdering_BJSmooth(PC pc, MatModSELLOrdering ordering)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  if (jac->setup && ordering != jac->ordering) pc->setupcalled = PETSC_FALSE; /* another image */
  jac->ordering = ordering;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothSetOrdering - Sets the row ordering of the image whose slices are the blocks of `PCBJSMOOTH`

  Logically Collective

  Input Parameters:
+ pc       - the preconditioner context
- ordering - `PCBJSMOOTH_ORDERING_OPERATOR` (default): the image of a `MATMODSELL` operator (its ordering,
             `MatModSELLSetOrdering()`), of another operator the preconditioner's own image in the automatic ordering;
             or a `MatModSELLOrdering`: the preconditioner's own image of the operator in that ordering unless the
             operator's image has it

  Options Database Key:
. -pc_bjsmooth_ordering <operator> - operator, natural, rcm, bricks, partition or auto

  Level: advanced

  Notes:
  The operator's product is unchanged: with a `MATMODSELL` operator in its natural order and `MATMODSELL_ORDERING_PARTITION`
  here, the product keeps reading x in order while the blocks are compact pieces of the mesh (the same blocks as
  with `-mat_modsell_ordering partition`, whose product would read x through the permutation). Each application then
  reads the right-hand side and writes the result through the permutation. The block size, unless set with
  `PCBJSmoothSetBlockSize()`, is then the automatic one of that ordering (1024 rows for a partition).

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothGetOrdering()`, `MatModSELLSetOrdering()`, `MatModSELLOrdering`
@*/
PetscErrorCode PCBJSmoothSetOrdering(PC pc, MatModSELLOrdering ordering)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, ordering, 2);
  PetscCheck(ordering == PCBJSMOOTH_ORDERING_OPERATOR || (ordering >= MATMODSELL_ORDERING_NATURAL && ordering <= MATMODSELL_ORDERING_AUTO), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "PCBJSMOOTH: unknown ordering %d: use PCBJSMOOTH_ORDERING_OPERATOR or a MatModSELLOrdering", (int)ordering);
  PetscTryMethod(pc, "PCBJSmoothSetOrdering_C", (PC, MatModSELLOrdering), (pc, ordering));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCBJSmoothGetOrdering_BJSmooth(PC pc, MatModSELLOrdering *ordering)
{
  PC_BJSmooth *jac = (PC_BJSmooth *)pc->data;

  PetscFunctionBegin;
  *ordering = jac->ordering;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCBJSmoothGetOrdering - Gets the row ordering asked for the image whose slices are the blocks of `PCBJSMOOTH`

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. ordering - `PCBJSMOOTH_ORDERING_OPERATOR` or a `MatModSELLOrdering` (`PCView()` names the ordering applied)

  Level: advanced

.seealso: [](ch_ksp), `PCBJSMOOTH`, `PCBJSmoothSetOrdering()`
@*/
PetscErrorCode PCBJSmoothGetOrdering(PC pc, MatModSELLOrdering *ordering)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(ordering, 2);
  PetscUseMethod(pc, "PCBJSmoothGetOrdering_C", (PC, MatModSELLOrdering *), (pc, ordering));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static BJSKind PCBJSmoothKind(PC_BJSmooth *jac)
{
  if (jac->async || jac->inner == PCBJSMOOTH_INNER_CG || jac->inner_rtol > 0.0) return BJS_KIND_NONLINEAR;
  if (jac->inner == PCBJSMOOTH_INNER_GS) return BJS_KIND_NONSYM;
  if (jac->setup && !jac->sym) return BJS_KIND_NONSYM_OP;
  if (jac->its % 2 == 1 && jac->inner == PCBJSMOOTH_INNER_CHEBYSHEV) return BJS_KIND_SPD; /* any number of sweeps */
  if (jac->its % 2 == 1 && (jac->inner == PCBJSMOOTH_INNER_SGS || jac->inner_its % 2 == 1)) return jac->inner == PCBJSMOOTH_INNER_SGS ? BJS_KIND_SPD_COND : BJS_KIND_SPD;
  return BJS_KIND_SPD_COND;
}

static PetscErrorCode PCView_BJSmooth(PC pc, PetscViewer viewer)
{
  PC_BJSmooth         *jac = (PC_BJSmooth *)pc->data;
  const MSImageLayout *img = NULL;
  PetscBool            isascii;
  const char          *where, *image;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &isascii));
  if (!isascii) PetscFunctionReturn(PETSC_SUCCESS);
  if (jac->inner_rtol > 0.0) PetscCall(PetscViewerASCIIPrintf(viewer, "  outer iterations %" PetscInt_FMT " (%s), inner %s, at most %" PetscInt_FMT " sweeps, block rtol %g\n", jac->its, jac->async ? "asynchronous" : "synchronous", PCBJSmoothInners[jac->inner], jac->inner_its, (double)jac->inner_rtol));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  outer iterations %" PetscInt_FMT " (%s), inner %s, %" PetscInt_FMT " sweeps%s\n", jac->its, jac->async ? "asynchronous" : "synchronous", PCBJSmoothInners[jac->inner], jac->inner_its, jac->inner_its_auto && jac->setup && jac->inner_its != 5 ? " (from the block size)" : ""));
  if (jac->setup) PetscCall(PetscViewerASCIIPrintf(viewer, "  inner %s: %s\n", PCBJSmoothInners[jac->inner], jac->innerwhy));
  else if (jac->inner_set == PCBJSMOOTH_INNER_AUTO) PetscCall(PetscViewerASCIIPrintf(viewer, "  inner method automatic: chebyshev on symmetric blocks, else gs (sgs under CG), chosen at setup\n"));
  if (jac->inner == PCBJSMOOTH_INNER_CHEBYSHEV) {
    if (jac->setup && jac->cheb_hi > 0.0) PetscCall(PetscViewerASCIIPrintf(viewer, "  inner Chebyshev interval [%g, %g] (a Gershgorin bound of the blocks' D^-1 A / ratio %g%s, that bound)\n", (double)jac->cheb_lo, (double)jac->cheb_hi, (double)(jac->cheb_hi / jac->cheb_lo), jac->cheb_ratio > 0.0 ? "" : " (automatic, from the block size)"));
    else if (jac->cheb_ratio > 0.0) PetscCall(PetscViewerASCIIPrintf(viewer, "  inner Chebyshev interval [hi / %g, hi], hi a Gershgorin bound of the blocks' D^-1 A\n", (double)jac->cheb_ratio));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "  inner Chebyshev interval [hi / ratio, hi], hi a Gershgorin bound of the blocks' D^-1 A, the ratio from the block size\n"));
  }
  switch (PCBJSmoothKind(jac)) {
  case BJS_KIND_SPD:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is linear, symmetric and positive definite for SPD operators: usable with CG\n"));
    break;
  case BJS_KIND_SPD_COND:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is linear and symmetric; positive definite when the sweeps converge (e.g. diagonally dominant SPD operators): usable with CG there\n"));
    break;
  case BJS_KIND_NONSYM:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is linear but not symmetric (forward sweeps only): use GMRES, BiCGStab or a flexible method, not CG\n"));
    break;
  case BJS_KIND_NONSYM_OP:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is linear but not symmetric (the operator's blocks are not): use GMRES, BiCGStab or a flexible method, not CG\n"));
    break;
  default:
    PetscCall(PetscViewerASCIIPrintf(viewer, "  M^-1 is nonlinear (%s): use a flexible method (-ksp_type fcg or fgmres)\n", jac->async ? "asynchronous updates" : (jac->inner == PCBJSMOOTH_INNER_CG ? "inner CG" : "inner tolerance")));
  }
  if (!jac->setup) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  block size %s (not set up yet)\n", jac->bs ? "set" : "automatic"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PCMSOperatorDescribe(&jac->op, &where, &image));
  if (jac->op.img[0]) PetscCall(MSImageGetLayout(jac->op.img[0], &img));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  blocks: slices of %" PetscInt_FMT " rows of %s; at most %" PetscInt_FMT " in-slice entries per row\n", jac->sh, image, jac->nloc));
  if (jac->ordering != PCMS_ORDERING_ANY) PetscCall(PetscViewerASCIIPrintf(viewer, "  -pc_bjsmooth_ordering %s: the blocks come from an image in that ordering (the PC's own unless the operator's has it)\n", MatModSELLOrderings[jac->ordering]));
  if (img && img->brick[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "  the image is ordered by bricks of %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid points (-mat_modsell_ordering %s)\n", img->brick[0], img->brick[1], img->brick[2], img->ordering == MATMODSELL_ORDERING_AUTO ? "auto, on a DMDA matrix" : "bricks"));
  else if (img && img->m) {
    char why[256] = "";

    if (img->ordering == MATMODSELL_ORDERING_AUTO && img->auto_compact >= 0) PetscCall(PetscSNPrintf(why, sizeof(why), " (auto: in the operator's order %.0f%% of the off-diagonal entries lie in their row's slice, compact blocks would hold about %.0f%%: %s two thirds of that)", 100.0 * (double)img->auto_natural, 100.0 * (double)img->auto_compact, img->applied == MATMODSELL_ORDERING_PARTITION ? "less than" : "at least"));
    else if (img->ordering == MATMODSELL_ORDERING_AUTO && img->auto_natural >= 0) PetscCall(PetscSNPrintf(why, sizeof(why), " (auto: in the operator's order %.0f%% of the off-diagonal entries lie in their row's slice: %s)", 100.0 * (double)img->auto_natural, img->applied == MATMODSELL_ORDERING_PARTITION ? "not local" : "already local"));
    else if (img->ordering == MATMODSELL_ORDERING_AUTO) PetscCall(PetscSNPrintf(why, sizeof(why), " (auto: one slice)"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  the image's row ordering on this process: %s%s\n", MatModSELLOrderings[img->applied], why));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  on the %s; in-slice coefficients in %s memory%s\n", where, jac->use_shared ? "shared" : "global", jac->use_shared ? "" : (jac->force_global ? " (forced)" : " (fallback: they do not fit in shared memory)")));
  if (jac->zfast) PetscCall(PetscViewerASCIIPrintf(viewer, "  sweeps from a zero guess (PCApply) read a compact copy of the in-slice entries (%" PetscInt_FMT " per row) instead of the image\n", jac->nloc));
  if (jac->bucketed) PetscCall(PetscViewerASCIIPrintf(viewer, "  the permuted image's vectors move through %" PetscInt_FMT " buckets of %" PetscInt_FMT " rows (those of its product on the GPU, -mat_modsell_permute_chunk)\n", jac->nbuckets, jac->chunk));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the methods of the public Set/Get functions (PetscTryMethod, PetscUseMethod) */
static const PCMSMethod PCBJSmoothMethods[] = {
  {"PCBJSmoothSetBlockSize_C", (PetscErrorCodeFn *)PCBJSmoothSetBlockSize_BJSmooth},
  {"PCBJSmoothGetBlockSize_C", (PetscErrorCodeFn *)PCBJSmoothGetBlockSize_BJSmooth},
  {"PCBJSmoothSetInner_C", (PetscErrorCodeFn *)PCBJSmoothSetInner_BJSmooth},
  {"PCBJSmoothGetInner_C", (PetscErrorCodeFn *)PCBJSmoothGetInner_BJSmooth},
  {"PCBJSmoothSetChebyshevRatio_C", (PetscErrorCodeFn *)PCBJSmoothSetChebyshevRatio_BJSmooth},
  {"PCBJSmoothGetChebyshevRatio_C", (PetscErrorCodeFn *)PCBJSmoothGetChebyshevRatio_BJSmooth},
  {"PCBJSmoothSetIterations_C", (PetscErrorCodeFn *)PCBJSmoothSetIterations_BJSmooth},
  {"PCBJSmoothGetIterations_C", (PetscErrorCodeFn *)PCBJSmoothGetIterations_BJSmooth},
  {"PCBJSmoothSetAsync_C", (PetscErrorCodeFn *)PCBJSmoothSetAsync_BJSmooth},
  {"PCBJSmoothGetAsync_C", (PetscErrorCodeFn *)PCBJSmoothGetAsync_BJSmooth},
  {"PCBJSmoothSetGlobalCoefficients_C", (PetscErrorCodeFn *)PCBJSmoothSetGlobalCoefficients_BJSmooth},
  {"PCBJSmoothGetGlobalCoefficients_C", (PetscErrorCodeFn *)PCBJSmoothGetGlobalCoefficients_BJSmooth},
  {"PCBJSmoothSetOrdering_C", (PetscErrorCodeFn *)PCBJSmoothSetOrdering_BJSmooth},
  {"PCBJSmoothGetOrdering_C", (PetscErrorCodeFn *)PCBJSmoothGetOrdering_BJSmooth},
};

static PetscErrorCode PCDestroy_BJSmooth(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_BJSmooth(pc));
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCBJSmoothMethods), PCBJSmoothMethods, PETSC_FALSE));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCBJSMOOTH - "bjsmooth" - block Jacobi smoother and preconditioner on the slices of the modified Sliced ELLPACK
   image of the operator, with inner Jacobi, warp-serialised Gauss-Seidel or CG sweeps on each block (Wikberg (2024),
   Wikberg 2024, chapter 4, equations 4.8-4.9, 4.14, 4.15, section 4.3.1), run on the GPU when the operator's
   vectors live there

   Options Database Keys:
+  -pc_bjsmooth_block_size <0>          - rows per block = slice height of the image (multiple of 32, at most 1024); 0: the
                                          `MATMODSELL` operator's slice height (512 unless set), else 512
.  -pc_bjsmooth_inner <chebyshev>       - inner method: chebyshev, jacobi, gs (warp-serialised forward Gauss-Seidel), sgs (forward then backward), cg
.  -pc_bjsmooth_chebyshev_ratio <0>     - inner chebyshev: the interval [hi / ratio, hi], hi a Gershgorin bound of the blocks' D^-1 A;
                                          0: 20 (block size / 512)^(2/3), at least 4
.  -pc_bjsmooth_inner_its <5>           - inner sweeps per block and outer iteration (at most, with a tolerance); default 5,
                                          with inner chebyshev 5 (block size / 512)^(2/3) for larger blocks (8 for 1024)
.  -pc_bjsmooth_inner_rtol <0>          - stop a block's inner sweeps when its residual norm is at most this times its right-hand side's
.  -pc_bjsmooth_its <1>                 - outer iterations per application
.  -pc_bjsmooth_async <false>           - block-asynchronous outer iterations (one array, a memory fence after each block's update)
.  -pc_bjsmooth_ordering <operator>     - the row ordering of the image whose slices are the blocks: operator (the
                                          `MATMODSELL` operator's image, else auto), or natural, rcm, bricks, partition,
                                          auto: the PC's own image of the operator in that ordering (its block size then
                                          automatic as for that ordering), the operator's product unchanged
-  -pc_bjsmooth_global_coefficients     - read the in-slice coefficients from global memory (the fallback path; for testing)

   Level: intermediate

   Notes:
   A block is a slice of the image of the local diagonal block: sh consecutive rows in the image's order (the natural
   order, or the `MATMODSELL` operator's ordering). For a structured grid in natural order a block is a piece of a grid
   line, which helps little; with a `MATMODSELL` operator from a `DMDA` the default ordering (auto) makes each slice a
   brick of the grid (8 x 8 x 8 points with the default slice height 512), and on an unstructured operator in an
   order that is not local a compact block of nearby unknowns (a locality partition), so that block Jacobi works as a
   subdomain method. One outer iteration solves, for every block l at once,
   A_ll y = b_l - sum_j A_lj x_j approximately from y = 0 and sets x_l <- x_l + y. On the GPU one thread block handles
   one slice: it assembles the local right-hand side (the in-slice entries, coded by negative column codes, from a
   shared-memory copy of the slice's x; the others from global memory) and the local matrix in shared memory, then
   runs the inner sweeps without leaving the kernel. The shared memory needed per block is
   sh*(8 + nloc*(8 + 4)) + 512 bytes (eq. 4.15, nloc = most in-slice entries of a row); the kernel's limit is raised with
   cudaFuncSetAttribute() up to the device's opt-in limit, and when it still does not fit the inner sweeps read the
   in-slice coefficients from the image in global memory (same results, slower). On several processes the blocks are
   local to each process and the off-process entries use the values of the previous outer iteration.

   Inner methods: jacobi; gs, warp-serialised Gauss-Seidel: the 32-row groups (warps) of a block are updated in order
   with the newest values, the rows inside a group simultaneously (Jacobi); sgs: a gs sweep then the same backwards;
   cg: conjugate gradients on the block; chebyshev: the Chebyshev iteration on [hi / ratio, hi] of the block's
   D^-1 A (hi: 1 plus the largest sum of a row's |in-block entries| over its diagonal, a Gershgorin bound; ratio 20
   for blocks of 512 rows, 20 (rows / 512)^(2/3) and at least 4 for others), at
   Jacobi's cost per sweep, its result scaled by T_k / (T_k + 1) (`PCBJSmoothSetChebyshevRatio()`).

   As a preconditioner M^-1 r is the result of -pc_bjsmooth_its outer iterations from zero. Which settings give an
   operator usable with `KSPCG` (`PCView()` reports it):
+  SPD for every SPD operator - one outer iteration (any odd count) with inner chebyshev and any number of sweeps (the
   default; its polynomial is positive up to the Gershgorin bound), or with inner jacobi and an odd
   -pc_bjsmooth_inner_its: M^-1 = blockdiag(p(D_l^-1 A_ll) D_l^-1) with p(t) = (1 - (1 - t)^k)/t > 0 for odd k
.  symmetric, positive definite for diagonally dominant SPD operators (Laplacians) - inner jacobi with an even count, or
   inner sgs (its symmetric splitting has P + P^T - A_ll = 2 D - N, N the couplings inside the 32-row groups), or an
   even number of outer iterations; exact inner solves give block Jacobi, SPD for SPD operators
.  linear, not symmetric - inner gs: use GMRES or BiCGStab
-  nonlinear - inner cg, any -pc_bjsmooth_inner_rtol > 0 and -pc_bjsmooth_async: M depends on r, use a flexible method
   (`KSPFCG`, `KSPFGMRES`)

   As a smoother (`KSPRICHARDSON`, e.g. `PCMG`/`PCGAMG` levels with -mg_levels_ksp_type richardson -mg_levels_pc_type
   bjsmooth) `PCApplyRichardson()` runs its times -pc_bjsmooth_its outer iterations on the GPU with no host work or
   synchronization per sweep; the Richardson tolerances are not tested (as with `PCSOR`): the given number of
   iterations is always run. With `KSPCHEBYSHEV` levels `PCApply()` is used.

   The host computes the same function as the GPU (in the same order, except the additions inside the block
   reductions of inner cg and of the inner tolerance test), except in asynchronous mode: on the host the blocks are
   visited in order, each seeing all earlier blocks' updates (block Gauss-Seidel); on the GPU which updates a block
   sees depends on the scheduling.

   A row whose diagonal entry is missing, zero, negative or not finite is an error at setup naming the row.

.seealso: [](ch_ksp), `PCCreate()`, `PCSetType()`, `PCType`, `PC`, `PCJACOBI`, `PCBJACOBI`, `PCSOR`, `MATMODSELL`, `PCRUIZ`, `PCBJSmoothSetBlockSize()`, `PCBJSmoothSetInner()`, `PCBJSmoothSetIterations()`, `PCBJSmoothSetAsync()`, `PCBJSmoothSetOrdering()`
M*/
static PetscErrorCode PCCreate_BJSmooth(PC pc)
{
  PC_BJSmooth *jac;

  PetscFunctionBegin;
  PetscCall(PetscNew(&jac));
  pc->data       = (void *)jac;
  jac->bs        = 0;
  jac->inner_set = PCBJSMOOTH_INNER_AUTO;      /* chosen at setup from the operator's symmetry */
  jac->inner     = PCBJSMOOTH_INNER_CHEBYSHEV; /* fewer outer iterations than jacobi at its cost (docs/bjsmooth.md) */
  jac->ksp_sym   = PETSC_BOOL3_UNKNOWN;
  jac->inner_its = 5;
  jac->inner_its_auto = PETSC_TRUE;
  jac->ordering       = PCMS_ORDERING_ANY; /* the operator's image */
  jac->its       = 1;
  jac->cheb_ratio = 0.0;

  pc->ops->apply           = PCApply_BJSmooth;
  pc->ops->applyrichardson = PCApplyRichardson_BJSmooth;
  pc->ops->presolve        = PCPreSolve_BJSmooth;
  pc->ops->setup           = PCSetUp_BJSmooth;
  pc->ops->reset           = PCReset_BJSmooth;
  pc->ops->destroy         = PCDestroy_BJSmooth;
  pc->ops->setfromoptions  = PCSetFromOptions_BJSmooth;
  pc->ops->view            = PCView_BJSmooth;
  PetscCall(PCMSComposeMethods(pc, PETSC_STATIC_ARRAY_LENGTH(PCBJSmoothMethods), PCBJSmoothMethods, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PETSC_INTERN PetscErrorCode PCRegister_BJSmooth_Private(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCBJSMOOTH, PCCreate_BJSmooth));
  PetscCall(PetscLogEventRegister("PCBJSmoothSweep", PC_CLASSID, &PC_BJSmoothSweep));
  PetscCall(PetscLogEventRegister("PCBJSmoothApply", PC_CLASSID, &PC_BJSmoothApply));
  PetscFunctionReturn(PETSC_SUCCESS);
}

