#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ and fuzzes each for SECONDS.
#
#   Fuzz/run.sh [SECONDS] [TARGET...]      (default 60 s; every target)
#
# Targets: scenario-decoder, sweep-jsonlines, baseline-file, experiment-decoder,
# measured-csv, overlay-apply. Each starts from
# its committed seeds (Fuzz/Corpus/TARGET and the crash inputs kept in
# Tests/Fixtures/fuzz-regressions/TARGET), copied into a scratch folder so
# nothing committed is modified, with the dictionary Fuzz/TARGET.dict.
#
# Exits 0 when no target found anything; otherwise 1, naming each input
# that crashed, trapped, leaked, ran out of memory or timed out. To make a
# finding small and keep it as a regression test:
#
#   Fuzz/.build/release/TARGET -minimize_crash=1 -runs=100000 \
#       -exact_artifact_path=Tests/Fixtures/fuzz-regressions/TARGET/NAME CRASH-FILE
#
# then fix the reader so the input is a clear error, and add the expected
# message to Tests/HandoffReportTests/FuzzRegressionTests.swift.
#
# Environment: FUZZ_CONFIGURATION is release (the default: optimised, which
# keeps Swift's overflow and bounds traps and runs 3 to 50 times as many
# inputs a second here) or debug (also the debug-only invariant checks).
# FUZZ_SCRATCH (default Fuzz/.build/fuzz-runs) holds the
# working corpora (kept between runs, so a later run goes on where an
# earlier one stopped; delete it to start again), the findings and the logs.
# FUZZ_FLAGS adds libFuzzer flags (e.g. "-runs=1000000" or "-jobs=2").
# FUZZ_JOBS (default 1) fuzzes that many targets side by side, each for
# SECONDS.
#
# Needs the Swift toolchain's libFuzzer (lib/clang/*/lib/linux/
# libclang_rt.fuzzer-*.a): without it the build fails and so does this
# script, loudly; it never skips.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario-decoder sweep-jsonlines baseline-file experiment-decoder measured-csv overlay-apply)
case "$seconds" in
  '' | *[!0-9]*) echo "usage: Fuzz/run.sh [SECONDS] [TARGET...]" >&2; exit 64 ;;
esac
configuration="${FUZZ_CONFIGURATION:-release}"
case "$configuration" in
  debug | release) ;;
  *) echo "error: FUZZ_CONFIGURATION is debug or release, not '$configuration'" >&2; exit 64 ;;
esac
scratch="${FUZZ_SCRATCH:-Fuzz/.build/fuzz-runs}"
mkdir -p "$scratch"
scratch="$(cd "$scratch" && pwd)"

echo "== building the fuzz targets ($configuration, libFuzzer + AddressSanitizer)"
# --sanitize=fuzzer makes SwiftPM link libFuzzer's main in place of the
# executables' own entry point; -Xswiftc -sanitize=fuzzer,address then
# instruments every module (SwiftPM's own --sanitize flags are passed as
# separate -sanitize= options, of which swiftc keeps only the last).
build_log="$scratch/build.log"
if ! swift build --package-path Fuzz -c "$configuration" --sanitize=fuzzer \
    -Xswiftc -sanitize=fuzzer,address >"$build_log" 2>&1; then
  # The gold linker's "Cannot export local symbol" warnings are noise.
  grep -v "Cannot export local symbol" "$build_log" | tail -40 >&2
  echo "error: the fuzz targets did not build (is libFuzzer part of this Swift toolchain? see $build_log)" >&2
  exit 1
fi
bin="$(swift build --package-path Fuzz -c "$configuration" --show-bin-path)"

# Swift's own crash handler reads the crashed process's memory in a way
# AddressSanitizer reports as a stack-buffer-underflow, hiding the real
# trap; without it libFuzzer reports the trap ("deadly signal") with a
# symbolised stack.
export SWIFT_BACKTRACE=enable=no

# Each target's report goes to its own file, printed in order once every
# target is done, so targets fuzzed side by side (FUZZ_JOBS) never mix
# their lines.
fuzz_one() {
  local target=$1 executable="$bin/$1" corpus artifacts log marker status new
  corpus="$scratch/corpus/$target"
  artifacts="$scratch/findings/$target"
  log="$scratch/$target.log"
  mkdir -p "$corpus" "$artifacts"
  # Seeds: the committed corpus and every input that ever crashed.
  for seeds in "Fuzz/Corpus/$target" "Tests/Fixtures/fuzz-regressions/$target"; do
    [ -d "$seeds" ] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
  done
  marker="$scratch/.started-$target"
  touch "$marker"
  echo "== fuzzing $target for ${seconds}s (seeds: $(ls "$corpus" | wc -l) files)"
  status=0
  # shellcheck disable=SC2086
  "$executable" "$corpus" \
    -dict="Fuzz/$target.dict" \
    -max_total_time="$seconds" \
    -rss_limit_mb=2048 \
    -timeout=30 \
    -print_final_stats=1 \
    -artifact_prefix="$artifacts/" \
    ${FUZZ_FLAGS:-} >"$log" 2>&1 || status=$?
  # The figures: executions, speed, coverage, corpus.
  grep -E "^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" "$log" || true
  new=$(find "$artifacts" -type f -newer "$marker")
  if [ "$status" -ne 0 ] || [ -n "$new" ]; then
    grep -E "ERROR: |SUMMARY: |Fatal error|deadly signal|Test unit written to" "$log" | head -20 || true
    echo "error: $target found a problem (exit $status); log: $log"
    for file in $new; do
      echo "error: $target: crash input $file"
    done
    return 1
  fi
}

for target in "${targets[@]}"; do
  if [ ! -x "$bin/$target" ]; then
    echo "error: no fuzz target '$target' (targets: scenario-decoder, sweep-jsonlines, baseline-file, experiment-decoder, measured-csv, overlay-apply)" >&2
    exit 64
  fi
done
jobs="${FUZZ_JOBS:-1}"
case "$jobs" in
  '' | *[!0-9]* | 0) echo "error: FUZZ_JOBS is a whole number from 1, not '$jobs'" >&2; exit 64 ;;
esac
found=0
index=0
while [ "$index" -lt ${#targets[@]} ]; do
  batch=("${targets[@]:index:jobs}")
  pids=()
  for target in "${batch[@]}"; do
    fuzz_one "$target" >"$scratch/$target.report" 2>&1 &
    pids+=($!)
  done
  for position in "${!batch[@]}"; do
    wait "${pids[$position]}" || found=1
    cat "$scratch/${batch[$position]}.report"
  done
  index=$((index + jobs))
done
if [ "$found" -ne 0 ]; then
  exit 1
fi
echo "no crash, trap, leak, timeout or out-of-memory in ${#targets[@]} target(s), ${seconds}s each"
