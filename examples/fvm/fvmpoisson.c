static char help[] = "FVM Poisson pressure solve on a generated unstructured 3D mesh: CG with MATMODSELL against PETSc's AIJ.\n\
The mesh (see fvmmesh.h): an nx x ny x nz grid of the unit box with jittered interior vertices, cells kept\n\
as hexahedra or split into prisms or tetrahedra, numbered by a random permutation; the implicit FVM Laplacian\n\
with Dirichlet (x = 0, or every side) and Neumann boundaries is SPD.\n\
Mesh and problem options:\n\
  -n <n>, -nx -ny -nz <n>              : structured cells along each axis (160 with CUDA, 64 without)\n\
  -cell <hex,prism,tet,mixed>          : kind of cells\n\
  -jitter <j>                          : random move of interior vertices, in grid spacings, [0,0.5)\n\
  -seed <s>, -permute <bool>           : seed; random numbering of the cells\n\
  -bc <mixed,dirichlet>                : x = 0 Dirichlet and the rest Neumann, or all Dirichlet\n\
  -flux <twopoint,minimum,overrelaxed> : face coefficient |s|/|d|, (s.d)/|d|^2, |s|^2/(s.d)\n\
  -source <sine,random,zero>           : source term\n\
Solver options:\n\
  -configs <mat:pc[:ksp],...>          : the configurations compared, each a matrix type, a preconditioner and a CG (cg,\n\
                                         PETSc's KSPCG, the default; cgdevice, the plugin's device-resident KSPCGDEVICE)\n\
                                         (default modsell:jacobi,modsell:bjsmooth,modsell:jacobi:cgdevice,\n\
                                         modsell:bjsmooth:cgdevice,aijcusparse:jacobi,aijcusparse:gamg; aij for\n\
                                         aijcusparse without CUDA)\n\
  -ref <mat:pc[:ksp]>                  : the configuration the speed-ups are measured against (default aijcusparse:jacobi,\n\
                                         aij:jacobi without CUDA, or the first)\n\
  -warmup <bool>                       : run every configuration once untimed first (default: when timing)\n\
  -repeat <n>                          : timed rounds of all configurations, every other one in reverse order; each\n\
                                         configuration's fastest round is shown (2 when timing, else 1)\n\
  -mat_type <t>, -pc_type <p>          : instead of -configs: two solves, t:p then -cmp_mat_type:p (the older form)\n\
  -compare <bool>, -cmp_mat_type <t>   : in that form: solve again with PETSc's AIJ (aijcusparse with CUDA)\n\
  -ksp_rtol <1e-8>, -ksp_...           : and every other KSP and PC option, for every configuration\n\
  -timings <bool>                      : print the timings, the device, and whether PETSc is a debug build\n\
  -check                               : verify and print the properties of the matrix and of the solves\n\
  -write_system <file>                 : write A and b in PETSc binary format\n\
  -read_system <file>                  : solve A and b read from a file (after writing it, when both are given)\n\n";

/*
   The project's main job (make demo): the pressure equation of an unstructured-mesh FVM solver, solved with
   CG on the GPU through MATMODSELL and, in the same run, through PETSc's own AIJ, in several configurations
   (a matrix type, a preconditioner and a CG each: PETSc's KSPCG, or the plugin's device-resident KSPCGDEVICE): by
   default MATMODSELL with Jacobi and with PCBJSMOOTH (its defaults), each with KSPCG and with KSPCGDEVICE, and
   aijcusparse (aij without CUDA) with Jacobi and with GAMG (PETSc's defaults) and KSPCG, the reference.

   Each process builds its own contiguous block of rows of the system once (fvmmesh.h: FVMMeshCreateSystem()).
   Then, for each configuration, as a user of that matrix type would: create the matrix of the type, preallocate
   exactly and insert the generated rows with MatSetValues(), assemble, create a CG solver with the configuration's
   preconditioner (KSPSetFromOptions() adds the command line's KSP and PC options), vectors from MatCreateVecs()
   (CUDA vectors for device matrix types), KSPSetUp() and one MatMult() (which builds the format and the device
   copy), then KSPSolve() from a zero initial guess; the matrix and the solver are destroyed before the next
   configuration, so only one configuration's matrix and solver exist at a time (besides the generated rows).

   With -warmup (the default when timing), a first round of every configuration is run untimed, so that the
   timed rounds pay no first-use costs (CUDA context, cuBLAS/cuSPARSE handles, memory pools, code loading);
   -repeat n (2 when timing) runs n timed rounds, every other one in reverse order, and keeps each configuration's
   fastest (setup + solve) round. With -log_view, the warm-up round is one log stage and each configuration's timed
   rounds another ("mattype:pctype:ksptype"), so that events (the assembly, the format's build) are seen per
   configuration.

   CG stops on the unpreconditioned residual by default (-ksp_norm_type unpreconditioned), so the
   stopping test is ||b - A x|| <= rtol ||b|| for every preconditioner and the table's true residual
   can be read against rtol; -ksp_norm_type preconditioned gives PETSc's default back.

   Timings (max over processes, device synchronized and processes at a barrier before every clock read):
   setup = matrix creation, preallocation and insertion of the generated rows, assembly, KSPSetUp() (which
   sets up the preconditioner) and the first MatMult(); solve = KSPSolve(); total = setup + solve. Speed-ups
   are the reference configuration's time divided by the configuration's (> 1: faster than the reference).
   A second table leaves out the insertion (the matrix's creation, preallocation and MatSetValues() of the
   generated rows: the application's own code, the same SeqAIJ code for every AIJ type): solver setup = setup less
   the insertion (the assembly, where a type builds its format, KSPSetUp() and the first MatMult()), with its
   solver setup + solve and speed-up.
*/
#include <petscmodsell.h>
#include "fvmmesh.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

#define MAX_CONFIGS 16

/* a configuration: a matrix type, a preconditioner and a CG (KSPCG or KSPCGDEVICE) */
typedef struct {
  char        mattype[64], pctype[64], ksptype[64];
  const char *matprefix; /* options prefix of the matrix: NULL, or "cmp_" for the comparison of the older two-solve form */
  PetscLogStage stage;   /* its timed runs' log stage (-log_view shows each configuration's events apart) */
} Config;

typedef struct {
  char               type[64], pc[64], ksp[64], label[200]; /* the matrix, preconditioner and KSP types as created */
  PetscInt           rows, its;
  PetscLogDouble     nnz;
  KSPConvergedReason reason;
  PetscReal          rtol, relres;
  PetscLogDouble     tasm, tins, tsetup, tsolve;
} SolveResult;

/* wait for the device and for every process */
static PetscErrorCode Synchronize(MPI_Comm comm)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MaxTime(MPI_Comm comm, PetscLogDouble *t)
{
  PetscFunctionBegin;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  SolveSystem - assembles the system into a matrix of the configuration's type (-<prefix>mat_type may change it),
  solves it with the configuration's CG and preconditioner and returns the numbers of the run; the matrix and
  the solution when Aout and xout are given (else they are destroyed here)
*/
static PetscErrorCode SolveSystem(MPI_Comm comm, const FVMSystem *sys, const Config *cfg, SolveResult *res, Mat *Aout, Vec *xout)
{
  Mat            A;
  Vec            x, b, r;
  KSP            ksp;
  PC             pc;
  MatType        type;
  PCType         pctype;
  KSPType        ksptype;
  MatInfo        info;
  PetscLogDouble t0, t1, t2;
  PetscReal      bnorm, rnorm;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(FVMSystemCreateMat(comm, sys, cfg->matprefix, cfg->mattype, &A, &res->tins));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t1));
  res->tasm = t1 - t0;

  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, cfg->ksptype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, cfg->pctype));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(FVMSystemSetRHS(sys, b));
  PetscCall(KSPSetUp(ksp));
  PetscCall(MatMult(A, b, x)); /* builds the matrix format and its device copy, outside the timed solve */
  PetscCall(VecSet(x, 0.0));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t2));
  res->tsetup = t2 - t0;

  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t1));
  res->tsolve = t1 - t0;
  PetscCall(MaxTime(comm, &res->tasm));
  PetscCall(MaxTime(comm, &res->tins));
  PetscCall(MaxTime(comm, &res->tsetup));
  PetscCall(MaxTime(comm, &res->tsolve));

  PetscCall(KSPGetIterationNumber(ksp, &res->its));
  PetscCall(KSPGetConvergedReason(ksp, &res->reason));
  PetscCall(KSPGetTolerances(ksp, &res->rtol, NULL, NULL, NULL));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  res->relres = bnorm > 0 ? rnorm / bnorm : rnorm;
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscStrncpy(res->type, type, sizeof(res->type)));
  PetscCall(PCGetType(pc, &pctype));
  PetscCall(PetscStrncpy(res->pc, pctype, sizeof(res->pc)));
  PetscCall(KSPGetType(ksp, &ksptype));
  PetscCall(PetscStrncpy(res->ksp, ksptype, sizeof(res->ksp)));
  PetscCall(PetscSNPrintf(res->label, sizeof(res->label), "%s + %s + %s", res->type, res->pc, res->ksp));
  PetscCall(MatGetSize(A, &res->rows, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  res->nnz = info.nz_used;

  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  if (xout) *xout = x;
  else PetscCall(VecDestroy(&x));
  if (Aout) *Aout = A;
  else PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ParseConfig - "mattype:pctype[:ksptype]" (no pctype: Jacobi; no ksptype: KSPCG) */
static PetscErrorCode ParseConfig(const char str[], Config *cfg)
{
  const char *colon, *colon2 = NULL;
  size_t      len;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(cfg, sizeof(*cfg)));
  PetscCall(PetscStrchr(str, ':', (char **)&colon));
  if (colon) PetscCall(PetscStrchr(colon + 1, ':', (char **)&colon2));
  PetscCall(PetscStrlen(str, &len));
  if (colon) len = (size_t)(colon - str);
  PetscCheck(len > 0 && len < sizeof(cfg->mattype), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Configuration '%s': give a matrix type, a preconditioner and optionally a KSP, as modsell:jacobi or modsell:jacobi:cgdevice", str);
  PetscCall(PetscStrncpy(cfg->mattype, str, len + 1));
  if (colon) {
    len = colon2 ? (size_t)(colon2 - colon - 1) : sizeof(cfg->pctype) - 1;
    PetscCheck(len < sizeof(cfg->pctype), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Configuration '%s': the preconditioner's name is too long", str);
    PetscCall(PetscStrncpy(cfg->pctype, colon + 1, len + 1));
  } else PetscCall(PetscStrncpy(cfg->pctype, PCJACOBI, sizeof(cfg->pctype)));
  PetscCheck(cfg->pctype[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Configuration '%s': no preconditioner after ':'", str);
  PetscCall(PetscStrncpy(cfg->ksptype, colon2 ? colon2 + 1 : KSPCG, sizeof(cfg->ksptype)));
  PetscCheck(cfg->ksptype[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Configuration '%s': no KSP after the second ':'", str);
  cfg->stage = -1; /* registered when the runs start */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PrintDevice - names the GPU PETSc computes on (or says there is none) and warns about a debug build */
static PetscErrorCode PrintDevice(MPI_Comm comm)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  {
    int ndev = 0;

    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
      (void)cudaGetLastError();
      PetscCall(PetscPrintf(comm, "  device: PETSc with CUDA, but no GPU is visible\n"));
    } else {
      PetscDeviceContext dctx;
      PetscDevice        device;
      PetscDeviceType    dtype;
      PetscInt           id;

      PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
      PetscCall(PetscDeviceContextGetDevice(dctx, &device));
      PetscCall(PetscDeviceGetType(device, &dtype));
      if (dtype == PETSC_DEVICE_CUDA) {
        struct cudaDeviceProp prop;
        int                   driver = 0, runtime = 0;

        PetscCall(PetscDeviceGetDeviceId(device, &id));
        PetscCallCUDA(cudaGetDeviceProperties(&prop, (int)id));
        PetscCallCUDA(cudaDriverGetVersion(&driver));
        PetscCallCUDA(cudaRuntimeGetVersion(&runtime));
        PetscCall(PetscPrintf(comm, "  device: %s (GPU %d of %d on the first process, %.0f GiB, compute capability %d.%d; CUDA runtime %d.%d, driver %d.%d)\n", prop.name, (int)id, ndev, (double)prop.totalGlobalMem / 1073741824.0, prop.major, prop.minor, runtime / 1000, (runtime % 1000) / 10, driver / 1000, (driver % 1000) / 10));
      } else PetscCall(PetscPrintf(comm, "  device: PETSc's device context is the host (%s), not a GPU\n", PetscDeviceTypes[dtype]));
    }
  }
#else
  PetscCall(PetscPrintf(comm, "  device: no GPU: PETSc without CUDA; the comparison is CPU-only (every matrix type multiplies on the host)\n"));
#endif
#if defined(PETSC_USE_DEBUG)
  PetscCall(PetscPrintf(comm, "  WARNING: PETSc is a debug build: timings of a debug build mean little; configure PETSc with --with-debugging=0 (make configure CONFIGURE_OPTIONS=--with-debugging=0)\n"));
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  CheckMatrix - verifies and prints the properties of an assembled FVM matrix: symmetry, positive
  diagonal, non-positive off-diagonals, zero row sums on rows without Dirichlet face and positive ones
  on rows with one, and the number of nonzeros per row
*/
static PetscErrorCode CheckMatrix(MPI_Comm comm, const FVMMesh *mesh, const FVMSystem *sys, Mat A)
{
  PetscInt  rstart, rend, M, bad[5] = {0, 0, 0, 0, 0}, range[2] = {PETSC_INT_MAX, 0}, ndirrows = 0, maxfaces = 0;
  PetscReal amax = 0;
  PetscBool sym;
  MatType   type;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCheck(rstart == sys->rstart && rend - rstart == sys->n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Matrix rows differ from the system's");
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nc;
    PetscReal          diag = 0, sum = 0;
    PetscBool          hasdiag = PETSC_FALSE;

    PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
    for (PetscInt p = 0; p < nc; p++) {
      const PetscReal v = PetscRealPart(vals[p]);
      sum += v;
      amax = PetscMax(amax, PetscAbsReal(v));
      if (cols[p] == r) {
        diag    = v;
        hasdiag = PETSC_TRUE;
      } else if (v > 0) bad[1]++; /* positive off-diagonal */
    }
    range[0] = PetscMin(range[0], nc);
    range[1] = PetscMax(range[1], nc);
    PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
    if (!hasdiag || diag <= 0) bad[0]++;
    if (sys->ndirichlet) {
      if (sys->ndirichlet[r - rstart] == 0) {
        if (PetscAbsReal(sum) > 1e-12 * PetscAbsReal(diag)) bad[2]++; /* interior row: zero sum */
      } else {
        ndirrows++;
        if (sum <= 1e-12 * PetscAbsReal(diag)) bad[3]++; /* Dirichlet row: positive sum */
      }
    }
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, bad, 5, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &ndirrows, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &range[0], 1, MPIU_INT, MPI_MIN, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &range[1], 1, MPIU_INT, MPI_MAX, comm));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &amax, 1, MPIU_REAL, MPI_MAX, comm));
  {
    /* MatIsSymmetric() on a MATAIJ copy of the values, so that the check depends only on the assembled
       entries and not on which operations the matrix type overrides */
    Mat B;
    PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &B));
    PetscCall(MatIsSymmetric(B, 1e-12 * amax, &sym));
    PetscCall(MatDestroy(&B));
  }

  PetscCall(MatGetType(A, &type));
  PetscCall(PetscPrintf(comm, "Checks of the %s matrix:\n", type));
  if (sys->generated) {
    PetscInt64 expected = 0;

    /* cells counted from the kinds of the structured cells, independently of the numbering */
    for (PetscInt64 k = 0; k < mesh->nz; k++)
      for (PetscInt64 j = 0; j < mesh->ny; j++) expected += (PetscInt64)mesh->nx * mesh->ref[FVMMeshRowType(mesh, j, k)].nsub;
    PetscCall(PetscPrintf(comm, "  unknowns %" PetscInt_FMT ", expected %" PetscInt64_FMT ": %s\n", M, expected, M == expected ? "ok" : "WRONG"));
    for (PetscInt t = 0; t < 3; t++)
      if (mesh->cell == t || mesh->cell == FVM_CELL_MIXED) {
        PetscInt mf = 0;
        for (PetscInt p = 0; p < mesh->ref[t].nsub; p++) {
          PetscInt f = 0;
          for (PetscInt q = 0; q < mesh->ref[t].nf[p]; q++) {
            const FVMRefFace *rf = &mesh->ref[t].f[p][q];
            /* a whole square face is split when the neighbour's kind splits it: in -cell mixed, across y and z */
            f += (rf->half == FVM_HALF_WHOLE && mesh->cell == FVM_CELL_MIXED && rf->dir > 0) ? 2 : 1;
          }
          mf = PetscMax(mf, f);
        }
        maxfaces = PetscMax(maxfaces, mf);
      }
    PetscCall(PetscPrintf(comm, "  cells tile the unit box: |sum of volumes - 1| = %.1e, |boundary area - 6| = %.1e: %s\n", (double)PetscAbsReal(sys->volume - 1), (double)PetscAbsReal(sys->boundary_area - 6), PetscAbsReal(sys->volume - 1) < 1e-10 && PetscAbsReal(sys->boundary_area - 6) < 1e-10 ? "ok" : "WRONG"));
    PetscCall(PetscPrintf(comm, "  cells are closed: max |sum_f s_f| / sum_f |s_f| = %.1e: %s\n", (double)sys->max_closure, sys->max_closure < 1e-12 ? "ok" : "WRONG"));
    {
      MatInfo info;
      PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
      PetscCall(PetscPrintf(comm, "  nonzeros %.0f = unknowns + 2 x interior faces: %s\n", (double)info.nz_used, (PetscInt64)info.nz_used == (PetscInt64)M + 2 * sys->nfaces_interior ? "ok" : "WRONG"));
    }
  } else PetscCall(PetscPrintf(comm, "  unknowns %" PetscInt_FMT " (system read from a file: no mesh data)\n", M));
  PetscCall(PetscPrintf(comm, "  symmetric (MatIsSymmetric, tolerance 1e-12 max|a_ij|): %s\n", sym ? "yes" : "NO"));
  PetscCall(PetscPrintf(comm, "  rows with a diagonal entry <= 0: %" PetscInt_FMT "\n", bad[0]));
  PetscCall(PetscPrintf(comm, "  positive off-diagonal entries: %" PetscInt_FMT "\n", bad[1]));
  if (sys->ndirichlet) {
    PetscCall(PetscPrintf(comm, "  rows with a Dirichlet face: %" PetscInt_FMT "; of them with row sum <= 0: %" PetscInt_FMT "\n", ndirrows, bad[3]));
    PetscCall(PetscPrintf(comm, "  rows without a Dirichlet face whose row sum is not 0: %" PetscInt_FMT "\n", bad[2]));
    PetscCall(PetscPrintf(comm, "  nonzeros per row from %" PetscInt_FMT " to %" PetscInt_FMT " (allowed 2 to %" PetscInt_FMT "): %s\n", range[0], range[1], maxfaces + 1, range[0] >= PetscMin(2, M) && range[1] <= maxfaces + 1 ? "ok" : "WRONG"));
  } else PetscCall(PetscPrintf(comm, "  nonzeros per row from %" PetscInt_FMT " to %" PetscInt_FMT "\n", range[0], range[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the ||x1 - x2|| / ||x2|| of two solutions of the system (host arrays: the vectors may be of different types) */
static PetscErrorCode RelativeDifference(MPI_Comm comm, Vec x1, Vec x2, PetscReal *rel)
{
  const PetscScalar *a1, *a2;
  PetscInt           n;
  PetscReal          s[2] = {0, 0};

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x1, &n));
  PetscCall(VecGetArrayRead(x1, &a1));
  PetscCall(VecGetArrayRead(x2, &a2));
  for (PetscInt i = 0; i < n; i++) {
    s[0] += PetscRealPart(PetscConj(a1[i] - a2[i]) * (a1[i] - a2[i]));
    s[1] += PetscRealPart(PetscConj(a2[i]) * a2[i]);
  }
  PetscCall(VecRestoreArrayRead(x2, &a2));
  PetscCall(VecRestoreArrayRead(x1, &a1));
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, s, 2, MPIU_REAL, MPIU_SUM, comm));
  *rel = s[1] > 0 ? PetscSqrtReal(s[0] / s[1]) : PetscSqrtReal(s[0]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  FVMMesh        mesh;
  FVMSystem      sys, sysread;
  Config         cfg[MAX_CONFIGS];
  SolveResult    res[MAX_CONFIGS], run;
  Vec            x[MAX_CONFIGS];
  PetscInt       nfailed[MAX_CONFIGS]; /* rounds in which a configuration did not converge */
  PetscBool      check = PETSC_FALSE, compare = PETSC_TRUE, timings = PETSC_TRUE, warmup, write, read, generate, configsset, refset;
  char          *cfgstr[MAX_CONFIGS], refstr[256] = "";
  char           wfile[PETSC_MAX_PATH_LEN] = "", rfile[PETSC_MAX_PATH_LEN] = "";
  PetscLogDouble tgen = 0, t0;
  PetscMPIInt    size;
  PetscInt       ncfg = MAX_CONFIGS, iref = -1, repeat = 1, nwarm;
  PetscLogStage  warmstage;
#if defined(PETSC_HAVE_CUDA)
  const char *defconfigs[] = {"modsell:jacobi", "modsell:bjsmooth", "modsell:jacobi:cgdevice", "modsell:bjsmooth:cgdevice", "aijcusparse:jacobi", "aijcusparse:gamg"}, *defref = "aijcusparse:jacobi";
  const MatType cmptype    = MATAIJCUSPARSE;
  const PetscInt defn      = 160; /* the demo (make demo): 160^3 = 4096000 hexahedra, enough for the GPU to matter */
#else
  const char *defconfigs[] = {"modsell:jacobi", "modsell:bjsmooth", "modsell:jacobi:cgdevice", "modsell:bjsmooth:cgdevice", "aij:jacobi", "aij:gamg"}, *defref = "aij:jacobi";
  const MatType cmptype    = MATAIJ;
  const PetscInt defn      = 64; /* the demo (make demo) without a GPU: 64^3 = 262144 hexahedra */
#endif

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "FVM Poisson example", "");
  PetscCall(PetscOptionsBool("-check", "Verify and print the properties of the matrix and of the solves", "", check, &check, NULL));
  PetscCall(PetscOptionsStringArray("-configs", "Configurations compared, mattype:pctype[:ksptype],...", "", cfgstr, &ncfg, &configsset));
  PetscCall(PetscOptionsString("-ref", "Configuration (mattype:pctype[:ksptype]) the speed-ups are measured against", "", refstr, refstr, sizeof(refstr), &refset));
  PetscCall(PetscOptionsBool("-compare", "Older two-solve form: solve again with PETSc's AIJ (aijcusparse with CUDA)", "", compare, &compare, NULL));
  PetscCall(PetscOptionsBool("-timings", "Print the timings", "", timings, &timings, NULL));
  warmup = timings;
  PetscCall(PetscOptionsBool("-warmup", "Run every configuration once untimed first", "", warmup, &warmup, NULL));
  repeat = timings ? 2 : 1; /* two rounds in opposite orders: a configuration's setup depends on what ran before it */
  PetscCall(PetscOptionsBoundedInt("-repeat", "Timed rounds of all configurations, every other one in reverse order (each one's fastest is shown)", "", repeat, &repeat, NULL, 1));
  PetscCall(PetscOptionsString("-write_system", "Write A and b to this PETSc binary file", "", wfile, wfile, sizeof(wfile), &write));
  PetscCall(PetscOptionsString("-read_system", "Read A and b from this PETSc binary file", "", rfile, rfile, sizeof(rfile), &read));
  PetscOptionsEnd();

  /* the configurations: -configs, the older two-solve form (-mat_type, -pc_type, -compare, -cmp_mat_type), or the four defaults */
  {
    PetscBool hasmat, haspc, hascmp, hascmptype, hasksp;

    PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_type", &hasmat));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_type", &haspc));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-ksp_type", &hasksp));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-compare", &hascmp));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-cmp_mat_type", &hascmptype));
    if (configsset) {
      PetscCheck(!hasmat && !haspc && !hasksp, comm, PETSC_ERR_ARG_INCOMP, "-mat_type, -pc_type and -ksp_type would override the type of every configuration: give the types in -configs only");
      PetscCheck(!hascmp && !hascmptype, comm, PETSC_ERR_ARG_INCOMP, "-compare and -cmp_mat_type belong to the two-solve form: with -configs, list every configuration");
      PetscCheck(ncfg > 0, comm, PETSC_ERR_ARG_WRONG, "-configs needs at least one configuration (at most %d)", MAX_CONFIGS);
      for (PetscInt c = 0; c < ncfg; c++) {
        PetscCall(ParseConfig(cfgstr[c], &cfg[c]));
        PetscCall(PetscFree(cfgstr[c]));
      }
    } else if (hasmat || haspc || hascmp || hascmptype) {
      /* as before the configurations: the type of -mat_type (default MATMODSELL), then PETSc's AIJ under the prefix
         cmp_ (-cmp_mat_type), both with -pc_type's preconditioner (default Jacobi); the options set the types */
      PetscCheck(!refset, comm, PETSC_ERR_ARG_INCOMP, "-ref goes with -configs");
      ncfg   = compare ? 2 : 1;
      PetscCall(ParseConfig("modsell:jacobi", &cfg[0]));
      if (compare) {
        PetscCall(ParseConfig("aij:jacobi", &cfg[1]));
        PetscCall(PetscStrncpy(cfg[1].mattype, cmptype, sizeof(cfg[1].mattype)));
        cfg[1].matprefix = "cmp_";
      }
      iref = ncfg - 1;
    } else {
      ncfg = (PetscInt)PETSC_STATIC_ARRAY_LENGTH(defconfigs);
      for (PetscInt c = 0; c < ncfg; c++) PetscCall(ParseConfig(defconfigs[c], &cfg[c]));
    }
    if (iref < 0) { /* -ref, else the default reference when listed, else the first configuration */
      Config r;

      PetscCall(ParseConfig(refset ? refstr : defref, &r));
      for (PetscInt c = 0; c < ncfg && iref < 0; c++) {
        PetscBool m1, m2, m3;

        PetscCall(PetscStrcmp(cfg[c].mattype, r.mattype, &m1));
        PetscCall(PetscStrcmp(cfg[c].pctype, r.pctype, &m2));
        PetscCall(PetscStrcmp(cfg[c].ksptype, r.ksptype, &m3));
        if (m1 && m2 && m3) iref = c;
      }
      PetscCheck(iref >= 0 || !refset, comm, PETSC_ERR_ARG_WRONG, "-ref %s is not one of the configurations", refstr);
      if (iref < 0) iref = 0;
    }
  }

  PetscCall(FVMMeshInitialize(&mesh));
  mesh.nx = mesh.ny = mesh.nz = defn;
  PetscCall(FVMMeshSetFromOptions(comm, NULL, &mesh));
  generate = (PetscBool)(!read || write);

  PetscCall(PetscMemzero(&sys, sizeof(sys)));
  if (generate) {
    PetscCall(FVMMeshSetUp(&mesh));
    PetscCall(Synchronize(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(FVMMeshCreateSystem(&mesh, comm, &sys));
    PetscCall(PetscTime(&tgen));
    tgen -= t0;
    PetscCall(MaxTime(comm, &tgen));
    PetscCall(PetscPrintf(comm, "FVM Poisson on a generated unstructured mesh: %" PetscInt_FMT " %s cells from a %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " grid, jitter %g, %s numbering (seed %" PetscInt_FMT "), %d process%s\n", sys.N, FVMCellTypes[mesh.cell], mesh.nx, mesh.ny, mesh.nz, (double)mesh.jitter, mesh.permute ? "random" : "structured", mesh.seed, (int)size, size > 1 ? "es" : ""));
    PetscCall(PetscPrintf(comm, "  boundary %s, flux %s, source %s; faces: %" PetscInt64_FMT " interior, %" PetscInt64_FMT " Dirichlet, %" PetscInt64_FMT " Neumann; max non-orthogonality %.1f degrees\n", mesh.bc == FVM_BC_MIXED ? "x = 0 Dirichlet, other sides Neumann" : "Dirichlet on every side", FVMFluxTypes[mesh.flux], FVMSourceTypes[mesh.source], sys.nfaces_interior, sys.nfaces_dirichlet, sys.nfaces_neumann, (double)sys.max_nonortho));
  }
  if (write) {
    PetscCall(FVMSystemWrite(comm, &sys, wfile));
    PetscCall(PetscPrintf(comm, "  wrote A and b to %s\n", wfile));
  }
  if (read) {
    PetscCall(FVMSystemLoad(comm, rfile, &sysread));
    PetscCall(PetscPrintf(comm, "%s A and b from %s: %" PetscInt_FMT " rows\n", generate ? "  read back" : "FVM Poisson system read:", rfile, sysread.N));
    if (generate) { /* round trip: the rows read must be the rows written */
      PetscBool same = (PetscBool)(sysread.N == sys.N && sysread.n == sys.n && sysread.ia[sysread.n] == sys.ia[sys.n]);
      if (same) {
        for (PetscInt i = 0; i < sys.ia[sys.n] && same; i++) same = (PetscBool)(sysread.ja[i] == sys.ja[i] && sysread.va[i] == sys.va[i]);
        for (PetscInt i = 0; i < sys.n && same; i++) same = (PetscBool)(sysread.rhs[i] == sys.rhs[i] && sysread.ia[i] == sys.ia[i]);
      }
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, MPI_C_BOOL, MPI_LAND, comm));
      PetscCall(PetscPrintf(comm, "  the system read is identical to the one written: %s\n", same ? "yes" : "NO"));
      if (same) { /* keep the mesh data (Dirichlet rows, centroids) of the generated system for the checks */
        PetscCall(PetscFree(sys.ja));
        PetscCall(PetscFree(sys.va));
        PetscCall(PetscFree(sys.ia));
        PetscCall(PetscFree(sys.rhs));
        sys.ia  = sysread.ia;
        sys.ja  = sysread.ja;
        sys.va  = sysread.va;
        sys.rhs = sysread.rhs;
        PetscCall(PetscFree(sysread.dnnz));
        PetscCall(PetscFree(sysread.onnz));
      } else { /* solve what was read, without mesh data */
        PetscCall(FVMSystemDestroy(&sys));
        sys = sysread;
      }
    } else sys = sysread;
  }

  /* the runs: an untimed warm-up round of every configuration (-warmup), then -repeat timed rounds; each
     configuration's matrix and solver are destroyed before the next one is created */
  nwarm = warmup ? 1 : 0;
  if (timings) {
    PetscCall(PrintDevice(comm));
    PetscCall(PetscPrintf(comm, "  %" PetscInt_FMT " configuration%s, %s%" PetscInt_FMT " timed round%s\n", ncfg, ncfg > 1 ? "s" : "", warmup ? "one untimed warm-up round, then " : "no warm-up round (-warmup 0): the first run pays first-use costs; ", repeat, repeat > 1 ? "s, every other one in reverse order (each configuration's fastest is shown)" : ""));
  }
  PetscCall(PetscMemzero(res, sizeof(res)));
  PetscCall(PetscMemzero(nfailed, sizeof(nfailed)));
  for (PetscInt c = 0; c < MAX_CONFIGS; c++) x[c] = NULL;
  /* log stages: the warm-up round in one, each configuration's timed rounds in their own (-log_view) */
  PetscCall(PetscLogStageRegister("Warm-up", &warmstage));
  for (PetscInt c = 0; c < ncfg; c++) {
    char name[160];

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s:%s:%s", cfg[c].mattype, cfg[c].pctype, cfg[c].ksptype));
    for (PetscInt d = 0; d < c; d++) /* the same configuration given twice: one stage */
      if (cfg[d].stage >= 0 && !strcmp(cfg[d].mattype, cfg[c].mattype) && !strcmp(cfg[d].pctype, cfg[c].pctype) && !strcmp(cfg[d].ksptype, cfg[c].ksptype)) cfg[c].stage = cfg[d].stage;
    if (cfg[c].stage < 0) PetscCall(PetscLogStageRegister(name, &cfg[c].stage));
  }
  for (PetscInt round = 0; round < nwarm + repeat; round++) {
    for (PetscInt cc = 0; cc < ncfg; cc++) {
      /* timed rounds alternate the order: the host assembly of a configuration is slower or faster depending on
         what ran before it (by up to 0.3 s at 4 M cells on an H100), the fastest round is kept */
      const PetscInt  c        = (round >= nwarm && (round - nwarm) % 2 == 1) ? ncfg - 1 - cc : cc;
      const PetscBool checkmat = (PetscBool)(check && round == 0 && c == 0), keepx = (PetscBool)(check && round == nwarm + repeat - 1);
      Mat             A        = NULL;

      PetscCall(PetscLogStagePush(round < nwarm ? warmstage : cfg[c].stage));
      PetscCall(SolveSystem(comm, &sys, &cfg[c], &run, checkmat ? &A : NULL, keepx ? &x[c] : NULL));
      PetscCall(PetscLogStagePop());
      if (checkmat) PetscCall(CheckMatrix(comm, &mesh, &sys, A));
      PetscCall(MatDestroy(&A));
      if (run.reason <= 0) nfailed[c]++;
      if (round >= nwarm && (round == nwarm || run.tsetup + run.tsolve < res[c].tsetup + res[c].tsolve)) res[c] = run;
    }
  }

  /* the table */
  {
    PetscBool same = PETSC_TRUE;

    for (PetscInt c = 1; c < ncfg; c++) same = (PetscBool)(same && res[c].rows == res[0].rows && res[c].nnz == res[0].nnz);
    PetscCall(PetscPrintf(comm, "  %" PetscInt_FMT " rows, %.0f nonzeros%s; CG from x = 0 to ||b - Ax|| <= %g ||b||\n", res[0].rows, (double)res[0].nnz, ncfg > 1 ? (same ? " in every configuration" : " (NOT the same in every configuration)") : "", (double)res[0].rtol));
  }
  PetscCall(PetscPrintf(comm, "  %-44s %10s %15s  %-*s", "configuration (matrix + PC + KSP)", "iterations", "||b-Ax||/||b||", timings ? 13 : 0, "result"));
  if (timings) PetscCall(PetscPrintf(comm, " %10s %10s %13s %10s %15s %17s", "setup (s)", "solve (s)", "per it. (ms)", "total (s)", "speed-up total", "speed-up per it."));
  PetscCall(PetscPrintf(comm, "\n"));
  for (PetscInt c = 0; c < ncfg; c++) {
    const SolveResult *r = &res[c], *f = &res[iref];
    const double       pit = r->its ? 1e3 * r->tsolve / r->its : 0, fpit = f->its ? 1e3 * f->tsolve / f->its : 0;

    PetscCall(PetscPrintf(comm, "  %-44s %10" PetscInt_FMT " %15.3e  %-*s", r->label, r->its, (double)r->relres, timings ? 13 : 0, r->reason > 0 && !nfailed[c] ? "converged" : "NOT converged"));
    if (timings) {
      PetscCall(PetscPrintf(comm, " %10.3f %10.3f %13.3f %10.3f %14.2fx", r->tsetup, r->tsolve, pit, r->tsetup + r->tsolve, (f->tsetup + f->tsolve) / (r->tsetup + r->tsolve)));
      if (pit > 0 && fpit > 0) PetscCall(PetscPrintf(comm, " %16.2fx", fpit / pit));
      else PetscCall(PetscPrintf(comm, " %17s", "-"));
      if (c == iref) PetscCall(PetscPrintf(comm, "  (reference)"));
    }
    if (r->reason <= 0) PetscCall(PetscPrintf(comm, "  (%s)", KSPConvergedReasons[r->reason]));
    else if (nfailed[c]) PetscCall(PetscPrintf(comm, "  (not converged in %" PetscInt_FMT " of %" PetscInt_FMT " runs)", nfailed[c], nwarm + repeat));
    PetscCall(PetscPrintf(comm, "\n"));
  }
  if (timings) {
    PetscCall(PetscPrintf(comm, "  setup: MatSetValues of the generated rows into the configuration's matrix type and assembly (%.3f s", res[0].tasm));
    for (PetscInt c = 1; c < ncfg; c++) PetscCall(PetscPrintf(comm, ", %.3f s", res[c].tasm));
    PetscCall(PetscPrintf(comm, "), KSPSetUp (with the preconditioner's setup) and a first MatMult; solve: KSPSolve; total = setup + solve\n"));
    /* the same runs without the application's own part of the setup: creating the matrix and inserting the rows is the
       same host code (SeqAIJ's MatSetValues()) for every AIJ type; the assembly, where a type builds its format, stays */
    PetscCall(PetscPrintf(comm, "  without the insertion (the matrix's creation and MatSetValues() of the generated rows: the application's code, the same for every AIJ type):\n"));
    PetscCall(PetscPrintf(comm, "  %-44s %14s %17s %25s %15s\n", "configuration (matrix + PC + KSP)", "insertion (s)", "solver setup (s)", "solver setup + solve (s)", "speed-up"));
    for (PetscInt c = 0; c < ncfg; c++) {
      const SolveResult *r = &res[c], *f = &res[iref];
      const double       ts = r->tsetup - r->tins + r->tsolve, fs = f->tsetup - f->tins + f->tsolve;

      PetscCall(PetscPrintf(comm, "  %-44s %14.3f %17.3f %25.3f %14.2fx%s\n", r->label, r->tins, r->tsetup - r->tins, ts, fs / ts, c == iref ? "  (reference)" : ""));
    }
    PetscCall(PetscPrintf(comm, "  %s; device synchronized and processes at a barrier before every clock read; times are the max over processes\n", warmup ? "timed after an untimed warm-up run of every configuration" : "NO warm-up run: the first configuration's times include first-use costs"));
    PetscCall(PetscPrintf(comm, "  speed-up: the time of the reference (%s) / the configuration's; > 1: faster than the reference\n", res[iref].label));
    if (generate) PetscCall(PetscPrintf(comm, "  mesh generation and coefficients (once, for every configuration): %.3f s (%.3f s per million cells)\n", tgen, tgen / (sys.N * 1e-6)));
  }

  if (check) {
    PetscCall(PetscPrintf(comm, "Checks of the solves (rtol %g):\n", (double)res[0].rtol));
    for (PetscInt c = 0; c < ncfg; c++) PetscCall(PetscPrintf(comm, "  %s: %s, ||b-Ax||/||b|| <= 2 rtol: %s\n", res[c].label, res[c].reason > 0 && !nfailed[c] ? "converged" : "NOT converged", res[c].relres <= 2 * res[c].rtol ? "yes" : "NO"));
    /* configurations with the same preconditioner (and so the same iterates in exact arithmetic: KSPCGDEVICE is
       KSPCG's method) against the first one: the types and the methods sum in different orders, the counts may differ
       by rounding, not by more than a few */
    for (PetscInt c = 1; c < ncfg; c++) {
      for (PetscInt d = 0; d < c; d++) {
        PetscBool samepc;
        PetscReal rel = 0.0;

        PetscCall(PetscStrcmp(res[c].pc, res[d].pc, &samepc));
        if (!samepc) continue;
        PetscCall(RelativeDifference(comm, x[c], x[d], &rel));
        PetscCall(PetscPrintf(comm, "  %s and %s: iterations %" PetscInt_FMT " and %" PetscInt_FMT ", within 2%% + 1: %s\n", res[d].label, res[c].label, res[d].its, res[c].its, PetscAbsInt(res[c].its - res[d].its) <= 1 + PetscMax(res[c].its, res[d].its) / 50 ? "yes" : "NO"));
        PetscCall(PetscPrintf(comm, "  %s and %s: the solutions agree (||x1 - x2|| / ||x2|| = %.1e < 1e-6): %s\n", res[d].label, res[c].label, (double)rel, rel <= 1e-6 ? "yes" : "NO"));
        break;
      }
    }
    if (sys.generated && mesh.cell == FVM_CELL_HEX && mesh.jitter == 0 && mesh.source == FVM_SOURCE_ZERO) {
      /* orthogonal mesh, no source: the discrete solution is p_D at the centroids */
      for (PetscInt c = 0; c < ncfg; c++) {
        const PetscScalar *xa;
        PetscReal          err = 0;

        PetscCall(VecGetArrayRead(x[c], &xa));
        for (PetscInt i = 0; i < sys.n; i++) err = PetscMax(err, PetscAbsReal(PetscRealPart(xa[i]) - FVMBoundaryValue(sys.centroid + 3 * i)));
        PetscCall(VecRestoreArrayRead(x[c], &xa));
        PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &err, 1, MPIU_REAL, MPI_MAX, comm));
        PetscCall(PetscPrintf(comm, "  orthogonal mesh, %s: the solution is the linear p_D = x + 2y + 3z at the centroids (max error %.1e < 1e-6): %s\n", res[c].label, (double)err, err < 1e-6 ? "yes" : "NO"));
      }
    }
  }

  for (PetscInt c = 0; c < ncfg; c++) PetscCall(VecDestroy(&x[c]));
  PetscCall(FVMSystemDestroy(&sys));
  PetscCall(FVMMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: double

  # -check verifies the matrix (size, symmetry, signs, row sums, nonzeros per row, geometry) and the
  # solves (every configuration converges to rtol in the true residual; configurations with the same
  # preconditioner take the same iterations and give the same solution); without -configs, the six
  # configurations of the demo (modsell with jacobi and bjsmooth, each with KSPCG and KSPCGDEVICE, aij or
  # aijcusparse with jacobi and gamg and KSPCG)
  # or, with -mat_type, the older pair of solves (-mat_type then -cmp_mat_type, both with -pc_type)
  # (the printed figures that depend on the summation order, iteration counts, residuals, rounding-level
  # geometry errors, are filtered; the checks assert the properties)
  testset:
    args: -check -timings 0
    filter: sed -E -e "s/aijcusparse/aij/g" -e "s/[0-9]\.[0-9]+e[-+][0-9]+/X/g" -e "s/ +[0-9]+ +X +converged/ ITS X converged/" -e "s/iterations [0-9]+ and [0-9]+,/iterations N and M,/"
    test:
      suffix: hex_mixed
      args: -n 6 -cell hex -bc mixed
    test:
      suffix: hex_mixed_2
      nsize: 2
      args: -n 6 -cell hex -bc mixed
    test:
      suffix: tet_dirichlet
      args: -n 4 -cell tet -bc dirichlet
    test:
      suffix: tet_dirichlet_2
      nsize: 2
      args: -n 4 -cell tet -bc dirichlet
    test:
      suffix: hex_dirichlet_aij
      args: -n 5 -cell hex -bc dirichlet -mat_type aij
    test:
      suffix: tet_mixed_aij_2
      nsize: 2
      args: -n 4 -cell tet -bc mixed -mat_type aij
    test:
      suffix: prism_overrelaxed
      args: -nx 5 -ny 4 -nz 3 -cell prism -flux overrelaxed -source random
    test:
      suffix: mixed_minimum_2
      nsize: 2
      args: -n 6 -cell mixed -bc dirichlet -flux minimum -permute 0
    # orthogonal mesh, no source: every configuration's solution must be the linear boundary function
    test:
      suffix: linear
      args: -n 5 -jitter 0 -source zero -ksp_rtol 1e-10
    test:
      suffix: linear_2
      nsize: 2
      args: -n 5 -jitter 0 -source zero -bc dirichlet -ksp_rtol 1e-10
    # -write_system then -read_system: the rows read back must be those written
    test:
      suffix: io_2
      nsize: 2
      args: -n 4 -cell mixed -write_system fvm.bin -read_system fvm.bin
    # the older two-solve form with another preconditioner
    test:
      suffix: pair_bjsmooth
      args: -n 6 -cell tet -pc_type bjsmooth
    # a list of configurations (with KSPs: the device CG on both matrix types), another reference, the warm-up and two
    # rounds (the last round's solutions are checked)
    test:
      suffix: configs_2
      nsize: 2
      args: -n 6 -cell mixed -warmup 1 -repeat 2 -configs modsell:bjsmooth,aij:bjsmooth:cgdevice,aij:gamg,modsell,modsell:jacobi:cgdevice -ref modsell:jacobi

  # the demo's table without timings: the six configurations, each converged
  test:
    suffix: table_2
    nsize: 2
    args: -n 8 -timings 0
    filter: sed -E -e "s/aijcusparse/aij/g" -e "s/[0-9]\.[0-9]+e[-+][0-9]+/X/g" -e "s/ +[0-9]+ +X +converged/ ITS X converged/"

  # the timed tables (times and speed-ups filtered): both tables, the second without the insertion, every configuration
  test:
    suffix: timings
    args: -n 6 -cell tet -repeat 1 -configs aij:jacobi,modsell:jacobi,modsell:jacobi:cgdevice -ref aij:jacobi
    filter: grep -v -E "device:|WARNING|mesh generation" | sed -E -e "s/aijcusparse/aij/g" -e "s/[0-9]\.[0-9]+e[-+][0-9]+/X/g" -e "s/[0-9]+\.[0-9]+/T/g" -e "s/ +[0-9]+ +X +converged/ ITS X converged/" -e "s/ +/ /g"

TEST*/
