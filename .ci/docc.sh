#!/usr/bin/env bash
# Builds the DocC documentation of the app-facing library (Handoff) with the
# toolchain's own docc, no package plugin: symbol graphs from the compiler,
# then `docc convert` with every warning an error. Fails too when a public
# symbol of Handoff has no doc comment (compiler-synthesized members, which
# have no source location, aside).
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/docc
rm -rf "$out"
mkdir -p "$out/all-graphs" "$out/graphs"
swift build --scratch-path .build/docc-build --target Handoff \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$out/all-graphs" >/dev/null
# Handoff's own graph and its extensions of other modules' types.
cp "$out/all-graphs/Handoff.symbols.json" "$out/graphs/"
for extension in "$out"/all-graphs/Handoff@*.symbols.json; do
  [ -e "$extension" ] && cp "$extension" "$out/graphs/"
done
if command -v python3 >/dev/null 2>&1; then
  python3 - "$out/graphs" <<'PY'
import glob, json, sys
missing = []
for path in sorted(glob.glob(sys.argv[1] + "/*.symbols.json")):
    for symbol in json.load(open(path))["symbols"]:
        if symbol.get("accessLevel") in ("public", "open") and not symbol.get("docComment") and symbol.get("location"):
            location = symbol["location"]["uri"].split("/Sources/")[-1]
            missing.append(f'{".".join(symbol["pathComponents"])} ({location})')
for line in sorted(missing):
    print("undocumented public symbol:", line)
if missing:
    sys.exit(f"{len(missing)} public symbols of Handoff have no doc comment")
print("every public symbol of Handoff has a doc comment")
PY
else
  echo "python3 not available; the doc-comment check is skipped (docc still builds)"
fi
docc convert Sources/Handoff/Handoff.docc --additional-symbol-graph-dir "$out/graphs" \
  --fallback-display-name Handoff --fallback-bundle-identifier org.handoffsim.Handoff \
  --output-path "$out/Handoff.doccarchive" --warnings-as-errors
echo "DocC archive: $out/Handoff.doccarchive"
