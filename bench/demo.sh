#!/usr/bin/env bash
# bench/demo.sh OUTDIR [fvmpoisson options]
#
# The demo's timing (examples/fvm/fvmpoisson, what `make demo` runs) with the provenance of the measurement: FVM
# pressure Poisson on a generated unstructured mesh, CG in several configurations (matrix type and preconditioner),
# each inserting the generated rows into its own matrix, one untimed warm-up round, then timed rounds alternating the
# order; two tables (with and without the application's insertion of the rows) and the speed-ups against
# aijcusparse + Jacobi. Options go to fvmpoisson (`fvmpoisson -help`, examples/fvm/README.md), e.g.
#   bench/demo.sh OUT                                              the demo: 160^3 hexahedra with CUDA (64^3 without)
#   bench/demo.sh OUT -n 120 -cell tet -configs aijcusparse:jacobi,modsell:jacobi,modsell:bjsmooth
#                                                                  10.4 M tetrahedra, randomly numbered
#   bench/demo.sh OUT -n 120 -cell tet -permute 0 -configs ...     the same mesh in the generator's structured order
# Writes OUTDIR/demo.log (the header line, then the program's output). Environment: those of bench/common.sh.
set -uo pipefail
. "$(dirname "$0")/common.sh"
out=${1:?usage: bench/demo.sh OUTDIR [fvmpoisson options]}
shift
ms_init demo "$out" || exit 1
ms_setup examples/fvm/fvmpoisson || exit 1
ms_say "   examples/fvm/fvmpoisson $*"
"$BUILD/bin/examples/fvm/fvmpoisson" "$@" 2>&1 | tee -a "$ms_log"
exit "${PIPESTATUS[0]}"
