import Handoff
import HandoffAdvice
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
        var lines: [String] = []
        for item in advice {
            lines.append("\(item.label): " + answerSentence(item, target: target))
            if let interval = item.interval {
                lines.append(
                    "  over the fit's \(interval.replicates) bootstrap replicates the answer lies between "
                        + "\(interval.low.map(Format.sizeWithBytes) ?? "none") and \(interval.high.map(Format.sizeWithBytes) ?? "none") (95%)")
            }
            lines.append("  " + assumptionsSummary(item))
            let at = item.largestPayload ?? item.smallestTried.bytes
            if let budget = item.budget {
                lines.append("  where the time goes at \(Format.sizeWithBytes(at)) (p\(Int(budget.tailPercentile)) trials): \(BudgetText.shares(budget))")
            }
            lines += sensitivityLines(item, target: target)
        }
        return lines.escapedLines
    }

    /// The goal an answer meets: "accept → continue p95 under 1s with at
    /// least 99% of handoffs succeeding".
    static func goal(_ target: Advisor.Target) -> String {
        "\(target.metric.label) \(Format.percentile(target.percentile)) under \(target.latency)"
            + (target.success < 1 ? " with at least \(Format.percentOneDecimal(target.success)) of handoffs succeeding" : " with every handoff succeeding")
    }

    /// An answer in one paragraph, without its label: the size (or that
    /// none meets the target), the figures there, and whether continuation
    /// streams are sooner.
    static func answerSentence(_ item: Advisor.Advice, target: Advisor.Target) -> String {
        let percentile = Format.percentile(target.percentile)
        let goal = goal(target)
        var line = ""
        func figures(_ probe: Advisor.Probe?) -> String {
            guard let probe, let value = probe.value else { return "" }
            return " (\(percentile) \(value.rounded(toSignificantDigits: 4))\(intervalText(probe.interval)), "
                + "\(Format.percentOneDecimal(probe.success)) succeed, \(Format.groupedDigits(probe.trials)) trials)"
        }
        let atLargest = item.tried.first { $0.bytes == item.largestPayload }
        let atFirstFailing = item.tried.first { $0.bytes == item.firstFailing }
        switch item.kind {
        case .everySize:
            line += "every userInfo up to the \(Format.sizeWithBytes(item.largestPayload ?? 0)) limit keeps \(goal)"
                + figures(atLargest) + "."
        case .size:
            line += "the largest userInfo decided to keep \(goal) is \(Format.sizeWithBytes(item.largestPayload ?? 0))"
                + figures(atLargest) + "; "
            let undecided = item.tried.filter { $0.decision == .undecided }
            if let first = item.firstFailing {
                line += "from \(Format.sizeWithBytes(first)) it is decided not to\(figures(atFirstFailing))"
            }
            if !undecided.isEmpty {
                line += "; between them \(undecided.count == 1 ? "one size tried is" : "\(undecided.count) sizes tried are") "
                    + "a near tie at \(Format.groupedDigits(item.maximumTrials)) trials"
            }
            line += "."
        case .noSize:
            line += "no userInfo size keeps \(goal), not even the smallest tried"
            if let value = item.smallestTried.value {
                line += ": at \(Format.sizeWithBytes(item.smallestTried.bytes)) \(percentile) is \(value.rounded(toSignificantDigits: 4))"
                    + intervalText(item.tried.first?.interval)
            }
            line += "."
        case .undecided:
            line += "undecided: "
            if let largest = item.largestPayload {
                line += "up to \(Format.sizeWithBytes(largest)) userInfo is decided to keep \(goal)\(figures(atLargest)), "
            } else {
                line += "no size is decided to keep \(goal), "
            }
            if let first = item.firstFailing {
                line += "from \(Format.sizeWithBytes(first)) it is decided not to\(figures(atFirstFailing)), "
            } else {
                line += "no size up to the limit is decided not to, "
            }
            let undecided = item.tried.filter { $0.decision == .undecided }
            line += "and between them the comparison is a near tie at \(Format.groupedDigits(item.maximumTrials)) trials"
            if let nearest = undecided.first, let value = nearest.value {
                line += " (at \(Format.sizeWithBytes(nearest.bytes)) \(percentile) \(value.rounded(toSignificantDigits: 4))"
                    + intervalText(nearest.interval) + ")"
            }
            let needed = undecided.compactMap(\.trialsToDecide).max()
            let onLatency = undecided.contains { !$0.latencyDecided }
            let what = onLatency ? "the \(percentile) sits on the target"
                : target.success >= 1 ? "no number of trials shows that every handoff succeeds (give --success below 100%)"
                : "the success rate sits on the least share"
            line += needed.map { "; about \(Format.groupedDigits($0)) trials a size would decide it (--max-trials)" }
                ?? "; \(what)\(onLatency || target.success < 1 ? ", so no trial count would decide it" : "")"
            line += "."
        }
        if let effect = item.sizeEffect, let decidedBy = effect.decidedBy {
            let change = effect.change < .zero ? .zero - effect.change : effect.change
            let moves = change == .zero ? "does not move \(percentile)" : "moves \(percentile) by \(change.rounded(toSignificantDigits: 2))"
            line += " Size \(moves) from \(Format.sizeWithBytes(effect.from)) to "
                + "\(Format.sizeWithBytes(effect.to)), less than its sampling interval (\(effect.interval.rounded(toSignificantDigits: 2)) wide): "
                + "\(decidedBy) decides it, not the size."
        }
        if let crossover = item.streamsSoonerFrom {
            line += " Beyond \(Format.sizeWithBytes(crossover)), continuation streams restore sooner than userInfo."
        } else {
            line += " Continuation streams are never sooner up to the userInfo limit; use them only above it (where userInfo fails with 4611)."
        }
        return line
    }

    /// What an answer rests on, counted by evidence: "rests on 44
    /// values of the defaults table: 6 measured, 14 sourced, 22 assumed,
    /// 2 set by the file (…)".
    static func assumptionsSummary(_ item: Advisor.Advice) -> String {
        "rests on " + assumptionCounts(item)
            + " (each with its evidence: --format json, or handoff-sim defaults --scenario FILE)"
    }

    /// "44 values of the defaults table: 6 measured, 14 sourced, …".
    static func assumptionCounts(_ item: Advisor.Advice) -> String {
        let order = ["measured", "sourced", "assumed", "set by file"]
        let counts = order.map { kind in item.assumptions.filter { $0.standing == kind }.count }
        let parts = zip(order, counts).filter { $0.1 > 0 }.map { "\($0.1) \($0.0 == "set by file" ? "set by the file" : $0.0)" }
        return "\(item.assumptions.count) values of the defaults table: \(parts.joined(separator: ", "))"
    }

    /// The assumptions, as JSON.
    static func assumptionsJSON(_ item: Advisor.Advice) -> JSONOutput {
        .array(item.assumptions.map { assumption in
            .object([
                ("setting", .string(assumption.setting)),
                ("value", .string(assumption.value)),
                ("evidence", .string(assumption.evidence)),
                ("written", .array(assumption.written.map(JSONOutput.string))),
                ("standing", .string(assumption.standing)),
            ])
        })
    }

    /// A sampling interval in words: " [1.21s–1.32s]", or "" without one.
    static func intervalText(_ interval: SamplingInterval?) -> String {
        guard let interval else { return "" }
        let low = interval.low.map { "\(SimDuration.nanoseconds($0).rounded(toSignificantDigits: 4))" } ?? "−∞"
        let high = interval.high.map { "\(SimDuration.nanoseconds($0).rounded(toSignificantDigits: 4))" } ?? "∞"
        return " [\(low)–\(high)]"
    }

    /// A warning in words.
    static func sentence(_ warning: Advisor.Warning, _ item: Advisor.Advice, target: Advisor.Target) -> String {
        switch warning {
        case let .assumptionCrossesTarget(crossing):
            let range = crossing.parameter.range
            let at = item.largestPayload ?? item.smallestTried.bytes
            return "An assumption alone can move this answer across the target: with \(crossing.parameter.parameter) at the "
                + "\(crossing.end.rawValue) end of its plausible range (\(range.quantity) \(Format.decimal(crossing.endValue))"
                + "\(range.unit.isEmpty ? "" : " " + range.unit)), \(Format.percentile(target.percentile)) at \(Format.sizeWithBytes(at)) is "
                + "\(crossing.value.rounded(toSignificantDigits: 3)), \(crossing.answerMeetsTarget ? "over" : "within") the target of \(target.latency)."
        }
    }

    /// The tornado table: each parameter's range, its evidence, the
    /// percentile at either end and the answer at either end, largest
    /// movement first; then a sentence when an assumption alone moves the
    /// answer across the target.
    static func sensitivityLines(_ item: Advisor.Advice, target: Advisor.Target) -> [String] {
        guard !item.sensitivity.isEmpty else { return item.skippedEnds.map { "  " + skippedSentence($0) } }
        let percentile = Format.percentile(target.percentile)
        let at = item.largestPayload ?? item.smallestTried.bytes
        let reference = item.largestPayload != nil ? item.latencyAtLargest : item.smallestTried.value
        var lines = [
            "  sensitivity: \(percentile) at \(Format.sizeWithBytes(at))"
                + (reference.map { " (\($0.rounded(toSignificantDigits: 3)) as the file and its overlay stand)" } ?? "")
                + " with each default moved across its plausible range, largest movement first:",
        ]
        let rows = item.sensitivity.map { entry -> [String] in
            func value(_ duration: SimDuration?, _ end: Advisor.RangeEnd) -> String {
                if entry.skipped.contains(end) { return "skipped" }
                return duration.map { "\($0.rounded(toSignificantDigits: 3))" } ?? "–"
            }
            func answer(_ bytes: Int??, _ end: Advisor.RangeEnd) -> String {
                if entry.skipped.contains(end) { return "skipped" }
                guard let bytes else { return "" }
                return bytes.map { Format.size($0) } ?? "none"
            }
            let answered = entry.lowAnswer != nil || entry.highAnswer != nil
            let answers = answered ? "\(answer(entry.lowAnswer, .low)) … \(answer(entry.highAnswer, .high))" : ""
            return [
                entry.parameter, entry.evidenceLabel, entry.range.description,
                "\(value(entry.low, .low)) … \(value(entry.high, .high))", answers,
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
        for warning in item.warnings { lines.append("  " + sentence(warning, item, target: target)) }
        for skipped in item.skippedEnds { lines.append("  " + skippedSentence(skipped)) }
        return lines
    }

    /// The ends an answer's sensitivity did not try, as JSON: each with
    /// its parameter, paths, end and value, and the file's problem there.
    static func skippedEndsJSON(_ item: Advisor.Advice) -> JSONOutput {
        .array(item.skippedEnds.map { skipped -> JSONOutput in
            .object([
                ("parameter", .string(skipped.parameter)),
                ("paths", .array(skipped.range.paths.map(JSONOutput.string))),
                ("end", .string(skipped.end.rawValue)),
                ("endValue", .string(skipped.range.text(skipped.endValue))),
                ("file", .string(skipped.problem.file)),
                ("path", .string(skipped.problem.path)),
                ("message", .string(skipped.problem.message)),
            ])
        })
    }

    /// A range end not tried, in words: the parameter, the end and its
    /// value, and the file's problem with the default there.
    static func skippedSentence(_ skipped: Advisor.SkippedEnd) -> String {
        let range = skipped.range
        return "Not tried: \(skipped.parameter) at the \(skipped.end.rawValue) end of its plausible range (\(range.quantity) "
            + "\(Format.decimal(skipped.endValue))\(range.unit.isEmpty ? "" : " " + range.unit)): it conflicts with a value "
            + "the file sets (\(skipped.problem.file), \(skipped.problem.path): \(skipped.problem.message))"
    }

    /// One size tried, as JSON: its trials, percentile and interval,
    /// success rate and interval, decision and trials to decide.
    static func probeJSON(_ probe: Advisor.Probe) -> JSONOutput {
        let value: JSONOutput = probe.value.map { .int($0.nanoseconds) } ?? .null
        let low: JSONOutput = probe.interval?.low.map { .int($0) } ?? .null
        let high: JSONOutput = probe.interval?.high.map { .int($0) } ?? .null
        let toDecide: JSONOutput = probe.trialsToDecide.map { .int(Int64($0)) } ?? .null
        return .object([
            ("bytes", .int(Int64(probe.bytes))),
            ("trials", .int(Int64(probe.trials))),
            ("value", value),
            ("low", low),
            ("high", high),
            ("success", .double(probe.success)),
            ("successLow", .double((probe.successLow * 1e6).rounded(.down) / 1e6)),
            ("successHigh", .double((probe.successHigh * 1e6).rounded(.up) / 1e6)),
            ("decision", .string(probe.decision.rawValue)),
            ("trialsToDecide", toDecide),
        ])
    }

    /// The size effect, as JSON.
    static func sizeEffectJSON(_ effect: Advisor.SizeEffect) -> JSONOutput {
        let decidedBy: JSONOutput = effect.decidedBy.map(JSONOutput.string) ?? .null
        return .object([
            ("fromBytes", .int(Int64(effect.from))),
            ("toBytes", .int(Int64(effect.to))),
            ("changeNanoseconds", .int(effect.change.nanoseconds)),
            ("intervalNanoseconds", .int(effect.interval.nanoseconds)),
            ("decidedBy", decidedBy),
        ])
    }

    /// One answer, as JSON.
    static func answerJSON(_ item: Advisor.Advice, target: Advisor.Target) -> JSONOutput {
        func nanoseconds(_ value: SimDuration?) -> JSONOutput { value.map { .int($0.nanoseconds) } ?? .null }
        let head: [(String, JSONOutput)] = [
            ("path", .string(item.path)),
            ("profile", item.profileApplies ? .string(item.profile) : .null),
            ("metric", .string(target.metric.rawValue)),
            ("percentile", .double(target.percentile)),
            ("target", .int(target.latency.nanoseconds)),
            ("kind", .string(item.kind.rawValue)),
            ("bytes", item.largestPayload.map { .int(Int64($0)) } ?? .null),
            ("firstFailingBytes", item.firstFailing.map { .int(Int64($0)) } ?? .null),
            ("limitBinds", .bool(item.limitBinds)),
            ("value", nanoseconds(item.latencyAtLargest)),
            ("success", item.successAtLargest.map(JSONOutput.double) ?? .null),
            ("smallestTried", .object([
                ("bytes", .int(Int64(item.smallestTried.bytes))), ("value", nanoseconds(item.smallestTried.value)),
            ])),
            ("confidencePerLook", .double(item.confidence)),
            ("maximumTrials", .int(Int64(item.maximumTrials))),
            ("tried", .array(item.tried.map(probeJSON))),
            ("sizeEffect", item.sizeEffect.map(sizeEffectJSON) ?? .null),
            ("interval", item.interval.map { interval in
                .object([
                    ("low", interval.low.map { .int(Int64($0)) } ?? .null),
                    ("high", interval.high.map { .int(Int64($0)) } ?? .null),
                    ("replicates", .int(Int64(interval.replicates))),
                ])
            } ?? .null),
        ]
        let sensitivity: [(String, JSONOutput)] = [
            ("sensitivity", .array(item.sensitivity.map { entry in
                func answer(_ bytes: Int??) -> JSONOutput {
                    guard let bytes else { return .null }
                    return bytes.map { .int(Int64($0)) } ?? .null
                }
                var members: [(String, JSONOutput)] = [
                    ("parameter", .string(entry.parameter)),
                    ("evidence", .string(entry.evidence.kind)),
                    ("setBy", entry.setBy.map(JSONOutput.string) ?? .null),
                    ("paths", .array(entry.range.paths.map(JSONOutput.string))),
                    ("range", .object([
                        ("low", .string(entry.range.text(entry.range.low))),
                        ("high", .string(entry.range.text(entry.range.high))),
                    ])),
                    ("bytes", .int(Int64(entry.bytes))),
                    ("low", nanoseconds(entry.low)),
                    ("high", nanoseconds(entry.high)),
                ]
                if entry.lowAnswer != nil { members.append(("lowBytes", answer(entry.lowAnswer))) }
                if entry.highAnswer != nil { members.append(("highBytes", answer(entry.highAnswer))) }
                if !entry.skipped.isEmpty {
                    members.append(("skipped", .array(entry.skipped.map { .string($0.rawValue) })))
                }
                return .object(members)
            })),
        ]
        let tail: [(String, JSONOutput)] = [
            ("skippedEnds", skippedEndsJSON(item)),
            ("assumptions", assumptionsJSON(item)),
            ("budget", .array((item.budget?.ranked ?? []).map { figure in
                .object([
                    ("phase", .string(figure.phase.description)),
                    ("share", .double((figure.tailShare * 1e6).rounded() / 1e6)),
                    ("meanNanoseconds", .int(figure.mean.nanoseconds)),
                ])
            })),
            ("streamsSoonerFromBytes", item.streamsSoonerFrom.map { .int(Int64($0)) } ?? .null),
            ("warnings", .array(item.warnings.map { warning in
                switch warning {
                case let .assumptionCrossesTarget(crossing):
                    return .object([
                        ("kind", .string("assumptionCrossesTarget")),
                        ("parameter", .string(crossing.parameter.parameter)),
                        ("end", .string(crossing.end.rawValue)),
                        ("endValue", .string(crossing.parameter.range.text(crossing.endValue))),
                        ("valueNanoseconds", .int(crossing.value.nanoseconds)),
                        ("answerMeetsTarget", .bool(crossing.answerMeetsTarget)),
                    ])
                }
            })),
            ("probes", .int(Int64(item.probes))),
        ]
        return .object(head + sensitivity + tail)
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
            ("answers", .array(advice.map { answerJSON($0, target: target) })),
        ])
        return report.render(pretty: true)
    }

}
