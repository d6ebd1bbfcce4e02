// swift-tools-version:6.0
//
// HandoffSim: a deterministic discrete-event simulator of Apple Handoff.
//
// Layering (dependencies point down only):
//   SimKernel   simulated time, event queue, run loop, random streams,
//               distributions, latency histograms. Knows nothing of Handoff.
//   HandoffWorld the physical world: devices, accounts and pair trust,
//               mobility, radios and advertising, lossy links, reliable
//               transfer, streams, named profiles. Knows nothing of
//               activities, apps, files or output.
//   Handoff     apps, activities, the activity state machine, the
//               continuity protocol over the world, the app-facing delegate
//               protocols and the trace. Knows nothing of files or output.
//   ScenarioJSON JSON with source positions: a strict reader that keeps
//               every value's line and column, and a deterministic writer.
//               Standard library only; knows nothing of scenarios. Package
//               API only (no product): the modules above use it.
//   HandoffScenario scenario files: the scenario format, validation,
//               expectations and the trial runner. Knows nothing of how
//               results are rendered.
//   HandoffCalibration calibration: experiment files (a scenario, measured
//               timings, the parameters to fit) and the calibrator that fits
//               the parameters by running the scenario. Overlays, which every
//               scenario load applies, stay in HandoffScenario.
//   HandoffBaseline baselines: a scenario's simulated figures recorded, the
//               baseline file that keeps them, and a later measurement
//               checked against them. Above HandoffScenario (it measures
//               scenario files with its runners).
//   HandoffAdvice payload advice: the Advisor, which finds by bisection over
//               sweep points the largest userInfo that meets a target, and
//               how sensitive the answer is to the defaults it rests on.
//               Above HandoffScenario (it runs sweep points).
//               HandoffCalibration, HandoffBaseline and HandoffAdvice sit
//               side by side: none uses another.
//   HandoffReport the renderings of results: text, JSON, CSV, JUnit XML,
//               Markdown, SVG and HTML, and the words they share (numbers,
//               durations, sizes, escaping). Decides no verdict.
//   HandoffSim  the one import an app's tests need: re-exports SimKernel,
//               HandoffWorld, Handoff, HandoffScenario, HandoffCalibration,
//               HandoffBaseline, HandoffAdvice and HandoffReport. No code of
//               its own.
//   HandoffSimCommands the command-line tool's commands, runnable in-process:
//               each command declared once (a CommandSpec: arguments,
//               options, help, exit codes), from which both --help and the
//               argument parser are made; parse, call the library, render.
//   handoff-sim the command-line tool: main.swift runs HandoffSimCommands and
//               exits with its status.
//   handoff-bench (Benchmarks/) the engine's benchmarks, e.g. PHOLD.
//
// Build-time defines, both on in debug builds (and so in `swift test`) and
// off in release builds:
//   SIMKERNEL_INVARIANTS    turns on the event heap's full invariant check
//                           after every mutation (which makes every operation
//                           O(n)).
//   HANDOFFWORLD_INVARIANTS turns on the world's link-table checks: a link's
//                           row after every change to it, the whole table
//                           (shape, ends, flags against parameters) after
//                           every structural change.
import PackageDescription

let invariantChecks: [SwiftSetting] = [
    .define("SIMKERNEL_INVARIANTS", .when(configuration: .debug)),
]

let worldInvariantChecks: [SwiftSetting] = [
    .define("HANDOFFWORLD_INVARIANTS", .when(configuration: .debug)),
]

let package = Package(
    name: "HandoffSim",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "SimKernel", targets: ["SimKernel"]),
        .library(name: "HandoffWorld", targets: ["HandoffWorld"]),
        .library(name: "Handoff", targets: ["Handoff"]),
        .library(name: "HandoffScenario", targets: ["HandoffScenario"]),
        .library(name: "HandoffCalibration", targets: ["HandoffCalibration"]),
        .library(name: "HandoffBaseline", targets: ["HandoffBaseline"]),
        .library(name: "HandoffAdvice", targets: ["HandoffAdvice"]),
        .library(name: "HandoffReport", targets: ["HandoffReport"]),
        .library(name: "HandoffSim", targets: ["HandoffSim"]),
        .executable(name: "handoff-sim", targets: ["handoff-sim"]),
        .executable(name: "handoff-bench", targets: ["HandoffBench"]),
    ],
    targets: [
        .target(
            name: "SimKernel",
            swiftSettings: invariantChecks,
            // The standard library's rounding and square root call into libm,
            // which Linux does not link by default.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux, .android]))]
        ),
        .target(
            name: "HandoffWorld",
            dependencies: ["SimKernel"],
            swiftSettings: worldInvariantChecks
        ),
        .target(
            name: "Handoff",
            dependencies: ["SimKernel", "HandoffWorld"]
        ),
        .target(
            name: "ScenarioJSON"
        ),
        .target(
            name: "HandoffScenario",
            dependencies: ["SimKernel", "HandoffWorld", "Handoff", "ScenarioJSON"]
        ),
        .target(
            name: "HandoffCalibration",
            dependencies: ["HandoffScenario", "ScenarioJSON", "Handoff", "HandoffWorld", "SimKernel"]
        ),
        .target(
            name: "HandoffBaseline",
            dependencies: ["HandoffScenario", "ScenarioJSON", "Handoff", "SimKernel"]
        ),
        .target(
            name: "HandoffAdvice",
            dependencies: ["HandoffScenario", "Handoff", "HandoffWorld", "SimKernel"]
        ),
        .target(
            name: "HandoffReport",
            dependencies: [
                "HandoffCalibration", "HandoffBaseline", "HandoffAdvice", "HandoffScenario", "ScenarioJSON", "Handoff",
                "SimKernel",
            ]
        ),
        .target(
            name: "HandoffSim",
            dependencies: [
                "SimKernel", "HandoffWorld", "Handoff", "HandoffScenario", "HandoffCalibration", "HandoffBaseline",
                "HandoffAdvice", "HandoffReport",
            ]
        ),
        .target(
            name: "HandoffSimCommands",
            dependencies: [
                "SimKernel", "HandoffWorld", "Handoff", "ScenarioJSON", "HandoffScenario", "HandoffCalibration",
                "HandoffBaseline", "HandoffAdvice", "HandoffReport",
            ]
        ),
        .executableTarget(
            name: "handoff-sim",
            dependencies: ["HandoffSimCommands"]
        ),
        .executableTarget(
            name: "HandoffBench",
            dependencies: ["SimKernel", "HandoffWorld", "Handoff", "ScenarioJSON", "HandoffScenario"],
            path: "Benchmarks/HandoffBench"
        ),
        .testTarget(
            name: "SimKernelTests",
            dependencies: ["SimKernel"]
        ),
        .testTarget(
            name: "HandoffWorldTests",
            dependencies: ["HandoffWorld", "SimKernel"],
            // The same define as the library, so the tests of its checks
            // are compiled where the checks are.
            swiftSettings: worldInvariantChecks
        ),
        .testTarget(
            name: "HandoffTests",
            dependencies: ["Handoff", "HandoffWorld", "SimKernel"]
        ),
        .testTarget(
            name: "ScenarioJSONTests",
            dependencies: ["ScenarioJSON"]
        ),
        .testTarget(
            name: "HandoffReportTests",
            dependencies: [
                "HandoffReport", "HandoffCalibration", "HandoffBaseline", "HandoffScenario", "ScenarioJSON", "Handoff",
                "SimKernel",
            ]
        ),
        .testTarget(
            // With HandoffCalibration for `defaults`' attribution, which
            // names a fit's experiment, HandoffBaseline for the errors of
            // baseline files and of the recorder, and HandoffAdvice for the
            // advisor's tests beside the sweeps'.
            name: "HandoffScenarioTests",
            dependencies: [
                "HandoffScenario", "ScenarioJSON", "HandoffCalibration", "HandoffBaseline", "HandoffAdvice",
                "HandoffReport", "Handoff", "HandoffWorld", "SimKernel",
            ]
        ),
        .testTarget(
            name: "HandoffCalibrationTests",
            dependencies: ["HandoffCalibration", "HandoffScenario", "ScenarioJSON", "Handoff", "HandoffWorld", "SimKernel"]
        ),
        .testTarget(
            // An app team's view: the one public library, no @testable.
            name: "ExampleAppTests",
            dependencies: ["HandoffSim"]
        ),
        .testTarget(
            // The commands in-process: the spec, the parser, the help, and a
            // few commands end to end without starting a process.
            name: "HandoffSimCommandsTests",
            dependencies: ["HandoffSimCommands", "HandoffBaseline", "HandoffScenario", "ScenarioJSON", "Handoff"]
        ),
        .testTarget(
            name: "HandoffSimCLITests",
            dependencies: ["handoff-sim", "HandoffBench"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
