import Foundation
import HandoffScenario
import Testing

/// Every scenario shipped in scenarios/ is valid and every expectation in
/// it holds: the README's main command (`handoff-sim run scenarios`) passes.
@Suite("Shipped scenarios")
struct ShippedScenarioTests {
    static let files: [String] = (try? ScenarioSuite.files(in: [packageRoot() + "/scenarios"])) ?? []

    @Test("there are at least 24 shipped scenarios")
    func count() {
        #expect(Self.files.count >= 24)
    }

    @Test("the shipped scenario holds", arguments: files)
    func holds(file: String) throws {
        let scenario = try { () throws -> Scenario in
            switch ScenarioSuite.load(file) {
            case let .success(scenario): return scenario
            case let .failure(problems): throw problems
            }
        }()
        let result = ScenarioRunner(jobs: 2).run(scenario)
        #expect(result.failure == nil, "\(result.failure.map { "\($0)" } ?? "")")
        for expectation in result.expectations {
            #expect(expectation.passed, "\(expectation.expectation.path): expected \(expectation.asked); measured \(expectation.measured)")
        }
    }
}
