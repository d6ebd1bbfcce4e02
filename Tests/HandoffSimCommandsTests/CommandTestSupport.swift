import HandoffSimCommands

/// The package root (this file is Tests/HandoffSimCommandsTests/…).
let packageRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// What a command wrote and the status it returned, run in-process.
struct CapturedRun {
    let status: ExitCode
    let output: String
    let error: String
}

/// Runs `handoff-sim arguments` in-process, capturing both streams.
func runInProcess(_ arguments: [String], environment: [String: String] = [:]) -> CapturedRun {
    let output = MemorySink()
    let error = MemorySink()
    let status = runCommandLine(arguments, environment: environment, io: CommandIO(output: output, error: error))
    return CapturedRun(status: status, output: output.text, error: error.text)
}

/// Every command in the tree, the tool first, parents before children.
func everyCommandPath() -> [CommandPath] {
    var paths: [CommandPath] = []
    func visit(_ path: CommandPath) {
        paths.append(path)
        for subcommand in path.spec.subcommands { visit(path.appending(subcommand)) }
    }
    visit(HandoffSimCommandLine.rootPath)
    return paths
}

/// The words after the tool's name that reach `path` (empty for the tool).
func words(of path: CommandPath) -> [String] {
    path.chain.dropFirst().map(\.name)
}

/// A sink whose every write fails, like a full disk.
struct FailingSink: TextSink {
    func write(_ text: String) -> String? { "No space left on device" }
    var isTerminal: Bool { false }
}
