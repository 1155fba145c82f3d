/*
   The layer shared by the device-resident Krylov methods of petsc-modsell (src/ksp/ksp/utils/kspms.c): KSPCGDEVICE
   (src/ksp/ksp/impls/cgdevice/cgdevice.c) and the BiCGSTAB and GMRES(m) methods built the same way. A method keeps a
   KSPMS as the FIRST member of its ksp->data and writes its iteration as kernel calls (krylovkernels.h) between
   KSPMSKernelBegin() and KSPMSKernelEnd(); what it gets:

   - the backend, decided once per solve (KSPMSSolveBegin()): the GPU when the operator computes there
     (MatGetCurrentMemType(), or a matrix type without it, such as MATSHELL, given CUDA vectors), else the host; the
     kernel table ms->k (the CUDA or the reference kernels) follows; the glue never branches on it;
   - vectors: ms->vec[KSPMS_X] and ms->vec[KSPMS_B] are the solution and the right-hand side the method iterates on
     (the user's, or device copies of host vectors, staged in at the start and out at the end of the solve: one copy
     each per solve), ms->vec[KSPMS_WORK + j] the method's work vectors (of the backend's memory type); KSPMSArray()
     gives the array of vector i in the backend's memory (fetched once per solve in a fused plan, where no PETSc
     operation touches the vectors between the kernels; fetched again at each call in a generic plan);
   - the preconditioner: ms->pc is MS_KRYLOV_PC_NONE (PCNONE), MS_KRYLOV_PC_DIAG (PCJACOBI of any -pc_jacobi_type, PCRUIZ:
     their application is a diagonal, ms->vec[KSPMS_DIAG], obtained by applying the PC to a vector of ones once per PC
     setup) fused into the method's kernels (on the left or the right), or MS_KRYLOV_PC_APPLIED (any other PC, or a
     fused one when the operator has a null space or the PC is applied symmetrically: KSPMSPCApply() between kernels);
   - the operator: KSPMSMultDot() computes y = A x and the dot x.y into a sum slot: one kernel with the dot in the
     product's epilogue for a MATSEQAIJMODSELL (its mod-SELL image read directly, any threads per row: capturable), else
     MatMult() (any matrix, any number of processes) and a dot kernel;
   - the image's order: when that image is permuted (orderings partition, rcm, bricks) and the preconditioner is fused,
     the whole solve runs in the image's numbering (ms->image): b and x are gathered into it at the start of the solve
     (vec[KSPMS_B], vec[KSPMS_X] are then the layer's copies, and the solution is scattered back at the end), the fused
     PC's diagonal too, and ms->view is the image's view with perm NULL, so that the product reads its column codes
     (already in the image's numbering) without gathers or scatters, and fuses like an unpermuted image;
   - scalars in the backend's memory (ms->sc, MSKrylovScalars): the method's recurrences, the step's sums, the
     convergence test of KSPConvergedDefault() (rtol, atol, divtol, max_it, the initial-norm variants) evaluated by
     the kernels' finishes; reductions: KSPMSReduceTarget() gives the MSKrylovReduce of a kernel (slot, finish; with
     several processes the finish is left to KSPMSAllreduce(), which adds the sums over the processes through host
     memory (pinned on the GPU), one MPI_Allreduce() per call, and runs the finish kernel);
   - the iteration loop (KSPMSRun()): the method's start, then its steps. Device test: the host reads the status
     (done flag) every k steps, k = 1, 2, 4, ... up to -ksp_device_check_max, one block of steps in flight while it
     reads the previous block's flag; with several processes the flag comes with each step's sums. Host test
     (monitors, or a convergence test other than KSPConvergedDefault()): every step stops at its norm, the host calls
     the monitors and the test with KSPCG's arguments and runs the method's post finish. KSPGetIterationNumber(),
     KSPGetResidualNorm(), the reason and the residual history are those of the step that stopped the solve;
   - CUDA graphs: when every step is kernels only (a fused plan on one process, device test), a block of k steps is
     captured once (on a stream of the layer's, launched on PETSc's stream) and replayed; the graphs are captured
     again when an array they read moves (KSPMSSignature);
   - logging: events KSPDeviceSetUp and KSPDeviceIter; every kernel logs its GPU time and GPU flops (device) or
     flops (host), a replayed graph the flops of its capture; KSPMSView() says what ran;
   - for methods with more state (BiCGSTAB, GMRES: ms->kn, their kernel table): arrays of the backend's memory
     (KSPMSGetWork(): GMRES's basis and Hessenberg matrix), the array the finishes read (KSPMSSetAux()), the method's
     scalars set by the host (KSPMSSetScalars()), reductions of arrays over the processes (KSPMSAllreduceArray()),
     PETSc vectors on the backend's arrays (KSPMSPlaceArray()), more steps than iterations (ms->max_steps), and the
     host test in the order of GMRES (awaiting 2: the test, then the monitors);
   - in the image-order plan every vector of the solve (vec[], the method's arrays) is in the image's numbering: a
     method multiplies through the layer (KSPMSMultDot(), KSPMSInitialResidual(), its kernels given ms->view) and never
     calls MatMult() or PCApply() on them (the plan has a fused PC: its diagonal vec[KSPMS_DIAG] is in that numbering
     too); a vector it gives to the user (KSPBuildSolution()) goes through KSPMSPermuteVec().
*/
#pragma once

#include <petscmodsell/private/modsellimpl.h>
#include <petscmodsell/private/krylovkernels.h>
#include <petsc/private/kspimpl.h>

/* Registers the KSP types (src/ksp/ksp/interface/kspregis.c) and the layer's events */
PETSC_INTERN PetscErrorCode PetscModSELLRegisterKSPs_Private(void);
PETSC_INTERN PetscLogEvent  KSPMS_SetUp, KSPMS_Iterations;

/* the vectors of the layer: KSPMS_X, KSPMS_B, KSPMS_DIAG, then the method's work vectors from KSPMS_WORK */
#define KSPMS_X       0
#define KSPMS_B       1
#define KSPMS_DIAG    2
#define KSPMS_WORK    3
#define KSPMS_MAXVEC  16
#define KSPMS_MAXGRAPH 12 /* blocks of 1, 2, 4, ..., 2^11 steps */
#define KSPMS_MAXWORK  4  /* the method's arrays in the backend's memory (KSPMSGetWork()) */

/* A method: its start (the initial residual and the first reduction) and one step, both ending with a reduction
   whose finish evaluates the norm and the test; post: the finish that completes a step after the host's test */
typedef struct {
  const char *name;                /* "CG" */
  PetscErrorCode (*start)(KSP);
  PetscErrorCode (*step)(KSP);
  int         post;                /* MS_KRYLOV_FINISH_*_POST */
  PetscInt    nwork;               /* work vectors */
} KSPMSMethod;

/* What the CUDA graphs of a plan read: captured again when any of it changes */
typedef struct {
  void       *arr[KSPMS_MAXVEC];
  void       *sc, *partial, *count, *hist, *xwork, *stream;
  MSImageView view;
  MSPermBuckets pb;
  PetscInt    n, nblocks, pc, key[4];
  void       *work[KSPMS_MAXWORK];
} KSPMSSignature;

typedef struct {
  const char *type; /* the method's name in messages ("KSPCGDEVICE") */
  /* options (-ksp_device_*) */
  PetscBool graph_opt;   /* CUDA graphs when the plan allows them */
  PetscInt  check_max;   /* the host reads the done flag at least every check_max steps */
  PetscBool fuse_pc_opt; /* pointwise preconditioners in the kernels */
  PetscBool fuse_op_opt; /* the MATSEQAIJMODSELL product with its dot in one kernel */
  PetscBool image_opt;   /* a permuted image's solve in the image's numbering */
  PetscBool read_late;   /* on the host: read the done flag one step late, as on the device (testing) */
  int       late_done[2]; /* read_late: the flag at each poll (the device's pinned copies) */

  /* the plan of the last solve (KSPMSSolveBegin()) */
  PetscBool              planned;
  PetscBool              device, mpi, staged, fused_op, host_check, graph, cached;
  PetscBool              graph_pairs; /* the method's steps alternate between two states: graphs hold an even number of steps */
  int                    pc;        /* MS_KRYLOV_PC_* */
  const char            *pcname;    /* the fused PC's type, or NULL */
  const char            *why_pc, *why_op, *why_host, *why_graph; /* why not fused / not on the device / no graph */
  const MSKrylovKernels *k;
  const MSKrylovNSKernels *kn;   /* the kernels of BiCGSTAB and GMRES, of the same backend */
  PetscInt               key[4]; /* the method's plan flags (part of the graphs' signature) */
  PetscInt               max_steps; /* set by the method before KSPMSSolveBegin(): the most steps of a solve when
                                       they are more than max_it (GMRES: a restart may take a step of its own); 0: max_it */
  PetscInt               nallreduce; /* set by the method: MPI_Allreduce() per iteration with several processes (-ksp_view; 0: 1) */
  const char            *op_text;    /* set by the method: what its fused product computes (-ksp_view; NULL: the product and its dot) */

  /* vectors */
  Vec          vec[KSPMS_MAXVEC];
  PetscScalar *arr[KSPMS_MAXVEC];
  PetscBool    readonly[KSPMS_MAXVEC];
  PetscInt     nvec, n; /* vectors in use, local length */
  Vec          sx, sb;  /* device copies of host x, b */
  Vec          ones;
  Vec          udiag;   /* the fused PC's diagonal in the user's numbering (vec[KSPMS_DIAG] is it, or pdiag) */
  Vec          pdiag;   /* the same in the image's numbering (ms->image) */
  Vec          ivec[2]; /* x and b in the image's numbering (ms->image) */
  Vec          uvec[2]; /* the x and b they stand for during the solve (the user's or sx, sb) */
  PetscBool    diag_valid;
  MatState     diag_state; /* of pc->pmat at the PC setup the diagonal was taken after */
  char         diag_type[64];
  PetscInt     diag_setups;

  /* the fused operator */
  MSImage        img;
  PetscBool      image; /* the solve runs in the permuted image's numbering */
  const int     *perm;  /* then its permutation (image row -> user row) in the backend's memory */
  MSImageView    view;  /* the image's view (perm NULL when image) */
  MSPermBuckets  pb;
  PetscBool      bucketed;
  void          *xwork; /* 2 m doubles (permuted image) */
  size_t         xwork_bytes;
  PetscLogDouble opflops;

  /* backend memory */
  MSKrylovScalars *sc;
  double          *partial, *hist;
  unsigned int    *count;
  void            *work[KSPMS_MAXWORK]; /* the method's arrays (KSPMSGetWork()) */
  size_t           work_bytes[KSPMS_MAXWORK];
  void            *pinned_array; /* device: pinned host memory for KSPMSAllreduceArray() */
  size_t           pinned_array_bytes;
  PetscInt         nblocks, maxhist; /* capacities */
  size_t           hist_bytes;
  MSKrylovScalars  hsc;    /* the host's copy (last read) */
  void            *pinned; /* device: pinned host copies of the status (2 polls + the sums) */
  void            *ev[2];  /* cudaEvent_t of the polls */
  PetscBool        stop;   /* the host saw done */

  /* graphs */
  void          *cstream; /* cudaStream_t the graphs are captured on */
  void          *gexec[KSPMS_MAXGRAPH];
  PetscLogDouble gflops[KSPMS_MAXGRAPH];
  PetscInt       gkernels[KSPMS_MAXGRAPH], gnodes[KSPMS_MAXGRAPH]; /* the kernels captured, the graph's nodes */
  KSPMSSignature gsig;
  PetscBool      capturing;
  PetscLogDouble capture_flops;

  /* statistics of the last solve (KSPMSView()) */
  PetscInt nsteps, npolls, nreads, nwasted, kmax_used, ngraph_launch, ncaptures;
  PetscInt nkernels;                  /* the layer's kernels launched (or captured) */
  PetscInt step_kernels, step_count;  /* those of the steps (replayed graphs: their captured kernels), and the steps */
  PetscInt graph_nodes, graph_steps;  /* the largest graph of the solve: its nodes and steps */
} KSPMS;

/* the layer's defaults and composed functions, and the operations every method shares: KSPSetUp() (the checks of
   KSPMSCheckOperator()) and KSPBuildResidual() (PETSc's default) */
PETSC_INTERN PetscErrorCode KSPMSInitialize(KSP, KSPMS *, const char[]);
PETSC_INTERN PetscErrorCode KSPMSReset(KSPMS *);
/* KSPDestroy() of every method: the layer's reset, its composed functions and the method's n (composed) removed, then
   KSPDestroyDefault() (it frees ksp->data) */
PETSC_INTERN PetscErrorCode KSPMSDestroy(KSP, PetscInt, const char *const[]);
PETSC_INTERN PetscErrorCode KSPMSSetFromOptions(KSP, KSPMS *, PetscOptionItems);
PETSC_INTERN PetscErrorCode KSPMSView(KSP, KSPMS *, PetscViewer);
/* the checks of KSPSetUp(): a square operator with equal row and column layouts (collective) */
PETSC_INTERN PetscErrorCode KSPMSCheckOperator(KSP, const char[]);

/* A solve: the plan and the memory (nwork work vectors, keys: the method's plan flags), the parameters on the backend;
   the loop; the results into the KSP (its, rnorm, reason, history, x staged out) */
PETSC_INTERN PetscErrorCode KSPMSSolveBegin(KSP, KSPMS *, const KSPMSMethod *);
PETSC_INTERN PetscErrorCode KSPMSRun(KSP, KSPMS *, const KSPMSMethod *);
PETSC_INTERN PetscErrorCode KSPMSSolveEnd(KSP, KSPMS *);

/* the array of vector i in the backend's memory */
PETSC_INTERN PetscErrorCode KSPMSArray(KSPMS *, PetscInt, PetscScalar **);
/* around a kernel: the stream (the capture stream while a graph is captured), the GPU timer; then the error code and
   the flops (GPU flops on the device) */
PETSC_INTERN PetscErrorCode KSPMSKernelBegin(KSPMS *, void **);
PETSC_INTERN PetscErrorCode KSPMSKernelEnd(KSPMS *, int, const char *, PetscLogDouble);
/* the MSKrylovReduce of a kernel whose sums go to sc->sum[slot...] and whose last block runs finish (with several
   processes: none, KSPMSAllreduce() runs it) */
PETSC_INTERN PetscErrorCode KSPMSReduceTarget(KSPMS *, int, int, MSKrylovReduce *);
/* several processes: sc->sum[0, nsums) added over the processes, then the finish kernel; nothing on one process.
   Sets ms->stop (and does nothing more) when the status read with the sums says done. */
PETSC_INTERN PetscErrorCode KSPMSAllreduce(KSP, KSPMS *, PetscInt, int);
/* vec[y] = A vec[x] and sum[slot] = vec[x] . vec[y], then finish (see KSPMSReduceTarget()) */
PETSC_INTERN PetscErrorCode KSPMSMultDot(KSP, KSPMS *, PetscInt, PetscInt, int, int);
/* sum[slot] = vec[x] . vec[y], then finish; sum[slot + j] = vec[x[j]] . vec[y[j]], j < ndot <= MS_KRYLOV_MAXDOTS, in one pass */
PETSC_INTERN PetscErrorCode KSPMSDot(KSPMS *, PetscInt, PetscInt, int, int);
PETSC_INTERN PetscErrorCode KSPMSDots(KSPMS *, PetscInt, const PetscInt[], const PetscInt[], int, int);
/* vec[z] = B vec[r] with the KSP's preconditioner (KSP_PCApply(): transposed solves, the null space) */
PETSC_INTERN PetscErrorCode KSPMSPCApply(KSP, KSPMS *, PetscInt, PetscInt);
/* vec[r] = vec[B] - A vec[X] (nonzero guess) or vec[B] (in the image's numbering when ms->image: the image's product);
   the failed-PC flag of KSPSolve() (VecFlag()) */
PETSC_INTERN PetscErrorCode KSPMSInitialResidual(KSP, KSPMS *, PetscInt);
/* the status read last (ms->hsc), and a read of it now */
PETSC_INTERN PetscErrorCode KSPMSReadScalars(KSPMS *);

/* For the methods after CG (BiCGSTAB, GMRES): */
/* an array of the method in the backend's memory (id < KSPMS_MAXWORK), kept between solves while large enough, zeroed
   when allocated; freed with the layer's memory */
PETSC_INTERN PetscErrorCode KSPMSGetWork(KSPMS *, PetscInt, size_t, void **);
/* sc->aux (the array the method's finishes read) and sc->s[first, first + n) set on the backend (after KSPMSSolveBegin()) */
PETSC_INTERN PetscErrorCode KSPMSSetAux(KSPMS *, double *);
PETSC_INTERN PetscErrorCode KSPMSSetScalars(KSPMS *, PetscInt, PetscInt, const PetscReal[]);
/* several processes: n sums of an array in the backend's memory added over the processes, then the finish kernel (as
   KSPMSAllreduce(): nothing on one process; ms->stop when the status says done) */
PETSC_INTERN PetscErrorCode KSPMSAllreduceArray(KSP, KSPMS *, double *, PetscInt, int);
/* bytes of the backend's memory copied to the host after the queued work */
PETSC_INTERN PetscErrorCode KSPMSCopyToHost(KSPMS *, void *, const void *, size_t);
/* whether the host knows that the solve stopped, without waiting (the reference backend reads its scalars, the device
   the status read last): a method may skip the host's operations (MatMult(), PCApply()) of a step after the stop */
PETSC_INTERN PetscBool KSPMSStopped(KSPMS *);
/* y = x from the numbering of the solve's vectors to the user's (MS_KRYLOV_TO_USER) or back (MS_KRYLOV_TO_IMAGE): the
   permutation of the image in the image-order plan (ms->image), else a copy; x and y distinct vectors like vec[KSPMS_X] */
PETSC_INTERN PetscErrorCode KSPMSPermuteVec(KSPMS *, Vec, Vec, int);
/* a vector of the backend's type made to use an array of the backend's memory (VecPlaceArray(), VecCUDAPlaceArray()),
   and back */
PETSC_INTERN PetscErrorCode KSPMSPlaceArray(KSPMS *, Vec, PetscScalar *);
PETSC_INTERN PetscErrorCode KSPMSResetArray(KSPMS *, Vec);
