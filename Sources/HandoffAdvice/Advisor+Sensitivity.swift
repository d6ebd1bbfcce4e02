import Handoff
import HandoffScenario
import HandoffWorld
import SimKernel

/// The sensitivity's helpers: which values to vary, and the warning an
/// answer gets when an assumption alone moves it across its target.
extension Advisor {
    /// The first assumed default, in the sensitivity's order, that alone
    /// moves the answer across the target (at either end of its range).
    static func warnings(_ sensitivity: [Sensitivity], meets: Bool, target: Target) -> [Warning] {
        // A value the file sets is an assumption too, whatever the
        // default's own evidence.
        for entry in sensitivity where entry.evidence == .assumed || entry.setBy != nil {
            let ends: [(RangeEnd, SimDuration?, Double)] = [(.low, entry.low, entry.range.low), (.high, entry.high, entry.range.high)]
            for (end, value, endValue) in ends {
                guard let value, (value <= target.latency) != meets else { continue }
                return [.assumptionCrossesTarget(AssumptionCrossing(
                    parameter: entry, end: end, endValue: endValue, value: value, answerMeetsTarget: meets))]
            }
        }
        return []
    }

    /// A default's number varied across its plausible range.
    struct VariedParameter {
        let name: String
        let evidence: Evidence
        let range: PlausibleRange
        /// Who set the value the file runs with (`set by the scenario
        /// (FILE)`), nil where the default stands.
        let setBy: String?

        /// The values that set the number to `value` at every path.
        func edits(_ value: Double) -> [(path: String, values: [String])] {
            range.paths.map { ($0, [range.text(value)]) }
        }
    }

    /// The values to vary: every range with scenario paths, whether the
    /// default stands there or the file (or an overlay) writes its own
    /// value (a value the team wrote, even the default's, is still an
    /// assumption), except where the value written is measured: a fit's
    /// (an overlay from `calibrate`), or one the file marks measured (its
    /// `"measured"` list, with a source).
    static func variedParameters(_ bytes: [UInt8], file: String, overlay: Overlay?) throws(ScenarioError) -> [VariedParameter] {
        let table = HandoffDefaults.table
        let set: [[DefaultOverride]]
        switch DefaultsAttribution.overrides(of: table, bytes: bytes, file: file, overlay: overlay) {
        case let .success(found): set = found.rows
        case let .failure(error): throw error
        }
        var parameters: [VariedParameter] = []
        for (index, row) in table.enumerated() {
            // Who wrote a number (at its path, or at a path above it): a
            // measured value is not varied; another is, marked as set.
            func writer(_ path: String) -> DefaultOverride? {
                set[index].last { $0.path == path || path.hasPrefix($0.path + ".") || path.hasPrefix($0.path + "[") }
            }
            // The userInfo limit bounds the search itself: varying it moves
            // the ceiling of the answer, not the latency.
            for range in row.parameters where range.low < range.high && !range.paths.contains(where: { $0.hasSuffix("userInfoLimit") }) {
                let writers = range.paths.compactMap(writer)
                if writers.contains(where: { $0.evidence == "measured" }) { continue }
                let name = row.parameters.count > 1 ? "\(row.setting): \(range.quantity)" : row.setting
                parameters.append(VariedParameter(
                    name: name, evidence: row.evidence, range: range, setBy: writers.first.map(\.wording)))
            }
        }
        return parameters
    }
}
