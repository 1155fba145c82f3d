#!/bin/bash
# session 17, call c: the fixes of call b's failures (PCPBJACOBI/PCVPBJACOBI on MATMPIAIJMODSELL on the GPU, the
# reference's block size, R A R^T with the host products, GAMG levels' Galerkin products on the host), then the CUDA
# harness cases call b did not reach before its limit; then whether modsell's R A R^T with -matmatmult_backend_cpu
# alone agrees with a host (aij) reference.
T0=$SECONDS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0"
cache=$HOME/.cache/petsc-modsell; export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=
mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
B=$PWD/build-cuda
make BUILD=$B -j16 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "lib built at $((SECONDS-T0)) s"
timeout 380 make BUILD=$B -j16 GPU_JOBS=6 check search='tests_ksp-ex1_cuda_np3*,tests_ksp-ex1_cuda_fvm_np3_pbjacobi,tests_ksp-ex1_cuda_fvm_gamg_levels,tests_mat-ex9_cuda*,src_ksp_pc_impls_bisai_tests-ex1_cuda_compare,src_ksp_pc_impls_bisai_tests-ex1_cuda_compare_3,src_ksp_pc_impls_bisai_tests-ex1_cuda_compare_bs,src_ksp_pc_impls_bisai_tests-ex1_cuda_compare_cusparse,src_ksp_pc_impls_bisai_tests-ex1_cuda_reuse,src_ksp_pc_impls_bisai_tests-ex1_cuda_solve,src_ksp_pc_impls_bisai_tests-ex1_cuda_solve_3,src_ksp_pc_impls_bisai_tests-ex1_cuda_view_cusparse_bs1,src_ksp_pc_impls_bisai_tests-ex1_cuda_view_cusparse_pc_bisai_spmv-cusparse,src_ksp_pc_impls_bisai_tests-ex1_cuda_view_cusparse_pc_bisai_spmv-own,src_ksp_pc_impls_bjsmooth_tests-ex1_cuda_exact,src_ksp_pc_impls_brbilu_tests-ex1_cuda_layout_empty_rows,src_ksp_pc_impls_brbilu_tests-ex1_cuda_layout_wide,src_ksp_pc_impls_neumann_tests-ex1_cuda_compare_large,src_ksp_pc_impls_neumann_tests-ex2_cuda_edge_sub_kind-permuted,src_ksp_pc_impls_ruiz_tests-ex2_cuda_lap3d_bcgs,src_ksp_pc_impls_ruiz_tests-ex2_cuda_lap3d_gmres,tests_mat-ex1_cuda_chunk_edge_3,tests_mat-ex1_cuda_edge_3,tests_mat-ex3_cuda_other_cusparse,tests_mat-ex8_cuda_3' > $OUT/check.log 2>&1
echo "harness rc $? at $((SECONDS-T0)) s: $(grep -E '^# (success|failed)|passed' $OUT/check.log | tail -3 | tr '\n' ' ')"
grep -c '^ *ok' $OUT/check.log; grep -A8 'not ok' $OUT/check.log | head -60
E=$B/tests/tests/mat/ex9
for ref in aij aijcusparse; do
  timeout -k 2 40 $E -ref_mat_type $ref -vec_type cuda -matmatmult_backend_cpu -matptap_backend_cpu -mattransposematmult_backend_cpu -kind unstructured -n 900 -agg 7 > $OUT/rart-$ref.txt 2>&1
  echo "ex9 backend_cpu without -matrart_backend_cpu, reference $ref: rc $? $(head -c 600 $OUT/rart-$ref.txt | tr '\n' ' ')"
done
gzip $OUT/check.log
echo "total $((SECONDS-T0)) s"
