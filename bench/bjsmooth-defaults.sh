#!/usr/bin/env bash
# bench/bjsmooth-defaults.sh OUTDIR [fvm ex45]
#
# How PCBJSMOOTH's block size (= the slice height of the image) and inner sweeps should follow the ordering: CG to
# 1e-8 with modsell + bjsmooth for slice heights SHS (default "128 256 512") and inner Jacobi sweeps ITS (default
# "3 6"), every other option at its default (ordering auto), against aijcusparse + jacobi measured in the same
# process (fvm) or the same run (ex45):
#   fvm   FVM Poisson, 10.4 M tetrahedra (fvmpoisson -n 120 -cell tet) randomly numbered and structured; setup +
#         solve after a warm-up, from fvmpoisson's table
#   ex45  PETSc's ex45 at EX45_N^3 (default 256): KSPSetUp + KSPSolve from -log_view, after a warm-up run
# Needs what bench/locality.sh needs. Writes OUTDIR/bjsmooth-defaults.log (summary) and the programs' outputs.
set -uo pipefail
out=${1:?usage: bench/bjsmooth-defaults.sh OUTDIR [fvm ex45]}
shift
steps=${*:-fvm ex45}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/provenance.sh" # ms_provenance: the commit and the working tree measured
B=${BUILD:-$top/build-cuda}
SHS=${SHS:-128 256 512}
ITS=${ITS:-3 6}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/bjsmooth-defaults.log
say() { echo "$*" | tee -a "$log"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
scratch=${TMPDIR:-/tmp}/bjsd.$$
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
make -C "$top" BUILD="$B" "$B/bin/examples/fvm/fvmpoisson" > "$out/build.log" 2>&1 || { say "build failed (see build.log)"; exit 1; }
say "== bench/bjsmooth-defaults.sh $(date -u +%FT%TZ) $(ms_provenance "$top") device $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

for step in $steps; do
  case $step in
  fvm)
    for p in random:1 structured:0; do
      name=${p%%:*} f=$scratch/fvm-$name.bin
      "$B/bin/examples/fvm/fvmpoisson" -n ${FVM_N:-120} -cell tet -permute "${p##*:}" -write_system "$f" -mat_type aij -compare 0 -ksp_max_it 1 > "$out/fvm-$name-gen.log" 2>&1
      for sh in $SHS; do
        for its in $ITS; do
          o=$out/fvm-$name-sh$sh-its$its.log
          "$B/bin/examples/fvm/fvmpoisson" -read_system "$f" -configs aijcusparse:jacobi,modsell:bjsmooth -ref aijcusparse:jacobi -mat_modsell_slice_height $sh -pc_bjsmooth_inner_its $its > "$o" 2>&1
          say "fvm $name sh $sh its $its: $(grep -m1 -E 'modsell \+ bjsmooth' "$o" | tr -s ' ')  | ref $(grep -m1 -E 'aijcusparse \+ jacobi' "$o" | tr -s ' ')"
        done
      done
    done ;;
  ex45)
    n=${EX45_N:-256}
    lib=$B/lib/libpetscmodsell.so
    run45() { # TAG MAT PC [options]: one timed run after a warm-up
      local tag=$1 t=$2 pc=$3; shift 3
      "$B/ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type $pc -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append "$lib" "$@" > /dev/null 2>&1
      "$B/ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type $pc -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append "$lib" "$@" -ksp_converged_reason -log_view > "$out/ex45-$tag.log" 2>&1
      say "ex45 ${n}^3 $tag: $(grep -m1 -oE 'iterations [0-9]+' "$out/ex45-$tag.log") KSPSetUp $(awk '/^KSPSetUp /{print $4}' "$out/ex45-$tag.log")s KSPSolve $(awk '/^KSPSolve /{print $4}' "$out/ex45-$tag.log")s"
    }
    run45 aijcusparse-jacobi aijcusparse jacobi
    for sh in $SHS; do
      for its in $ITS; do run45 "bjsmooth-sh$sh-its$its" modsell bjsmooth -mat_modsell_slice_height $sh -pc_bjsmooth_inner_its $its; done
    done
    run45 aijcusparse-jacobi-again aijcusparse jacobi ;;
  *) say "unknown step $step" ;;
  esac
done
