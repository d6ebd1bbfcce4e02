#!/usr/bin/env python3
"""Checks --samples files: in every row that continued, the phase columns
(phase_*_ns) add up to accept_to_continue_ns exactly, and none is negative;
in every other row they are empty.

Usage: check-budget.py SAMPLES.csv [SAMPLES.csv ...]
Exits 1 naming the first row that breaks the rule."""
import csv
import sys


def check(path):
    rows = 0
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        phases = [name for name in reader.fieldnames if name.startswith("phase_")]
        if len(phases) < 5:
            sys.exit(f"{path}: {len(phases)} phase columns, expected at least 5")
        for number, row in enumerate(reader, start=2):
            total = row["accept_to_continue_ns"]
            values = [row[name] for name in phases]
            continued = row["outcome"] in ("continued", "continued in browser")
            if not continued:
                if any(values):
                    sys.exit(f"{path}:{number}: phases given for a trial that ended {row['outcome']!r}")
                continue
            if not total or not all(values):
                sys.exit(f"{path}:{number}: a continued trial without its total or its phases")
            parts = [int(value) for value in values]
            if any(part < 0 for part in parts):
                sys.exit(f"{path}:{number}: a negative phase")
            if sum(parts) != int(total):
                sys.exit(f"{path}:{number}: phases add up to {sum(parts)} ns, accept → continue is {total} ns")
            rows += 1
    return rows


total = sum(check(path) for path in sys.argv[1:])
print(f"{total} continued trials in {len(sys.argv) - 1} files: every budget adds up to accept → continue exactly")
