#!/usr/bin/env bash
# bench/compare-builds.sh OUTDIR BASE_TARBALL : SpMV, PCRUIZ setup and PCBJSMOOTH apply times of two builds of the plugin,
# measured in one run on one GPU: the base (a `git archive` tarball of an earlier commit, e.g. made with
#   git archive -o .carry/base.tar <commit>) and the working tree. Issue 11 asks for these three to agree within 3%
# before and after a refactoring.
#
# Each build is compiled against the same PETSc (PETSC_DIR, as bench/gpu-run.sh sets it) with its own drivers, then
# ROUNDS rounds alternate base and new (each driver warms up first):
#   SpMV          the ruiz driver's 'one MatMult' (src/ksp/pc/impls/ruiz/tutorials/ex1, 50 products, MATMODSELL)
#   ruiz setup    its 'ruiz setup (fresh)' (the second PC of the process) and 'after a value-only change, image
#                 refreshed by a MatMult first' (the PC's own cost)
#   bjsmooth      the bjsmooth driver's PCApply and MatMult (src/ksp/pc/impls/bjsmooth/tutorials/ex1 -mode cg -napply 50)
#   brbilu        PCBRBILU's brbilu_apply_ms (one application timed alone), brbilu_solve_s and brbilu_its (the same
#                 function gives the same iterations) from src/ksp/pc/impls/brbilu/tests/ex1 -test bench on BRB_CASE
#                 (default: the magnetron 239 x 239 x 119, aijcusparse, CG with the symmetric variant, single factors)
# on the 7-point Laplacian at N^3 (default 256). Writes OUTDIR/compare.csv (round,build,metric,value) and
# OUTDIR/compare.txt (medians per build and the ratio new/base).
# Environment: N (256), ROUNDS (5), METRICS (default "spmv bjsmooth": spmv runs the ruiz driver, hence its ruiz
# metrics too; add or name brbilu), BJS_OPTS (default -pc_bjsmooth_block_size 128), BRB_CASE, BUILD_NEW (build-cuda).
set -uo pipefail
out=${1:?usage: bench/compare-builds.sh OUTDIR BASE_TARBALL}
base_tar=${2:?usage: bench/compare-builds.sh OUTDIR BASE_TARBALL}
mkdir -p "$out"
out=$(cd "$out" && pwd)
base_tar=$(cd "$(dirname "$base_tar")" && pwd)/$(basename "$base_tar")
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
N=${N:-256}
ROUNDS=${ROUNDS:-5}
METRICS=${METRICS:-spmv bjsmooth}
BJS_OPTS=${BJS_OPTS:--pc_bjsmooth_block_size 128}
BRB_CASE=${BRB_CASE:--problem magnetron -h_mm 0.25 -attach_dmda -mat_type aijcusparse -ksp_type cg -pc_brbilu_symmetric}
want() { case " $METRICS " in *" $1 "*) return 0 ;; esac; return 1; }
jobs=${JOBS:-$(nproc)}
new_build=${BUILD_NEW:-$top/build-cuda}
base_src=$(mktemp -d /tmp/compare-base.XXXXXX)
tar xf "$base_tar" -C "$base_src" || { echo "cannot unpack $base_tar"; exit 1; }
base_build=$base_src/build-cuda

ruiz=src/ksp/pc/impls/ruiz/tutorials/ex1
bjs=src/ksp/pc/impls/bjsmooth/tutorials/ex1
brb=src/ksp/pc/impls/brbilu/tests/ex1
progs=()
want spmv && progs+=("$ruiz")
want bjsmooth && progs+=("$bjs")
want brbilu && progs+=("$brb")
for b in base new; do
  if [ $b = base ]; then src=$base_src bld=$base_build; else src=$top bld=$new_build; fi
  (cd "$src" && make -s -j"$jobs" BUILD="$bld" $(printf "$bld/bin/%s " "${progs[@]}")) > "$out/build_$b.log" 2>&1 || { echo "build $b failed: $out/build_$b.log"; tail -20 "$out/build_$b.log"; exit 1; }
done

csv=$out/compare.csv
echo "round,build,metric,value" > "$csv"
for r in $(seq 1 "$ROUNDS"); do
  for b in base new; do
    if [ $b = base ]; then bld=$base_build; else bld=$new_build; fi
    log=$out/run_${r}_$b.log
    : > "$log"
    want spmv && "$bld/bin/$ruiz" -n "$N" -mat_type modsell -nmult 50 -its 5 -hist_max_it 1 -pcs ruiz -use_gpu_aware_mpi 0 >> "$log" 2>&1
    want bjsmooth && "$bld/bin/$bjs" -problem lap3d -n "$N" -mode cg -mat_type modsell -pc_type bjsmooth $BJS_OPTS -napply 50 -repeat 2 -ksp_max_it 5 -use_gpu_aware_mpi 0 >> "$log" 2>&1
    want brbilu && "$bld/bin/$brb" -test bench $BRB_CASE -pc_type brbilu -use_gpu_aware_mpi 0 >> "$log" 2>&1
    sed -n 's/^time: one MatMult \([0-9.]*\) us.*/spmv_us \1/p;
            s/^time: ruiz setup (fresh): \([0-9.]*\) ms.*/ruiz_setup_fresh_ms \1/p;
            s/^time: ruiz setup after a value-only change, image refreshed by a MatMult first: \([0-9.]*\) ms.*/ruiz_setup_refresh_ms \1/p;
            s/^APPLY pc=bjsmooth apply_us=\([0-9.]*\) mult_us=\([0-9.]*\).*/bjsmooth_apply_us \1\nbjsmooth_driver_mult_us \2/p;
            s/^bench: iterations \([0-9]*\) .* solve \([0-9.]*\) total .*/brbilu_its \1\nbrbilu_solve_s \2/p;
            s/^bench: apply \([0-9.]*\) ms.*/brbilu_apply_ms \1/p' "$log" |
      while read -r metric value; do echo "$r,$b,$metric,$value" >> "$csv"; done
  done
done

python3 - "$csv" > "$out/compare.txt" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
metrics = sorted({r['metric'] for r in rows})
print(f"{'metric':28s} {'base median':>12s} {'new median':>12s} {'new/base':>9s}  (values per round: base | new)")
for m in metrics:
    v = {b: [float(r['value']) for r in rows if r['metric'] == m and r['build'] == b] for b in ('base', 'new')}
    if not v['base'] or not v['new']:
        print(f"{m:28s} missing"); continue
    mb, mn = statistics.median(v['base']), statistics.median(v['new'])
    print(f"{m:28s} {mb:12.4g} {mn:12.4g} {mn / mb:9.3f}  {' '.join(f'{x:.4g}' for x in v['base'])} | {' '.join(f'{x:.4g}' for x in v['new'])}")
EOF
cat "$out/compare.txt"
rm -rf "$base_src"
