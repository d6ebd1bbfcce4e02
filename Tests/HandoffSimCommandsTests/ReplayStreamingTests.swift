import Foundation
import HandoffSimCommands
import Testing

/// A standard output that keeps each write apart, to see how output
/// arrives.
private final class RecordingSink: TextSink, @unchecked Sendable {
    private let lock = NSLock()
    private var writes: [String] = []

    var chunks: [String] {
        lock.lock()
        defer { lock.unlock() }
        return writes
    }

    func write(_ text: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        writes.append(text)
        return nil
    }

    var isTerminal: Bool { false }
}

/// Issue 28: `replay` writes its trace as it renders it, in chunks of
/// about 64 KiB, never as one string, with the same bytes as before.
@Suite("replay streams its output")
struct ReplayStreamingTests {
    @Test("replay --packets reaches standard output in chunks of at most about 64 KiB, the same bytes as --output FILE",
          arguments: ["text", "json", "svg", "perfetto"])
    func replayIsStreamed(format: String) throws {
        let scenario = packageRoot + "/scenarios/streams-large-document.json"
        let arguments = ["replay", scenario, "--seed", "1", "--trial", "0", "--packets", "--format", format]
        let sink = RecordingSink()
        let status = runCommandLine(arguments, environment: [:], io: CommandIO(output: sink, error: MemorySink()))
        #expect(status == .success)
        let chunks = sink.chunks
        let whole = chunks.joined()
        // Every chunk is the 64 KiB buffer and at most one more write.
        #expect(chunks.allSatisfy { $0.utf8.count < 65_536 + 4_096 }, "\(chunks.map(\.utf8.count).max() ?? 0) bytes in one write")
        if whole.utf8.count > 2 * 65_536 { #expect(chunks.count >= whole.utf8.count / 69_632) }
        let file = NSTemporaryDirectory() + "replay-\(UUID().uuidString).\(format)"
        let written = runInProcess(arguments + ["--output", file])
        #expect(written.status == .success && written.output.isEmpty)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == whole)
    }
}
