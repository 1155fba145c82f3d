#!/usr/bin/env bash
# bench/compare-builds.sh OUTDIR BASE
#
# Before and after: the same measurements with two builds of the plugin, alternated in one run on one GPU, to check
# that a change (a refactoring) leaves the speed alone. BASE is a commit of this repository (its `git archive` is
# built) or a tarball made by `git archive -o base.tar COMMIT` (for a machine whose copy has no usable .git); the
# other build is the working tree.
#
# One driver, bench/pcbench.c, compiled once against PETSc alone, loads each build's library with -dll_append, so
# the two builds run the very same program. On the 7-point Laplacian at N^3 (a DMDA, MATMODSELL operator, CUDA
# vectors when PETSc has CUDA) it prints the median over SAMPLES of:
#   spmv_ms                      one MatMult
#   <pc>_setup_ms, <pc>_apply_ms PCSetUp() of a new PC and one PCApply(), for ruiz, bjsmooth, brbilu, bisai, neumann
# ROUNDS rounds, each running both builds (base first in odd rounds, new first in even ones).
#
# Prints and writes OUTDIR/compare-builds.log: per metric the median over the rounds of each build, the ratio new/base
# (above 1: the new build is slower) and every round's value; OUTDIR/compare.csv (round,build,metric,value); every
# run's output in OUTDIR/runs/.
# Environment: N (160), ROUNDS (5), SAMPLES (5), ITS (20: products or applications per sample), PCS (the five),
# DRIVER_OPTIONS (more options for every run, e.g. -pc_bjsmooth_block_size 128), and those of bench/common.sh (BUILD:
# the working tree's build; the base is built in OUTDIR/base/).
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=${1:?usage: bench/compare-builds.sh OUTDIR BASE (a commit, or a git archive tarball)}
base=${2:?usage: bench/compare-builds.sh OUTDIR BASE (a commit, or a git archive tarball)}
ms_init compare-builds "$out" || exit 1
ms_setup || exit 1
N=${N:-160} ROUNDS=${ROUNDS:-5} SAMPLES=${SAMPLES:-5} ITS=${ITS:-20}
PCS=${PCS:-ruiz,bjsmooth,brbilu,bisai,neumann}

# the base: its sources in OUTDIR/base/src, built against the same PETSc into OUTDIR/base/build
base_src=$ms_out/base/src base_build=$ms_out/base/build
rm -rf "$base_src" && mkdir -p "$base_src"
if [ -f "$base" ]; then
  tar xf "$base" -C "$base_src" || { ms_say "cannot unpack $base"; exit 1; }
  base_name="tarball $(basename "$base")"
else
  git -C "$ms_top" archive "$base" | tar x -C "$base_src" || { ms_say "$base is neither a file nor a commit of $ms_top"; exit 1; }
  base_name="commit $(git -C "$ms_top" rev-parse --short "$base")"
fi
make -C "$base_src" BUILD="$base_build" -j"${JOBS:-$(nproc)}" lib > "$ms_out/build-base.log" 2>&1 \
  || { tail -20 "$ms_out/build-base.log"; ms_say "the base does not build (build-base.log)"; exit 1; }
driver=$ms_out/pcbench
ms_petsc_program "$ms_top/bench/pcbench.c" "$driver" || { ms_say "bench/pcbench.c does not build (build.log)"; exit 1; }

types="-dm_mat_type modsell"
ms_has_cuda && types="$types -dm_vec_type cuda"
ms_say "   base: $base_name; new: the working tree; ${N}^3 Laplacian, $types, $ROUNDS rounds, median of $SAMPLES samples of $ITS"
declare -A lib=([base]=$base_build/lib/libpetscmodsell.so [new]=$ms_lib)
csv=$ms_out/compare.csv
echo "round,build,metric,value" > "$csv"
mkdir -p "$ms_out/runs"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for b in $order; do
    f=$ms_out/runs/round$r-$b.log
    # shellcheck disable=SC2086
    "$driver" -n "$N" -samples "$SAMPLES" -its "$ITS" -pcs "$PCS" $types -dll_append "${lib[$b]}" ${DRIVER_OPTIONS:-} > "$f" 2>&1 \
      || { ms_say "round $r, $b: the driver failed (runs/round$r-$b.log)"; tail -5 "$f"; continue; }
    awk -v r="$r" -v b="$b" '$1 ~ /_ms$/ && NF == 2 { print r "," b "," $1 "," $2 }' "$f" >> "$csv"
  done
  ms_say "   round $r done"
done

python3 - "$csv" <<'EOF' | tee -a "$ms_log"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
metrics = list(dict.fromkeys(r['metric'] for r in rows))
print(f"{'metric':22s} {'base (ms)':>11s} {'new (ms)':>11s} {'new/base':>9s}  values per round: base | new")
for m in metrics:
    v = {b: [float(r['value']) for r in rows if r['metric'] == m and r['build'] == b] for b in ('base', 'new')}
    if not v['base'] or not v['new']:
        print(f"{m:22s} missing"); continue
    mb, mn = statistics.median(v['base']), statistics.median(v['new'])
    print(f"{m:22s} {mb:11.4g} {mn:11.4g} {mn / mb:9.3f}  {' '.join(f'{x:.4g}' for x in v['base'])} | {' '.join(f'{x:.4g}' for x in v['new'])}")
EOF
