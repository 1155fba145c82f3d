static char help[] = "FVM Poisson pressure solve on a generated unstructured 3D mesh: CG with MATMODSELL against PETSc's AIJ.\n\
The mesh (see fvmmesh.h): an nx x ny x nz grid of the unit box with jittered interior vertices, cells kept\n\
as hexahedra or split into prisms or tetrahedra, numbered by a random permutation; the implicit FVM Laplacian\n\
with Dirichlet (x = 0, or every side) and Neumann boundaries is SPD.\n\
Mesh and problem options:\n\
  -n <n>, -nx -ny -nz <n>              : structured cells along each axis\n\
  -cell <hex,prism,tet,mixed>          : kind of cells\n\
  -jitter <j>                          : random move of interior vertices, in grid spacings, [0,0.5)\n\
  -seed <s>, -permute <bool>           : seed; random numbering of the cells\n\
  -bc <mixed,dirichlet>                : x = 0 Dirichlet and the rest Neumann, or all Dirichlet\n\
  -flux <twopoint,minimum,overrelaxed> : face coefficient |s|/|d|, (s.d)/|d|^2, |s|^2/(s.d)\n\
  -source <sine,random,zero>           : source term\n\
Solver options:\n\
  -mat_type <modsell>                  : type of the first solve's matrix\n\
  -compare <bool>                      : solve again with PETSc's AIJ (aijcusparse with CUDA; -cmp_mat_type changes it)\n\
  -ksp_rtol <1e-8>, -pc_type <jacobi>  : and every other KSP option, for both solves\n\
  -timings <bool>                      : print the timings\n\
  -check                               : verify and print the properties of the matrix and of the solves\n\
  -write_system <file>                 : write A and b in PETSc binary format\n\
  -read_system <file>                  : solve A and b read from a file (after writing it, when both are given)\n\n";

/*
   The project's main job (make demo): the pressure equation of an unstructured-mesh FVM solver, solved
   with CG on the GPU through MATMODSELL and, in the same run, through PETSc's own AIJ.

   Each process builds its own contiguous block of rows of the system (fvmmesh.h: FVMMeshCreateSystem()),
   then for each matrix type: create the matrix (MatSetFromOptions, so -mat_type chooses it), preallocate
   exactly and insert the rows, create a CG solver (Jacobi by default, KSPSetFromOptions), vectors from
   MatCreateVecs() (CUDA vectors for device matrix types), KSPSetUp() and one MatMult() (which builds the
   format and the device copy), then KSPSolve() from a zero initial guess.

   CG stops on the unpreconditioned residual by default (-ksp_norm_type unpreconditioned), so the
   stopping test is ||b - A x|| <= rtol ||b|| for every preconditioner and the table's true residual
   can be read against rtol; -ksp_norm_type preconditioned gives PETSc's default back.

   Timings (max over processes, device synchronized): setup = matrix creation, preallocation and
   insertion of the generated rows, assembly, KSPSetUp() and the first MatMult(); solve = KSPSolve().
*/
#include <petscmodsell.h>
#include "fvmmesh.h"
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif

typedef struct {
  char               type[64];
  PetscInt           rows, its;
  PetscLogDouble     nnz;
  KSPConvergedReason reason;
  PetscReal          rtol, relres;
  PetscLogDouble     tasm, tsetup, tsolve;
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
  SolveSystem - assembles the system into a matrix of type deftype (or -<prefix>mat_type), solves it with
  CG and returns the solution, the matrix and the numbers of the run
*/
static PetscErrorCode SolveSystem(MPI_Comm comm, const FVMSystem *sys, const char prefix[], MatType deftype, SolveResult *res, Mat *Aout, Vec *xout)
{
  Mat            A;
  Vec            x, b, r;
  KSP            ksp;
  PC             pc;
  MatType        type;
  MatInfo        info;
  PetscLogDouble t0, t1, t2;
  PetscReal      bnorm, rnorm;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(FVMSystemCreateMat(comm, sys, prefix, deftype, &A));
  PetscCall(Synchronize(comm));
  PetscCall(PetscTime(&t1));
  res->tasm = t1 - t0;

  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
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
  PetscCall(MatGetSize(A, &res->rows, NULL));
  PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
  res->nnz = info.nz_used;

  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&b));
  PetscCall(KSPDestroy(&ksp));
  *xout = x;
  *Aout = A;
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

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  FVMMesh        mesh;
  FVMSystem      sys, sysread;
  SolveResult    res[2];
  Mat            A;
  Vec            x[2] = {NULL, NULL};
  PetscBool      check = PETSC_FALSE, compare = PETSC_TRUE, timings = PETSC_TRUE, write, read, generate;
  char           wfile[PETSC_MAX_PATH_LEN] = "", rfile[PETSC_MAX_PATH_LEN] = "";
  PetscLogDouble tgen = 0, t0;
  PetscMPIInt    size;
  PetscInt       nres = 0;
  MatType        cmptype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscModSELLInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
#if defined(PETSC_HAVE_CUDA)
  cmptype = MATAIJCUSPARSE;
#else
  cmptype = MATAIJ;
#endif
  PetscOptionsBegin(comm, NULL, "FVM Poisson example", "");
  PetscCall(PetscOptionsBool("-check", "Verify and print the properties of the matrix and of the solves", "", check, &check, NULL));
  PetscCall(PetscOptionsBool("-compare", "Solve again with PETSc's AIJ (aijcusparse with CUDA)", "", compare, &compare, NULL));
  PetscCall(PetscOptionsBool("-timings", "Print the timings", "", timings, &timings, NULL));
  PetscCall(PetscOptionsString("-write_system", "Write A and b to this PETSc binary file", "", wfile, wfile, sizeof(wfile), &write));
  PetscCall(PetscOptionsString("-read_system", "Read A and b from this PETSc binary file", "", rfile, rfile, sizeof(rfile), &read));
  PetscOptionsEnd();
  PetscCall(FVMMeshInitialize(&mesh));
  mesh.nx = mesh.ny = mesh.nz = 64; /* the demo (make demo): 262144 hexahedra */
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

  /* the solve with the matrix type of the options (default MATMODSELL) */
  PetscCall(SolveSystem(comm, &sys, NULL, MATMODSELL, &res[nres], &A, &x[nres]));
  if (check) PetscCall(CheckMatrix(comm, &mesh, &sys, A));
  PetscCall(MatDestroy(&A));
  nres++;
  /* the same solve with PETSc's AIJ */
  if (compare) {
    PetscCall(SolveSystem(comm, &sys, "cmp_", cmptype, &res[nres], &A, &x[nres]));
    PetscCall(MatDestroy(&A));
    nres++;
  }

  PetscCall(PetscPrintf(comm, "  %-16s %10s %12s %10s %15s", "matrix type", "rows", "nonzeros", "iterations", "||b-Ax||/||b||"));
  if (timings) PetscCall(PetscPrintf(comm, " %10s %10s %13s", "setup (s)", "solve (s)", "per it. (ms)"));
  PetscCall(PetscPrintf(comm, "\n"));
  for (PetscInt i = 0; i < nres; i++) {
    PetscCall(PetscPrintf(comm, "  %-16s %10" PetscInt_FMT " %12.0f %10" PetscInt_FMT " %15.3e", res[i].type, res[i].rows, (double)res[i].nnz, res[i].its, (double)res[i].relres));
    if (timings) PetscCall(PetscPrintf(comm, " %10.3f %10.3f %13.3f", res[i].tsetup, res[i].tsolve, res[i].its ? 1e3 * res[i].tsolve / res[i].its : 0.0));
    PetscCall(PetscPrintf(comm, "%s\n", res[i].reason > 0 ? "" : "  (not converged)"));
  }
  if (timings) {
    PetscCall(PetscPrintf(comm, "  setup: assembly of the rows (%.3f s", res[0].tasm));
    for (PetscInt i = 1; i < nres; i++) PetscCall(PetscPrintf(comm, ", %.3f s", res[i].tasm));
    PetscCall(PetscPrintf(comm, "), KSPSetUp and a first MatMult; solve: KSPSolve, device synchronized; times are the max over processes\n"));
    if (generate) PetscCall(PetscPrintf(comm, "  mesh generation and coefficients: %.3f s (%.3f s per million cells); with the assembly: %.3f s per million cells\n", tgen, tgen / (sys.N * 1e-6), (tgen + res[0].tasm) / (sys.N * 1e-6)));
  }

  if (check) {
    PetscCall(PetscPrintf(comm, "Checks of the solves (rtol %g):\n", (double)res[0].rtol));
    for (PetscInt i = 0; i < nres; i++) PetscCall(PetscPrintf(comm, "  %s: %s, ||b-Ax||/||b|| <= 2 rtol: %s\n", res[i].type, res[i].reason > 0 ? "converged" : "NOT converged", res[i].relres <= 2 * res[i].rtol ? "yes" : "NO"));
    if (nres == 2) {
      PetscReal dnorm, xnorm;

      PetscCall(VecNorm(x[1], NORM_2, &xnorm));
      PetscCall(VecAXPY(x[1], -1.0, x[0]));
      PetscCall(VecNorm(x[1], NORM_2, &dnorm));
      /* the two types sum in different orders: the counts may differ by rounding, not by more than a few */
      PetscCall(PetscPrintf(comm, "  iterations %s %" PetscInt_FMT ", %s %" PetscInt_FMT ": within 2%% + 1: %s\n", res[0].type, res[0].its, res[1].type, res[1].its, PetscAbsInt(res[0].its - res[1].its) <= 1 + res[1].its / 50 ? "yes" : "NO"));
      PetscCall(PetscPrintf(comm, "  the two solutions agree (||x1 - x2|| / ||x2|| = %.1e < 1e-6): %s\n", (double)(dnorm / xnorm), dnorm <= 1e-6 * xnorm ? "yes" : "NO"));
    }
    if (sys.generated && mesh.cell == FVM_CELL_HEX && mesh.jitter == 0 && mesh.source == FVM_SOURCE_ZERO) {
      /* orthogonal mesh, no source: the discrete solution is p_D at the centroids */
      const PetscScalar *xa;
      PetscReal          err = 0;

      PetscCall(VecGetArrayRead(x[0], &xa));
      for (PetscInt i = 0; i < sys.n; i++) err = PetscMax(err, PetscAbsReal(PetscRealPart(xa[i]) - FVMBoundaryValue(sys.centroid + 3 * i)));
      PetscCall(VecRestoreArrayRead(x[0], &xa));
      PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &err, 1, MPIU_REAL, MPI_MAX, comm));
      PetscCall(PetscPrintf(comm, "  orthogonal mesh: the solution is the linear p_D = x + 2y + 3z at the centroids (max error %.1e < 1e-6): %s\n", (double)err, err < 1e-6 ? "yes" : "NO"));
    }
  }

  PetscCall(VecDestroy(&x[0]));
  PetscCall(VecDestroy(&x[1]));
  PetscCall(FVMSystemDestroy(&sys));
  PetscCall(FVMMeshDestroy(&mesh));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  build:
    requires: double

  # -check verifies the matrix (size, symmetry, signs, row sums, nonzeros per row, geometry) and the
  # solves (convergence to rtol in the true residual, same iterations and solution for both types)
  # (the printed figures that depend on the summation order, iteration counts, residuals, rounding-level
  # geometry errors, are filtered; the checks assert the properties)
  testset:
    args: -check -timings 0
    filter: sed -E -e "s/aijcusparse/aij/g" -e "s/[0-9]\.[0-9]+e[-+][0-9]+/X/g" -e "s/ +[0-9]+ +X$/ ITS X/" -e "s/iterations ([a-z]+) [0-9]+, ([a-z]+) [0-9]+:/iterations \\1 N, \\2 M:/"
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
    # orthogonal mesh, no source: the solution must be the linear boundary function
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

  # the demo's table, without timings
  test:
    suffix: table_2
    nsize: 2
    args: -n 8 -timings 0
    filter: sed -E -e "s/aijcusparse/aij/g" -e "s/[0-9]\.[0-9]+e[-+][0-9]+/X/g" -e "s/ +[0-9]+ +X$/ ITS X/"

TEST*/
