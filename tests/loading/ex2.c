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
       iters test share one expected output);
     - on a GPU build, ex2's vectors from VecCreate()/VecSetFromOptions() without -vec_type (host memory)
       are accepted by MATMODSELL and by every preconditioner of the plugin, with the same iterations as
       with -vec_type cuda, and -help does not change that (nor crash).
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

   # GPU: vectors from VecCreate() without -vec_type (host memory, -vec_type standard) against CUDA vectors, for
   # each preconditioner (the same iterations: one expected output for both); with -help too
   testset:
      requires: cuda
      args: -m 24 -n 24 -dll_append ${PETSCMODSELL_LIB} -mat_type modsell -ksp_converged_reason -ksp_type cg
      filter: grep -E "^ *Linear solve (converged|did not)"
      test:
         suffix: cuda_hostvec_bjsmooth
         output_file: output/ex2_cuda_hostvec_bjsmooth.out
         args: -pc_type bjsmooth -vec_type {{standard cuda}}
      test:
         suffix: cuda_hostvec_bjsmooth_help
         output_file: output/ex2_cuda_hostvec_bjsmooth.out
         args: -pc_type bjsmooth -help
      test:
         suffix: cuda_hostvec_bjsmooth_2
         nsize: 2
         output_file: output/ex2_cuda_hostvec_bjsmooth_2.out
         args: -pc_type bjsmooth -vec_type {{standard cuda}}
      test:
         suffix: cuda_hostvec_ruiz
         output_file: output/ex2_cuda_hostvec_ruiz.out
         args: -pc_type ruiz -vec_type {{standard cuda}}
      test:
         suffix: cuda_hostvec_ruiz_help
         output_file: output/ex2_cuda_hostvec_ruiz.out
         args: -pc_type ruiz -help
      test:
         suffix: cuda_hostvec_ruiz_2
         nsize: 2
         output_file: output/ex2_cuda_hostvec_ruiz_2.out
         args: -pc_type ruiz -vec_type {{standard cuda}}
      test:
         suffix: cuda_hostvec_jacobi
         output_file: output/ex2_cuda_hostvec_jacobi.out
         args: -pc_type jacobi -vec_type {{standard cuda}}
      test:
         suffix: cuda_hostvec_jacobi_help
         output_file: output/ex2_cuda_hostvec_jacobi.out
         args: -pc_type jacobi -help
      test:
         suffix: cuda_hostvec_jacobi_2
         nsize: 2
         output_file: output/ex2_cuda_hostvec_jacobi_2.out
         args: -pc_type jacobi -vec_type {{standard cuda}}

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
