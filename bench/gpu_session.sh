#!/usr/bin/env bash
# The one script a GPU session runs on the lent machine (device tool), in one call that ends in
# about SESSION_S seconds (default 300) so that a rerun still fits the lease. Order, each step's
# limit clamped to what is left of one global deadline:
#   build (unless carried binaries start) -> CUDA tests (a failing one rerun alone) -> W1 and W2
#   beside the peers -> budget kernel variants (kernel-only rate) -> performance switches ->
#   sanitizers on small cases -> SASS check, probe and sweeps.
# usage: bench/gpu_session.sh PEERS_DIR
#   PEERS_DIR: a copy of ../shared/anchors in an ignored folder of the repo (e.g. .peers/), carried.
#   Binaries: $BUILD_DIR/judgestat and $BUILD_DIR/judgestat_tests (BUILD_DIR default build-gpu)
#   when carried and they start there (saves the build's device minutes); otherwise it builds.
#   Prepare here:  cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
#                    -DCMAKE_CUDA_FLAGS=-lineinfo -DJUDGESTAT_MPI=OFF && ninja -C build-gpu
#   Device call: carry .peers, build-gpu/judgestat, build-gpu/judgestat_tests; timeout_s ≈ 360.
# Output: $OUT/session.tar, appended after every step with that step's logs (only a few files
#   come back from $OUT, and a call killed at its limit still returns what is there), and
#   $OUT/session.log. The failure blocks (gtest Failure lines with context, the first lines of
#   each sanitizer report) are printed again at the very end, inside the reply's output tail.
# Without a GPU (nvidia-smi absent, or --version saying the CUDA backend is unavailable) the
#   CUDA steps are skipped and the rest runs on the CPU: a dry run. bench/NOTES.md says what
#   each figure is compared with.
set -uo pipefail
peers=${1:?usage: bench/gpu_session.sh PEERS_DIR}
peers=$(cd "$peers" && pwd) || exit 2
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
cd "$(dirname "$0")/.."
root=$(pwd)
build=${BUILD_DIR:-build-gpu}
start=$(date +%s)
deadline=$((start + ${SESSION_S:-300}))
reserve=15  # seconds kept for the closing summary (and timeout's kill grace)
logs=$(mktemp -d /tmp/gpu_session.XXXXXX)  # step logs; they reach $OUT inside session.tar
archive=$out/session.tar
failures=$logs/failures.txt
: >"$failures"
rm -f "$archive"

log() { echo "== [$(($(date +%s) - start))s] $*" | tee -a "$logs/session.log"; }
# Appends files of $logs to the archive (a file appended twice: the later copy wins on
# extraction) and refreshes $OUT/session.log.
keep() {
  local names=()
  for f in "$@"; do [ -e "$logs/$f" ] && names+=("$f"); done
  [ ${#names[@]} -gt 0 ] && tar -rf "$archive" -C "$logs" "${names[@]}" 2>/dev/null
  cp "$logs/session.log" "$out/session.log" 2>/dev/null
  return 0
}
# step LIMIT CMD...: CMD under `timeout -k 10` for LIMIT seconds or what is left before the
# deadline, whichever is less; skipped (status 124) when too little is left.
step() {
  local want=$1; shift
  local left=$((deadline - reserve - $(date +%s)))
  local limit=$((want < left ? want : left))
  if [ "$limit" -lt 5 ]; then log "skipped, deadline reached: $*"; return 124; fi
  timeout -k 10 "$limit" "$@"
  local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then log "timed out after ${limit}s: $*"; fi
  return $rc
}
# failure_blocks LOG TITLE: gtest failures with their context into the closing block.
failure_blocks() {
  grep -q -E 'Failure$|^\[  FAILED  \]' "$1" 2>/dev/null || return 0
  { echo "--- $2 ($(basename "$1"))"
    grep -E -A6 ': Failure$|^unknown file: Failure' "$1" | grep -v -E '^\[  FAILED  \] [0-9]+ tests?,' | head -60
    grep -E '^\[  FAILED  \] [A-Za-z0-9_]+\.[^ ]+$' "$1" | sort -u | head -20; } >>"$failures"
}
# sanitizer_block LOG TITLE: the first lines of the sanitizer's reports and its summary.
sanitizer_block() {
  local summary
  summary=$(grep -E 'ERROR SUMMARY' "$1" | tail -1)
  log "$2: ${summary:-no summary (timed out or did not start)}"
  if ! echo "$summary" | grep -q 'ERROR SUMMARY: 0 errors'; then
    { echo "--- $2 ($(basename "$1")): ${summary:-no summary}"
      grep -E '^=========' "$1" | grep -v -E 'COMPUTE-SANITIZER|ERROR SUMMARY' | head -16
      grep -E -A5 ': Failure$' "$1" | head -12; } >>"$failures"
  fi
}
# json FILE EXPR: a field of a JSON result, or "-" when there is none.
json() { "${PYTHON:-python3}" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null || echo -; }
# no_result FILE TITLE: when a bench step left no JSON, its stderr's last lines (FILE.err) join
# the closing failure block.
no_result() {
  [ -s "$1" ] && json "$1" 'd["tool"]' >/dev/null && [ "$(json "$1" 'd["tool"]')" != - ] && return 0
  { echo "--- $2: no result"; tail -4 "$1.err" 2>/dev/null; } >>"$failures"
}

log "session: $(date -u +%FT%TZ), deadline ${SESSION_S:-300}s, binaries from $build, logs in $logs"
if command -v nvidia-smi >/dev/null; then
  log "gpu: $(nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | head -2)"
fi

# ---- build ----------------------------------------------------------------------------------
gpu_present() { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }
# build_here DIR: cmake and ninja into DIR, failures (cmake's log tail, compiler errors) noted.
build_here() {
  log "build in $1"
  # -lineinfo: sanitizer reports name source lines; no run-time cost.
  if ! step 240 cmake -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_CUDA_FLAGS=-lineinfo -DJUDGESTAT_MPI=OFF >"$logs/cmake.log" 2>&1; then
    { echo "--- cmake failed"; tail -40 "$logs/cmake.log"
      tail -40 "$1/CMakeFiles/CMakeError.log" "$1/CMakeFiles/CMakeConfigureLog.yaml" 2>/dev/null; } >>"$failures"
    tail -20 "$logs/cmake.log"
  elif ! step 240 ninja -C "$1" >"$logs/build.log" 2>&1; then
    { echo "--- build failed"; grep -E -B2 -A6 'error' "$logs/build.log" | head -60; tail -15 "$logs/build.log"; } >>"$failures"
  fi
  "$1/judgestat" --version >"$logs/version.txt" 2>&1
  log "built: $(tr '\n' ' ' <"$logs/version.txt")"
}
if "$build/judgestat" --version >"$logs/version.txt" 2>&1 &&
   "$build/judgestat_tests" --gtest_list_tests >/dev/null 2>&1; then
  log "carried binaries: $(tr '\n' ' ' <"$logs/version.txt")"
  # Binaries made on another image may start yet see no device (an older driver than their
  # runtime, say): then build with this machine's toolkit rather than skip every CUDA step.
  if gpu_present && ! grep -q 'cuda backend: available' "$logs/version.txt"; then
    log "the carried binaries see no CUDA device on this GPU machine: building here"
    build_here "$build-here"
    if [ -x "$build-here/judgestat" ]; then build=$build-here; else
      "$build/judgestat" --version >"$logs/version.txt" 2>&1  # the carried ones, for the CPU steps
    fi
  fi
else
  log "carried binaries absent or not runnable here"
  build_here "$build"
fi
keep session.log version.txt cmake.log build.log
case $build in /*) built=$build ;; *) built=$root/$build ;; esac
bin=$built/judgestat
tests=$built/judgestat_tests
export JUDGESTAT_TEST_ROOT=$root JUDGESTAT_TEST_BINARY=$bin

gpu=1
if ! gpu_present; then
  gpu=0; log "no GPU: nvidia-smi absent or failing; CUDA steps skipped (dry run)"
elif ! grep -q 'cuda backend: available' "$logs/version.txt"; then
  gpu=0; log "no GPU for judgestat: $(grep 'cuda backend' "$logs/version.txt"); CUDA steps skipped"
  echo "--- judgestat sees no CUDA device: $(grep 'cuda backend' "$logs/version.txt")" >>"$failures"
fi

# ---- CUDA tests -----------------------------------------------------------------------------
cuda_filter='*Cuda*:*CUDA*:*cuda*:MultiDevice*:Devices.*:SplitBackend.*:SplitBudgetEngine.*'
if [ -x "$tests" ]; then
  log "CUDA tests ($cuda_filter)"
  step 150 "$tests" --gtest_filter="$cuda_filter" >"$logs/cuda_tests.log" 2>&1
  rc=$?
  grep -E '^\[==========\] .* ran|^\[  (PASSED|FAILED|SKIPPED)  ?\] [0-9]+ test' "$logs/cuda_tests.log"
  grep -E '^\[  FAILED  \] [A-Za-z0-9_]+\.' "$logs/cuda_tests.log" | sort -u | head -20
  # A crash or a time-out leaves the running test without a result: that one counts as
  # failed, and the tests after it run in a second process without it.
  crashed=$(awk '/^\[ RUN      \]/ {t=$4} /^\[       OK \]|^\[  FAILED  \]|^\[  SKIPPED \]/ {t=""} END {print t}' \
            "$logs/cuda_tests.log")
  if [ $rc -gt 1 ] && [ -n "$crashed" ]; then
    log "the test process ended (status $rc) inside $crashed; the rest without it"
    { echo "--- $crashed: the process ended inside it (status $rc); its last lines:"
      tail -4 "$logs/cuda_tests.log"; } >>"$failures"
    step 120 "$tests" --gtest_filter="$cuda_filter:-$crashed" >"$logs/cuda_tests_rest.log" 2>&1
    failure_blocks "$logs/cuda_tests_rest.log" "CUDA tests after $crashed"
  fi
  failure_blocks "$logs/cuda_tests.log" "CUDA tests"
  # One kernel fault leaves a sticky error that fails every later test of the process: each
  # failed test again, alone, in its own process.
  failed=$( (grep -h -E '^\[  FAILED  \] [A-Za-z0-9_]+\.[A-Za-z0-9_/]+' "$logs"/cuda_tests*.log |
             awk '{print $4}'; echo "$crashed") | grep -v '^$' | sort -u | head -6)
  for t in $failed; do
    step 60 "$tests" --gtest_filter="$t" >"$logs/rerun_$t.log" 2>&1
    if [ $? -eq 0 ]; then verdict="passes alone (an earlier test's fault?)"; else verdict="fails alone"; fi
    log "rerun $t: $verdict"
    failure_blocks "$logs/rerun_$t.log" "$t alone: $verdict"
  done
  keep session.log cuda_tests.log cuda_tests_rest.log $(cd "$logs" && ls rerun_*.log 2>/dev/null)
else
  log "no test binary: CUDA tests skipped"
  echo "--- no test binary at $tests" >>"$failures"
fi

# ---- W1 and W2 beside the peers ---------------------------------------------------------------
# On the GPU machine the plain python3 holds PyTorch and numpy (KINDS.md); elsewhere the system
# one may be the one with numpy.
for candidate in "$(command -v python3)" /usr/bin/python3; do
  if [ -n "$candidate" ] && "$candidate" -c 'import numpy' 2>/dev/null; then export PYTHON=$candidate; break; fi
done
log "python for the peers: ${PYTHON:-none with numpy}"
export JUDGESTAT=$bin B_CPU=20000 D_CPU=20000
if [ -n "${PYTHON:-}" ]; then
  log "W1"; step 90 bash bench/compare_w1.sh "$peers" >"$logs/w1.log" 2>&1; cat "$logs/w1.log"
  log "W2"; step 60 bash bench/compare_w2.sh "$peers" >"$logs/w2.log" 2>&1; cat "$logs/w2.log"
else
  # No numpy: the peers cannot run; our own rows on synthetic input instead.
  log "peers skipped (no python with numpy); W1 and W2 on synthetic input, cpu"
  step 60 "$bin" bench w1 --backend cpu --replicates 20000 --warmup 0 --repeats 1 >"$logs/w1.log" 2>&1
  step 60 "$bin" bench w2 --backend cpu --draws 20000 --warmup 0 --repeats 1 >>"$logs/w2.log" 2>&1
  cat "$logs/w1.log" "$logs/w2.log"
fi
keep session.log w1.log w2.log

if [ $gpu -eq 1 ]; then
  # W1 at a million replicates, summaries on the device (default) and on the host (NOTES.md:
  # host summaries ≈ 70 ms on 16 cores against ≈ 17 ms of resampling).
  for where in device host; do
    setting=1; [ "$where" = host ] && setting=0
    JUDGESTAT_DEVICE_SUMMARIES=$setting step 40 "$bin" bench w1 --backend cuda --replicates 1000000 \
      --format json >"$logs/w1_summaries_$where.json" 2>"$logs/w1_summaries_$where.json.err"
    no_result "$logs/w1_summaries_$where.json" "W1 summaries on the $where"
    log "W1 summaries on the $where: resampling $(json "$logs/w1_summaries_$where.json" '"%.3g" % d["cluster_draws_per_s"]'), with summaries $(json "$logs/w1_summaries_$where.json" '"%.3g" % d["with_summary_cluster_draws_per_s"]') cluster draws/s"
  done
  # ---- budget kernel variants: end to end and kernel only (CUDA events) ----
  # NOTES.md: variant 2 predicted ≈ 1.4x on the kernel at k = 96; decide on the kernel figure.
  for variant in 1 2; do
    JUDGESTAT_BUDGET_KERNEL=$variant step 30 "$bin" bench w2 --backend cuda --draws 10000000 \
      --format json >"$logs/w2_variant$variant.json" 2>"$logs/w2_variant$variant.json.err"
    no_result "$logs/w2_variant$variant.json" "W2 kernel variant $variant"
    log "W2 kernel variant $variant: end to end $(json "$logs/w2_variant$variant.json" '"%.3g" % d["draws_per_s"]'), kernel only $(json "$logs/w2_variant$variant.json" '"%.3g" % d["kernel_draws_per_s"]') draws/s"
  done
  keep session.log w1_summaries_device.json w1_summaries_host.json w2_variant1.json w2_variant2.json

  # ---- performance switches (NOTES.md's table predicts each): off, then on ----
  # switch NAME ARGS...: the W1 bench with NAME=0 and NAME=1, a few seconds each.
  switch() {
    local name=$1; shift
    for setting in 0 1; do
      (export "$name=$setting"; step 25 "$bin" bench w1 --backend cuda "$@" --format json \
        >"$logs/switch_${name}_$setting.json" 2>"$logs/switch_${name}_$setting.json.err")
      no_result "$logs/switch_${name}_$setting.json" "$name=$setting"
      log "$name=$setting $*: $(json "$logs/switch_${name}_$setting.json" '"%.3g" % d["cluster_draws_per_s"]') cluster draws/s, with summaries $(json "$logs/switch_${name}_$setting.json" '"%.3g" % d["with_summary_cluster_draws_per_s"]')"
    done
    keep session.log "switch_${name}_0.json" "switch_${name}_1.json"
  }
  switch JUDGESTAT_TILE_PREFETCH --replicates 1000000
  switch JUDGESTAT_TILE_SHARED_PROGRAM --replicates 1000000
  switch JUDGESTAT_GATHER_ROWS --items 200000 --clusters 100000 --replicates 20000
  switch JUDGESTAT_SUMMARY_REUSE --replicates 1000000

  # ---- sanitizers on small cases (60 s caps) ----
  if command -v compute-sanitizer >/dev/null; then
    small='CudaSession.SmallPlanOnBothPathsMatchesCpu:BudgetDeterminism.CudaMatchesCpuSmall'
    for tool in racecheck synccheck; do
      step 60 compute-sanitizer --tool "$tool" --print-limit 5 "$tests" --gtest_filter="$small" \
        >"$logs/sanitizer_$tool.log" 2>&1
      sanitizer_block "$logs/sanitizer_$tool.log" "$tool (tile, gather and budget kernels)"
    done
    step 60 compute-sanitizer --tool memcheck --print-limit 5 "$tests" \
      --gtest_filter="CudaSession.Small*:BudgetDeterminism.CudaMatchesCpuSmall" >"$logs/sanitizer_memcheck.log" 2>&1
    sanitizer_block "$logs/sanitizer_memcheck.log" "memcheck (both paths, device summaries, budget)"
    keep session.log sanitizer_racecheck.log sanitizer_synccheck.log sanitizer_memcheck.log
  else
    log "compute-sanitizer not found: sanitizers skipped"
  fi

  # ---- SASS, probe, sweeps (what is left of the time) ----
  if command -v cuobjdump >/dev/null; then
    log "tensor-core instructions in the binary (IMMA expected from the tile agent): $(
      cuobjdump --dump-sass "$bin" 2>/dev/null | grep -oE '\b(IMMA|HMMA)[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ')"
  fi
  log "Philox multiplicity probe (the limit W1 is measured against)"
  probe=0
  if step 60 nvcc -O3 -std=c++17 -arch=sm_90 "$peers/philox_limit.cu" -o "$logs/philox_limit" >/dev/null 2>&1; then
    step 30 "$logs/philox_limit" 5000 200000 >"$logs/probe.log" 2>&1; cat "$logs/probe.log"
    probe=$(grep -oE '[0-9.]+e\+?[0-9]+' "$logs/probe.log" | tail -1)
  fi
  log "bench sweeps (how cost grows on the GPU)"
  step 45 "$bin" bench w1 --backend cuda --probe "${probe:-0}" --sweep replicates \
    --values 250000,1000000,4000000 >"$logs/sweep.log" 2>&1
  step 45 "$bin" bench w1 --backend cuda --sweep clusters --values 1000,5000,20000,100000 \
    --replicates 200000 >>"$logs/sweep.log" 2>&1
  for variant in 1 2; do
    JUDGESTAT_BUDGET_KERNEL=$variant step 45 "$bin" bench w2 --backend cuda --sweep k \
      --values 48,96,192,384 --draws 10000000 >>"$logs/sweep.log" 2>&1
  done
  cat "$logs/sweep.log"
  if [ -n "${PYTHON:-}" ]; then
    log "W3"; step 60 bash bench/compare_w3.sh "$peers" >"$logs/w3.log" 2>&1; cat "$logs/w3.log"
  fi
  keep session.log probe.log sweep.log w3.log
else
  log "CUDA steps skipped (no GPU): W1/W2 GPU rows, budget variants, switches, sanitizers, sweeps"
fi

# ---- closing summary: failures last, inside the reply's output tail ----
echo
echo "summary ($(($(date +%s) - start))s of ${SESSION_S:-300}s):"
grep -h "ratio" "$logs"/w1.log "$logs"/w2.log "$logs"/w3.log 2>/dev/null
grep -h -E "^\[  (PASSED|FAILED) " "$logs"/cuda_tests*.log 2>/dev/null | sort -u
grep -h -E "W1 summaries|W2 kernel variant|JUDGESTAT_[A-Z_]+=[01]|racecheck|synccheck|memcheck|rerun " \
  "$logs/session.log" | sed 's/^== \[[0-9]*s\] //' | cut -c1-200
keep session.log failures.txt
if [ -s "$failures" ]; then
  echo
  echo "failures (again, from $(basename "$archive")'s logs):"
  head -c 7000 "$failures"
  echo
fi
echo "archive: $archive ($(tar -tf "$archive" 2>/dev/null | sort -u | wc -l) files)"
