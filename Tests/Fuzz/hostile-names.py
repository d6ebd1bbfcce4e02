#!/usr/bin/env python3
"""Hostile names in every input file: nothing a file names reaches a message raw.

Takes the shipped scenario, sweep and calibration files and a fit, and in
each copy puts a hostile prefix (a newline that would start a forged GitHub
workflow command, U+2028, NEL, NUL, ESC) in front of one string value — at
one place (a name that now refers to nothing: an error message) or at every
place it occurs (a name the file still agrees on: reports), and in half the
copies in the file's name too — then runs the
commands that read such a file and print its names: validate, run (text,
Markdown, GitHub annotations, JUnit, JSON), replay, list, sweep, advise,
merge, baseline update/check, calibrate (on the experiments), defaults,
and run, sweep, advise and defaults with a hostile fit as their overlay.

A finding is a raw control character (other than a line feed or a tab
the tool writes itself) or a U+2028/U+2029 in a text output, a line of any
output that starts with the forged command, an exit by a signal, or a
"Fatal error".

    Tests/Fuzz/hostile-names.py .build/release/handoff-sim SEED COUNT [OUTDIR]
"""
import glob, json, os, random, re, subprocess, sys, tempfile

binary, seed, count = os.path.abspath(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
outdir = sys.argv[4] if len(sys.argv) > 4 else "hostile-findings"
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
random.seed(seed)
os.makedirs(outdir, exist_ok=True)
EVIL = "E\n::error file=x::forged\u2028\u0085\u0000\u001b[2J"
FORGED = re.compile(r"^\s*::error file=x::forged", re.M)
# C0 controls other than tab and line feed, DEL, C1, and the line and
# paragraph separators.
RAW = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]")

scenarios = sorted(glob.glob(root + "/scenarios/*.json")) + sorted(glob.glob(root + "/scenarios/paths/*.json"))
sweeps = sorted(glob.glob(root + "/sweeps/*.json")) + sorted(glob.glob(root + "/sweeps/guidance/*.json"))
experiments = sorted(glob.glob(root + "/calibration/*.json"))
overlays = sorted(glob.glob(root + "/calibration/fits/*.json"))


def strings(value, path=()):
    """Every string value (not key) in a JSON document, with its path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, path + (index,))
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "$schema":
                yield from strings(item, path + (key,))


def replace_all(value, old, new):
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [replace_all(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: replace_all(item, old, new) for key, item in value.items()}
    return value


def set_at(value, path, new):
    if not path:
        return new
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[path[0]] = set_at(value[path[0]], path[1:], new)
    return copy


def hostile_copy(path):
    document = json.load(open(path))
    candidates = list(strings(document))
    if not candidates:
        return None
    where, old = random.choice(candidates)
    if random.random() < 0.5:
        return replace_all(document, old, EVIL + old), old
    return set_at(document, where, EVIL + old), old


def check(command, result, text_output):
    problems = []
    if isinstance(result, str):
        return [result]
    if result.returncode < 0 or result.returncode >= 128:
        problems.append(f"signal (exit {result.returncode})")
    if "Fatal error" in result.stderr:
        problems.append("Fatal error")
    for name, stream, is_text in (("stdout", result.stdout, text_output), ("stderr", result.stderr, True)):
        if FORGED.search(stream):
            problems.append(f"forged workflow command on {name}")
        if is_text:
            raw = RAW.search(stream)
            if raw:
                start = max(0, raw.start() - 40)
                problems.append(f"raw U+{ord(raw.group()):04X} on {name}: {stream[start:raw.start() + 10]!r}")
    return problems


def check_text(text):
    problems = []
    if FORGED.search(text):
        problems.append("forged workflow command")
    raw = RAW.search(text)
    if raw:
        problems.append(f"raw U+{ord(raw.group()):04X}: {text[max(0, raw.start() - 40):raw.start() + 10]!r}")
    return problems


def run(arguments, cwd):
    # As on a GitHub runner: annotations on standard output, a step summary.
    environment = dict(os.environ, GITHUB_ACTIONS="true", GITHUB_STEP_SUMMARY=os.path.join(cwd, "summary.md"))
    try:
        return subprocess.run([binary] + arguments, capture_output=True, text=True, timeout=120, cwd=cwd,
                              errors="replace", env=environment)
    except subprocess.TimeoutExpired:
        return "timeout"


findings, runs, codes = 0, 0, {}
with tempfile.TemporaryDirectory() as work:
    for iteration in range(count):
        kind = random.choice(["scenario", "scenario", "sweep", "experiment", "overlay"])
        source = random.choice(
            {"scenario": scenarios, "sweep": sweeps, "experiment": experiments, "overlay": overlays}[kind])
        made = hostile_copy(source)
        if made is None:
            continue
        document, old = made
        # Half the copies also carry the hostile text in their file name
        # (no NUL there: a path cannot hold one).
        hostile_file = EVIL.replace("\u0000", "") if random.random() < 0.5 else ""
        name = os.path.join(work, hostile_file + os.path.basename(source))
        if kind == "experiment":
            # Keep the experiment's relative paths (its scenario, its CSVs) working.
            name = os.path.join(os.path.dirname(source), f".hostile-{seed}-{hostile_file}{os.path.basename(source)}")
        with open(name, "w") as file:
            json.dump(document, file, ensure_ascii=True)
        out = lambda file: os.path.join(work, file)
        # (arguments, whether standard output is text, text files it writes)
        commands = []
        if kind == "scenario":
            commands = [
                (["validate", name], True, []),
                (["list", name], True, []),
                (["run", name, "--trials", "3", "--no-progress", "--markdown", out("r.md"), "--samples", out("r.csv"),
                  "--junit", out("r.xml")], True, ["r.md", "r.csv", "summary.md"]),
                (["run", name, "--trials", "3", "--no-progress", "--budget", "--trials-with", "continued"], True, []),
                (["replay", name, "--seed", "1", "--trial", "0", "--packets"], True, []),
                (["defaults", "--scenario", name], True, []),
                (["baseline", "update", name, "--output", out("b.json")], True, ["summary.md"]),
                (["baseline", "check", out("b.json"), name], True, ["summary.md"]),
            ]
        elif kind == "sweep":
            commands = [
                (["validate", name], True, []),
                (["sweep", name, "--trials", "5", "--no-progress"], True, []),
                (["sweep", name, "--trials", "5", "--no-progress", "--format", "markdown"], True, []),
                (["sweep", name, "--trials", "5", "--no-progress", "--format", "csv"], True, []),
                (["sweep", name, "--trials", "5", "--no-progress", "--format", "jsonl", "--output", out("part.jsonl")],
                 True, []),
                (["merge", out("part.jsonl")], True, []),
                (["advise", name, "--p95", "2s", "--trials", "5"], True, []),
                # A hostile value on the command line, named back in the message.
                (["sweep", name, "--trials", "5", "--no-progress", "--on", EVIL.replace("\u0000", "")], True, []),
                (["advise", name, "--p95", "2s", "--activity", EVIL.replace("\u0000", "")], True, []),
            ]
        elif kind == "overlay":
            scenario = os.path.join(root, "scenarios", "payload-3kib.json")
            sweep = os.path.join(root, "sweeps", "guidance", "peer-to-peer.json")
            commands = [
                (["run", scenario, "--trials", "3", "--no-progress", "--overlay", name], True, []),
                (["sweep", sweep, "--trials", "3", "--no-progress", "--overlay", name, "--payload", "3KiB"], True, []),
                (["advise", sweep, "--p95", "2s", "--trials", "3", "--overlay", name, "--no-intervals"], True, []),
                (["defaults", "--scenario", scenario, "--overlay", name], True, []),
            ]
        else:
            commands = [
                (["validate", name], True, []),
                (["calibrate", name, "--check", "--trials", "5", "--no-progress"], True, []),
            ]
        for arguments, text_output, files in commands:
            runs += 1
            for file in files:
                if os.path.exists(out(file)):
                    os.remove(out(file))
            result = run(arguments, work)
            problems = check(arguments, result, text_output)
            code = result if isinstance(result, str) else result.returncode
            codes[(arguments[0], code)] = codes.get((arguments[0], code), 0) + 1
            for file in files:
                if os.path.exists(out(file)):
                    text = open(out(file), encoding="utf-8", errors="replace").read()
                    problems += [f"{file}: {problem}" for problem in check_text(text)]
            if problems:
                findings += 1
                kept = os.path.join(outdir, f"finding-{seed}-{iteration}-{arguments[0]}.json")
                with open(kept, "w") as file:
                    json.dump(document, file, ensure_ascii=True)
                print(f"finding: {' '.join(arguments[:2])} on {os.path.basename(source)} "
                      f"(hostile {old!r}): {'; '.join(problems)} (kept {kept})", file=sys.stderr)
        if kind == "experiment":
            os.remove(name)
print(f"hostile names: files {count} runs {runs} findings {findings}", sorted(codes.items(), key=str))
sys.exit(1 if findings else 0)
