#!/usr/bin/env bash
# bench/gpu-run.sh OUTDIR [STAGE ...]
#
# The tests on a GPU machine in one command: PETSc with CUDA, the plugin, the harness tests (GPU variants included),
# compute-sanitizer over the GPU tests. Every log goes into OUTDIR. The benchmarks have their own scripts (bench/README.md).
#
# Stages (default: petsc build check sanitize):
#   petsc     PETSc with CUDA: PETSC_DIR when set; else a prebuilt PETSc (PETSC_TARBALL, bench/common.sh) unpacked into
#             ~/.cache/petsc-modsell; else built by config/configure --with-cuda=1 (from PETSC_SOURCE_TARBALL, the
#             PyPI source distribution of config/petsc-version, when the machine has no network; 64-bit indices with
#             PETSC64=1, in their own cache folder, the plugin then in build-cuda64/)
#   savepetsc pack the PETSc in use into OUTDIR/petsc-cuda.tar.xz (a PETSC_TARBALL for the next machine)
#   build     the plugin and every program (build-cuda/, or BUILD)
#   smoke     PETSc's ex2 and ex45 with -dll_append: modsell against aijcusparse (and sellcuda), small sizes, 1 and 2 processes
#   check     make check (CHECK_ARGS="search=..." for a subset; GPU_JOBS, GPU_DEVICES as config/test.mk says)
#   sanitize  compute-sanitizer (SANITIZE_TOOLS, default "memcheck racecheck synccheck") over the harness tests
#             SANITIZE_SEARCH (default *cuda*), one report per process, counted in OUTDIR/sanitize.txt
#   hostvec   PETSc's ex2 on MATMODSELL with each plugin PC and Jacobi: vectors in host memory (no -vec_type) against
#             -vec_type cuda, and with -help, 1 and 2 processes (the same iterations)
# Environment: JOBS (default nproc), SANITIZE_TIMEOUT (seconds per test under a sanitizer, default 600), and those of
# bench/common.sh. Writes OUTDIR/gpu-run.log (the summary) and one log per stage.
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=${1:?usage: bench/gpu-run.sh OUTDIR [STAGE ...]}
shift
stages=${*:-petsc build check sanitize}
ms_init gpu-run "$out" || exit 1
out=$ms_out
cd "$ms_top" || exit 1
jobs=${JOBS:-$(nproc)}
version=$(tr -d ' \n' < config/petsc-version)
cache=$HOME/.cache/petsc-modsell
if [ -z "${BUILD:-}" ]; then
  BUILD=$ms_top/build-cuda
  [ "${PETSC64:-0}" = 1 ] && BUILD=$ms_top/build-cuda64
fi
export BUILD
status=0
log() { ms_say "=== [$(date +%H:%M:%S)] $*"; }
{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  nvcc --version 2>&1 | tail -1
  date -u
} > "$out/device.txt"
log "device: $(sed -n 2p "$out/device.txt")"

stage_petsc() {
  local opts=(--with-cuda=1 --jobs="$jobs")
  [ -n "${PETSC_SOURCE_TARBALL:-}" ] && opts+=(--petsc-tarball="$PETSC_SOURCE_TARBALL")
  [ "${PETSC64:-0}" = 1 ] && opts+=(--petsc-options=--with-64-bit-indices)
  if [ -n "${PETSC_DIR:-}" ] && [ "${PETSC64:-0}" != 1 ]; then
    log "PETSc: PETSC_DIR=$PETSC_DIR"
  elif [ -n "${PETSC_TARBALL:-}" ] && [ "${PETSC64:-0}" != 1 ]; then
    log "PETSc: unpacking $PETSC_TARBALL (if not yet in $cache)"
  else
    log "PETSc $version with CUDA: config/configure ${opts[*]}"
    ( env -u PETSC_DIR -u PETSC_ARCH MS_BUILD="$BUILD" bash config/configure "${opts[@]}" ) > "$out/petsc-build.log" 2>&1 \
      || { log "PETSc build FAILED"; tail -40 "$out/petsc-build.log"; exit 1; }
    PETSC_DIR=$(sed -n 's/^PETSC_DIR=//p' "$BUILD/petsc.env") PETSC_ARCH=$(sed -n 's/^PETSC_ARCH=//p' "$BUILD/petsc.env")
    export PETSC_DIR PETSC_ARCH
  fi
}

stage_build() {
  log "the plugin and the programs"
  ms_setup || { status=1; exit 1; }
  make BUILD="$BUILD" -j"$jobs" all > "$out/build-all.log" 2>&1 || { log "make all FAILED"; tail -40 "$out/build-all.log"; exit 1; }
  grep -iE "warning" "$out/build.log" "$out/build-all.log" | head -20
}

stage_savepetsc() {
  [ -n "${PETSC_DIR:-}" ] || stage_build
  log "packing $PETSC_DIR"
  tar cf - -C "$(dirname "$PETSC_DIR")" "$(basename "$PETSC_DIR")" | xz -T"$jobs" -6 > "$out/petsc-cuda.tar.xz"
  ls -la "$out/petsc-cuda.tar.xz" | tee -a "$ms_log"
}

stage_smoke() {
  [ -n "${ms_lib:-}" ] || stage_build
  local ex2 ex45 t
  ex2=$(ms_petsc_example ksp/ksp/tutorials/ex2) && ex45=$(ms_petsc_example ksp/ksp/tutorials/ex45) || { status=1; return; }
  log "smoke: PETSc's ex2 and ex45 with -dll_append"
  {
    for t in aijcusparse modsell; do
      echo "--- ex2 -mat_type $t -vec_type cuda (1 and 2 processes)"
      "$ex2" -m 300 -n 300 -ksp_type cg -pc_type jacobi -mat_type $t -vec_type cuda -dll_append "$ms_lib" -ksp_converged_reason
      mpiexec -n 2 "$ex2" -m 300 -n 300 -ksp_type cg -pc_type jacobi -mat_type $t -vec_type cuda -dll_append "$ms_lib" -ksp_converged_reason
    done
    for t in aijcusparse sellcuda modsell; do
      echo "--- ex45 64^3 -dm_mat_type $t"
      "$ex45" -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -ksp_type cg -pc_type jacobi -dm_mat_type $t -dm_vec_type cuda -dll_append "$ms_lib" -ksp_converged_reason -ksp_rtol 1e-8
    done
  } > "$out/smoke.log" 2>&1 || status=1
  grep -E "^---|Linear solve|ERROR" "$out/smoke.log" | tee -a "$ms_log"
}

stage_check() {
  [ -n "${ms_lib:-}" ] || stage_build
  log "make check ${CHECK_ARGS:-}"
  # shellcheck disable=SC2086
  make BUILD="$BUILD" -j"$jobs" check ${CHECK_ARGS:-} > "$out/check.log" 2>&1 || status=1
  tail -15 "$out/check.log" | tee -a "$ms_log"
}

# compute-sanitizer over the GPU harness tests: one make check per tool, the harness's time limit raised; the tool's
# report goes to one file per process (standard output stays the test's, so the diffs still check it)
stage_sanitize() {
  [ -n "${ms_lib:-}" ] || stage_build
  local tool extra logdir procs bad
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    extra="" logdir=$out/cs-$tool
    [ "$tool" = racecheck ] && extra="--racecheck-report hazard"
    rm -rf "$logdir"; mkdir -p "$logdir"
    log "compute-sanitizer --tool $tool on the harness tests ${SANITIZE_SEARCH:-*cuda*}"
    make BUILD="$BUILD" -j"$jobs" check TIMEOUT="${SANITIZE_TIMEOUT:-600}" WRAPPER="compute-sanitizer --tool $tool $extra --error-exitcode 9 --print-limit 5 --log-file $logdir/%p.log" search="${SANITIZE_SEARCH:-*cuda*}" > "$out/sanitize-$tool.log" 2>&1 || status=1
    procs=$(ls "$logdir" | wc -l)
    bad=$(grep -L -E 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors' "$logdir"/*.log 2>/dev/null | wc -l)
    echo "$tool (${SANITIZE_SEARCH:-*cuda*}): harness $(tail -n 20 "$out/sanitize-$tool.log" | grep -E '^[0-9]+ passed'); $procs processes under the tool, $bad with errors or no summary" | tee -a "$out/sanitize.txt" "$ms_log"
    grep -L -E 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors' "$logdir"/*.log 2>/dev/null | head -5 | xargs -r head -30
  done
}

stage_hostvec() {
  [ -n "${ms_lib:-}" ] || stage_build
  local ex2 pc np vt
  ex2=$(ms_petsc_example ksp/ksp/tutorials/ex2) || { status=1; return; }
  log "ex2: vectors in host memory (no -vec_type) against -vec_type cuda, and with -help"
  for pc in bjsmooth ruiz neumann jacobi; do
    for np in 1 2; do
      for vt in "" "-vec_type cuda" "-help"; do
        echo "--- np $np -pc_type $pc $vt"
        # shellcheck disable=SC2086
        mpiexec -n $np "$ex2" -m 300 -n 300 -ksp_type cg -pc_type $pc -mat_type modsell $vt -dll_append "$ms_lib" -ksp_converged_reason 2>&1 | grep -E "Linear solve|ERROR|Segmentation|signal"
        echo "exit status ${PIPESTATUS[0]}"
      done
    done
  done > "$out/hostvec.log" 2>&1
  cat "$out/hostvec.log" >> "$ms_log"
}

for st in $stages; do
  if declare -F "stage_$st" > /dev/null; then "stage_$st"; else log "unknown stage $st"; status=1; fi
done
log "done (status $status)"
exit $status
