// handoff-sim: the command-line tool. The commands live in HandoffSimCommands
// (runnable in-process); this file only runs them and exits with their
// status.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HandoffSimCommands

let status = runCommandLine(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment, io: .standard())
exit(status.rawValue)
