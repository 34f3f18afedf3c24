#!/usr/bin/env bash
# The one script a GPU session runs on the lent machine (device tool): build for the GPU, run the
# CUDA tests, run W1–W3 beside the peers and the Philox limit probe, print a short table.
# usage: bench/gpu_session.sh PEERS_DIR     (copy ../shared/anchors into an ignored folder of the
#        repo, e.g. .peers/, carry it, and pass .peers). Logs go to $OUT when set.
set -uo pipefail
peers=${1:?usage: bench/gpu_session.sh PEERS_DIR}
out=${OUT:-$(mktemp -d)}
cd "$(dirname "$0")/.."
log() { echo "== $*" | tee -a "$out/session.log"; }

log "$(nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader 2>&1)"
log "build"
cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$out/cmake.log" 2>&1 &&
  ninja -C build-gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }

log "CUDA tests"
build-gpu/judgestat_tests --gtest_filter='*Cuda*:*CUDA*:*cuda*:MultiDevice*' 2>&1 | tee "$out/cuda_tests.log" |
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure' | head -40

export JUDGESTAT=build-gpu/judgestat B_CPU=20000 D_CPU=20000
log "W1"; bash bench/compare_w1.sh "$peers" 2>&1 | tee "$out/w1.log"
log "W2"; bash bench/compare_w2.sh "$peers" 2>&1 | tee "$out/w2.log"
log "W3"; bash bench/compare_w3.sh "$peers" 2>&1 | tee "$out/w3.log"

log "Philox multiplicity probe (the limit W1 is measured against)"
if nvcc -O3 -std=c++17 -arch=sm_90 "$peers/philox_limit.cu" -o /tmp/philox_limit >/dev/null 2>&1; then
  /tmp/philox_limit 5000 200000 2>&1 | tee "$out/probe.log"
fi

log "bench sweep (how cost grows on the GPU)"
build-gpu/judgestat bench w1 --backend cuda --sweep replicates --values 250000,1000000,4000000 2>&1 | tee "$out/sweep.log"
build-gpu/judgestat bench w1 --backend cuda --sweep clusters --values 1000,5000,20000,100000 --replicates 200000 2>&1 |
  tee -a "$out/sweep.log"
build-gpu/judgestat bench w2 --backend cuda --sweep k --values 48,96,192,384 --draws 10000000 2>&1 | tee -a "$out/sweep.log"

echo
echo "summary (ratios):"
grep -h "ratio" "$out"/w1.log "$out"/w2.log "$out"/w3.log
grep -h -E "^\[  (PASSED|FAILED) " "$out/cuda_tests.log"
