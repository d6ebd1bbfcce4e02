#!/usr/bin/env bash
# Builds the DocC documentation of the public libraries, Handoff (the
# app-facing protocol and delegates), HandoffScenario (scenario files,
# runners, sweeps, overlays), HandoffCalibration (experiments and the
# calibrator), HandoffBaseline (recording and checking baselines),
# HandoffAdvice (payload advice) and HandoffReport (the renderings of their
# results), with the toolchain's own docc, no
# package plugin: symbol graphs from the compiler, then `docc convert` with
# every warning an error. Fails too when a public symbol of any of them has
# no doc comment (compiler-synthesized members, which have no source
# location, aside). (ScenarioJSON has no public API, so no documentation.)
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/docc
rm -rf "$out"
# HandoffReport depends on HandoffCalibration, HandoffBaseline,
# HandoffAdvice, HandoffScenario and Handoff: one build emits the six
# modules' graphs.
# They are kept beside that build, so a build with nothing to recompile
# still has the graphs of what it built.
# DOCC_SYMBOL_GRAPHS names a folder of graphs a build already emitted
# (CI's debug build does: -Xswiftc -emit-symbol-graph
# -Xswiftc -emit-symbol-graph-dir -Xswiftc DIR), so nothing is built again.
if [ -n "${DOCC_SYMBOL_GRAPHS:-}" ]; then
  all_graphs=$DOCC_SYMBOL_GRAPHS
  for module in Handoff HandoffScenario HandoffCalibration HandoffBaseline HandoffAdvice HandoffReport; do
    [ -f "$all_graphs/$module.symbols.json" ] || { echo "error: no $module.symbols.json in $all_graphs" >&2; exit 1; }
  done
else
  all_graphs=.build/docc-build/symbol-graphs
  mkdir -p "$all_graphs"
  swift build --scratch-path .build/docc-build --target HandoffReport \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$all_graphs" >/dev/null
fi
for module in Handoff HandoffScenario HandoffCalibration HandoffBaseline HandoffAdvice HandoffReport; do
  graphs="$out/graphs/$module"
  mkdir -p "$graphs"
  # The module's own graph and its extensions of other modules' types.
  cp "$all_graphs/$module.symbols.json" "$graphs/"
  for extension in "$all_graphs/$module"@*.symbols.json; do
    [ -e "$extension" ] && cp "$extension" "$graphs/"
  done
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$graphs" "$module" <<'PY'
import glob, json, sys
graphs, module = sys.argv[1], sys.argv[2]
missing = []
for path in sorted(glob.glob(graphs + "/*.symbols.json")):
    for symbol in json.load(open(path))["symbols"]:
        if symbol.get("accessLevel") in ("public", "open") and not symbol.get("docComment") and symbol.get("location"):
            location = symbol["location"]["uri"].split("/Sources/")[-1]
            missing.append(f'{".".join(symbol["pathComponents"])} ({location})')
for line in sorted(missing):
    print("undocumented public symbol:", line)
if missing:
    sys.exit(f"{len(missing)} public symbols of {module} have no doc comment")
print(f"every public symbol of {module} has a doc comment")
PY
  else
    echo "python3 not available; the doc-comment check is skipped (docc still builds)"
  fi
  docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.handoffsim.$module" \
    --output-path "$out/$module.doccarchive" --warnings-as-errors
  echo "DocC archive: $out/$module.doccarchive"
done
