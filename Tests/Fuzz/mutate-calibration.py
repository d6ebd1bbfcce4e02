#!/usr/bin/env python3
"""Mutation run of handoff-sim calibrate and --overlay on edited inputs.

A sibling of mutate-scenarios.py for the inputs calibration added:

- experiment files: the shipped experiments (calibration/*.json) and a few
  templates, with one to four values replaced by boundary values (deep and
  malformed paths, ranges past their bounds, Int64-max durations, unknown
  units and metrics, missing files...), run with `calibrate --check` (and
  now and then a two-evaluation fit with --output);
- measured CSV files: a small grouped CSV with an outcome column, edited
  byte by byte (BOM, NUL, CR, CRLF, quotes, huge and negative numbers,
  hexadecimal floats, subnormals, thousands of groups), run with
  `calibrate --check` on a fixed experiment;
- overlays: fitted overlays with their paths and values replaced (deep,
  malformed, "overlay", out of bounds), half of them with bootstrap
  replicates, run with `run`, `sweep`, `advise`, `replay` and `validate`
  of a scenario naming the overlay.

Any exit by a signal, any "Fatal error" and any run over 60 s is a finding;
the input is kept in the output folder.

    Tests/Fuzz/mutate-calibration.py .build/release/handoff-sim SEED EXPERIMENTS CSVS OVERLAYS [OUTDIR]
"""
import glob, json, os, random, re, shutil, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

binary = os.path.abspath(sys.argv[1])
seed, experiments, csvs, overlays = (int(a) for a in sys.argv[2:6])
outdir = os.path.abspath(sys.argv[6] if len(sys.argv) > 6 else "mutation-findings")
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.makedirs(outdir, exist_ok=True)
cable = root + "/calibration/scenarios/cable-request-response.json"
passes = root + "/Tests/Fixtures/run-scenarios/passes.json"
deep = ".".join(["protocol"] + ["x"] * 40000)

token = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null')
experiment_values = [
    '-1', '0', '1', '1e300', '-1e308', '1e308', '9223372036854775807', '1e-300', '0.5', '1000000', '1000001',
    '"0"', '"168h"', '"169h"', '"9223372036854775807ns"', '"1GiB"', '"2GiB"', '"1e15bit/s"', '"1e16bit/s"',
    '"0.5ms"', '"ms"', '"ns"', '"duration"', '"minutes"', '"fetch"', '"acceptToContinue"', '"latency"', '"log"',
    '"linear"', '"limits.maxEvents"', '"trials"', '"overlay"', '"activity.payloadSize"', '"network.wifiPeerToPeer.loss"',
    '"a..b"', '"a["', '"devices[99].kind"', f'"{deep}"', '"' + ".".join(["a"] * 33) + '"', '"nope.csv"',
    '"nope.json"', '"data.csv"', 'null', '[]', '{}', 'true', '"\\n\\u001b[2J"', '"x"',
    '{"column": "size", "path": "activity.payloadSize"}', '{"column": "ok", "success": ["1"]}',
]
overlay_values = [
    '-1', '0', '1', '1e300', '-1e300', '1e-12', '4.9e-324', '9223372036854775807', '1000000000000', '0.5',
    '"2ms"', '"169h"', '"9223372036854775807ns"', '"3KiB"', '"2GiB"', '"LTE"', '"nope"', 'null', '[]', '{}',
    '"trials"', '"limits.maxEvents"', '"overlay"', '"activity.payloadSize"', '"devices[1].position[0]"',
    '"network.wifiPeerToPeer.latency"', '"a..b"', f'"{deep}"', '"' + ".".join(["a"] * 33) + '"', '"\\n"',
    '"missing.json"', '{"path": "trials", "value": 1}',
]
csv_pieces = ['\ufeff', '\0', '\r', '\r\n', '\n', '"', '""', ',', '1e19', '1e22', '604800001', '-0', '0x1p8', 'inf',
              'nan', '4.9e-324', '1e-300', '.5', '5.', '1E3', '100', '1KiB', '2GiB', '0B', 'yes', '0', '1', ' ',
              '\t', 'ms', 'size', 'ok', '\u2028', '\xff']
base_csv = "ms,size,ok\n100,1KiB,1\n104,3KiB,1\n250,3KiB,0\n98,1KiB,1\n"


def mutate_json(text, values, rng):
    for _ in range(rng.randint(1, 4)):
        tokens = list(token.finditer(text))
        if not tokens:
            break
        match = rng.choice(tokens)
        if text[match.end():match.end() + 2].lstrip().startswith(':') and rng.random() < 0.8:
            continue
        text = text[:match.start()] + rng.choice(values) + text[match.end():]
    return text


def mutate_csv(rng):
    text = base_csv
    if rng.random() < 0.05:
        # Thousands of groups, or of rows.
        text = "ms,size,ok\n" + "".join(f"{100 + i % 7},{i if rng.random() < 0.5 else 1}B,1\n" for i in range(rng.choice([999, 1001, 5000])))
    for _ in range(rng.randint(1, 6)):
        position = rng.randrange(len(text) + 1)
        if rng.random() < 0.3 and text:
            end = min(len(text), position + rng.randint(1, 6))
            text = text[:position] + text[end:]
        else:
            text = text[:position] + rng.choice(csv_pieces) + text[position:]
    return text


def run(command, input_path):
    try:
        result = subprocess.run([binary] + command, capture_output=True, timeout=60)
        code = result.returncode
        crashed = code < 0 or code >= 128 or b"Fatal error" in result.stderr
    except subprocess.TimeoutExpired:
        code, crashed = "timeout", True
    return code, crashed


def one(kind, index):
    rng = random.Random(f"{seed}-{kind}-{index}")
    work = os.path.join(outdir, f"work-{kind}-{index}")
    os.makedirs(work, exist_ok=True)
    shutil.copy(cable, work + "/s.json")
    outcomes = []
    if kind == "experiment":
        sources = [open(f).read() for f in sorted(glob.glob(root + "/calibration/*.json"))]
        sources.append(json.dumps({"name": "t", "scenario": "s.json", "trials": 5,
                                   "data": [{"file": "data.csv", "column": "ms", "metric": "fetch",
                                             "groupBy": {"column": "size", "path": "activity.payloadSize"},
                                             "outcome": {"column": "ok", "success": ["1"]}}],
                                   "parameters": [{"path": "network.wifiPeerToPeer.latency", "min": "0.05ms", "max": "2ms", "scale": "log"},
                                                  {"path": "network.wifiPeerToPeer.loss", "min": 0, "max": 0.2}]}))
        text = rng.choice(sources).replace('"scenarios/', '"' + root + '/calibration/scenarios/').replace('"data/', '"' + root + '/calibration/data/')
        text = mutate_json(text, experiment_values, rng)
        open(work + "/data.csv", "w").write(base_csv)
        path = work + "/e.json"
        open(path, "w").write(text)
        commands = [["calibrate", path, "--check", "--trials", "2", "--no-progress"]]
        if rng.random() < 0.1:
            commands.append(["calibrate", path, "--evaluations", "2", "--trials", "2", "--no-progress",
                             "--output", work + "/fitted.json", "--chart", work + "/chart.svg"])
    elif kind == "csv":
        text = mutate_csv(rng)
        open(work + "/data.csv", "w", encoding="utf-8", errors="surrogatepass").write(text)
        path = work + "/e.json"
        open(path, "w").write(json.dumps({"name": "t", "scenario": "s.json", "trials": 2, "data": [
            {"file": "data.csv", "column": "ms", "metric": "fetch", "groupBy": {"column": "size", "path": "activity.payloadSize"},
             "outcome": {"column": "ok", "success": ["1"]}},
            {"file": "data.csv", "column": "ms", "unit": rng.choice(["ms", "ns", "s", "duration"]), "metric": "fetch"}]}))
        commands = [["calibrate", path, "--check", "--no-progress"]]
    else:
        # A fit with bootstrap replicates (sweep and advise run each), or without.
        replicates = [{"set": [{"path": "network.wifiPeerToPeer.latency", "value": f"{1900 + 100 * k}000ns"},
                               {"path": "network.wifiPeerToPeer.loss", "value": 0.05 * k}]} for k in range(3)]
        base = json.dumps({"overlay": "fitted", "set": [
            {"path": "network.wifiPeerToPeer.latency", "value": "2117000ns"},
            {"path": "network.wifiPeerToPeer.loss", "value": 0.1},
            {"path": "activity.payloadSize", "value": "3KiB"}], **({"replicates": replicates} if rng.random() < 0.5 else {})})
        text = mutate_json(base, overlay_values, rng)
        path = work + "/o.json"
        open(path, "w").write(text)
        scenario = json.load(open(passes))
        scenario["overlay"] = "o.json"
        open(work + "/named.json", "w").write(json.dumps(scenario))
        commands = [["run", passes, "--trials", "2", "--overlay", path],
                    rng.choice([["sweep", passes, "--payload", "1KiB", "--trials", "2", "--no-progress", "--overlay", path],
                                ["replay", passes, "--seed", "1", "--trial", "0", "--overlay", path],
                                ["advise", passes, "--p95", "5s", "--trials", "2", "--resolution", "16KiB", "--overlay", path],
                                ["validate", work + "/named.json"]])]
    found = False
    for command in commands:
        code, crashed = run(command, path)
        outcomes.append((kind, command[0], code))
        if crashed:
            found = True
            shutil.copytree(work, os.path.join(outdir, f"finding-{kind}-{index}-{command[0]}"), dirs_exist_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    return outcomes, found


jobs = [("experiment", i) for i in range(experiments)] + [("csv", i) for i in range(csvs)] + [("overlay", i) for i in range(overlays)]
codes, findings = {}, 0
with ThreadPoolExecutor(max_workers=int(os.environ.get("MUTATION_JOBS", "2"))) as pool:
    for outcomes, found in pool.map(lambda job: one(*job), jobs):
        findings += found
        for key in outcomes:
            codes[key] = codes.get(key, 0) + 1
runs = sum(codes.values())
print(f"experiments {experiments} csvs {csvs} overlays {overlays} runs {runs} findings {findings}")
for key, value in sorted(codes.items(), key=str):
    print(" ", key, value)
sys.exit(1 if findings else 0)
