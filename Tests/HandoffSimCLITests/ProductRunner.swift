import Foundation

/// Runs a product executable built alongside the test bundle and captures
/// its exit status and output.
struct ProductRun {
    let status: Int32
    let standardOutput: String
    let standardError: String
}

enum ProductRunner {
    /// The directory holding the built products.
    ///
    /// Tried in order: the test binary's own directory and its parents (Linux,
    /// where `swift test` runs the test binary directly); the directory of
    /// the loaded `.xctest` bundle (macOS, where a helper process loads the
    /// bundle); and `.build/debug` under the package root.
    static func productsDirectory(filePath: String = #filePath) throws -> URL {
        var candidates: [URL] = []
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(directory)
            directory.deleteLastPathComponent()
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        let packageRoot = URL(fileURLWithPath: filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        for candidate in candidates
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("handoff-sim").path) {
            return candidate
        }
        struct NotFound: Error, CustomStringConvertible {
            let description: String
        }
        throw NotFound(description: "handoff-sim was not found; looked in \(candidates.map(\.path))")
    }

    /// Runs `product`; `standardOutput`, when given, receives its standard
    /// output instead of a pipe (``ProductRun/standardOutput`` is then empty);
    /// `directory`, when given, is its working directory.
    static func run(
        _ product: String, _ arguments: [String], environment: [String: String] = [:],
        standardOutput: FileHandle? = nil, directory: String? = nil
    ) throws -> ProductRun {
        let process = Process()
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.executableURL = try productsDirectory().appendingPathComponent(product)
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        // A run inside GitHub Actions must not change what the tests see.
        inherited["GITHUB_ACTIONS"] = nil
        inherited["GITHUB_STEP_SUMMARY"] = nil
        process.environment = inherited.merging(environment) { $1 }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = standardOutput ?? output
        process.standardError = error
        try process.run()
        if standardOutput != nil { try output.fileHandleForWriting.close() }
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
