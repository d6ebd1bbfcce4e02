// The notes app's Handoff tests again, for teams that use XCTest: the same
// editor and delegates (NotesHandoffTests.swift), the same checks.
import Foundation
import HandoffSim
import NotesApp
import XCTest

final class NotesHandoffXCTests: XCTestCase {
    static let store = ["groceries": "milk, eggs, bread, coffee"]

    /// The open note moves from the iPhone to the iPad, with its cursor.
    func testNoteMovesAcross() throws {
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
        source.open(noteID: "groceries", text: "milk, eggs, bread, coffee", cursor: 12)
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

        let summary = try XCTUnwrap(run.summary(of: activity, on: "ipad"))
        XCTAssertEqual(summary.outcome, .continued)
        XCTAssertEqual(ipad.editor.noteID, "groceries")
        XCTAssertEqual(ipad.editor.cursor, 12)
        XCTAssertEqual(ipad.editor.text, "milk, eggs, bread, coffee")
        XCTAssertEqual(ipad.failures, [])
    }

    /// A shipped scenario file passes with the app's own scene delegate on
    /// the iPhone, which restores the note its userInfo names.
    func testScenarioFileRestoresTheNote() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        // Its userInfo is the app's own: {"noteID": "groceries", "cursor": 12}.
        let scenario = try ScenarioSuite.load(root + "/scenarios/payload-3kib.json")
        let scenes = SceneLog()
        let runner = ScenarioRunner(jobs: 2, appDelegates: { device, _ in
            device == "iphone" ? .scene(scenes.make(store: Self.store)) : nil  // nil: the file's scripted app
        })
        let result = runner.run(scenario)
        XCTAssertNil(result.failure)
        for expectation in result.expectations {
            XCTAssertTrue(expectation.passed, "\(expectation.asked): \(expectation.measured)")
        }
        XCTAssertEqual(result.continuedTrials(on: "iphone"), result.trials)
        XCTAssertEqual(scenes.restored.count, result.trials)
        for scene in scenes.restored {
            XCTAssertEqual(scene.editor.noteID, "groceries")
            XCTAssertEqual(scene.editor.cursor, 12)
            XCTAssertEqual(scene.editor.text, "milk, eggs, bread, coffee")
        }
    }
}
