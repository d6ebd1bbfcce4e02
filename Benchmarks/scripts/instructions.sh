#!/usr/bin/env bash
# Instructions per unit of work, counted by callgrind (repeatable on a noisy
# host, unlike wall time): each workload runs at two sizes and the difference
# is divided by the extra work, so start-up and set-up cancel out.
#
#   Benchmarks/scripts/instructions.sh [path/to/handoff-bench]
#
# Prints one line per workload:
#   handoff  instructions per trial of `handoff-bench handoff` (MonkeyBrowser, 3 KiB)
#   sweep    instructions per trial of `handoff-bench sweep` (8 sizes x 3 profiles)
#   phold    instructions per event of `handoff-bench phold --lps 1000`
set -euo pipefail
bench=${1:-.build/release/handoff-bench}
command -v valgrind >/dev/null || { echo "error: valgrind is needed" >&2; exit 1; }
[ -x "$bench" ] || { echo "error: $bench not found; build it with: swift build -c release --product handoff-bench" >&2; exit 1; }

total() { # total instructions of one run of the bench with the given arguments
  local out; out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" "$@" >/dev/null 2>&1
  sed -n 's/^summary: //p; s/^totals: //p' "$out" | head -1
  rm -f "$out"
}
per() { # name divisor small-args... -- large-args...
  local name=$1 divisor=$2; shift 2
  local small=() large=()
  while [ "$1" != "--" ]; do small+=("$1"); shift; done; shift
  large=("$@")
  local a b; a=$(total "${small[@]}"); b=$(total "${large[@]}")
  awk -v n="$name" -v a="$a" -v b="$b" -v d="$divisor" 'BEGIN { printf "%-8s %10.0f\n", n, (b - a) / d }'
}
per handoff 2000 handoff --trials 2000 --payload 3072 --seed 7 -- handoff --trials 4000 --payload 3072 --seed 7
per sweep 4800 sweep --trials 200 -- sweep --trials 400
per phold 1000000 phold --lps 1000 --events 1000000 --seed 42 -- phold --lps 1000 --events 2000000 --seed 42
