#!/usr/bin/env bash
# bench/fuzz/run.sh - the fuzzing campaign of the problem suite's file readers (not part of make check;
# docs/fuzz.md describes it and its last results).
#
#   bench/fuzz/run.sh [RUNS]        build, then run RUNS inputs (default 1000000) through libFuzzer
#
# Builds bench/fuzz/fuzz_readers.c with clang -fsanitize=fuzzer,address,undefined (through PETSc's MPI
# compiler wrapper, so that MPI's headers and libraries come with it) against the PETSc of build/petsc.env
# (or PETSC_DIR/PETSC_ARCH), builds the seeded driver bench/fuzz/fuzz_seeded.c with PETSc's compiler to
# write the seed corpus (small valid MatrixMarket and PETSc binary files), then runs libFuzzer on one
# process: -runs=RUNS -timeout=5 (a hang) -detect_leaks=1 -malloc_limit_mb=256 (an absurd allocation),
# UBSan errors fatal, the dictionary bench/fuzz/readers.dict. It prints the inputs run, the crashes,
# timeouts, leaks and out-of-memory inputs (the files libFuzzer wrote to artifacts/) and keeps the log.
#
# Environment: OUT (build/fuzz: binaries, corpus/, seeds/, artifacts/, campaign-<date>.log), SEED (1),
# TIMEOUT (5 s per input), MAX_LEN (8192 bytes), CC (clang), KEEP_CORPUS=1 (start from the corpus of the
# last campaign instead of the seeds alone), FUZZ_FLAGS (more libFuzzer flags).
# Exit status: 0 when all RUNS inputs ran without a finding.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUNS=${1:-${RUNS:-1000000}}
SEED=${SEED:-1}
TIMEOUT=${TIMEOUT:-5}
MAX_LEN=${MAX_LEN:-8192}
CC=${CC:-clang}
OUT=${OUT:-$TOP/build/fuzz}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

die() { echo "run.sh: $*" >&2; exit 2; }

# --- PETSc ---------------------------------------------------------------------------------------
if [ -z "${PETSC_DIR:-}" ] && [ -f "$TOP/build/petsc.env" ]; then
  PETSC_DIR=$(sed -n 's/^PETSC_DIR=//p' "$TOP/build/petsc.env")
  PETSC_ARCH=$(sed -n 's/^PETSC_ARCH=//p' "$TOP/build/petsc.env")
fi
[ -n "${PETSC_DIR:-}" ] || die "no PETSc: set PETSC_DIR (and PETSC_ARCH) or run make first (build/petsc.env)"
VARS=
for d in "$PETSC_DIR/${PETSC_ARCH:-}/lib/petsc/conf" "$PETSC_DIR/lib/petsc/conf"; do
  [ -f "$d/petscvariables" ] && { VARS=$d/petscvariables; break; }
done
[ -n "$VARS" ] || die "no petscvariables under $PETSC_DIR ${PETSC_ARCH:-}"
var() { sed -n "s/^$1 = //p" "$VARS" | head -1; }
PCC=$(var PCC)
PETSC_INC=$(var PETSC_CC_INCLUDES)
PETSC_LIBS=$(var PETSC_WITH_EXTERNAL_LIB)
command -v "$CC" > /dev/null || die "$CC not found (Debian: apt-get install clang libclang-rt-dev)"
CLANG_VERSION=$("$CC" --version | head -1)

mkdir -p "$OUT" || die "cannot create $OUT"
STAMP=$(date -u +%Y%m%d-%H%M%S)
LOG=$OUT/campaign-$STAMP.log

# --- build ---------------------------------------------------------------------------------------
echo "== building $OUT/fuzz_readers ($CLANG_VERSION, libFuzzer + ASan + UBSan) and $OUT/fuzz_seeded ($PCC)"
# the MPI wrapper compiles with clang: OMPI_CC (Open MPI), MPICH_CC (MPICH)
OMPI_CC=$CC MPICH_CC=$CC $PCC -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$TOP/include" $PETSC_INC "$TOP/bench/fuzz/fuzz_readers.c" -o "$OUT/fuzz_readers" $PETSC_LIBS || die "building fuzz_readers failed"
$PCC $(var CC_FLAGS) -I"$TOP/include" $PETSC_INC "$TOP/bench/fuzz/fuzz_seeded.c" -o "$OUT/fuzz_seeded" $PETSC_LIBS || die "building fuzz_seeded failed"

# --- seeds, corpus -------------------------------------------------------------------------------
rm -rf "$OUT/seeds" "$OUT/artifacts"
mkdir -p "$OUT/seeds" "$OUT/artifacts" "$OUT/corpus"
[ "${KEEP_CORPUS:-0}" = 1 ] || { rm -rf "$OUT/corpus"; mkdir -p "$OUT/corpus"; }
"$OUT/fuzz_seeded" -write_corpus "$OUT/seeds" || die "writing the seed corpus failed"

# --- the campaign --------------------------------------------------------------------------------
{
  echo "# fuzzing campaign of the file readers: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "# commit $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$TOP" diff --quiet HEAD -- examples/problems/mmread.h examples/problems/problems.h bench/fuzz 2>/dev/null || echo ' (+ uncommitted changes to the readers or bench/fuzz)')"
  echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $CLANG_VERSION, PETSc $PETSC_DIR ${PETSC_ARCH:-}"
} > "$LOG"
CMD=("$OUT/fuzz_readers" -runs="$RUNS" -seed="$SEED" -timeout="$TIMEOUT" -detect_leaks=1 -max_len="$MAX_LEN"
     -malloc_limit_mb=256 -rss_limit_mb=2048 -dict="$TOP/bench/fuzz/readers.dict" -print_final_stats=1
     -artifact_prefix="$OUT/artifacts/" ${FUZZ_FLAGS:-} "$OUT/corpus" "$OUT/seeds")
echo "# command: ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ${CMD[*]}" >> "$LOG"
echo "== running $RUNS inputs (log: $LOG)"
START=$(date +%s)
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "${CMD[@]}" >> "$LOG" 2>&1
RC=$?
ELAPSED=$(( $(date +%s) - START ))

# --- summary -------------------------------------------------------------------------------------
count() { find "$OUT/artifacts" -maxdepth 1 -name "$1-*" | wc -l; }
EXECUTED=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG" | tail -1)
RATE=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$LOG" | tail -1)
CRASHES=$(count crash)
TIMEOUTS=$(count timeout)
LEAKS=$(count leak)
OOMS=$(count oom)
SLOW=$(count slow-unit)
CORPUS=$(find "$OUT/corpus" -type f | wc -l)
{
  echo "# summary: inputs run ${EXECUTED:-0} of $RUNS in ${ELAPSED} s (${RATE:-?} per second), crashes $CRASHES, timeouts $TIMEOUTS, leaks $LEAKS, out-of-memory $OOMS, slow units $SLOW, corpus $CORPUS files, libFuzzer exit status $RC"
} | tee -a "$LOG"
ln -sf "$(basename "$LOG")" "$OUT/campaign-latest.log"
for f in "$OUT"/artifacts/*; do [ -e "$f" ] && echo "   finding: $f (reproduce: $OUT/fuzz_readers $f)"; done
[ "$RC" = 0 ] && [ "${EXECUTED:-0}" -ge "$RUNS" ] && [ $((CRASHES + TIMEOUTS + LEAKS + OOMS)) = 0 ]
