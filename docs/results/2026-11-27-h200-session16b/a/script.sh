#!/bin/bash
# session 16 (continued 2026-11-27), the one device call: GAMG's Galerkin products on the host (-matptap_backend_cpu
# and the other *_backend_cpu options) on 3 processes; before this tree every such 3-process run ended with SIGSEGV
# (2026-11-25 call f). Runs the harness cases tests/mat/ex9 cuda_backend_cpu (1 and 3 processes) and tests/ksp/ex1
# cuda_fvm_level_pcs_backend_cpu_3, then PETSc alone (ex1's 3-process case with both types aijcusparse).
# Logs into $OUT as they come.
T0=$SECONDS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PETSC_OPTIONS="-use_gpu_aware_mpi 0"
cache=$HOME/.cache/petsc-modsell; export PETSC_DIR=$cache/petsc-3.26.1-cuda-opt PETSC_ARCH=
mkdir -p $cache && tar xJf .carry/petsc-cuda.tar.xz -C $cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
B=$PWD/build-cuda
make BUILD=$B -j16 lib > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "lib built at $((SECONDS-T0)) s" | tee -a $OUT/runs.txt
make BUILD=$B -j16 check search='tests_*backend_cpu*' > $OUT/check.log 2>&1; echo "harness (ex9, ex1 backend_cpu cases): $(grep -E '^# (success|failed)' $OUT/check.log | tr '\n' ' ') at $((SECONDS-T0)) s" | tee -a $OUT/runs.txt
E=$B/tests/tests/ksp/ex1
A="-problem fvm -n 8 -cell tet -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -setup_only -check_level_pcs -ref_mat_type aijcusparse -matptap_backend_cpu"
for t in "aijcusparse jacobi"; do set -- $t
  timeout -k 2 40 mpiexec -n 3 $E $A -test_mat_type $1 -mg_levels_pc_type $2 > $OUT/np3-$1-$2.txt 2>&1
  echo "np3 $1 $2 rc $? $(grep -c 'agree with their host references: yes' $OUT/np3-$1-$2.txt) at $((SECONDS-T0)) s" | tee -a $OUT/runs.txt
done
grep -h "not ok" $OUT/check*.log | head
echo "total $((SECONDS-T0)) s" | tee -a $OUT/runs.txt
