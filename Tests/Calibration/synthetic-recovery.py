#!/usr/bin/env python3
"""Synthetic recovery: samples simulated at known parameter values (with
measurement noise: rounded to whole milliseconds, as the shipped runs are)
must be recovered by `handoff-sim calibrate` within its bootstrap intervals.

usage: synthetic-recovery.py HANDOFF_SIM [BOOTSTRAP]
"""
import csv, json, os, subprocess, sys, tempfile

sim = sys.argv[1]
bootstrap = sys.argv[2] if len(sys.argv) > 2 else "20"
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
base = os.path.join(root, "calibration/scenarios/awdl-request-response.json")
truth = {  # path: (value as the scenario takes it, value in the report's unit)
    "network.wifiPeerToPeer.latency": ("3000000ns", 3_000_000),
    "network.wifiPeerToPeer.schedule.excursionDuration": ("150000000ns", 150_000_000),
}
work = tempfile.mkdtemp(prefix="recovery-")
scenario = json.load(open(base))
scenario.pop("$schema", None)
# The data identify the share of time a device is away, not how it splits
# into how often and how long: the interval stays at the scenario's (the
# default, 1.3 s) in the truth and in the fit, and the duration is fitted.
for path, (value, _) in truth.items():
    node = scenario
    keys = path.split(".")
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value
truth_file = os.path.join(work, "truth.json")
json.dump(scenario, open(truth_file, "w"))
samples = os.path.join(work, "samples.csv")
subprocess.run([sim, "run", truth_file, "--trials", "1500", "--seed", "99", "--no-progress", "--samples", samples],
               check=True, stdout=subprocess.DEVNULL)
measured = os.path.join(work, "measured.csv")
with open(samples) as source, open(measured, "w") as target:
    target.write("network_ms\n")
    for row in csv.DictReader(source):
        if row["fetch_ns"]:
            target.write(f"{round(int(row['fetch_ns']) / 1e6)}\n")
experiment = {
    "name": "synthetic recovery",
    "scenario": base,
    "seed": 1,
    "trials": 1500,
    "data": [{"file": measured, "column": "network_ms", "unit": "ms", "metric": "fetch"}],
    "parameters": [
        {"path": "network.wifiPeerToPeer.latency", "min": "0.5ms", "max": "10ms", "scale": "log"},
        {"path": "network.wifiPeerToPeer.schedule.excursionDuration", "min": "30ms", "max": "400ms"},
    ],
}
experiment_file = os.path.join(work, "experiment.json")
json.dump(experiment, open(experiment_file, "w"))
result = json.loads(subprocess.run(
    [sim, "calibrate", experiment_file, "--bootstrap", bootstrap, "--format", "json", "--no-progress"],
    check=True, capture_output=True, text=True).stdout)
failed = False
for parameter in result["parameters"]:
    true = truth[parameter["path"]][1]
    low, high = parameter["interval"]
    inside = low <= true <= high
    failed |= not inside
    print(f"{parameter['path']}: true {true:g}, fitted {parameter['value']:g}, interval {low:g} … {high:g}"
          + ("" if inside else "  OUTSIDE"))
print(f"KS {result['groups'][0]['ks']:.3f}, {result['evaluations']} simulations")
sys.exit(1 if failed else 0)
