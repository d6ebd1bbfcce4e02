import HandoffScenario

/// The reports of a run of scenario files, one per format, each a rendering
/// of the same `RunSummary`: the text summary (``text(_:command:quiet:budgets:)``),
/// the table over several seeds (``seedsTable(_:command:quiet:)``),
/// Markdown for a step summary (``markdown(_:command:)``), JUnit XML
/// (``junit(_:toolVersion:command:)``), JSON
/// (``json(_:toolVersion:trials:seed:command:)``), GitHub Actions
/// annotations (``annotations(for:command:)``), and the HTML page
/// (``HTMLReport/run(_:context:command:)``). None decides a status: the
/// summary did, once, with `--strict` applied.
///
/// ```swift
/// let results = ScenarioSuite.run(files: try ScenarioSuite.files(in: ["scenarios"]), runner: ScenarioRunner())
/// let summary = RunSummary(results, strict: true)
/// print(RunReport.text(summary), terminator: "")
/// try RunReport.junit(summary, toolVersion: "1.0").write(toFile: "junit.xml", atomically: true, encoding: .utf8)
/// ```
public enum RunReport {}
