#!/usr/bin/env python3
"""Opens HandoffSim's HTML reports in headless Chromium and checks them.

Usage: check-html.py HANDOFF_SIM CHROMIUM OUTDIR

Writes, with the release binary, the reports of the shipped suite (passing),
of the shipped suite with one failing latency expectation added, of the
relay guidance sweep (with its target) and of the shipped AWDL calibration
(checked), and the advice on the peer-to-peer guidance with the shipped
fit; then for each report:

- it is self-contained: no <link>, no src=, no @import, no url() but to an
  id on the page, and no "http" outside an <a href> the reader clicks;
- Chromium loads it with no console message at all (every console line
  Chromium logs is an error here: the pages log nothing), and its script
  ran (data-script="ran", no data-script-error) — read from the DOM after
  scripts (--dump-dom);
- the DOM contract of docs/cli.md holds: one section.scenario per file run,
  data-scenario naming it, data-status among pass|fragile|fail|error|invalid|skipped,
  and every failing scenario holding an <svg> inside figure.trace and its
  replay command in code.replay;
- screenshots at 1280 x 900 and at 390 x 844 (a phone) are not blank:
  decoded here (PNG, no imaging library), at least 4% of their pixels
  differ from the background and they hold at least 16 colours.

Exit 0 when every check holds; 1 with each failure on standard error.
"""
import html.parser
import os
import re
import struct
import subprocess
import sys
import zlib

binary, chromium, outdir = sys.argv[1:4]
os.makedirs(outdir, exist_ok=True)
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, file=sys.stderr)


def run(arguments, expected):
    completed = subprocess.run([binary] + arguments, capture_output=True, text=True)
    if completed.returncode not in expected:
        fail(f"handoff-sim {' '.join(arguments)} exited {completed.returncode}: {completed.stderr[-400:]}")


# A suite with one failing latency expectation: the shipped scenarios and
# one of them with its p95 bound cut to a microsecond.
failing_dir = os.path.join(outdir, "failing-suite")
os.makedirs(failing_dir, exist_ok=True)
source = open("scenarios/payload-3kib.json").read()
edited = re.sub(r'("percentile": 95, "below": )"[^"]+"', r'\1"1us"', source, count=1)
if edited == source:
    fail("could not cut a p95 bound in scenarios/payload-3kib.json to make a failing suite")
failing_file = os.path.join(failing_dir, "payload-3kib-too-strict.json")
open(failing_file, "w").write(edited.replace('"$schema": "../schema/', '"$schema": "../../../schema/'))

reports = {
    "suite-pass": (["run", "scenarios", "--no-progress"], {0}),
    "suite-fail": (["run", "scenarios", failing_file, "--no-progress"], {1}),
    "sweep": (["sweep", "sweeps/guidance/relay.json", "--p95", "1s", "--no-progress"], {0}),
    "calibration": (["calibrate", "calibration/privatedrop-awdl.json", "--check", "--no-progress"], {0}),
    "advice": (["advise", "sweeps/guidance/peer-to-peer.json", "--p95", "1.3s", "--sensitivity",
                "--overlay", "calibration/fits/privatedrop-awdl.json", "--trials", "200"], {0}),
}
for name, (arguments, expected) in reports.items():
    path = os.path.join(outdir, name + ".html")
    run(arguments + ["--html", path], expected)


class Contract(html.parser.HTMLParser):
    """Collects each scenario section with what it holds."""

    def __init__(self):
        super().__init__()
        self.root = {}
        self.sections = []
        self.stack = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "html":
            self.root = attributes
        if tag == "section" and "scenario" in classes:
            self.sections.append({"attributes": attributes, "trace_svg": False, "replay": False, "in_trace": False})
        if self.sections and tag == "figure" and "trace" in classes:
            self.sections[-1]["in_trace"] = True
        if self.sections and tag == "svg" and self.sections[-1]["in_trace"]:
            self.sections[-1]["trace_svg"] = True
        if self.sections and tag == "code" and "replay" in classes:
            self.sections[-1]["replay"] = True

    def handle_endtag(self, tag):
        if self.sections and tag == "figure":
            self.sections[-1]["in_trace"] = False


def png_pixels(path):
    """The width, height and rows of RGBA pixels of an 8-bit PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour = header[0], header[1], header[2], header[3]
    if depth != 8 or colour not in (2, 6):
        raise ValueError(f"unexpected PNG format: depth {depth}, colour type {colour}")
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            corner = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def check_screenshot(name, path):
    try:
        width, height, channels, rows = png_pixels(path)
    except Exception as error:  # noqa: BLE001 - any unreadable PNG is a failure
        fail(f"{name}: screenshot {path} unreadable: {error}")
        return
    background = rows[0][:3]
    colours, differing, total = set(), 0, 0
    for y in range(0, height, 3):
        row = rows[y]
        for x in range(0, width, 3):
            pixel = row[x * channels:x * channels + 3]
            colours.add(pixel)
            differing += pixel != background
            total += 1
    share = differing / max(total, 1)
    print(f"  {name}: {os.path.basename(path)} {width}x{height}, {share:.1%} of pixels off the background, {len(colours)} colours")
    if share < 0.04 or len(colours) < 16:
        fail(f"{name}: screenshot {path} looks blank ({share:.1%} of pixels differ, {len(colours)} colours)")


chrome = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
          "--disable-extensions", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + os.path.join(outdir, "profile")]
for name in reports:
    path = os.path.abspath(os.path.join(outdir, name + ".html"))
    if not os.path.exists(path):
        fail(f"{name}: no report was written")
        continue
    text = open(path, encoding="utf-8").read()
    print(f"{name}: {os.path.getsize(path):,} bytes")
    # Self-contained.
    for pattern in ["<link", " src=", "@import", "<iframe", "<object", "<embed"]:
        if pattern in text:
            fail(f"{name}: the report holds '{pattern}'")
    if re.search(r"url\((?!#)", text):
        fail(f"{name}: the report holds a url() that is not to an id on the page")
    for match in re.finditer(r"https?:", text):
        before = text[max(0, match.start() - 200):match.start()]
        if not re.search(r"<a [^>]*href=\"$", before):
            fail(f"{name}: 'http' outside a link at offset {match.start()}")
            break
    # Loaded: the DOM after scripts, and the console.
    loaded = subprocess.run(chrome + ["--dump-dom", "file://" + path], capture_output=True, text=True, timeout=120)
    console = [line for line in loaded.stderr.splitlines() if ":CONSOLE" in line]
    for line in console:
        fail(f"{name}: console: {line}")
    contract = Contract()
    contract.feed(loaded.stdout)
    if contract.root.get("data-script") != "ran":
        fail(f"{name}: the page's script did not run (data-script is {contract.root.get('data-script')!r})")
    if "data-script-error" in contract.root:
        fail(f"{name}: script error: {contract.root['data-script-error']}")
    kind = contract.root.get("data-report")
    expected_kind = {"suite-pass": "run", "suite-fail": "run", "sweep": "sweep", "calibration": "calibration", "advice": "advice"}[name]
    if kind != expected_kind:
        fail(f"{name}: data-report is {kind!r}, expected {expected_kind!r}")
    if expected_kind == "run":
        sections = contract.sections
        statuses = [section["attributes"].get("data-status") for section in sections]
        if not sections:
            fail(f"{name}: no section.scenario")
        for section in sections:
            attributes = section["attributes"]
            scenario, status = attributes.get("data-scenario"), attributes.get("data-status")
            if not scenario or not os.path.exists(scenario):
                fail(f"{name}: a section's data-scenario {scenario!r} is not a file that ran")
            if status not in ("pass", "fragile", "fail", "error", "invalid", "skipped"):
                fail(f"{name}: {scenario}: data-status {status!r}")
            if status == "fail" and not (section["trace_svg"] and section["replay"]):
                fail(f"{name}: {scenario} fails but holds no trace <svg> in figure.trace or no code.replay")
        failing = [s["attributes"].get("data-scenario") for s in sections if s["attributes"].get("data-status") in ("fail", "error", "invalid")]
        if name == "suite-pass" and failing:
            fail(f"suite-pass: failing sections {failing}")
        if name == "suite-fail" and failing != [failing_file]:
            fail(f"suite-fail: the failing sections are {failing}, expected only {failing_file}")
        print(f"  {len(sections)} scenario sections: " + ", ".join(f"{statuses.count(s)} {s}" for s in ("pass", "fragile", "fail", "error", "invalid", "skipped")))
    # Screenshots at a desktop's and a phone's width.
    for width, height in [(1280, 900), (390, 844)]:
        shot = os.path.join(outdir, f"{name}-{width}.png")
        if os.path.exists(shot):
            os.remove(shot)
        subprocess.run(chrome + [f"--window-size={width},{height}", "--screenshot=" + shot, "file://" + path],
                       capture_output=True, text=True, timeout=120)
        if not os.path.exists(shot):
            fail(f"{name}: no screenshot at {width}x{height}")
            continue
        check_screenshot(name, shot)

sys.exit(1 if failures else 0)
