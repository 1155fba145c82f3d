/*
   The layer shared by the petsc-modsell preconditioners (src/ksp/pc/utils/pcms.c). A PC keeps one PCMSOperator
   and calls PCMSOperatorSetUp() from its PCSetUp; what it gets:

   - operator validation: an assembled, square AIJ-family matrix (aij, aijcusparse, modsell, ...) with equal row
     and column layouts and fewer than 2^31 rows per process (the kernels' indices), checked collectively so that
     every process raises the same error;
   - the device decision: the PC computes on the GPU when its operator does (MatGetCurrentMemType() is device
     memory, i.e. a CUDA matrix type not bound to the CPU), else on the host; the kernel table of the method
     (PCMSKernels()) is chosen from it once per setup;
   - the per-process split A = [Ad | Ao] (Ao and its ghost map only with several processes) and the images of
     Ad and Ao obtained by request (encoding, slice height, ordering): MATMODSELL's own image when it qualifies,
     else an image the layer builds and keeps;
   - the rebuild flag: op->rebuilt is true after a setup that changed the structure (a new operator, a new
     nonzero pattern, a new device decision): the PC recreates what depends on it; after a change of values only,
     the images refresh their values and the structure is kept;
   - vectors of the PC's memory type (PCMSCreateVec), the ghost exchange forward (insert) and reverse (add, max),
     arrays in the PC's memory with the memory-type check (PCMSVecGetArray*), device copies of vectors the user
     gives in host memory (PCMSStageIn/Out), backend memory for kernel outputs (PCMSMalloc, PCMSReadBack);
   - kernel launches: PCMSKernelBegin/End log the GPU time and GPU flops (device) or flops (host), and turn a
     kernel's error code into a PETSc error naming it;
   - what a PC needs from the backend it runs on, chosen where the layer decided the device, so that the glue never
     branches on it: the images' product (PCMSImageMult) and setup (PCMSImageSetUp), the bucketed permutation of a
     permuted image's product (PCMSOperatorGetPermBuckets), Ad's CSR as the kernels read it (PCMSOperatorGetCSR,
     PCMSOperatorDeviceCSR), the locality partition (PCMSOperatorLocalityPerm), the check of Ad's entries (non-finite
     entries, diagonal, signs, diagonal dominance, symmetry: PCMSOperatorAnalyse), int copies of host arrays
     (PCMSIntArray), host arrays for a buffer's content (PCMSBufferGetHostArray/Commit);
   - the local box of a DMDA (PCMSGetGrid) for the PCs that cut it into blocks;
   - the composed methods of the public Set/Get functions (PCMSComposeMethods);
   - the errors every PC raises the same way: the first offending row over all processes (PCMSFirstBad) and the
     diagonal entry of that row (PCMSErrorDiagonal).
*/
#pragma once

#include <petscmodsell/private/modsellimpl.h>
#include <petsc/private/pcimpl.h>
#include <petscdmda.h>

/* Registers the preconditioner types (src/ksp/pc/interface/pcregis.c) */
PETSC_INTERN PetscErrorCode PetscModSELLRegisterPCs_Private(void);

/* How a PC wants the image of a block encoded */
typedef enum {
  PCMS_ENCODING_ANY,     /* whatever the image has (MATMODSELL's, or the default mod-SELL encoding) */
  PCMS_ENCODING_MODSELL, /* the diagonal apart and in-slice columns as negative codes (square blocks) */
  PCMS_ENCODING_PLAIN,   /* neither: every column read from the vector (the off-process block) */
  PCMS_ENCODING_NONE     /* no image: the PC reads the block's CSR only (img[which] stays NULL, nothing is built) */
} PCMSEncoding;

#define PCMS_ORDERING_ANY PCBJSMOOTH_ORDERING_OPERATOR /* ((MatModSELLOrdering)-1) */

typedef struct {
  PCMSEncoding       encoding;
  PetscInt           sh;       /* slice height; 0: any (MATMODSELL's, else the image default, MS_SLICE_HEIGHT_SLICE_PC with slices) */
  MatModSELLOrdering ordering; /* PCMS_ORDERING_ANY, or an ordering the image must have */
  PetscBool          slices;   /* the PC works on the slices as blocks: a MATMODSELL operator is told so before its
                                  image is built (MATMODSELL_ORDERING_AUTO then takes bricks on a DMDA), and the layer's
                                  own image of another operator is ordered the same way (ANY: MATMODSELL_ORDERING_AUTO) */
} PCMSImageRequest;

/* Device copies of vectors given in host memory, created at the first one and kept while the layout matches */
typedef struct {
  Vec in, out;
} PCMSStage;

typedef struct {
  /* what the last PCMSOperatorSetUp() found */
  PetscBool device;    /* the PC computes on the GPU */
  PetscBool mpi;       /* several processes: Ao and the ghost map exist */
  PetscBool rebuilt;   /* the structure was rebuilt by the last setup */
  PetscBool own_image; /* img[0] is the layer's own image (the operator is not a qualifying MATMODSELL) */
  PetscInt  m, rstart; /* local rows and the first global row */
  Mat       A;         /* the operator (pc->pmat; not referenced) */
  Mat       Ad, Ao;    /* diagonal and off-process blocks (Ao NULL on one process) */
  MSImage   img[2];    /* images of Ad and Ao, up to date in the PC's memory */
  PetscInt  nghost;    /* columns of Ao */
  Vec       ghost;     /* ghost values, nghost, sequential */
  VecScatter scat;     /* owned values -> ghost */
  PCMSStage  stage;

  /* kept between setups */
  MSImage          own[2];
  PCMSImageRequest req[2];
  PetscObjectId    id, aoid;
  PetscObjectState nzstate;
  char             name[32]; /* "PCRUIZ", ... for messages */
} PCMSOperator;

/* Memory a kernel writes, in the PC's memory (device or host): (re)allocated when its size or memory type changes */
typedef struct {
  void     *ptr;
  size_t    bytes;
  PetscBool device;
} PCMSBuffer;

/* Validates pc->pmat, decides the device, splits it and brings the images up to date (diagreq, offreq: requests
   for Ad and Ao); sets op->rebuilt */
PETSC_INTERN PetscErrorCode PCMSOperatorSetUp(PC, PCMSOperator *, const PCMSImageRequest *, const PCMSImageRequest *);
PETSC_INTERN PetscErrorCode PCMSOperatorReset(PCMSOperator *);
/* for PCView: where the PC runs ("GPU", "host") and which image it reads */
PETSC_INTERN PetscErrorCode PCMSOperatorDescribe(PCMSOperator *, const char **, const char **);
/* The kernel view of image which (0: Ad, 1: Ao) in the PC's memory */
PETSC_INTERN PetscErrorCode PCMSOperatorGetView(PCMSOperator *, PetscInt, MSImageView *);

/* y = yin + A x with the image img (op->img[], or an image set up by PCMSImageSetUp()), x, yin, y arrays in the PC's
   memory (yin may be NULL or y): the image's host or device product (MSImageOps_Reference or MSImageOps_CUDA's mult), chosen
   once per setup; it logs its flops (and on the device its GPU time) */
PETSC_INTERN PetscErrorCode PCMSImageMult(PCMSOperator *, MSImage, const PetscScalar *, const PetscScalar *, PetscScalar *);
/* *img (created when NULL) up to date with the square SeqAIJ matrix A in the PC's memory */
PETSC_INTERN PetscErrorCode PCMSImageSetUp(PCMSOperator *, Mat, MSImage *);
/* The bucketed permutation of the diagonal block's permuted product on the GPU (modsellcuda.h, MSPermBuckets) for its
   view v: built when missing (a device allocation: call it at setup too, not only inside an application); *has
   PETSC_FALSE when there is none (on the host, without a permutation, or with permute chunk 0) */
PETSC_INTERN PetscErrorCode PCMSOperatorGetPermBuckets(PCMSOperator *, const MSImageView *, MSPermBuckets *, PetscBool *);

/* Ad's CSR as 32-bit arrays in the PC's memory, as the kernels read it: on the host the matrix's own arrays (int copies
   when PetscInt is 64-bit), on the GPU those of PCMSOperatorDeviceCSR(). Between PCMSOperatorGetCSR() (cols, vals: aj,
   aa wanted, else NULL) and PCMSOperatorRestoreCSR(), which waits for the kernels queued before it. */
typedef struct {
  int           m, nnz;
  const int    *ai, *aj;
  const double *aa;
  /* what to give back */
  const PetscInt    *hi, *hj;
  const PetscScalar *ha;
  PCMSBuffer         tmp[3];
} PCMSCSR;
PETSC_INTERN PetscErrorCode PCMSOperatorGetCSR(PCMSOperator *, PetscBool, PetscBool, PCMSCSR *);
PETSC_INTERN PetscErrorCode PCMSOperatorRestoreCSR(PCMSOperator *, PCMSCSR *);
/* The locality partition of Ad for blocks of bs rows (localityimpl.h): perm (new -> old, m ints in the PC's memory),
   on the GPU from csr (PCMSOperatorGetCSR() with columns and values), on the host from Ad: the same permutation bit
   for bit */
PETSC_INTERN PetscErrorCode PCMSOperatorLocalityPerm(PCMSOperator *, const PCMSCSR *, PetscInt, int *);

/* What the CSR check (mskernels.h, MS_CHECK_CSR) found on the diagonal blocks of all the processes: the first
   offending rows in the global (user) numbering, -1 for none; counts of rows over all processes; maxdd the largest
   sum_{j != i} |a_ij| / |a_ii|; symmetric: every process's diagonal block passed the symmetry test (only when asked) */
typedef struct {
  PetscInt64 nonfinite, nodiag, negdiag, posoff, notdd, asym;
  PetscInt64 nposoff, nnotdd, nasym;
  PetscReal  maxdd;
  PetscBool  checked_symmetry, symmetric;
  PetscBool  mmatrix; /* positive diagonal, off-diagonal entries <= 0, rows weakly diagonally dominant (Ad of every process) */
} PCMSAnalysis;
/* Collective: the CSR check of Ad (csr: PCMSOperatorGetCSR() with columns and values), with the symmetry test when
   symmetry is true, reduced over the processes; the kernel of the PC's backend (MSCheckKernels), logged as one */
PETSC_INTERN PetscErrorCode PCMSOperatorAnalyse(PC, PCMSOperator *, const PCMSCSR *, PetscBool, PCMSAnalysis *);

/* The local box of a DMDA, for the preconditioners that cut it into blocks (the operator's DM is MatGetDM()'s) */
typedef struct {
  PetscInt        box[4];  /* local points nx, ny, nz (1 past the DMDA's dimension) and dof per point; all 0: no DMDA */
  PetscInt        dim;
  DMDAStencilType stencil;
  const char     *why; /* no DMDA: "the operator has no DM" or "the operator's DM is not a DMDA"; else NULL */
} PCMSGrid;
PETSC_INTERN PetscErrorCode PCMSGetGrid(DM, PCMSGrid *);

/* A vector of n local entries in the PC's memory (comm PETSC_COMM_SELF: sequential) */
PETSC_INTERN PetscErrorCode PCMSCreateVec(PCMSOperator *, MPI_Comm, PetscInt, Vec *);
/* ghost <- the ghost values of x (x: n local entries; ghost: op->ghost or a vector like it) */
PETSC_INTERN PetscErrorCode PCMSGhostBegin(PCMSOperator *, Vec, Vec);
PETSC_INTERN PetscErrorCode PCMSGhostEnd(PCMSOperator *, Vec, Vec);
/* x <- x (op) the ghost contributions, op ADD_VALUES or MAX_VALUES, sent back to their owners */
PETSC_INTERN PetscErrorCode PCMSGhostReverseBegin(PCMSOperator *, Vec, Vec, InsertMode);
PETSC_INTERN PetscErrorCode PCMSGhostReverseEnd(PCMSOperator *, Vec, Vec, InsertMode);

/* Whether the array of v is in device memory (a CUDA vector not bound to the CPU), without moving data */
PETSC_INTERN PetscErrorCode PCMSVecIsDevice(Vec, PetscBool *);
/* The array of v where the PC computes (op->device: device memory, else host memory; a device vector is
   synchronised to the host as VecGetArray() does). A NULL v gives a NULL array. On the device a vector in host
   memory is an error naming it (stage it first). */
PETSC_INTERN PetscErrorCode PCMSVecGetArrayRead(PCMSOperator *, Vec, const PetscScalar **);
PETSC_INTERN PetscErrorCode PCMSVecRestoreArrayRead(PCMSOperator *, Vec, const PetscScalar **);
PETSC_INTERN PetscErrorCode PCMSVecGetArray(PCMSOperator *, Vec, PetscMemoryAccessMode, PetscScalar **);
PETSC_INTERN PetscErrorCode PCMSVecRestoreArray(PCMSOperator *, Vec, PetscMemoryAccessMode, PetscScalar **);
/* On the device: *use is v when v is in device memory, else the stage's vector (which 0: input, 1: output)
   holding v's values when copy is true. On the host: v itself. */
PETSC_INTERN PetscErrorCode PCMSStageIn(PCMSOperator *, PetscInt, Vec, PetscBool, Vec *);
/* copies use into v when use is a staged vector */
PETSC_INTERN PetscErrorCode PCMSStageOut(Vec, Vec);

/* buf holds at least bytes in the PC's memory (what names them in an out-of-memory error); the content is
   undefined after a reallocation */
PETSC_INTERN PetscErrorCode PCMSBufferEnsure(PCMSOperator *, PCMSBuffer *, size_t, const char *);
PETSC_INTERN PetscErrorCode PCMSBufferDestroy(PCMSBuffer *);
/* buf (ensured to hold bytes in the PC's memory) <- src (host); src may be freed on return */
PETSC_INTERN PetscErrorCode PCMSBufferUpload(PCMSOperator *, PCMSBuffer *, const void *, size_t, const char *);
/* buf (ensured, in the PC's memory) <- an int copy of n PetscInts (host): through a host copy when PetscInt is 64-bit */
PETSC_INTERN PetscErrorCode PCMSUploadInt(PCMSOperator *, PCMSBuffer *, const PetscInt *, PetscInt64, const char *);
/* n PetscInts of a host array as ints in the PC's memory: src itself on the host when PetscInt is int, else a copy in
   tmp (PCMSUploadInt()) */
PETSC_INTERN PetscErrorCode PCMSIntArray(PCMSOperator *, const PetscInt *, PetscInt64, PCMSBuffer *, const char *, const int **);
/* A host array to write the content of buf (bytes) into: buf's own memory on the host, else *scratch (a host array
   the caller keeps, allocated here when NULL and freed by the caller when the size changes); PCMSBufferCommit() then makes buf hold what was written
   (an upload on the GPU, nothing on the host) */
PETSC_INTERN PetscErrorCode PCMSBufferGetHostArray(PCMSOperator *, PCMSBuffer *, size_t, const char *, void **, void **);
PETSC_INTERN PetscErrorCode PCMSBufferCommit(PCMSOperator *, PCMSBuffer *, const void *, size_t, const char *);
/* Ad's CSR as 32-bit arrays in device memory (op->device), moving as little as possible from the host: aijcusparse's
   own device arrays when Ad has no empty row (else its device row starts may be compressed); a MATSEQAIJMODSELL's
   device image expanded on the GPU (only the row starts are copied, 4 bytes a row); else copies of the host arrays.
   aj, aa may be NULL (not wanted). tmp[3]: the caller's buffers for the copies (destroy them when done, after the
   kernels that read them); the arrays stay valid while Ad is not changed. */
PETSC_INTERN PetscErrorCode PCMSOperatorDeviceCSR(PCMSOperator *, PCMSBuffer[3], const int **, const int **, const double **);
/* dst (host) <- src (backend memory), waiting for the work queued before */
PETSC_INTERN PetscErrorCode PCMSReadBack(PCMSOperator *, void *, const void *, size_t);
/* the stream kernels are queued on (a cudaStream_t; NULL on the host), and waiting for it */
PETSC_INTERN PetscErrorCode PCMSGetStream(PCMSOperator *, void **);
PETSC_INTERN PetscErrorCode PCMSSynchronize(PCMSOperator *);

/* The kernel table of a method for the PC's backend, e.g. PCMSKernels(&jac->op, MSRuizKernels) */
#if defined(PETSC_HAVE_CUDA)
  #define PCMSKernels(op, Table) ((op)->device ? &Table##_CUDA : &Table##_Reference)
#else
  #define PCMSKernels(op, Table) (&Table##_Reference)
#endif
/* Around a kernel call: the stream to queue it on and the GPU timer (device); then the kernel's error code and the
   flops (GPU flops on the device). Usage:
     PetscCall(PCMSKernelBegin(op, &stream)); err = k->fn(..., stream); PetscCall(PCMSKernelEnd(op, err, k->backend, "fn", flops)); */
PETSC_INTERN PetscErrorCode PCMSKernelBegin(PCMSOperator *, void **);
PETSC_INTERN PetscErrorCode PCMSKernelEnd(PCMSOperator *, int, const char *, const char *, PetscLogDouble);

/* A PC's public Set/Get functions call their implementations through the PC (PetscTryMethod, PetscUseMethod, as
   PETSc's jacobi.c): the table of the methods' names and implementations, composed on the PC by its PCCreate (set)
   and taken off by its PCDestroy */
typedef struct {
  const char       *name;
  PetscErrorCodeFn *fn;
} PCMSMethod;
PETSC_INTERN PetscErrorCode PCMSComposeMethods(PC, PetscInt, const PCMSMethod[], PetscBool);

/* For each of n kinds of fault, the smallest of the processes' local keys (local index * ncodes + code, or -1 for
   none) as a global key (global index * ncodes + code; -1 for none); collective, one reduction for all n */
PETSC_INTERN PetscErrorCode PCMSFirstBad(PC, PCMSOperator *, PetscInt, PetscInt, const PetscInt64[], PetscInt64[]);
/* Raises the error for global row 'row' whose diagonal entry is missing or not positive: 'need' says why the PC
   needs it and 'todo' what to do; collective (the owner looks the entry up) */
PETSC_INTERN PetscErrorCode PCMSErrorDiagonal(PC, PetscInt, const char *, const char *);
