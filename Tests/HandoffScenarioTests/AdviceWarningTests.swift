@testable import HandoffAdvice
import HandoffWorld
@testable import HandoffScenario
import SimKernel
import Testing

/// The warning an answer carries is decided once, by the advisor, from its
/// sensitivity rows: reports only say it.
@Suite("advice warnings")
struct AdviceWarningTests {
    static let target = Advisor.Target(latency: .seconds(1), success: 0.99)

    static func row(_ name: String, _ evidence: Evidence, low: Int64?, high: Int64?) -> Advisor.Sensitivity {
        Advisor.Sensitivity(
            parameter: name, evidence: evidence, setBy: nil, range: PlausibleRange(name, 200, 1500, "ms"), bytes: 1024,
            low: low.map { .milliseconds($0) }, high: high.map { .milliseconds($0) }, lowAnswer: nil, highAnswer: nil,
            skipped: [])
    }

    @Test("an answer that meets the target is warned of the first assumed default whose end puts it over")
    func meets() throws {
        let rows = [
            Self.row("measured one", .measured(dataset: "d"), low: 500, high: 3000),
            Self.row("within", .assumed, low: 600, high: 900),
            Self.row("app launch", .assumed, low: 700, high: 2650),
            Self.row("later", .assumed, low: 1200, high: 5000),
        ]
        let warnings = Advisor.warnings(rows, meets: true, target: Self.target)
        #expect(warnings.count == 1)
        switch try #require(warnings.first) {
        case let .assumptionCrossesTarget(crossing):
            #expect(crossing.parameter.parameter == "app launch")
            #expect(crossing.end == .high)
            #expect(crossing.endValue == 1500)
            #expect(crossing.value == .milliseconds(2650))
            #expect(crossing.answerMeetsTarget)
        }
    }

    @Test("an answer that meets nothing is warned of an assumed end that brings it within; measured rows and rows that stay put warn of nothing")
    func missesAndNone() throws {
        let within = Advisor.warnings(
            [Self.row("start", .assumed, low: 900, high: 1400)], meets: false, target: Self.target)
        switch try #require(within.first) {
        case let .assumptionCrossesTarget(crossing):
            #expect(crossing.end == .low && !crossing.answerMeetsTarget)
        }
        #expect(Advisor.warnings([Self.row("measured", .measured(dataset: "d"), low: 100, high: 5000)], meets: true, target: Self.target).isEmpty)
        #expect(Advisor.warnings([Self.row("steady", .assumed, low: 400, high: 900)], meets: true, target: Self.target).isEmpty)
        #expect(Advisor.warnings([Self.row("unreached", .assumed, low: nil, high: nil)], meets: true, target: Self.target).isEmpty)
    }
}
