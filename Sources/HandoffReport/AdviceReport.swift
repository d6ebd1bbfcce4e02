import Handoff
import HandoffWorld
import HandoffScenario
import ScenarioJSON
import SimKernel

/// `handoff-sim advise` output: plain words, or JSON.
public enum AdviceReport {
    /// One paragraph per answer, in plain words, labelled by the path
    /// (and the profile where it applies), with where the time goes and,
    /// when it was asked for, the sensitivity table.
    public static func text(_ advice: [Advisor.Advice], target: Advisor.Target) -> String {
        let percentile = "p\(numberText(target.percentile))"
        let goal = "\(target.metric.label) \(percentile) under \(target.latency)"
            + (target.success < 1 ? " with at least \(percentWords(target.success)) of handoffs succeeding" : " with every handoff succeeding")
        var lines: [String] = []
        for item in advice {
            var line = "\(item.label): "
            if let largest = item.largestPayload {
                if item.limitBinds {
                    line += "every userInfo up to the \(sizeWords(largest)) limit keeps \(goal)"
                } else {
                    line += "the largest userInfo that keeps \(goal) is \(sizeWords(largest))"
                }
                if let latency = item.latencyAtLargest, let success = item.successAtLargest {
                    line += " (\(percentile) \(latency.rounded(toSignificantDigits: 3)), \(percentWords(success)) succeed there)"
                }
                line += "."
            } else {
                line += "no userInfo size keeps \(goal), not even the smallest tried"
                if let value = item.smallestTried.value {
                    line += ": at \(sizeWords(item.smallestTried.bytes)) \(percentile) is \(value.rounded(toSignificantDigits: 3))"
                }
                line += "."
            }
            if let crossover = item.streamsSoonerFrom {
                line += " Beyond \(sizeWords(crossover)), continuation streams restore sooner than userInfo."
            } else {
                line += " Continuation streams are never sooner up to the userInfo limit; use them only above it (where userInfo fails with 4611)."
            }
            lines.append(line)
            if let interval = item.interval {
                lines.append(
                    "  over the fit's \(interval.replicates) bootstrap replicates the answer lies between "
                        + "\(interval.low.map(sizeWords) ?? "none") and \(interval.high.map(sizeWords) ?? "none") (95%)")
            }
            let at = item.largestPayload ?? item.smallestTried.bytes
            if let budget = item.budget {
                lines.append("  where the time goes at \(sizeWords(at)) (p\(Int(budget.tailPercentile)) trials): \(BudgetText.shares(budget))")
            }
            lines += sensitivityLines(item, target: target)
        }
        return lines.escapedLines
    }

    /// The tornado table: each parameter's range, its evidence, the
    /// percentile at either end and the answer at either end, largest
    /// movement first; then a sentence when an assumption alone moves the
    /// answer across the target.
    static func sensitivityLines(_ item: Advisor.Advice, target: Advisor.Target) -> [String] {
        guard !item.sensitivity.isEmpty else { return [] }
        let percentile = "p\(numberText(target.percentile))"
        let at = item.largestPayload ?? item.smallestTried.bytes
        let reference = item.largestPayload != nil ? item.latencyAtLargest : item.smallestTried.value
        var lines = [
            "  sensitivity: \(percentile) at \(sizeWords(at))"
                + (reference.map { " (\($0.rounded(toSignificantDigits: 3)) as the file and its overlay stand)" } ?? "")
                + " with each default moved across its plausible range, largest movement first:",
        ]
        let rows = item.sensitivity.map { entry -> [String] in
            func value(_ duration: SimDuration?) -> String { duration.map { "\($0.rounded(toSignificantDigits: 3))" } ?? "–" }
            func answer(_ bytes: Int??) -> String {
                guard let bytes else { return "" }
                return bytes.map(shortSize) ?? "none"
            }
            let answers = entry.lowAnswer == nil ? "" : "\(answer(entry.lowAnswer)) … \(answer(entry.highAnswer))"
            return [
                entry.parameter, entry.evidence.kind, entry.range.description,
                "\(value(entry.low)) … \(value(entry.high))", answers,
            ]
        }
        let header = ["parameter", "evidence", "range", "\(percentile) low … high", "answer low … high"]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            let cells = row.indices.map { $0 == row.count - 1 ? row[$0] : row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
            var text = "    " + cells.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            lines.append(text)
        }
        // An assumption alone across the target.
        let meets = item.largestPayload != nil
        for entry in item.sensitivity where entry.evidence == .assumed {
            let ends: [(String, SimDuration?, Double)] = [("low", entry.low, entry.range.low), ("high", entry.high, entry.range.high)]
            if let end = ends.first(where: { end in end.1.map { ($0 <= target.latency) != meets } ?? false }), let value = end.1 {
                lines.append(
                    "  An assumption alone can move this answer across the target: with \(entry.parameter) at the \(end.0) end of its "
                        + "plausible range (\(entry.range.quantity) \(SweepChart.number(end.2))\(entry.range.unit.isEmpty ? "" : " " + entry.range.unit)), \(percentile) at \(sizeWords(at)) is "
                        + "\(value.rounded(toSignificantDigits: 3)), \(meets ? "over" : "within") the target of \(target.latency).")
                break
            }
        }
        return lines
    }

    /// 12288 as `12 KiB`, 6074 as `5.9 KiB`, 300 as `300 B`.
    static func shortSize(_ bytes: Int) -> String {
        if bytes >= 1024, bytes % 1024 == 0 { return "\(bytes / 1024) KiB" }
        if bytes >= 1024 {
            let tenths = (bytes * 10 + 512) / 1024
            return "\(tenths / 10).\(tenths % 10) KiB"
        }
        return "\(bytes) B"
    }

    /// The advice as JSON: the target, then one answer per profile with
    /// its path, the size (null when none meets the target), the smallest
    /// size tried, the interval (null without replicates), the sensitivity
    /// and the budget.
    public static func json(_ advice: [Advisor.Advice], target: Advisor.Target, file: String, toolVersion: String) -> String {
        func nanoseconds(_ value: SimDuration?) -> JSONOutput { value.map { .int($0.nanoseconds) } ?? .null }
        let report: JSONOutput = .object([
            ("tool", .string("handoff-sim advise")),
            ("toolVersion", .string(toolVersion)),
            ("file", .string(file)),
            ("target", .object([
                ("metric", .string(target.metric.rawValue)),
                ("percentile", .double(target.percentile)),
                ("latencyNanoseconds", .int(target.latency.nanoseconds)),
                ("success", .double(target.success)),
            ])),
            ("answers", .array(advice.map { item in
                .object([
                    ("path", .string(item.path)),
                    ("profile", item.profileApplies ? .string(item.profile) : .null),
                    ("metric", .string(target.metric.rawValue)),
                    ("percentile", .double(target.percentile)),
                    ("target", .int(target.latency.nanoseconds)),
                    ("bytes", item.largestPayload.map { .int(Int64($0)) } ?? .null),
                    ("limitBinds", .bool(item.limitBinds)),
                    ("value", nanoseconds(item.latencyAtLargest)),
                    ("success", item.successAtLargest.map(JSONOutput.double) ?? .null),
                    ("smallestTried", .object([
                        ("bytes", .int(Int64(item.smallestTried.bytes))), ("value", nanoseconds(item.smallestTried.value)),
                    ])),
                    ("interval", item.interval.map { interval in
                        .object([
                            ("low", interval.low.map { .int(Int64($0)) } ?? .null),
                            ("high", interval.high.map { .int(Int64($0)) } ?? .null),
                            ("replicates", .int(Int64(interval.replicates))),
                        ])
                    } ?? .null),
                    ("sensitivity", .array(item.sensitivity.map { entry in
                        func answer(_ bytes: Int??) -> JSONOutput {
                            guard let bytes else { return .null }
                            return bytes.map { .int(Int64($0)) } ?? .null
                        }
                        var members: [(String, JSONOutput)] = [
                            ("parameter", .string(entry.parameter)),
                            ("evidence", .string(entry.evidence.kind)),
                            ("paths", .array(entry.range.paths.map(JSONOutput.string))),
                            ("range", .object([
                                ("low", .string(entry.range.text(entry.range.low))),
                                ("high", .string(entry.range.text(entry.range.high))),
                            ])),
                            ("bytes", .int(Int64(entry.bytes))),
                            ("low", nanoseconds(entry.low)),
                            ("high", nanoseconds(entry.high)),
                        ]
                        if entry.lowAnswer != nil {
                            members.append(("lowBytes", answer(entry.lowAnswer)))
                            members.append(("highBytes", answer(entry.highAnswer)))
                        }
                        return .object(members)
                    })),
                    ("budget", .array((item.budget?.ranked ?? []).map { figure in
                        .object([
                            ("phase", .string(figure.phase.description)),
                            ("share", .double((figure.tailShare * 1e6).rounded() / 1e6)),
                            ("meanNanoseconds", .int(figure.mean.nanoseconds)),
                        ])
                    })),
                    ("streamsSoonerFromBytes", item.streamsSoonerFrom.map { .int(Int64($0)) } ?? .null),
                    ("probes", .int(Int64(item.probes))),
                ])
            })),
        ])
        return report.render(pretty: true)
    }

    /// 49152 as "48 KiB (49 152 bytes)", 1000 as "1 000 bytes".
    static func sizeWords(_ bytes: Int) -> String {
        let grouped = groupedDigits(bytes)
        if bytes >= 1024, bytes % 1024 == 0 { return "\(bytes / 1024) KiB (\(grouped) bytes)" }
        if bytes >= 1024 {
            let tenths = (bytes * 10 + 512) / 1024
            return "\(tenths / 10).\(tenths % 10) KiB (\(grouped) bytes)"
        }
        return "\(grouped) bytes"
    }

    static func groupedDigits(_ value: Int) -> String {
        var digits = Array(String(value))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(" ", at: index)
            index -= 3
        }
        return String(digits)
    }

    static func percentWords(_ fraction: Double) -> String {
        let tenths = Int64((fraction * 1000).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)%" : "\(tenths / 10).\(tenths % 10)%"
    }

    static func numberText(_ value: Double) -> String {
        value == value.rounded() ? String(Int64(value)) : "\(value)"
    }
}
