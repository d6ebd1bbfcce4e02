import Testing

@Suite("Scenario target")
struct ScenarioTargetTests {
    @Test("the scenario test target builds")
    func builds() { #expect(Bool(true)) }
}
