#!/usr/bin/env python3
"""Mutation run of handoff-sim on edited scenario files.

Takes the shipped scenario and sweep files, replaces one to four values in
each copy with boundary values (huge and negative numbers, 1e300, 7-day and
Int64-max durations, 1 GiB and absurd sizes, tiny rates, control
characters...), or (every third copy) adds activity calls at random times to
its timeline, so that calls reach the activity in every state; runs
`validate` and `run --trials 2` on every copy, and `advise --sensitivity` on
every copy of a sweep file (one in six copies, at least). A finding is an
exit by a signal, an exit 70 (the simulator broke one of its own rules),
advise refusing (65) a file validate accepted, a "Fatal error" or a run over
60 s; the file is kept in the output folder.

    Tests/Fuzz/mutate-scenarios.py .build/release/handoff-sim SEED COUNT [OUTDIR]
"""
import glob, json, os, random, re, subprocess, sys

binary, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
outdir = sys.argv[4] if len(sys.argv) > 4 else "mutation-findings"
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
random.seed(seed)
os.makedirs(outdir, exist_ok=True)
files = sorted(glob.glob(root + "/scenarios/*.json")) + sorted(glob.glob(root + "/sweeps/*.json"))
sweep_files = sorted(glob.glob(root + "/sweeps/*.json")) + sorted(glob.glob(root + "/sweeps/guidance/*.json"))
sources = [open(f).read() for f in files]
sweep_sources = [open(f).read() for f in sweep_files]
# Every call an app can make on an activity, and the other timeline actions:
# appended at random times to a copy, they reach every state of the
# activity's machine (created, current, resigned, invalidated), twice over.
ACTIVITY_CALLS = [{"action": "becomeCurrent"}, {"action": "resignCurrent"}, {"action": "invalidate"},
                  {"action": "setNeedsSave", "value": True}, {"action": "setEligibleForHandoff", "value": False},
                  {"action": "setEligibleForHandoff", "value": True},
                  {"action": "addUserInfoEntries", "entries": {"k": 1}}]


def with_timeline_calls(text):
    """The scenario with two to eight activity calls added to its timeline,
    on its activities in any order and state; None if it is not JSON."""
    try:
        document = json.loads(text)
    except ValueError:
        return None
    if not isinstance(document, dict) or not isinstance(document.get("timeline"), list):
        return None
    names = [a.get("name") for a in document.get("activities", []) if isinstance(a, dict)]
    for _ in range(random.randint(2, 8)):
        call = dict(random.choice(ACTIVITY_CALLS))
        call["at"] = f"{random.choice([0, 0, 1, 2, 3, 5, 8, 13])}s"
        if names and names[0] is not None:
            call["activity"] = random.choice(names)
        document["timeline"].append(call)
    document["timeline"].sort(key=lambda entry: float(str(entry.get("at", "0s")).rstrip("s") or 0)
                              if str(entry.get("at", "")).rstrip("s").replace(".", "", 1).isdigit() else 0)
    return json.dumps(document)
values = ['-1', '0', '1', '1e300', '-1e300', '9223372036854775807', '18446744073709551616', '1e-300', '0.5',
          '"0"', '"168h"', '"169h"', '"2562047h47m16s854775807ns"', '"1GiB"', '"4294967295GiB"', '"0.5B"',
          '"1e-10s"', '"99.5 %"', '"10kbit/s"', '"1bit/s"', 'null', '[]', '{}', 'true', '"\\n\\u001b[2J"', '"x"',
          '[1e6,1e6]', '1000000', '100000000', '100000001', '"1ns"', '"7d"']
token = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null')
findings, codes = 0, {}
for iteration in range(count):
    # A third of the copies are timelines with calls in every state (a file
    # validate accepts must never reach a violation, exit 70); the others
    # have values replaced.
    timeline = iteration % 3 == 2
    text = with_timeline_calls(random.choice(sources)) if timeline else None
    # Every sixth copy is of a sweep file, for advise --sensitivity.
    text = text or random.choice(sweep_sources if iteration % 6 == 3 else sources + sweep_sources)
    for _ in range(0 if timeline else random.randint(1, 4)):
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
    commands = [["validate", path], ["run", path, "--trials", "2", "--no-progress", "--jobs", random.choice("12")]]
    if '"sweep"' in text:
        # advise --sensitivity moves every default the file does not set to
        # both ends of its range, against whatever the file sets.
        commands.append(["advise", path, "--p95", random.choice(["500ms", "2s", "20s"]), "--sensitivity",
                         "--trials", "2", "--resolution", "64KiB"])
    valid = None
    for command in commands:
        try:
            result = subprocess.run([binary] + command, capture_output=True, text=True, timeout=60)
            code = result.returncode
            # 70 is the simulator breaking its own rules: never for any
            # input, valid or not.
            crashed = code < 0 or code >= 128 or code == 70 or "Fatal error" in result.stderr
            if command[0] == "validate":
                valid = code == 0
            # A file validate accepts is never refused as invalid by
            # advise --sensitivity (a range end that conflicts with what the
            # file sets is skipped or clamped, and said so).
            crashed = crashed or (command[0] == "advise" and valid and code == 65)
        except subprocess.TimeoutExpired:
            code, crashed = "timeout", True
        codes[(command[0], code)] = codes.get((command[0], code), 0) + 1
        if crashed:
            findings += 1
            open(os.path.join(outdir, f"finding-{seed}-{iteration}-{command[0]}.json"), "w").write(text)
print(f"files {count} runs {sum(codes.values())} findings {findings}", sorted(codes.items(), key=str))
sys.exit(1 if findings else 0)
