/*
   Loading test of PCNEUMANN: PETSc's own, unmodified tutorial src/ksp/ksp/tutorials/ex45.c (3D Laplacian on a DMDA),
   compiled from PETSc's installed examples; PCNEUMANN comes from -dll_append libpetscmodsell.so and is selected with
   -pc_type neumann. CG with Jacobi takes 28 iterations on the 9^3 grid, with neumann (neu2) 11 (12 on 3 processes), neu2 with
   deflation (2 boxes per axis per process) 6 (7), neu1 and ip 13 (measured on the CPU): the filters check that Jacobi
   takes at least 24 and every neumann variant at most 18, a comparison that holds on any correct build.
*/
#include <ksp/ksp/tutorials/ex45.c>

/*TEST

   testset:
      nsize: {{1 3}}
      args: -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -dll_append ${PETSCMODSELL_LIB} -ksp_type cg -ksp_converged_reason
      test:
         suffix: jacobi
         args: -pc_type jacobi -dm_mat_type {{aij modsell}}
         output_file: output/ex45neumann_jacobi.out
         filter: grep iterations | sed -E -e "s/.*CONVERGED_RTOL iterations (2[4-9]|[3-9][0-9])$/jacobi: at least 24 iterations/"
      test:
         suffix: neumann
         args: -pc_type neumann -dm_mat_type {{aij modsell}} -pc_neumann_type {{neu1 neu2 ip}} -pc_neumann_deflation_subdomains {{0 2}}
         output_file: output/ex45neumann_neumann.out
         filter: grep iterations | sed -E -e "s/.*CONVERGED_RTOL iterations ([0-9]|1[0-8])$/neumann: at most 18 iterations (fewer than jacobi)/"

TEST*/
