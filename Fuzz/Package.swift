// swift-tools-version:6.0
//
// libFuzzer targets for HandoffSim's readers of untrusted files. A package of
// its own, so the root package's `swift build` and `swift test` never see the
// fuzzer flags. Build and run them with Fuzz/run.sh (see "Fuzzing" in
// docs/contributing.md); the build alone is
//
//   swift build --package-path Fuzz -c release --sanitize=fuzzer \
//       -Xswiftc -sanitize=fuzzer,address
//
// Each target defines LLVMFuzzerTestOneInput and no main: libFuzzer's
// runtime provides main (SwiftPM's --sanitize=fuzzer links it in place of
// the executable's own entry point; -Xswiftc -sanitize=fuzzer,address
// instruments every module, as swiftc keeps only the last of the separate
// -sanitize= flags SwiftPM passes).
import PackageDescription

let package = Package(
    name: "HandoffSimFuzz",
    dependencies: [
        // The root package, by path (its name, not its folder's, so a clone
        // in any folder builds).
        .package(name: "HandoffSim", path: ".."),
    ],
    targets: [
        // ScenarioSuite.decode, then SweepRunner.prepare for files that decode.
        .executableTarget(
            name: "scenario-decoder",
            dependencies: [
                .product(name: "HandoffScenario", package: "HandoffSim"),
                .product(name: "HandoffReport", package: "HandoffSim"),
            ]
        ),
        // SweepJSONLines.read (merge's reader), then merge and render.
        .executableTarget(
            name: "sweep-jsonlines",
            dependencies: [
                .product(name: "HandoffScenario", package: "HandoffSim"),
                .product(name: "HandoffReport", package: "HandoffSim"),
            ]
        ),
        // BaselineFile.read, then compare and render.
        .executableTarget(
            name: "baseline-file",
            dependencies: [
                .product(name: "HandoffScenario", package: "HandoffSim"),
                .product(name: "HandoffBaseline", package: "HandoffSim"),
                .product(name: "HandoffReport", package: "HandoffSim"),
            ]
        ),
        // Experiment.decode: an experiment file, checked against a fixed
        // scenario and CSV.
        .executableTarget(
            name: "experiment-decoder",
            dependencies: [
                .product(name: "HandoffScenario", package: "HandoffSim"),
                .product(name: "HandoffCalibration", package: "HandoffSim"),
                .product(name: "HandoffReport", package: "HandoffSim"),
            ]
        ),
        // Experiment.decode of a fixed experiment: the measured CSV file.
        .executableTarget(
            name: "measured-csv",
            dependencies: [
                .product(name: "HandoffScenario", package: "HandoffSim"),
                .product(name: "HandoffCalibration", package: "HandoffSim"),
                .product(name: "HandoffReport", package: "HandoffSim"),
            ]
        ),
        // Overlay(bytes:file:), its text read back, then written over a
        // scenario by SweepRunner.prepare.
        .executableTarget(
            name: "overlay-apply",
            dependencies: [
                .product(name: "HandoffScenario", package: "HandoffSim"),
                .product(name: "HandoffReport", package: "HandoffSim"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
