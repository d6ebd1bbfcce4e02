// The notes app's Handoff tests: its own editor, plugged into simulated
// devices through HandoffSim, by the Swift API and against a scenario file.
// NotesHandoffXCTests.swift runs the same checks with XCTest.
import Foundation
import HandoffSim
import NotesApp
import Testing

/// The editor as the restoration handler gets it.
final class EditorRestoration: Restorable {
    let restorationIdentifier = "editor"
    let editor: NoteEditor
    let store: [String: String]

    init(editor: NoteEditor, store: [String: String]) {
        self.editor = editor
        self.store = store
    }

    func restoreUserActivityState(_ activity: ContinuedActivity, context: inout CallbackContext) {
        editor.restore(from: activity.userInfo.propertyList, store: store)
        context.charge(.milliseconds(8))  // laying out the note
    }
}

/// The notes app's scene delegate on a receiving iPhone or iPad.
final class NotesScene: HandoffSceneDelegate {
    let editor = NoteEditor()
    let restoration: EditorRestoration
    private(set) var failures: [Int] = []

    init(store: [String: String]) {
        restoration = EditorRestoration(editor: editor, store: store)
    }

    func scene(willContinueUserActivityWithType type: String, context: inout CallbackContext) {}

    func scene(continue activity: ContinuedActivity, context: inout ContinueContext) {
        guard activity.activityType == NoteEditor.activityType else { return }
        context.charge(.milliseconds(12))  // opening the note's window
        context.restore([restoration])
    }

    func scene(didFailToContinueUserActivityWithType type: String, error: ContinuationError, context: inout CallbackContext) {
        failures.append(error.code)
    }

    func scene(didUpdate activity: inout ActivityContent, context: inout CallbackContext) {}
}

/// The source side: the editor's state goes into the activity just before
/// it is sent.
final class NotesActivity: UserActivityDelegate {
    let editor: NoteEditor

    init(editor: NoteEditor) { self.editor = editor }

    func userActivityWillSave(_ activity: inout ActivityContent, context: inout CallbackContext) {
        if let entries = try? UserInfo(validating: editor.userInfo) { activity.addUserInfoEntries(entries) }
    }

    func updateUserActivityState(_ activity: inout ActivityContent, responder: String, context: inout CallbackContext) {}

    func userActivityWasContinued(_ activity: ActivityContent, by device: String, context: inout CallbackContext) {}

    func userActivity(_ activity: ActivityContent, didReceiveStreamsFrom device: String, context: inout CallbackContext) {}

    func userActivity(
        _ activity: ActivityContent, respondToStreamRequest round: Int, requestBytes: Int, context: inout CallbackContext
    ) -> Int { 0 }
}

/// The scene delegates a scenario runner made for the iPhone, from its
/// threads.
final class SceneLog: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [NotesScene] = []

    /// A new scene delegate, kept.
    func make(store: [String: String]) -> NotesScene {
        let scene = NotesScene(store: store)
        lock.lock()
        defer { lock.unlock() }
        made.append(scene)
        return scene
    }

    /// The scenes that restored a note: one for each trial that continued.
    var restored: [NotesScene] {
        lock.lock()
        defer { lock.unlock() }
        return made.filter { $0.editor.noteID != nil }
    }
}

extension ScenarioResult {
    /// The trials in which `device` continued the activity.
    func continuedTrials(on device: String) -> Int {
        pairs.filter { $0.device == device }.flatMap(\.outcomes).filter { $0.outcome == .continued }.map(\.trials)
            .reduce(0, +)
    }
}

@Suite("The notes app's Handoff")
struct NotesHandoffTests {
    static let store = ["groceries": "milk, eggs, bread, coffee"]

    @Test("the open note moves from the iPhone to the iPad, with its cursor")
    func noteMovesAcross() throws {
        let notes = try AppDescription(
            bundleID: "com.example.notes", teamID: TeamID("ABCDE12345"), activityTypes: [NoteEditor.activityType])
        let setup = HandoffSetup(
            devices: [
                DeviceDescription(name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                                  installedApps: [notes.bundleID]),
                DeviceDescription(name: "ipad", kind: .iPad, osVersion: OSVersion(17, 4), account: "alice",
                                  installedApps: [notes.bundleID], mobility: .stationary(Position(x: 2, y: 0))),
            ],
            apps: [notes])
        let source = NoteEditor()
        source.open(noteID: "groceries", text: Self.store["groceries"]!, cursor: 12)
        let ipad = NotesScene(store: Self.store)
        let run = try HandoffRun(setup: setup, seed: 1, appDelegates: { device, _ in
            device == "ipad" ? .scene(ipad) : .scene(NotesScene(store: Self.store))
        })
        let activity = try run.createActivity(
            ActivityContent(type: NoteEditor.activityType, title: "Groceries", needsSave: true),
            on: "iphone", app: notes.bundleID, delegate: NotesActivity(editor: source))
        try run.schedule(.becomeCurrent(activity), at: .zero)
        try run.schedule(.accept(device: "ipad"), at: .seconds(6))
        run.run(until: .seconds(60))

        let summary = try #require(run.summary(of: activity, on: "ipad"))
        #expect(summary.outcome == .continued)
        #expect(ipad.editor.noteID == "groceries")
        #expect(ipad.editor.cursor == 12)
        #expect(ipad.editor.text == Self.store["groceries"])
        #expect(ipad.failures.isEmpty)
        // The restoration follows continue by the 12 ms the scene charged.
        #expect(summary[.acceptToRestored].map { $0 - (summary[.acceptToContinue] ?? .zero) } == .milliseconds(12))
        #expect(run.trace.contains { $0.device.name == "ipad" && $0.event == .callback(.restoreUserActivityState("editor")) })
    }

    @Test("a shipped scenario file passes with the app's own scene delegate on the iPhone, which restores its note")
    func scenarioFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let scenes = SceneLog()  // every NotesScene made for the iPhone, on the runner's threads
        let runner = ScenarioRunner(jobs: 2, appDelegates: { device, _ in
            device == "iphone" ? .scene(scenes.make(store: Self.store)) : nil  // nil: the file's scripted app
        })
        let result = runner.run(try ScenarioSuite.load(root + "/scenarios/payload-3kib.json"))
        #expect(result.failure == nil)
        #expect(result.passed, "\(result.expectations.map(\.measured))")
        for expectation in result.expectations {
            #expect(expectation.passed, "\(expectation.asked): \(expectation.measured)")
        }
        // The iPhone continued in every trial, and restored the note the
        // Mac's activity names.
        #expect(result.continuedTrials(on: "iphone") == result.trials)
        #expect(scenes.restored.count == result.trials)  // userInfo: {"noteID": "groceries", "cursor": 12}
        #expect(scenes.restored.allSatisfy { $0.editor.noteID == "groceries" && $0.editor.cursor == 12 })
        #expect(scenes.restored.allSatisfy { $0.editor.text == Self.store["groceries"] })
    }
}
