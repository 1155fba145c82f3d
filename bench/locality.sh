#!/usr/bin/env bash
# bench/locality.sh OUTDIR [STEP ...]
#
# The measurements of issue 12 (locality for unstructured meshes) in one run on one GPU, every configuration with
# its default options unless named, timed after a warm-up (the programs warm up themselves):
#   spmv      FVM Poisson matrix, 10.4 M tetrahedra (fvmpoisson -n 120 -cell tet), randomly numbered (as generated)
#             and structured (-permute 0): bench/spmv with aijcusparse, sellcuda, modsell (default: ordering auto)
#             and modsell with ordering natural
#   cg        the same systems: CG to 1e-8 with aijcusparse + jacobi (reference), modsell + jacobi, modsell + bjsmooth,
#             setup (assembly from rows, KSPSetUp, first product) + solve (fvmpoisson -read_system -configs)
#   ex45      PETSc's ex45 (DMDA 7-point Laplacian) at EX45_N^3 (default 256): aijcusparse + jacobi, modsell + jacobi,
#             modsell + bjsmooth, KSPSolve time and iterations from -log_view; then iterations of jacobi and bjsmooth
#             on modsell at 32^3 .. 128^3
#   partition bench/partition (the partition alone at 10.4 M rows), when the program exists
#   chunk     the bucketed permuted product (-mat_modsell_permute_chunk) on the FVM random numbering: bench/spmv with
#             aijcusparse and modsell (ordering auto: partition) with chunks 0 (the separate gathers), 2^20, 2^21 (the
#             default), 2^22 and 2^24 (one bucket: the product reads x through the permutation); then the same
#             chunks with the recoded column codes (-mat_modsell_permute_recode, a developer option) in a second run
#   bjsbucket CG + bjsmooth on modsell, FVM random numbering, with chunks 2^20 (the PC's sweeps through the buckets),
#             2^24 (one bucket: through the permutation) and 0: times per iteration, PCApply and MatMult from -log_view
# Needs a build of the plugin against a PETSc with CUDA in BUILD (default build-cuda) and PETSc's ex45 at
# $BUILD/ex45 (bench/gpu-run.sh's build stage makes both). Writes OUTDIR/locality.log (summary) and the programs'
# outputs next to it.
set -uo pipefail
out=${1:?usage: bench/locality.sh OUTDIR [spmv cg ex45 partition chunk bjsbucket]}
shift
steps=${*:-spmv cg ex45 partition}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/provenance.sh" # ms_provenance: the commit and the working tree measured
B=${BUILD:-$top/build-cuda}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/locality.log
say() { echo "$*" | tee -a "$log"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
scratch=${TMPDIR:-/tmp}/locality.$$
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
make -C "$top" BUILD="$B" "$B/bin/bench/spmv" "$B/bin/examples/fvm/fvmpoisson" > "$out/build.log" 2>&1 || { say "build failed (see build.log)"; exit 1; }
say "== bench/locality.sh $(date -u +%FT%TZ) $(ms_provenance "$top") device $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

fvm() { # NAME PERMUTE: the system file
  local f=$scratch/fvm-$1.bin
  [ -f "$f" ] || "$B/bin/examples/fvm/fvmpoisson" -n ${FVM_N:-120} -cell tet -permute "$2" -write_system "$f" -mat_type aij -compare 0 -ksp_max_it 1 > "$out/fvm-$1-gen.log" 2>&1
  echo "$f"
}

for step in $steps; do
  case $step in
  spmv)
    for p in random:1 structured:0; do
      f=$(fvm "${p%%:*}" "${p##*:}")
      "$B/bin/bench/spmv" -file "$f" -name "fvm-${p%%:*}" -formats aijcusparse,sellcuda,modsell,modsell:ordering=natural > "$out/spmv-${p%%:*}.log" 2>&1
      say "-- SpMV, FVM ${p%%:*} numbering"
      sed -n '/^-- summary/,$p' "$out/spmv-${p%%:*}.log" | tee -a "$log"
    done ;;
  cg)
    for p in random:1 structured:0; do
      f=$(fvm "${p%%:*}" "${p##*:}")
      "$B/bin/examples/fvm/fvmpoisson" -read_system "$f" -configs aijcusparse:jacobi,modsell:jacobi,modsell:bjsmooth -ref aijcusparse:jacobi -repeat 2 -log_view :"$out/cg-${p%%:*}-logview.txt" > "$out/cg-${p%%:*}.log" 2>&1
      say "-- CG, FVM ${p%%:*} numbering"
      grep -E "configuration|jacobi|bjsmooth|device" "$out/cg-${p%%:*}.log" | tee -a "$log"
    done ;;
  ex45)
    n=${EX45_N:-256}
    lib=$B/lib/libpetscmodsell.so
    for c in aijcusparse:jacobi modsell:jacobi modsell:bjsmooth; do
      t=${c%%:*} pc=${c##*:}
      "$B/ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type $pc -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append "$lib" > /dev/null 2>&1 # warm-up
      "$B/ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type $pc -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append "$lib" -ksp_converged_reason -log_view -ksp_view > "$out/ex45-$n-$t-$pc.log" 2>&1
      its=$(grep -m1 -oE "iterations [0-9]+" "$out/ex45-$n-$t-$pc.log")
      solve=$(awk '/^KSPSolve /{print $4}' "$out/ex45-$n-$t-$pc.log")
      setup=$(awk '/^KSPSetUp /{print $4}' "$out/ex45-$n-$t-$pc.log")
      say "ex45 ${n}^3 $t + $pc: $its KSPSetUp ${setup}s KSPSolve ${solve}s"
    done
    for m in 32 48 64 96 128; do
      line="ex45 ${m}^3 iterations:"
      for pc in jacobi bjsmooth; do
        its=$("$B/ex45" -da_grid_x $m -da_grid_y $m -da_grid_z $m -ksp_type cg -pc_type $pc -ksp_rtol 1e-8 -dm_mat_type modsell -dm_vec_type cuda -dll_append "$lib" -ksp_converged_reason 2>&1 | grep -m1 -oE "iterations [0-9]+")
        line="$line $pc $its;"
      done
      say "$line"
    done ;;
  partition)
    if make -C "$top" BUILD="$B" "$B/bin/bench/partition" >> "$out/build.log" 2>&1; then
      "$B/bin/bench/partition" > "$out/partition.log" 2>&1
      say "-- partition"; tail -5 "$out/partition.log" | tee -a "$log"
    else say "no bench/partition"; fi ;;
  chunk)
    f=$(fvm random 1)
    chunks=0/1048576/2097152/4194304/16777216
    for rc in 0 1; do
      "$B/bin/bench/spmv" -file "$f" -name fvm-random -formats aijcusparse,modsell:chunk=$chunks -mat_modsell_permute_recode $rc > "$out/chunk-recode$rc.log" 2>&1
      say "-- SpMV, FVM random numbering, permute chunks $chunks, recoded column codes: $rc"
      sed -n '/^-- summary/,$p' "$out/chunk-recode$rc.log" | tee -a "$log"
    done ;;
  bjsbucket)
    # CG + bjsmooth on modsell, FVM random numbering: the PC's sweeps (and the product) through the buckets of the
    # permuted image (the default chunk 2^20) against one bucket (2^24: the PC reads b through the permutation and
    # gathers z back through it; the product reads x through it) and chunk 0 (separate gathers); PCApply and MatMult
    # times from -log_view
    f=$(fvm random 1)
    for ch in 1048576 16777216 0; do
      "$B/bin/examples/fvm/fvmpoisson" -read_system "$f" -configs modsell:bjsmooth -ref modsell:bjsmooth -repeat 2 -mat_modsell_permute_chunk $ch -log_view :"$out/bjsbucket-$ch-logview.txt" > "$out/bjsbucket-$ch.log" 2>&1
      say "-- CG + bjsmooth on modsell, FVM random numbering, -mat_modsell_permute_chunk $ch"
      grep -E "configuration|bjsmooth|device" "$out/bjsbucket-$ch.log" | tee -a "$log"
      grep -E "^(PCApply|MatMult|PCBJSmooth[A-Za-z]*) " "$out/bjsbucket-$ch-logview.txt" | tee -a "$log"
    done ;;
  *) say "unknown step $step" ;;
  esac
done
