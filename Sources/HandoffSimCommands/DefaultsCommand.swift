// `handoff-sim defaults`: every default with its evidence and plausible
// range, as the model has it or as a scenario and its overlays see it.
import Foundation
import Handoff
import HandoffCalibration
import HandoffReport
import HandoffScenario
import HandoffWorld
import ScenarioJSON

extension CommandOption where Self == Option<String?> {
    /// `defaults --scenario FILE`.
    static var defaultsScenario: Option<String?> {
        .option(
            name: "--scenario", .text("FILE"),
            help: "Show the table as FILE sees it: each value the scenario or an overlay sets is marked with who set it.")
    }
}

extension CommandSpec {
    /// `handoff-sim defaults`: the calibrated defaults as a Markdown table
    /// or as JSON.
    static let defaults = CommandSpec(
        name: "defaults",
        abstract: "Print every default of the world and the continuity protocol with its evidence (measured, sourced or assumed), plausible range and source, as a Markdown table or JSON.",
        discussion: """
            The table is the one in docs/defaults.md. Each row is measured \
            (fitted to a named dataset), sourced (a named document) or assumed \
            (its reasoning in the source column); the plausible ranges are \
            machine-readable in --format json, with the scenario JSON paths \
            that set them. With --scenario FILE (and --overlay FIT), each value \
            the scenario, the overlay it names or FIT sets is marked with who \
            set it; a fit's values as measured, naming the experiment. Every \
            default can be overridden in a scenario file (see \
            docs/scenario-format.md).
            """,
        options: [
            .defaultsScenario,
            .overlay.helping("Also mark the values FILE (an overlay, as from 'handoff-sim calibrate --output') sets, written over the scenario's."),
            .reportFormat.helping("text: a Markdown table; json: the rows with their ranges and paths (see docs/cli.md)."),
        ],
        exitCodes: [
            ExitCodeSpec(.success, "the table was printed"),
            ExitCodeSpec(.usage, "bad command-line usage, or a file that does not exist"),
            ExitCodeSpec(.dataError, "the scenario or the overlay is invalid"),
            ExitCodeSpec(.software, "standard output could not be written"),
        ],
        action: defaultsCommand)
}

/// `handoff-sim defaults`: prints the table, marked by a scenario and
/// overlay when given.
func defaultsCommand(_ parsed: ParsedArguments, _ context: CommandContext) throws(UsageError) -> ExitCode {
    let io = context.io
    let scenario = parsed[.defaultsScenario]
    if let scenario, !FileManager.default.isReadableFile(atPath: scenario) {
        throw UsageError(message: "\(scenario.escapingControlCharacters): no such file or cannot be read")
    }
    let (overlay, overlayFailure) = try loadOverlay(parsed, io)
    if let overlayFailure { return overlayFailure }
    let table = HandoffDefaults.table
    var overrides: [[DefaultOverride]] = Array(repeating: [], count: table.count)
    var unmatched: [DefaultOverride] = []
    if scenario != nil || overlay != nil {
        switch DefaultsAttribution.overrides(of: table, scenario: scenario, overlay: overlay) {
        case let .success(found): (overrides, unmatched) = found
        case let .failure(error):
            io.writeError(error.description)
            return .dataError
        }
    }
    switch parsed[.reportFormat] {
    case .text: io.writeOutput(defaultsTable(table, overrides: overrides, unmatched: unmatched) + "\n")
    case .json: io.writeOutput(defaultsJSON(table, overrides: overrides, unmatched: unmatched))
    }
    return .success
}

/// The evidence as the table's column says it: `measured: DATASET`,
/// `sourced: DOCUMENT` or `assumed`.
func evidenceText(_ evidence: Evidence) -> String {
    evidence.basis.map { "\(evidence.kind): \($0)" } ?? evidence.kind
}

/// A row's ranges as the table's column says them, each with the paths
/// that set it; `—` for none.
func rangesText(_ ranges: [PlausibleRange]) -> String {
    guard !ranges.isEmpty else { return "—" }
    return ranges.map { range in
        range.description + (range.paths.isEmpty ? "" : " (" + range.paths.map { "`\($0)`" }.joined(separator: ", ") + ")")
    }.joined(separator: "; ")
}

/// The defaults table as Markdown, one row per default; a row a scenario or
/// overlay sets says so in its evidence column, before the default's own.
func defaultsTable(
    _ table: [CalibratedDefault] = HandoffDefaults.table, overrides: [[DefaultOverride]] = [],
    unmatched: [DefaultOverride] = []
) -> String {
    var lines = ["| setting | default | evidence | plausible range | source |", "|---|---|---|---|---|"]
    for (index, row) in table.enumerated() {
        var evidence = evidenceText(row.evidence)
        let set = index < overrides.count ? overrides[index] : []
        if !set.isEmpty {
            // The wording names the scenario or overlay file, and the path
            // and value come from it: escaped for a table cell.
            evidence = set.map {
                "\(Escape.markdownCell($0.wording)): `\(Escape.markdownCell($0.path))` = `\(Escape.markdownCell($0.value))`"
            }.joined(separator: "; ")
                + "; the default: " + evidence
        }
        lines.append("| \(row.setting) | \(row.value) | \(evidence) | \(rangesText(row.ranges)) | \(row.source) |")
    }
    for value in unmatched {
        lines.append(
            "| `\(Escape.markdownCell(value.path))` | `\(Escape.markdownCell(value.value))` | \(Escape.markdownCell(value.wording)) | — | no default row names this path |")
    }
    return lines.joined(separator: "\n")
}

/// The defaults as JSON (docs/cli.md, schema/defaults.schema.json).
func defaultsJSON(
    _ table: [CalibratedDefault], overrides: [[DefaultOverride]], unmatched: [DefaultOverride]
) -> String {
    func setBy(_ values: [DefaultOverride]) -> JSONOutput {
        .array(values.map { value in
            let (by, file, experiment): (String, String, (file: String, name: String?)?) = switch value.origin {
            case let .scenario(file): ("scenario", file, nil)
            case let .overlay(file, _, experiment): ("overlay", file, experiment)
            }
            return .object([
                ("path", .string(value.path)), ("value", .string(value.value)), ("by", .string(by)),
                ("file", .string(file)), ("evidence", .string(value.evidence)),
                ("fittedTo", experiment.map { .object([
                    ("file", .string($0.file)), ("name", $0.name.map(JSONOutput.string) ?? .null),
                ]) } ?? .null),
                ("wording", .string(value.wording)),
            ])
        })
    }
    let rows: [JSONOutput] = table.enumerated().map { index, row in
        .object([
            ("setting", .string(row.setting)),
            ("value", .string(row.value)),
            ("evidence", .string(row.evidence.kind)),
            ("basis", row.evidence.basis.map(JSONOutput.string) ?? .null),
            ("source", .string(row.source)),
            ("ranges", .array(row.ranges.map { range in
                .object([
                    ("quantity", .string(range.quantity)),
                    ("low", .double(range.low)), ("high", .double(range.high)), ("unit", .string(range.unit)),
                    ("paths", .array(range.paths.map(JSONOutput.string))),
                    ("lowValue", .string(range.text(range.low))), ("highValue", .string(range.text(range.high))),
                ])
            })),
            ("paths", .array(row.paths.map(JSONOutput.string))),
            ("setBy", setBy(index < overrides.count ? overrides[index] : [])),
        ])
    }
    return JSONOutput.object([
        ("rows", .array(rows)),
        ("unmatched", setBy(unmatched)),
    ]).render(pretty: true) + "\n"
}
