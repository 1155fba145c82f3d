#!/usr/bin/env bash
# bench/brbilu.sh OUTDIR [ex45 magnetron gmsh]
#
# PCBRBILU against PETSc's GPU solvers, one solve to rtol 1e-8, setup + solve:
#   ex45       PETSc's unmodified ex45 at EX45_N^3 (default 256): PCSetUp + KSPSolve from -log_view (Max time, with
#              -log_view_gpu_time), plus ModSELLUpload for a MATMODSELL operator (its upload happens in ex45's
#              assembly, outside both events; aijcusparse's inside them);
#              a warm-up run first (aijcusparse + CG + Jacobi), then each configuration once, the reference again
#              at the end (its two times show the run-to-run spread)
#   magnetron  the magnetron problem of problems.h at -h_mm MAG_H (default 0.25: 239 x 239 x 119) through
#              src/ksp/pc/impls/brbilu/tests/ex1.c -test bench (a DMDA of the grid attached, one process): each
#              configuration solves once to warm up, then a new KSP is timed (KSPSetUp + KSPSolve); with brbilu it
#              also times 20 applications and 20 VecCopy of the same length (substitution bandwidth as a fraction
#              of copy bandwidth) and reports the PC's device memory per unknown; every configuration: the device
#              memory its PCSetUp() keeps (cudaMemGetInfo() after minus before), cuSPARSE's ILU(0) among them
#   gmsh       (not in the default steps) an unstructured operator: FVM Poisson on gmsh's tetrahedra in gmsh's cell order,
#              the file GMSH_FILE (a PETSc binary of examples/problems/fem/femsystems.py gmsh, e.g. kept by
#              bench/suite.sh --keep), or generated with GMSH_CELLS cells (default 2400000; the Python of
#              BUILD/python.env, else python3, with scikit-fem and gmsh); ex1 -test bench with CG: brbilu's defaults
#              (graph ordering, rows of a block by colours, the automatic factorization) on aijcusparse and on
#              MATMODSELL, brbilu with the rows of a block in the partition's order, CG + Jacobi on aijcusparse. Per
#              configuration: setup, solve, total and iterations of the timed KSP, the setup by parts (-ksp_view),
#              the levels, and the timed stage's -log_view events of the setup (ModSELLPartition, PCBRBILUOrdering,
#              PCBRBILUFactor) and of the applications (PCBRBILUApply)
# Configurations of ex45 and magnetron: brbilu (default: auto, rmilu on these M-matrices) single and double factors with BiCGSTAB, brbilu single with CG (symmetric
# variant: -pc_brbilu_symmetric), brbilu single BiCGSTAB with larger blocks (-pc_brbilu_min_block_rows 4096: ~16^3
# bricks, fewer and wider-levelled blocks for the warp-per-block kernels; a different preconditioner), brbilu single on a MATMODSELL operator (aijmodsell: the plugin's product) with BiCGSTAB and with CG (symmetric
# variant), brbilu single and double with CG on a MATMODSELL operator (the default nonsymmetric factors: ex45's
# operator is not symmetric), CG + Jacobi on aijcusparse and on sellcuda, BiCGSTAB + ILU(0) cusparse,
# CG + GAMG (run once: no warm-up solve, its setup takes 10-23 s).
# Builds what it needs (bench/common.sh: PETSc, the plugin, brbilu/tests/ex1, PETSc's ex45). Writes OUTDIR/brbilu.log
# (the summary) and every program's output into OUTDIR/runs/. Needs a PETSc with CUDA (the configurations name GPU types).
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=${1:?usage: bench/brbilu.sh OUTDIR [ex45 magnetron]}
shift
steps=${*:-ex45 magnetron}
ms_init brbilu "$out" || exit 1
EX1=src/ksp/pc/impls/brbilu/tests/ex1
ms_setup "$EX1" || exit 1
EX1=$BUILD/bin/$EX1
ex45=$(ms_petsc_example ksp/ksp/tutorials/ex45) || exit 1
runs=$ms_out/runs
mkdir -p "$runs"
say() { ms_say "$@"; }
lib=$ms_lib

# name | matrix type | KSP and PC options
configs=(
  "brbilu-single-bcgs|aijcusparse|-ksp_type bcgs -pc_type brbilu -pc_brbilu_factor_precision single"
  "brbilu-double-bcgs|aijcusparse|-ksp_type bcgs -pc_type brbilu -pc_brbilu_factor_precision double"
  "brbilu-single-cg-sym|aijcusparse|-ksp_type cg -pc_type brbilu -pc_brbilu_symmetric -pc_brbilu_factor_precision single"
  "brbilu-single-bcgs-large|aijcusparse|-ksp_type bcgs -pc_type brbilu -pc_brbilu_factor_precision single -pc_brbilu_min_block_rows 4096"
  "brbilu-single-bcgs-modsell|aijmodsell|-ksp_type bcgs -pc_type brbilu -pc_brbilu_factor_precision single"
  "brbilu-single-cg-sym-modsell|aijmodsell|-ksp_type cg -pc_type brbilu -pc_brbilu_symmetric -pc_brbilu_factor_precision single"
  "brbilu-single-cg-modsell|aijmodsell|-ksp_type cg -pc_type brbilu -pc_brbilu_factor_precision single"
  "brbilu-double-cg-modsell|aijmodsell|-ksp_type cg -pc_type brbilu -pc_brbilu_factor_precision double"
  "jacobi-cg-aijcusparse|aijcusparse|-ksp_type cg -pc_type jacobi"
  "jacobi-cg-sellcuda|sellcuda|-ksp_type cg -pc_type jacobi"
  "ilu0-bcgs-cusparse|aijcusparse|-ksp_type bcgs -pc_type ilu -pc_factor_mat_solver_type cusparse"
  "gamg-cg|aijcusparse|-ksp_type cg -pc_type gamg -bench_warmup 0"
)

brbtags=$(for c in "${configs[@]}"; do t=${c%%|*}; case $t in brbilu-*) echo "$t" ;; esac; done)

ratio() { ms_ratio "$@"; }

for step in $steps; do
  case $step in
  ex45)
    n=${EX45_N:-256}
    declare -A tot45=()
    run45() { # TAG MAT [options]
      local tag=$1 t=$2; shift 2
      local f=$runs/ex45-$tag.log
      "$ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_rtol 1e-8 -dm_mat_type $t -dm_vec_type cuda -dll_append "$lib" "$@" -ksp_converged_reason -ksp_view -log_view -log_view_gpu_time > "$f" 2>&1
      local its su so up ap apn mb tot bw
      its=$(grep -m1 -oE 'iterations [0-9]+' "$f" | awk '{print $2}')
      # ex45 sets the preconditioner up outside KSPSolve (and outside the KSPSetUp event): setup = PCSetUp, timed
      # with -log_view_gpu_time (without it PETSc prints n/a for events with GPU work), in every configuration
      su=$(ms_logview "$f" PCSetUp)
      so=$(ms_logview "$f" KSPSolve)
      # a MATMODSELL operator goes to the GPU inside ex45's assembly (ModSELLUpload, outside both events), where
      # aijcusparse's upload falls in PCSetUp or KSPSolve: counted, for a fair total
      up=$(ms_logview "$f" ModSELLUpload)
      tot=$(awk -v a="${su:-0}" -v b="${so:-0}" -v c="${up:-0}" 'BEGIN { printf "%.4f", a + b + c }')
      tot45[$tag]=$tot
      local extra=""
      if grep -q "one application moves" "$f"; then
        mb=$(sed -n -E 's/.*one application moves at least ([0-9.e+]+) MB.*/\1/p' "$f" | head -1)
        apn=$(ms_logview "$f" PCApply 2)
        ap=$(ms_logview "$f" PCApply)
        bw=$(awk -v mb="$mb" -v n="$apn" -v t="$ap" 'BEGIN { if (t > 0) printf "%.1f", mb * n / t / 1e3; else print "n/a" }')
        extra=" | PCApply $apn x, $ap s: >= $bw GB/s; $(grep -m1 -oE 'device memory per unknown: [0-9.]+ bytes' "$f"); $(grep -m1 -oE 'levels \(wavefronts\) of a block: [0-9]+ at most, [0-9.]+ rows per level' "$f")"
      fi
      say "ex45 ${n}^3 $tag: its ${its:-?} PCSetUp ${su:-?}s KSPSolve ${so:-?}s${up:+ ModSELLUpload ${up}s} setup+solve ${tot}s$extra"
    }
    "$ex45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -dm_mat_type aijcusparse -dm_vec_type cuda -dll_append "$lib" > "$runs/ex45-warmup.log" 2>&1
    for c in "${configs[@]}"; do
      IFS='|' read -r tag t opts <<< "$c"
      opts=${opts% -bench_warmup 0} # (ex45 runs every configuration once)
      # shellcheck disable=SC2086
      run45 "$tag" "$t" $opts
    done
    run45 jacobi-cg-aijcusparse-again aijcusparse -ksp_type cg -pc_type jacobi
    ref=${tot45[jacobi-cg-aijcusparse]:-0}
    for tag in $brbtags; do
      say "ex45 ratios $tag: vs jacobi/aijcusparse $(ratio "$ref" "${tot45[$tag]:-0}")x, vs jacobi/sellcuda $(ratio "${tot45[jacobi-cg-sellcuda]:-0}" "${tot45[$tag]:-0}")x, vs ILU(0) cusparse $(ratio "${tot45[ilu0-bcgs-cusparse]:-0}" "${tot45[$tag]:-0}")x, vs GAMG $(ratio "${tot45[gamg-cg]:-0}" "${tot45[$tag]:-0}")x (setup+solve, >1: brbilu faster)"
    done ;;
  magnetron)
    h=${MAG_H:-0.25}
    declare -A totm=()
    for c in "${configs[@]}"; do
      IFS='|' read -r tag t opts <<< "$c"
      f=$runs/magnetron-$tag.log
      # shellcheck disable=SC2086
      "$EX1" -test bench -problem magnetron -h_mm "$h" -attach_dmda -mat_type "$t" $opts -ksp_view > "$f" 2>&1
      line=$(grep -m1 '^bench: iterations' "$f")
      totm[$tag]=$(echo "$line" | sed -n -E 's/.*total ([0-9.e+-]+) s.*/\1/p')
      say "magnetron h=$h $tag: ${line#bench: }"
      grep -E '^bench: (copy|apply|device memory)' "$f" | sed 's/^bench: /    /' | tee -a "$ms_log" > /dev/null
      grep -E '^bench: (copy|apply|device memory)' "$f" | sed 's/^bench: /    /'
    done
    ref=${totm[jacobi-cg-aijcusparse]:-0}
    for tag in $brbtags; do
      say "magnetron ratios $tag: vs jacobi/aijcusparse $(ratio "$ref" "${totm[$tag]:-0}")x, vs jacobi/sellcuda $(ratio "${totm[jacobi-cg-sellcuda]:-0}" "${totm[$tag]:-0}")x, vs ILU(0) cusparse $(ratio "${totm[ilu0-bcgs-cusparse]:-0}" "${totm[$tag]:-0}")x, vs GAMG $(ratio "${totm[gamg-cg]:-0}" "${totm[$tag]:-0}")x (setup+solve, >1: brbilu faster)"
    done ;;
  gmsh)
    gf=${GMSH_FILE:-}
    if [ -z "$gf" ]; then
      py=$(sed -n 's/^PETSCMODSELL_PYTHON=//p' "$BUILD/python.env" 2> /dev/null); [ -x "$py" ] || py=python3
      gf=$runs/gmsh.bin
      say "gmsh: generating ${GMSH_CELLS:-2400000} cells with $py"
      "$py" "$ms_top/examples/problems/fem/femsystems.py" gmsh --cells "${GMSH_CELLS:-2400000}" --prefix "$runs/gmsh" --quiet > "$runs/gmsh-generate.log" 2>&1 || { say "gmsh: generation FAILED ($runs/gmsh-generate.log)"; continue; }
    fi
    say "gmsh: $gf"
    # the timed stage's event of -log_view (field 4: max time)
    timed() { awk -v ev="$2" '/Event Stage [0-9]+: Timed/ { s = 1 } s && $1 == ev { print $4; exit }' "$1"; }
    declare -A totg=()
    gconfigs=(
      "brbilu-cg|aijcusparse|-ksp_type cg -pc_type brbilu"
      "brbilu-cg-modsell|aijmodsell|-ksp_type cg -pc_type brbilu"
      "brbilu-cg-partition-order|aijcusparse|-ksp_type cg -pc_type brbilu -pc_brbilu_inner_ordering partition"
      "jacobi-cg-aijcusparse|aijcusparse|-ksp_type cg -pc_type jacobi"
    )
    for c in "${gconfigs[@]}"; do
      IFS='|' read -r tag t opts <<< "$c"
      f=$runs/gmsh-$tag.log
      # shellcheck disable=SC2086
      "$EX1" -test bench -problem file -file "$gf" -mat_type "$t" $opts -ksp_view -log_view -log_view_gpu_time > "$f" 2>&1
      line=$(grep -m1 '^bench: iterations' "$f")
      totg[$tag]=$(echo "$line" | sed -n -E 's/.*total ([0-9.e+-]+) s.*/\1/p')
      say "gmsh $tag: ${line#bench: }"
      if grep -q 'setup time' "$f"; then
        say "    $(grep 'setup time' "$f" | tail -1 | sed 's/^ *//')"
        say "    $(grep -oE 'factorization: .*' "$f" | tail -1); $(grep -oE 'levels \(wavefronts\) of a block: [0-9]+ at most, [0-9.]+ rows per level' "$f" | tail -1)"
        say "    timed stage: ModSELLPartition $(timed "$f" ModSELLPartition) s, PCBRBILUOrdering $(timed "$f" PCBRBILUOrdering) s, PCBRBILUFactor $(timed "$f" PCBRBILUFactor) s, PCBRBILUApply $(timed "$f" PCBRBILUApply) s"
      fi
    done
    for tag in brbilu-cg brbilu-cg-modsell brbilu-cg-partition-order; do
      say "gmsh ratios $tag: vs jacobi/aijcusparse $(ratio "${totg[jacobi-cg-aijcusparse]:-0}" "${totg[$tag]:-0}")x (setup+solve, >1: brbilu faster)"
    done ;;
  *) say "unknown step $step" ;;
  esac
done
