#!/usr/bin/env bash
# bench/scaling.sh OUTDIR [weak|strong|periter|halo|timeline|all ...]
#
# Weak and strong scaling of MATMODSELL and the plugin's preconditioners against PETSc's mpiaijcusparse, one
# MPI process per GPU, in one command. Steps (default: all = weak strong periter halo timeline):
#   weak      fixed rows per process: PETSc's ex45 (DMDA 7-point Laplacian) at EX45_N^3 per process (grids N x N x N,
#             N x N x 2N, N x 2N x 2N, 2N x 2N x 2N for 1, 2, 4, 8 processes; default N = 256) and the FVM problem
#             (examples/fvm/fvmpoisson, -cell FVM_CELL, FVM_N^3 structured cells per process, grown the same way;
#             default tet, 100: 6 M cells per process)
#   strong    fixed problem: ex45 at EX45_N^3 and fvmpoisson at FVM_STRONG_N^3 (default 120: 10.4 M tetrahedra) on 1,
#             2, 4 processes
#   periter   ex45 at fixed iteration counts (CG + Jacobi, -ksp_rtol 1e-30): ITS_A (100) and ITS_B (1100) iterations
#             with PETSc's CG and, PERITER_KSPS (default "cg cgdevice"), the plugin's device-resident CG on modsell and
#             on the reference type (rows "<mat> -ksp_type cgdevice": their efficiency and speedup against their own
#             one-process time, and the device CG's targets: strong >= 1.8x on 2 GPUs and >= 3.2x on 4, weak >= 95% on 4)
#             (MINE_VARIANTS="opts;opts": further modsell rows with those options, e.g. "-mat_modsell_overlap 0"),
#             the time per iteration (T_B - T_A) / (ITS_B - ITS_A) without the assembly, upload and setup that ex45's
#             KSPSolve contains: bench/ex45periter (ex45's own operator and right-hand side, set up once, a warm-up
#             solve of ITS_W (20) iterations, then A and B in the same process: one run per configuration); weak (EX45_N^3 rows per process) and strong (EX45_N^3 fixed) per process count, each
#             matrix type: the weak efficiency of one iteration (the weak step's time to solution compares problems of
#             different iteration counts) and the strong speedup of one iteration; with PERITER_PART=1 (default) also one process
#             holding one strong-step process's rows (modsell defaults): what the P processes add to an iteration
#   halo      bench/halo.c on 2.. processes at EX45_N^3 rows per process: the MPI product, its diagonal block, the halo
#             exchange, its off-diagonal block alone and in series, for modsell (the default, overlapped with the ghost
#             values through CUDA IPC, -info says which exchange ran; overlapped through PETSc's scatter and through the
#             matrix's pinned buffers, -mat_modsell_ipc_halo 0; -mat_modsell_overlap 0) and the reference type: how
#             much of the halo the product hides (no nsys needed)
#   timeline  nsys profile of 2 processes running EX45_TL_ITS (30) CG + Jacobi iterations on modsell at EX45_TL_N^3
#             (default 128), one report per rank; nsys stats summaries and bench/timeline.py's reading of the trace:
#             does the halo exchange (VecScatterBegin/End, the SF's pack/unpack kernels, the D2H/H2D copies, MPI) overlap
#             the diagonal block's ms_mult_kernel, and are the host buffers of the copies pinned or pageable
# Configurations (each on modsell and on mpiaijcusparse, Jacobi with PETSc's CG also on sellcuda; all in the same run):
#   PCS (default "jacobi:cg jacobi:cgdevice bjsmooth:cg neumann:cg"), each PC:KSP (cgdevice: the plugin's
#   device-resident CG, ex45 -ksp_type cgdevice, next to PETSc's CG); EXTRA_PCS adds more for ex45 only (e.g.
#   "bjsmooth:cgdevice brbilu:bcgs bisai:gmres": the last two's setups are host-heavy at 256^3, hence not by default).
#   FVM runs the CG ones (cg and cgdevice: fvmpoisson's configurations mat:pc:ksp).
# Protocol: per process count and problem size one untimed warm-up solve (Jacobi, 20 iterations, each matrix type), then
#   the configurations in turn, the matrix types of a PC alternated (modsell, reference, [sellcuda]), REPEAT rounds
#   (default 1; the fastest KSPSolve is kept). ex45 times: KSPSolve from -log_view (Max column; PETSc synchronizes at
#   its end), PCSetUp where PETSc prints it (GPU_TIME=1 adds -log_view_gpu_time: PCSetUp timed too, but a
#   synchronization at every event, which also serializes the halo exchange: scaling runs leave it off). FVM times:
#   fvmpoisson's own table (KSPSolve between device synchronizations and barriers, max over processes, after its
#   warm-up round). Derived: weak efficiency T1/TP and strong speedup T1/TP of KSPSolve, the same per iteration, and
#   the ratio reference time / modsell time (> 1: modsell faster).
# GPUs: G = number of GPUs nvidia-smi lists. Process counts NPS (default "1 2 4") above G are skipped (and said so)
#   unless SHARE=1: then all processes share the GPUs round-robin (a correctness / dry run: such times are not
#   scaling figures and no target is evaluated). Each rank sees one GPU: CUDA_VISIBLE_DEVICES = local rank mod G, set
#   by a small wrapper; ALL_GPUS=1: every rank sees every GPU and PETSc picks the node-local rank mod G (the CUDA IPC
#   halo, the default, works either way: 2 x H100, 2026-11-27). MPI is not CUDA-aware (OpenMPI 4.1): -use_gpu_aware_mpi 0
#   (GPU_AWARE=1 drops it).
# No GPU (nvidia-smi absent or listing none): a CPU dry run with host types (MAT_MINE=modsell MAT_REF=aij MAT_SELL=sell
#   VEC=standard), NPS default "1 2", for testing the script with tiny sizes (EX45_N=12 FVM_N=8 FVM_STRONG_N=10).
# Limits: each step stops starting new runs after STEP_BUDGET seconds (default 450) and lists what it skipped; each run
#   is killed after RUN_TIMEOUT seconds (default 240).
# Environment: those of bench/common.sh (PETSC_DIR, BUILD, ...: the plugin, bench/ex45periter, bench/halo,
#   examples/fvm/fvmpoisson and PETSc's ex45 are built by the script), MPIEXEC (mpiexec),
#   MPIEXEC_ARGS, EXTRA (options for every run), FVM_PERMUTE (0: the mesh's structured numbering, as a partitioned
#   mesh would be; 1: random), FVM_CELL.
# Writes into OUTDIR: summary.txt (tables, derived figures, verdicts, what was skipped), results.tsv (one line per
#   run), scaling.png (when python3 has matplotlib), timeline.txt, logs-STEPS.tar.gz (every run's output). Steps run by
#   separate invocations into the same OUTDIR accumulate (results.tsv, summary.txt; FRESH=1 starts over), so that each
#   step fits a time limit of its own: bench/scaling.sh OUT weak; bench/scaling.sh OUT strong; bench/scaling.sh OUT timeline.
set -uo pipefail
dest=${1:?usage: bench/scaling.sh OUTDIR [weak|strong|periter|halo|timeline|all ...]}
shift
steps=${*:-all}
[ "$steps" = all ] && steps="weak strong periter halo timeline"
. "$(dirname "$0")/common.sh"
top=$ms_top
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/scaling.XXXXXX")
runs=$work/runs
mkdir -p "$runs"
sum=$dest/summary.txt
tsv=$dest/results.tsv
# steps run by separate invocations (each within a machine's time limit) accumulate into one results.tsv and one
# summary.txt in OUTDIR (FRESH=1 starts over); the tables are computed from all of results.tsv each time
if [ "${FRESH:-0}" = 1 ] || [ ! -s "$tsv" ]; then
  : > "$sum"
  printf 'problem\tstep\tnp\tgrid\tpc\tksp\tmat\tits\tconverged\tksp_solve_s\tpc_setup_s\tper_it_ms\tlog\n' > "$tsv"
fi
say() { echo "$*" | tee -a "$sum"; }
# bench/common.sh's setup (its header line into summary.txt, its build log into OUTDIR/build.log)
ms_name=scaling ms_out=$dest ms_log=$sum
[ "${GPU_AWARE:-0}" = 1 ] && MS_GPU_AWARE_MPI=1
ms_setup bench/ex45periter bench/halo examples/fvm/fvmpoisson || exit 1
B=$BUILD
lib=$ms_lib
MPIEXEC=${MPIEXEC:-mpiexec}
REPEAT=${REPEAT:-1}
STEP_BUDGET=${STEP_BUDGET:-450}
RUN_TIMEOUT=${RUN_TIMEOUT:-240}
skipped=()
finish() {
  (cd "$work" && tar czf "$dest/logs-${steps// /-}.tar.gz" runs 2>/dev/null)
  rm -rf "$work"
}
trap finish EXIT

# ---- GPUs and types ----------------------------------------------------------------------------------------------
G=0
if command -v nvidia-smi > /dev/null 2>&1; then G=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); fi
SHARE=${SHARE:-0}
if [ "$G" -gt 0 ]; then
  MAT_MINE=${MAT_MINE:-modsell} MAT_REF=${MAT_REF:-aijcusparse} MAT_SELL=${MAT_SELL:-sellcuda} VEC=${VEC:-cuda}
  NPS=${NPS:-1 2 4}
  mode=gpu
  gpuname=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
else
  MAT_MINE=${MAT_MINE:-modsell} MAT_REF=${MAT_REF:-aij} MAT_SELL=${MAT_SELL:-sell} VEC=${VEC:-standard}
  NPS=${NPS:-1 2}
  mode=cpu
  gpuname="none (CPU dry run: host matrix and vector types)"
  MPIEXEC_ARGS="${MPIEXEC_ARGS:-} --oversubscribe"
fi
GPU_AWARE_OPT="-use_gpu_aware_mpi 0"
[ "${GPU_AWARE:-0}" = 1 ] && GPU_AWARE_OPT="-use_gpu_aware_mpi 1"
[ "$mode" = cpu ] && GPU_AWARE_OPT=""
GPU_TIME_OPT=""
[ "${GPU_TIME:-0}" = 1 ] && [ "$mode" = gpu ] && GPU_TIME_OPT="-log_view_gpu_time"
# the process counts run, and which of them are scaling figures (one GPU per process)
npl=()
for np in $NPS; do
  if [ "$mode" = gpu ] && [ "$np" -gt "$G" ] && [ "$SHARE" != 1 ]; then
    skipped+=("every step at $np processes: $G GPU(s) on this machine (SHARE=1 runs them sharing the GPUs, not as scaling figures)")
    continue
  fi
  npl+=("$np")
done
figures=yes
if [ "$mode" = cpu ]; then figures="no (CPU dry run)"; fi
for np in "${npl[@]}"; do [ "$mode" = gpu ] && [ "$np" -gt "$G" ] && figures="no (SHARE=1: $np processes on $G GPU(s))"; done

# the wrapper giving each rank one GPU
bind=$work/bind.sh
cat > "$bind" << EOF
#!/bin/sh
r=\${OMPI_COMM_WORLD_LOCAL_RANK:-\${MPI_LOCALRANKID:-\${SLURM_LOCALID:-0}}}
if [ "$G" -gt 0 ] && [ "\${ALL_GPUS:-${ALL_GPUS:-0}}" != 1 ]; then CUDA_VISIBLE_DEVICES=\$((r % $G)); export CUDA_VISIBLE_DEVICES; fi
exec "\$@"
EOF
chmod +x "$bind"

# ---- programs ----------------------------------------------------------------------------------------------------
EX45=${EX45:-$(ms_petsc_example ksp/ksp/tutorials/ex45)} || exit 1
PERITER=$B/bin/bench/ex45periter
FVM=$B/bin/examples/fvm/fvmpoisson

say "   steps: $steps"
say "device: $gpuname; GPUs: $G; SHARE=$SHARE; process counts run: ${npl[*]:-none}; scaling figures: $figures"
say "types: modsell '$MAT_MINE', reference '$MAT_REF', SELL '$MAT_SELL', vectors '$VEC'; MPI: $($MPIEXEC --version 2>/dev/null | head -1); options: $GPU_AWARE_OPT $GPU_TIME_OPT ${EXTRA:-}"

ev() { awk -v e="$2" '$1 == e {print $4; exit}' "$1"; }
# ex45grid NP N: the grid of NP processes with N^3 rows each (largest axes doubled first: z, then y, then x)
ex45grid() {
  local np=$1 n=$2 x=$2 y=$2 z=$2 k=1 ax=0
  while [ $k -lt "$np" ]; do
    case $ax in 0) z=$((z * 2)) ;; 1) y=$((y * 2)) ;; 2) x=$((x * 2)) ;; esac
    ax=$(((ax + 1) % 3)); k=$((k * 2))
  done
  echo "$x $y $z"
}
t_step=0
budget_ok() { [ $(($(date +%s) - t_step)) -lt "$STEP_BUDGET" ]; }

# run45 STEP NP "X Y Z" PC KSP MAT: one ex45 solve, appended to results.tsv
run45() {
  local step=$1 np=$2 grid=$3 pc=$4 ksp=$5 mat=$6 x y z
  read -r x y z <<< "$grid"
  local tag=ex45-$step-np$np-${x}x${y}x${z}-$pc-$ksp-$mat f
  f=$runs/$tag.log
  if ! budget_ok; then skipped+=("ex45 $step np $np ${x}x${y}x${z} $pc/$mat: step budget of ${STEP_BUDGET} s spent"); return; fi
  # shellcheck disable=SC2086
  timeout -k 10 "$RUN_TIMEOUT" $MPIEXEC ${MPIEXEC_ARGS:-} -n "$np" "$bind" "$EX45" -da_grid_x "$x" -da_grid_y "$y" -da_grid_z "$z" -ksp_type "$ksp" -pc_type "$pc" -ksp_rtol 1e-8 -ksp_max_it 20000 \
    -dm_mat_type "$mat" -dm_vec_type "$VEC" -dll_append "$lib" $GPU_AWARE_OPT -ksp_converged_reason -log_view $GPU_TIME_OPT ${EXTRA:-} > "$f" 2>&1
  local rc=$? its conv so su
  its=$(grep -m1 -oE 'iterations [0-9]+' "$f" | awk '{print $2}')
  conv=no
  grep -q 'Linear solve converged' "$f" && conv=yes
  [ $rc -ne 0 ] && conv="no(rc=$rc)"
  so=$(ev "$f" KSPSolve)
  su=$(ev "$f" PCSetUp)
  printf 'ex45\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$step" "$np" "${x}x${y}x${z}" "$pc" "$ksp" "$mat" "${its:-?}" "$conv" "${so:-?}" "${su:-n/a}" \
    "$(awk -v s="${so:-0}" -v i="${its:-0}" 'BEGIN { if (i > 0 && s > 0) printf "%.3f", 1000 * s / i; else print "?" }')" "$tag.log" >> "$tsv"
  echo "  ex45 $step np $np ${x}x${y}x${z} $ksp+$pc $mat: its ${its:-?} converged $conv KSPSolve ${so:-?} s PCSetUp ${su:-n/a}"
}
warm45() { # NP "X Y Z": a short untimed solve with each matrix type
  local np=$1 grid=$2 x y z mat
  read -r x y z <<< "$grid"
  for mat in "$MAT_MINE" "$MAT_REF"; do
    # shellcheck disable=SC2086
    timeout -k 10 "$RUN_TIMEOUT" $MPIEXEC ${MPIEXEC_ARGS:-} -n "$np" "$bind" "$EX45" -da_grid_x "$x" -da_grid_y "$y" -da_grid_z "$z" -ksp_type cg -pc_type jacobi -ksp_max_it 20 \
      -dm_mat_type "$mat" -dm_vec_type "$VEC" -dll_append "$lib" $GPU_AWARE_OPT > "$runs/ex45-warmup-np$np-$mat.log" 2>&1
  done
}
mats_of() { if [ "$1" = jacobi ] && [ "${2:-cg}" = cg ]; then echo "$MAT_MINE $MAT_REF $MAT_SELL"; else echo "$MAT_MINE $MAT_REF"; fi; }

# runfvm STEP NP "X Y Z": every CG configuration in one fvmpoisson run (its warm-up round, REPEAT timed rounds)
runfvm() {
  local step=$1 np=$2 grid=$3 x y z cfg="" spec pc ksp mat
  read -r x y z <<< "$grid"
  [ -n "$FVM" ] || { skipped+=("FVM $step np $np: fvmpoisson did not build"); return; }
  if ! budget_ok; then skipped+=("FVM $step np $np ${x}x${y}x${z}: step budget of ${STEP_BUDGET} s spent"); return; fi
  for spec in ${PCS:-jacobi:cg jacobi:cgdevice bjsmooth:cg neumann:cg}; do
    pc=${spec%%:*} ksp=${spec##*:}
    [ "$ksp" = cg ] || [ "$ksp" = cgdevice ] || continue
    for mat in $(mats_of "$pc" "$ksp"); do cfg="$cfg${cfg:+,}$mat:$pc:$ksp"; done
  done
  local tag=fvm-$step-np$np-${x}x${y}x${z} f
  f=$runs/$tag.log
  # shellcheck disable=SC2086
  timeout "$((RUN_TIMEOUT * 3))" $MPIEXEC ${MPIEXEC_ARGS:-} -n "$np" "$bind" "$FVM" -nx "$x" -ny "$y" -nz "$z" -cell "${FVM_CELL:-tet}" -permute "${FVM_PERMUTE:-0}" \
    -configs "$cfg" $(case ",$cfg," in *",$MAT_REF:jacobi:cg,"*) echo "-ref $MAT_REF:jacobi:cg" ;; esac) -repeat "$REPEAT" -ksp_max_it 20000 $GPU_AWARE_OPT ${EXTRA:-} > "$f" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && say "  FVM $step np $np: fvmpoisson exited with $rc (see logs.tar.gz: runs/$tag.log)"
  # table lines: "<mat> + <pc> + <ksp>  its  res  result  setup  solve  per-it  total ..."
  awk -v step="$step" -v np="$np" -v grid="${x}x${y}x${z}" -v tag="$tag.log" -v mine="$MAT_MINE" -v ref="$MAT_REF" -v sell="$MAT_SELL" '
    $2 == "+" && $4 == "+" && ($8 == "converged" || $8 == "NOT") {
      o = ($8 == "NOT") ? 1 : 0
      m = $1; t = (m ~ /modsell/) ? mine : (m ~ /sell/) ? sell : ref
      printf "fvm\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%s\n", step, np, grid, $3, $5, t, $6, o ? "no" : "yes", $(10 + o), $(9 + o), $(11 + o), tag
    }' "$f" | tee -a "$tsv" | awk -F'\t' '{printf "  FVM %s np %s %s %s+%s %s: its %s converged %s KSPSolve %s s setup %s s\n", $2, $3, $4, $6, $5, $7, $8, $9, $10, $11}'
}

# ---- steps -------------------------------------------------------------------------------------------------------
step_scaling() { # weak|strong
  local step=$1 np grid spec pc ksp mat rep n=${EX45_N:-256} fvmn
  t_step=$(date +%s)
  say "-- $step scaling: ex45 $( [ "$step" = weak ] && echo "${n}^3 rows per process" || echo "${n}^3 fixed"), FVM ${FVM_CELL:-tet} cells $( [ "$step" = weak ] && echo "from ${FVM_N:-100}^3 structured cells per process" || echo "from ${FVM_STRONG_N:-120}^3 fixed"); processes ${npl[*]}"
  for np in "${npl[@]}"; do
    if [ "$step" = weak ]; then grid=$(ex45grid "$np" "$n"); else grid="$n $n $n"; fi
    warm45 "$np" "$grid"
  done
  # ex45 with the first PC (Jacobi: the scaling targets) and each of its KSPs, then the FVM problem (every CG
  # configuration in one program run per process count), then ex45 with the other PCs: what the step budget cuts is the
  # least important
  local first=1 specs i
  # shellcheck disable=SC2206
  specs=(${PCS:-jacobi:cg jacobi:cgdevice bjsmooth:cg neumann:cg} ${EXTRA_PCS:-})
  for ((i = 0; i < ${#specs[@]}; i++)); do
    spec=${specs[$i]}
    pc=${spec%%:*} ksp=${spec##*:}
    for np in "${npl[@]}"; do
      if [ "$step" = weak ]; then grid=$(ex45grid "$np" "$n"); else grid="$n $n $n"; fi
      for ((rep = 0; rep < REPEAT; rep++)); do
        for mat in $(mats_of "$pc" "$ksp"); do run45 "$step" "$np" "$grid" "$pc" "$ksp" "$mat"; done
      done
    done
    [ "${specs[$((i + 1))]:-}" != "" ] && [ "${specs[$((i + 1))]%%:*}" = "${specs[0]%%:*}" ] && continue # the first PC's next KSP
    if [ $first = 1 ]; then
      first=0
      for np in "${npl[@]}"; do
        if [ "$step" = weak ]; then fvmn=${FVM_N:-100}; grid=$(ex45grid "$np" "$fvmn"); else fvmn=${FVM_STRONG_N:-120}; grid="$fvmn $fvmn $fvmn"; fi
        runfvm "$step" "$np" "$grid"
      done
    fi
  done
  say "   ($step step: $(($(date +%s) - t_step)) s)"
}

step_timeline() {
  local n=${EX45_TL_N:-128} its=${EX45_TL_ITS:-30} tl=$work/timeline
  : > "$dest/timeline.txt"
  if ! command -v nsys > /dev/null 2>&1; then
    skipped+=("timeline: no nsys on this machine"); say "-- timeline: skipped (no nsys)"; return
  fi
  if [ "$mode" = cpu ]; then skipped+=("timeline: no GPU"); say "-- timeline: skipped (no GPU)"; return; fi
  mkdir -p "$tl"
  local share="one GPU each"
  [ "$G" -lt 2 ] && share="both on one GPU (this machine has $G)"
  say "-- timeline: nsys, 2 processes ($share), ex45 ${n}^3, CG + Jacobi, $its iterations, modsell"
  # one report per rank (%q{...}: the rank from OpenMPI's environment)
  # shellcheck disable=SC2086
  timeout -k 10 "$RUN_TIMEOUT" $MPIEXEC ${MPIEXEC_ARGS:-} -n 2 "$bind" nsys profile --trace=cuda,nvtx,mpi,osrt --mpi-impl=openmpi --force-overwrite true \
    -o "$tl/rank%q{OMPI_COMM_WORLD_RANK}" "$EX45" -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_type cg -pc_type jacobi -ksp_max_it "$its" -ksp_norm_type unpreconditioned \
    -dm_mat_type "$MAT_MINE" -dm_vec_type "$VEC" -dll_append "$lib" $GPU_AWARE_OPT -log_nvtx -ksp_converged_reason > "$runs/timeline-run.log" 2>&1 \
    || say "   nsys run exited with $? (runs/timeline-run.log)"
  local r
  for r in 0 1; do
    [ -f "$tl/rank$r.nsys-rep" ] || { say "   no report for rank $r"; continue; }
    nsys export --type sqlite --force-overwrite true -o "$tl/rank$r.sqlite" "$tl/rank$r.nsys-rep" > "$runs/timeline-export$r.log" 2>&1
    for rep in cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum nvtx_sum cuda_api_sum mpi_event_sum; do
      echo "### report $rep" >> "$runs/timeline-stats$r.log"
      nsys stats --force-export false --report "$rep" --format column "$tl/rank$r.sqlite" >> "$runs/timeline-stats$r.log" 2>&1
    done
    {
      echo "=== rank $r: nsys stats (kernels, copies, PETSc's NVTX ranges)"
      sed -n '/^### report cuda_gpu_kern_sum/,/^### report cuda_gpu_mem_size_sum/p' "$runs/timeline-stats$r.log" | grep -v '^$' | head -30
      echo "--- PETSc's NVTX ranges"
      sed -n '/^### report nvtx_sum/,/^### report cuda_api_sum/p' "$runs/timeline-stats$r.log" | grep -E "Time|----|MatMult|VecScatter|SF|KSPSolve|VecTDot|VecNorm|VecAXPY|PCApply" | head -16
      echo "=== rank $r: overlap of the halo exchange with the diagonal block's product (bench/timeline.py)"
      python3 "$top/bench/timeline.py" "$tl/rank$r.sqlite" 2>&1
    } >> "$dest/timeline.txt"
  done
  cat "$dest/timeline.txt" | tee -a "$sum" > /dev/null
  grep -E "^(=== |overlap|  )" "$dest/timeline.txt" | head -60
}

# periter: ex45 at two fixed iteration counts per configuration; the difference is the time of ITS_B - ITS_A iterations
step_periter() {
  local n=${EX45_N:-256} a=${ITS_A:-100} b=${ITS_B:-1100} np grid mat x y z f kind
  local pt=$dest/periter.tsv
  t_step=$(date +%s)
  [ -s "$pt" ] || printf 'kind\tnp\tgrid\tmat\tits_a\tt_a\tits_b\tt_b\tper_it_ms\n' > "$pt"
  say "-- periter: ex45 CG + Jacobi at $a and $b iterations (-ksp_rtol 1e-30), weak ${n}^3 per process and strong ${n}^3; processes ${npl[*]}; KSPs ${PERITER_KSPS:-cg cgdevice}"
  # kinds: weak, strong, and part (PERITER_PART=1, the default): one process with the rows one process of the strong
  # step holds on P processes (the grid divided by P along the axes the weak step grows), the default modsell only: the
  # strong step's loss splits into what one GPU loses at that size and what the P processes add
  local kinds="weak strong" nrun
  [ "${PERITER_PART:-1}" = 1 ] && kinds="weak strong part"
  for kind in $kinds; do
    for np in "${npl[@]}"; do
      nrun=$np
      case $kind in
        weak) grid=$(ex45grid "$np" "$n") ;;
        strong) grid="$n $n $n" ;;
        part) read -r x y z <<< "$(ex45grid "$np" "$n")"; grid="$((n * n / x)) $((n * n / y)) $((n * n / z))" nrun=1 ;;
      esac
      [ "$kind" != weak ] && [ "$np" = 1 ] && continue # the same run as weak at 1 process
      read -r x y z <<< "$grid"
      local variants=() v mo
      for mat in $(mats_of jacobi); do [ "$kind" = part ] && [ "$mat" != "$MAT_MINE" ] && continue; variants+=("$mat"); done
      # the plugin's device-resident CG (PERITER_KSPS) on modsell and on the reference type
      for v in ${PERITER_KSPS:-cg cgdevice}; do
        [ "$v" = cg ] && continue
        for mat in "$MAT_MINE" "$MAT_REF"; do [ "$kind" = part ] && [ "$mat" != "$MAT_MINE" ] && continue; variants+=("$mat -ksp_type $v"); done
      done
      # MINE_VARIANTS: ';'-separated option sets, each a further modsell configuration (e.g. "-mat_modsell_overlap 0")
      if [ -n "${MINE_VARIANTS:-}" ] && [ "$kind" != part ]; then IFS=';' read -r -a mo <<< "$MINE_VARIANTS"; for v in "${mo[@]}"; do [ -n "${v// /}" ] && variants+=("$MAT_MINE $v"); done; fi
      for v in "${variants[@]}"; do
        local mat=${v%% *} vopt="" tag
        [ "$v" != "$mat" ] && vopt=${v#* }
        tag=$(echo "$v" | tr -c 'A-Za-z0-9_.\n' '_')
        if ! budget_ok; then skipped+=("periter $kind np $np $v: step budget of ${STEP_BUDGET} s spent"); continue; fi
        local ta="" tb=""
        f=$runs/periter-$kind-np$np-${x}x${y}x${z}-$tag.log
        # shellcheck disable=SC2086
        timeout -k 10 "$RUN_TIMEOUT" $MPIEXEC ${MPIEXEC_ARGS:-} -n "$nrun" "$bind" "$PERITER" -da_grid_x "$x" -da_grid_y "$y" -da_grid_z "$z" -ksp_type cg -pc_type jacobi -ksp_rtol 1e-30 -periter_its "${ITS_W:-20},$a,$b" \
          -dm_mat_type "$mat" -dm_vec_type "$VEC" -dll_append "$lib" $GPU_AWARE_OPT -log_view ${EXTRA:-} $vopt > "$f" 2>&1
        ta=$(awk -v its="$a" '/^solve 1 \(A\): / && $4 == its { print $(NF - 1) }' "$f")
        tb=$(awk -v its="$b" '/^solve 2 \(B\): / && $4 == its { print $(NF - 1) }' "$f")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$np" "${x}x${y}x${z}" "$v" "$a" "${ta:-?}" "$b" "${tb:-?}" \
          "$(awk -v ta="${ta:-0}" -v tb="${tb:-0}" -v a="$a" -v b="$b" 'BEGIN { if (ta > 0 && tb > 0) printf "%.4f", 1000 * (tb - ta) / (b - a); else print "?" }')" >> "$pt"
      done
    done
  done
  say "   (periter: $(($(date +%s) - t_step)) s)"
  say "== time per CG + Jacobi iteration of ex45 (ms; (T_$b - T_$a) / $((b - a)), KSPSolve Max over processes); eff: per-iteration"
  say "   weak efficiency t(1)/t(P), speedup: strong t(1)/t(P), t(1) the same configuration's on one process; vs default:"
  say "   the same with t(1) the default $MAT_MINE's (what a user runs on one GPU); ref/mine: $MAT_REF / this $MAT_MINE configuration"
  awk -F'\t' -v mine="$MAT_MINE" -v ref="$MAT_REF" '$1 == "part" { next } NR > 1 { k = $1 SUBSEP $2 SUBSEP $4; t[k] = $9; row[NR] = $0; if ($2 == 1) one[$4] = $9 }
    END { printf "%-7s %-3s %-12s %-34s %9s %9s %10s %9s\n", "kind", "np", "grid", "mat", "per-it", "eff/spd", "vs default", "ref/mine"
      for (i = 2; i <= NR; i++) { if (!(i in row)) continue; split(row[i], f, "\t"); e = "-"; r = "-"; d = "-"
        if ((f[4] in one) && one[f[4]] > 0 && f[9] > 0) e = sprintf("%.2f", one[f[4]] / f[9])
        ismine = (f[4] == mine || index(f[4], mine " ") == 1)
        if (ismine && (mine in one) && one[mine] > 0 && f[9] > 0) d = sprintf("%.2f", one[mine] / f[9])
        rk = f[1] SUBSEP f[2] SUBSEP ref
        if (ismine && (rk in t) && t[rk] > 0 && f[9] > 0) r = sprintf("%.2f", t[rk] / f[9])
        printf "%-7s %-3s %-12s %-34s %9s %9s %10s %9s\n", f[1], f[2], f[3], f[4], f[9], e, d, r } }' "$pt" | tee -a "$sum"
  # the strong step against one GPU holding one process's rows (the part rows)
  awk -F'\t' -v mine="$MAT_MINE" 'NR > 1 && $9 > 0 && $4 == mine { t[$1, $2] = $9; g[$1, $2] = $3 }
    END { for (np = 2; np <= 64; np *= 2) if ((("strong", np) in t) && (("part", np) in t) && (("weak", 1) in t)) {
        s = t["strong", np]; p = t["part", np]; o = t["weak", 1]
        printf "  strong on %d GPUs, %s: %.4f ms an iteration; one GPU with one process'"'"'s rows (%s): %.4f ms (%.2fx faster than the whole grid, ideal %d); the %d processes add %.4f ms (%.0f%% of a process'"'"'s own time)\n", np, mine, s, g["part", np], p, o / p, np, np, s - p, 100 * (s - p) / p } }' "$pt" | tee -a "$sum"
  # the targets per iteration, for the default and each MINE_VARIANTS configuration against the default's one GPU; the
  # device CG's configurations (-ksp_type cgdevice) against their own one GPU, with their own targets
  [ "$figures" = yes ] && awk -F'\t' -v mine="$MAT_MINE" 'NR > 1 && $9 > 0 && ($4 == mine || index($4, mine " ") == 1) { t[$1, $2, $4] = $9; cfg[$4] = 1 }
    END { if (!(("weak", 1, mine) in t)) exit
      for (c in cfg) for (np = 2; np <= 4; np = np * 2) {
        dev = index(c, "-ksp_type cgdevice") > 0
        t1 = dev ? t["weak", 1, c] : t["weak", 1, mine]
        if (!(t1 > 0)) continue
        name = (c == mine) ? mine " (defaults)" : c
        we = dev ? 0.95 : 0.9
        if (("weak", np, c) in t) { e = t1 / t["weak", np, c]
          printf "  one iteration, weak efficiency on %d GPUs, %s: %.1f%% (target >= %.0f%%): %s\n", np, name, 100 * e, 100 * we, (e >= we ? "met" : "NOT met") }
        if (("strong", np, c) in t) { sv = t1 / t["strong", np, c]; tg = dev ? ((np == 2) ? 1.8 : 3.2) : ((np == 2) ? 1.85 : 3.4)
          printf "  one iteration, strong speedup on %d GPUs, %s: %.2fx (target >= %.2fx): %s\n", np, name, sv, tg, (sv >= tg ? "met" : "NOT met") } } }' "$pt" | sort | tee -a "$sum"
}

# halo: bench/halo.c's parts of the MPI product, per process count > 1
step_halo() {
  local n=${EX45_N:-256} np o hb=$B/bin/bench/halo
  make -C "$top" BUILD="$B" "$hb" > "$work/halo-build.log" 2>&1 || { say "-- halo: bench/halo did not build"; return; }
  say "-- halo: bench/halo, ${n}^3 rows per process, the MPI product's parts (ms per product)"
  for np in "${npl[@]}"; do
    [ "$np" -gt 1 ] || continue
    # the default (the ghost values through CUDA IPC), the two exchanges through the host, no overlap, the reference
    for o in "$MAT_MINE -info :mat" "$MAT_MINE -mat_modsell_ipc_halo 0" "$MAT_MINE -mat_modsell_ipc_halo 0 -mat_modsell_pinned_halo" "$MAT_MINE -mat_modsell_overlap 0" "$MAT_REF"; do
      # shellcheck disable=SC2086
      ALL_GPUS=${ALL_GPUS:-0} timeout -k 10 "$RUN_TIMEOUT" $MPIEXEC ${MPIEXEC_ARGS:-} -n "$np" "$bind" "$hb" -n "$n" -dm_mat_type $o -dm_vec_type "$VEC" -reps 100 -samples 3 $GPU_AWARE_OPT ${EXTRA:-} > "$runs/halo-np$np-${o// /_}.log" 2>&1
      say "   np $np $o:"
      grep -E "^(times|exposed)" "$runs/halo-np$np-${o// /_}.log" | sed 's/^/     /' | tee -a "$sum"
      grep -m1 -hoE "overlapped product: .*|no CUDA IPC halo exchange.*" "$runs/halo-np$np-${o// /_}.log" | sed 's/^/     (-info) /' | tee -a "$sum"
    done
  done
}

for st in $steps; do
  case $st in
  weak | strong) step_scaling "$st" ;;
  periter) step_periter ;;
  halo) step_halo ;;
  timeline) step_timeline ;;
  *) say "unknown step $st" ;;
  esac
done

# ---- summary -----------------------------------------------------------------------------------------------------
say ""
say "== results (KSPSolve: Max over processes, s; per it: KSPSolve / iterations, ms; eff/speedup: T(1 process) / T(P),"
say "   weak: efficiency, strong: speedup; per-it: the same of the time per iteration; ref/mine: the time of $MAT_REF with"
say "   PETSc's CG and the same PC / this $MAT_MINE configuration's)"
awk -F'\t' -v mine="$MAT_MINE" -v ref="$MAT_REF" '
  NR == 1 { next }
  { k = $1 SUBSEP $2 SUBSEP $5 SUBSEP $6 SUBSEP $7; key[NR] = k; np[NR] = $3; row[NR] = $0
    if ($9 == "yes" && $10 + 0 > 0) {
      kk = k SUBSEP $3
      if (!(kk in best) || $10 + 0 < best[kk]) { best[kk] = $10 + 0; bits[kk] = $8 }
    }
  }
  END {
    printf "%-5s %-6s %-3s %-12s %-9s %-8s %-12s %6s %-4s %9s %9s %8s %7s %7s %8s\n", "prob", "step", "np", "grid", "pc", "ksp", "mat", "its", "conv", "KSPSolve", "PCSetUp", "per-it", "eff/spd", "per-it", "ref/mine"
    for (i = 2; i <= NR; i++) {
      split(row[i], f, "\t")
      b1 = key[i] SUBSEP 1; bp = key[i] SUBSEP f[3]
      e = "-"; ei = "-"; r = "-"
      if ((b1 in best) && (bp in best) && f[9] == "yes") {
        e = sprintf("%.2f", best[b1] / best[bp])
        if (bits[b1] > 0 && bits[bp] > 0) ei = sprintf("%.2f", (best[b1] / bits[b1]) / (best[bp] / bits[bp]))
      }
      if (f[7] == mine) { # against the reference type with the PETSc CG and the same PC
        rk = f[1] SUBSEP f[2] SUBSEP f[5] SUBSEP "cg" SUBSEP ref SUBSEP f[3]; mk = f[1] SUBSEP f[2] SUBSEP f[5] SUBSEP f[6] SUBSEP mine SUBSEP f[3]
        if ((rk in best) && (mk in best)) r = sprintf("%.2f", best[rk] / best[mk])
      }
      printf "%-5s %-6s %-3s %-12s %-9s %-8s %-12s %6s %-4s %9s %9s %8s %7s %7s %8s\n", f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10], f[11], f[12], e, ei, r
    }
  }' "$tsv" | tee -a "$sum"

say ""
say "== iterations against one process (Jacobi: the same preconditioner on any process count, +-2 allowed for summation"
say "   order in the strong step; the weak step changes the problem. Per-process PCs (block Jacobi across processes): the change)"
awk -F'\t' 'NR > 1 && $2 == "strong" { k = $1 " " $5 " " $7 " " $6; its[k, $3] = $8; keys[k] = 1 }
  END { for (k in keys) { line = k ":"; ok = 1; split(k, p, " ")
          for (n = 1; n <= 64; n *= 2) if ((k, n) in its) {
            line = line " np " n " " its[k, n]
            if ((k, 1) in its && n > 1) { d = its[k, n] - its[k, 1]; if (d > 2 || d < -2) ok = 0; if (p[2] != "jacobi") line = line sprintf(" (%+d)", d) }
          }
          if (p[2] == "jacobi") line = line (ok ? "  -> same iterations: yes" : "  -> same iterations: NO")
          else line = line "  (per process: block Jacobi across processes)"
          print "  " line } }' "$tsv" | sort | tee -a "$sum"

say ""
if [ "$figures" = yes ]; then
  say "== the scaling targets (one GPU per process; ex45 CG + Jacobi on $MAT_MINE: PETSc's CG and the device CG)"
  awk -F'\t' -v mine="$MAT_MINE" -v ref="$MAT_REF" 'NR > 1 && $1 == "ex45" && $5 == "jacobi" && $9 == "yes" { t[$2 SUBSEP $3 SUBSEP $7 SUBSEP $6] = $10 }
    END {
      for (q = 0; q < 2; q++) { # the PETSc CG, then the device CG (its own targets)
        k = q ? "cgdevice" : "cg"; we = q ? 0.95 : 0.9
        for (np = 2; np <= 4; np = np * 2) {
          w1 = "weak" SUBSEP 1 SUBSEP mine SUBSEP k; wp = "weak" SUBSEP np SUBSEP mine SUBSEP k; wr = "weak" SUBSEP np SUBSEP ref SUBSEP "cg"
          s1 = "strong" SUBSEP 1 SUBSEP mine SUBSEP k; sp = "strong" SUBSEP np SUBSEP mine SUBSEP k
          if ((w1 in t) && (wp in t)) {
            e = t[w1] / t[wp]
            printf "  %s: weak efficiency on %d GPUs: %.1f%% (target >= %.0f%%): %s\n", k, np, 100 * e, 100 * we, (e >= we ? "met" : "NOT met")
            if (wr in t) printf "  %s: weak, %d GPUs: %s %.3f s vs %s with cg %.3f s: %s\n", k, np, mine, t[wp], ref, t[wr], (t[wp] < t[wr] ? "faster (met)" : "NOT faster")
          } else printf "  %s: weak on %d GPUs: not measured (time to solution: the weak step; per iteration: periter above)\n", k, np
          if ((s1 in t) && (sp in t)) {
            sv = t[s1] / t[sp]; tg = q ? ((np == 2) ? 1.8 : 3.2) : ((np == 2) ? 1.85 : 3.4)
            printf "  %s: strong speedup on %d GPUs: %.2fx (target >= %.2fx): %s\n", k, np, sv, tg, (sv >= tg ? "met" : "NOT met")
          } else printf "  %s: strong on %d GPUs: not measured (time to solution: the strong step; per iteration: periter above)\n", k, np
        }
      } }' "$tsv" | tee -a "$sum"
else
  say "== the scaling targets: not evaluated (scaling figures: $figures)"
fi

# ---- plot --------------------------------------------------------------------------------------------------------
if python3 -c 'import matplotlib' > /dev/null 2>&1; then
  python3 - "$tsv" "$dest/scaling.png" "$gpuname" "$figures" << 'PY' 2>&1 | tee -a "$sum"
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = [r for r in csv.DictReader(open(sys.argv[1]), delimiter="\t") if r["converged"] == "yes"]
best = {}
for r in rows:
    try:
        t = float(r["ksp_solve_s"])
    except ValueError:
        continue
    k = (r["problem"], r["step"], r["pc"] + "+" + r["ksp"], r["mat"], int(r["np"]))
    best[k] = min(best.get(k, t), t)
fig, axes = plt.subplots(2, 2, figsize=(12, 9))
for j, prob in enumerate(["ex45", "fvm"]):
    for i, step in enumerate(["weak", "strong"]):
        ax = axes[i][j]
        series = sorted({k[2:4] for k in best if k[0] == prob and k[1] == step})
        nps = sorted({k[4] for k in best if k[0] == prob and k[1] == step})
        for pc, mat in series:
            xs = [n for n in nps if (prob, step, pc, mat, n) in best and (prob, step, pc, mat, 1) in best]
            ys = [best[(prob, step, pc, mat, 1)] / best[(prob, step, pc, mat, n)] for n in xs]
            if xs:
                ax.plot(xs, ys, marker="o", label=f"{pc} / {mat}")
        if nps:
            ax.plot(nps, [1.0 if step == "weak" else n for n in nps], "k--", lw=0.8, label="ideal")
        ax.set_title(f"{prob}: {step} scaling ({'efficiency' if step == 'weak' else 'speedup'} T1/TP of KSPSolve)")
        ax.set_xlabel("processes (one GPU each)")
        ax.set_xticks(nps or [1])
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
fig.suptitle(f"{sys.argv[3]}; scaling figures: {sys.argv[4]}")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("plot:", sys.argv[2])
PY
else
  say "(no matplotlib for python3 here: no plot; the tables above are the result)"
fi

say ""
if [ ${#skipped[@]} -gt 0 ]; then
  say "== skipped"
  for s in "${skipped[@]}"; do say "  $s"; done
else
  say "== skipped: nothing"
fi
say "files: $dest/summary.txt, results.tsv, $( [ -f "$dest/scaling.png" ] && echo "scaling.png, ")timeline.txt, logs-${steps// /-}.tar.gz"
