/*
   Private layer shared by the petsc-modsell preconditioners (src/ksp/pc/impls/pcms.c).

   Vectors: a PC that runs on the GPU (its operator's vectors are CUDA vectors) still accepts vectors in
   host memory (VECSEQ/VECMPI from VecCreate()), as PETSc's CUDA types do: PCMSStageIn() gives a device
   vector of the same layout holding the values (one host-to-device copy, logged by PETSc), and
   PCMSStageOut() copies a staged result back. Vectors already on the device pass through untouched.
*/
#pragma once

#include <petscmodsell/private/modsellimpl.h>

/* A pair of device vectors, created at the first host vector and kept until PCMSStageDestroy() */
typedef struct {
  Vec in, out;
} PCMSStage;

/* Whether the array of v is in device memory (a CUDA vector not bound to the CPU), without moving data */
PETSC_INTERN PetscErrorCode PCMSVecIsDevice(Vec, PetscBool *);
/* which 0 (input) or 1 (output): *use is v itself when v is on the device, else the stage's vector, holding
   v's values when copy is true */
PETSC_INTERN PetscErrorCode PCMSStageIn(PCMSStage *, PetscInt, Vec, PetscBool, Vec *);
/* copies use into v when use is a staged vector */
PETSC_INTERN PetscErrorCode PCMSStageOut(Vec, Vec);
PETSC_INTERN PetscErrorCode PCMSStageDestroy(PCMSStage *);
/* The array of v where the PC computes: device memory when device (an error naming the vector otherwise:
   stage host vectors first), else host memory (a device vector is synchronised to the host, as
   VecGetArray() does) */
PETSC_INTERN PetscErrorCode PCMSVecGetArray(PC, Vec, PetscBool, PetscMemoryAccessMode, PetscScalar **);
PETSC_INTERN PetscErrorCode PCMSVecRestoreArray(Vec, PetscBool, PetscMemoryAccessMode, PetscScalar **);
