#!/usr/bin/env bash
# bench/spmv.sh OUTDIR [options] [MATRIX_FILE ...]
#
# The SpMV benchmark suite in one command (bench/spmv.c on each matrix, one process):
#   lap7-128   7-point 3D Laplacian, 128^3 (2.1 M rows)       aij (CPU) + GPU formats
#   lap7-256   7-point 3D Laplacian, 256^3 (16.8 M rows)      GPU formats
#   lap27-128  27-point 3D Laplacian, 128^3 (2.1 M rows)      aij (CPU) + GPU formats
#   fvm-random the unstructured FVM matrix of examples/fvm/fvmpoisson (10.4 M rows), as generated
#              (random numbering)                             GPU formats
#   fvm-structured  the same mesh, cells in the generator's structured order (-permute 0)
#   fvm-rcm    the randomly numbered matrix, RCM-ordered by the benchmark  GPU formats
#   MATRIX_FILE  any PETSc binary or MatrixMarket file given  aij (CPU) + GPU formats
#   --fem: the finite-element suite's matrices (examples/problems/fem/femsystems.py, --fem-unknowns each):
#   fem-elasticity       P1 elasticity, block size 3, the library's numbering  aij (CPU) + FE formats
#   fem-elasticity-perm  the same, whole nodes numbered randomly               FE formats
#   fem-p2poisson-perm   P2 Poisson, unknowns numbered randomly                FE formats
#   lap27-80-dof3-blocks 27-point stencil, 3 coupled fields in 3 x 3 blocks, 80^3 (1.5 M rows)  aijcusparse + layouts
#   (FE formats: aijcusparse, modsell with its defaults (layout auto) and with each layout of -mat_modsell_layout:
#   scalar, blocks (elasticity), cusparse; the log has each default's -mat_view ::ascii_info: the layout and why;
#   fem-elasticity*-brows: the block layout with one GPU thread per block row, -mat_modsell_block_rows)
# GPU formats: aijcusparse, sellcuda, modsell with its defaults (ordering auto, slice height automatic), and modsell
# with kernels modsell and sell, slice heights 32..1024, ordering natural and rcm (the rcm sweep is cut to slice
# heights 128 and 512 on the largest problems to stay within about 6 minutes; --full runs every combination).
# Without CUDA the GPU formats are skipped by the program and modsell runs on the host.
#
# Writes into OUTDIR: spmv.csv (one row per format and problem, see docs/performance.md),
# spmv-run.log (every program's output), spmv_*.png (plots, when matplotlib is there), and
# prints a summary table last. Never writes matrix files into OUTDIR (they go to a scratch
# directory under ${TMPDIR:-/tmp}, removed at the end).
#
# Options:
#   --small            small sizes for CI / a laptop (seconds, CPU is fine)
#   --full             the full modsell sweep (both orderings, every slice height) everywhere
#   --quick            a shorter sweep: slice heights 32, 128, 512, 1024 natural; 128, 512 rcm
#   --flush            evict the caches between products (VecDot of large vectors, as Wikberg (2024), ch. 3)
#   --reps N, --samples N, --budget S   passed to bench/spmv (products per loop, loops, s per format)
#   --no-fvm           skip the FVM problems
#   --fvm-args "..."   fvmpoisson options for the FVM matrix (default "-n 120 -cell tet": 10.4 M rows)
#   --fem              the finite-element matrices above (generated with the Python of \$BUILD/python.env, else python3,
#                      which needs numpy, scipy and scikit-fem; skipped with a message without them)
#   --fem-unknowns N   their size (default 1e6; --small: 3000)
#   --fem-dir DIR      take DIR/elasticity.bin, DIR/elasticity-perm.bin, DIR/p2poisson-perm.bin (with their .info files)
#                      written earlier (e.g. by bench/suite.sh --keep, its --work DIR/sys) instead of generating them
# Environment: SPMV_OPTIONS (extra options for every bench/spmv run), PYTHON (default python3), and those of
# bench/common.sh (PETSC_DIR, BUILD, ...).
set -uo pipefail
. "$(dirname "$0")/common.sh"

usage() { sed -n '2,45p' "$0"; exit "${1:-0}"; }

top=$ms_top
out=""
small=0 full=0 quick=0 flush=0 fvm=1 reps="" samples="" budget=""
fem=0 fem_unknowns="" fem_dir=""
fvm_args_set=0 fvm_args=""
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --small) small=1 ;;
    --full) full=1 ;;
    --quick) quick=1 ;;
    --flush) flush=1 ;;
    --no-fvm) fvm=0 ;;
    --reps) reps=$2; shift ;;
    --samples) samples=$2; shift ;;
    --budget) budget=$2; shift ;;
    --fvm-args) fvm_args=$2; fvm_args_set=1; shift ;;
    --fem) fem=1 ;;
    --fem-unknowns) fem_unknowns=$2; shift ;;
    --fem-dir) fem=1; fem_dir=$2; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "spmv.sh: unknown option $1" >&2; usage 1 ;;
    *) if [ -z "$out" ]; then out=$1; else files+=("$1"); fi ;;
  esac
  shift
done
[ -n "$out" ] || usage 1
ms_init spmv "$out" || exit 1
out=$ms_out
for i in "${!files[@]}"; do
  [ -f "${files[$i]}" ] || { echo "spmv.sh: no such matrix file: ${files[$i]}" >&2; exit 1; }
  files[i]=$(cd "$(dirname "${files[$i]}")" && pwd)/$(basename "${files[$i]}")
done

PYTHON=${PYTHON:-python3}
csv=$out/spmv.csv
log=$out/spmv-run.log
scratch=$(mktemp -d "${TMPDIR:-/tmp}/spmv-bench.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
status=0
t_start=$(date +%s)

say() { echo "=== [$(date +%H:%M:%S)] $*" | tee -a "$log" "$ms_log"; }

: > "$log"
rm -f "$csv"
# --- programs -------------------------------------------------------------------------------------
ms_setup bench/spmv $( [ $fvm = 1 ] && echo examples/fvm/fvmpoisson) || exit 1
spmv=$BUILD/bin/bench/spmv
fvmgen=""
[ $fvm = 1 ] && fvmgen=$BUILD/bin/examples/fvm/fvmpoisson
say "SpMV benchmark into $out ($( [ $small = 1 ] && echo small || echo full-size ) suite)$(ms_has_cuda || echo "; PETSc without CUDA: the GPU formats are skipped, modsell runs on the host")"

# --- formats --------------------------------------------------------------------------------------
gpu="aijcusparse,sellcuda,modsell"
if [ $small = 1 ]; then
  ms_nat="modsell:sh=32/128/1024:kernel=modsell/sell:ordering=natural"
  ms_rcm_all="modsell:sh=32/128/1024:kernel=modsell/sell:ordering=rcm"
  ms_rcm_cut="modsell:sh=128:kernel=modsell/sell:ordering=rcm"
  common=(-reps "${reps:-10}" -samples "${samples:-3}" -warmup 2 -budget "${budget:-0.5}" -copy_n 1048576 -flush_n 1048576)
else
  ms_nat="modsell:sh=32/64/128/256/512/1024:kernel=modsell/sell:ordering=natural"
  ms_rcm_all="modsell:sh=32/64/128/256/512/1024:kernel=modsell/sell:ordering=rcm"
  ms_rcm_cut="modsell:sh=128/512:kernel=modsell/sell:ordering=rcm"
  common=(-reps "${reps:-100}" -samples "${samples:-5}" -warmup 5 -budget "${budget:-1}")
fi
if [ $quick = 1 ] && [ $small = 0 ]; then
  ms_nat="modsell:sh=32/128/512/1024:kernel=modsell/sell:ordering=natural"
  ms_rcm_all=$ms_rcm_cut
fi
[ $full = 1 ] && ms_rcm_cut=$ms_rcm_all
[ $flush = 1 ] && common+=(-flush)
all_rcm="$gpu,$ms_nat,$ms_rcm_all"
cut_rcm="$gpu,$ms_nat,$ms_rcm_cut"

# run NAME FORMATS ARGS...: one bench/spmv run, appended to the CSV and the log
run() {
  local name=$1 formats=$2 t0 rc
  shift 2
  say "$name"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  "$spmv" -name "$name" -formats "$formats" -csv "$csv" "${common[@]}" "$@" ${SPMV_OPTIONS:-} >> "$log" 2>&1
  rc=$?
  if [ $rc != 0 ]; then
    status=1
    if grep -q "WRONG RESULT" <(tail -5 "$log"); then say "$name: WRONG RESULTS (see $log)"; else say "$name FAILED with status $rc (see $log)"; tail -15 "$log"; fi
  fi
  say "$name: $(( $(date +%s) - t0 )) s"
}

# --- the suite ------------------------------------------------------------------------------------
if [ $small = 1 ]; then
  run lap7-24 "aij,$all_rcm" -problem lap7 -n 24
  run lap7-20-random "aij,$all_rcm" -problem lap7 -n 20 -permute random
  run lap27-16 "aij,$cut_rcm" -problem lap27 -n 16
  "$spmv" -problem lap7 -n 12 -permute rcm -write_mtx "$scratch/lap7-12-rcm.mtx" -formats none -timings 0 >> "$log" 2>&1 || status=1
  run lap7-12-rcm-mtx "aij,$cut_rcm" -file "$scratch/lap7-12-rcm.mtx"
  fvm_default="-n 12 -cell tet"
else
  run lap7-128 "aij,$all_rcm" -problem lap7 -n 128
  run lap7-256 "$cut_rcm" -problem lap7 -n 256
  run lap27-128 "aij,$cut_rcm" -problem lap27 -n 128
  fvm_default="-n 120 -cell tet"
fi
if [ -n "$fvmgen" ]; then
  [ $fvm_args_set = 1 ] || fvm_args=$fvm_default
  say "generating the FVM matrix: fvmpoisson $fvm_args"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  if "$fvmgen" $fvm_args -write_system "$scratch/fvm.bin" -mat_type aij -compare 0 -ksp_max_it 1 >> "$log" 2>&1; then
    say "FVM matrix written: $(( $(date +%s) - t0 )) s"
    run fvm-random "$all_rcm" -file "$scratch/fvm.bin"
    run fvm-rcm "$cut_rcm" -file "$scratch/fvm.bin" -permute rcm
    rm -f "$scratch/fvm.bin" "$scratch/fvm.bin.info"
  else
    status=1
    say "fvmpoisson FAILED (see $log): the FVM problems are skipped"
    tail -15 "$log"
  fi
  # shellcheck disable=SC2086
  if "$fvmgen" $fvm_args -permute 0 -write_system "$scratch/fvm.bin" -mat_type aij -compare 0 -ksp_max_it 1 >> "$log" 2>&1; then
    run fvm-structured "$gpu,modsell:ordering=natural" -file "$scratch/fvm.bin"
    rm -f "$scratch/fvm.bin" "$scratch/fvm.bin.info"
  else
    status=1
    say "fvmpoisson -permute 0 FAILED (see $log)"
  fi
fi
for f in "${files[@]}"; do
  b=$(basename "$f")
  run "${b%.*}" "aij,$cut_rcm" -file "$f"
done

# --- the finite-element suite's matrices ------------------------------------------------------------
if [ $fem = 1 ]; then
  femdir=$fem_dir
  if [ -z "$femdir" ]; then
    femdir=$scratch/fem
    mkdir -p "$femdir"
    py=$(sed -n 's/^PETSCMODSELL_PYTHON=//p' "$BUILD/python.env" 2> /dev/null)
    [ -x "$py" ] || py=python3
    n=${fem_unknowns:-$([ $small = 1 ] && echo 3000 || echo 1e6)}
    if "$py" -c 'import numpy, scipy, skfem' > /dev/null 2>&1; then
      for s in elasticity p2poisson; do
        say "generating the FE system $s ($n unknowns, both numberings)"
        "$py" "$top/examples/problems/fem/femsystems.py" "$s" --unknowns "$n" --permute both --seed 1 --prefix "$femdir/$s" >> "$log" 2>&1 || { status=1; say "femsystems.py $s FAILED (see $log)"; }
      done
    else
      say "no numpy, scipy and scikit-fem for $py: the FE matrices are skipped (give --fem-dir, or provision config/python-env)"
    fi
  fi
  # 3 coupled fields on a 27-point grid stencil in 3 x 3 blocks (81 nonzeros per row, full blocks)
  if [ $small = 1 ]; then run lap27-12-dof3-blocks "aij,aijcusparse,modsell,modsell:layout=scalar/blocks/cusparse" -problem lap27 -n 12 -dof 3 -dof_blocks
  else run lap27-80-dof3-blocks "aijcusparse,modsell,modsell:layout=scalar/blocks/cusparse" -problem lap27 -n 80 -dof 3 -dof_blocks; fi
  fem_formats="aijcusparse,modsell,modsell:layout=scalar/cusparse"
  for name in elasticity elasticity-perm p2poisson-perm; do
    f=$femdir/$name.bin
    [ -f "$f" ] || { [ -n "$fem_dir" ] && say "no $f: skipped"; continue; }
    case $name in
      elasticity) formats="aij,$fem_formats,modsell:layout=blocks" ;;
      elasticity-perm) formats="$fem_formats,modsell:layout=blocks" ;;
      *) formats=$fem_formats ;;
    esac
    # shellcheck disable=SC2086
    SPMV_OPTIONS="${SPMV_OPTIONS:-} -view_modsell ::ascii_info" run "fem-$name" "$formats" -file "$f"
    # the block layout's GPU product with one thread per block row instead of per row (-mat_modsell_block_rows)
    case $name in elasticity*) SPMV_OPTIONS="${SPMV_OPTIONS:-} -mat_modsell_block_rows" run "fem-$name-brows" "aijcusparse,modsell:layout=blocks" -file "$f" ;; esac
  done
fi

# --- plots and summary ----------------------------------------------------------------------------
say "total $(( $(date +%s) - t_start )) s; CSV $csv, log $log"
if [ -s "$csv" ]; then
  "$PYTHON" "$top/bench/plot_spmv.py" "$csv" --outdir "$out" >> "$log" 2>&1 || say "plotting failed or matplotlib is missing (see $log); the CSV is complete"
  "$PYTHON" "$top/bench/plot_spmv.py" "$csv" --summary-only || status=1
else
  say "no results"
  status=1
fi
exit $status
