/*
   bench/ex45periter: the time of one Krylov iteration on PETSc's own tutorial ex45 (src/ksp/ksp/tutorials/ex45.c,
   3D Laplacian on a DMDA), with its operator, right-hand side and initial guess from ex45's own functions (the tutorial
   is included unmodified from PETSc's installed examples, as tests/loading does; only its main is replaced).

   ex45 solves once, so the time of an iteration had to come from two program runs at two iteration counts, each
   paying the DMDA's host assembly (15-25 s at 256^3 rows per process) and a warm-up run before them. This program
   sets up ex45's KSP once and solves it several times in one process (ex45 recomputes the right-hand side and the
   zero initial guess at each solve, so each solve is the same problem): KSPSetUp (ex45's assembly and the
   preconditioner's setup, timed: bench/gamg.sh compares GAMG's setups with it), a warm-up solve (the GPU
   image, the first kernels), then solves of A and B iterations; one iteration is (T_B - T_A) / (B - A), KSPSolve's wall time
   after a device synchronization, maximum over the processes. bench/scaling.sh's periter step runs it.

     mpiexec -n 4 build/bin/bench/ex45periter -da_grid_x 256 -da_grid_y 512 -da_grid_z 512 -ksp_type cg -pc_type jacobi \
       -ksp_rtol 1e-30 -dm_mat_type modsell -dm_vec_type cuda -dll_append build/lib/libpetscmodsell.so -periter_its 20,100,600
*/
static const char periter_help[] = "PETSc's ex45 (3D Laplacian on a DMDA) set up once and solved at several iteration counts.\n\
  -periter_its w,a,b: the warm-up solve's iterations, then A and B (default 20,100,600); one iteration: (T_B - T_A) / (B - A).\n\
  -periter_repeat r: r pairs of timed solves (A, B, A, B, ...); one iteration: the median of their r estimates (default 1).\n\
  Every solve runs exactly its count (-ksp_rtol 1e-30 keeps it from converging); the KSP's other options as for ex45.\n";

#define main ex45_tutorial_main
#include <ksp/ksp/tutorials/ex45.c>
#undef main

#include <petscdevice.h>

/* the wall time of KSPSetUp() (its < 0) or of KSPSolve() with its iterations, maximum over the processes, with the
   device's queued work finished before and after */
static PetscErrorCode Timed(KSP ksp, PetscInt its, PetscInt *done, KSPConvergedReason *reason, PetscLogDouble *t)
{
  PetscDeviceContext dctx;
  PetscLogDouble     t0, t1;
  MPI_Comm           comm = PetscObjectComm((PetscObject)ksp);

  PetscFunctionBeginUser;
  if (its >= 0) PetscCall(KSPSetTolerances(ksp, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT, its));
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  if (its >= 0) PetscCall(KSPSolve(ksp, NULL, NULL));
  else PetscCall(KSPSetUp(ksp));
  PetscCall(PetscDeviceContextSynchronize(dctx));
  PetscCall(PetscTime(&t1));
  *t = t1 - t0;
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 1, MPI_DOUBLE, MPI_MAX, comm));
  if (its < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetIterationNumber(ksp, done));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* with -log_view (its event log), the parts of KSPSetUp from the events' times, maximum over the processes: PCSetUp,
   DMCreateMat (the DMDA's preallocated matrix), ex45's "Set values" (its MatSetValuesStencil() loop, which ends with
   MatAssemblyBegin/End() inside the event) and MatAssemblyEnd (where a matrix type may build its GPU image). The
   solver's setup is KSPSetUp less what ex45 does the same way for every matrix type: DMCreateMat and Set values
   without the assembly's end. The log shows these events' times as n/a on a GPU build without -log_view_gpu_time,
   since kernels may still run when an event ends; PCSetUp of GAMG and of the plugin's PCs ends with its results copied
   or synchronized, and KSPSetUp is timed between device synchronizations, so the host times are the durations */
static PetscErrorCode SetupParts(MPI_Comm comm, PetscLogDouble tsetup)
{
  const char        *names[4] = {"PCSetUp", "Set values", "DMCreateMat", "MatAssemblyEnd"};
  PetscLogDouble     t[4];
  PetscEventPerfInfo info;
  PetscLogEvent      ev;
  PetscBool          active;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-log_view", &active));
  if (!active) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < 4; i++) {
    PetscCall(PetscLogEventGetId(names[i], &ev));
    PetscCall(PetscLogEventGetPerfInfo(PETSC_DETERMINE, ev, &info));
    t[i] = info.time;
  }
  PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, t, 4, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(PetscPrintf(comm, "setup parts (event log): PCSetUp %.6e s, ex45's Set values %.6e s, DMCreateMat %.6e s, MatAssemblyEnd %.6e s\n", t[0], t[1], t[2], t[3]));
  PetscCall(PetscPrintf(comm, "solver setup (KSPSetUp less DMCreateMat and Set values without MatAssemblyEnd): %.6e s\n", tsetup - t[2] - (t[1] - t[3])));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  KSP                ksp;
  DM                 da;
  PetscInt           its[3] = {20, 100, 600}, nits = 3, done[3], repeat = 1, exact = 1;
  PetscLogDouble     t[3], tsetup, est[64];
  KSPConvergedReason reason[3];
  PetscBool          flg;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, periter_help));
  (void)help; /* ex45's own help string, replaced by this program's */
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ex45 per iteration", NULL);
  PetscCall(PetscOptionsIntArray("-periter_its", "iterations of the warm-up solve and of the two timed solves", NULL, its, &nits, &flg));
  PetscCall(PetscOptionsRangeInt("-periter_repeat", "pairs of timed solves (A, B); one iteration: the median of their estimates", NULL, repeat, &repeat, NULL, 1, (PetscInt)PETSC_STATIC_ARRAY_LENGTH(est))); /* est holds one estimate per pair */
  PetscOptionsEnd();
  PetscCheck(!flg || nits == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-periter_its takes three counts (warm-up, A, B), not %" PetscInt_FMT, nits);
  PetscCheck(its[0] >= 1 && its[1] >= 1 && its[2] > its[1], PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-periter_its w,a,b needs w >= 1, a >= 1 and b > a (given %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ")", its[0], its[1], its[2]);

  /* ex45's main up to its KSPSolve */
  PetscCall(PetscLogEventRegister("Set values", MAT_CLASSID, &setvalues));
  PetscCall(PetscLogEventRegister("User time", MAT_CLASSID, &usertime));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 7, 7, 7, PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(KSPSetDM(ksp, da));
  PetscCall(KSPSetComputeInitialGuess(ksp, ComputeInitialGuess, NULL));
  PetscCall(KSPSetComputeRHS(ksp, ComputeRHS, NULL));
  PetscCall(KSPSetComputeOperators(ksp, ComputeMatrix, NULL));
  PetscCall(DMDestroy(&da));
  PetscCall(KSPSetFromOptions(ksp));

  PetscCall(Timed(ksp, -1, NULL, NULL, &tsetup));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "setup (KSPSetUp: ex45's assembly, the preconditioner's setup): %.6e s\n", tsetup));
  PetscCall(SetupParts(PETSC_COMM_WORLD, tsetup));
  for (PetscInt k = 0, s = 0; k < repeat; k++) { /* the warm-up, then the pairs; solves numbered 0, 1, 2, ... */
    for (PetscInt q = k ? 1 : 0; q < 3; q++, s++) {
      PetscCall(Timed(ksp, its[q], &done[q], &reason[q], &t[q]));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %" PetscInt_FMT " (%s): %" PetscInt_FMT " iterations (%s), KSPSolve %.6e s\n", s, q ? (q == 1 ? "A" : "B") : "warm-up", done[q], KSPConvergedReasons[reason[q]], t[q]));
    }
    if (done[1] != its[1] || done[2] != its[2]) exact = 0;
    est[k] = (t[2] - t[1]) / (double)(its[2] - its[1]);
  }
  if (!exact) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "per iteration: not measured (the timed solves ran %" PetscInt_FMT " and %" PetscInt_FMT " iterations, not %" PetscInt_FMT " and %" PetscInt_FMT ": lower -ksp_rtol)\n", done[1], done[2], its[1], its[2]));
  } else if (repeat == 1) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "per iteration: %.4f ms ((T_B - T_A) / (B - A), A = %" PetscInt_FMT ", B = %" PetscInt_FMT ")\n", 1e3 * est[0], its[1], its[2]));
  } else { /* the median of the pairs' estimates (the mean of the middle two for an even count), and their range */
    PetscCall(PetscSortReal(repeat, est));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "per iteration: %.4f ms (median of %" PetscInt_FMT " pairs' (T_B - T_A) / (B - A), A = %" PetscInt_FMT ", B = %" PetscInt_FMT "; range %.4f ms to %.4f ms)\n", 1e3 * 0.5 * (est[(repeat - 1) / 2] + est[repeat / 2]), repeat, its[1], its[2], 1e3 * est[0], 1e3 * est[repeat - 1]));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

   testset:
      output_file: output/ex45periter_1.out
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 -periter_its 2,3,6 -dll_append ${PETSCMODSELL_LIB}
      filter: sed -E -e "s/-?[0-9]+\.[0-9]+e[-+][0-9]+ s/T s/g" -e "s/-?[0-9]+\.[0-9]+ ms/T ms/"
      test:
         suffix: 1
         args: -dm_mat_type modsell
      test:
         suffix: 2
         nsize: 2
         args: -dm_mat_type modsell
      test:
         suffix: aij
         args: -dm_mat_type aij
      test:
         suffix: parts
         args: -dm_mat_type modsell -log_view :/dev/null
         output_file: output/ex45periter_parts.out
      test:
         suffix: cuda
         nsize: 2
         requires: cuda
         args: -dm_mat_type modsell -dm_vec_type cuda
   test:
      suffix: repeat
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 -periter_its 2,3,6 -periter_repeat 3 -dm_mat_type modsell -dll_append ${PETSCMODSELL_LIB}
      filter: sed -E -e "s/-?[0-9]+\.[0-9]+e[-+][0-9]+ s/T s/g" -e "s/-?[0-9]+\.[0-9]+ ms/T ms/g"

TEST*/
