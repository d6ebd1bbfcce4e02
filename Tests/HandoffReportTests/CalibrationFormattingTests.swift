@testable import HandoffCalibration
@testable import HandoffReport
@testable import HandoffScenario
import ScenarioJSON
import Testing

/// Calibration's Double → integer conversions are total: any value a fit
/// or a file can produce is printed, none traps.
@Suite("Calibration formatting of extreme values")
struct CalibrationFormattingTests {
    @Test("fixed prints values past Int64 and 2^53 without trapping", arguments: [
        (1e19, 1, "1e+19"), (1e22, 0, "1e+22"), (-1e300, 2, "-1e+300"), (123.456, 1, "123.5"), (Double.nan, 1, "—"),
    ])
    func fixedIsTotal(value: Double, digits: Int, text: String) {
        #expect(Format.fixed(value, digits) == text)
    }

    @Test("decade labels reach 1e22 ms and a subnormal's decade", arguments: [
        (22.0, "1e19s"), (18.0, "1e15s"), (3.0, "1s"), (0.0, "1ms"), (-3.0, "1us"), (-324.0, "1e-321us"),
    ])
    func decadeLabels(decade: Double, label: String) {
        #expect(CalibrationChart.decadeLabel(decade) == label)
    }

    @Test("a parameter's text clamps instead of trapping", arguments: [
        (9.3e18, "9223372036854775807ns"), (-1e30, "-9223372036854775808ns"), (Double.nan, "0ns"), (2.5, "3ns"),
    ])
    func parameterText(value: Double, text: String) {
        let parameter = FitParameter(path: "network.wifiPeerToPeer.latency", kind: .duration, minimum: 0, maximum: 1, scale: .linear)
        #expect(parameter.text(value) == text)
    }

    @Test("numbers near 0 are written exactly, never as 0", arguments: [(1e-12, "1e-12"), (Double.leastNonzeroMagnitude, "5e-324"), (1e-9, "0.000000001")])
    func tinyNumbers(value: Double, text: String) {
        #expect(FitParameter.decimal(value) == text)
    }
}

@Suite("Scenario paths")
struct ScenarioPathTests {
    @Test("a path is bounded in bytes and steps, and says which bound it is past")
    func bounds() {
        let steps32 = (["a"] + Array(repeating: "b", count: 31)).joined(separator: ".")
        #expect(ParameterPath(steps32)?.components.count == 32)
        #expect(ParameterPath.read(steps32 + ".c") == .failure(.tooDeep(33)))
        #expect(ParameterPath.read(String(repeating: "a", count: 1_025)) == .failure(.tooLong(1_025)))
        #expect(ParameterPath.read("a..b") == .failure(.malformed))
    }

    @Test("setting a value creates missing members and refuses an index out of range")
    func setting() throws {
        let tree = try JSONParser.parse(#"{"a": [{"b": 1}]}"#)
        let path = try #require(ParameterPath("a[0].c.d"))
        let set = try #require(tree.setting(path.components[...], to: JSONNode.parameterValue("2")))
        guard case let .array(elements)? = set.member("a")?.value.value else {
            Issue.record("a is not an array")
            return
        }
        #expect(elements[0].member("b") != nil)
        #expect(elements[0].member("c")?.value.member("d")?.value.value == .number(try #require(JSONNumber("2"))))
        #expect(tree.setting(try #require(ParameterPath("a[1].b")).components[...], to: .init(value: .null, position: JSONNode.nowhere)) == nil)
        #expect(tree.setting(try #require(ParameterPath("a.b")).components[...], to: .init(value: .null, position: JSONNode.nowhere)) == nil)
    }
}
