import HandoffScenario

extension RunReport {
    /// JUnit XML, as CI systems read it: `<testsuites>`, one `<testsuite>` per
    /// scenario file, one `<testcase>` per scenario with a dotted `classname`;
    /// `<failure>` for the status `fail`, `<error>` for `error` and `invalid`,
    /// `<skipped>` for `skipped`; the seed, trials and status in
    /// `<properties>`; times in seconds with a `.` (the only wall-clock figures
    /// in the file). It renders a `RunSummary` and decides no status itself.
    ///
    /// A fragile scenario (every expectation held, some only fragilely; see
    /// `Verdict`) is a passing test case, so that it does not fail CI: its
    /// `<testsuite>` has the property `verdict` = `fragile` and the test case a
    /// `<system-out>` naming each fragile expectation with its interval. Under
    /// `--strict` its status is `fail`: a `<failure>` of type `FragileVerdict`.
    ///
    /// The report as XML. With several seeds (`RunSummary.seeds`) every
    /// test suite's and test case's name ends in " [seed S]".
    public static func junit(_ summary: RunSummary, toolVersion: String, command: String = "handoff-sim") -> String {
        var suites: [String] = []
        var failures = 0
        var errors = 0
        var total = 0.0
        for entry in summary.entries {
            suites.append(testSuite(entry, toolVersion: toolVersion, command: command, namesSeeds: summary.seeds != nil))
            switch entry.status {
            case .fail: failures += 1
            case .error, .invalid: errors += 1
            case .pass, .fragile, .skipped: break
            }
            total += entry.run?.wallClockSeconds ?? 0
        }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            "<testsuites name=\"handoff-sim\" tests=\"\(summary.entries.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(Format.seconds(total, decimals: 3, unit: false))\">",
        ]
        lines.append(contentsOf: suites)
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func testSuite(_ entry: RunSummary.Entry, toolVersion: String, command: String, namesSeeds: Bool) -> String {
        let className = dottedClassName(entry.file)
        let status = entry.status
        var lines: [String] = []
        switch entry.result.outcome {
        case let .invalid(problems):
            lines.append("  <testsuite name=\"\(Escape.xml(entry.file))\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">")
            lines.append("    <properties>")
            lines.append("      <property name=\"toolVersion\" value=\"\(Escape.xml(toolVersion))\"/>")
            lines.append("      <property name=\"verdict\" value=\"\(status.rawValue)\"/>")
            lines.append("    </properties>")
            lines.append("    <testcase classname=\"\(Escape.xml(className))\" name=\"\(Escape.xml(entry.file))\" time=\"0.000\">")
            let count = problems.problems.count
            lines.append("      <error message=\"invalid scenario file: \(count) problem\(count == 1 ? "" : "s")\" type=\"InvalidScenario\">\(Escape.xml(problems.description))</error>")
            lines.append("    </testcase>")
        case let .skipped(scenario):
            lines.append("  <testsuite name=\"\(Escape.xml(entry.file))\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"0.000\">")
            lines.append("    <properties>")
            lines.append("      <property name=\"verdict\" value=\"\(status.rawValue)\"/>")
            lines.append("    </properties>")
            lines.append("    <testcase classname=\"\(Escape.xml(className))\" name=\"\(Escape.xml(scenario.name))\" time=\"0.000\">")
            lines.append("      <skipped message=\"no expectations (a file for sweeps)\"/>")
            lines.append("    </testcase>")
        case let .ran(run):
            let time = Format.seconds(run.wallClockSeconds, decimals: 3, unit: false)
            let suffix = namesSeeds ? " [seed \(run.seed)]" : ""
            // A scenario that ran fails (status fail) or stops (status error).
            let (failed, errored) = (status == .fail ? 1 : 0, status == .error ? 1 : 0)
            lines.append("  <testsuite name=\"\(Escape.xml(entry.file + suffix))\" tests=\"1\" failures=\"\(failed)\" errors=\"\(errored)\" skipped=\"0\" time=\"\(time)\">")
            lines.append("    <properties>")
            lines.append("      <property name=\"seed\" value=\"\(run.seed)\"/>")
            lines.append("      <property name=\"trials\" value=\"\(run.trials)\"/>")
            lines.append("      <property name=\"digest\" value=\"\(run.scenario.digest)\"/>")
            lines.append("      <property name=\"toolVersion\" value=\"\(Escape.xml(toolVersion))\"/>")
            lines.append("      <property name=\"verdict\" value=\"\(status.rawValue)\"/>")
            lines.append("    </properties>")
            let opening = "    <testcase classname=\"\(Escape.xml(className))\" name=\"\(Escape.xml(run.scenario.name + suffix))\" time=\"\(time)\""
            if status == .pass {
                lines.append(opening + "/>")
                lines.append("  </testsuite>")
                return lines.joined(separator: "\n")
            }
            lines.append(opening + ">")
            if let failure = run.failure {
                var body = "\(failure)"
                if let trial = failure.trial {
                    body += "\nreplay: " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial)
                }
                lines.append("      <error message=\"\(Escape.xml("\(failure)"))\" type=\"ScenarioError\">\(Escape.xml(body))</error>")
            } else {
                let notable = entry.notableExpectations
                var body: [String] = []
                for expectation in notable {
                    body.append((expectation.verdict == .fragile ? "fragile: " : "") + "\(expectation.expectation.path): expected \(expectation.asked)")
                    body.append("  measured: \(expectation.measured)")
                    if let note = expectation.fragileNote { body.append("  \(note)") }
                    if let trial = expectation.failingTrial {
                        body.append("  replay: " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))
                    }
                }
                let text = Escape.xml(body.joined(separator: "\n"))
                let of = "\(notable.count) of \(run.expectations.count) expectation\(run.expectations.count == 1 ? "" : "s")"
                switch status {
                case .fail where entry.failsOnlyUnderStrict:
                    lines.append("      <failure message=\"\(Escape.xml(of + " fragile (--strict)"))\" type=\"FragileVerdict\">\(text)</failure>")
                case .fail:
                    lines.append("      <failure message=\"\(Escape.xml(of + " failed"))\" type=\"ExpectationFailed\">\(text)</failure>")
                case .fragile:
                    lines.append("      <system-out>\(text)</system-out>")
                case .pass, .error, .invalid, .skipped:
                    break
                }
            }
            lines.append("    </testcase>")
        }
        lines.append("  </testsuite>")
        return lines.joined(separator: "\n")
    }

    /// `scenarios/net/slow.json` as `scenarios.net.slow`.
    static func dottedClassName(_ file: String) -> String {
        var name = file
        if name.hasSuffix(".json") { name = String(name.dropLast(5)) }
        while name.hasPrefix("./") { name = String(name.dropFirst(2)) }
        while name.hasPrefix("/") { name = String(name.dropFirst()) }
        return name.split(separator: "/").map { $0.replacingDots() }.joined(separator: ".")
    }


}

extension Substring {
    /// The path component with its own dots kept apart from the separators.
    func replacingDots() -> String { String(self).split(separator: ".").joined(separator: "_") }
}
