import HandoffScenario

/// The summary `handoff-sim run --seeds` prints: one line per scenario file
/// with its verdict under each seed, then, seed by seed, what did not pass
/// (as ``TextReport`` shows it, with replay commands; an invalid file's
/// problems once, under the first seed), and a total.
///
/// ```
/// PASS     Burst loss on the peer-to-peer link   pass pass pass
/// FRAGILE  Two sources: …                        pass fragile pass
/// ```
public enum SeedsReport {
    /// One seed's results.
    public struct SeedRun: Sendable {
        /// The seed every scenario ran under.
        public let seed: UInt64
        /// The results, one per file, in the files' order.
        public let results: [FileResult]

        /// One seed's results.
        public init(seed: UInt64, results: [FileResult]) {
            self.seed = seed
            self.results = results
        }
    }

    /// A file's verdict under one seed, from best to worst.
    enum Status: Int, Comparable {
        case skipped, pass, fragile, fail, error, invalid

        var word: String {
            switch self {
            case .skipped: "skip"
            case .pass: "pass"
            case .fragile: "fragile"
            case .fail: "FAIL"
            case .error: "ERROR"
            case .invalid: "INVALID"
            }
        }

        var label: String {
            switch self {
            case .skipped: "SKIP    "
            case .pass: "PASS    "
            case .fragile: "FRAGILE "
            case .fail: "FAIL    "
            case .error: "ERROR   "
            case .invalid: "INVALID "
            }
        }

        static func < (lhs: Status, rhs: Status) -> Bool { lhs.rawValue < rhs.rawValue }

        init(_ result: FileResult) {
            switch result.outcome {
            case .invalid: self = .invalid
            case .skipped: self = .skipped
            case let .ran(run):
                self = run.failure != nil ? .error : !run.passed ? .fail : run.isFragile ? .fragile : .pass
            }
        }
    }

    /// The summary of `runs` (every run over the same files, in the same
    /// order).
    ///
    /// - Parameters:
    ///   - command: how to invoke the tool in replay commands.
    ///   - quiet: list only files that did not pass under every seed.
    public static func render(_ runs: [SeedRun], command: String = "handoff-sim", quiet: Bool = false) -> String {
        guard let first = runs.first else { return "" }
        var lines = ["seeds: " + runs.map { "\($0.seed)" }.joined(separator: " ")]
        let width = max(8, first.results.map { TextReport.name(of: $0).count }.max() ?? 8)
        var counts = [Status: Int]()
        var seconds = 0.0
        for (index, result) in first.results.enumerated() {
            let statuses = runs.map { Status($0.results[index]) }
            let worst = statuses.max() ?? .pass
            counts[worst, default: 0] += 1
            if quiet && worst <= .pass { continue }
            lines.append("\(worst.label) \(TextReport.pad(TextReport.name(of: result), width))  "
                + statuses.map(\.word).joined(separator: " "))
        }
        for (index, run) in runs.enumerated() {
            for result in run.results { if case let .ran(ran) = result.outcome { seconds += ran.wallClockSeconds } }
            // An invalid file's problems are the same under every seed: shown once.
            let notPassed = run.results.filter { Status($0) > .pass && (index == 0 || Status($0) != .invalid) }
            guard !notPassed.isEmpty else { continue }
            lines.append("")
            lines.append("seed \(run.seed):")
            let details = TextReport.render(notPassed, command: command, quiet: true, showsTotal: false)
            lines.append(contentsOf: details.split(separator: "\n").map(String.init))
        }
        let files = first.results.count
        var total = "\(files) scenario\(files == 1 ? "" : "s") over \(runs.count) seed\(runs.count == 1 ? "" : "s"): \(counts[.pass, default: 0]) passed under every seed"
        for (status, word) in [(Status.fragile, "fragile"), (.fail, "failed"), (.error, "with errors"), (.invalid, "invalid"), (.skipped, "skipped")] {
            if let count = counts[status], count > 0 { total += ", \(count) \(word)" }
        }
        total += " in \(TextReport.secondsText(seconds)) of wall time"
        lines.append("")
        lines.append(total)
        return lines.escapedLines
    }
}
