import HandoffScenario
import HandoffWorld

extension DefaultsAttribution {
    /// ``overrides(of:scenario:overlay:experimentName:)`` with a fit's
    /// experiment named as its file says (`handoff-sim defaults`): the file
    /// is read and decoded, and an experiment that cannot be is named by
    /// its path only.
    package static func overrides(
        of table: [CalibratedDefault], scenario file: String?, overlay: Overlay?
    ) -> Result<(rows: [[DefaultOverride]], unmatched: [DefaultOverride]), ScenarioError> {
        overrides(of: table, scenario: file, overlay: overlay, experimentName: ExperimentDecoder.name(ofFile:))
    }
}
