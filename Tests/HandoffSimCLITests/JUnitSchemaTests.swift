import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let schema = root + "/schema/junit-jenkins.xsd"

/// Whether `xmllint` (Debian's libxml2-utils; `.ci/run` installs it) is
/// on this machine.
private let xmllint: String? = ["/usr/bin/xmllint", "/usr/local/bin/xmllint", "/opt/homebrew/bin/xmllint"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// The JUnit report validates against the JUnit XML schema that Jenkins'
/// xunit plugin uses, for every kind of result at once.
@Suite("JUnit against its schema")
struct JUnitSchemaTests {
    @Test("passed, fragile, failed, errored, skipped and invalid scenarios give a report that xmllint validates",
          .enabled(if: xmllint != nil, "xmllint is not installed (Debian: libxml2-utils)"))
    func reportValidates() throws {
        let directory = NSTemporaryDirectory() + "handoff-sim-junit-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let report = directory + "/junit.xml"
        let fixtures = root + "/Tests/Fixtures/"
        let run = try ProductRunner.run("handoff-sim", [
            "run", fixtures + "run-scenarios/passes.json", fixtures + "run-scenarios/fragile.json",
            fixtures + "run-scenarios/latency-bound.json",
            fixtures + "run-scenarios/event-limit.json", root + "/sweeps/guidance/relay.json",
            fixtures + "invalid-scenarios/unknown-key.json", "--no-progress", "--junit", report,
        ])
        #expect(run.status == 65)
        let xml = try String(contentsOfFile: report, encoding: .utf8)
        for element in ["<failure ", "<error ", "<skipped ", "<properties>", "<system-out>"] { #expect(xml.contains(element)) }

        let lint = Process()
        lint.executableURL = URL(fileURLWithPath: try #require(xmllint))
        lint.arguments = ["--noout", "--schema", schema, report]
        let errors = Pipe()
        lint.standardError = errors
        try lint.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        lint.waitUntilExit()
        #expect(lint.terminationStatus == 0, "\(message)")
    }
}
