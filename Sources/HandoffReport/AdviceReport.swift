import Handoff
import HandoffScenario
import SimKernel

/// `handoff-sim advise` output: plain words, or JSON.
public enum AdviceReport {
    /// One paragraph per profile, in plain words.
    public static func text(_ advice: [Advisor.Advice], target: Advisor.Target) -> String {
        let goal = "\(target.metric.label) p\(numberText(target.percentile)) under \(target.latency)"
            + (target.success < 1 ? " with at least \(percentWords(target.success)) of handoffs succeeding" : " with every handoff succeeding")
        var lines: [String] = []
        for item in advice {
            var line = "\(item.profile): "
            if let largest = item.largestPayload {
                if item.limitBinds {
                    line += "every userInfo up to the \(sizeWords(largest)) limit keeps \(goal)"
                } else {
                    line += "the largest userInfo that keeps \(goal) is \(sizeWords(largest))"
                }
                if let latency = item.latencyAtLargest, let success = item.successAtLargest {
                    line += " (p\(numberText(target.percentile)) \(latency), \(percentWords(success)) succeed there)"
                }
                line += "."
            } else {
                line += "no userInfo size keeps \(goal), not even the smallest tried."
            }
            if let crossover = item.streamsSoonerFrom {
                line += " Beyond \(sizeWords(crossover)), continuation streams restore sooner than userInfo."
            } else {
                line += " Continuation streams are never sooner up to the userInfo limit; use them only above it (where userInfo fails with 4611)."
            }
            lines.append(line)
        }
        return lines.escapedLines
    }

    /// The advice as JSON.
    public static func json(_ advice: [Advisor.Advice], target: Advisor.Target, file: String, toolVersion: String) -> String {
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
            ("profiles", .array(advice.map { item in
                .object([
                    ("profile", .string(item.profile)),
                    ("largestPayloadBytes", item.largestPayload.map { .int(Int64($0)) } ?? .null),
                    ("limitBinds", .bool(item.limitBinds)),
                    ("latencyAtLargestNanoseconds", item.latencyAtLargest.map { .int($0.nanoseconds) } ?? .null),
                    ("successAtLargest", item.successAtLargest.map(JSONOutput.double) ?? .null),
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
