#!/usr/bin/env bash
# bench/krylov.sh OUTDIR
#
# The time of a CG + Jacobi iteration on one GPU, PETSc's KSPCG against the plugin's KSPCGDEVICE, on aijcusparse and
# MATMODSELL (bench/krylov.c: an ex45-like 7-point Laplacian on an N^3 DMDA, a converged solve to rtol 1e-5 and the
# differential (T_B - T_A) / (B - A) of two fixed-count solves, medians over alternated rounds, the copy bandwidth
# and the byte floor 12 nnz + 104 n bytes of an iteration), at KRYLOV_SIZES (default "96 160 256") with the KSPs of
# KRYLOV_KSPS (default cg,cgdevice,cgdevice+sr: the standard form, two kernels per iteration, and the single-reduction
# form, one kernel per iteration); then the permuted images of KRYLOV_PERM_MATS (default
# modsell:partition,modsell:bricks: KSPCGDEVICE runs in the image's numbering) at KRYLOV_PERM_SIZES (default "96 256");
# then PETSc's own ex45 at 256^3 with -ksp_type cg, cgdevice and cgdevice -ksp_cgdevice_single_reduction (-log_view:
# the events KSPDeviceIter / KSPDeviceSetUp with GPU time and flops, -ksp_view: what was fused, the kernel calls
# per iteration and the nodes of the CUDA graph). KRYLOV_ROUNDS (default 5), KRYLOV_ITS (default "50,350"), KRYLOV_EX45_N
# (default 256), KRYLOV_MATS (default aijcusparse,modsell), EXTRA (more options for every run, e.g.
# "-ksp_device_graph 0" or "-ksp_device_check_max 64").
# Needs the plugin built against a PETSc with CUDA in BUILD (default build-cuda); builds the driver there.
# Then BiCGSTAB and GMRES(30) + Jacobi against KSPBCGS and KSPGMRES (bench/krylovns.c) on a 7-point
# convection-diffusion operator at KRYLOV_NS_SIZES (default 160; empty: skipped), KRYLOV_NS_ITS (default 60,300).
# Writes OUTDIR/krylov.log (the drivers' summaries) and OUTDIR/ex45-<ksp>-<mat>.log (ex45's -log_view and -ksp_view).
set -uo pipefail
out=${1:?usage: bench/krylov.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/common.sh" # ms_provenance: the commit and the working tree measured
B=$(cd "${BUILD:-$top/build-cuda}" 2>/dev/null && pwd) || B=${BUILD:-$top/build-cuda}
SIZES=${KRYLOV_SIZES:-96 160 256}
ROUNDS=${KRYLOV_ROUNDS:-5}
ITS=${KRYLOV_ITS:-50,350}
EXTRA=${EXTRA:-}
N45=${KRYLOV_EX45_N:-256}
MATS=${KRYLOV_MATS:-aijcusparse,modsell} # KRYLOV_MATS=aij,modsell KRYLOV_VEC=standard BUILD=build: a CPU trial
KSPS=${KRYLOV_KSPS:-cg,cgdevice,cgdevice+sr}
PMATS=${KRYLOV_PERM_MATS:-modsell:partition,modsell:bricks}
PSIZES=${KRYLOV_PERM_SIZES:-96 256}
VEC=${KRYLOV_VEC:-cuda}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/krylov.log
: > "$log"
say() { echo "$*" | tee -a "$log"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
make -C "$top" BUILD="$B" "$B/bin/bench/krylov" > "$out/build.log" 2>&1 || { say "build failed (see build.log)"; exit 1; }
say "== bench/krylov.sh $(date -u +%FT%TZ) $(ms_provenance "$top") device $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
for n in $SIZES; do
  say "-- ${n}^3"
  # shellcheck disable=SC2086
  "$B/bin/bench/krylov" -n "$n" -rounds "$ROUNDS" -its "$ITS" -mat_types "$MATS" -ksp_types "$KSPS" -use_gpu_aware_mpi 0 $EXTRA 2>&1 | tee -a "$log"
done
if [ -n "$PMATS" ]; then
  for n in $PSIZES; do
    say "-- ${n}^3, permuted images"
    # shellcheck disable=SC2086
    "$B/bin/bench/krylov" -n "$n" -rounds "$ROUNDS" -its "$ITS" -mat_types "$PMATS" -ksp_types "$KSPS" -use_gpu_aware_mpi 0 $EXTRA 2>&1 | tee -a "$log"
  done
fi

# PETSc's ex45 (its installed tutorial, included by bench/ex45periter) at KRYLOV_EX45_N^3 (default 256)
ex45=$B/bin/bench/ex45periter
make -C "$top" BUILD="$B" "$ex45" >> "$out/build.log" 2>&1 || { say "ex45periter build failed (see build.log)"; exit 1; }
for k in cg cgdevice cgdevice+sr; do
  kt=${k%+sr}
  ko=""
  [ "$k" = "cgdevice+sr" ] && ko="-ksp_cgdevice_single_reduction"
  for m in ${MATS//,/ }; do
    say "-- ex45 ${N45}^3 -ksp_type $kt $ko -dm_mat_type $m (bench/ex45periter: 20 warm-up, then 100 and 600 iterations, 3 pairs)"
    # shellcheck disable=SC2086
    "$ex45" -da_grid_x "$N45" -da_grid_y "$N45" -da_grid_z "$N45" -ksp_type "$kt" $ko -pc_type jacobi -ksp_rtol 1e-30 -dm_mat_type "$m" -dm_vec_type "$VEC" \
      -periter_its 20,100,600 -periter_repeat 3 -dll_append "$B/lib/libpetscmodsell.so" -use_gpu_aware_mpi 0 -ksp_view -log_view $EXTRA > "$out/ex45-$k-$m.log" 2>&1
    grep -E "^(per iteration|solve [0-9]+ \(B\)|KSPDeviceIter|KSPSolve|MatMult |PCApply)" "$out/ex45-$k-$m.log" | tee -a "$log"
    grep -m2 -E "kernel calls per iteration|operator:" "$out/ex45-$k-$m.log" | tee -a "$log" # the plan (-ksp_view of the first solve)
  done
done
# BiCGSTAB and GMRES(30) + Jacobi (bench/krylovns.c): PETSc's KSPBCGS and KSPGMRES against KSPBCGSDEVICE and
# KSPGMRESDEVICE on a nonsymmetric 7-point convection-diffusion operator at KRYLOV_NS_SIZES (default 160: 4.1 M rows;
# empty: skipped), differential solves of KRYLOV_NS_ITS (default 60,300: whole GMRES(30) cycles), then BiCGSTAB's
# merged form (two reductions per iteration) on one GPU
NS_SIZES=${KRYLOV_NS_SIZES-160}
NS_ITS=${KRYLOV_NS_ITS:-60,300}
if [ -n "$NS_SIZES" ]; then
  make -C "$top" BUILD="$B" "$B/bin/bench/krylovns" >> "$out/build.log" 2>&1 || { say "krylovns build failed (see build.log)"; exit 1; }
  for n in $NS_SIZES; do
    say "-- ${n}^3 convection-diffusion: bcgs, bcgsdevice, gmres, gmresdevice"
    # shellcheck disable=SC2086
    "$B/bin/bench/krylovns" -n "$n" -rounds "$ROUNDS" -its "$NS_ITS" -mat_types "$MATS" -use_gpu_aware_mpi 0 $EXTRA 2>&1 | tee -a "$log"
    say "-- ${n}^3 convection-diffusion: bcgsdevice with merged reductions"
    # shellcheck disable=SC2086
    "$B/bin/bench/krylovns" -n "$n" -rounds "$ROUNDS" -its "$NS_ITS" -mat_types "$MATS" -ksp_types bcgs,bcgsdevice -ksp_bcgsdevice_merged_reductions -use_gpu_aware_mpi 0 $EXTRA 2>&1 | tee -a "$log"
  done
fi
say "== done $(date -u +%FT%TZ)"
