import Foundation
import Handoff
import HandoffScenario
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads calibration experiment files (see ``Experiment``): every problem
/// at once, each with the file, JSON path, line and what was expected, as
/// for scenario files; problems in a measured CSV file name the experiment's
/// key and the CSV's line.
package enum ExperimentDecoder {
    /// The most trials per group and evaluation an experiment may ask for.
    package static let maximumTrials = 1_000_000
    /// The most seeds a search's objective may average over.
    package static let maximumSeeds = 16
    /// The most measured rows an experiment may read, over all its
    /// datasets (a file named by several datasets counts once for each).
    static let maximumRows = 10_000_000
    /// The most bytes of measured files an experiment may read, each file
    /// counted once however many datasets name it: 256 MiB.
    static let maximumMeasuredBytes = 256 << 20
    /// The most measured groups an experiment may have, over all its
    /// datasets (each is simulated at every evaluation).
    static let maximumGroups = 1_000
    /// The longest measured latency: 7 days (``InputBounds/maximumDuration``),
    /// in milliseconds.
    static let maximumMilliseconds = Double(InputBounds.maximumDuration.nanoseconds) / 1e6
    /// The most parameters an experiment may fit at once.
    static let maximumParameters = 12

    /// Decodes the experiment in `bytes`, naming it `file` in problems;
    /// `read` returns the bytes of a file the experiment names (resolved
    /// against the experiment's folder), or nil if it cannot be read.
    package static func decode(
        _ bytes: [UInt8], file: String, read: @escaping (String) -> [UInt8]? = ExperimentDecoder.readFile
    ) -> Result<Experiment, ScenarioProblems> {
        let root: JSONNode
        switch ScenarioDecoder.parse(bytes, file: file) {
        case let .success(node): root = node
        case let .failure(problems): return .failure(problems)
        }
        let context = DecodingContext(file: file)
        let experiment = ExperimentReader(context: context, folder: ScenarioDecoder.folder(of: file), read: read).read(root)
        if let experiment, context.problems.isEmpty { return .success(experiment) }
        return .failure(ScenarioProblems(problems: context.sortedProblems))
    }

    /// The bytes of the file at `path`, but at most one more than
    /// ``maximumMeasuredBytes`` (so a larger file is found too large
    /// without being read whole); nil if it cannot be read.
    static func readFile(_ path: String) -> [UInt8]? {
        InputFile.contents(atPath: path, maximumBytes: maximumMeasuredBytes)
    }

    /// The name of the experiment file at `path`, or nil when it cannot
    /// be read or is invalid: how `defaults` names the experiment a fit's
    /// overlay was fitted to.
    static func name(ofFile path: String) -> String? {
        guard let data = InputFile.contents(atPath: path),
              case let .success(decoded) = decode(Array(data), file: path)
        else { return nil }
        return decoded.name
    }
}

/// The keys of an experiment file's objects.
enum ExperimentKeys {
    static let top = ["$schema", "name", "scenario", "seed", "seeds", "trials", "activity", "on", "measuredOn", "data", "parameters"]
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
    /// The measured files read so far, and what the experiment has used
    /// of its bounds.
    let measured = MeasuredFiles()

    /// The measured files of one experiment, each read once.
    final class MeasuredFiles {
        /// Each file's bytes, by resolved path (nil: it cannot be read).
        var bytes: [String: [UInt8]?] = [:]
        var totalBytes = 0
        var rows = 0
        var groups = 0
    }

    func resolve(_ path: String) -> String { path.hasPrefix("/") ? path : folder + path }

    func read(_ root: JSONNode) -> Experiment? {
        let path = JSONPath()
        guard let object = context.object(root, path, what: "the experiment object", allowed: ExperimentKeys.top) else {
            return nil
        }
        let name = object.required("name", what: "the experiment's name") { context.nonEmptyString($0, $1) }
        let scenario = readScenario(object, path, required: true)
        let seed = object.optional("seed") { context.integer($0, $1, in: 0...Int64.max) }.map(UInt64.init) ?? 1
        let seedCount = object.optional("seeds") {
            context.integer($0, $1, in: 1...Int64(ExperimentDecoder.maximumSeeds))
        }.map(Int.init) ?? 1
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
        let era = object.optional("measuredOn") { node, eraPath in readEra(node, eraPath) } ?? []
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
        var eraEdits: [String: [(path: String, values: [String])]] = [:]
        if !era.isEmpty {
            for file in Experiment.scenarioFiles(of: datasets) {
                eraEdits[file] = eraEditsOf(file, era: era, at: path.key("measuredOn"), position: object.position(of: "measuredOn"))
            }
        }
        return Experiment(
            file: context.file, name: name, scenarioFile: scenario, seed: seed, seedCount: seedCount, trials: trials,
            activity: activity, device: device, era: era, eraEdits: eraEdits, datasets: datasets, parameters: parameters)
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
            if let problem = ParameterPath.expected(scenarioPath, example: "activity.payloadSize") {
                context.report(groupPath.key("path"), at: group.position(of: "path"), problem)
                return nil
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
        let resolved = resolve(file)
        let cached: [UInt8]?
        if let known = measured.bytes[resolved] {
            cached = known
        } else {
            cached = read(resolved)
            measured.bytes[resolved] = .some(cached)
            measured.totalBytes += cached?.count ?? 0
            if let cached, measured.totalBytes > ExperimentDecoder.maximumMeasuredBytes {
                context.report(path.key("file"), at: object.position(of: "file"),
                               "expected measured files of at most 256 MiB in all, found \(cached.count > ExperimentDecoder.maximumMeasuredBytes ? "\"\(file)\" larger than that" : "more with \"\(file)\"")")
                measured.bytes[resolved] = .some(nil)
                return nil
            }
        }
        guard let bytes = cached else {
            context.report(path.key("file"), at: object.position(of: "file"),
                           "expected a CSV file that can be read, found \"\(file)\" (\(resolved))")
            return nil
        }
        var dataset = readRows(
            bytes, file: file, column: column, unit: unit, metric: metric, groupBy: groupBy, outcome: outcome,
            path: path, object: object)
        dataset?.scenarioFile = scenario ?? experimentScenario ?? ""
        dataset?.trials = trials ?? experimentTrials
        return dataset
    }

    /// The groups of a CSV file's rows, read one row at a time and no
    /// further than the experiment's bounds on rows and groups.
    func readRows(
        _ bytes: [UInt8], file: String, column: String, unit: String, metric: LatencyMetric,
        groupBy: (column: String, path: String)?, outcome: (column: String, success: [String])?,
        path: JSONPath, object: ObjectReader
    ) -> MeasuredDataset? {
        var header: [String]?
        var valueIndex = 0, groupIndex: Int?, outcomeIndex: Int?
        var order: [String] = []
        var values: [String: [Double]] = [:]
        var failures: [String: Int] = [:]
        var bad = 0
        // Past a bound already: nothing more is read.
        var refused = measured.rows > ExperimentDecoder.maximumRows || measured.groups > ExperimentDecoder.maximumGroups
        if refused { return nil }
        func index(of name: String, in header: [String], key: JSONPath, member: String) -> Int? {
            if let index = header.firstIndex(of: name) { return index }
            context.report(key, at: object.position(of: member),
                           "expected a column of \(file), found \"\(name)\"; its columns are \(header.joined(separator: ", "))"
                               + context.didYouMean(name, among: header))
            return nil
        }
        CSVRows.forEach(bytes) { row, line in
            guard header != nil else {
                header = row
                let value = index(of: column, in: row, key: path.key("column"), member: "column")
                groupIndex = groupBy.flatMap { index(of: $0.column, in: row, key: path.key("groupBy").key("column"), member: "groupBy") }
                outcomeIndex = outcome.flatMap { index(of: $0.column, in: row, key: path.key("outcome").key("column"), member: "outcome") }
                guard let value, groupBy == nil || groupIndex != nil, outcome == nil || outcomeIndex != nil else {
                    refused = true
                    return false
                }
                valueIndex = value
                return true
            }
            if row.count == 1 && row[0].isEmpty { return true }
            measured.rows += 1
            if measured.rows > ExperimentDecoder.maximumRows {
                // Said once: the datasets after this one are not read.
                if measured.rows == ExperimentDecoder.maximumRows + 1 {
                    context.report(path.key("file"), at: object.position(of: "file"),
                                   "expected at most \(ExperimentDecoder.maximumRows) measured rows in all datasets, found more at \(file):\(line)")
                }
                refused = true
                return false
            }
            let group = groupIndex.map { $0 < row.count ? row[$0] : "" } ?? ""
            if values[group] == nil {
                measured.groups += 1
                if measured.groups > ExperimentDecoder.maximumGroups {
                    if measured.groups == ExperimentDecoder.maximumGroups + 1 {
                        context.report(path.key("groupBy"), at: object.position(of: "groupBy"),
                                       "expected at most \(ExperimentDecoder.maximumGroups) measured groups in all datasets, found more at \(file):\(line)")
                    }
                    refused = true
                    return false
                }
                order.append(group)
                values[group] = []
                failures[group] = 0
            }
            if let outcomeIndex, let outcome {
                let text = outcomeIndex < row.count ? row[outcomeIndex] : ""
                if !outcome.success.contains(text) {
                    failures[group, default: 0] += 1
                    return true
                }
            }
            let text = valueIndex < row.count ? row[valueIndex] : ""
            guard let value = milliseconds(text, unit: unit), value.isFinite, value >= 0,
                  value <= ExperimentDecoder.maximumMilliseconds
            else {
                bad += 1
                if bad <= 3 {
                    let what = unit == "duration" ? "a duration such as \"316ms\"" : unit
                    context.report(path.key("column"), at: object.position(of: "column"),
                                   "\(file):\(line): expected a latency in \(what) from 0 to 168h (604800000 ms) in column \"\(column)\", found \(Self.quoted(text))")
                }
                return true
            }
            values[group, default: []].append(value)
            return true
        }
        guard header != nil else {
            context.report(path.key("file"), at: object.position(of: "file"), "expected a CSV file with a header row, found \"\(file)\" empty")
            return nil
        }
        guard !refused else { return nil }
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

    /// A cell as a message quotes it: at most 40 characters, control
    /// characters escaped by the message's own rendering.
    static func quoted(_ text: String) -> String {
        text.count <= 40 ? "\"\(text)\"" : "\"\(text.prefix(40))…\""
    }

    /// A cell's latency in milliseconds: a plain decimal number (digits,
    /// an optional fraction and exponent; no sign, no hexadecimal, no
    /// `inf` or `nan`) in `unit`, or a duration.
    func milliseconds(_ text: String, unit: String) -> Double? {
        let trimmed = Self.trimmingSpaces(text)
        if unit == "duration" {
            guard case let .success(duration) = Quantities.duration(trimmed) else { return nil }
            return Double(duration.nanoseconds) / 1e6
        }
        guard Self.isDecimal(trimmed), let number = Double(trimmed) else { return nil }
        switch unit {
        case "ns": return number / 1e6
        case "us": return number / 1e3
        case "s": return number * 1e3
        default: return number
        }
    }

    /// `text` without the spaces and tabs around it (by bytes: a cell is
    /// trimmed for every row of a file that may have millions).
    static func trimmingSpaces(_ text: String) -> String {
        let utf8 = text.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return text }
        var bytes = utf8[...]
        while let byte = bytes.first, isSpace(byte) { bytes = bytes.dropFirst() }
        while let byte = bytes.last, isSpace(byte) { bytes = bytes.dropLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` is digits with an optional fraction and exponent
    /// (`12`, `0.5`, `.5`, `1e3`, `2.5E-2`) and nothing else.
    static func isDecimal(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            var count = 0
            while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                bytes = bytes.dropFirst()
                count += 1
            }
            return count
        }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let byte = bytes.first, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    // MARK: Parameters

    func readParameter(_ node: JSONNode, _ path: JSONPath) -> FitParameter? {
        guard let object = context.object(node, path, what: "a parameter to fit", allowed: ExperimentKeys.parameter) else {
            return nil
        }
        let scenarioPath = object.required("path", what: "where the value goes, as sweep --vary writes it") {
            context.nonEmptyString($0, $1)
        }
        if let scenarioPath, let problem = ParameterPath.expected(scenarioPath, example: "network.wifiPeerToPeer.latency") {
            context.report(path.key("path"), at: object.position(of: "path"), problem)
            return nil
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

    /// A range bound: a number, a duration, a size or a rate, within
    /// ``FitParameter/maximumMagnitude``, ``InputBounds/maximumDuration`` or
    /// ``InputBounds/maximumBytes``.
    func readBound(_ node: JSONNode, _ path: JSONPath) -> (kind: FitParameter.Kind, value: Double, text: String)? {
        let expected = "a number, a duration (\"2ms\"), a size (\"3KiB\") or a rate (\"54Mbit/s\")"
        let bound = FitParameter.maximumMagnitude
        func past(_ what: String) -> (kind: FitParameter.Kind, value: Double, text: String)? {
            context.report(path, at: node.position, "expected \(what), found \(context.found(node))")
            return nil
        }
        switch node.value {
        case let .number(number):
            let value = number.doubleValue
            guard value.isFinite else {
                context.mismatch(node, path, expected: expected)
                return nil
            }
            guard abs(value) <= bound else { return past("a number from -1e15 to 1e15") }
            return (.number, value, number.text)
        case let .string(text):
            if case let .success(duration) = Quantities.duration(text) {
                guard duration <= InputBounds.maximumDuration else {
                    return past("a duration of at most \(InputBounds.maximumDuration)")
                }
                return (.duration, Double(duration.nanoseconds), text)
            }
            if case let .success(bytes) = Quantities.bytes(text) {
                guard bytes <= InputBounds.maximumBytes else { return past("a size of at most 1GiB") }
                return (.size, Double(bytes), text)
            }
            if case let .success(rate) = Quantities.bandwidth(text) {
                guard Double(rate.bitsPerSecond) <= bound else { return past("a rate of at most 1e15bit/s") }
                return (.rate, Double(rate.bitsPerSecond), text)
            }
            context.mismatch(node, path, expected: expected)
            return nil
        case .null, .bool, .array, .object:
            context.mismatch(node, path, expected: expected)
            return nil
        }
    }
}

/// The rows of a CSV file, one at a time (RFC 4180: fields separated by
/// commas, quoted with double quotes, doubled inside), with each row's
/// line number: lines end in LF, CRLF or a lone CR, and a UTF-8
/// byte-order mark at the start is skipped.
enum CSVRows {
    /// Calls `body` with each row's fields and the line it starts on (from
    /// 1), in order, until `body` returns false or the bytes end.
    ///
    /// - Complexity: O(*n*) in the bytes read; memory for one row.
    static func forEach(_ bytes: [UInt8], _ body: (_ fields: [String], _ line: Int) -> Bool) {
        var field: [UInt8] = []
        var row: [String] = []
        var quoted = false
        var line = 1
        var rowLine = 1
        var index = 0
        let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        func endField() {
            row.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        func endRow() -> Bool {
            endField()
            defer { row = [] }
            return body(row, rowLine)
        }
        while index < bytes.count {
            let byte = bytes[index]
            // A line ends at LF, at CRLF (one end), or at a lone CR.
            let endsLine = byte == newline
                || (byte == carriageReturn && !(index + 1 < bytes.count && bytes[index + 1] == newline))
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if endsLine { line += 1 }
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") && field.isEmpty {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                endField()
            } else if endsLine {
                guard endRow() else { return }
                line += 1
                rowLine = line
            } else if byte != carriageReturn {
                field.append(byte)
            }
            index += 1
        }
        if !field.isEmpty || !row.isEmpty { _ = endRow() }
    }
}
