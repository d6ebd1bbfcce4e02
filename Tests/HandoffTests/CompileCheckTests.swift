import Foundation
import Testing

/// The delegate protocols catch mistakes at compile time: app code with a
/// callback that nearly matches is type-checked against the built `Handoff`
/// module with the toolchain's `swiftc`, and must be refused with the right
/// diagnostic; the same code spelt right must be accepted.
@Suite("Delegates checked at compile time")
struct CompileCheckTests {
    /// The folder of the modules `swift build` made for this test run.
    static func modulesFolder() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let candidates = [root + "/.build/debug/Modules"]
            + ((try? FileManager.default.contentsOfDirectory(atPath: root + "/.build")) ?? []).sorted()
            .map { root + "/.build/\($0)/debug/Modules" }
        return try #require(candidates.first { FileManager.default.fileExists(atPath: $0 + "/Handoff.swiftmodule") },
                            "the built Handoff module (run through swift test)")
    }

    /// Type-checks `source` (after `import Handoff`): the exit status and
    /// the diagnostics.
    static func typecheck(_ source: String) throws -> (status: Int32, output: String) {
        let folder = NSTemporaryDirectory() + "compile-check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/App.swift"
        try ("import Handoff\n" + source).write(toFile: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-I", try modulesFolder(), "-module-cache-path", folder + "/cache", file]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    static let sceneRest = """
        func scene(willContinueUserActivityWithType type: String, context: inout CallbackContext) {}
        func scene(didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext) {}
        func scene(didUpdate activity: inout ActivityContent, context: inout CallbackContext) {}
    """

    @Test("a scene delegate spelt right compiles: the check can pass")
    func rightSpellingCompiles() throws {
        let result = try Self.typecheck("""
            final class NotesScene: HandoffSceneDelegate {
                func scene(continue activity: ContinuedActivity, context: inout ContinueContext) {}
            \(Self.sceneRest)
            }
            let ready: [HandoffDelegate] = [.scene(DefaultSceneDelegate()), .application(DefaultAppDelegate())]
            let activityDelegate: any UserActivityDelegate = DefaultUserActivityDelegate()
            """)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("a near-miss callback does not compile, with the diagnostic that names it", arguments: [
        // `context:` left out.
        ("final class S: HandoffSceneDelegate {\n func scene(continue activity: ContinuedActivity) {}\n\(sceneRest)\n}",
         "does not conform to protocol 'HandoffSceneDelegate'"),
        // A context that is not `inout`.
        ("final class S: HandoffSceneDelegate {\n func scene(continue activity: ContinuedActivity, context: ContinueContext) {}\n\(sceneRest)\n}",
         "does not conform to protocol 'HandoffSceneDelegate'"),
        // The app-delegate callback under its old name.
        ("""
         final class A: HandoffAppDelegate {
             func continueUserActivity(_ activity: ContinuedActivity, context: inout ContinueContext) -> Bool { true }
             func application(willContinueUserActivityWithType type: String, context: inout CallbackContext) -> Bool { false }
             func application(didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext) {}
         }
         """, "does not conform to protocol 'HandoffAppDelegate'"),
        // A subclass of a ready-made default adding a near-miss without
        // `override`: it would compile and never be called, so the
        // defaults are final classes and the subclass itself is refused.
        ("final class S: DefaultSceneDelegate {\n func scene(continueActivity activity: ContinuedActivity, context: inout ContinueContext) {}\n}",
         "inheritance from a final class 'DefaultSceneDelegate'"),
        ("final class A: DefaultAppDelegate {\n func application(continueActivity activity: ContinuedActivity, context: inout ContinueContext) -> Bool { true }\n}",
         "inheritance from a final class 'DefaultAppDelegate'"),
        ("final class U: DefaultUserActivityDelegate {\n func userActivityWillSave(activity: inout ActivityContent, context: inout CallbackContext) {}\n}",
         "inheritance from a final class 'DefaultUserActivityDelegate'"),
        // A restorable object without its callback's context.
        ("final class R: Restorable {\n let restorationIdentifier = \"r\"\n func restoreUserActivityState(_ activity: ContinuedActivity) {}\n}",
         "does not conform to protocol 'Restorable'"),
    ])
    func nearMissDoesNotCompile(source: String, diagnostic: String) throws {
        let result = try Self.typecheck(source)
        #expect(result.status != 0)
        #expect(result.output.contains("error: ") && result.output.contains(diagnostic), "\(result.output)")
    }
}
