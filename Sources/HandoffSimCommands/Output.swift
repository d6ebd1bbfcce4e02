#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HandoffScenario

/// Where text goes: a file descriptor, or memory (for tests).
package protocol TextSink: Sendable {
    /// Writes `text` whole.
    ///
    /// - Returns: why it could not be written, or nil.
    func write(_ text: String) -> String?
    /// Whether the sink is a terminal (progress lines are shown only then).
    var isTerminal: Bool { get }
}

/// A file descriptor, such as 1 (standard output) or 2 (standard error).
package struct FileDescriptorSink: TextSink {
    /// The descriptor written to.
    package let descriptor: Int32

    /// A sink writing to `descriptor`.
    package init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes every byte, retrying on interruption.
    package func write(_ text: String) -> String? {
        writeAll(Array(text.utf8), to: descriptor).map { String(cString: strerror($0)) }
    }

    /// Whether the descriptor is a terminal.
    package var isTerminal: Bool { isatty(descriptor) == 1 }
}

/// Text kept in memory: a command's output captured in-process.
package final class MemorySink: TextSink, @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""

    /// An empty sink.
    package init() {}

    /// Everything written so far.
    package var text: String {
        lock.lock()
        defer { lock.unlock() }
        return buffer
    }

    /// Appends `text`; never fails.
    package func write(_ text: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        buffer += text
        return nil
    }

    /// A memory sink is not a terminal.
    package var isTerminal: Bool { false }
}

/// A command's standard output and standard error.
///
/// A failed write to standard output is remembered: the command's exit
/// status becomes 70 and the reason is reported (see ``finish(_:)``), so a
/// lost report never looks like a success. Safe to use from several
/// threads (progress is written from worker threads).
package final class CommandIO: @unchecked Sendable {
    private let output: any TextSink
    private let error: any TextSink
    private let lock = NSLock()
    private var outputFailure: String?

    /// Output to `output`, errors, warnings and progress to `error`.
    package init(output: any TextSink, error: any TextSink) {
        self.output = output
        self.error = error
    }

    /// The process's own standard output and standard error.
    package static func standard() -> CommandIO {
        CommandIO(output: FileDescriptorSink(1), error: FileDescriptorSink(2))
    }

    /// Writes `text` to standard output; nothing more is written after a
    /// failed write.
    package func writeOutput(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        guard outputFailure == nil else { return }
        outputFailure = output.write(text)
    }

    /// Writes `message` to standard error, with a final newline unless
    /// `newline` is false.
    package func writeError(_ message: String, newline: Bool = true) {
        var text = message
        if newline, !text.hasSuffix("\n") { text += "\n" }
        lock.lock()
        defer { lock.unlock() }
        _ = error.write(text)
    }

    /// Whether standard error is a terminal (progress goes there only then).
    package var standardErrorIsTerminal: Bool { error.isTerminal }

    /// `status`, or 70 with a message if standard output could not be
    /// written (a full disk, a closed descriptor).
    package func finish(_ status: ExitCode) -> ExitCode {
        lock.lock()
        let failure = outputFailure
        lock.unlock()
        guard let failure else { return status }
        writeError("error: cannot write standard output: \(failure)")
        return .software
    }
}

/// Writes every byte to `descriptor`, retrying on interruption.
///
/// - Returns: the `errno` of the first failure, or nil.
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
    var remaining = bytes[...]
    while !remaining.isEmpty {
        let written = remaining.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        if written == 0 { return EIO }
        remaining = remaining.dropFirst(written)
    }
    return nil
}

/// An output file could not be written.
struct OutputError: Error {
    let message: String
}

/// Where a report goes: standard output (`-`), a device, FIFO or
/// `/dev/…` path written directly, or a regular file replaced atomically.
///
/// A symbolic link is followed: the file it points to is replaced (through
/// a temporary file beside it), and the link stays a link. Missing parent
/// folders are made. Temporary files are named
/// `.<name>.handoff-sim-<pid>.tmp`; one left by a process that no longer
/// runs is removed the next time the same file is written.
struct OutputTarget {
    enum Kind {
        case standardOutput
        case device(String)
        case file(String)
    }

    let path: String
    let kind: Kind

    /// Checks `path` before any work is done, making missing parent
    /// folders, so a run never does all its work to fail at the end.
    ///
    /// - Throws: ``OutputError`` for a folder, a path ending in `/`, or a
    ///   parent that cannot be made.
    init(_ path: String) throws(OutputError) {
        self.path = path
        if path == "-" {
            kind = .standardOutput
            return
        }
        guard !path.isEmpty else { throw OutputError(message: "an output path is empty") }
        let shown = path.escapingControlCharacters
        guard !path.hasSuffix("/") else {
            throw OutputError(message: "cannot write \(shown): the path ends in '/', which names a folder; give a file name")
        }
        // A device path (/dev/stdout, /dev/fd/3, /proc/self/fd/1) is written
        // in place: it may name this process's own descriptor, which a rename
        // would cut off from the file it writes.
        if path.hasPrefix("/dev/") || path.hasPrefix("/proc/") {
            kind = .device(path)
            return
        }
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                throw OutputError(message: "cannot write \(shown): it is a folder; give a file name")
            case S_IFCHR, S_IFIFO, S_IFSOCK:
                kind = .device(path)
                return
            default:
                break
            }
        }
        let target = Self.resolvingLinks(path)
        try Self.makeParentFolder(of: target, shownAs: shown)
        kind = .file(target)
    }

    /// Writes `text` whole: to standard output, straight to a device, or to
    /// a temporary file beside the target renamed over it.
    func write(_ text: String, io: CommandIO) throws(OutputError) {
        let shown = path.escapingControlCharacters
        switch kind {
        case .standardOutput:
            io.writeOutput(text)
        case let .device(target):
            let descriptor = open(target, O_WRONLY | O_APPEND)
            guard descriptor >= 0 else { throw OutputError(message: "cannot write \(shown): \(String(cString: strerror(errno)))") }
            defer { close(descriptor) }
            if let error = writeAll(Array(text.utf8), to: descriptor) {
                throw OutputError(message: "cannot write \(shown): \(String(cString: strerror(error)))")
            }
        case let .file(target):
            let folder = (target as NSString).deletingLastPathComponent
            let name = (target as NSString).lastPathComponent
            let directory = folder.isEmpty ? "." : folder
            Self.removeStaleTemporaries(of: name, in: directory)
            let temporary = directory + "/." + name + ".handoff-sim-\(getpid()).tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0o644)
            guard descriptor >= 0 else {
                throw OutputError(message: "cannot write \(shown): \(String(cString: strerror(errno)))")
            }
            let failure = writeAll(Array(text.utf8), to: descriptor)
            let closed = close(descriptor)
            if failure != nil || closed != 0 || rename(temporary, target) != 0 {
                let error = failure ?? errno
                unlink(temporary)
                throw OutputError(message: "cannot write \(shown): \(String(cString: strerror(error)))")
            }
        }
    }

    /// Makes the folder that will hold `path`, if it is missing.
    ///
    /// - Throws: ``OutputError`` when the parent is a file or cannot be made.
    static func makeParentFolder(of path: String, shownAs shown: String) throws(OutputError) {
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty else { return }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw OutputError(message: "cannot write \(shown): \(parent.escapingControlCharacters) is not a folder")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw OutputError(message: "cannot write \(shown): cannot make the folder \(parent.escapingControlCharacters): \(reason(of: error))")
        }
    }

    /// The file `path` finally names, following symbolic links (up to 40,
    /// as the kernel does); a dangling link names the file it points to.
    static func resolvingLinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                return current
            }
            current = destination.hasPrefix("/")
                ? destination : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
        }
        return current
    }

    /// Removes temporary files for `name` in `directory` left by processes
    /// that no longer run.
    static func removeStaleTemporaries(of name: String, in directory: String) {
        let prefix = "." + name + ".handoff-sim-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            let digits = entry.dropFirst(prefix.count).dropLast(4)
            guard let pid = Int32(digits), pid != getpid() else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { unlink(directory + "/" + entry) }
        }
    }

    /// A file-system error as a short sentence.
    static func reason(of error: Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(code)))
        }
        return error.localizedDescription
    }
}

/// Writes `text` to `path` (see ``OutputTarget``).
func writeAtomically(_ text: String, to path: String, io: CommandIO) throws(OutputError) {
    try OutputTarget(path).write(text, io: io)
}

/// Appends `text` to `path` (for GITHUB_STEP_SUMMARY, which the runner
/// reads after the step), making missing parent folders.
func append(_ text: String, to path: String) throws(OutputError) {
    let shown = path.escapingControlCharacters
    try OutputTarget.makeParentFolder(of: path, shownAs: shown)
    let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard descriptor >= 0 else { throw OutputError(message: "cannot append to \(shown): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    if let error = writeAll(Array(text.utf8), to: descriptor) {
        throw OutputError(message: "cannot append to \(shown): \(String(cString: strerror(error)))")
    }
}

/// Checks the path of every option the spec marks as an output path
/// (`--output`, `--json`, `--junit`, `--markdown`) before a command does
/// any work, making missing folders.
///
/// - Returns: exit 70 after printing the problem, or nil when every path
///   can be written.
func preflightOutputs(_ parsed: ParsedArguments, _ context: CommandContext) -> ExitCode? {
    for option in context.path.spec.declaredOptions where option.isOutputPath {
        guard let path = parsed.texts(of: option).last else { continue }
        do {
            _ = try OutputTarget(path)
        } catch {
            context.io.writeError("error: \(error.message)")
            return .software
        }
    }
    return nil
}
