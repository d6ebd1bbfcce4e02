import Foundation
import Testing

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let passes = root + "/Tests/Fixtures/run-scenarios/passes.json"

private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "handoff-sim-output-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Reports go where they are asked to without harming the machine: missing
/// folders are made, links stay links, devices are written in place, and a
/// report that cannot be written is never a silent success.
@Suite("Output safety")
struct OutputSafetyTests {
    @Test("a missing output folder is made before the run; the report is written")
    func missingFolderIsMade() throws {
        let directory = try temporaryDirectory()
        let path = directory + "/reports/ci/junit.xml"
        let run = try ProductRunner.run("handoff-sim", ["run", passes, "--no-progress", "--junit", path])
        #expect(run.status == 0)
        #expect(FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self).hasPrefix("<?xml") } == true)
    }

    @Test("writing through a symbolic link replaces the file it points to and keeps the link")
    func symbolicLinkIsFollowed() throws {
        let directory = try temporaryDirectory()
        try "old".write(toFile: directory + "/target.json", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.json", withDestinationPath: "target.json")
        let run = try ProductRunner.run("handoff-sim", ["run", passes, "--no-progress", "--json", directory + "/link.json"])
        #expect(run.status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/link.json") == "target.json")
        let written = try String(contentsOfFile: directory + "/target.json", encoding: .utf8)
        #expect(written.contains("\"tool\": \"handoff-sim\""))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test("/dev/stdout and - write the report to standard output, and /dev/stdout stays a link", arguments: ["/dev/stdout", "-"])
    func standardOutput(path: String) throws {
        let run = try ProductRunner.run("handoff-sim", ["run", passes, "--no-progress", "--quiet", "--json", path])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("1 scenario: 1 passed"))
        #expect(run.standardOutput.contains("\"tool\": \"handoff-sim\""))
        let attributes = try FileManager.default.attributesOfItem(atPath: "/dev/stdout")
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
    }

    @Test("a folder or a path ending in / is refused before the run, by name, exit 70")
    func foldersAreRefused() throws {
        let directory = try temporaryDirectory()
        let folder = try ProductRunner.run("handoff-sim", ["run", passes, "--no-progress", "--json", directory])
        #expect(folder.status == 70)
        #expect(folder.standardError == "error: cannot write \(directory): it is a folder; give a file name\n")
        #expect(folder.standardOutput.isEmpty, "nothing ran")
        let slash = try ProductRunner.run("handoff-sim", ["sweep", passes, "--payload", "1KiB", "--output", directory + "/new/"])
        #expect(slash.status == 70)
        #expect(slash.standardError == "error: cannot write \(directory)/new/: the path ends in '/', which names a folder; give a file name\n")
        #expect(!FileManager.default.fileExists(atPath: directory + "/new"))
    }

    @Test("a full disk on standard output is exit 70 with a message, not a silent success")
    func fullStandardOutput() throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let run = try ProductRunner.run("handoff-sim", ["run", passes, "--no-progress"], standardOutput: full)
        #expect(run.status == 70)
        #expect(run.standardError == "error: cannot write standard output: No space left on device\n")
    }

    @Test("a temporary file left by a process that no longer runs is removed on the next write")
    func staleTemporaryFilesAreRemoved() throws {
        let directory = try temporaryDirectory()
        // PID 2^22 + 1 is above Linux's pid_max limit, so no process has it.
        let stale = directory + "/.report.json.handoff-sim-4194305.tmp"
        try "half".write(toFile: stale, atomically: false, encoding: .utf8)
        let run = try ProductRunner.run("handoff-sim", ["run", passes, "--no-progress", "--json", directory + "/report.json"])
        #expect(run.status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: directory + "/report.json"))
    }
}
