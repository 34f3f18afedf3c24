#!/usr/bin/env bash
# The one script a GPU session runs on the lent machine (device tool), in one call that ends in
# about SESSION_S seconds (default 300) so that a rerun still fits the lease. Order, each step's
# limit clamped to what is left of one global deadline, correctness before any timing:
#   build (unless carried binaries start) -> CUDA tests (after a crash only the tests not yet run
#   go on, in a new process; a failing one rerun alone) -> compute-sanitizer memcheck, racecheck,
#   synccheck, initcheck on small cases (CudaSanitizer.*: the 5,000-cluster tile, sign-flip and
#   compare kernels; CudaSession.Small*, BudgetDeterminism.CudaMatchesCpuSmall) -> bit-identity
#   at realistic size (bench w1 at B = 10^6 and the bundled study, cuda against cpu, JSON less
#   its timing, bench/same_results.py) -> W1 and W2 beside the peers -> budget kernel variants
#   (kernel-only rate) -> performance switches -> SASS check, probe and sweeps.
# usage: bench/gpu_session.sh PEERS_DIR
#   PEERS_DIR: a copy of ../shared/anchors in an ignored folder of the repo (e.g. .peers/), carried.
#   Absent or incomplete: the peers' steps are skipped with a message (W1 and W2 then run on
#   synthetic input; no Philox probe, no W3).
#   Binaries: $BUILD_DIR/judgestat and $BUILD_DIR/judgestat_tests (BUILD_DIR default build-gpu)
#   when carried and they start there (saves the build's device minutes); otherwise it builds.
#   Prepare here:  cmake -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
#                    -DCMAKE_CUDA_FLAGS=-lineinfo -DJUDGESTAT_MPI=OFF && ninja -C build-gpu
#   Device call: carry .peers, build-gpu/judgestat, build-gpu/judgestat_tests; timeout_s ≈ 360.
# Output: $OUT/session.tar, appended after every step with that step's logs (only a few files
#   come back from $OUT, and a call killed at its limit still returns what is there), and
#   $OUT/session.log. The failure blocks (gtest Failure lines with context, the first lines of
#   each sanitizer report, the first differing JSON values) are printed again at the very end,
#   inside the reply's output tail.
# Without a GPU (nvidia-smi absent, or --version saying the CUDA backend is unavailable) the
#   CUDA steps are skipped, each saying so, and the rest runs on the CPU: a dry run (its
#   bit-identity step compares the CPU on 1 thread with the CPU on all, B = 10^5).
#   bench/NOTES.md says what each figure is compared with.
set -uo pipefail
peers_arg=${1:?usage: bench/gpu_session.sh PEERS_DIR}
peers=$(cd "$peers_arg" 2>/dev/null && pwd) || peers=""
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
cd "$(dirname "$0")/.." || exit 2
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
# A clean summary counts only when the tests under the tool passed rather than skipped.
sanitizer_block() {
  local summary tests_seen
  summary=$(grep -E 'ERROR SUMMARY' "$1" | tail -1)
  tests_seen=$(grep -h -E '^\[  (PASSED|SKIPPED|FAILED)  ?\] [0-9]+ tests?' "$1" | tr -s ' ' | tr '\n' ' ')
  log "$2: ${summary:-no summary (timed out or did not start)}; ${tests_seen:-no gtest summary}"
  if grep -q -E '^\[  SKIPPED \] [0-9]+ tests?' "$1"; then
    echo "--- $2: tests skipped under the tool (a clean summary covers less): $tests_seen" >>"$failures"
  fi
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
# The peers' steps need the anchors' generator and numpy peers; without them they are skipped.
peers_ok=""
if [ -z "$peers" ]; then
  peers_why="no folder $peers_arg: copy ../shared/anchors there"
elif [ ! -f "$peers/gen_workload.py" ] || [ ! -f "$peers/numpy_bootstrap.py" ] || [ ! -f "$peers/numpy_budget.py" ]; then
  peers_why="$peers_arg lacks gen_workload.py, numpy_bootstrap.py or numpy_budget.py: copy ../shared/anchors there"
else
  peers_ok=1; peers_why=""
fi
log "peers: ${peers_ok:+$peers}${peers_why}"
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
# listed_tests FILTER: the binary's full test names (Suite.Test, Prefix/Suite.Test/0) in its order.
listed_tests() {
  timeout -k 5 30 "$tests" --gtest_list_tests --gtest_filter="$1" 2>/dev/null |
    awk '/^[^ ]/ {suite = $1} /^  [^ ]/ {print suite $1}'
}
# finished_tests LOG...: the tests those logs give a result (OK, FAILED or SKIPPED).
finished_tests() {
  grep -h -E '^\[ +(OK|FAILED|SKIPPED) +\] [A-Za-z0-9_/]+\.[A-Za-z0-9_/]+' "$@" 2>/dev/null | awk '{print $4}' | sort -u
}
# unfinished_test LOG: the test the process was inside when it ended ("" when none).
unfinished_test() {
  awk '/^\[ RUN      \]/ {t=$4} /^\[       OK \]|^\[  FAILED  \]|^\[  SKIPPED \]/ {t=""} END {print t}' "$1"
}
if [ -x "$tests" ]; then
  log "CUDA tests ($cuda_filter)"
  step 150 "$tests" --gtest_filter="$cuda_filter" >"$logs/cuda_tests.log" 2>&1
  rc=$?
  grep -E '^\[==========\] .* ran|^\[  (PASSED|FAILED|SKIPPED)  ?\] [0-9]+ test' "$logs/cuda_tests.log"
  grep -E '^\[  FAILED  \] [A-Za-z0-9_]+\.' "$logs/cuda_tests.log" | sort -u | head -20
  # A crash or a time-out leaves the running test without a result: that one counts as failed,
  # and only the tests not yet run go on in a new process (up to 3 times, each crash noted).
  cuda_logs=("$logs/cuda_tests.log")
  crashed_all=()
  crashed=$(unfinished_test "$logs/cuda_tests.log")
  round=0
  while [ $rc -gt 1 ] && [ -n "$crashed" ] && [ $round -lt 3 ]; do
    round=$((round + 1))
    crashed_all+=("$crashed")
    log "the test process ended (status $rc) inside $crashed; the tests not yet run go on"
    { echo "--- $crashed: the process ended inside it (status $rc); its last lines:"
      tail -4 "${cuda_logs[-1]}"; } >>"$failures"
    remaining=$(listed_tests "$cuda_filter" |
                grep -v -x -F -f <( (finished_tests "${cuda_logs[@]}"; printf '%s\n' "${crashed_all[@]}") | grep -v '^$') |
                paste -sd: -)
    if [ -z "$remaining" ]; then log "no test was left after $crashed"; break; fi
    log "rerun of the $(echo "$remaining" | tr ':' '\n' | wc -l) tests not yet run"
    rest=$logs/cuda_tests_rest$round.log
    step 120 "$tests" --gtest_filter="$remaining" >"$rest" 2>&1
    rc=$?
    cuda_logs+=("$rest")
    failure_blocks "$rest" "CUDA tests after $crashed"
    crashed=$(unfinished_test "$rest")
  done
  failure_blocks "$logs/cuda_tests.log" "CUDA tests"
  # One kernel fault leaves a sticky error that fails every later test of the process: each
  # failed test again, alone, in its own process.
  failed=$( (grep -h -E '^\[  FAILED  \] [A-Za-z0-9_]+\.[A-Za-z0-9_/]+' "${cuda_logs[@]}" |
             awk '{print $4}'; printf '%s\n' "${crashed_all[@]}") | grep -v '^$' | sort -u | head -6)
  for t in $failed; do
    step 60 "$tests" --gtest_filter="$t" >"$logs/rerun_$t.log" 2>&1
    if [ $? -eq 0 ]; then verdict="passes alone (an earlier test's fault?)"; else verdict="fails alone"; fi
    log "rerun $t: $verdict"
    failure_blocks "$logs/rerun_$t.log" "$t alone: $verdict"
  done
  keep session.log $(cd "$logs" && ls cuda_tests*.log rerun_*.log 2>/dev/null)
else
  log "no test binary: CUDA tests skipped"
  echo "--- no test binary at $tests" >>"$failures"
fi

# ---- sanitizers on small cases, before any timing ----------------------------------------------
# The sanitizers multiply a kernel's time by 10-100x: small cases only, each still compared with
# the CPU bit for bit. CudaSanitizer.* (tests/kernels/test_sanitizer_cases.cpp): the tile kernel
# at 5,000 clusters, the sign-flip and compare kernels; CudaSession.Small*: both bootstrap paths
# and the device summaries; BudgetDeterminism.CudaMatchesCpuSmall: both budget kernels.
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ $gpu -eq 0 ]; then
  log "sanitizers skipped (no GPU): memcheck, racecheck, synccheck, initcheck"
elif [ ! -x "$tests" ]; then
  log "sanitizers skipped: no test binary"
elif [ ! -x "$sanitizer" ]; then
  log "compute-sanitizer not found (PATH, /usr/local/cuda/bin): sanitizers skipped"
  echo "--- compute-sanitizer not found: memcheck, racecheck, synccheck, initcheck not run" >>"$failures"
else
  kernels_small='CudaSanitizer.*:CudaSession.SmallPlanOnBothPathsMatchesCpu:BudgetDeterminism.CudaMatchesCpuSmall'
  with_summaries='CudaSanitizer.*:CudaSession.Small*:BudgetDeterminism.CudaMatchesCpuSmall'
  for tool in memcheck racecheck synccheck initcheck; do
    case $tool in
      memcheck | initcheck) filter=$with_summaries; what="tile at 5,000 clusters, gather, sign-flip, compare, budget, device summaries" ;;
      *) filter=$kernels_small; what="tile at 5,000 clusters, gather, sign-flip, compare, budget" ;;
    esac
    step 40 "$sanitizer" --tool "$tool" --print-limit 5 "$tests" --gtest_filter="$filter" \
      >"$logs/sanitizer_$tool.log" 2>&1
    sanitizer_block "$logs/sanitizer_$tool.log" "$tool ($what)"
    keep session.log "sanitizer_$tool.log"
  done
fi

# ---- bit-identity at realistic size: cuda against cpu, JSON less its timing ----------------------
# bench w1 at B = 10^6 (synthetic W1: 5,000 clusters, 31 statistics, intervals with --results)
# and the bundled study (every analysis kind). Dry run: the CPU on 1 thread against all threads
# at B = 10^5, so that the comparison itself still runs.
if [ $gpu -eq 1 ]; then
  identity_b=1000000; side_a=(--backend cuda); side_b=(--backend cpu); sides="cuda against cpu"
else
  identity_b=100000; side_a=(--backend cpu --threads 1); side_b=(--backend cpu); sides="cpu on 1 thread against all threads (no GPU)"
fi
# same_json NAME A B: bench/same_results.py's verdict in the log; differences join the failures.
same_json() {
  if [ ! -s "$2" ] || [ ! -s "$3" ]; then
    log "$1: no comparison (a run left no JSON)"
    { echo "--- $1: a run left no JSON"; tail -n 4 "$2.err" "$3.err" 2>/dev/null; } >>"$failures"
    return
  fi
  step 30 python3 bench/same_results.py "$2" "$3" >"$logs/$1.txt" 2>&1
  local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "--- $1 ($sides): not compared, the deadline came first" >>"$failures"
    return
  fi
  log "$1 ($sides): $(tail -1 "$logs/$1.txt" | cut -c1-160)"
  if [ $rc -ne 0 ]; then { echo "--- $1 ($sides)"; head -16 "$logs/$1.txt"; } >>"$failures"; fi
}
if [ -x "$bin" ] && command -v python3 >/dev/null; then
  log "bit-identity: bench w1 at B = $identity_b, $sides"
  for side in a b; do
    if [ $side = a ]; then args=("${side_a[@]}"); else args=("${side_b[@]}"); fi
    step 60 "$bin" bench w1 "${args[@]}" --replicates "$identity_b" --warmup 0 --repeats 1 --results \
      --format json >"$logs/identity_w1_$side.json" 2>"$logs/identity_w1_$side.json.err"
    status=$?; [ $status -ne 0 ] && echo "bench w1 ${args[*]}: exit status $status" >>"$logs/identity_w1_$side.json.err"
  done
  same_json identity_w1 "$logs/identity_w1_a.json" "$logs/identity_w1_b.json"
  log "bit-identity: the bundled study (configs/study_bundled.json), $sides"
  for side in a b; do
    if [ $side = a ]; then args=("${side_a[@]}"); else args=("${side_b[@]}"); fi
    rm -rf "$logs/study_$side"
    step 90 "$bin" run configs/study_bundled.json --out "$logs/study_$side" "${args[@]}" --quiet \
      >"$logs/identity_study_$side.json.err" 2>&1
    status=$?; [ $status -ne 0 ] && echo "run ${args[*]}: exit status $status" >>"$logs/identity_study_$side.json.err"
    cp "$logs/study_$side/results.json" "$logs/identity_study_$side.json" 2>/dev/null
    rm -rf "$logs/study_$side"  # tables, figures and report.html: not needed here
  done
  same_json identity_study "$logs/identity_study_a.json" "$logs/identity_study_b.json"
  keep session.log identity_w1.txt identity_study.txt identity_w1_a.json identity_w1_b.json
else
  log "bit-identity skipped: no judgestat binary or no python3"
  echo "--- bit-identity not checked: no judgestat binary at $bin or no python3" >>"$failures"
fi

# ---- W1 and W2 beside the peers ---------------------------------------------------------------
# On the GPU machine the plain python3 holds PyTorch and numpy (KINDS.md); elsewhere the system
# one may be the one with numpy.
for candidate in "$(command -v python3)" /usr/bin/python3; do
  if [ -n "$candidate" ] && "$candidate" -c 'import numpy' 2>/dev/null; then export PYTHON=$candidate; break; fi
done
log "python for the peers: ${PYTHON:-none with numpy}"
export JUDGESTAT=$bin B_CPU=20000 D_CPU=20000
if [ -z "$peers_ok" ]; then
  # No peers' folder: our own rows on synthetic input instead.
  log "peers skipped ($peers_why); W1 and W2 on synthetic input, cpu"
  step 60 "$bin" bench w1 --backend cpu --replicates 20000 --warmup 0 --repeats 1 >"$logs/w1.log" 2>&1
  step 60 "$bin" bench w2 --backend cpu --draws 20000 --warmup 0 --repeats 1 >>"$logs/w2.log" 2>&1
  cat "$logs/w1.log" "$logs/w2.log"
elif [ -n "${PYTHON:-}" ]; then
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

  # ---- SASS, probe, sweeps (what is left of the time) ----
  if command -v cuobjdump >/dev/null; then
    log "tensor-core instructions in the binary (IMMA expected from the tile agent): $(
      cuobjdump --dump-sass "$bin" 2>/dev/null | grep -oE '\b(IMMA|HMMA)[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ')"
  fi
  log "Philox multiplicity probe (the limit W1 is measured against)"
  probe=0
  if [ -z "$peers_ok" ]; then
    log "Philox probe skipped ($peers_why)"
  elif step 60 nvcc -O3 -std=c++17 -arch=sm_90 "$peers/philox_limit.cu" -o "$logs/philox_limit" >/dev/null 2>&1; then
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
  if [ -n "${PYTHON:-}" ] && [ -n "$peers_ok" ]; then
    log "W3"; step 60 bash bench/compare_w3.sh "$peers" >"$logs/w3.log" 2>&1; cat "$logs/w3.log"
  fi
  keep session.log probe.log sweep.log w3.log
else
  log "CUDA steps skipped (no GPU): W1/W2 GPU rows, budget variants, switches, probe, sweeps, W3"
fi

# ---- closing summary: failures last, inside the reply's output tail ----
echo
echo "summary ($(($(date +%s) - start))s of ${SESSION_S:-300}s):"
grep -h "ratio" "$logs"/w1.log "$logs"/w2.log "$logs"/w3.log 2>/dev/null
grep -h -E "^\[  (PASSED|FAILED) " "$logs"/cuda_tests*.log 2>/dev/null | sort -u
grep -h -E "W1 summaries|W2 kernel variant|JUDGESTAT_[A-Z_]+=[01]|racecheck|synccheck|memcheck|initcheck|identity_|rerun |not yet run" \
  "$logs/session.log" | sed 's/^== \[[0-9]*s\] //' | cut -c1-200
keep session.log failures.txt
if [ -s "$failures" ]; then
  echo
  echo "failures (again, from $(basename "$archive")'s logs):"
  head -c 7000 "$failures"
  echo
fi
echo "archive: $archive ($(tar -tf "$archive" 2>/dev/null | sort -u | wc -l) files)"
