#!/usr/bin/env bash
# CI's sanitizer stage (issue #19), run by .ci/run after README's test command. With clang:
#  (a) one ASan+UBSan build (-O1, line tables: reports name file:line) serves both the
#      libFuzzer harnesses of tests/fuzz/ and (b) the test suite. Each fuzzer first runs every
#      saved reproducer under tests/fuzz/regressions/<target>/, then fuzzes for FUZZ_SECONDS from
#      a seed corpus cut from data/, tests/data/, configs/ and tests/fuzz/seeds/, JOBS fuzzers at
#      a time (each fuzzes one core for the whole FUZZ_SECONDS). A finding is written to
#      build-asan/fuzz-findings/<target>/ and fails CI: save it under tests/fuzz/regressions/.
#  (c) a TSan build of the threaded CPU-engine tests (judgestat_thread_tests) and of the CUDA
#      kernels on the CPU runtime (judgestat_cuda_cpu_tests, ctest -L cuda-cpu: every CUDA thread
#      a TSan fiber, so a missing barrier is a reported race); the planted-race test must be
#      reported by TSan.
# Sized for CI's 30 minutes on 2 cores (scripts/ci-sanitizers.sh prints each stage's time);
# FUZZ_SECONDS (default 12), JOBS (2) and STAGES ("fuzz suite tsan") tune it.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-12}
STAGES=${STAGES:-fuzz suite tsan}
TARGETS=(csv jsonl profile_config judgebench llmbar study study_folder)

# clang and its sanitizer runtimes (libFuzzer, ASan, UBSan, TSan), as install-deps.sh does.
need=()
for p in clang libclang-rt-14-dev lld ninja-build; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "ci-sanitizers: missing ${need[*]}; run as root: apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

stage_start=$SECONDS
stage_done() { echo "ci-sanitizers: $1 took $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }
has_stage() { [[ " $STAGES " == *" $1 "* ]]; }
# The Python module stays out: an instrumented extension needs the sanitizer runtime preloaded
# into python3, and pytest already runs in README's test command. Line tables instead of full
# debug information and lld instead of ld.bfd: the same reports (file:line, inlined frames),
# less to compile and link. Ninja: make builds the --target list one target after another
# (a link or a one-source fuzzer then leaves a core idle), Ninja as one graph (bench/NOTES.md
# "CI time"). A build folder left by the Makefile generator is configured afresh.
configure() {  # build dir, extra cmake flags…
  local dir=$1
  shift
  if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$dir/CMakeCache.txt"; then
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  fi
  CC=clang CXX=clang++ cmake -G Ninja -B "$dir" -DJUDGESTAT_CUDA=OFF -DJUDGESTAT_MPI=OFF -DJUDGESTAT_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only" -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld "$@" >/dev/null
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if has_stage fuzz || has_stage suite; then
  configure build-asan -DJUDGESTAT_SANITIZE=address,undefined -DJUDGESTAT_FUZZ=ON
  build_targets=()
  # ctest runs every test the build registered: the CPU-runtime tests too (their fibers carry
  # ASan's stack-switch annotations).
  has_stage suite && build_targets+=(judgestat judgestat_tests judgestat_cuda_cpu_tests)
  has_stage fuzz && for t in "${TARGETS[@]}"; do build_targets+=("fuzz_$t"); done
  cmake --build build-asan -j"$JOBS" --target "${build_targets[@]}"
  stage_done "ASan+UBSan build"
fi

# Seed corpora: small cuts of the bundled files (libFuzzer mutates short inputs best).
seed_corpus() {
  local target=$1 dir=$2
  mkdir -p "$dir"
  cp tests/fuzz/seeds/"$target"/* "$dir"/ 2>/dev/null || true
  case $target in
    csv)
      for f in data/*/*.csv tests/data/*.csv; do head -n 40 "$f" >"$dir/$(basename "$f")"; done ;;
    jsonl) ;;  # tests/fuzz/seeds/jsonl
    profile_config | study)
      for f in configs/*.json; do cp "$f" "$dir/"; done ;;
    judgebench)
      for f in tests/data/raw/judgebench/*.jsonl; do head -n 3 "$f" >"$dir/$(basename "$f" | tr ',=' '__')"; done ;;
    llmbar)
      n=0
      while IFS= read -r f; do
        n=$((n + 1))
        /usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))[:3]))' "$f" >"$dir/result_$n.json"
      done < <(find tests/data/raw/llmbar -name result.json | sort) ;;
  esac
}

# One target: its saved reproducers, then FUZZ_SECONDS of fuzzing from its seed corpus.
fuzz_target() {
  local t=$1 binary=build-asan/fuzz_$1
  local corpus=build-asan/fuzz-corpus/$1 findings=build-asan/fuzz-findings/$1
  local regressions=(tests/fuzz/regressions/"$t"/*)
  if [ -e "${regressions[0]}" ] &&
      ! "$binary" -runs=1 "${regressions[@]}" >/dev/null 2>build-asan/fuzz_$t.regressions.log; then
    cat build-asan/fuzz_$t.regressions.log >&2
    echo "ci-sanitizers: fuzz_$t fails on a saved reproducer" >&2
    return 1
  fi
  rm -rf "$corpus" "$findings"
  seed_corpus "$t" "$corpus"
  mkdir -p "$findings"
  if ! "$binary" -max_total_time="$FUZZ_SECONDS" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$findings/" -print_final_stats=1 "$corpus" >build-asan/fuzz_$t.log 2>&1; then
    tail -n 60 build-asan/fuzz_$t.log >&2
    echo "ci-sanitizers: fuzz_$t found a crash: $(ls "$findings")" >&2
    return 1
  fi
  echo "ci-sanitizers: fuzz_$t $(grep -o 'stat::number_of_executed_units: *[0-9]*' build-asan/fuzz_$t.log | grep -o '[0-9]*$') executions, no finding"
}

if has_stage fuzz; then
  # libFuzzer runs one process on one core: JOBS targets at a time, each for all of FUZZ_SECONDS.
  export -f fuzz_target seed_corpus
  export FUZZ_SECONDS
  printf '%s\n' "${TARGETS[@]}" | xargs -P "$JOBS" -I{} bash -c 'set -euo pipefail; fuzz_target "$1"' _ {} ||
    { echo "ci-sanitizers: fuzzing failed (above)" >&2; exit 1; }
  stage_done "fuzzing (${#TARGETS[@]} targets x ${FUZZ_SECONDS} s)"
fi

if has_stage suite; then
  # The install test links the sanitized library into an uninstrumented consumer: left out here.
  ctest --test-dir build-asan --output-on-failure -j"$JOBS" -E 'Install\.ConsumerFindsPackage'
  stage_done "test suite under ASan+UBSan"
fi

if has_stage tsan; then
  configure build-tsan -DJUDGESTAT_SANITIZE=thread
  cmake --build build-tsan -j"$JOBS" --target judgestat_thread_tests judgestat_cuda_cpu_tests
  stage_done "TSan build"
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  build-tsan/judgestat_thread_tests
  stage_done "threaded CPU-engine tests under TSan"
  build-tsan/judgestat_cuda_cpu_tests --gtest_filter=-*PlantedRace*
  # The barrier the planted-race test removes must show as a data race (TSan ends the run).
  if build-tsan/judgestat_cuda_cpu_tests --gtest_filter=*PlantedRace* >build-tsan/planted_race.log 2>&1 ||
      ! grep -q "WARNING: ThreadSanitizer: data race" build-tsan/planted_race.log; then
    tail -n 40 build-tsan/planted_race.log >&2
    echo "ci-sanitizers: TSan did not report the planted race in the CUDA CPU runtime" >&2
    exit 1
  fi
  echo "ci-sanitizers: TSan reported the planted race ($(grep -m1 -o 'multiplicity_tile_agent.cuh:[0-9]*' build-tsan/planted_race.log || echo 'no line'))"
  stage_done "CUDA kernels on the CPU runtime under TSan"
fi
