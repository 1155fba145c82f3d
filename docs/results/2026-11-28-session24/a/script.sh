#!/bin/bash
# session 24, call a: issue 13's GAMG figures in one run on one H100: bench/vcycle on the FVM problem (10.4 M
# tetrahedra, structured numbering, 2 setup rounds per type alternated, with the GAMG phases, 2 timed solves), then
# PETSc's ex45 at 256^3 through bench/ex45periter (EX45_ROUNDS rounds, the median of 7 pairs of solves each).
source bench/device-env.sh bench/ex45periter bench/vcycle || exit 1
timeout 170 stdbuf -oL $B/bin/bench/vcycle -problem fvm -n 120 -cell tet -permute 0 -setup_rounds 2 -setup_parts -rounds 2 -samples 3 > $OUT/vcycle.txt 2>&1
echo "== vcycle rc=$? at $((SECONDS-T0)) s"; grep -E "setup|phases|per iteration|first|memory|levels" $OUT/vcycle.txt | head -16
left=$((575-(SECONDS-T0))); echo "ex45it with $left s left"
EX45_ROUNDS=${EX45_ROUNDS:-3} timeout $left bash bench/composition.sh $OUT/ex45 ex45it; echo "== ex45it rc=$? at $((SECONDS-T0)) s"
echo total $((SECONDS-T0))
