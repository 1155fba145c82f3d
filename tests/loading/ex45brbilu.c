/*
   Loading test of PCBRBILU: PETSc's own, unmodified tutorial src/ksp/ksp/tutorials/ex45.c (3D Laplacian on a DMDA,
   the matrix created by the DM), compiled from PETSc's installed examples and linked with PETSc only
   (config/test.mk); the preconditioner comes from -dll_append libpetscmodsell.so and -pc_type brbilu, its grid
   ordering from the matrix's DMDA. The solve must converge (the iteration count is not compared).
*/
#include <ksp/ksp/tutorials/ex45.c>

/*TEST

   testset:
      output_file: output/ex45brbilu.out
      args: -da_grid_x 17 -da_grid_y 17 -da_grid_z 17 -dll_append ${PETSCMODSELL_LIB} -pc_type brbilu -ksp_converged_reason
      filter: sed -n -E "s/iterations [0-9]+/iterations (some)/p"
      test:
         suffix: brbilu_1
         args: -dm_mat_type {{aij modsell}} -ksp_type {{gmres bcgs}}
      test:
         suffix: brbilu_2
         nsize: 2
         args: -dm_mat_type {{aij modsell}} -ksp_type {{gmres bcgs}}
      test:
         suffix: brbilu_cuda
         requires: cuda
         nsize: {{1 2}}
         args: -dm_mat_type aijcusparse -dm_vec_type cuda -ksp_type {{gmres bcgs}} -use_gpu_aware_mpi 0

TEST*/
