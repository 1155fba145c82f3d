#!/usr/bin/env bash
# bench/composition.sh OUTDIR [STEP ...]
#
# The measurements of issue 13 (MATMODSELL inside PETSc's GPU solvers) in one run on one GPU, modsell against
# aijcusparse with the same options; every timed run follows an untimed warm-up run of the same configuration:
#   ex45   PETSc's ex45 (DMDA 7-point Laplacian) at EX45_N^3 (default 256), CG + GAMG to 1e-8: iterations, PCSetUp
#          (GAMG's setup, in KSPSetUp), KSPSolve and per-iteration time from -log_view; EX45_ROUNDS (default 1)
#          rounds, the even ones with modsell first (the setups spread by several percent from run to run)
#   ex45it the same operator through bench/ex45periter (ex45's own functions, set up once per process): KSPSetUp (the
#          assembly and GAMG's setup, between device synchronizations; of it PCSetUp, GAMG's setup alone, from the
#          event log, as ex45periter prints it) and one CG + GAMG iteration as
#          (T_B - T_A) / (B - A) after a warm-up solve (EX45IT_ITS, default 2,5,20, -ksp_rtol 1e-30), the median of
#          EX45IT_REPEAT pairs of solves (default 7: one pair's estimate moved by 8% between two runs on one machine,
#          session 23); EX45_ROUNDS rounds alternated as above; no separate warm-up run (the program warms up itself)
#   fvm    FVM Poisson, 10.4 M tetrahedra (fvmpoisson -n FVM_N -cell tet, default 120) in the generator's structured
#          numbering (as in the issue) and randomly numbered: CG + GAMG, setup (assembly, KSPSetUp, first product)
#          and solve from fvmpoisson's table (warm-up round, fastest of FVM_REPEAT, default 2; FVM_NUMBERINGS
#          picks the numberings, default "structured:0 random:1")
#   vcycle the same FVM problem through bench/vcycle: CG + GAMG set up on both types in one process (VCYCLE_SETUP_ROUNDS,
#          default 3, setups per type alternated; the mean leaves out the first round), both hierarchies kept, 4 solves
#          per type alternated after an untimed first one (time per iteration: their median), every part of the
#          V-cycle timed with the types alternated, each hierarchy's device memory; FVM_NUMBERINGS as for fvm
#   ex19   PETSc's snes ex19 (driven cavity, 4 fields) at EX19_N^2 (default 300), first Newton step, GMRES(30) to
#          1e-8 with point-block Jacobi: iterations, PCSetUp, KSPSolve, per iteration
#   table  ex45 at TABLE_N^3 (default 128): every preconditioner of the issue, iterations and KSPSetUp / KSPSolve
#          (ex45 sets the preconditioner up in KSPSetUp); PCMG on the next grid of the form 8k + 1 (129 for 128)
# GPU_TIME=1 adds -log_view_gpu_time to the timed runs (GPU time of every event, at the cost of a synchronization per
# event: compare KSPSolve times from runs without it).
# Needs the plugin built against a PETSc with CUDA in BUILD (default build-cuda) and PETSc's ex45 at $BUILD/ex45
# (bench/gpu-run.sh's build stage); ex19 is compiled here from PETSc's installed examples. Writes OUTDIR/composition.log
# (the summary) and OUTDIR/logs.txt (every run's -log_view summary lines).
set -uo pipefail
out=${1:?usage: bench/composition.sh OUTDIR [ex45 ex45it fvm vcycle ex19 table]}
shift
steps=${*:-ex45 fvm ex19 table}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/provenance.sh" # ms_provenance: the commit and the working tree measured
B=${BUILD:-$top/build-cuda}
lib=$B/lib/libpetscmodsell.so
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/composition.log
logs=$out/logs.txt
say() { echo "$*" | tee -a "$log"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
scratch=${TMPDIR:-/tmp}/composition.$$
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
say "== bench/composition.sh $(date -u +%FT%TZ) $(ms_provenance "$top") device $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

# ev LOGFILE EVENT: the event's max time (s) from -log_view
ev() { awk -v e="$2" '$1 == e {print $4; exit}' "$1"; }
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
    n=${EX45_N:-256}
    say "-- ex45 ${n}^3, CG + GAMG, rtol 1e-8 (ratios: aijcusparse time / modsell time), ${EX45_ROUNDS:-1} round(s), every other one modsell first"
    for r in $(seq 1 "${EX45_ROUNDS:-1}"); do
      REVERSE=$(( (r + 1) % 2 )) pair "ex45-$n-gamg round $r" aijcusparse modsell "$B/ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type gamg -ksp_rtol 1e-8 -dm_vec_type cuda -dll_append "$lib"
    done ;;
  ex45it)
    n=${EX45_N:-256} pit=$B/bin/bench/ex45periter ref=${EX45IT_REF:-aijcusparse} vec=${EX45IT_VEC:-cuda} # (aij, standard: a CPU dry run)
    make -C "$top" BUILD="$B" "$pit" > "$out/build-ex45periter.log" 2>&1 || { say "build of bench/ex45periter failed"; continue; }
    say "-- ex45 ${n}^3 set up once per process (bench/ex45periter), CG + GAMG: KSPSetUp and one iteration (-periter_its ${EX45IT_ITS:-2,5,20}), ${EX45_ROUNDS:-1} round(s)"
    for r in $(seq 1 "${EX45_ROUNDS:-1}"); do
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
  fvm)
    make -C "$top" BUILD="$B" "$B/bin/examples/fvm/fvmpoisson" > "$out/build.log" 2>&1 || { say "build of fvmpoisson failed"; continue; }
    for p in ${FVM_NUMBERINGS:-structured:0 random:1}; do
      f=$scratch/fvm-${p%%:*}.bin
      "$B/bin/examples/fvm/fvmpoisson" -n ${FVM_N:-120} -cell tet -permute "${p##*:}" -write_system "$f" -mat_type aij -compare 0 -ksp_max_it 1 > /dev/null 2>&1
      "$B/bin/examples/fvm/fvmpoisson" -read_system "$f" -configs aijcusparse:gamg,modsell:gamg -ref aijcusparse:gamg -repeat ${FVM_REPEAT:-2} -log_view > "$scratch/fvm-${p%%:*}.log" 2>&1
      say "-- FVM tetrahedra (fvmpoisson -n ${FVM_N:-120} -cell tet), ${p%%:*} numbering, CG + GAMG"
      grep -E "configuration|gamg|device|rows" "$scratch/fvm-${p%%:*}.log" | grep -v "^#" | head -16 | tee -a "$log"
      { echo "### fvm ${p%%:*}"; grep -E "^(KSPSetUp|KSPSolve|PCSetUp|PCApply|MatMult|MatPtAP|MatProduct|CpuToGpu|GpuToCpu) " "$scratch/fvm-${p%%:*}.log"; } >> "$logs"
    done ;;
  vcycle)
    vc=$B/bin/bench/vcycle
    make -C "$top" BUILD="$B" "$vc" > "$out/build-vcycle.log" 2>&1 || { say "build of bench/vcycle failed"; continue; }
    for p in ${FVM_NUMBERINGS:-structured:0 random:1}; do
      f=$scratch/vcycle-${p%%:*}.log
      say "-- FVM tetrahedra (bench/vcycle -problem fvm -n ${FVM_N:-120} -cell tet), ${p%%:*} numbering, CG + GAMG on both types in one process"
      "$vc" -problem fvm -n ${FVM_N:-120} -cell tet -permute "${p##*:}" -setup_rounds ${VCYCLE_SETUP_ROUNDS:-3} > "$f" 2>&1
      grep -E "^(setup|per iteration|first solve|levels agree|iterations agree)|device memory|^(mult|residual|smooth|pcapply) " "$f" | awk '!/^(mult|residual|smooth) / || $2 == top' top="$(awk '/^pcapply / {print $2; exit}' "$f")" | tee -a "$log"
      { echo "### vcycle ${p%%:*}"; cat "$f"; } >> "$logs"
    done ;;
  ex19)
    n=${EX19_N:-300}
    ex19=$B/ex19
    [ -x "$ex19" ] || mpicc -O2 -I"$PETSC_DIR/include" "$PETSC_DIR/share/petsc/examples/src/snes/tutorials/ex19.c" -o "$ex19" -Wl,-rpath,"$PETSC_DIR/lib" -L"$PETSC_DIR/lib" -lpetsc -lm > "$out/build-ex19.log" 2>&1 || { say "build of ex19 failed"; continue; }
    # PCVPBJACOBI is not run on ex19: it needs MatSetVariableBlockSizes(), which ex19 does not call (PETSc's error
    # "Must call MatSetVariableBlockSizes() before using PCVPBJACOBI" for every matrix type); tests/ksp/ex1 -vblocks
    # covers it
    say "-- ex19 ${n}x${n}, first Newton step, GMRES(30), rtol 1e-8"
    pair "ex19-$n-pbjacobi" aijcusparse modsell "$ex19" -da_grid_x $n -da_grid_y $n -snes_max_it 1 -ksp_type gmres -ksp_gmres_restart 30 -ksp_rtol 1e-8 -ksp_max_it 20000 -pc_type pbjacobi -dm_vec_type cuda -dll_append "$lib" ;;
  table)
    n=${TABLE_N:-128}
    say "-- ex45 ${n}^3, rtol 1e-8, every preconditioner of the issue (PCSetUp: the preconditioner's setup)"
    base=("$B/ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_rtol 1e-8 -dm_vec_type cuda -dll_append "$lib")
    pair "gamg" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type gamg
    pair "gamg unsmoothed thr 0.01" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 0 -pc_gamg_threshold 0.01
    pair "gamg jacobi levels" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type jacobi
    pair "gamg bjsmooth levels" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type gamg -mg_levels_ksp_type richardson -mg_levels_pc_type bjsmooth
    # PCMG coarsens the DMDA by 2: (n - 1) must be divisible by 2^(levels - 1), so its rows run on an odd grid (129
    # for 128: 129, 65, 33, 17 points; on 128 PETSc stops with "Ratio between levels: (mx - 1)/(Mx - 1) must be integer")
    m=$(( (n / 8) * 8 + 1 ))
    mgbase=("$B/ex45" -da_grid_x $m -da_grid_y $m -da_grid_z $m -ksp_rtol 1e-8 -dm_vec_type cuda -dll_append "$lib")
    pair "mg rediscretised 4 levels ${m}^3" aijcusparse aijmodsell "${mgbase[@]}" -ksp_type cg -pc_type mg -pc_mg_levels 4
    pair "mg galerkin 4 levels ${m}^3" aijcusparse aijmodsell "${mgbase[@]}" -ksp_type cg -pc_type mg -pc_mg_levels 4 -pc_mg_galerkin both
    pair "pbjacobi" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type pbjacobi
    pair "bjacobi + ilu(0) cusparse" aijcusparse modsell "${base[@]}" -ksp_type bcgs -pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type cusparse
    pair "ilu(0) cusparse" aijcusparse modsell "${base[@]}" -ksp_type bcgs -pc_type ilu -pc_factor_mat_solver_type cusparse
    pair "icc(0) cusparse" aijcusparse modsell "${base[@]}" -ksp_type cg -pc_type icc -pc_factor_mat_solver_type cusparse ;;
  *) say "unknown step $step" ;;
  esac
done
