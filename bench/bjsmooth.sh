#!/usr/bin/env bash
# bench/bjsmooth.sh OUTDIR : PCBJSMOOTH measurements (docs/bjsmooth.md), one run, every log in OUTDIR.
#
#  1. The smoother experiment of paper 000 (section 4.4, table 4.1, figure 4.2): PETSc's SOR (forward Gauss-Seidel)
#     on one CPU core, 1000 iterations from x = 0, against GPU bjsmooth (synchronous) run for up to 2000 outer
#     iterations, the residual ||b - A x||^2 computed and read back every 10th (its time included), on problems of
#     >= 1 M rows (the 7-point Laplacian at 128^3 and the FVM tetrahedral problem of examples/fvm/fvmpoisson at
#     -n 56, 1.05 M rows, cells in the generator's order): the time bjsmooth needs to reach SOR's final residual.
#     Variants: inner jacobi (5 sweeps, blocks of 512), inner cg (5 iterations, blocks of 256), and both with at
#     most 100 inner sweeps to a block rtol of 1e-7 (blocks of 512). CSV histories: smoother_*.csv.
#  2. CG to rtol 1e-8 (unpreconditioned residual), setup + solve: CG + bjsmooth and CG + jacobi on modsell against
#     CG + jacobi on aijcusparse, on the 256^3 Laplacian (assembled through a DMDA, natural numbering) and on the FVM
#     tetrahedral problem at -n 120 (10.4 M rows). bjsmooth: 1 outer iteration; Laplacian: slices of 128 (3 inner
#     Jacobi sweeps), and slices of 512 with the format ordered by 8^3 bricks of the grid (-mat_modsell_ordering
#     bricks, 8 sweeps); FVM: blocks of 128 and of 512, 3 sweeps. Setup is timed from the assembled host matrix:
#     in-place conversion (device upload, format), KSPSetUp, one product.
# Prints a table (OUTDIR/bjsmooth_table.txt). Run from the repository root on the GPU machine after the library
# is built (BUILD, default build-cuda when it exists, else build; PETSC_DIR as for the build).
# Environment: PROBLEMS ("lap fvm"), LAP_CG_OPTS (options of the CG part's Laplacian for every run, e.g.
#   default "-dmda": DMCreateMatrix() on a DMDA; "-brick 8,8,8": grid points numbered by 8x8x8 bricks), OUTER (1000: SOR's and the smoothers' iterations), GPU_OUTER (2 OUTER: the GPU smoothers', which may need more iterations than SOR for its residual), NAPPLY (50: PCApply and MatMult calls timed before each CG solve), PARTS ("smoother cg": which parts run), SMALL=1 (tiny sizes, for a CPU check), LAP_SMOOTH_N (128), FVM_SMOOTH_N (56), LAP_CG_N (256),
#   FVM_CG_N (120), BJS_SMOOTH_OPTS (extra bjsmooth options of part 1), BJS_SMOOTH_VARIANTS (the GPU configurations
#   of part 1, "name:options;...", default inner jacobi and inner cg with BJS_SMOOTH_OPTS), BJS_CG_OPTS (bjsmooth options of part 2),
#   BJS_CG_VARIANTS (several bjsmooth configurations for part 2, "name:options;name:options"; overrides BJS_CG_OPTS),
#   LAP_BJS_CG_VARIANTS / FVM_BJS_CG_VARIANTS (the same for one problem; default BJS_CG_VARIANTS when that is set, else
#   the configurations above),
#   SOR_OPTS (default -pc_sor_forward), MODSELL_OPTS (default none; -ms_rcm: RCM ordering inside modsell),
#   FVM_GEN_OPTS (default -permute 0: the FVM cells numbered in the generator's structured order, as a mesh
#   generator or renumbering leaves them; blocks of consecutive rows are then compact. With -permute 1 the cells are
#   numbered randomly and a block of consecutive rows holds unrelated cells), CUDA_MAT (aijcusparse), GPU_MAT (modsell).
set -uo pipefail
out=${1:?usage: bench/bjsmooth.sh OUTDIR}
mkdir -p "$out"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ -z "${BUILD:-}" ]; then if [ -d build-cuda ]; then BUILD=$top/build-cuda; else BUILD=$top/build; fi; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
drv=$BUILD/bin/src/ksp/pc/impls/bjsmooth/tutorials/ex1
fvm=$BUILD/bin/examples/fvm/fvmpoisson
make -s BUILD="$BUILD" "$drv" "$fvm" > "$out/bjsmooth_build.log" 2>&1 || { echo "build failed: $out/bjsmooth_build.log"; tail -20 "$out/bjsmooth_build.log"; exit 1; }

if [ "${SMALL:-0}" = 1 ]; then
  LAP_SMOOTH_N=${LAP_SMOOTH_N:-24}; FVM_SMOOTH_N=${FVM_SMOOTH_N:-8}; LAP_CG_N=${LAP_CG_N:-32}; FVM_CG_N=${FVM_CG_N:-10}; OUTER=${OUTER:-100}
  CUDA_MAT=${CUDA_MAT:-aij}; GPU_MAT=${GPU_MAT:-modsell}
fi
LAP_SMOOTH_N=${LAP_SMOOTH_N:-128}; FVM_SMOOTH_N=${FVM_SMOOTH_N:-56}; LAP_CG_N=${LAP_CG_N:-256}; FVM_CG_N=${FVM_CG_N:-120}; OUTER=${OUTER:-1000}
CUDA_MAT=${CUDA_MAT:-aijcusparse}; GPU_MAT=${GPU_MAT:-modsell}
BJS_SMOOTH_OPTS=${BJS_SMOOTH_OPTS:--pc_bjsmooth_block_size 512 -pc_bjsmooth_inner_its 100 -pc_bjsmooth_inner_rtol 1e-7}
BJS_SMOOTH_VARIANTS=${BJS_SMOOTH_VARIANTS:-jacobi:-pc_bjsmooth_inner jacobi -pc_bjsmooth_block_size 512 -pc_bjsmooth_inner_its 5;cg:-pc_bjsmooth_inner cg -pc_bjsmooth_block_size 256 -pc_bjsmooth_inner_its 5;jacobi100:-pc_bjsmooth_inner jacobi $BJS_SMOOTH_OPTS;cg100:-pc_bjsmooth_inner cg $BJS_SMOOTH_OPTS}
IFS=';' read -ra svariants <<< "$BJS_SMOOTH_VARIANTS"
BJS_CG_OPTS=${BJS_CG_OPTS:--pc_bjsmooth_inner_its 3}
if [ -n "${BJS_CG_VARIANTS:-}" ]; then
  LAP_BJS_CG_VARIANTS=${LAP_BJS_CG_VARIANTS:-$BJS_CG_VARIANTS}; FVM_BJS_CG_VARIANTS=${FVM_BJS_CG_VARIANTS:-$BJS_CG_VARIANTS}
fi
LAP_BJS_CG_VARIANTS=${LAP_BJS_CG_VARIANTS:-bjs:$BJS_CG_OPTS;bricks512:-mat_modsell_ordering bricks -mat_modsell_slice_height 512 -pc_bjsmooth_block_size 512 -pc_bjsmooth_inner_its 8}
FVM_BJS_CG_VARIANTS=${FVM_BJS_CG_VARIANTS:-bjs:$BJS_CG_OPTS;bjs512:-pc_bjsmooth_block_size 512 -pc_bjsmooth_inner_its 3}
FVM_GEN_OPTS=${FVM_GEN_OPTS:--permute 0}
SOR_OPTS=${SOR_OPTS:--pc_sor_forward}
MODSELL_OPTS=${MODSELL_OPTS:-}
results=$out/bjsmooth_results.txt
: > "$results"
: > "$out/bjsmooth_apply.txt"

run() { # name args...
  local name=$1; shift
  echo "=== $name: $drv $*" >> "$out/bjsmooth_runs.log"
  local t0=$SECONDS
  "$drv" "$@" > "$out/run_$name.log" 2>&1
  local rc=$?
  cat "$out/run_$name.log" >> "$out/bjsmooth_runs.log"
  if [ $rc -ne 0 ]; then echo "run $name FAILED (rc $rc): $out/run_$name.log"; tail -5 "$out/run_$name.log"; return; fi
  sed -n "s/^RESULT /name=$name /p" "$out/run_$name.log" >> "$results"
  sed -n "s/^APPLY /name=$name /p" "$out/run_$name.log" >> "$out/bjsmooth_apply.txt"
  echo "  $name: $((SECONDS - t0)) s"
}

PARTS=${PARTS:-smoother cg}
NAPPLY=${NAPPLY:-50}
PROBLEMS=${PROBLEMS:-lap fvm}
LAP_CG_OPTS=${LAP_CG_OPTS--dmda} # -dmda: assembled through a DMDA; -brick 8,8,8: numbered by bricks (for every format)
GPU_OUTER=${GPU_OUTER:-$((2 * OUTER))} # the GPU runs may go on past SOR's count to reach its final residual
case " $PROBLEMS " in
*" fvm "*)
  echo "[bjsmooth] FVM systems"
  case " $PARTS " in *" smoother "*)
    "$fvm" -n "$FVM_SMOOTH_N" -cell tet $FVM_GEN_OPTS -mat_type aij -write_system "$out/fvm_smooth.bin" -ksp_max_it 1 > "$out/fvm_smooth_gen.log" 2>&1 || echo "FVM generation (smoother) failed: $out/fvm_smooth_gen.log" ;;
  esac
  case " $PARTS " in *" cg "*)
    "$fvm" -n "$FVM_CG_N" -cell tet $FVM_GEN_OPTS -mat_type aij -write_system "$out/fvm_cg.bin" -ksp_max_it 1 > "$out/fvm_cg_gen.log" 2>&1 || echo "FVM generation (cg) failed: $out/fvm_cg_gen.log" ;;
  esac ;;
esac

echo "[bjsmooth] 1. smoother experiment: $OUTER outer iterations, residual every 10th"
for p in $PROBLEMS; do
  case " $PARTS " in *" smoother "*) ;; *) continue ;; esac
  if [ $p = lap ]; then prob="-n $LAP_SMOOTH_N"; else prob="-f $out/fvm_smooth.bin"; fi
  for v in "${svariants[@]}"; do
    run smooth_${p}_bjs_${v%%:*} $prob -mode smoother -outer "$GPU_OUTER" -every 10 -mat_type "$GPU_MAT" $MODSELL_OPTS -pc_type bjsmooth ${v#*:} -csv "$out/smoother_${p}_bjs_${v%%:*}.csv"
  done
  run smooth_${p}_cpu_sor $prob -mode smoother -outer "$OUTER" -every 10 -mat_type aij -vec_type standard -pc_type sor $SOR_OPTS -repeat 1 -csv "$out/smoother_${p}_cpu_sor.csv"
done

# cg_variants PROBLEM: the array 'variants' of that problem's bjsmooth configurations ("name:options")
cg_variants() { if [ "$1" = lap ]; then IFS=';' read -ra variants <<< "$LAP_BJS_CG_VARIANTS"; else IFS=';' read -ra variants <<< "$FVM_BJS_CG_VARIANTS"; fi; }

echo "[bjsmooth] 2. CG to rtol 1e-8, setup + solve"
for p in $PROBLEMS; do
  case " $PARTS " in *" cg "*) ;; *) continue ;; esac
  if [ $p = lap ]; then prob="-n $LAP_CG_N $LAP_CG_OPTS"; else prob="-f $out/fvm_cg.bin"; fi
  cg_variants $p
  for v in "${variants[@]}"; do
    run cg_${p}_modsell_${v%%:*} $prob -mode cg -ksp_type cg -ksp_rtol 1e-8 -mat_type "$GPU_MAT" $MODSELL_OPTS -napply "$NAPPLY" -pc_type bjsmooth ${v#*:}
  done
  run cg_${p}_modsell_jacobi $prob -mode cg -ksp_type cg -ksp_rtol 1e-8 -mat_type "$GPU_MAT" $MODSELL_OPTS -napply "$NAPPLY" -pc_type jacobi
  run cg_${p}_cusparse_jacobi $prob -mode cg -ksp_type cg -ksp_rtol 1e-8 -mat_type "$CUDA_MAT" -pc_type jacobi
done
rm -f "$out"/fvm_smooth.bin "$out"/fvm_cg.bin "$out"/*.bin.info

# result NAME KEY: the value of KEY in the RESULT line of run NAME
result() { awk -v n="$1" -v k="$2" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } if (v["name"] == n) print v[k] }' "$results"; }

# table: times, and for the smoother the time bjsmooth needs to reach SOR's final residual reduction (from the CSVs)
{
  printf '%-30s %10s %7s %10s %10s %10s %11s\n' run rows its setup_s solve_s total_s rel_rnorm2
  awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } printf "%-30s %10s %7s %10s %10s %10s %11s\n", v["name"], v["rows"], v["its"], v["setup_s"], v["solve_s"], v["total_s"], v["rel_rnorm2"] }' "$results"
  echo
  echo "smoother: speedup of the GPU runs over CPU SOR (solve time, $OUTER iterations), and time to reach SOR's final ||r||^2"
  for p in lap fvm; do
    sor=$(result "smooth_${p}_cpu_sor" solve_s)
    sorrr=$(tail -1 "$out/smoother_${p}_cpu_sor.csv" 2>/dev/null | cut -d, -f3)
    for k in "${svariants[@]%%:*}"; do
      g=$(result "smooth_${p}_bjs_$k" solve_s)
      reach=$(awk -F, -v t="$sorrr" 't != "" && $3 <= t + 0 { print $2; exit }' "$out/smoother_${p}_bjs_$k.csv" 2>/dev/null)
      if [ -n "$sor" ] && [ -n "$g" ]; then
        awk -v p="$p" -v k="$k" -v s="$sor" -v g="$g" -v r="${reach:-}" 'BEGIN { printf "  %-4s bjsmooth %-10s: %8.3f s vs SOR %8.3f s: %7.1fx; reaches SOR final ||r||^2 after %s s%s\n", p, k, g, s, s / g, (r == "" ? "-" : r), (r == "" ? " (not reached)" : sprintf(" (%.1fx)", s / r)) }'
      fi
    done
  done
  if [ -s "$out/bjsmooth_apply.txt" ]; then
    echo "one PCApply (zero guess) against one MatMult on the same matrix, microseconds ($NAPPLY calls each, before the solve)"
    sed 's/^/  /' "$out/bjsmooth_apply.txt"
  fi
  echo "cg: speedup of modsell + bjsmooth (and of modsell + jacobi) over aijcusparse + jacobi (setup + solve)"
  for p in lap fvm; do
    c=$(result "cg_${p}_cusparse_jacobi" total_s)
    cg_variants $p
    for v in "${variants[@]%%:*}" jacobi; do
      a=$(result "cg_${p}_modsell_$v" total_s)
      if [ -n "$a" ] && [ -n "$c" ]; then awk -v p="$p" -v n="$v" -v a="$a" -v c="$c" 'BEGIN { printf "  %-4s modsell + %-12s %8.3f s vs %8.3f s: %.2fx\n", p, n, a, c, c / a }'; fi
    done
  done
} | tee "$out/bjsmooth_table.txt"
python3 "$top/bench/plot_smoother.py" "$out" -o "$out/smoother.png" 2>&1 | tail -1 || true
