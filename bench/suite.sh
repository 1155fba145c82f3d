#!/usr/bin/env bash
# bench/suite.sh [options]: the finite-element problem suite on the GPU, one command.
#
# 1. generates the systems with examples/problems/fem/femsystems.py, all at once (one process each): P1
#    elasticity (block size 3, rigid-body near-null space), P2 Poisson, P1 anisotropic diffusion (1e3), P1 + SUPG
#    convection-diffusion (about --unknowns each, 1 M by default) and FVM Poisson on a gmsh tetrahedral mesh
#    (--cells, 2.4 M by default), each in the library's numbering and randomly permuted, into --work (large
#    files: never the results folder);
# 2. runs bench/solvers.py on them with the "fem_suite" configuration of bench/solvers.json: every plugin
#    preconditioner with its defaults, MATMODSELL + Jacobi, and PETSc's references (Jacobi, point-block Jacobi,
#    ILU(0) with cuSPARSE, GAMG, on aijcusparse); CG for the SPD systems, GMRES(30) for SUPG; iterations,
#    assembly, setup, solve, total and the ratio to the fastest reference that converged;
# 3. times the SpMV of MATMODSELL (its defaults) against aijcusparse on every matrix (bench/spmv).
#
# Writes into --out: suite.txt (the tables: solvers, then SpMV), solvers_summary.csv, solvers.csv, spmv.csv,
# suite-meta.json (sizes, versions, times of each phase) and suite-logs.tar.xz (everything else: the generators'
# output, the drivers' logs, residual histories, plots).
#
# Options:
#   --out DIR          results (default ./suite-out)
#   --work DIR         the generated systems (default ${TMPDIR:-/tmp}/petsc-modsell-suite; several GB at 1 M)
#   --build DIR        the plugin's build directory (default build-cuda when it exists, else build); the
#                      driver and bench/spmv are built there when missing
#   --python PY        an interpreter with numpy and scipy (default: build/python.env's, else python3)
#   --wheels DIR       install the .whl files of DIR (scikit-fem, gmsh) for the generator first, without network
#                      (pip install --no-index --no-deps --prefix WORK/pylib)
#   --unknowns N       unknowns of each scikit-fem system (default 1e6)
#   --cells N          cells of the gmsh mesh (default 2.4e6)
#   --mesh-file F      the gmsh mesh from a .npz written by femsystems.py --mesh-out (no gmsh needed)
#   --threads N        threads of gmsh's HXT (default: the cores)
#   --systems LIST     elasticity,p2poisson,aniso,supg,gmsh (default all)
#   --numberings LIST  natural,perm (default both)
#   --solvers GLOBS    bench/solvers.py --solvers (default: all of fem_suite)
#   --time-limit S     bench/solvers.py stops starting systems after S s (default 270)
#   --no-spmv          skip the SpMV comparison
#   --small            CPU smoke run: small systems, host matrix types (aijcusparse -> aij, ...), seconds
#   --keep             keep --work afterwards (default: removed at the end)
# On the GPU machine (PETSc with CUDA, plugin in build-cuda; numpy and scipy installed, no network):
#   bash bench/suite.sh --build build-cuda --wheels .carry/wheels --out $OUT/suite
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cmdline="$*"
out=$PWD/suite-out
work=${TMPDIR:-/tmp}/petsc-modsell-suite
build=""
py=""
wheels=""
unknowns=1e6
cells=2.4e6
meshfile=""
threads=$(nproc 2> /dev/null || echo 2)
systems=elasticity,p2poisson,aniso,supg,gmsh
numberings=natural,perm
solvers=""
limit=270
spmv=1
small=0
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift ;;
    --work) work=$2; shift ;;
    --build) build=$2; shift ;;
    --python) py=$2; shift ;;
    --wheels) wheels=$2; shift ;;
    --unknowns) unknowns=$2; shift ;;
    --cells) cells=$2; shift ;;
    --mesh-file) meshfile=$2; shift ;;
    --threads) threads=$2; shift ;;
    --systems) systems=$2; shift ;;
    --numberings) numberings=$2; shift ;;
    --solvers) solvers=$2; shift ;;
    --time-limit) limit=$2; shift ;;
    --no-spmv) spmv=0 ;;
    --small) small=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
    *) echo "suite.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$build" ]; then if [ -d "$top/build-cuda" ]; then build=$top/build-cuda; else build=$top/build; fi; fi
build=$(cd "$build" 2> /dev/null && pwd) || { echo "suite.sh: no build directory $build" >&2; exit 1; }
if [ -z "$py" ]; then py=$(sed -n 's/^PETSCMODSELL_PYTHON=//p' "$build/python.env" 2> /dev/null); [ -x "$py" ] || py=python3; fi
mkdir -p "$out" "$work" || exit 1
out=$(cd "$out" && pwd)
work=$(cd "$work" && pwd)
logs=$work/logs
mkdir -p "$logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start=$SECONDS
status=0
say() { echo "[suite $(( SECONDS - start ))s] $*" | tee -a "$logs/suite.log"; }
cleanup() { [ "$keep" = 1 ] || rm -rf "$work/sys" "$work/pylib"; }
trap cleanup EXIT

if [ "$small" = 1 ]; then unknowns=3000; cells=6000; fi
driver=$build/bin/examples/problems/problems
spmvexe=$build/bin/bench/spmv
for prog in "$driver" "$spmvexe"; do
  [ -x "$prog" ] || make -C "$top" BUILD="$build" "$prog" > "$logs/build.log" 2>&1 || { say "building $prog failed (see $logs/build.log)"; tail -20 "$logs/build.log"; exit 1; }
done

# --- the generator's packages ------------------------------------------------------------------------
if [ -n "$wheels" ]; then
  names=""; for w in "$wheels"/*.whl; do names+="$(basename "$w") "; done
  say "installing ${names}into $work/pylib"
  if ! "$py" -m pip install --no-index --no-deps --prefix "$work/pylib" "$wheels"/*.whl > "$logs/wheels.log" 2>&1; then
    # no pip: a pure-Python wheel (scikit-fem) is a zip of the package: unpacked, it imports
    say "pip install failed (see $logs/wheels.log): unpacking the wheels into $work/pylib/unpacked"
    for w in "$wheels"/*.whl; do "$py" -m zipfile -e "$w" "$work/pylib/unpacked" >> "$logs/wheels.log" 2>&1; done
  fi
  sp=$(dirname "$(find "$work/pylib" -maxdepth 6 -type d -name skfem | head -1)")
  [ -n "$sp" ] && [ "$sp" != . ] && export PYTHONPATH=$sp${PYTHONPATH:+:$PYTHONPATH}
fi
versions=$("$py" -c 'import numpy, scipy; v = ["numpy " + numpy.__version__, "scipy " + scipy.__version__]
try:
  import skfem; v.append("scikit-fem " + skfem.__version__)
except ImportError as e: v.append("no scikit-fem (%s)" % e)
try:
  import gmsh; v.append("gmsh " + gmsh.__version__)
except Exception as e: v.append("no gmsh (%s)" % str(e).splitlines()[0][:80])
print(", ".join(v))' 2>&1)
say "python $py: $versions"

# --- 1. the systems, generated at once ----------------------------------------------------------------
mkdir -p "$work/sys"
gen=$top/examples/problems/fem/femsystems.py
case ",$numberings," in
  *,natural,*) case ",$numberings," in *,perm,*) permute=both ;; *) permute=none ;; esac ;;
  *,perm,*) permute=random ;;
  *) echo "suite.sh: --numberings takes natural and/or perm, not '$numberings'" >&2; exit 2 ;;
esac
pids=()
for s in ${systems//,/ }; do
  pre=$work/sys/$s
  [ "$permute" = random ] && pre=$work/sys/$s-perm
  args=(--permute "$permute" --prefix "$pre" --seed 1)
  if [ "$s" = gmsh ]; then
    if [ -n "$meshfile" ]; then args+=(--mesh-file "$meshfile"); else args+=(--cells "$cells" --threads "$threads"); fi
  else
    args+=(--unknowns "$unknowns")
  fi
  ( t0=$SECONDS; "$py" "$gen" "$s" "${args[@]}" > "$logs/gen-$s.log" 2>&1; rc=$?; echo "$(( SECONDS - t0 )) s" > "$logs/gen-$s.time"; exit $rc ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
for s in ${systems//,/ }; do
  say "generated $s ($(tr -d '\n' < "$logs/gen-$s.time" 2> /dev/null)): $(grep -E '^[a-z0-9]+(-perm)?: ' "$logs/gen-$s.log" | sed 's/ -> .*//' | tr '\n' ';')"
  grep -q "CHECKS FAILED\|Traceback\|Error" "$logs/gen-$s.log" && { say "generation of $s failed:"; tail -5 "$logs/gen-$s.log"; status=1; }
done
tgen=$(( SECONDS - start ))

# --- 2. the solvers -----------------------------------------------------------------------------------
"$py" - "$top/bench/solvers.json" "$work/sys" "$work/suite.json" "$numberings" "$systems" << 'EOF' || { say "no system to run"; exit 1; }
import json, os, sys
cfg = json.load(open(sys.argv[1]))
fem = cfg["fem_suite"]
sysdir, numberings, systems = sys.argv[2], sys.argv[4].split(","), sys.argv[5].split(",")
problems = []
for s in systems:
    for nb in numberings:
        name = s if nb == "natural" else s + "-perm"
        meta = os.path.join(sysdir, name + ".json")
        if not os.path.exists(meta):
            continue
        m = json.load(open(meta))
        if not m.get("checks_ok"):
            continue
        a = "-problem file -file %s -file_spd %d" % (m["file"], 1 if m["spd"] else 0)
        if m.get("nearnullspace"):
            a += " -file_nearnullspace %s" % m["nearnullspace"]
        problems.append({"name": name, "class": "spd" if m["spd"] else "nonsym", "args": a, "small": a,
                         "note": "%s; %d unknowns, %d nonzeros, block size %d, %s numbering" % (m["description"], m["rows"], m["nnz"], m["bs"], "random" if m["permute"] == "random" else "the generator's")})
if not problems:
    sys.exit(1)
out = {"comment": "written by bench/suite.sh from bench/solvers.json's fem_suite", "problems": problems,
       "solvers": fem["solvers"], "reference": fem["reference"], "repetitions": fem["repetitions"], "warmup": fem["warmup"],
       "small_repetitions": 1, "common_solver_args": fem["common_solver_args"], "cpu_substitutions": cfg.get("cpu_substitutions", [])}
json.dump(out, open(sys.argv[3], "w"), indent=1)
EOF
sargs=(--config "$work/suite.json" --driver "$driver" --out "$work/solvers" --time-limit "$limit")
[ "$small" = 1 ] && sargs+=(--small)
[ -n "$solvers" ] && sargs+=(--solvers "$solvers")
say "bench/solvers.py ${sargs[*]}"
python3 "$top/bench/solvers.py" "${sargs[@]}" > "$logs/solvers.log" 2>&1 || status=1
tail -3 "$logs/solvers.log" | tee -a "$logs/suite.log"
tsolve=$(( SECONDS - start - tgen ))

# --- 3. SpMV: MATMODSELL (defaults) against aijcusparse on each matrix ----------------------------------
spmvtxt=$work/spmv.txt
: > "$spmvtxt"
if [ "$spmv" = 1 ]; then
  formats=aijcusparse,modsell
  [ "$small" = 1 ] && formats=aij,modsell
  for f in "$work"/sys/*.bin; do
    case "$f" in *_nns.bin) continue ;; esac
    name=$(basename "$f" .bin)
    "$spmvexe" -file "$f" -name "$name" -formats "$formats" -budget 1 -csv "$work/spmv.csv" ${SPMV_OPTIONS:-} > "$logs/spmv-$name.log" 2>&1 || status=1
    sed -n '/^-- summary/,$p' "$logs/spmv-$name.log" >> "$spmvtxt"
  done
  say "SpMV done"
fi

# --- results ------------------------------------------------------------------------------------------
{
  echo "Finite-element problem suite (bench/suite.sh): $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$top" rev-parse --short HEAD 2> /dev/null)$(git -C "$top" diff --quiet HEAD 2> /dev/null || echo ' + local changes')"
  echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1 || echo none)"
  echo "python: $versions"
  echo "command: bench/suite.sh $cmdline"
  echo "generation ${tgen} s (all systems at once), solvers ${tsolve} s, total $(( SECONDS - start )) s"
  echo
  cat "$work/solvers/solvers.txt" 2> /dev/null
  echo
  echo "SpMV (bench/spmv, one process; vs_cusp = time of aijcusparse / time of the format):"
  cat "$spmvtxt"
} > "$out/suite.txt"
for f in solvers_summary.csv solvers.csv; do cp "$work/solvers/$f" "$out/" 2> /dev/null; done
cp "$work/spmv.csv" "$out/" 2> /dev/null
"$py" - "$work/sys" "$out/suite-meta.json" "$tgen" "$tsolve" "$(( SECONDS - start ))" << 'EOF'
import glob, json, os, sys
metas = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))]
json.dump({"systems": [{k: m.get(k) for k in ("name", "description", "rows", "nnz", "bs", "spd", "permute", "mesh", "versions",
                                                "time_assembly_s", "time_mesh_s", "checks_ok")} for m in metas],
           "time_generation_s": int(sys.argv[3]), "time_solvers_s": int(sys.argv[4]), "time_total_s": int(sys.argv[5])},
          open(sys.argv[2], "w"), indent=1)
EOF
cp -r "$work/solvers" "$logs/" 2> /dev/null
cp "$work"/sys/*.json "$logs/" 2> /dev/null
tar cJf "$out/suite-logs.tar.xz" -C "$work" logs 2> /dev/null
say "wrote $out (suite.txt, solvers_summary.csv, solvers.csv, spmv.csv, suite-meta.json, suite-logs.tar.xz)"
cat "$out/suite.txt"
exit $status
