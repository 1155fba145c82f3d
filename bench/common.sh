# bench/common.sh: what every benchmark script of bench/ shares. Sourced, not run:
#
#   . "$(dirname "$0")/common.sh"
#   ms_init NAME OUTDIR            # the output folder, its summary log OUTDIR/NAME.log, ms_say into it
#   ms_setup [PROGRAM ...]          # PETSc, the plugin and the named programs built; the header line printed
#
# Environment (every script):
#   PETSC_DIR, PETSC_ARCH  the PETSc to build against and run with. Unset: the PETSc that `make` configured for
#                          BUILD (BUILD/petsc.env), or, with PETSC_TARBALL, a prebuilt PETSc unpacked once into
#                          ~/.cache/petsc-modsell (a tarball of an installed PETSc whose top folder is its name).
#                          Without either, `make` provisions PETSc (config/configure: network needed).
#   BUILD                  the plugin's build folder (default: build-cuda when it exists, else build)
#   JOBS                   make's parallel jobs (default: the cores)
#   MS_GPU_AWARE_MPI=1     the MPI is CUDA-aware; otherwise, with a PETSc built with CUDA, -use_gpu_aware_mpi 0 is added
#                          to PETSC_OPTIONS (PETSc stops at its start when MPI is not CUDA-aware and the option is absent)
#
# Functions: ms_say (a time-stamped line on the console and in the summary log), ms_provenance (the commit and the
# tree measured), ms_gpu (the GPU's name), ms_has_cuda, ms_petsc_example (build one of PETSc's tutorials),
# ms_petsc_program (build a program against PETSc alone, without the plugin), ms_logview (a field of an event's
# -log_view line), ms_median, ms_ratio, ms_warmup.

ms_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# ms_init NAME OUTDIR: makes OUTDIR (absolute in $ms_out) and the summary log $ms_log = OUTDIR/NAME.log
ms_init() {
  ms_name=$1
  mkdir -p "$2" || return 1
  ms_out=$(cd "$2" && pwd)
  ms_log=$ms_out/$ms_name.log
  : > "$ms_log"
}

# ms_say TEXT: a line on the console and in the summary log
ms_say() { echo "$*" | tee -a "${ms_log:-/dev/null}"; }

# ms_provenance [TOP]: "commit C tree T" for the checkout at TOP, T the id of the working tree's content (tracked and
# not-ignored files, as `git add -A` would record them), and "(the working tree differs from C)" when T is not C's
# tree. A copy of a working tree whose .git is older than its files still names the content measured: a local
# `git log --format='%h %T'` finds the commit whose tree it is.
ms_provenance() {
  local top=${1:-$ms_top} c t h idx
  c=$(git -C "$top" rev-parse --short HEAD 2>/dev/null) || { echo "commit ? (not a git checkout)"; return 0; }
  idx=$(mktemp)
  # a copy of the index, so that add -A hashes only what changed; the checkout's own index is left alone
  cp "$top/$(git -C "$top" rev-parse --git-path index 2>/dev/null)" "$idx" 2>/dev/null || rm -f "$idx"
  t=$(cd "$top" && GIT_INDEX_FILE=$idx git add -A 2>/dev/null && GIT_INDEX_FILE=$idx git write-tree 2>/dev/null) || t=
  rm -f "$idx"
  h=$(git -C "$top" rev-parse 'HEAD^{tree}' 2>/dev/null) || h=
  if [ -z "$t" ]; then echo "commit $c (working tree not read)"
  elif [ "$t" = "$h" ]; then echo "commit $c tree ${t:0:12}"
  else echo "commit $c tree ${t:0:12} (the working tree differs from $c)"; fi
}

# ms_gpu: the first GPU's name, or "no GPU"
ms_gpu() { nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | grep . || echo "no GPU"; }

# ms_has_cuda: true when the PETSc in PETSC_DIR/PETSC_ARCH was built with CUDA
ms_has_cuda() {
  local h
  for h in "$PETSC_DIR/$PETSC_ARCH/include/petscconf.h" "$PETSC_DIR/include/petscconf.h"; do
    [ -f "$h" ] && { grep -q '^#define PETSC_HAVE_CUDA 1' "$h"; return; }
  done
  return 1
}

# ms_petsc_var NAME: a variable of PETSc's makefile configuration (PCC, PETSC_CC_INCLUDES, PETSC_WITH_EXTERNAL_LIB, ...)
ms_petsc_var() {
  local conf
  conf=$(ls -d "$PETSC_DIR/$PETSC_ARCH/lib/petsc/conf" "$PETSC_DIR/lib/petsc/conf" 2>/dev/null | head -1)
  printf 'include %s/petscvariables\nms_print_var:\n\t@echo $(%s)\n' "$conf" "$1" | make -s --no-print-directory -f - ms_print_var
}

# ms_petsc_program SOURCE EXE: compile a program against PETSc alone (it gets the plugin from -dll_append)
ms_petsc_program() {
  [ -x "$2" ] && [ "$2" -nt "$1" ] && return 0
  mkdir -p "$(dirname "$2")"
  # shellcheck disable=SC2046
  $(ms_petsc_var PCC) $(ms_petsc_var PCC_FLAGS) $(ms_petsc_var PETSC_CC_INCLUDES) "$1" -o "$2" \
    $(ms_petsc_var PETSC_WITH_EXTERNAL_LIB) >> "${ms_out:-/tmp}/build.log" 2>&1
}

# ms_petsc_example PATH: build PETSc's own tutorial PATH (e.g. ksp/ksp/tutorials/ex45) from the PETSc installation's
# example sources into BUILD/petsc-examples/; prints the executable's path
ms_petsc_example() {
  local src exe=$BUILD/petsc-examples/$(basename "$1")
  src=$(ls "$PETSC_DIR/share/petsc/examples/src/$1.c" "$PETSC_DIR/src/$1.c" 2>/dev/null | head -1)
  [ -n "$src" ] || { echo "ms_petsc_example: $1.c is not under $PETSC_DIR" >&2; return 1; }
  ms_petsc_program "$src" "$exe" || { echo "ms_petsc_example: building $1 failed (see ${ms_out:-/tmp}/build.log)" >&2; return 1; }
  echo "$exe"
}

# ms_setup [PROGRAM ...]: PETSc, the plugin (BUILD/lib/libpetscmodsell.so in $ms_lib) and the programs named by their
# source path without .c (built as BUILD/bin/PROGRAM); the output of the build in OUTDIR/build.log; the header line
# "== bench/NAME <date> commit ... tree ... device <GPU>". Returns 1 when something does not build.
ms_setup() {
  local cache=$HOME/.cache/petsc-modsell p progs=()
  [ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  if [ -z "${BUILD:-}" ]; then
    if [ -d "$ms_top/build-cuda" ]; then BUILD=$ms_top/build-cuda; else BUILD=$ms_top/build; fi
  fi
  case "$BUILD" in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
  export BUILD
  if [ -z "${PETSC_DIR:-}" ] && [ -n "${PETSC_TARBALL:-}" ]; then
    p=$(tar tf "$PETSC_TARBALL" | head -1 | cut -d/ -f1)
    [ -d "$cache/$p" ] || { mkdir -p "$cache" && tar xf "$PETSC_TARBALL" -C "$cache"; } || return 1
    export PETSC_DIR=$cache/$p PETSC_ARCH=
  fi
  if [ -z "${PETSC_DIR:-}" ] && [ -f "$BUILD/petsc.env" ]; then
    PETSC_DIR=$(sed -n 's/^PETSC_DIR=//p' "$BUILD/petsc.env"); PETSC_ARCH=$(sed -n 's/^PETSC_ARCH=//p' "$BUILD/petsc.env")
    export PETSC_DIR PETSC_ARCH
  fi
  for p in "$@"; do progs+=("$BUILD/bin/$p"); done
  if ! make -C "$ms_top" BUILD="$BUILD" -j"${JOBS:-$(nproc)}" lib "${progs[@]}" > "${ms_out:-/tmp}/build.log" 2>&1; then
    tail -30 "${ms_out:-/tmp}/build.log"
    ms_say "== bench/$ms_name: the build FAILED (${ms_out:-/tmp}/build.log)"
    return 1
  fi
  if [ -z "${PETSC_DIR:-}" ]; then
    PETSC_DIR=$(sed -n 's/^PETSC_DIR=//p' "$BUILD/petsc.env"); PETSC_ARCH=$(sed -n 's/^PETSC_ARCH=//p' "$BUILD/petsc.env")
    export PETSC_DIR PETSC_ARCH
  fi
  ms_lib=$BUILD/lib/libpetscmodsell.so
  if ms_has_cuda && [ "${MS_GPU_AWARE_MPI:-0}" != 1 ]; then
    case " ${PETSC_OPTIONS:-} " in *" -use_gpu_aware_mpi "*) ;; *) export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0" ;; esac
  fi
  ms_say "== bench/$ms_name $(date -u +%FT%TZ) $(ms_provenance) device $(ms_gpu)"
  ms_say "   PETSc $PETSC_DIR${PETSC_ARCH:+ ($PETSC_ARCH)}, CUDA: $(ms_has_cuda && echo yes || echo no), build $BUILD"
}

# ms_logview FILE EVENT [FIELD]: a field of EVENT's first line in a -log_view output (default 4: its time, Max over
# processes; 2: its count; with -log_view_gpu_time the GPU Mflop/s is field NF-5)
ms_logview() {
  awk -v ev="$2" -v f="${3:-4}" '$1 == ev { if (f ~ /^NF-/) print $(NF - substr(f, 4)); else print $f; exit }' "$1"
}

# ms_median: the median of the numbers on standard input (one per line)
ms_median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ms_ratio A B: A / B with two decimals (n/a unless both are positive)
ms_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }

# ms_warmup COMMAND ...: runs the command once, output discarded (first-use costs of the process and the GPU)
ms_warmup() { "$@" > /dev/null 2>&1; }
