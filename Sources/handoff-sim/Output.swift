#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Writes `message` to standard error, with a final newline unless
/// `newline` is false.
func writeError(_ message: String, newline: Bool = true) {
    var text = message
    if newline, !text.hasSuffix("\n") { text += "\n" }
    // Write to file descriptor 2 directly: the C `stderr` global is not
    // concurrency-safe in Swift 6.
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        bytes = bytes.dropFirst(written)
    }
}

/// Writes `text` to standard output, flushing it.
func writeOutput(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        bytes = bytes.dropFirst(written)
    }
}

/// Whether standard error is a terminal (progress goes there only then).
var standardErrorIsTerminal: Bool { isatty(2) == 1 }

/// An output file could not be written.
struct OutputError: Error {
    let message: String
}

/// Writes `text` to `path` through a temporary file in the same directory
/// and a rename, so a reader never sees half a file.
func writeAtomically(_ text: String, to path: String) throws(OutputError) {
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw OutputError(message: "cannot write \(path): \(error.localizedDescription)")
    }
}

/// Appends `text` to `path` (for GITHUB_STEP_SUMMARY, which the runner
/// reads after the step).
func append(_ text: String, to path: String) throws(OutputError) {
    guard let handle = FileHandle(forWritingAtPath: path) else {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw OutputError(message: "cannot write \(path)")
        }
        return
    }
    defer { try? handle.close() }
    do {
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    } catch {
        throw OutputError(message: "cannot append to \(path): \(error.localizedDescription)")
    }
}
