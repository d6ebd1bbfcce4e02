import HandoffScenario

/// JUnit XML, as CI systems read it: `<testsuites>`, one `<testsuite>` per
/// scenario file, one `<testcase>` per scenario with a dotted `classname`;
/// `<failure>` for failed expectations, `<error>` for an invalid or aborted
/// scenario; the seed and trials in `<properties>`; times in seconds with a
/// `.` (the only wall-clock figures in the file).
///
/// A fragile scenario (every expectation held, some only fragilely; see
/// ``Verdict``) is a passing test case, so that it does not fail CI: its
/// `<testsuite>` has the property `verdict` = `fragile` and the test case a
/// `<system-out>` naming each fragile expectation with its interval. With
/// `strict`, it is a `<failure>` of type `FragileVerdict` instead.
public enum JUnitReport {
    /// The report as XML.
    ///
    /// - Parameters:
    ///   - strict: report a fragile scenario as a failure.
    ///   - namesSeeds: add " [seed S]" to every test suite's and test
    ///     case's name (for `run --seeds`, where a file runs once per seed).
    public static func render(
        _ results: [FileResult], toolVersion: String, command: String = "handoff-sim", strict: Bool = false,
        namesSeeds: Bool = false
    ) -> String {
        var suites: [String] = []
        var failures = 0
        var errors = 0
        var total = 0.0
        for result in results {
            let suite = testSuite(result, toolVersion: toolVersion, command: command, strict: strict, namesSeeds: namesSeeds)
            suites.append(suite.xml)
            failures += suite.failures
            errors += suite.errors
            total += suite.seconds
        }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            "<testsuites name=\"handoff-sim\" tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(seconds(total))\">",
        ]
        lines.append(contentsOf: suites)
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func testSuite(_ result: FileResult, toolVersion: String, command: String, strict: Bool, namesSeeds: Bool = false)
        -> (xml: String, failures: Int, errors: Int, seconds: Double)
    {
        let className = dottedClassName(result.file)
        var lines: [String] = []
        switch result.outcome {
        case let .invalid(problems):
            lines.append("  <testsuite name=\"\(escape(result.file))\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">")
            lines.append("    <properties>")
            lines.append("      <property name=\"toolVersion\" value=\"\(escape(toolVersion))\"/>")
            lines.append("    </properties>")
            lines.append("    <testcase classname=\"\(escape(className))\" name=\"\(escape(result.file))\" time=\"0.000\">")
            let count = problems.problems.count
            lines.append("      <error message=\"invalid scenario file: \(count) problem\(count == 1 ? "" : "s")\" type=\"InvalidScenario\">\(escape(problems.description))</error>")
            lines.append("    </testcase>")
            lines.append("  </testsuite>")
            return (lines.joined(separator: "\n"), 0, 1, 0)
        case let .skipped(scenario):
            lines.append("  <testsuite name=\"\(escape(result.file))\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"0.000\">")
            lines.append("    <testcase classname=\"\(escape(className))\" name=\"\(escape(scenario.name))\" time=\"0.000\">")
            lines.append("      <skipped message=\"no expectations (a file for sweeps)\"/>")
            lines.append("    </testcase>")
            lines.append("  </testsuite>")
            return (lines.joined(separator: "\n"), 0, 0, 0)
        case let .ran(run):
            let fragile = run.isFragile
            let failed = run.failure == nil && (!run.passed || (strict && fragile))
            let errored = run.failure != nil
            let verdict = errored ? "error" : !run.passed ? "fail" : fragile ? "fragile" : "pass"
            let time = seconds(run.wallClockSeconds)
            let suffix = namesSeeds ? " [seed \(run.seed)]" : ""
            lines.append("  <testsuite name=\"\(escape(result.file + suffix))\" tests=\"1\" failures=\"\(failed ? 1 : 0)\" errors=\"\(errored ? 1 : 0)\" skipped=\"0\" time=\"\(time)\">")
            lines.append("    <properties>")
            lines.append("      <property name=\"seed\" value=\"\(run.seed)\"/>")
            lines.append("      <property name=\"trials\" value=\"\(run.trials)\"/>")
            lines.append("      <property name=\"digest\" value=\"\(run.scenario.digest)\"/>")
            lines.append("      <property name=\"toolVersion\" value=\"\(escape(toolVersion))\"/>")
            lines.append("      <property name=\"verdict\" value=\"\(verdict)\"/>")
            lines.append("    </properties>")
            let opening = "    <testcase classname=\"\(escape(className))\" name=\"\(escape(run.scenario.name + suffix))\" time=\"\(time)\""
            if run.passed && !fragile {
                lines.append(opening + "/>")
                lines.append("  </testsuite>")
                return (lines.joined(separator: "\n"), 0, 0, run.wallClockSeconds)
            }
            lines.append(opening + ">")
            if let failure = run.failure {
                var body = "\(failure)"
                if let trial = failure.trial {
                    body += "\nreplay: " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial)
                }
                lines.append("      <error message=\"\(escape("\(failure)"))\" type=\"ScenarioError\">\(escape(body))</error>")
            } else if fragile {
                var body: [String] = []
                for expectation in run.expectations where expectation.verdict == .fragile {
                    body.append("fragile: \(expectation.expectation.path): expected \(expectation.asked)")
                    body.append("  measured: \(expectation.measured)")
                    if let confidence = expectation.confidence {
                        body.append("  \(confidence.text) crosses the bound" + (confidence.settleText.map { "; \($0)" } ?? ""))
                    }
                }
                let count = run.expectations.filter { $0.verdict == .fragile }.count
                if strict {
                    let message = "\(count) of \(run.expectations.count) expectation\(run.expectations.count == 1 ? "" : "s") fragile (--strict)"
                    lines.append("      <failure message=\"\(escape(message))\" type=\"FragileVerdict\">\(escape(body.joined(separator: "\n")))</failure>")
                } else {
                    lines.append("      <system-out>\(escape(body.joined(separator: "\n")))</system-out>")
                }
            } else if failed {
                let broken = run.expectations.filter { !$0.passed }
                var body: [String] = []
                for expectation in broken {
                    body.append("\(expectation.expectation.path): expected \(expectation.asked)")
                    body.append("  measured: \(expectation.measured)")
                    if let trial = expectation.failingTrial {
                        body.append("  replay: " + ReplayCommand.text(command: command, scenario: run.scenario, seed: run.seed, trial: trial))
                    }
                }
                let message = "\(broken.count) of \(run.expectations.count) expectation\(run.expectations.count == 1 ? "" : "s") failed"
                lines.append("      <failure message=\"\(escape(message))\" type=\"ExpectationFailed\">\(escape(body.joined(separator: "\n")))</failure>")
            }
            lines.append("    </testcase>")
            lines.append("  </testsuite>")
            return (lines.joined(separator: "\n"), failed ? 1 : 0, errored ? 1 : 0, run.wallClockSeconds)
        }
    }

    /// `scenarios/net/slow.json` as `scenarios.net.slow`.
    static func dottedClassName(_ file: String) -> String {
        var name = file
        if name.hasSuffix(".json") { name = String(name.dropLast(5)) }
        while name.hasPrefix("./") { name = String(name.dropFirst(2)) }
        while name.hasPrefix("/") { name = String(name.dropFirst()) }
        return name.split(separator: "/").map { $0.replacingDots() }.joined(separator: ".")
    }

    /// Seconds with three decimals and a `.`, whatever the locale.
    static func seconds(_ value: Double) -> String {
        let millis = Int64((max(0, value) * 1000).rounded())
        let fraction = millis % 1000
        let padded = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return "\(millis / 1000).\(padded)"
    }

    /// Text escaped for XML attributes and content; characters XML 1.0
    /// cannot carry become U+FFFD, and the control characters it can
    /// (tab, CR, LF, DEL, C1, the line and paragraph separators) are
    /// written as character references, so none reaches the file raw.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\n": result += "&#10;"
            case "\t": result += "&#9;"
            case "\r": result += "&#13;"
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    result += "\u{FFFD}"
                } else if (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    result += "&#x" + String(scalar.value, radix: 16, uppercase: true) + ";"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}

extension Substring {
    /// The path component with its own dots kept apart from the separators.
    func replacingDots() -> String { String(self).split(separator: ".").joined(separator: "_") }
}
