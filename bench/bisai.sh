#!/usr/bin/env bash
# bench/bisai.sh OUTDIR
#
# PCBISAI on PETSc's own snes/tutorials/ex19 (driven cavity, 4 fields per node: block size 4) at EX19_N x EX19_N
# (default 300): the first Newton step's linear solve (-snes_max_it 1),
# GMRES(30), rtol 1e-8, matrix aijcusparse (and aijmodsell where said), vectors cuda, setup + solve = KSPSolve of
# -log_view (PCSetUp runs inside it), against point-block Jacobi on aijcusparse measured in the same run, and
# cuSPARSE ILU(0) once (about 12 s at 300 x 300 on an H100; ILU_N sets its grid, default EX19_N).
# Configurations alternate (pbjacobi, bisai k = 1, 2, 3, the sweeps variant, again) after a warm-up run.
# Also the device memory of the factors and inverses for each level against the operator's (from PCView).
# Builds what it needs (bench/common.sh: PETSc, the plugin, PETSc's ex19). Writes OUTDIR/bisai.log (the summary) and
# every program's output into OUTDIR/runs/. Without CUDA (a dry run on the CPU) MAT=aij and standard vectors.
# STEPS (default "main spmv"): main = the table above; spmv = the apply's two block products with the own kernel
# against cuSPARSE's bsrmv (-pc_bisai_spmv own|cusparse, k = 1, 2, 3): setup + solve (rounds alternated) and the
# GPU time per application from -log_view_gpu_time (PCBISAIApply's flops over its GPU Mflop/s), with the bytes an
# application must move (M_L, M_U in BSR, x read once, y written) over that time.
# About 2-3 minutes of GPU time at 300 x 300 for main, 1-2 for spmv.
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=${1:?usage: bench/bisai.sh OUTDIR}
ms_init bisai "$out" || exit 1
ms_setup || exit 1
ex19=$(ms_petsc_example snes/tutorials/ex19) || exit 1
N=${EX19_N:-300}
ILU_N=${ILU_N:-$N}
if ms_has_cuda; then VEC=${VEC:-cuda} MAT=${MAT:-aijcusparse}; else VEC=${VEC:-standard} MAT=${MAT:-aij}; fi
AMAT=${AMAT:-aijmodsell}
logs=$ms_out/runs
mkdir -p "$logs"
say() { ms_say "$@"; }
lib=$ms_lib
say "ex19 ${N}x${N} (4 fields, block size 4), first Newton step, GMRES(30), rtol 1e-8; times from -log_view (max over ranks), setup + solve = KSPSolve"

common="-snes_max_it 1 -ksp_type gmres -ksp_gmres_restart 30 -ksp_rtol 1e-8 -ksp_max_it 30000 -dm_vec_type $VEC -dll_append $lib -ksp_converged_reason -log_view"
declare -A IT KS PS PA
run() { # TAG GRID MAT [options]
  local tag=$1 n=$2 mt=$3; shift 3
  local f=$logs/$tag.log
  "$ex19" -da_grid_x "$n" -da_grid_y "$n" -dm_mat_type "$mt" $common "$@" > "$f" 2>&1
  IT[$tag]=$(grep -m1 -oE 'Linear solve [a-z]+ due to [A-Z_]+ iterations [0-9]+' "$f" | awk '{print $NF}')
  grep -qE 'Linear solve converged' "$f" || IT[$tag]="${IT[$tag]:-?} (NOT converged: $(grep -m1 -oE 'Linear solve did not converge due to [A-Z_]+' "$f" | awk '{print $NF}'))"
  KS[$tag]=$(awk '$1=="KSPSolve"{print $4; exit}' "$f")
  PS[$tag]=$(awk '$1=="PCSetUp"{print $4; exit}' "$f")
  PA[$tag]=$(awk '$1=="PCApply"{print $4; exit}' "$f")
  local mem
  mem=$(grep -m1 -oE 'memory \(device\): .*' "$f")
  say "$(printf '%-26s its %-7s setup+solve %-10s s PCSetUp %-10s s PCApply %-10s s' "$tag" "${IT[$tag]}" "${KS[$tag]}" "${PS[$tag]}" "${PA[$tag]}")"
  [ -n "$mem" ] && say "    $tag $mem"
  grep -m1 -E 'last setup:' "$f" | sed -e "s/^ */    $tag /" | tee -a "$ms_log" > /dev/null
  grep -m1 -E 'nonzero blocks:' "$f" | sed -e "s/^ */    $tag /" | tee -a "$ms_log" > /dev/null
  if ! grep -q 'KSPSolve' "$f"; then say "    $tag FAILED:"; grep -m5 -E 'ERROR' "$f" | tee -a "$ms_log"; fi
}

best() { # TAG-PREFIX: the smaller KSPSolve time of the two rounds
  local a=${KS[$1-r1]:-} b=${KS[$1-r2]:-}
  if [ -z "$a" ]; then echo "$b"; elif [ -z "$b" ]; then echo "$a"; else awk -v a="$a" -v b="$b" 'BEGIN{print (a<b)?a:b}'; fi
}

# warm-up (GPU clocks, caches; not reported)
"$ex19" -da_grid_x 100 -da_grid_y 100 -dm_mat_type $MAT $common -pc_type bisai > "$logs/warmup.log" 2>&1

bisai="-pc_type bisai -ksp_view"
STEPS=${STEPS:-main spmv}
case " $STEPS " in *" main "*)
for round in 1 2; do
  run pbjacobi-r$round "$N" $MAT -pc_type pbjacobi
  run bisai-k1-r$round "$N" $MAT $bisai -pc_bisai_level 1
  run bisai-k2-r$round "$N" $MAT $bisai -pc_bisai_level 2
  run bisai-k3-r$round "$N" $MAT $bisai -pc_bisai_level 3
  if [ $round = 1 ]; then
    run bisai-k2-sweeps3 "$N" $MAT $bisai -pc_bisai_level 2 -pc_bisai_ilu sweeps -pc_bisai_ilu_sweeps 3
    run bisai-k2-aijmodsell "$N" $AMAT $bisai -pc_bisai_level 2
    run pbjacobi-aijmodsell "$N" $AMAT -pc_type pbjacobi
  fi
done
ilusolver=""
[ "$MAT" = aijcusparse ] && ilusolver="-pc_factor_mat_solver_type cusparse"
run ilu0-cusparse "$ILU_N" $MAT -pc_type ilu $ilusolver

say ""
say "summary (best of the two rounds; ratios against point-block Jacobi on $MAT in this run):"
pbj=$(best pbjacobi)
pbjit=${IT[pbjacobi-r1]:-}
say "$(printf '%-22s its %-7s setup+solve %-9s s' pbjacobi "$pbjit" "$pbj")"
for k in 1 2 3; do
  t=$(best bisai-k$k) it=${IT[bisai-k$k-r1]:-}
  ratio=$(awk -v t="$t" -v p="$pbj" 'BEGIN{if (t>0 && p>0) printf "%.3f", t/p; else print "?"}')
  itr=$(awk -v a="$it" -v p="$pbjit" 'BEGIN{if (a+0>0 && p+0>0) printf "%.3f", a/p; else print "?"}')
  ilur=$(awk -v t="$t" -v i="${KS[ilu0-cusparse]:-0}" 'BEGIN{if (t>0 && i>0) printf "%.1f", i/t; else print "?"}')
  say "$(printf '%-22s its %-7s setup+solve %-9s s  time/pbjacobi %s (target <= 0.8)  its/pbjacobi %s (target <= 0.6)  ILU0-cusparse/this %s (target >= 10, ILU at %sx%s)' "bisai k=$k" "$it" "$t" "$ratio" "$itr" "$ilur" "$ILU_N" "$ILU_N")"
done
for tag in bisai-k2-sweeps3 bisai-k2-aijmodsell pbjacobi-aijmodsell ilu0-cusparse; do
  say "$(printf '%-22s its %-7s setup+solve %-9s s  time/pbjacobi %s' "$tag" "${IT[$tag]:-}" "${KS[$tag]:-}" "$(awk -v t="${KS[$tag]:-0}" -v p="$pbj" 'BEGIN{if (t>0 && p>0) printf "%.3f", t/p; else print "?"}')")"
done
;; esac

case " $STEPS " in *" spmv "*)
say ""
say "the apply's two block products: own BSR kernel against cuSPARSE bsrmv (cusparseDbsrmv, same BSR arrays, blocks by rows)"
for round in 1 2; do
  for k in 1 2 3; do
    for sp in own cusparse; do run spmv-$sp-k$k-r$round "$N" $MAT $bisai -pc_bisai_level $k -pc_bisai_steps 0 -pc_bisai_spmv $sp; done
  done
done
for k in 1 2 3; do
  for sp in own cusparse; do
    f=$logs/spmv-$sp-k$k-gpu.log
    "$ex19" -da_grid_x "$N" -da_grid_y "$N" -dm_mat_type $MAT $common $bisai -pc_bisai_level $k -pc_bisai_steps 0 -pc_bisai_spmv $sp -log_view_gpu_time > "$f" 2>&1
    # bytes of one application: M_L and M_U (8 bs^2 + 4 bytes per block, 4 per block row + 4), x read once, y written
    read -r cnt us gbs <<< "$(awk '
      /block size [0-9]+, [0-9]+ block rows/ {for (i = 1; i <= NF; i++) {if ($i == "size") bs = $(i+1) + 0; if ($i == "block" && $(i+1) ~ /^rows/) nb = $(i-1) + 0}}
      /nonzero blocks:/ {for (i = 1; i <= NF; i++) {if ($i == "M_L") ml = $(i+1) + 0; if ($i == "M_U") mu = $(i+1) + 0}}
      $1 == "PCBISAIApply" {cnt = $2; fl = $6; g = $22}
      END {if (cnt > 0 && g > 0) {t = fl / (g * 1e6) / cnt; by = (ml + mu) * (8.0 * bs * bs + 4) + 2 * 4.0 * (nb + 1) + 2 * 2 * 8.0 * nb * bs;
                                   printf "%d %.1f %.0f", cnt, t * 1e6, by / t / 1e9} else print "? ? ?"}' "$f")"
    say "$(printf '%-10s k=%s  its %-6s  PCBISAIApply %s calls, %s us per application (GPU time), %s GB/s of the bytes it must move' "$sp" "$k" "$(grep -m1 -oE 'iterations [0-9]+' "$f" | awk '{print $2}')" "$cnt" "$us" "$gbs")"
  done
done
say ""
say "setup + solve (best of two rounds, no GPU timing), own / cusparse:"
for k in 1 2 3; do
  o=$(best spmv-own-k$k) c=$(best spmv-cusparse-k$k)
  say "$(printf 'k=%s  own %s s (its %s)  cusparse %s s (its %s)  cusparse/own %s' "$k" "$o" "${IT[spmv-own-k$k-r1]:-}" "$c" "${IT[spmv-cusparse-k$k-r1]:-}" "$(awk -v a="$o" -v b="$c" 'BEGIN{if (a>0 && b>0) printf "%.3f", b/a; else print "?"}')")"
done
;; esac
