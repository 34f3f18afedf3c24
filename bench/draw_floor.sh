#!/usr/bin/env bash
# The floor under any bootstrap that honours docs/statistics.md §2's random stream on this CPU:
# builds bench/draw_floor.cpp against the CPU backend's own SIMD draw counter and times only the
# draws of N items × B replicates (default: compare_python.py's unclustered case, 20,000 × 10,000).
# A whole `judgestat.metrics` call cannot be faster than this; bench/RESULTS.md compares it
# with scipy.stats.bootstrap's time for the same B.
# usage: bench/draw_floor.sh [N] [B] [THREADS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CXX:-g++}" -O2 -std=c++17 -pthread -I"$root/host" -I"$root/include" "$root/bench/draw_floor.cpp" \
  "$root/host/engine/philox_simd.cpp" -o "$work/draw_floor"
"$work/draw_floor" "${1:-20000}" "${2:-10000}" "${3:-$(nproc)}"
