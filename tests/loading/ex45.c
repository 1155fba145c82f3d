/*
   Loading test: PETSc's own, unmodified tutorial src/ksp/ksp/tutorials/ex45.c (3D Laplacian on a DMDA,
   the matrix created by the DM), compiled from PETSc's installed examples and linked with PETSc only
   (config/test.mk): MATMODSELL comes from -dll_append libpetscmodsell.so and is selected with
   -dm_mat_type modsell.

   The tests check that the DM's matrix really is a seqaijmodsell / mpiaijmodsell, and that the solve
   takes as many iterations as with PETSc's aij (the aij and modsell runs of each iters test share one
   expected output).
*/
#include <ksp/ksp/tutorials/ex45.c>

/*TEST

   test:
      suffix: seq
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -dll_append ${PETSCMODSELL_LIB} -dm_mat_type modsell -ksp_view
      filter: grep -E "type: (seq|mpi)aij"

   test:
      suffix: mpi
      nsize: 2
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -dll_append ${PETSCMODSELL_LIB} -dm_mat_type modsell -ksp_view
      filter: grep -E "type: (seq|mpi)aij"

   testset:
      suffix: iters_1
      output_file: output/ex45_iters_1.out
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -dll_append ${PETSCMODSELL_LIB} -ksp_converged_reason
      filter: grep -E "iterations"
      test:
         args: -dm_mat_type aij
      test:
         args: -dm_mat_type modsell

   testset:
      suffix: iters_2
      nsize: 2
      output_file: output/ex45_iters_2.out
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -dll_append ${PETSCMODSELL_LIB} -ksp_converged_reason
      filter: grep -E "iterations"
      test:
         args: -dm_mat_type aij
      test:
         args: -dm_mat_type modsell

   # the plugin's device-resident CG (-ksp_type cgdevice) in the unmodified tutorial, one and two processes (the single
   # reduction form on ex45's operator, whose Dirichlet rows make it nonsymmetric)
   test:
      suffix: cgdevice
      nsize: {{1 2}}
      output_file: output/ex45_cgdevice.out
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -dll_append ${PETSCMODSELL_LIB} -ksp_converged_reason -ksp_type cgdevice -pc_type {{jacobi none}} -dm_mat_type {{aij modsell}}
      filter: grep -o "converged due to [A-Z_]*"

   test:
      suffix: cgdevice_cuda
      requires: cuda
      nsize: {{1 2}}
      output_file: output/ex45_cgdevice.out
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -dll_append ${PETSCMODSELL_LIB} -ksp_converged_reason -ksp_type cgdevice -pc_type {{jacobi none}} -dm_mat_type {{aijcusparse modsell}} -dm_vec_type cuda
      filter: grep -o "converged due to [A-Z_]*"

TEST*/
