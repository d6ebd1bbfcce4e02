#!/usr/bin/env python3
"""The model against what was measured, at full trial counts in a release
build: `handoff-sim calibrate EXPERIMENT --check` for the shipped
experiments, with the same bounds the README's table states.

- AWDL, a fresh connection and one request/response (network_ms of 1,500
  runs): Kolmogorov-Smirnov distance <= 0.05.
- The same over a cable: KS <= 0.10.
- A 10.49 MB upload over AWDL (upload_ms): median within 3% of the measured,
  interquartile range 40-200 ms (the rate spreads from trial to trial, as
  measured: 81 ms), KS <= 0.17 (the fastest simulated uploads are faster than
  any measured: a log-normal rate has no ceiling).
- The report is the same for any --jobs.
- The check can fail: the AWDL model against the cable's runs is far off
  (KS > 0.5).

usage: check-fit.py HANDOFF_SIM
"""
import json, os, subprocess, sys, tempfile

sim = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failed = False


def check(experiment, jobs="2"):
    out = subprocess.run([sim, "calibrate", experiment, "--check", "--format", "json", "--no-progress", "--jobs", jobs],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["groups"]


def quantile(group, level):
    for q in group["quantiles"]:
        if abs(q["level"] - level) < 1e-9:
            return q["measuredMilliseconds"], q["simulatedMilliseconds"]
    raise KeyError(level)


def expect(condition, message):
    global failed
    print(("ok    " if condition else "FAIL  ") + message)
    if not condition:
        failed = True


awdl = check(os.path.join(root, "calibration/privatedrop-awdl.json"))
expect(awdl == check(os.path.join(root, "calibration/privatedrop-awdl.json"), jobs="1"),
       "AWDL: the same groups, distances and quantiles on 1 thread as on 2")
fetch, upload = awdl[0], awdl[1]
expect(fetch["metric"] == "fetch" and fetch["ks"] <= 0.05,
       f"AWDL request/response: KS {fetch['ks']:.3f} <= 0.05 ({fetch['simulated']} simulated, "
       f"{fetch['measured']} measured; 5% critical value {fetch['critical']:.3f})")
measured_median, simulated_median = quantile(upload, 0.5)
expect(upload["metric"] == "streamRound" and abs(simulated_median / measured_median - 1) <= 0.03,
       f"AWDL 10.49 MB upload: median {simulated_median:.1f} ms within 3% of the measured {measured_median:.1f} ms")
iqr = quantile(upload, 0.75)[1] - quantile(upload, 0.25)[1]
expect(40 < iqr < 200, f"AWDL 10.49 MB upload: interquartile range {iqr:.1f} ms within 40-200 ms (measured 81 ms)")
expect(upload["ks"] <= 0.17, f"AWDL 10.49 MB upload: KS {upload['ks']:.3f} <= 0.17 "
       f"(5% critical value {upload['critical']:.3f})")

cable = check(os.path.join(root, "calibration/privatedrop-cable.json"))[0]
expect(cable["ks"] <= 0.10, f"cable request/response: KS {cable['ks']:.3f} <= 0.10 "
       f"(5% critical value {cable['critical']:.3f})")

# The AWDL model against the cable's runs: the check can fail.
work = tempfile.mkdtemp(prefix="check-fit-")
crossed = os.path.join(work, "crossed.json")
json.dump({
    "name": "the AWDL model against the cable's runs",
    "scenario": os.path.join(root, "calibration/scenarios/awdl-request-response.json"),
    "seed": 1, "trials": 2000,
    "data": [{"file": os.path.join(root, "calibration/data/privatedrop-cable.csv"),
              "column": "network_ms", "unit": "ms", "metric": "fetch"}],
}, open(crossed, "w"))
wrong = check(crossed)[0]
expect(wrong["ks"] > 0.5, f"the AWDL model against the cable's runs: KS {wrong['ks']:.3f} > 0.5 (the check can fail)")

sys.exit(1 if failed else 0)
