import Foundation
import HandoffBaseline
import HandoffScenario
import Testing

/// The scenario layer's one error type: each reason in its category, with
/// the file and trial when known, and messages that name no command-line
/// option (a caller names the values it gave its own way).
@Suite("Scenario errors")
struct ScenarioErrorTests {
    static let fixtures = packageRoot() + "/Tests/Fixtures/run-scenarios/"

    /// Prepares a sweep of `file` from disk.
    static func prepare(
        _ file: String, payloads: [String] = [], options: SweepRunner.Options = SweepRunner.Options()
    ) -> Result<PreparedSweep, ScenarioError> {
        let bytes = Array(FileManager.default.contents(atPath: file) ?? Data())
        return Result { () throws(ScenarioError) in try SweepRunner.prepare(bytes, file: file, payloads: payloads, options: options) }
    }

    static func failure<T>(_ result: Result<T, ScenarioError>) -> ScenarioError? {
        if case let .failure(error) = result { return error }
        return nil
    }

    @Test("values the caller gives are named as the API names them, or as the caller asks")
    func naming() throws {
        let noAxes = try #require(Self.failure(Self.prepare(Self.fixtures + "passes.json")))
        #expect(noAxes.category == .badValue)
        #expect(noAxes.message == #"nothing to sweep: give payloads, profiles or parameters (or a "sweep" block in the file)"#)
        #expect(noAxes.message(naming: { "<\($0)>" }) == #"nothing to sweep: give <payloads>, <profiles> or <parameters> (or a "sweep" block in the file)"#)

        let file = packageRoot() + "/scenarios/monkeybrowser-four-tabs.json"
        let several = try #require(Self.failure(Self.prepare(file, payloads: ["1KiB"])))
        #expect(several.category == .badValue && several.argument == .activity && several.file == file)
        #expect(several.message == "\(file) has several activities; say which with SweepRunner.Options.activity (tab1, tab2, tab3, tab4)")
        #expect(!several.message.contains("--"))
    }

    @Test("a bad value the caller gave keeps the axis, the value and what is wrong")
    func badAxisValue() throws {
        let error = try #require(Self.failure(Self.prepare(Self.fixtures + "passes.json", payloads: ["1KiB", "lots"])))
        #expect(error.category == .badValue)
        #expect(error.argument == .payloads && error.value == "lots")
        #expect(error.detail?.hasPrefix("expected a size such as") == true)
        #expect(error.message == "the payload value 'lots': " + (error.detail ?? ""))
    }

    @Test("an invalid scenario file keeps its problems")
    func invalidFile() throws {
        let file = packageRoot() + "/Tests/Fixtures/invalid-scenarios/wrong-type.json"
        let error = try #require(Self.failure(Self.prepare(file, payloads: ["1KiB"])))
        #expect(error.category == .invalidInput)
        #expect(error.problems?.problems.count == 1)
        #expect(error.message == error.problems?.description)
    }

    @Test("a trial stopped at a limit carries its trial; a sweep point and a file are said before it")
    func stoppedAtLimit() throws {
        let file = Self.fixtures + "event-limit.json"
        let prepared = try Self.prepare(file, payloads: ["1KiB"]).get()
        let error = try #require(Self.failure(Result { () throws(ScenarioError) in try SweepRunner().run(prepared) }))
        #expect(error.category == .stoppedAtLimit && error.trial == 0)
        #expect(error.message == "at the sweep point payload=1KiB: trial 0 handled 5 events (limits.maxEvents) without settling")
        let recorded = try #require(Self.failure(Result { () throws(ScenarioError) in try BaselineRecorder().measure(file: file) }))
        #expect(recorded.category == .stoppedAtLimit)
        #expect(recorded.message == "\(file): trial 0 handled 5 events (limits.maxEvents) without settling")
    }

    @Test("missing inputs, unusable baselines and parts that do not fit have their categories")
    func inputs() throws {
        #expect(throws: ScenarioError.self) { try ScenarioSuite.files(in: ["/no/such/path"]) }
        do {
            _ = try ScenarioSuite.files(in: ["/no/such/path"])
        } catch {
            #expect(error.category == .missingInput && error.file == "/no/such/path")
            #expect(error.message == "/no/such/path: no such file or directory")
        }
        do {
            _ = try BaselineFile.read("{}", file: "b.json")
        } catch {
            #expect(error.category == .invalidInput && error.file == "b.json")
            #expect(error.message == "b.json: not a usable baseline: it is not a handoff-sim baseline")
        }
        do {
            _ = try SweepJSONLines.read("", file: "p.jsonl")
        } catch {
            #expect(error.category == .invalidInput)
            #expect(error.message == "p.jsonl:1: not a readable sweep result: the file is empty")
        }
        let missing = Result { () throws(ScenarioError) in try BaselineRecorder().measure(file: "/no/such/file.json") }
        #expect(Self.failure(missing)?.category == .missingInput)
    }

    @Test("a quantity that does not read is a bad value saying what was expected")
    func quantities() throws {
        guard case let .failure(error) = Quantities.duration("soon") else {
            Issue.record("read 'soon' as a duration")
            return
        }
        #expect(error.category == .badValue && error.value == "soon")
        #expect(error.message == #"expected a duration such as "250ms", "1.5s" or "2min" (units ns, us, ms, s, min, h), found "soon""#)
    }
}
