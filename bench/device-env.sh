# bench/device-env.sh: the start that every device script repeated (docs/results/*/script.sh up to session 23), to be
# sourced from the repository root on the GPU machine, with $OUT set (the device tool's output folder):
#
#   source bench/device-env.sh bench/vcycle tests/mat/ex10 || exit 1
#
# - PETSc with CUDA from the carried prebuilt copy (.carry/petsc-cuda.tar.xz, ../shared/petsc-cuda/README), unpacked
#   once into ~/.cache/petsc-modsell; PETSC_DIR, PETSC_ARCH, OpenMPI allowed as root, -use_gpu_aware_mpi 0 (the
#   machines' MPI is not CUDA-aware) added to PETSC_OPTIONS;
# - the plugin built into build-cuda/ (B and BUILD), then the programs named (paths under build-cuda/bin/), the build's
#   output in $OUT/build.log (its tail printed when it fails: the return status is then 1);
# - the provenance line (date, commit, the tree measured: bench/provenance.sh), the GPU, and T0 (SECONDS at the start)
#   for the script's own time limits.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ms_cache=$HOME/.cache/petsc-modsell
export PETSC_DIR=$ms_cache/petsc-$(cat config/petsc-version)-cuda-opt PETSC_ARCH=
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
T0=$SECONDS
[ -d "$PETSC_DIR" ] || { mkdir -p "$ms_cache" && tar xJf .carry/petsc-cuda.tar.xz -C "$ms_cache"; }
B=$PWD/build-cuda
export BUILD=$B
if ! make BUILD="$B" -j32 lib > "$OUT/build.log" 2>&1 || { [ $# -gt 0 ] && ! make BUILD="$B" -j8 $(printf "$B/bin/%s " "$@") >> "$OUT/build.log" 2>&1; }; then
  tail -30 "$OUT/build.log"
  return 1
fi
. bench/provenance.sh
echo "$(date -u +%F) $(ms_provenance "$PWD")"
nvidia-smi -L
echo "ready at $((SECONDS - T0)) s"
