#!/usr/bin/env python3
"""Peak resident memory of `handoff-sim run` against its trial count.

Runs one scenario with FEW and MANY trials and compares the peak resident
set size (ru_maxrss of the finished child). `run` keeps a tally per piece of
trials (outcome counts, one latency histogram per metric, a fixed-size
fingerprint digest), never a record per trial, so MANY trials must stay
within LIMIT (a fraction) of FEW.

Usage: run-memory.py BINARY SCENARIO FEW MANY [LIMIT] [JOBS]
Exit 0 when within the limit, 1 when not, 2 on a failed run.
"""
import resource
import subprocess
import sys


def peak_kib(binary, scenario, trials, jobs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = subprocess.run(
        [binary, "run", scenario, "--trials", str(trials), "--jobs", str(jobs), "--no-progress", "--quiet"],
        stdout=subprocess.DEVNULL)
    if result.returncode not in (0, 1):
        sys.exit(f"error: run --trials {trials} exited {result.returncode}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest of any child so far: run the
    # smaller count first so each reading is its own.
    return max(before, after)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    binary, scenario, few, many = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    limit = float(sys.argv[5]) if len(sys.argv) > 5 else 0.10
    jobs = int(sys.argv[6]) if len(sys.argv) > 6 else 2
    small = peak_kib(binary, scenario, few, jobs)
    large = peak_kib(binary, scenario, many, jobs)
    growth = large / small - 1
    print(f"peak resident memory: {small} KiB at {few} trials, {large} KiB at {many} trials ({growth:+.1%})")
    if growth > limit:
        print(f"error: memory grew by more than {limit:.0%} with the trial count", file=sys.stderr)
        sys.exit(1)


main()
