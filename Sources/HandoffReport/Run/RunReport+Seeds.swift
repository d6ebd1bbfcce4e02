import HandoffScenario

extension RunReport {
    /// The summary `handoff-sim run --seeds` prints: one line per scenario
    /// file with its status under each seed, then, seed by seed, what did
    /// not pass (as ``text(_:command:quiet:budgets:)`` shows it, with
    /// replay commands; an invalid file's problems once, under the first
    /// seed), and a total.
    ///
    /// ```
    /// PASS     Burst loss on the peer-to-peer link   pass pass pass
    /// FRAGILE  Two sources: …                        pass fragile pass
    /// ```
    ///
    /// - Parameters:
    ///   - summary: The run over several seeds (`RunSummary.seeds`).
    ///   - command: how to invoke the tool in replay commands.
    ///   - quiet: list only files that did not pass under every seed.
    public static func seedsTable(_ summary: RunSummary, command: String = "handoff-sim", quiet: Bool = false) -> String {
        let files = summary.files
        let seeds = summary.seeds ?? []
        var lines = ["seeds: " + seeds.map { "\($0)" }.joined(separator: " ")]
        let width = max(8, files.compactMap { $0.entries.first?.name.count }.max() ?? 8)
        for file in files {
            let worst = file.worst
            guard let first = file.entries.first, !(quiet && (worst == .pass || worst == .skipped)) else { continue }
            lines.append("\(worst.label) \(RunReport.pad(first.name, width))  "
                + file.entries.map(\.status.rawValue).joined(separator: " "))
        }
        for (index, seed) in seeds.enumerated() {
            // An invalid file's problems are the same under every seed: shown once.
            let notPassed = files.map { $0.entries[index] }.filter { entry in
                entry.status != .pass && entry.status != .skipped && (index == 0 || entry.status != .invalid)
            }
            guard !notPassed.isEmpty else { continue }
            lines.append("")
            lines.append("seed \(seed):")
            let entryWidth = max(8, notPassed.map(\.name.count).max() ?? 8)
            for entry in notPassed {
                lines += RunReport.entryLines(entry, width: entryWidth, command: command, quiet: true, budgets: false)
            }
        }
        lines.append("")
        lines.append(summary.totalsSentence + " in \(Format.seconds(summary.wallClockSeconds, decimals: 2)) of wall time")
        return lines.escapedLines
    }
}
