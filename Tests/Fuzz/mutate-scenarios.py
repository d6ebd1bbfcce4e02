#!/usr/bin/env python3
"""Mutation run of handoff-sim on edited scenario files.

Takes the shipped scenario and sweep files, replaces one to four values in
each copy with boundary values (huge and negative numbers, 1e300, 7-day and
Int64-max durations, 1 GiB and absurd sizes, tiny rates, control
characters...), and runs `validate` and `run --trials 2` on every copy. Any
exit by a signal, any "Fatal error" and any run over 60 s is a finding; the
file is kept in the output folder.

    Tests/Fuzz/mutate-scenarios.py .build/release/handoff-sim SEED COUNT [OUTDIR]
"""
import glob, os, random, re, subprocess, sys

binary, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
outdir = sys.argv[4] if len(sys.argv) > 4 else "mutation-findings"
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
random.seed(seed)
os.makedirs(outdir, exist_ok=True)
files = sorted(glob.glob(root + "/scenarios/*.json")) + sorted(glob.glob(root + "/sweeps/*.json"))
sources = [open(f).read() for f in files]
values = ['-1', '0', '1', '1e300', '-1e300', '9223372036854775807', '18446744073709551616', '1e-300', '0.5',
          '"0"', '"168h"', '"169h"', '"2562047h47m16s854775807ns"', '"1GiB"', '"4294967295GiB"', '"0.5B"',
          '"1e-10s"', '"99.5 %"', '"10kbit/s"', '"1bit/s"', 'null', '[]', '{}', 'true', '"\\n\\u001b[2J"', '"x"',
          '[1e6,1e6]', '1000000', '100000000', '100000001', '"1ns"', '"7d"']
token = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null')
findings, codes = 0, {}
for iteration in range(count):
    text = random.choice(sources)
    for _ in range(random.randint(1, 4)):
        tokens = list(token.finditer(text))
        if not tokens:
            break
        match = random.choice(tokens)
        # Keys (followed by a colon) are mostly left alone, so edits reach values.
        if text[match.end():match.end() + 2].lstrip().startswith(':') and random.random() < 0.8:
            continue
        text = text[:match.start()] + random.choice(values) + text[match.end():]
    path = os.path.join(outdir, f"current-{seed}.json")
    open(path, "w").write(text)
    for command in (["validate", path], ["run", path, "--trials", "2", "--no-progress", "--jobs", random.choice("12")]):
        try:
            result = subprocess.run([binary] + command, capture_output=True, text=True, timeout=60)
            code = result.returncode
            crashed = code < 0 or code >= 128 or "Fatal error" in result.stderr
        except subprocess.TimeoutExpired:
            code, crashed = "timeout", True
        codes[(command[0], code)] = codes.get((command[0], code), 0) + 1
        if crashed:
            findings += 1
            open(os.path.join(outdir, f"finding-{seed}-{iteration}-{command[0]}.json"), "w").write(text)
print(f"files {count} runs {2 * count} findings {findings}", sorted(codes.items(), key=str))
sys.exit(1 if findings else 0)
