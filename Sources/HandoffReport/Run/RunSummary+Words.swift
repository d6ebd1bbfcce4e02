import HandoffScenario

// The words every run report shares: a status's label, the totals
// sentence, and what an entry's notable expectations say. The status
// itself is decided once, by RunSummary; these only name it.

extension RunSummary.Status {
    /// The status upper-cased and padded to eight columns, as the text
    /// report's lines begin: `PASS    `, `FRAGILE `, `SKIPPED `.
    var label: String {
        let word = rawValue.uppercased()
        return word + String(repeating: " ", count: max(1, 8 - word.count))
    }

    /// The status in the totals sentence: "passed", "fragile", "failed",
    /// "with errors", "invalid", "skipped".
    var totalWord: String {
        switch self {
        case .pass: "passed"
        case .fragile: "fragile"
        case .fail: "failed"
        case .error: "with errors"
        case .invalid: "invalid"
        case .skipped: "skipped"
        }
    }
}

extension RunSummary {
    /// "37 scenarios: 35 passed, 1 fragile, 1 failed" (statuses with no
    /// file left out, "passed" always said), with " (--strict: a fragile
    /// scenario fails)" when `--strict` failed a fragile file. Over
    /// several seeds each file counts once, at its worst status:
    /// "5 scenarios over 3 seeds: 4 passed under every seed, 1 failed".
    var totalsSentence: String {
        let files = self.files
        let statuses = seeds == nil ? entries.map(\.status) : files.map(\.worst)
        var sentence = "\(statuses.count) scenario\(statuses.count == 1 ? "" : "s")"
        if let seeds { sentence += " over \(seeds.count) seed\(seeds.count == 1 ? "" : "s")" }
        var parts: [String] = []
        for status in Status.allCases {
            let count = statuses.count { $0 == status }
            if status == .pass {
                parts.append("\(count) passed" + (seeds == nil ? "" : " under every seed"))
            } else if count > 0 {
                parts.append("\(count) \(status.totalWord)")
            }
        }
        sentence += ": " + parts.joined(separator: ", ")
        if entries.contains(where: \.failsOnlyUnderStrict) { sentence += " (--strict: a fragile scenario fails)" }
        return sentence
    }
}

extension RunSummary.Entry {
    /// The entry's name with " (seed S)" when the run had several seeds.
    func name(namingSeed: Bool) -> String {
        name + (namingSeed ? seed.map { " (seed \($0))" } ?? "" : "")
    }

    /// What the entry's status line says after its name: "100 trials, 2/2
    /// expectations", the error, the problem count or "no expectations (a
    /// file for sweeps)"; with " (fragile, --strict)" when only `--strict`
    /// failed it.
    var statusDetail: String {
        switch result.outcome {
        case let .invalid(problems):
            return "\(problems.problems.count) problem\(problems.problems.count == 1 ? "" : "s")"
        case .skipped:
            return "no expectations (a file for sweeps)"
        case let .ran(run):
            if let failure = run.failure { return "\(failure)" }
            return "\(run.trials) trials, \(heldExpectations)/\(run.expectations.count) expectations"
                + (failsOnlyUnderStrict ? " (fragile, --strict)" : "")
        }
    }

    /// The mark a notable expectation carries in text: ✗ for a failure,
    /// ~ for a fragile one (also when `--strict` fails it).
    func mark(of expectation: ExpectationResult) -> String {
        expectation.verdict == .fail ? "✗" : "~"
    }
}

extension ExpectationResult {
    /// "95% interval [1.1s, 1.4s] crosses the bound; about 2,400 trials
    /// would settle it", for a fragile expectation; nil otherwise.
    var fragileNote: String? {
        guard verdict == .fragile, let confidence else { return nil }
        return "\(confidence.text) crosses the bound" + (confidence.settleText.map { "; \($0)" } ?? "")
    }
}
