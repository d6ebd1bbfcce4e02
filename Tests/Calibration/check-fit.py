#!/usr/bin/env python3
"""The model against what was measured, at full trial counts in a release
build: `handoff-sim calibrate EXPERIMENT --check` for the shipped
experiments.

Each bound holds for any seed: it is the mean plus 4.5 standard deviations
of the figure over seeds 1-30 of the experiment (a seed
fails it about once in 300,000 if the spread is normal), rounded out:

| figure | over 30 seeds: min / mean / max (sd) | bound |
|---|---|---|
| AWDL request/response KS (2,000 simulated, 1,500 measured) | 0.031 / 0.043 / 0.059 (0.0068) | <= 0.074 |
| the same, mean over seeds 1-10 (the issue's criterion) | 0.040 (max 0.046) | <= 0.046 |
| cable request/response KS | 0.080 / 0.089 / 0.104 (0.0067) | <= 0.12 |
| AWDL 10.49 MB upload KS (200 simulated) | 0.038 / 0.072 / 0.132 (0.024) | <= 0.182 |
| upload median against the measured 871 ms | -1.8% / -0.7% / +0.3% (0.51%) | within -3.5% .. +2.5% |
| upload interquartile range (measured 81 ms) | 64 / 77 / 100 ms (7.8) | 41 .. 113 ms |

Measured 2026-11-28 with model v3: the fit made under the measured
systems' behaviours (`measuredOn`: macOS 10.15.7 and iOS 14.0, so a SYN
over AWDL waits 1 s; XNU's 556,032 B receive window in the AWDL
calibration scenarios), its search averaging over seeds 1-8, and the
link's rate a ceiling, each transfer 1 + Y times as long as at it (Y
log-normal, drawn per trial), and no away slot in the active sequence:
`calibrate --check --seed S` for S = 1..30 on the two experiments.

The AWDL request/response KS distance is at the 5% critical value
(0.046) on average and beyond it at a fifth of the seeds: the fit is
close, not indistinguishable; the cable's is further off, and the upload's is within its critical value on average, beyond it at 3 of 30 seeds
(docs/calibration.md says why).

- The report is the same for any --jobs.
- The check can fail: the AWDL model against the cable's runs is far off
  (KS > 0.5).

usage: check-fit.py HANDOFF_SIM
"""
import json, os, subprocess, sys, tempfile

sim = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failed = False


def check(experiment, jobs="2", seed=None):
    extra = ["--seed", str(seed)] if seed is not None else []
    out = subprocess.run([sim, "calibrate", experiment, "--check", "--format", "json", "--no-progress", "--jobs", jobs]
                         + extra, check=True, capture_output=True, text=True).stdout
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
expect(fetch["metric"] == "fetch" and fetch["ks"] <= 0.074,
       f"AWDL request/response: KS {fetch['ks']:.3f} <= 0.074 ({fetch['simulated']} simulated, "
       f"{fetch['measured']} measured; 5% critical value {fetch['critical']:.3f})")
measured_median, simulated_median = quantile(upload, 0.5)
expect(upload["metric"] == "streamRound" and -0.035 <= simulated_median / measured_median - 1 <= 0.025,
       f"AWDL 10.49 MB upload: median {simulated_median:.1f} ms within -3.5% .. +2.5% of the measured {measured_median:.1f} ms")
iqr = quantile(upload, 0.75)[1] - quantile(upload, 0.25)[1]
expect(41 <= iqr <= 113, f"AWDL 10.49 MB upload: interquartile range {iqr:.1f} ms within 41-113 ms (measured 81 ms)")
expect(upload["ks"] <= 0.182, f"AWDL 10.49 MB upload: KS {upload['ks']:.3f} <= 0.182 "
       f"(5% critical value {upload['critical']:.3f})")

# The fetch's KS distance averaged over seeds 1-10: at most 0.046, the 5%
# critical value (a fixed set of seeds, so a fixed figure for a given model).
distances = [check(os.path.join(root, "calibration/privatedrop-awdl.json"), seed=seed)[0]["ks"] for seed in range(1, 11)]
mean_distance = sum(distances) / len(distances)
expect(mean_distance <= 0.046, f"AWDL request/response: KS mean over seeds 1-10 {mean_distance:.4f} <= 0.046 "
       f"(max {max(distances):.3f})")

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
