#!/usr/bin/env bash
# The one script a GPU session runs on the lent machine (device tool): CUDA tests, a race check,
# the SASS check, W1–W3 beside the peers, the Philox limit probe and sweeps; a short table last.
# usage: bench/gpu_session.sh PEERS_DIR
#   PEERS_DIR: a copy of ../shared/anchors in an ignored folder of the repo (e.g. .peers/), carried.
#   Binaries: when build-gpu/judgestat and build-gpu/judgestat_tests are carried and start there,
#   they are used (saves the build's device minutes); otherwise the script builds for sm_90.
#   Prepare here:  cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
#                    -DCMAKE_CUDA_ARCHITECTURES=90 -DJUDGESTAT_MPI=OFF && ninja -C build-gpu
#   Logs go to $OUT when set. bench/NOTES.md says what each figure is compared with.
set -uo pipefail
peers=${1:?usage: bench/gpu_session.sh PEERS_DIR}
out=${OUT:-$(mktemp -d)}
cd "$(dirname "$0")/.."
root=$(pwd)
log() { echo "== $*" | tee -a "$out/session.log"; }
step() { local limit=$1; shift; timeout "$limit" "$@"; local rc=$?; [ $rc -eq 124 ] && log "timed out after ${limit}s: $*"; return $rc; }

log "$(nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1)"
if build-gpu/judgestat --version >"$out/version.txt" 2>&1 && build-gpu/judgestat_tests --gtest_list_tests >/dev/null 2>&1; then
  log "carried binaries: $(tr '\n' ' ' <"$out/version.txt")"
else
  log "build (carried binaries absent or not runnable here)"
  step 400 cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DJUDGESTAT_MPI=OFF >"$out/cmake.log" 2>&1 &&
    step 400 ninja -C build-gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
export JUDGESTAT_TEST_ROOT=$root JUDGESTAT_TEST_BINARY=$root/build-gpu/judgestat

log "CUDA tests"
cuda_filter='*Cuda*:*CUDA*:*cuda*:MultiDevice*'
step 240 build-gpu/judgestat_tests --gtest_filter="$cuda_filter" >"$out/cuda_tests.log" 2>&1
grep -E '^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|actual' "$out/cuda_tests.log" | head -40

log "race and sync check on small plans (compute-sanitizer), tile, gather and budget kernels"
if command -v compute-sanitizer >/dev/null; then
  for tool in racecheck synccheck; do
    step 120 compute-sanitizer --tool "$tool" --print-limit 5 build-gpu/judgestat_tests \
      --gtest_filter='CudaBackend.StratifiedPlanMatchesCpuBitForBit:CudaBackend.HundredThousandClustersTakeTheGatherPath:BudgetDeterminism.CudaMatchesCpuPerDraw' \
      >"$out/sanitizer_$tool.log" 2>&1
    log "$tool: $(grep -E 'ERROR SUMMARY|hazard' "$out/sanitizer_$tool.log" | tail -1)"
  done
  step 150 compute-sanitizer --tool memcheck --print-limit 5 build-gpu/judgestat_tests \
    --gtest_filter='CudaBackend.DeviceS*' >"$out/sanitizer_memcheck.log" 2>&1
  log "memcheck (device summaries): $(grep -E 'ERROR SUMMARY' "$out/sanitizer_memcheck.log" | tail -1)"
fi
if command -v cuobjdump >/dev/null; then
  log "tensor-core instructions in the binary (IMMA expected from the tile agent)"
  cuobjdump --dump-sass build-gpu/judgestat 2>/dev/null | grep -oE '\b(IMMA|HMMA)[.A-Z0-9]*' | sort | uniq -c | head
fi

# On the GPU machine the plain python3 holds PyTorch and numpy (KINDS.md); elsewhere the system
# one may be the one with numpy.
for candidate in "$(command -v python3)" /usr/bin/python3; do
  if "$candidate" -c 'import numpy' 2>/dev/null; then export PYTHON=$candidate; break; fi
done
log "python for the peers: ${PYTHON:-none with numpy}"
export JUDGESTAT=build-gpu/judgestat B_CPU=20000 D_CPU=20000
log "W1"; step 200 bash bench/compare_w1.sh "$peers" 2>&1 | tee "$out/w1.log"
# Summaries on the device (default) against the host path, W1 at a million replicates
# (NOTES.md: host summaries ≈ 70 ms on 16 cores against ≈ 17 ms of resampling).
for where in device host; do
  setting=1; [ "$where" = host ] && setting=0
  JUDGESTAT_DEVICE_SUMMARIES=$setting step 120 build-gpu/judgestat bench w1 --backend cuda \
    --replicates 1000000 --format json >"$out/w1_summaries_$where.json" 2>>"$out/session.log"
  [ -s "$out/w1_summaries_$where.json" ] || { log "W1 summaries on the $where: no result"; continue; }
  log "W1 summaries on the $where: $("${PYTHON:-python3}" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("resampling %.3g, with summaries %.3g cluster draws/s" % (d["cluster_draws_per_s"], d["with_summary_cluster_draws_per_s"]))' "$out/w1_summaries_$where.json" 2>&1)"
done
log "W2"; step 200 bash bench/compare_w2.sh "$peers" 2>&1 | tee "$out/w2.log"
log "W3"; step 200 bash bench/compare_w3.sh "$peers" 2>&1 | tee "$out/w3.log"

log "Philox multiplicity probe (the limit W1 is measured against)"
probe=0
if step 120 nvcc -O3 -std=c++17 -arch=sm_90 "$peers/philox_limit.cu" -o /tmp/philox_limit >/dev/null 2>&1; then
  step 60 /tmp/philox_limit 5000 200000 2>&1 | tee "$out/probe.log"
  probe=$(grep -oE '[0-9.]+e\+?[0-9]+' "$out/probe.log" | tail -1)
fi

log "bench sweeps (how cost grows on the GPU)"
step 120 build-gpu/judgestat bench w1 --backend cuda --probe "${probe:-0}" --sweep replicates \
  --values 250000,1000000,4000000 2>&1 | tee "$out/sweep.log"
step 120 build-gpu/judgestat bench w1 --backend cuda --sweep clusters --values 1000,5000,20000,100000 \
  --replicates 200000 2>&1 | tee -a "$out/sweep.log"
# The budget kernel's two variants side by side (NOTES.md: variant 2 predicted ~1.5x on k = 96).
for variant in 1 2; do
  log "budget kernel variant $variant"
  JUDGESTAT_BUDGET_KERNEL=$variant step 120 build-gpu/judgestat bench w2 --backend cuda --sweep k \
    --values 48,96,192,384 --draws 10000000 2>&1 | tee -a "$out/sweep.log"
  JUDGESTAT_BUDGET_KERNEL=$variant step 60 build-gpu/judgestat bench w2 --backend cuda --sweep grid \
    --values 9,65,254 --draws 10000000 2>&1 | tee -a "$out/sweep.log"
done

echo
echo "summary (ratios):"
grep -h "ratio" "$out"/w1.log "$out"/w2.log "$out"/w3.log
grep -h -E "^\[  (PASSED|FAILED) " "$out/cuda_tests.log"
