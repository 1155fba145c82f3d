#!/usr/bin/env bash
# bench/neumann.sh OUTDIR
#
# Issue 16 (PCNEUMANN, paper 003) on one GPU: the 3D two-phase pressure Poisson problem of the suite
# (examples/problems/problems.h: -problem twophase -dim 3, density ratio 1e3, air above the middle and NEU_BUBBLES
# bubbles) with NEU_N^3 cells (default 200: 8 M unknowns), CG to rtol 1e-8 on ||b - A x|| from x = 0, in one run of
# the suite's driver (examples/problems/problems -solve -configs), every configuration assembled from the generated
# rows, set up (KSPSetUp + one product) and solved, with one unreported warm-up solve each before the measured one
# (GAMG: no warm-up, its setup takes ~10 s at 8 M), configurations in this order:
#   jacobi   aijcusparse + PCJACOBI                                 (the reference of the ratios)
#   neu2d    modsell + PCNEUMANN neu2 + deflation (NEU_DEFL^3 = 512 subdomains of consecutive rows per process, the
#            paper's stripe-wise vectors: no partition to compute)
#   neu2dl   modsell + PCNEUMANN neu2 + deflation on 512 locality blocks (the partition is computed on the host)
#   neu2     modsell + PCNEUMANN neu2 without deflation
#   neu1d    modsell + PCNEUMANN neu1 + deflation (consecutive rows)
#   bjsmooth modsell + PCBJSMOOTH (its defaults)
#   gamg     aijcusparse + PCGAMG (its defaults)
# The issue's target: setup + solve of neu2d at most half that of jacobi.
# Needs the plugin built against a PETSc with CUDA in BUILD (default build-cuda); builds the driver there.
# Writes OUTDIR/neumann.log (summary: iterations, setup, solve, setup + solve, ratio jacobi / config),
# OUTDIR/run.log (the driver's output) and OUTDIR/logview.txt (-log_view: the PCNeumann events with GPU flops).
set -uo pipefail
out=${1:?usage: bench/neumann.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$top/build-cuda}
N=${NEU_N:-200}
D=${NEU_DEFL:-8}
AIJ=${NEU_AIJ:-aijcusparse} # NEU_AIJ=aij: a CPU trial of the script
mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/neumann.log
: > "$log"
say() { echo "$*" | tee -a "$log"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
make -C "$top" BUILD="$B" "$B/bin/examples/problems/problems" > "$out/build.log" 2>&1 || { say "build failed (see build.log)"; exit 1; }
say "== bench/neumann.sh $(date -u +%FT%TZ) commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null) device $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
say "twophase 3D ${N}^3 cells, contrast 1e3, ${NEU_BUBBLES:-8} bubbles; CG rtol 1e-8; deflation ${D}^3 subdomains"

configs=jacobi,neu2d,neu2dl,neu2,neu1d,bjsmooth,gamg
opts=(-problem twophase -dim 3 -n "$N" -contrast 1e3 -bubbles "${NEU_BUBBLES:-8}" -solve -timings -warmup 1 -configs "$configs"
  -use_gpu_aware_mpi 0
  -jacobi_mat_type "$AIJ" -jacobi_pc_type jacobi
  -neu2d_mat_type modsell -neu2d_pc_type neumann -neu2d_pc_neumann_type neu2 -neu2d_pc_neumann_deflation_subdomains "$D" -neu2d_pc_neumann_deflation_contiguous
  -neu2dl_mat_type modsell -neu2dl_pc_type neumann -neu2dl_pc_neumann_type neu2 -neu2dl_pc_neumann_deflation_subdomains "$D"
  -neu2_mat_type modsell -neu2_pc_type neumann -neu2_pc_neumann_type neu2
  -neu1d_mat_type modsell -neu1d_pc_type neumann -neu1d_pc_neumann_type neu1 -neu1d_pc_neumann_deflation_subdomains "$D" -neu1d_pc_neumann_deflation_contiguous
  -bjsmooth_mat_type modsell -bjsmooth_pc_type bjsmooth
  -gamg_mat_type "$AIJ" -gamg_pc_type gamg -gamg_warmup 0
  -log_view :"$out/logview.txt")
timeout ${NEU_TIMEOUT:-400} "$B/bin/examples/problems/problems" "${opts[@]}" > "$out/run.log" 2>&1
rc=$?
[ $rc -eq 0 ] || say "the driver exited with $rc (see run.log)"
grep -E "unknowns|WARNING" "$out/run.log" | tee -a "$log"
# the measured repetition of each configuration: "Solve NAME (repetition 1): ... converged in K iterations ..." then
# "  assembly A s, setup S s, solve T s, ..."
awk '
  /^Solve .*warm-up/ { name = ""; next }
  /^Solve / { name = $2; its = "?"; for (i = 1; i <= NF; i++) if ($i == "in" && $(i+2) ~ /^iterations/) its = $(i+1); conv = ($0 ~ /converged in/) ? "yes" : "NO"; next }
  /^  assembly/ && name != "" {
    for (i = 1; i <= NF; i++) { if ($i == "setup") s = $(i+1); if ($i == "solve") t = $(i+1) }
    gsub(/,/, "", s); gsub(/,/, "", t); tot = s + t
    if (name == "jacobi") ref = tot
    printf "%-9s converged %-3s iterations %5s  setup %8.4f s  solve %8.4f s  setup+solve %8.4f s  jacobi/this %s\n", name, conv, its, s, t, tot, (ref > 0 && tot > 0) ? sprintf("%.2f", ref / tot) : "-"
    name = ""
  }' "$out/run.log" | tee -a "$log"
grep -E "^PCNeumann" "$out/logview.txt" 2>/dev/null | tee -a "$log"
say "target: neu2d jacobi/this >= 2"
