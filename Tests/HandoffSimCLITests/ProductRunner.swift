import Foundation

/// Runs a product executable built alongside the test bundle and captures
/// its exit status and output.
struct ProductRun {
    let status: Int32
    let standardOutput: String
    let standardError: String
}

enum ProductRunner {
    /// The directory holding the built products: the test binary's own
    /// directory on Linux, a few levels up inside the `.xctest` bundle on macOS.
    static func productsDirectory() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<5 {
            if FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("handoff-sim").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        struct NotFound: Error, CustomStringConvertible {
            let description = "handoff-sim was not found next to the test binary"
        }
        throw NotFound()
    }

    static func run(_ product: String, _ arguments: [String]) throws -> ProductRun {
        let process = Process()
        process.executableURL = try productsDirectory().appendingPathComponent(product)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read both pipes before waiting so a chatty child cannot block.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProductRun(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}
