/*
   Loading test: PETSc's own, unmodified tutorial src/ksp/ksp/tutorials/ex2.c (2D Laplacian, KSPSolve),
   compiled from PETSc's installed examples and linked with PETSc only (config/test.mk), so MATMODSELL
   can only come from -dll_append libpetscmodsell.so, as in users' applications.

   The tests check that
     - without -dll_append, -mat_type modsell is an unknown type (so nothing else registers it);
     - with it, PETSc finds and calls PetscDLLibraryRegister_petscmodsell() (PETSc skips a library
       without that symbol silently, reporting it only with -info), and the matrix really is a
       seqaijmodsell / mpiaijmodsell;
     - the solve takes as many iterations as with PETSc's aij (the aij and modsell runs of each
       iters test share one expected output).
*/
#include <ksp/ksp/tutorials/ex2.c>

/*TEST

   test:
      suffix: noload
      args: -m 8 -n 8 -mat_type modsell
      filter: Error: grep -o "Unknown Mat type given: modsell"

   test:
      suffix: registered
      args: -m 8 -n 8 -dll_append ${PETSCMODSELL_LIB} -mat_type modsell -info :sys
      filter: grep -E "Loading registered routines|does not have symbol" | sed -e "s|^\[0\] ||" -e "s|from [^ ]*libpetscmodsell|from libpetscmodsell|"

   test:
      suffix: seq
      args: -m 8 -n 8 -dll_append ${PETSCMODSELL_LIB} -mat_type modsell -ksp_view
      filter: grep -E "type: (seq|mpi)aij"

   test:
      suffix: mpi
      nsize: 2
      args: -m 8 -n 8 -dll_append ${PETSCMODSELL_LIB} -mat_type modsell -ksp_view
      filter: grep -E "type: (seq|mpi)aij"

   testset:
      suffix: iters_1
      output_file: output/ex2_iters_1.out
      args: -m 8 -n 8 -dll_append ${PETSCMODSELL_LIB} -ksp_converged_reason
      filter: grep -E "iterations"
      test:
         args: -mat_type aij
      test:
         args: -mat_type modsell

   testset:
      suffix: iters_2
      nsize: 2
      output_file: output/ex2_iters_2.out
      args: -m 8 -n 8 -dll_append ${PETSCMODSELL_LIB} -ksp_converged_reason
      filter: grep -E "iterations"
      test:
         args: -mat_type aij
      test:
         args: -mat_type modsell

TEST*/
