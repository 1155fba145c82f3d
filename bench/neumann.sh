#!/usr/bin/env bash
# bench/neumann.sh OUTDIR
#
# PCNEUMANN (Gupta, van Gijzen and Vuik (2011)) on one GPU: the 3D two-phase pressure Poisson problem of the suite
# (examples/problems/problems.h: -problem twophase -dim 3, density ratio 1e3, air above the middle and NEU_BUBBLES
# bubbles) with NEU_N^3 cells (default 200: 8 M unknowns), CG to rtol 1e-8 on the true residual ||b - A x|| <= 1e-8 ||b||
# (the driver's unpreconditioned norm, the same criterion for every configuration) from x = 0, each configuration
# assembled from the generated rows, set up (KSPSetUp + one product) and solved, with one unreported warm-up solve
# before the measured one (GAMG: no warm-up, its setup takes ~16 s at 8 M).
#
# Two runs of the driver:
#   1. the main comparison, right-hand side random (NEU_RHS, default random): an initial error with every frequency,
#      as the paper's random initial guess gives ("to avoid artificially fast convergence"); deflation exists for its
#      smooth part. Deflation is on NEU_DEFL^3 = 512 subdomains: locality blocks (the default of
#      -pc_neumann_deflation_subdomains without a DMDA; partition, E = Z^T A Z and Z^T A built on the GPU) or, where
#      named, blocks of consecutive rows. Configurations, jacobi and neu2d measured twice (alternating, start and end)
#      to see drift:
#        jacobi   aijcusparse + PCJACOBI                        (the reference of the ratios: its first measurement)
#        neu2d    modsell + PCNEUMANN neu2 + deflation on locality blocks
#        neu2dc   modsell + PCNEUMANN neu2 + deflation on blocks of consecutive rows (the paper's stripes)
#        jacd     modsell + PCNEUMANN jacobi + deflation on locality blocks (what deflation alone gives)
#        neu2     modsell + PCNEUMANN neu2 without deflation
#        neu1d    modsell + PCNEUMANN neu1 + deflation on locality blocks
#        bjsmooth modsell + PCBJSMOOTH (its defaults)
#        jacobi, neu2d again
#        gamg     aijcusparse + PCGAMG (its defaults)
#   2. the suite's default right-hand side for twophase, b = A x*, x*_i = cos(i): jacobi, jacd, neu2, neu2d. Its
#      initial error is nearly one oscillatory Fourier mode: the iteration counts depend on N mod 2 pi and deflation
#      does not pay there (docs/neumann.md).
# Builds what it needs (bench/common.sh: PETSc, the plugin, examples/problems/problems). NEU_AIJ=aij runs the script
# on the CPU (a dry run at small NEU_N, NEU_DEFL).
# Writes OUTDIR/neumann.log (summary: iterations, true residual, setup, solve, setup + solve, ratio jacobi / config,
# and the -log_view lines of the PCNeumann events and the partition: PCNeumannDeflSetUp is the deflation's whole
# setup, ModSELLPartition the locality partition inside it), OUTDIR/run-random.log and run-cosine.log (the driver's
# output) and OUTDIR/logview.txt (-log_view of run 1: the events with GPU time and flops).
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=${1:?usage: bench/neumann.sh OUTDIR}
ms_init neumann "$out" || exit 1
ms_setup examples/problems/problems || exit 1
PROBLEMS=$BUILD/bin/examples/problems/problems
N=${NEU_N:-200}
D=${NEU_DEFL:-8}
RHS=${NEU_RHS:-random}
AIJ=${NEU_AIJ:-aijcusparse} # NEU_AIJ=aij: a CPU trial of the script
out=$ms_out
log=$ms_log
say() { ms_say "$@"; }
say "twophase 3D ${N}^3 cells, contrast 1e3, ${NEU_BUBBLES:-8} bubbles; CG to ||b - A x|| <= 1e-8 ||b|| from x = 0; deflation ${D}^3 subdomains (locality blocks; neu2dc: consecutive rows)"

common=(-problem twophase -dim 3 -n "$N" -contrast 1e3 -bubbles "${NEU_BUBBLES:-8}" -solve -timings -warmup 1
  -jacobi_mat_type "$AIJ" -jacobi_pc_type jacobi
  -neu2d_mat_type modsell -neu2d_pc_type neumann -neu2d_pc_neumann_type neu2 -neu2d_pc_neumann_deflation_subdomains "$D"
  -neu2dc_mat_type modsell -neu2dc_pc_type neumann -neu2dc_pc_neumann_type neu2 -neu2dc_pc_neumann_deflation_subdomains "$D" -neu2dc_pc_neumann_deflation_contiguous
  -jacd_mat_type modsell -jacd_pc_type neumann -jacd_pc_neumann_type jacobi -jacd_pc_neumann_deflation_subdomains "$D"
  -neu2_mat_type modsell -neu2_pc_type neumann -neu2_pc_neumann_type neu2
  -neu1d_mat_type modsell -neu1d_pc_type neumann -neu1d_pc_neumann_type neu1 -neu1d_pc_neumann_deflation_subdomains "$D"
  -bjsmooth_mat_type modsell -bjsmooth_pc_type bjsmooth
  -gamg_mat_type "$AIJ" -gamg_pc_type gamg -gamg_warmup 0)

# the measured repetition of each configuration: "Solve NAME (repetition 1): ... converged in K iterations (...),
# ||b-Ax||/||b|| R" then "  assembly A s, setup S s, solve T s, ..."
summary() {
  awk '
    /^Solve .*warm-up/ { name = ""; next }
    /^Solve / { name = $2; its = "?"; rr = "?"; for (i = 1; i <= NF; i++) { if ($i == "in" && $(i+2) ~ /^iterations/) its = $(i+1); if ($i == "||b-Ax||/||b||") rr = $(i+1) }
                conv = ($0 ~ /converged in/) ? "yes" : "NO"; next }
    /^  assembly/ && name != "" {
      for (i = 1; i <= NF; i++) { if ($i == "setup") s = $(i+1); if ($i == "solve") t = $(i+1) }
      gsub(/,/, "", s); gsub(/,/, "", t); tot = s + t
      if (name == "jacobi" && ref == 0) ref = tot
      printf "%-9s converged %-3s iterations %5s  ||b-Ax||/||b|| %-9s setup %8.4f s  solve %8.4f s  setup+solve %8.4f s  jacobi/this %s\n", name, conv, its, rr, s, t, tot, (ref > 0 && tot > 0) ? sprintf("%.2f", ref / tot) : "-"
      name = ""
    }' "$1" | tee -a "$log"
}

say "-- 1. right-hand side $RHS"
timeout ${NEU_TIMEOUT:-300} "$PROBLEMS" "${common[@]}" -rhs "$RHS" \
  -configs jacobi,neu2d,neu2dc,jacd,neu2,neu1d,bjsmooth,jacobi,neu2d,gamg -log_view :"$out/logview.txt" > "$out/run-$RHS.log" 2>&1
rc=$?
[ $rc -eq 0 ] || say "the driver exited with $rc (see run-$RHS.log)"
grep -E "unknowns|WARNING" "$out/run-$RHS.log" | tee -a "$log"
summary "$out/run-$RHS.log"
grep -E "^(PCNeumann|ModSELLPartition)" "$out/logview.txt" 2>/dev/null | tee -a "$log"

say "-- 2. right-hand side cosine (b = A x*, x*_i = cos(i): the suite's default)"
timeout ${NEU_TIMEOUT2:-120} "$PROBLEMS" "${common[@]}" -rhs cosine -configs jacobi,jacd,neu2,neu2d > "$out/run-cosine.log" 2>&1
rc=$?
[ $rc -eq 0 ] || say "the driver exited with $rc (see run-cosine.log)"
summary "$out/run-cosine.log"
