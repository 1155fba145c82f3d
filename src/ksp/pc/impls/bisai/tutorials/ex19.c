/*
   PETSc's own, unmodified tutorial snes/tutorials/ex19.c (driven cavity: velocity, vorticity and temperature on a
   DMDA, 4 fields per node, so the Jacobian has block size 4), compiled from PETSc's installed examples: PCBISAI is
   selected with -pc_type bisai (the plugin comes from -dll_append, as in a user's application; this program is also
   linked with it).

   The tests check that Newton takes as many steps with -pc_type bisai as with PETSc's ILU (bjacobi + ILU on several
   processes): both runs of a testset share one expected output; and that GMRES(30) and BiCGSTAB solve the first
   Newton step's system (iteration counts filtered out).
*/
#if __has_include(<../share/petsc/examples/src/snes/tutorials/ex19.c>)
  #include <../share/petsc/examples/src/snes/tutorials/ex19.c>
#elif __has_include(<../src/snes/tutorials/ex19.c>)
  #include <../src/snes/tutorials/ex19.c>
#else
  #error "PETSc's snes/tutorials/ex19.c was not found next to PETSc's include directory"
#endif

/*TEST

   testset:
      suffix: newton_1
      output_file: output/ex19_newton_1.out
      args: -da_grid_x 16 -da_grid_y 16 -dll_append ${PETSCMODSELL_LIB} -snes_converged_reason
      test:
         suffix: ilu
         args: -pc_type ilu
      test:
         suffix: bisai
         args: -pc_type bisai
      test:
         suffix: bisai_k2
         args: -pc_type bisai -pc_bisai_level 2
      test:
         suffix: bisai_modsell
         args: -pc_type bisai -dm_mat_type modsell
      test:
         suffix: bisai_baij
         args: -pc_type bisai -dm_mat_type baij

   testset:
      suffix: newton_3
      nsize: 3
      output_file: output/ex19_newton_3.out
      args: -da_grid_x 16 -da_grid_y 16 -dll_append ${PETSCMODSELL_LIB} -snes_converged_reason
      test:
         suffix: ilu
         args: -pc_type bjacobi -sub_pc_type ilu
      test:
         suffix: bisai
         args: -pc_type bisai

   testset:
      suffix: linear
      nsize: {{1 3}}
      output_file: output/ex19_linear.out
      args: -da_grid_x 24 -da_grid_y 24 -dll_append ${PETSCMODSELL_LIB} -snes_max_it 1 -pc_type bisai -ksp_rtol 1e-8 -ksp_max_it 3000 -ksp_converged_reason
      filter: grep -E "Linear solve" | sed -E -e "s/iterations [0-9]+/iterations N/"
      test:
         suffix: gmres
         args: -ksp_type gmres -ksp_gmres_restart 30 -pc_bisai_level {{1 2 3}}
      test:
         suffix: bcgs
         args: -ksp_type bcgs

   testset:
      requires: cuda
      suffix: cuda_newton
      output_file: output/ex19_newton_1.out
      args: -da_grid_x 16 -da_grid_y 16 -dll_append ${PETSCMODSELL_LIB} -snes_converged_reason -dm_vec_type cuda
      test:
         suffix: ilu
         args: -pc_type ilu -dm_mat_type aijcusparse
      test:
         suffix: bisai
         args: -pc_type bisai -dm_mat_type aijcusparse -pc_bisai_ilu {{exact sweeps}}
      test:
         suffix: bisai_aijmodsell
         args: -pc_type bisai -dm_mat_type aijmodsell

   testset:
      requires: cuda
      suffix: cuda_linear
      nsize: {{1 3}}
      output_file: output/ex19_linear.out
      args: -da_grid_x 24 -da_grid_y 24 -dll_append ${PETSCMODSELL_LIB} -snes_max_it 1 -pc_type bisai -ksp_rtol 1e-8 -ksp_max_it 3000 -ksp_converged_reason -dm_mat_type aijcusparse -dm_vec_type cuda
      filter: grep -E "Linear solve" | sed -E -e "s/iterations [0-9]+/iterations N/"
      test:
         suffix: gmres
         args: -ksp_type gmres -ksp_gmres_restart 30 -pc_bisai_level {{1 2 3}}
      test:
         suffix: bcgs
         args: -ksp_type bcgs

TEST*/
