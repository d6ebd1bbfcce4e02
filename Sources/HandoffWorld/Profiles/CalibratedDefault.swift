import SimKernel

/// What a default's value rests on.
///
/// A row whose numbers rest on different grounds takes the weakest of them
/// (measured, then sourced, then assumed); what else the model assumes
/// about the mechanism is said in the row's ``CalibratedDefault/source``.
///
/// ```swift
/// let assumed = CalibratedDefaults.table.filter { $0.evidence == .assumed }.map(\.setting)
/// ```
public enum Evidence: Hashable, Sendable {
    /// Fitted to measurements: `dataset` names them.
    case measured(dataset: String)
    /// Taken from a document: `document` names it.
    case sourced(document: String)
    /// An assumption: the row's ``CalibratedDefault/source`` gives the
    /// reasoning.
    case assumed

    /// `"measured"`, `"sourced"` or `"assumed"`.
    public var kind: String {
        switch self {
        case .measured: "measured"
        case .sourced: "sourced"
        case .assumed: "assumed"
        }
    }

    /// The dataset or the document; nil for an assumption.
    public var basis: String? {
        switch self {
        case let .measured(dataset): dataset
        case let .sourced(document): document
        case .assumed: nil
        }
    }
}

/// One number of a default, the range it plausibly lies in, and the
/// scenario JSON paths that set it.
///
/// `low` and `high` are in ``unit``, which is a unit scenario files accept
/// at ``paths`` (`"ms"`, `"s"`, `"Mbit/s"`, `"KiB"`, or `""` for a plain
/// number), so that ``text(_:)`` of either end, written at every path (an
/// overlay's `{"path", "value"}`), sets the number to that end:
///
/// ```swift
/// for range in row.ranges where !range.paths.isEmpty {
///     let edits = range.paths.map { ($0, range.text(range.low)) }   // the low end, as overlay values
/// }
/// ```
///
/// A path with `[0]` names the scenario's first app; a scenario with several
/// apps has one such value per app.
public struct PlausibleRange: Hashable, Sendable, CustomStringConvertible {
    /// How the number is written at its paths.
    public enum Form: Hashable, Sendable {
        /// The number and its unit, e.g. `"50ms"`, or the number alone.
        case plain
        /// The median of a log-normal distribution: the whole distribution
        /// is written, with this σ and offset (the default's) kept.
        case logNormalMedian(sigma: Double, offset: SimDuration)
    }

    /// Which number of the row, e.g. `"activation"`.
    public let quantity: String
    /// The low end, in ``unit``.
    public let low: Double
    /// The high end, in ``unit``.
    public let high: Double
    /// The unit of `low` and `high`, as scenario files write it; `""` for a
    /// plain number (a fraction, a count, σ).
    public let unit: String
    /// The scenario JSON paths the number is written at (several when one
    /// number sets both directions of a link); empty when no scenario can
    /// set it.
    public let paths: [String]
    /// How the number is written there.
    public let form: Form

    /// A range; `low` ≤ `high`.
    public init(_ quantity: String, _ low: Double, _ high: Double, _ unit: String, paths: [String] = [],
                form: Form = .plain) {
        precondition(low <= high, "a plausible range runs from low to high")
        self.quantity = quantity
        self.low = low
        self.high = high
        self.unit = unit
        self.paths = paths
        self.form = form
    }

    /// The median of `distribution`, from `low` to `high` in `unit`: a
    /// log-normal keeps its σ and offset at `paths`; any other
    /// distribution is written as a fixed duration.
    public static func median(
        of distribution: DurationDistribution, _ low: Double, _ high: Double, _ unit: String,
        quantity: String = "median", paths: [String]
    ) -> PlausibleRange {
        if case let .logNormal(_, sigma, offset) = distribution {
            return PlausibleRange(quantity, low, high, unit, paths: paths, form: .logNormalMedian(sigma: sigma, offset: offset))
        }
        return PlausibleRange(quantity, low, high, unit, paths: paths)
    }

    /// `value` (in ``unit``) as an overlay writes it at ``paths``: `"10ms"`,
    /// `"0.01"`, or for a log-normal's median the distribution as JSON text,
    /// `{"logNormal": {"median": "100ms", "sigma": 0.3}}`.
    public func text(_ value: Double) -> String {
        let plain = CalibratedDefaults.number(value) + unit
        switch form {
        case .plain:
            return plain
        case let .logNormalMedian(sigma, offset):
            let offsetText = offset == .zero ? "" : ", \"offset\": \"\(offset.nanoseconds)ns\""
            return "{\"logNormal\": {\"median\": \"\(plain)\", \"sigma\": \(CalibratedDefaults.number(sigma))\(offsetText)}}"
        }
    }

    /// `low–high unit`, as the defaults table shows it, with the quantity.
    public var description: String {
        let unitText = unit.isEmpty ? "" : " " + unit
        let span = low == high
            ? CalibratedDefaults.number(low) : CalibratedDefaults.number(low) + "–" + CalibratedDefaults.number(high)
        return "\(quantity) \(span)\(unitText)"
    }
}

/// One default of the world model: what it is, its value, and what the
/// value rests on.
///
/// ```swift
/// for row in CalibratedDefaults.table {
///     print(row.setting, row.evidence.kind, row.ranges.map(\.description))
/// }
/// ```
public struct CalibratedDefault: Hashable, Sendable {
    /// What the default sets, e.g. `"Edge downlink"`.
    public let setting: String
    /// Its value in words, computed from the constant the model uses.
    public let value: String
    /// Its sources, and the reasoning behind what is assumed.
    public let source: String
    /// Measured, sourced or assumed.
    public let evidence: Evidence
    /// The plausible ranges of its numbers, machine-readable (an assumed or
    /// sourced number with a range in ``source`` has it here too); empty
    /// for a row with no number to vary (a mechanism, a document's exact
    /// figure, a profile chosen whole).
    public let ranges: [PlausibleRange]
    /// Every scenario JSON path that sets (part of) the value, the
    /// ranges' paths among them; empty when no scenario can.
    public let paths: [String]

    /// A row of the table; `paths` adds to the ranges' paths.
    public init(setting: String, value: String, source: String, evidence: Evidence,
                ranges: [PlausibleRange] = [], paths: [String] = []) {
        self.setting = setting
        self.value = value
        self.source = source
        self.evidence = evidence
        self.ranges = ranges
        var all: [String] = []
        for path in ranges.flatMap(\.paths) + paths where !all.contains(path) { all.append(path) }
        self.paths = all
    }

    /// The ranges a scenario can set: those with paths.
    public var parameters: [PlausibleRange] { ranges.filter { !$0.paths.isEmpty } }
}
