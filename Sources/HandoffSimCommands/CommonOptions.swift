// The options common to several commands. A command's own options are
// declared beside it; a command that describes a common option in its own
// words lists it as `.jobs.helping("…")`.
import Foundation
import HandoffScenario

extension CommandOption where Self == Option<Int?> {
    /// `--trials N`, for the commands that run trials: nil for the file's.
    static var trials: Option<Int?> {
        .option(
            name: "--trials", .integer("N", in: 1...ScenarioDecoder.maximumTrials),
            help: "Run N trials instead of the file's \"trials\".")
    }
}

extension CommandOption where Self == Option<UInt64?> {
    /// `--seed S`, for the commands that run trials: nil for the file's.
    static var seed: Option<UInt64?> {
        .option(name: "--seed", .seed, help: "Use seed S instead of the file's \"seed\".")
    }
}

extension CommandOption where Self == Option<Int> {
    /// `--jobs N`, for the commands that run trials: every core when not
    /// given.
    static var jobs: Option<Int> {
        .option(
            name: "--jobs", .integer("N", in: 1...1024), default: defaultJobs, shownAs: "every core",
            help: "Spread trials over N threads. Results never depend on N.")
    }
}

extension CommandOption where Self == Option<Bool> {
    /// `--no-progress`, for the commands that show progress.
    static var noProgress: Option<Bool> {
        .flag(name: "--no-progress", help: "No progress line (one is shown only when standard error is a terminal).")
    }
}

extension CommandOption where Self == Option<String?> {
    /// `--output PATH`, for the commands that write one result: nil for
    /// standard output.
    static var output: Option<String?> {
        .option(
            name: "--output", .text("PATH"), outputPath: true, help: "Write to PATH (atomically) instead of standard output.")
    }

    /// `--overlay FILE`, for the commands that run scenarios.
    static var overlay: Option<String?> {
        .option(
            name: "--overlay", .text("FILE"),
            help: "Write FILE's values (an overlay from 'handoff-sim calibrate --output') over every scenario before it runs.")
    }

    /// `--samples PATH`, for run and sweep.
    static var samples: Option<String?> {
        .option(
            name: "--samples", .text("PATH"), outputPath: true,
            help: "Write every trial to PATH as CSV: one row per trial and receiving device, with its outcome and every latency in ns (see docs/cli.md). Memory grows with the trials.")
    }
}

extension ValueSyntax where Element == UInt64 {
    /// A seed `S`: a whole number from 0 to 2⁶³ − 1, as scenario files
    /// take it.
    static var seed: ValueSyntax { .integer("S", in: 0...UInt64(Int64.max)) }
}

/// The format of a report that is text or JSON (`advise`, `calibrate`).
enum ReportFormat: String, CaseIterable, Sendable {
    case text
    case json
}

extension CommandOption where Self == Option<ReportFormat> {
    /// `--format FORMAT` of advise and calibrate.
    static var reportFormat: Option<ReportFormat> {
        .option(name: "--format", .choice("FORMAT"), default: .text, help: "The report's format.")
    }
}

/// The number of cores to use by default.
var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
