import Foundation
import Handoff
import HandoffWorld
import SimKernel

/// Reads calibration experiment files (see ``Experiment``): every problem
/// at once, each with the file, JSON path, line and what was expected, as
/// for scenario files; problems in a measured CSV file name the experiment's
/// key and the CSV's line.
package enum ExperimentDecoder {
    /// The most trials per group and evaluation an experiment may ask for.
    package static let maximumTrials = 1_000_000
    /// The most rows a measured file may have.
    package static let maximumRows = 10_000_000
    /// The most parameters an experiment may fit at once.
    package static let maximumParameters = 12

    /// Decodes the experiment in `bytes`, naming it `file` in problems;
    /// `read` returns the bytes of a file the experiment names (resolved
    /// against the experiment's folder), or nil if it cannot be read.
    package static func decode(
        _ bytes: [UInt8], file: String, read: @escaping (String) -> [UInt8]? = { FileManager.default.contents(atPath: $0).map(Array.init) }
    ) -> Result<Experiment, ScenarioProblems> {
        let root: JSONNode
        switch ScenarioDecoder.parse(bytes, file: file) {
        case let .success(node): root = node
        case let .failure(problems): return .failure(problems)
        }
        let context = DecodingContext(file: file)
        let experiment = ExperimentReader(context: context, folder: Self.folder(of: file), read: read).read(root)
        if let experiment, context.problems.isEmpty { return .success(experiment) }
        return .failure(ScenarioProblems(problems: context.sortedProblems))
    }

    /// The folder `file` is in ("" for the current one).
    static func folder(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "" }
        return String(file[...slash])
    }
}

/// The keys of an experiment file's objects.
enum ExperimentKeys {
    static let top = ["$schema", "name", "scenario", "seed", "trials", "activity", "on", "data", "parameters"]
    static let data = ["file", "column", "unit", "metric", "scenario", "trials", "groupBy", "outcome"]
    static let groupBy = ["column", "path"]
    static let outcome = ["column", "success"]
    static let parameter = ["path", "min", "max", "start", "scale"]
    static let units = ["ns", "us", "ms", "s", "duration"]
}

struct ExperimentReader {
    let context: DecodingContext
    let folder: String
    let read: (String) -> [UInt8]?

    func resolve(_ path: String) -> String { path.hasPrefix("/") ? path : folder + path }

    func read(_ root: JSONNode) -> Experiment? {
        let path = JSONPath()
        guard let object = context.object(root, path, what: "the experiment object", allowed: ExperimentKeys.top) else {
            return nil
        }
        let name = object.required("name", what: "the experiment's name") { context.nonEmptyString($0, $1) }
        let scenario = readScenario(object, path, required: true)
        let seed = object.optional("seed") { context.integer($0, $1, in: 0...Int64.max) }.map(UInt64.init) ?? 1
        let trials = object.optional("trials") {
            context.integer($0, $1, in: 1...Int64(ExperimentDecoder.maximumTrials))
        }.map(Int.init) ?? 1000
        let activity = object.optional("activity") { context.nonEmptyString($0, $1) }
        let device = object.optional("on") { context.nonEmptyString($0, $1) }
        let datasets = object.required("data", what: "the measured datasets") { node, dataPath -> [MeasuredDataset]? in
            guard let list = context.array(node, dataPath, expected: "an array of measured datasets") else { return nil }
            if list.isEmpty { context.report(dataPath, at: node.position, "expected at least one measured dataset") }
            return list.enumerated().compactMap { index, element in
                readDataset(element, dataPath.index(index), scenario: scenario, trials: trials)
            }
        }
        let parameters = object.optional("parameters") { node, parametersPath -> [FitParameter]? in
            guard let list = context.array(node, parametersPath, expected: "an array of parameters to fit") else { return nil }
            if list.count > ExperimentDecoder.maximumParameters {
                context.report(parametersPath, at: node.position,
                               "expected at most \(ExperimentDecoder.maximumParameters) parameters, found \(list.count)")
            }
            var seen = Set<String>()
            return list.enumerated().compactMap { index, element in
                guard let parameter = readParameter(element, parametersPath.index(index)) else { return nil }
                if !seen.insert(parameter.path).inserted {
                    context.report(parametersPath.index(index).key("path"), at: element.position,
                                   "the parameter \"\(parameter.path)\" is already fitted")
                }
                return parameter
            }
        } ?? []
        guard let name, let scenario, let datasets else { return nil }
        return Experiment(
            file: context.file, name: name, scenarioFile: scenario, seed: seed, trials: trials,
            activity: activity, device: device, datasets: datasets, parameters: parameters)
    }

    /// The resolved path of an object's `scenario` (a file that must be
    /// readable).
    func readScenario(_ object: ObjectReader, _ path: JSONPath, required: Bool) -> String? {
        let what = "the \(required ? "base " : "")scenario file, relative to this file"
        let scenario = required
            ? object.required("scenario", what: what) { context.nonEmptyString($0, $1) }
            : object.optional("scenario") { context.nonEmptyString($0, $1) }
        guard let scenario else { return nil }
        if read(resolve(scenario)) == nil {
            context.report(path.key("scenario"), at: object.position(of: "scenario"),
                           "expected a scenario file that can be read, found \"\(scenario)\" (\(resolve(scenario)))")
        }
        return resolve(scenario)
    }

    // MARK: Datasets

    /// A dataset, simulated with its own `scenario` and `trials` or else
    /// the experiment's (`scenario` is nil when the experiment's is missing,
    /// and then the experiment is refused anyway).
    func readDataset(_ node: JSONNode, _ path: JSONPath, scenario experimentScenario: String?, trials experimentTrials: Int)
        -> MeasuredDataset?
    {
        guard let object = context.object(node, path, what: "a measured dataset", allowed: ExperimentKeys.data) else {
            return nil
        }
        let file = object.required("file", what: "the CSV file, relative to this file") { context.nonEmptyString($0, $1) }
        let column = object.required("column", what: "the column holding the measurement") { context.nonEmptyString($0, $1) }
        let unit = object.optional("unit") { context.choice($0, $1, what: "unit", among: ExperimentKeys.units) } ?? "ms"
        let metric = object.required("metric", what: "the simulated latency it corresponds to") {
            context.choice($0, $1, what: "metric", among: LatencyMetric.allCases.map(\.rawValue))
        }.flatMap(LatencyMetric.init(rawValue:))
        let scenario = readScenario(object, path, required: false)
        let trials = object.optional("trials") {
            context.integer($0, $1, in: 1...Int64(ExperimentDecoder.maximumTrials))
        }.map(Int.init)
        let groupBy = object.optional("groupBy") { node, groupPath -> (column: String, path: String)? in
            guard let group = context.object(node, groupPath, what: "a groupBy object", allowed: ExperimentKeys.groupBy),
                  let column = group.required("column", what: "the column to group by", { context.nonEmptyString($0, $1) }),
                  let scenarioPath = group.required("path", what: "the scenario path the group's value is written to", {
                      context.nonEmptyString($0, $1)
                  })
            else { return nil }
            if ParameterPath(scenarioPath) == nil {
                context.report(groupPath.key("path"), at: group.position(of: "path"),
                               "expected a scenario path such as \"activity.payloadSize\", found \"\(scenarioPath)\"")
            }
            return (column, scenarioPath)
        }
        let outcome = object.optional("outcome") { node, outcomePath -> (column: String, success: [String])? in
            guard let reader = context.object(node, outcomePath, what: "an outcome object", allowed: ExperimentKeys.outcome),
                  let column = reader.required("column", what: "the column holding each attempt's outcome", {
                      context.nonEmptyString($0, $1)
                  }),
                  let success = reader.required("success", what: "the values that mean the attempt succeeded", {
                      context.strings($0, $1)
                  })
            else { return nil }
            return (column, success)
        }
        guard let file, let column, let metric else { return nil }
        guard let bytes = read(resolve(file)) else {
            context.report(path.key("file"), at: object.position(of: "file"),
                           "expected a CSV file that can be read, found \"\(file)\" (\(resolve(file)))")
            return nil
        }
        var dataset = readRows(
            bytes, file: file, column: column, unit: unit, metric: metric, groupBy: groupBy, outcome: outcome,
            path: path, object: object)
        dataset?.scenarioFile = scenario ?? experimentScenario ?? ""
        dataset?.trials = trials ?? experimentTrials
        return dataset
    }

    /// The groups of a CSV file's rows.
    func readRows(
        _ bytes: [UInt8], file: String, column: String, unit: String, metric: LatencyMetric,
        groupBy: (column: String, path: String)?, outcome: (column: String, success: [String])?,
        path: JSONPath, object: ObjectReader
    ) -> MeasuredDataset? {
        let table = CSVTable(bytes)
        guard let header = table.rows.first else {
            context.report(path.key("file"), at: object.position(of: "file"), "expected a CSV file with a header row, found \"\(file)\" empty")
            return nil
        }
        func index(of name: String, key: JSONPath, member: String) -> Int? {
            if let index = header.firstIndex(of: name) { return index }
            context.report(key, at: object.position(of: member),
                           "expected a column of \(file), found \"\(name)\"; its columns are \(header.joined(separator: ", "))"
                               + context.didYouMean(name, among: header))
            return nil
        }
        let valueIndex = index(of: column, key: path.key("column"), member: "column")
        let groupIndex = groupBy.flatMap { index(of: $0.column, key: path.key("groupBy").key("column"), member: "groupBy") }
        let outcomeIndex = outcome.flatMap { index(of: $0.column, key: path.key("outcome").key("column"), member: "outcome") }
        guard let valueIndex, groupBy == nil || groupIndex != nil, outcome == nil || outcomeIndex != nil else { return nil }
        if table.rows.count - 1 > ExperimentDecoder.maximumRows {
            context.report(path.key("file"), at: object.position(of: "file"),
                           "expected at most \(ExperimentDecoder.maximumRows) rows in \(file), found \(table.rows.count - 1)")
            return nil
        }
        var order: [String] = []
        var values: [String: [Double]] = [:]
        var failures: [String: Int] = [:]
        var bad = 0
        for (offset, row) in table.rows.enumerated().dropFirst() where !(row.count == 1 && row[0].isEmpty) {
            let line = table.lines[offset]
            let group = groupIndex.map { $0 < row.count ? row[$0] : "" } ?? ""
            if values[group] == nil {
                order.append(group)
                values[group] = []
                failures[group] = 0
            }
            if let outcomeIndex, let outcome {
                let text = outcomeIndex < row.count ? row[outcomeIndex] : ""
                if !outcome.success.contains(text) {
                    failures[group, default: 0] += 1
                    continue
                }
            }
            let text = valueIndex < row.count ? row[valueIndex] : ""
            guard let value = milliseconds(text, unit: unit), value.isFinite, value >= 0 else {
                bad += 1
                if bad <= 3 {
                    context.report(path.key("column"), at: object.position(of: "column"),
                                   "\(file):\(line): expected a latency in \(unit == "duration" ? "a duration such as \"316ms\"" : unit) in column \"\(column)\", found \"\(text)\"")
                }
                continue
            }
            values[group, default: []].append(value)
        }
        if bad > 3 {
            context.report(path.key("column"), at: object.position(of: "column"), "\(file): \(bad - 3) more rows with no latency")
        }
        let groups = order.map { MeasuredGroup(value: $0, milliseconds: values[$0] ?? [], failures: failures[$0] ?? 0) }
        if groups.allSatisfy({ $0.milliseconds.isEmpty }) {
            context.report(path.key("column"), at: object.position(of: "column"),
                           "expected at least one measured latency in column \"\(column)\" of \(file), found none")
            return nil
        }
        guard bad == 0 else { return nil }
        var dataset = MeasuredDataset(
            file: resolve(file), column: column, metric: metric, scenarioFile: "", trials: 0, groupPath: groupBy?.path,
            groups: groups, hasOutcome: outcome != nil)
        if groupBy != nil {
            dataset.groupSource = (path.key("groupBy").key("path").description, object.position(of: "groupBy"))
        }
        return dataset
    }

    /// A cell's latency in milliseconds.
    func milliseconds(_ text: String, unit: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if unit == "duration" {
            guard case let .success(duration) = Quantities.duration(trimmed) else { return nil }
            return Double(duration.nanoseconds) / 1e6
        }
        guard !trimmed.isEmpty, let number = Double(trimmed) else { return nil }
        switch unit {
        case "ns": return number / 1e6
        case "us": return number / 1e3
        case "s": return number * 1e3
        default: return number
        }
    }

    // MARK: Parameters

    func readParameter(_ node: JSONNode, _ path: JSONPath) -> FitParameter? {
        guard let object = context.object(node, path, what: "a parameter to fit", allowed: ExperimentKeys.parameter) else {
            return nil
        }
        let scenarioPath = object.required("path", what: "where the value goes, as sweep --vary writes it") {
            context.nonEmptyString($0, $1)
        }
        if let scenarioPath, ParameterPath(scenarioPath) == nil {
            context.report(path.key("path"), at: object.position(of: "path"),
                           "expected a scenario path such as \"network.wifiPeerToPeer.latency\", found \"\(scenarioPath)\"")
        }
        let minimum = object.required("min", what: "the smallest value") { readBound($0, $1) }
        let maximum = object.required("max", what: "the largest value") { readBound($0, $1) }
        let start = object.optional("start") { readBound($0, $1) }
        let scale = object.optional("scale") { context.choice($0, $1, what: "scale", among: ["linear", "log"]) }
            .flatMap(FitParameter.Scale.init(rawValue:)) ?? .linear
        guard let scenarioPath, let minimum, let maximum else { return nil }
        guard minimum.kind == maximum.kind else {
            context.report(path, at: node.position,
                           "expected min and max of one kind, found a \(minimum.kind.rawValue) and a \(maximum.kind.rawValue)")
            return nil
        }
        guard minimum.value < maximum.value else {
            context.report(path, at: node.position, "expected min below max, found a range from \(minimum.text) to \(maximum.text)")
            return nil
        }
        if scale == .log, minimum.value <= 0 {
            context.report(path.key("scale"), at: object.position(of: "scale"),
                           "expected a positive range for a log scale, found min \(minimum.text)")
            return nil
        }
        if let start, start.kind != minimum.kind || start.value < minimum.value || start.value > maximum.value {
            context.report(path.key("start"), at: object.position(of: "start"),
                           "expected a start inside the range \(minimum.text) … \(maximum.text), found \(start.text)")
            return nil
        }
        var parameter = FitParameter(
            path: scenarioPath, kind: minimum.kind, minimum: minimum.value, maximum: maximum.value, scale: scale,
            start: start?.value)
        parameter.source = (path.key("path").description, object.position(of: "path"))
        return parameter
    }

    /// A range bound: a number, a duration, a size or a rate.
    func readBound(_ node: JSONNode, _ path: JSONPath) -> (kind: FitParameter.Kind, value: Double, text: String)? {
        let expected = "a number, a duration (\"2ms\"), a size (\"3KiB\") or a rate (\"54Mbit/s\")"
        switch node.value {
        case let .number(number):
            let value = number.doubleValue
            guard value.isFinite else {
                context.mismatch(node, path, expected: expected)
                return nil
            }
            return (.number, value, number.text)
        case let .string(text):
            if case let .success(duration) = Quantities.duration(text) { return (.duration, Double(duration.nanoseconds), text) }
            if case let .success(bytes) = Quantities.bytes(text) { return (.size, Double(bytes), text) }
            if case let .success(rate) = Quantities.bandwidth(text) { return (.rate, Double(rate.bitsPerSecond), text) }
            context.mismatch(node, path, expected: expected)
            return nil
        default:
            context.mismatch(node, path, expected: expected)
            return nil
        }
    }
}

/// The rows of a CSV file (RFC 4180: fields separated by commas, quoted
/// with double quotes, doubled inside; lines ending in LF or CRLF), with
/// each row's line number.
struct CSVTable {
    private(set) var rows: [[String]] = []
    /// The line each row starts on, from 1.
    private(set) var lines: [Int] = []

    init(_ bytes: [UInt8]) {
        var field: [UInt8] = []
        var row: [String] = []
        var quoted = false
        var line = 1
        var rowLine = 1
        var index = 0
        func endField() {
            row.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        func endRow() {
            endField()
            rows.append(row)
            lines.append(rowLine)
            row = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") && field.isEmpty {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                endField()
            } else if byte == UInt8(ascii: "\n") {
                endRow()
                line += 1
                rowLine = line
            } else if byte != UInt8(ascii: "\r") {
                field.append(byte)
            }
            index += 1
        }
        if !field.isEmpty || !row.isEmpty { endRow() }
    }
}
