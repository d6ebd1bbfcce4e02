import Foundation
import HandoffScenario
import ScenarioJSON

/// One figure of a benchmark workload, with how to judge a change in it.
struct BenchMetric {
    /// How a change is judged by `compare`.
    enum Kind: String {
        /// A deterministic counter: any change is reported (exit 2).
        case exact
        /// Higher is better (throughput); judged against the time threshold.
        case higher
        /// Lower is better (time per event, memory); judged against the
        /// time threshold.
        case lower
    }

    let name: String
    let value: Double
    let kind: Kind
}

/// The suite's workloads, each run in a fresh process so its peak memory is
/// its own.
enum BenchSuite {
    static let workloads = ["phold", "transfer", "handoff", "sweep"]

    /// Runs `name` in this process (warm-up, then best of 3) and returns its
    /// figures.
    static func measure(_ name: String) throws -> [BenchMetric] {
        func best<T>(_ runs: Int, _ body: () throws -> T, seconds: (T) -> Double) rethrows -> T {
            var result = try body()
            for _ in 1..<runs {
                let again = try body()
                if seconds(again) < seconds(result) { result = again }
            }
            return result
        }
        var metrics: [BenchMetric] = []
        var events: Double = 0
        switch name {
        case "phold":
            _ = try PHOLD.run(processes: 1_000, events: 200_000, seed: 42)
            let result = try best(3, { try PHOLD.run(processes: 1_000, events: 2_000_000, seed: 42) }, seconds: \.seconds)
            events = Double(result.events)
            metrics += [
                BenchMetric(name: "eventsPerSecond", value: result.eventsPerSecond, kind: .higher),
                BenchMetric(name: "nsPerEvent", value: result.seconds * 1e9 / events, kind: .lower),
                BenchMetric(name: "events", value: events, kind: .exact),
                BenchMetric(name: "checksum", value: Double(result.checksum), kind: .exact),
            ]
        case "transfer":
            _ = try TransferBenchmark.run(bytes: 1_000_000, loss: 0.01, seed: 42)
            let result = try best(3, { try TransferBenchmark.run(bytes: 16_000_000, loss: 0.01, seed: 42) }, seconds: \.seconds)
            events = Double(result.events)
            metrics += [
                BenchMetric(name: "eventsPerSecond", value: result.eventsPerSecond, kind: .higher),
                BenchMetric(name: "nsPerEvent", value: result.seconds * 1e9 / events, kind: .lower),
                BenchMetric(name: "events", value: events, kind: .exact),
            ]
        case "handoff":
            _ = try HandoffTrials.run(trials: 1_000, payload: 3072, seed: 42)
            let result = try best(3, { try HandoffTrials.run(trials: 20_000, payload: 3072, seed: 42) }, seconds: \.seconds)
            events = Double(result.events)
            metrics += [
                BenchMetric(name: "trialsPerSecond", value: result.trialsPerSecond, kind: .higher),
                BenchMetric(name: "eventsPerSecond", value: result.eventsPerSecond, kind: .higher),
                BenchMetric(name: "nsPerEvent", value: result.seconds * 1e9 / events, kind: .lower),
                BenchMetric(name: "eventsPerTrial", value: result.eventsPerTrial, kind: .exact),
            ]
        case "sweep":
            _ = try SweepBench.run(trialsPerPoint: 50, jobs: 1)
            let result = try best(2, { try SweepBench.run(trialsPerPoint: 1_000, jobs: 1) }, seconds: \.seconds)
            events = Double(result.events)
            metrics += [
                BenchMetric(name: "trialsPerSecond", value: result.trialsPerSecond, kind: .higher),
                BenchMetric(name: "eventsPerSecond", value: result.eventsPerSecond, kind: .higher),
                BenchMetric(name: "nsPerEvent", value: result.seconds * 1e9 / events, kind: .lower),
                BenchMetric(name: "eventsPerTrial", value: events / Double(result.trials), kind: .exact),
            ]
        default:
            throw UsageError(description: "unknown workload '\(name)'; expected \(workloads.joined(separator: ", "))")
        }
        if let peak = ProcessStatistics.peakResidentBytes() {
            metrics.append(BenchMetric(name: "peakResidentBytes", value: Double(peak), kind: .lower))
        }
        return metrics
    }

    static func json(_ metrics: [BenchMetric]) -> JSONOutput {
        .object(metrics.map { metric in
            (metric.name, .object([("value", number(metric.value)), ("kind", .string(metric.kind.rawValue))]))
        })
    }

    static func number(_ value: Double) -> JSONOutput {
        value == value.rounded() && abs(value) < 9e15 ? .int(Int64(value)) : .double(value)
    }
}

/// `suite-workload NAME`: one workload's figures as one JSON line (run by
/// `suite` in a child process).
func runSuiteWorkload(_ arguments: ArraySlice<String>) throws {
    guard arguments.count == 1, let name = arguments.first else {
        throw UsageError(description: "suite-workload takes one workload: \(BenchSuite.workloads.joined(separator: ", "))")
    }
    print(BenchSuite.json(try BenchSuite.measure(name)).render(pretty: false))
}

/// `suite`: every workload in a fresh process, reported as text, JSON or
/// Markdown.
func runSuite(_ arguments: ArraySlice<String>) throws {
    var format = "text"
    var outputPath: String?
    for (flag, value) in try flagValues(arguments, allowed: ["--format", "--output"]) {
        if flag == "--format" {
            guard ["text", "json", "markdown"].contains(value) else {
                throw UsageError(description: "--format expects text, json or markdown, got '\(value)'")
            }
            format = value
        } else {
            outputPath = value
        }
    }
    var results: [(String, JSONNode)] = []
    for name in BenchSuite.workloads {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? ProcessInfo.processInfo.arguments[0])
        process.arguments = ["suite-workload", name]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw UsageError(description: "the \(name) workload failed") }
        results.append((name, try JSONParser.parse(String(decoding: data, as: UTF8.self))))
    }
    let report: JSONOutput = .object([
        ("tool", .string("handoff-bench")),
        ("format", .int(1)),
        ("cores", .int(Int64(ProcessInfo.processInfo.activeProcessorCount))),
        ("workloads", .object(results.map { ($0.0, output(of: $0.1)) })),
    ])
    let text: String
    switch format {
    case "json": text = report.render(pretty: true)
    case "markdown": text = suiteTable(results, markdown: true)
    default: text = suiteTable(results, markdown: false)
    }
    if let outputPath {
        try Data(text.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
    } else {
        print(text, terminator: "")
    }
}

/// A parsed JSON value written back.
func output(of node: JSONNode) -> JSONOutput {
    switch node.value {
    case .null: return .null
    case let .bool(value): return .bool(value)
    case let .number(number): return number.int64Value.map(JSONOutput.int) ?? .double(number.doubleValue)
    case let .string(text): return .string(text)
    case let .array(elements): return .array(elements.map(output(of:)))
    case let .object(members): return .object(members.map { ($0.key, output(of: $0.value)) })
    }
}

/// The suite as a table: one row per workload and metric.
func suiteTable(_ results: [(String, JSONNode)], markdown: Bool) -> String {
    var rows: [[String]] = [["workload", "metric", "value", "judged"]]
    for (name, node) in results {
        guard case let .object(members) = node.value else { continue }
        for member in members {
            let value = member.value.member("value").map { output(of: $0.value).render(pretty: false) } ?? "?"
            let kind = member.value.member("kind").flatMap { node -> String? in
                if case let .string(text) = node.value.value { return text } else { return nil }
            } ?? "?"
            rows.append([name, member.key, value, kind])
        }
    }
    if markdown {
        var lines = ["| " + rows[0].joined(separator: " | ") + " |", "|---|---|---:|---|"]
        lines += rows.dropFirst().map { "| " + $0.joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n") + "\n"
    }
    var widths = [Int](repeating: 0, count: 4)
    for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
    return rows.map { row in
        row.enumerated().map { index, cell in cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) }
            .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n") + "\n"
}

/// `compare OLD.json NEW.json`: the ratio of every figure; exit 2 when one
/// regressed past its threshold.
func runCompare(_ arguments: ArraySlice<String>) throws -> Int32 {
    var files: [String] = []
    var threshold = 0.10
    var rest = arguments[...]
    while let argument = rest.first {
        rest = rest.dropFirst()
        if argument == "--time-threshold" {
            guard let value = rest.first, value.hasSuffix("%"), let percent = Double(value.dropLast()), percent >= 0 else {
                throw UsageError(description: "--time-threshold expects a percentage such as 10%")
            }
            threshold = percent / 100
            rest = rest.dropFirst()
        } else if argument.hasPrefix("-") {
            throw UsageError(description: "unknown option '\(argument)' for compare")
        } else {
            files.append(argument)
        }
    }
    guard files.count == 2 else { throw UsageError(description: "compare takes OLD.json NEW.json") }
    func load(_ path: String) throws -> [(String, [(String, Double, String)])] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(description: "\(path): cannot read the file")
        }
        let root: JSONNode
        do {
            root = try JSONParser.parse(Array(data))
        } catch {
            throw UsageError(description: "\(path): \(error)")
        }
        guard case let .object(workloads)? = root.member("workloads")?.value.value else {
            throw UsageError(description: "\(path): not a handoff-bench suite result (no \"workloads\")")
        }
        return try workloads.map { workload in
            guard case let .object(metrics) = workload.value.value else {
                throw UsageError(description: "\(path): \(workload.key) is not an object")
            }
            return (workload.key, try metrics.map { metric in
                guard case let .number(number)? = metric.value.member("value")?.value.value,
                    case let .string(kind)? = metric.value.member("kind")?.value.value
                else { throw UsageError(description: "\(path): \(workload.key).\(metric.key) lacks a value or kind") }
                return (metric.key, number.doubleValue, kind)
            })
        }
    }
    let old = try load(files[0])
    let new = try load(files[1])
    var regressions = 0
    var lines: [String] = []
    for (workload, metrics) in new {
        guard let oldMetrics = old.first(where: { $0.0 == workload })?.1 else {
            lines.append("\(workload): not in \(files[0])")
            continue
        }
        for (name, value, kind) in metrics {
            guard let oldValue = oldMetrics.first(where: { $0.0 == name })?.1 else {
                lines.append("\(workload).\(name): not in \(files[0])")
                continue
            }
            let ratio = oldValue == 0 ? (value == 0 ? 1 : .infinity) : value / oldValue
            var verdict = "ok"
            switch kind {
            case "exact":
                if value != oldValue { verdict = "CHANGED"; regressions += 1 }
            case "higher":
                if ratio < 1 - threshold { verdict = "REGRESSED"; regressions += 1 }
            default:
                if ratio > 1 + threshold { verdict = "REGRESSED"; regressions += 1 }
            }
            lines.append("\(workload).\(name): \(output(ofDouble: oldValue)) → \(output(ofDouble: value)) (×\(fixed(ratio, digits: 3)), \(kind)) \(verdict)")
        }
    }
    for (workload, _) in old where !new.contains(where: { $0.0 == workload }) {
        lines.append("\(workload): missing from \(files[1])")
        regressions += 1
    }
    print(lines.joined(separator: "\n"))
    print(regressions == 0 ? "no regression" : "\(regressions) regression\(regressions == 1 ? "" : "s") (times past \(fixed(threshold * 100, digits: 0))%, or exact counters changed)")
    return regressions == 0 ? 0 : 2
}

func output(ofDouble value: Double) -> String {
    value == value.rounded() && abs(value) < 9e15 ? String(Int64(value)) : fixed(value, digits: 3)
}
