import HandoffCalibration
import HandoffScenario
import ScenarioJSON
import SimKernel

/// `handoff-sim calibrate` output: a text report, or JSON.
public enum CalibrationReport {
    /// The parameters (with intervals), then every group's KS distance
    /// against its 5% critical value and the measured and simulated
    /// quantiles.
    public static func text(_ result: CalibrationResult) -> String {
        var lines = ["\(result.name) (\(result.file)): "
            + (result.fitted ? "fitted in \(result.evaluations) simulations of at most \(result.trials) trials per group (\(result.trialsSimulated) trials in all)"
                : "checked with \(result.trials) trials per group")
            + ", seed \(result.seed)"
            + (result.seedCount > 1 ? " (the search's objective averaged over seeds \(result.seed)–\(result.seed &+ UInt64(result.seedCount - 1)))" : "")]
        if !result.parameters.isEmpty {
            lines.append("")
            for fitted in result.parameters {
                let parameter = fitted.parameter
                var line = "  \(parameter.path) = \(parameter.display(fitted.value))"
                if let interval = fitted.interval {
                    line += "  (95% interval \(parameter.display(interval.lowerBound)) … \(parameter.display(interval.upperBound)), \(result.bootstrap) bootstrap replicates)"
                }
                line += "  [range \(parameter.display(parameter.minimum)) … \(parameter.display(parameter.maximum)), \(parameter.scale.rawValue)]"
                lines.append(line)
            }
        }
        for group in result.groups {
            lines.append("")
            let name = group.group.isEmpty ? "dataset \(group.dataset + 1)" : "dataset \(group.dataset + 1), group \(group.group)"
            let verdict = group.ks <= group.critical ? "within" : "beyond"
            lines.append("  \(name): \(group.metric.rawValue), \(group.measuredCount) measured, \(group.simulatedCount) simulated")
            lines.append("    Kolmogorov–Smirnov distance \(Format.fixed(group.ks, 3)), \(verdict) the 5% critical value \(Format.fixed(group.critical, 3))")
            if let measured = group.measuredSuccess {
                lines.append("    success: measured \(Format.fixed(measured * 100, 1))%, simulated \(Format.fixed(group.simulatedSuccess * 100, 1))%")
            }
            func row(_ label: String, _ cells: [String]) -> String {
                var line = label + cells.map { pad($0, 9) }.joined()
                while line.hasSuffix(" ") { line.removeLast() }
                return line
            }
            lines.append(row("    quantile    ", group.quantiles.map { Format.percentile($0.level * 100) }))
            lines.append(row("    measured    ", group.quantiles.map { Format.measuredMilliseconds($0.measured) }))
            lines.append(row("    simulated   ", group.quantiles.map { $0.simulated.map(Format.measuredMilliseconds) ?? "—" }))
        }
        lines.append("")
        lines.append("objective \(Format.fixed(result.objective, 4)) (the sum over groups of the KS distance and the quantile loss)")
        return lines.escapedLines
    }

    /// The result as JSON.
    public static func json(_ result: CalibrationResult, toolVersion: String) -> String {
        let report: JSONOutput = .object([
            ("tool", .string("handoff-sim calibrate")),
            ("toolVersion", .string(toolVersion)),
            ("experiment", .string(result.name)),
            ("file", .string(result.file)),
            ("seed", .int(Int64(bitPattern: result.seed))),
            ("seeds", .int(Int64(result.seedCount))),
            ("trials", .int(Int64(result.trials))),
            ("fitted", .bool(result.fitted)),
            ("evaluations", .int(Int64(result.evaluations))),
            ("trialsSimulated", .int(Int64(result.trialsSimulated))),
            ("bootstrap", .int(Int64(result.bootstrap))),
            ("objective", .double(result.objective)),
            ("parameters", .array(result.parameters.map { fitted in
                .object([
                    ("path", .string(fitted.parameter.path)),
                    ("kind", .string(fitted.parameter.kind.rawValue)),
                    ("value", .double(fitted.value)),
                    ("text", .string(fitted.parameter.text(fitted.value))),
                    ("interval", fitted.interval.map { .array([.double($0.lowerBound), .double($0.upperBound)]) } ?? .null),
                    ("minimum", .double(fitted.parameter.minimum)),
                    ("maximum", .double(fitted.parameter.maximum)),
                    ("scale", .string(fitted.parameter.scale.rawValue)),
                ])
            })),
            ("groups", .array(result.groups.map { group in
                .object([
                    ("dataset", .int(Int64(group.dataset))),
                    ("group", .string(group.group)),
                    ("metric", .string(group.metric.rawValue)),
                    ("measured", .int(Int64(group.measuredCount))),
                    ("simulated", .int(Int64(group.simulatedCount))),
                    ("ks", .double(group.ks)),
                    ("critical", .double(group.critical)),
                    ("measuredSuccess", group.measuredSuccess.map(JSONOutput.double) ?? .null),
                    ("simulatedSuccess", .double(group.simulatedSuccess)),
                    ("quantiles", .array(group.quantiles.map { quantile in
                        .object([
                            ("level", .double(quantile.level)),
                            ("measuredMilliseconds", .double(quantile.measured)),
                            ("simulatedMilliseconds", quantile.simulated.map(JSONOutput.double) ?? .null),
                        ])
                    })),
                ])
            })),
        ])
        return report.render(pretty: true)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

}
