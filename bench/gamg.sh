#!/usr/bin/env bash
# bench/gamg.sh OUTDIR [ex45 vcycle table]
#
# A MATMODSELL operator under PETSc's own preconditioners, against the same with aijcusparse, on one GPU; every
# configuration with the same options for both types, every timed run after an untimed warm-up:
#   ex45   PETSc's ex45 (DMDA 7-point Laplacian) at EX45_N^3 (default 256) through bench/ex45periter (ex45's own operator,
#          right-hand side and guess, set up once per process): KSPSetUp (the assembly and GAMG's setup, between device
#          synchronizations; of it PCSetUp, and the solver setup without ex45's DMCreateMatrix and MatSetValues) and one
#          CG + GAMG iteration as (T_B - T_A) / (B - A) after a warm-up solve (EX45IT_ITS, default 2,5,20, -ksp_rtol
#          1e-30), the median of EX45IT_REPEAT pairs of solves (default 7); EX45_ROUNDS rounds (default 3), the types
#          alternated (the setups spread by several per cent from run to run)
#   vcycle FVM Poisson, 10.4 M tetrahedra (FVM_N, default 120) through bench/vcycle: CG + GAMG set up on both types in
#          one process (VCYCLE_SETUP_ROUNDS, default 2, alternated; GAMG's phases from the event log), both
#          hierarchies kept, the solves alternated (time per iteration: their median), every part of the V-cycle
#          timed, each hierarchy's device memory; FVM_NUMBERINGS (default "structured:0", add "random:1")
#   table  ex45 at TABLE_N^3 (default 128), rtol 1e-8: GAMG (default, unsmoothed with a threshold, Richardson + Jacobi
#          and + bjsmooth levels), PCMG rediscretised and Galerkin (4 levels, on the odd grid PCMG needs), point-block
#          Jacobi, block Jacobi + ILU(0) cuSPARSE, ILU(0) and ICC(0) cuSPARSE; then PETSc's ex19 at EX19_N^2 (default
#          300), first Newton step, GMRES(30) + point-block Jacobi: iterations, PCSetUp, KSPSolve and the time per
#          iteration from -log_view
# Default steps: ex45 vcycle. Builds what it needs (bench/common.sh). Writes OUTDIR/gamg.log (the summary) and
# OUTDIR/logs.txt (every run's -log_view summary lines). GPU_TIME=1 adds -log_view_gpu_time (events timed on the GPU,
# but a synchronization at every event: compare KSPSolve times from runs without it).
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=${1:?usage: bench/gamg.sh OUTDIR [ex45 vcycle table]}
shift
steps=${*:-ex45 vcycle}
ms_init gamg "$out" || exit 1
ms_setup bench/ex45periter bench/vcycle || exit 1
B=$BUILD
lib=$ms_lib
top=$ms_top
out=$ms_out
log=$ms_log
logs=$out/logs.txt
: > "$logs"
say() { ms_say "$@"; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/gamg-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
ex45=""
case " $steps " in *" table "*) ex45=$(ms_petsc_example ksp/ksp/tutorials/ex45) || exit 1 ;; esac

ev() { ms_logview "$@"; }
# ratio X Y: X / Y as "1.234x", "?" unless both are positive numbers
ratio() { awk -v x="${1:-0}" -v y="${2:-0}" 'BEGIN{if (x + 0 > 0 && y + 0 > 0) printf "%.3fx", x / y; else print "?"}'; }
# run NAME PROGRAM ARGS...: warm-up, then the timed run with -log_view; prints "its setup solve per-it"
run() {
  local name=$1 f=$scratch/$1.log
  shift
  "$@" > /dev/null 2>&1
  "$@" -ksp_converged_reason -log_view ${GPU_TIME:+-log_view_gpu_time} > "$f" 2>&1
  { echo "### $name: $*"; grep -E "^(KSPSetUp|KSPSolve|PCSetUp|PCApply|MatMult|MatMultAdd|MatMultTranspose|MatPtAP|MatPtAPNumeric|MatProduct[A-Za-z]*|MatSolve|MatLUFactor|MatILUFactor[A-Za-z]*|MatICCFactor[A-Za-z]*|MatGetDiagonal|MatAXPY|MatDiagonalScale|VecPointwiseMult|ModSELL[A-Za-z]*|KSPChebyEig|PCGAMG[A-Za-z]*) |^Time \(sec\)|Linear solve|iterations|rror" "$f"; } >> "$logs"
  local its setup solve
  its=$(grep -m1 -oE "iterations [0-9]+" "$f" | awk '{print $2}')
  grep -q "Linear solve converged" "$f" || its="${its:-?}(not-converged)"
  setup=$(ev "$f" PCSetUp)
  solve=$(ev "$f" KSPSolve)
  echo "${its:-?} ${setup:-?} ${solve:-?} $(awk -v s="${solve:-0}" -v i="${its%%(*}" 'BEGIN{if (i + 0 > 0) printf "%.3f", 1000 * s / i; else print "?"}')"
}
# pair LABEL PROGRAM ARGS... (modsell type last: -dm_mat_type is appended)
pair() {
  local label=$1 ref=$2 mine=$3
  shift 3
  local a b
  if [ "${REVERSE:-0}" = 1 ]; then # the tested type first (alternated rounds)
    b=($(run "$label-$mine" "$@" -dm_mat_type "$mine"))
    a=($(run "$label-$ref" "$@" -dm_mat_type "$ref"))
  else
    a=($(run "$label-$ref" "$@" -dm_mat_type "$ref"))
    b=($(run "$label-$mine" "$@" -dm_mat_type "$mine"))
  fi
  say "$(printf '%-34s %-12s its %-6s PCSetUp %-9s KSPSolve %-9s per-it %-8s ms | %-11s its %-6s PCSetUp %-9s KSPSolve %-9s per-it %-8s ms | solve ratio %s setup ratio %s' \
    "$label" "$ref" "${a[0]}" "${a[1]}" "${a[2]}" "${a[3]}" "$mine" "${b[0]}" "${b[1]}" "${b[2]}" "${b[3]}" \
    "$(awk -v x="${a[2]}" -v y="${b[2]}" 'BEGIN{if (y + 0 > 0) printf "%.2fx", x / y; else print "?"}')" \
    "$(awk -v x="${a[1]}" -v y="${b[1]}" 'BEGIN{if (y + 0 > 0) printf "%.2fx", x / y; else print "?"}')")"
}

for step in $steps; do
  case $step in
  ex45)
    n=${EX45_N:-256} pit=$B/bin/bench/ex45periter ref=${EX45IT_REF:-aijcusparse} vec=${EX45IT_VEC:-cuda} # (aij, standard: a CPU dry run)
    say "-- ex45 ${n}^3 set up once per process (bench/ex45periter), CG + GAMG: KSPSetUp and one iteration (-periter_its ${EX45IT_ITS:-2,5,20}), ${EX45_ROUNDS:-3} round(s)"
    for r in $(seq 1 "${EX45_ROUNDS:-3}"); do
      order="$ref modsell"
      [ $((r % 2)) = 0 ] && order="modsell $ref"
      declare -A su pi ps ss
      for mat in $order; do
        f=$scratch/ex45it-$r-$mat.log
        "$pit" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type gamg -ksp_rtol 1e-30 -periter_its "${EX45IT_ITS:-2,5,20}" -periter_repeat "${EX45IT_REPEAT:-7}" -dm_vec_type $vec -dm_mat_type $mat -dll_append "$lib" -log_view > "$f" 2>&1
        { echo "### ex45it round $r $mat"; grep -E "^(setup|solve|per iteration)|^(KSPSetUp|KSPSolve|PCSetUp|PCApply|MatMult|PCGAMG[A-Za-z]*|ModSELL[A-Za-z]*|CpuToGpu|GpuToCpu) |rror" "$f"; } >> "$logs"
        su[$mat]=$(awk '/^setup \(KSPSetUp/ { print $(NF - 1) }' "$f")
        pi[$mat]=$(awk '/^per iteration: / && $3 != "not" { print $3 }' "$f")
        ps[$mat]=$(awk '/^setup parts \(event log\): PCSetUp/ { print $6 }' "$f") # GAMG's setup (the log shows n/a on a GPU build)
        ss[$mat]=$(awk '/^solver setup / { print $(NF - 1) }' "$f") # KSPSetUp less ex45's DMCreateMat and MatSetValues
      done
      say "$(printf 'round %s: KSPSetUp %s %s s modsell %s s (ratio %s; of it PCSetUp %s and %s s, ratio %s; the solver setup, without ex45 DMCreateMat and MatSetValues, %s and %s s, ratio %s) | one iteration %s %s ms modsell %s ms (ratio %s)' "$r" "$ref" \
        "${su[$ref]:-?}" "${su[modsell]:-?}" "$(ratio "${su[$ref]:-}" "${su[modsell]:-}")" "${ps[$ref]:-?}" "${ps[modsell]:-?}" \
        "$(ratio "${ps[$ref]:-}" "${ps[modsell]:-}")" "${ss[$ref]:-?}" "${ss[modsell]:-?}" "$(ratio "${ss[$ref]:-}" "${ss[modsell]:-}")" \
        "$ref" "${pi[$ref]:-?}" "${pi[modsell]:-?}" "$(ratio "${pi[$ref]:-}" "${pi[modsell]:-}")")"
      unset su pi ps ss
    done ;;
  vcycle)
    vc=$B/bin/bench/vcycle
    for p in ${FVM_NUMBERINGS:-structured:0}; do
      f=$scratch/vcycle-${p%%:*}.log
      say "-- FVM tetrahedra (bench/vcycle -problem fvm -n ${FVM_N:-120} -cell tet), ${p%%:*} numbering, CG + GAMG on both types in one process"
      "$vc" -problem fvm -n ${FVM_N:-120} -cell tet -permute "${p##*:}" -setup_rounds ${VCYCLE_SETUP_ROUNDS:-2} -setup_parts -rounds 2 > "$f" 2>&1
      grep -E "^(setup|per iteration|first solve|levels agree|iterations agree)|device memory|^(mult|residual|smooth|pcapply) " "$f" | awk '!/^(mult|residual|smooth) / || $2 == top' top="$(awk '/^pcapply / {print $2; exit}' "$f")" | tee -a "$log"
      { echo "### vcycle ${p%%:*}"; cat "$f"; } >> "$logs"
    done ;;
  table)
    n=${TABLE_N:-128}
    say "-- ex45 ${n}^3, rtol 1e-8, every preconditioner of the table (PCSetUp: the preconditioner's setup)"
    base=("$ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_rtol 1e-8 -dm_vec_type cuda -dll_append "$lib")
    pair "gamg" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type gamg
    pair "gamg unsmoothed thr 0.01" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 0 -pc_gamg_threshold 0.01
    pair "gamg jacobi levels" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type jacobi
    pair "gamg bjsmooth levels" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type bjsmooth
    # PCMG coarsens the DMDA by 2: (n - 1) must be divisible by 2^(levels - 1), so its rows run on an odd grid (129
    # for 128: 129, 65, 33, 17 points; on 128 PETSc stops with "Ratio between levels: (mx - 1)/(Mx - 1) must be integer")
    m=$(( (n / 8) * 8 + 1 ))
    mgbase=("$ex45" -da_grid_x $m -da_grid_y $m -da_grid_z $m -ksp_rtol 1e-8 -dm_vec_type cuda -dll_append "$lib")
    pair "mg rediscretised 4 levels ${m}^3" aijcusparse aijmodsell "${mgbase[@]}" -ksp_type cg -pc_type mg -pc_mg_levels 4
    pair "mg galerkin 4 levels ${m}^3" aijcusparse aijmodsell "${mgbase[@]}" -ksp_type cg -pc_type mg -pc_mg_levels 4 -pc_mg_galerkin both
    pair "pbjacobi" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type pbjacobi
    pair "bjacobi + ilu(0) cusparse" aijcusparse modsell "${base[@]}" -ksp_type bcgs -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type cusparse
    pair "ilu(0) cusparse" aijcusparse modsell "${base[@]}" -ksp_type bcgs -pc_type ilu -pc_factor_mat_solver_type cusparse
    pair "icc(0) cusparse" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type icc -pc_factor_mat_solver_type cusparse
    n=${EX19_N:-300}
    ex19=$(ms_petsc_example snes/tutorials/ex19) || continue
    # PCVPBJACOBI is not run on ex19: it needs MatSetVariableBlockSizes(), which ex19 does not call (PETSc's error
    # "Must call MatSetVariableBlockSizes() before using PCVPBJACOBI" for every matrix type); tests/ksp/ex1 -vblocks
    # covers it
    say "-- ex19 ${n}x${n}, first Newton step, GMRES(30), rtol 1e-8"
    pair "ex19-$n-pbjacobi" aijcusparse modsell "$ex19" -da_grid_x $n -da_grid_y $n -snes_max_it 1 -ksp_type gmres -ksp_gmres_restart 30 -ksp_rtol 1e-8 -ksp_max_it 20000 -pc_type pbjacobi -dm_vec_type cuda -dll_append "$lib" ;;
  *) say "unknown step $step" ;;
  esac
done
