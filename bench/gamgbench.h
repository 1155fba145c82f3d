/*
   gamgbench.h - what bench/vcycle.c uses: the problem suite, the device
   synchronization around timed regions, the order of samples for their median, and the solver (CG + GAMG to rtol
   1e-8, then the options database)
*/
#pragma once
#include <petscksp.h>
#include <petscmodsell.h>
#include <petsctime.h>
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice_cuda.h>
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../examples/problems/problems.h"
#pragma GCC diagnostic pop

/* qsort() order of doubles (medians of timed samples) */
static inline int GBCmpDouble(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* the device's queued work done, then every process here */
static PetscErrorCode GBSync(MPI_Comm comm)
{
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscCallCUDA(cudaDeviceSynchronize());
#endif
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* CG + GAMG on A to rtol 1e-8, then -ksp_* / -pc_* from the options database */
static PetscErrorCode GBCreateSolver(Mat A, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
