#!/usr/bin/env bash
# bench/gpu-run.sh OUTDIR [STAGE ...]
#
# One call that provisions PETSc with CUDA, builds the plugin, runs the tests and the benchmarks
# on a GPU machine, writing every log into OUTDIR (on the lent GPU machine: $OUT).
#
# Stages (default: petsc build check sanitize ex45 spmv):
#   petsc     use a carried, prebuilt PETSc (.carry/petsc-cuda.tar.xz) or build one from the
#             source tarball .carry/petsc-<version>.tar.gz (no network needed)
#   savepetsc pack the installed PETSc into OUTDIR/petsc-cuda.tar.xz (to carry next time)
#   build     build the plugin against it (build-cuda/)
#   smoke     PETSc's ex2/ex45 with -dll_append: modsell against aijcusparse, small sizes
#   check     make check (every harness test, GPU variants included; CHECK_ARGS="search=..." for a subset)
#   sanitize  compute-sanitizer memcheck and racecheck on the GPU tests
#   ex45      PETSc's ex45 at 256^3, CG + Jacobi on aijcusparse / sellcuda / modsell, -log_view
#   spmv      bench/spmv.sh (SpMV benchmark) if present
#   ruiz      PCRUIZ figures (src/ksp/pc/impls/ruiz/tutorials/ex1 at 256^3, RUIZ_N)
#   ruizsuite the same driver on badly scaled SPD problems of the suite (figure 5.1 of paper 000; RUIZ_SUITE)
#   bjsmooth  bench/bjsmooth.sh (smoother experiment and CG comparison)
#   solvers   bench/solvers.py (solver configurations x problem suite; SOLVERS_ARGS, SOLVERS_LIMIT)
#   hostvec   PETSc's ex2 on MATMODSELL with each plugin PC and jacobi: vectors in host memory (no -vec_type)
#             against -vec_type cuda, and with -help (iterations side by side)
# Environment: JOBS (default nproc), EX45_N (default 256), EXTRA (extra PETSc options for ex45),
#   PETSC64=1: build PETSc with --with-64-bit-indices (from .carry/petsc-<version>.tar.gz) into its own
#   cache directory and the plugin into build-cuda64/, SANITIZE_TOOLS (default "memcheck racecheck synccheck"),
#   SANITIZE_SEARCH (default *cuda*: the GPU harness tests), SANITIZE_TIMEOUT (seconds per test, default 600).
set -uo pipefail
dest=${1:?usage: bench/gpu-run.sh OUTDIR [STAGE ...]}
shift
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
# logs are written to a scratch directory and packed into DEST/logs.tar.xz after every stage (a GPU
# machine returns only a few files); set KEEP_FILES=1 to write them directly into DEST
if [ "${KEEP_FILES:-0}" = 1 ]; then out=$dest; else out=$(mktemp -d /tmp/gpu-run.XXXXXX); fi
stages=${*:-petsc build check sanitize ex45 spmv}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
export NCCL_NVLS_ENABLE=0
jobs=${JOBS:-$(nproc)}
version=$(tr -d ' \n' < config/petsc-version)
cache=${PETSC_MODSELL_CACHE:-$HOME/.cache/petsc-modsell}
export PETSC_DIR=$cache/petsc-$version-cuda-opt PETSC_ARCH=
B=$top/build-cuda
[ "${PETSC64:-0}" = 1 ] && B=$top/build-cuda64
lib=$B/lib/libpetscmodsell.so
ex=$PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials
status=0

log() { echo "=== [$(date +%H:%M:%S)] $*" | tee -a "$out/summary.txt"; }
# only 8 files come back from the GPU machine: keep every log in one tarball, refreshed after each stage
pack() {
  (cd "$out" && tar cJf "$dest/logs.tar.xz.tmp" --exclude=logs.tar.xz --exclude='logs.tar.xz.tmp' --exclude=petsc-cuda.tar.xz . 2>/dev/null) && mv "$dest/logs.tar.xz.tmp" "$dest/logs.tar.xz"
  [ "$out" = "$dest" ] || cp "$out/summary.txt" "$dest/summary.txt" 2>/dev/null
}

{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  nvcc --version | tail -1
  date -u
} > "$out/device.txt" 2>&1
log "device: $(sed -n 2p "$out/device.txt")"

stage_petsc() {
  if [ "${PETSC64:-0}" = 1 ]; then # its own keyed cache directory (config/configure), written to $B/petsc.env
    log "PETSc $version with CUDA and 64-bit indices"
    ( env -u PETSC_DIR -u PETSC_ARCH MS_BUILD="$B" bash config/configure --with-cuda=1 --jobs="$jobs" --petsc-options=--with-64-bit-indices \
        --petsc-tarball="$top/.carry/petsc-$version.tar.gz" --cache-dir="$cache" ) > "$out/petsc64-build.log" 2>&1 \
      || { log "PETSc build FAILED"; tail -40 "$out/petsc64-build.log"; cp "$cache"/*.log "$out/" 2>/dev/null; exit 1; }
    PETSC_DIR=$(sed -n 's/^PETSC_DIR=//p' "$B/petsc.env"); export PETSC_DIR
    ex=$PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials
    grep -E 'define PETSC_USE_64BIT_INDICES' "$PETSC_DIR/include/petscconf.h" | tee -a "$out/summary.txt"
    return
  fi
  if [ ! -f "$PETSC_DIR/.modsell-complete" ] && [ -f .carry/petsc-cuda.tar.xz ]; then
    log "unpacking carried PETSc"
    mkdir -p "$cache" && tar xJf .carry/petsc-cuda.tar.xz -C "$cache"
  fi
  if [ ! -f "$PETSC_DIR/.modsell-complete" ]; then
    log "building PETSc $version with CUDA"
    ( env -u PETSC_DIR -u PETSC_ARCH MS_BUILD="$B" bash config/configure --with-cuda=1 --jobs="$jobs" \
        --petsc-tarball="$top/.carry/petsc-$version.tar.gz" --cache-dir="$cache" ) > "$out/petsc-build.log" 2>&1 \
      || { log "PETSc build FAILED"; tail -40 "$out/petsc-build.log"; cp "$cache"/*.log "$out/" 2>/dev/null; exit 1; }
    # config/configure names its cache directory by a key of the options: use what it wrote
    PETSC_DIR=$(sed -n 's/^PETSC_DIR=//p' "$B/petsc.env"); export PETSC_DIR
    ex=$PETSC_DIR/share/petsc/examples/src/ksp/ksp/tutorials
  fi
}
stage_savepetsc() {
  log "packing PETSc"
  # packed under the name the carried copy is unpacked to (stage_petsc)
  tar cf - -C "$(dirname "$PETSC_DIR")" --transform "s|^$(basename "$PETSC_DIR")|petsc-$version-cuda-opt|" "$(basename "$PETSC_DIR")" | xz -T"$jobs" -6 > "$dest/petsc-cuda.tar.xz"
  ls -la "$dest/petsc-cuda.tar.xz" | tee -a "$out/summary.txt"
}

stage_build() {
  log "building the plugin"
  make BUILD="$B" -j"$jobs" all > "$out/build.log" 2>&1 || { log "plugin build FAILED"; tail -40 "$out/build.log"; exit 1; }
  grep -iE "warning" "$out/build.log" | head -20
  mpicc -O2 -I"$PETSC_DIR/include" "$ex/ex2.c" -o "$B/ex2" -Wl,-rpath,"$PETSC_DIR/lib" -L"$PETSC_DIR/lib" -lpetsc -lm
  mpicc -O2 -I"$PETSC_DIR/include" "$ex/ex45.c" -o "$B/ex45" -Wl,-rpath,"$PETSC_DIR/lib" -L"$PETSC_DIR/lib" -lpetsc -lm
}

stage_smoke() {
  log "smoke: ex2 / ex45 with -dll_append"
  {
    for t in aijcusparse modsell; do
      echo "--- ex2 -mat_type $t -vec_type cuda"
      "$B/ex2" -m 300 -n 300 -ksp_type cg -pc_type jacobi -mat_type $t -vec_type cuda -dll_append "$lib" -ksp_converged_reason
      echo "--- ex2 2 ranks -mat_type $t"
      mpiexec -n 2 "$B/ex2" -m 300 -n 300 -ksp_type cg -pc_type jacobi -mat_type $t -vec_type cuda -dll_append "$lib" -ksp_converged_reason
    done
    for t in aijcusparse sellcuda modsell; do
      echo "--- ex45 64^3 -dm_mat_type $t"
      "$B/ex45" -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -ksp_type cg -pc_type jacobi -dm_mat_type $t -dm_vec_type cuda -dll_append "$lib" -ksp_converged_reason -ksp_rtol 1e-8
    done
    echo "--- ex45 modsell rcm sh=256, 2 ranks"
    mpiexec -n 2 "$B/ex45" -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -ksp_type cg -pc_type jacobi -dm_mat_type modsell -dm_vec_type cuda -dll_append "$lib" -ksp_converged_reason -ksp_rtol 1e-8 -mat_modsell_ordering rcm -mat_modsell_slice_height 256 -mat_view ::ascii_info
  } > "$out/smoke.log" 2>&1 || status=1
  grep -E "^---|Linear solve|iterations|ERROR" "$out/smoke.log" | head -40
}

stage_check() {
  if grep -q '^check:' config/test.mk 2>/dev/null; then
    log "make check"
    make BUILD="$B" -j"$jobs" check ${CHECK_ARGS:-} > "$out/check.log" 2>&1 || status=1
    tail -15 "$out/check.log"
  else
    log "no make check yet"
  fi
}

# compute-sanitizer over the GPU harness tests: memcheck, racecheck and synccheck (every kernel of the plugin runs
# in them); one make check per tool, with the harness's time limit raised; the counts go to sanitize.txt
stage_sanitize() {
  local tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck}
  for tool in $tools; do
    local extra="" logdir=$out/cs-$tool
    [ "$tool" = racecheck ] && extra="--racecheck-report hazard"
    rm -rf "$logdir"; mkdir -p "$logdir"
    log "compute-sanitizer --tool $tool on the harness tests ${SANITIZE_SEARCH:-*cuda*}"
    # the tool's report goes to one file per process (stdout stays the test's, so the diffs still check it)
    make BUILD="$B" -j"$jobs" check TIMEOUT=${SANITIZE_TIMEOUT:-600} WRAPPER="compute-sanitizer --tool $tool $extra --error-exitcode 9 --print-limit 5 --log-file $logdir/%p.log" search="${SANITIZE_SEARCH:-*cuda*}" > "$out/sanitize-$tool.log" 2>&1 || status=1
    local procs bad
    procs=$(ls "$logdir" | wc -l)
    bad=$(grep -L -E 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors' "$logdir"/*.log 2>/dev/null | wc -l)
    echo "$tool (${SANITIZE_SEARCH:-*cuda*}): harness $(tail -n 20 "$out/sanitize-$tool.log" | grep -E '^[0-9]+ passed'); $procs processes under the tool, $bad with errors or no summary" | tee -a "$out/sanitize.txt"
    grep -L -E 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors' "$logdir"/*.log 2>/dev/null | head -5 | xargs -r head -30
    grep -E '^not ok' "$out/sanitize-$tool.log" | head -10
  done
  [ "$out" = "$dest" ] || cp "$out/sanitize.txt" "$dest/" 2>/dev/null
}

# PETSc's ex2 (VecCreate()/VecSetFromOptions() vectors) on MATMODSELL: host vectors against CUDA vectors, and -help
stage_hostvec() {
  log "ex2: vectors in host memory (no -vec_type) against -vec_type cuda, with -help"
  {
    for pc in bjsmooth ruiz jacobi; do
      for np in 1 2; do
        for vt in "" "-vec_type cuda" "-help"; do
          echo "--- np $np -pc_type $pc $vt"
          mpiexec -n $np "$B/ex2" -m 300 -n 300 -ksp_type cg -pc_type $pc -mat_type modsell $vt -dll_append "$lib" -ksp_converged_reason -log_view :"$out/hv.log" 2>&1 | grep -E "Linear solve|ERROR|Segmentation|signal"
          echo "exit status ${PIPESTATUS[0]}"
          grep -E "^(MatMult|PCApply|KSPSolve) " "$out/hv.log" | awk '{print "  " $1, $2, "calls", $4, "s"}'
        done
      done
    done
  } > "$out/hostvec.log" 2>&1
  cat "$out/hostvec.log"
}

stage_ex45() {
  n=${EX45_N:-256}
  log "ex45 ${n}^3 CG + Jacobi"
  for t in aijcusparse sellcuda modsell; do
    "$B/ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda \
      -dll_append "$lib" -log_view -log_view_gpu_time ${EXTRA:-} > "$out/ex45_${n}_$t.log" 2>&1 || status=1
    its=$(grep -m1 -oE "iterations [0-9]+" "$out/ex45_${n}_$t.log")
    solve=$(awk '/^KSPSolve /{print $4}' "$out/ex45_${n}_$t.log")
    mult=$(awk '/^MatMult /{print $2, $4, $(NF-4)}' "$out/ex45_${n}_$t.log")
    log "ex45 $t: $its KSPSolve ${solve}s MatMult(calls time gpu-Mflops) $mult"
  done
}

stage_spmv() {
  if [ -x bench/spmv.sh ] || [ -f bench/spmv.sh ]; then
    log "SpMV benchmark"
    BUILD="$B" bash bench/spmv.sh "$out" > "$out/spmv.log" 2>&1 || status=1
    tail -30 "$out/spmv.log"
  else
    log "no bench/spmv.sh yet"
  fi
}
stage_ruiz() {
  log "PCRUIZ figures: 256^3 Laplacian (setup vs sweeps x MatMult, CG per iteration, histories)"
  make BUILD="$B" "$B/bin/src/ksp/pc/impls/ruiz/tutorials/ex1" > "$out/ruiz-build.log" 2>&1 || { log "ruiz driver build FAILED"; status=1; return; }
  timeout 300 "$B/bin/src/ksp/pc/impls/ruiz/tutorials/ex1" -n ${RUIZ_N:-256} -mat_type modsell -csv "$out/ruiz_lap256.csv" > "$out/ruiz.log" 2>&1 || status=1
  grep -E "^time:|verdict|yes|no" "$out/ruiz.log" | head -20
  python3 src/ksp/pc/impls/ruiz/tutorials/plot_ruiz.py "$out/ruiz_lap256.csv" -o "$out/ruiz_history.png" --every 20 --title "CG to 1e-10 with none / jacobi / ruiz: 7-point Laplacian 256^3" >> "$out/ruiz.log" 2>&1 || true
  # where the setup time goes: GPU times of the sweeps and checks (-log_view_gpu_time), kernel times (nsys)
  timeout 120 "$B/bin/src/ksp/pc/impls/ruiz/tutorials/ex1" -n ${RUIZ_N:-256} -mat_type modsell -its 20 -log_view -log_view_gpu_time > "$out/ruiz-logview.log" 2>&1 || true
  grep -E "^(MatMult|PCRuiz|PCSetUp|VecPointwiseMult|VecSet) " "$out/ruiz-logview.log" | head
  if command -v nsys > /dev/null; then
    timeout 180 nsys profile -o "$out/ruiz" --force-overwrite true --stats=true "$B/bin/src/ksp/pc/impls/ruiz/tutorials/ex1" -n ${RUIZ_N:-256} -mat_type modsell -its 20 > "$out/ruiz-nsys.log" 2>&1 || true
    rm -f "$out"/ruiz.nsys-rep "$out"/ruiz.sqlite
    grep -A25 "cuda_gpu_kern_sum" "$out/ruiz-nsys.log" | head -30
  else log "no nsys on this machine"; fi
}

# figure 5.1 of paper 000 on our problems of the paper's kind (SPD, badly scaled rows: random jump coefficients,
# a two-phase density contrast, the magnetron's permittivity); RUIZ_SUITE="name:problem options;..."
stage_ruizsuite() {
  log "PCRUIZ on the problem suite: setup vs sweeps x MatMult, CG none / jacobi / ruiz histories"
  local prob=$B/bin/examples/problems/problems drv=$B/bin/src/ksp/pc/impls/ruiz/tutorials/ex1
  make BUILD="$B" "$prob" "$drv" > "$out/ruizsuite-build.log" 2>&1 || { log "build FAILED"; status=1; return; }
  local suite=${RUIZ_SUITE:-jump:-problem jump -dim 3 -n 128 -jump_blocks 8 -jump_random;twophase:-problem twophase -dim 3 -n 128 -bubbles 8 -bubble_radius 0.08;magnetron:-problem magnetron -h_mm 0.5}
  IFS=';' read -ra items <<< "$suite"
  for it in "${items[@]}"; do
    local name=${it%%:*}
    timeout 120 "$prob" ${it#*:} -write_system "$out/rz_$name.bin" > "$out/ruiz_${name}_gen.log" 2>&1 || { log "$name: generation FAILED"; status=1; continue; }
    timeout 200 "$drv" -f "$out/rz_$name.bin" -mat_type modsell -its 100 -hist_max_it ${RUIZ_HIST_MAX_IT:-20000} -csv "$out/ruiz_$name.csv" > "$out/ruiz_$name.log" 2>&1 || status=1
    rm -f "$out/rz_$name.bin" "$out/rz_$name.bin.info"
    echo "--- $name (${it#*:})"
    grep -E "unknowns|^time:|^history" "$out/ruiz_$name.log"
    python3 src/ksp/pc/impls/ruiz/tutorials/plot_ruiz.py "$out/ruiz_$name.csv" -o "$out/ruiz_history_$name.png" --every 20 --title "CG to 1e-10 with none / jacobi / ruiz: $name (${it#*:})" >> "$out/ruiz_$name.log" 2>&1 || true
  done
}

stage_bjsmooth() {
  log "PCBJSMOOTH benchmark"
  BUILD="$B" timeout ${BJS_TIMEOUT:-420} bash bench/bjsmooth.sh "$out/bjsmooth" > "$out/bjsmooth.log" 2>&1 || status=1
  tail -25 "$out/bjsmooth.log"
}

stage_solvers() {
  log "solver benchmark"
  timeout ${SOLVERS_TIMEOUT:-420} python3 bench/solvers.py --build "$B" --out "$out/solvers" --time-limit ${SOLVERS_LIMIT:-360} ${SOLVERS_ARGS:-} > "$out/solvers.log" 2>&1 || status=1
  tail -30 "$out/solvers.log"
}

for st in $stages; do
  if declare -F "stage_$st" > /dev/null; then "stage_$st"; else log "unknown stage $st"; status=1; fi
  pack
done
log "done (status $status)"
pack
exit $status
