#!/usr/bin/env bash
# config/check-deps.sh: `make check-deps` (after a full build): touching any header under include/
# (public and private, .h and .cuh) must rebuild every library object whose source includes it,
# directly or through other headers (the .cu objects too, whose dependencies once named modsellcuda.h only).
#
# Which sources include which header is computed apart from make's dependency files: the
# compilers' preprocessors list each source's headers (`-MM`, with the build's own flags, so
# `#if defined(PETSC_HAVE_CUDA)` includes count only where they are compiled).  Then, for each
# header H, `make -n -W H <every library object>` says what make would rebuild were H touched;
# every object whose source includes H must be among them.  Before that, `make -n <objects>` must
# rebuild nothing (an object rebuilt every time, e.g. because its .d is never written, would hide
# a missing dependency).  Objects rebuilt for a header their source does not include are listed
# as notes (harmless, but the dependencies are then not the compilers').
#
# The .cu objects are built only where nvcc exists (`make cuda-objs`, part of `make all` then):
# without nvcc they are skipped, and the report says so.
#
# Run by the top makefile, which passes: MS_MAKE, MS_TOP, MS_BUILD, MS_OBJDIR, MS_CSRC, MS_CUSRC,
# MS_NVCC (empty without nvcc), MS_CC_M (C compiler and flags), MS_NVCC_M (nvcc and flags).
# It relies on the object recipes naming their output with `-o $@`.  Exit status: 0 when every
# dependency is there, 1 otherwise.
set -uo pipefail
export LC_ALL=C

for v in MS_MAKE MS_TOP MS_BUILD MS_OBJDIR MS_CSRC MS_CC_M; do
  if [ -z "${!v:-}" ]; then echo "[check-deps] $v is not set: run this through 'make check-deps'" >&2; exit 2; fi
done
MS_CUSRC=${MS_CUSRC:-} MS_NVCC=${MS_NVCC:-} MS_NVCC_M=${MS_NVCC_M:-}
top=$MS_TOP
rel() { local p=$1; p=${p#"$top"/}; printf '%s' "$p"; }
norm() { realpath -s -m -- "$1"; }   # lexical: '..' removed, symlinks kept (as make names files)
submake() { $MS_MAKE --no-print-directory -f "$top/makefile" BUILD="$MS_BUILD" "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# --- the library objects and their sources --------------------------------------------------------
objs=() srcs=() kinds=()
for s in $MS_CSRC; do objs+=("$MS_OBJDIR/${s%.c}.o"); srcs+=("$s"); kinds+=(c); done
ncu=0
if [ -n "$MS_NVCC" ]; then
  for s in $MS_CUSRC; do objs+=("$MS_OBJDIR/${s%.cu}.cu.o"); srcs+=("$s"); kinds+=(cu); ncu=$((ncu + 1)); done
  cunote="$ncu CUDA objects (nvcc: $MS_NVCC)"
else
  cunote="no nvcc here: the $(wc -w <<< "$MS_CUSRC") .cu objects are not built, so not checked"
fi
echo "[check-deps] $(( ${#objs[@]} - ncu )) C objects, $cunote"

for o in "${objs[@]}"; do
  [ -f "$o" ] || { echo "[check-deps] FAIL: $(rel "$o") was not built (run make first)"; fail=1; }
done
[ $fail = 0 ] || exit 1

# objects make would rebuild, from the recipes make -n prints (their '-o <object>')
rebuilt() { awk '{ for (i = 1; i < NF; i++) if ($i == "-o") print $(i + 1) }' "$1" | sort -u; }

# --- after the full build, nothing is out of date ------------------------------------------------
if ! submake -n "${objs[@]}" > "$tmp/uptodate" 2>&1; then
  echo "[check-deps] FAIL: make -n <objects> failed:"; sed 's/^/  /' "$tmp/uptodate"; exit 1
fi
rebuilt "$tmp/uptodate" > "$tmp/stale"
if [ -s "$tmp/stale" ]; then
  while read -r o; do
    echo "[check-deps] FAIL: $(rel "$o") would be rebuilt right after a full build (is its dependency file $(rel "$o").d written? -MMD -MP -MF)"
  done < "$tmp/stale"
  exit 1
fi

# --- which headers under include/ each source includes (the preprocessor's -MM) ---------------------
: > "$tmp/pairs"   # lines: <header> <object>
for i in "${!objs[@]}"; do
  s=${srcs[$i]} o=${objs[$i]}
  if [ "${kinds[$i]}" = cu ]; then cmd=$MS_NVCC_M; else cmd=$MS_CC_M; fi
  if ! (cd "$top" && $cmd -MM "$s") > "$tmp/mm" 2> "$tmp/mm.err"; then
    echo "[check-deps] FAIL: could not list the headers of $s:"; sed 's/^/  /' "$tmp/mm.err"; fail=1; continue
  fi
  # 'target: dep dep \' lines: every word after the first colon-terminated one
  sed -e 's/\\$//' -e '1s/^[^:]*://' "$tmp/mm" | tr -s ' \t' '\n' | sed '/^$/d' | while read -r d; do
    case $d in /*) ;; *) d=$top/$d ;; esac
    case $d in "$top"/*) d=$(norm "$d") ;; *) continue ;; esac
    case $d in "$top"/include/*) echo "$d $o" ;; esac
  done >> "$tmp/pairs"
done
[ $fail = 0 ] || exit 1

# --- touching each header ----------------------------------------------------------------------------
missing=0 extra=0 nh=0
while read -r h; do
  h=$(norm "$h"); nh=$((nh + 1))
  awk -v h="$h" '$1 == h { print $2 }' "$tmp/pairs" | sort -u > "$tmp/want"
  if ! submake -n -W "$h" "${objs[@]}" > "$tmp/out" 2>&1; then
    echo "[check-deps] FAIL: make -n -W $(rel "$h") failed:"; sed 's/^/  /' "$tmp/out"; fail=1; continue
  fi
  rebuilt "$tmp/out" > "$tmp/got"
  nwant=$(wc -l < "$tmp/want")
  comm -23 "$tmp/want" "$tmp/got" > "$tmp/miss"
  comm -13 "$tmp/want" "$tmp/got" | grep -Fx -f <(printf '%s\n' "${objs[@]}") > "$tmp/more"
  nmiss=$(wc -l < "$tmp/miss")
  if [ "$nwant" -eq 0 ]; then
    echo "[check-deps] ok   $(rel "$h"): no library object includes it"
  elif [ "$nmiss" -eq 0 ]; then
    echo "[check-deps] ok   $(rel "$h"): rebuilds the $nwant object(s) that include it"
  else
    echo "[check-deps] FAIL $(rel "$h"): rebuilds $((nwant - nmiss)) of the $nwant object(s) that include it"
  fi
  while read -r o; do
    echo "[check-deps]   missing: $(rel "$o") (its source includes $(rel "$h"), yet touching the header would not rebuild it)"
  done < "$tmp/miss"
  if [ -s "$tmp/more" ]; then
    echo "[check-deps]   note: it would also rebuild $(wc -l < "$tmp/more") object(s) whose sources do not include it:" \
      "$(while read -r o; do printf '%s ' "$(rel "$o")"; done < "$tmp/more")"
  fi
  missing=$((missing + nmiss)) extra=$((extra + $(wc -l < "$tmp/more")))
done < <(find "$top/include" -type f \( -name '*.h' -o -name '*.cuh' \) | sort)

if [ $fail != 0 ] || [ $missing != 0 ]; then
  echo "[check-deps] failed: $missing missing dependencies of library objects on $nh headers under include/"
  exit 1
fi
note=; [ $extra = 0 ] || note=" ($extra extra rebuilds noted)"
echo "[check-deps] passed: $nh headers under include/; touching one rebuilds every object that includes it$note"
