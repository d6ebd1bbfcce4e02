#!/usr/bin/env python3
"""The model against what was measured, at full trial counts in a release
build: `handoff-sim calibrate EXPERIMENT --check` for the shipped
experiments.

Each bound holds for any seed: it is the mean plus 4.5 standard deviations
of the figure over seeds 1-30 of the experiment (a seed
fails it about once in 300,000 if the spread is normal), rounded out:

| figure | over 30 seeds: min / mean / max (sd) | bound |
|---|---|---|
| AWDL request/response KS (2,000 simulated, 1,500 measured) | 0.032 / 0.047 / 0.063 (0.0067) | <= 0.077 |
| cable request/response KS | 0.080 / 0.089 / 0.104 (0.0067) | <= 0.12 |
| AWDL 10.49 MB upload KS (200 simulated) | 0.096 / 0.136 / 0.175 (0.020) | <= 0.23 |
| upload median against the measured 871 ms | -1.3% / 0.0% / +1.8% (0.76%) | within -3.5% .. +3.5% |
| upload interquartile range (measured 81 ms) | 80 / 94 / 107 ms (7.5) | 60 .. 128 ms |

Measured 2026-11-26 with the merged model: CUBIC with XNU's constants,
the slot-structured schedule (OWL's idle sequence, an idle device on the
channel for the first 48 TU of a shared slot unless the pair has traffic
in it, excursions of 80 ms every 1.3 s, warm AWDL and a cached resolve as
in the measured runs) and no Handoff payload
coding in the measured scenarios (`protocol.coding` null):
`calibrate --check` on copies of the two experiments with "seed" set to
1..30.

The AWDL request/response KS distance straddles the 5% critical value
(0.046): the fit is close, not indistinguishable; the cable's and the
upload's are further off (docs/calibration.md says why). The cable's
figures did not move (its link has no schedule).

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
expect(fetch["metric"] == "fetch" and fetch["ks"] <= 0.077,
       f"AWDL request/response: KS {fetch['ks']:.3f} <= 0.077 ({fetch['simulated']} simulated, "
       f"{fetch['measured']} measured; 5% critical value {fetch['critical']:.3f})")
measured_median, simulated_median = quantile(upload, 0.5)
expect(upload["metric"] == "streamRound" and -0.035 <= simulated_median / measured_median - 1 <= 0.035,
       f"AWDL 10.49 MB upload: median {simulated_median:.1f} ms within -3.5% .. +3.5% of the measured {measured_median:.1f} ms")
iqr = quantile(upload, 0.75)[1] - quantile(upload, 0.25)[1]
expect(60 <= iqr <= 128, f"AWDL 10.49 MB upload: interquartile range {iqr:.1f} ms within 60-128 ms (measured 81 ms)")
expect(upload["ks"] <= 0.23, f"AWDL 10.49 MB upload: KS {upload['ks']:.3f} <= 0.23 "
       f"(5% critical value {upload['critical']:.3f})")

cable = check(os.path.join(root, "calibration/privatedrop-cable.json"))[0]
expect(cable["ks"] <= 0.12, f"cable request/response: KS {cable['ks']:.3f} <= 0.12 "
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
