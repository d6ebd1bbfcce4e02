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

/// Text passed on in chunks of about 64 KiB, each made of whole writes (so
/// a chunk never splits a character), to a function that writes it.
///
/// After the first failure nothing more is passed on; ``failure`` says why.
struct BufferedTextWriter: TextOutputStream {
    /// The chunk size passed on: 64 KiB.
    static let capacity = 1 << 16

    private var buffer = ""
    private let sink: (String) -> Int32?
    /// The `errno` of the first failed write, or nil.
    private(set) var failure: Int32?

    /// A writer passing its chunks to `sink`, which returns the `errno` of
    /// a failure or nil.
    init(_ sink: @escaping (String) -> Int32?) {
        self.sink = sink
        buffer.reserveCapacity(Self.capacity)
    }

    /// Appends `string`, passing the buffer on once it holds 64 KiB.
    mutating func write(_ string: String) {
        guard failure == nil else { return }
        buffer += string
        if buffer.utf8.count >= Self.capacity { flush() }
    }

    /// Passes on whatever is buffered.
    mutating func flush() {
        guard failure == nil, !buffer.isEmpty else { return }
        failure = sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// An output file could not be written.
struct OutputError: Error {
    let message: String
}

/// Where a report goes: standard output (`-`, `/dev/stdout`, `/dev/fd/1`,
/// `/proc/self/fd/1`) or standard error (`/dev/stderr`, `/dev/fd/2`,
/// `/proc/self/fd/2`) written in order through the command's own streams,
/// another device, FIFO or `/dev/…` path written directly, or a regular
/// file replaced atomically.
///
/// Standard output is never reopened by name: when it is a regular file
/// (`> out.txt`), a second file description would write at its own offset,
/// over what the first wrote.
///
/// A symbolic link is followed: the file it points to is replaced (through
/// a temporary file beside it), and the link stays a link. Missing parent
/// folders are made. Temporary files are named
/// `.<name>.handoff-sim-<pid>.tmp`; one left by a process that no longer
/// runs is removed the next time the same file is written.
struct OutputTarget {
    enum Kind {
        case standardOutput
        case standardError
        case device(String)
        case file(String)
    }

    let path: String
    let kind: Kind

    /// The names of standard output.
    static let standardOutputNames: Set<String> = ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
    /// The names of standard error.
    static let standardErrorNames: Set<String> = ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"]

    /// Checks `path` before any work is done, making missing parent
    /// folders and making sure a file can be created in the folder, so a
    /// run never does all its work to fail at the end.
    ///
    /// - Throws: ``OutputError`` for a folder, a path ending in `/`, a
    ///   symbolic link loop, a parent that cannot be made, or a folder in
    ///   which no file can be created.
    init(_ path: String) throws(OutputError) {
        self.path = path
        if Self.standardOutputNames.contains(path) {
            kind = .standardOutput
            return
        }
        if Self.standardErrorNames.contains(path) {
            kind = .standardError
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
        } else if errno == ELOOP {
            throw OutputError(message: "cannot write \(shown): \(String(cString: strerror(ELOOP))) (a symbolic link loop)")
        }
        guard let target = Self.resolvingLinks(path) else {
            throw OutputError(message: "cannot write \(shown): \(String(cString: strerror(ELOOP))) (a symbolic link loop)")
        }
        try Self.makeParentFolder(of: target, shownAs: shown)
        try Self.checkWritableFolder(of: target, shownAs: shown)
        kind = .file(target)
    }

    /// Writes `text` whole: to standard output, straight to a device, or to
    /// a temporary file beside the target renamed over it (see
    /// ``stream(io:_:)``).
    func write(_ text: String, io: CommandIO) throws(OutputError) {
        try stream(io: io) { $0.write(text) }
    }

    /// Writes what `body` writes, as it writes it, through a buffer of
    /// about 64 KiB: to standard output or error in order, straight to a
    /// device, or to a temporary file beside the target renamed over it
    /// once `body` returns (so the file is replaced whole or not at all,
    /// and the text is never held whole in memory).
    func stream(io: CommandIO, _ body: (inout BufferedTextWriter) -> Void) throws(OutputError) {
        let shown = path.escapingControlCharacters
        func failed(_ error: Int32) -> OutputError {
            OutputError(message: "cannot write \(shown): \(String(cString: strerror(error)))")
        }
        switch kind {
        case .standardOutput:
            var writer = BufferedTextWriter { io.writeOutput($0); return nil }
            body(&writer)
            writer.flush()
        case .standardError:
            var writer = BufferedTextWriter { io.writeError($0, newline: false); return nil }
            body(&writer)
            writer.flush()
        case let .device(target):
            let descriptor = open(target, O_WRONLY | O_APPEND)
            guard descriptor >= 0 else { throw failed(errno) }
            defer { close(descriptor) }
            var writer = BufferedTextWriter { writeAll(Array($0.utf8), to: descriptor) }
            body(&writer)
            writer.flush()
            if let error = writer.failure { throw failed(error) }
        case let .file(target):
            let folder = (target as NSString).deletingLastPathComponent
            let name = (target as NSString).lastPathComponent
            let directory = folder.isEmpty ? "." : folder
            Self.removeStaleTemporaries(of: name, in: directory)
            let temporary = directory + "/." + name + ".handoff-sim-\(getpid()).tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0o644)
            guard descriptor >= 0 else { throw failed(errno) }
            var writer = BufferedTextWriter { writeAll(Array($0.utf8), to: descriptor) }
            body(&writer)
            writer.flush()
            let closed = close(descriptor)
            if writer.failure != nil || closed != 0 || rename(temporary, target) != 0 {
                let error = writer.failure ?? errno
                unlink(temporary)
                throw failed(error)
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

    /// Makes sure a file can be created in the folder that holds `path`
    /// (the temporary file a write renames over it): creates and removes
    /// an empty temporary file.
    ///
    /// - Throws: ``OutputError`` naming the folder and the reason (a
    ///   read-only folder or file system, no permission).
    static func checkWritableFolder(of path: String, shownAs shown: String) throws(OutputError) {
        let folder = (path as NSString).deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        let probe = directory + "/." + (path as NSString).lastPathComponent + ".handoff-sim-\(getpid()).tmp"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw OutputError(message: "cannot write \(shown): no file can be made in the folder \(directory.escapingControlCharacters): \(reason)")
        }
        close(descriptor)
        unlink(probe)
    }

    /// The file `path` finally names, following symbolic links (up to 40,
    /// as the kernel does); a dangling link names the file it points to.
    ///
    /// - Returns: nil when the links go on past 40 (a loop).
    static func resolvingLinks(_ path: String) -> String? {
        var current = path
        for _ in 0...40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                return current
            }
            current = destination.hasPrefix("/")
                ? destination : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(destination)
        }
        return nil
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
/// (`--output`, `--json`, `--junit`, `--markdown`, `--samples`, `--chart`)
/// before a command does any work: no output may be an input (the
/// positional files, the files of a folder given, `--overlay`) or another
/// output, then each is checked as ``OutputTarget`` does, making missing
/// folders.
///
/// - Parameter inputs: more input files, beyond those of the command line.
/// - Returns: exit 64 for an output that overwrites an input or another
///   output, exit 70 for an output that cannot be written, after printing
///   the problem; nil when every path can be written.
func preflightOutputs(_ parsed: ParsedArguments, _ context: CommandContext, inputs: [String] = []) -> ExitCode? {
    if let failure = refuseOverlappingOutputs(parsed, context, inputs: inputs) { return failure }
    for (_, path) in outputPaths(parsed, context) {
        do {
            _ = try OutputTarget(path)
        } catch {
            context.io.writeError("error: \(error.message)")
            return .software
        }
    }
    return nil
}

/// The output options given, as (option name, path).
func outputPaths(_ parsed: ParsedArguments, _ context: CommandContext) -> [(option: String, path: String)] {
    context.path.spec.declaredOptions.filter(\.isOutputPath).compactMap { option in
        parsed.texts(of: option).last.map { (option.name, $0) }
    }
}

/// Refuses an output that names an input or another output (compared as
/// resolved files: symbolic links, `./`, `..`, relative or absolute, hard
/// links). Standard output, standard error and devices are streams, not
/// files, and are never refused.
///
/// - Parameter inputs: more input files, beyond the positional arguments
///   (a folder stands for its scenario files) and `--overlay`.
/// - Returns: exit 64 after naming the paths, or nil.
func refuseOverlappingOutputs(_ parsed: ParsedArguments, _ context: CommandContext, inputs: [String] = []) -> ExitCode? {
    var allInputs: [String] = []
    for path in parsed.positional where path != "-" {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            allInputs += (try? ScenarioSuite.files(in: [path])) ?? []
        } else {
            allInputs.append(path)
        }
    }
    if let overlay = context.path.spec.option(named: "--overlay") { allInputs += parsed.texts(of: overlay) }
    allInputs += inputs
    let outputs = outputPaths(parsed, context).filter { !FileIdentity.isStream($0.path) }
    for (index, output) in outputs.enumerated() {
        let shown = output.path.escapingControlCharacters
        if let input = allInputs.first(where: { FileIdentity.same($0, output.path) }) {
            context.io.writeError(
                "error: \(output.option) \(shown) would overwrite the input \(input.escapingControlCharacters); give the output another path")
            return .usage
        }
        if let other = outputs[..<index].first(where: { FileIdentity.same($0.path, output.path) }) {
            context.io.writeError(
                "error: \(other.option) \(other.path.escapingControlCharacters) and \(output.option) \(shown) are the same file; give each output its own path")
            return .usage
        }
    }
    return nil
}

/// Comparing paths as the files they name.
enum FileIdentity {
    /// Whether `path` names a stream rather than a file: standard output
    /// or error, a `/dev/` or `/proc/` path, a device, FIFO or socket.
    static func isStream(_ path: String) -> Bool {
        if OutputTarget.standardOutputNames.contains(path) || OutputTarget.standardErrorNames.contains(path) { return true }
        if path.hasPrefix("/dev/") || path.hasPrefix("/proc/") { return true }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFCHR || type == S_IFIFO || type == S_IFSOCK
    }

    /// Whether `first` and `second` name the same file: the same device
    /// and inode when both exist, else the same resolved absolute path.
    static func same(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        if stat(first, &a) == 0, stat(second, &b) == 0 {
            return a.st_dev == b.st_dev && a.st_ino == b.st_ino
        }
        return resolved(first) == resolved(second)
    }

    /// `path` made absolute, its links followed and `.`/`..` removed; for
    /// a file that does not exist, its folder resolved and its name after.
    static func resolved(_ path: String) -> String {
        let target = OutputTarget.resolvingLinks(path) ?? path
        let absolute = target.hasPrefix("/") ? target : FileManager.default.currentDirectoryPath + "/" + target
        if let real = realpath(absolute, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let folder = (absolute as NSString).deletingLastPathComponent
        let name = (absolute as NSString).lastPathComponent
        if let real = realpath(folder, nil) {
            defer { free(real) }
            return (String(cString: real) as NSString).appendingPathComponent(name)
        }
        return (absolute as NSString).standardizingPath
    }
}
