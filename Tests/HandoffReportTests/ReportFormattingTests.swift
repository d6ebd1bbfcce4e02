@testable import HandoffCalibration
@testable import HandoffReport
@testable import HandoffScenario
import ScenarioJSON
import Testing

/// The small formatting rules the reports depend on.
@Suite("Report formatting")
struct ReportFormattingTests {
    @Test("replay commands quote a file name for a POSIX shell only when it needs it")
    func shellQuoting() {
        #expect(ReplayCommand.text(command: "handoff-sim", file: "scenarios/a-b.json", seed: 7, trial: 3)
            == "handoff-sim replay scenarios/a-b.json --seed 7 --trial 3")
        #expect(ReplayCommand.shellQuoted("my scenarios/it's.json") == #"'my scenarios/it'\''s.json'"#)
        #expect(ReplayCommand.shellQuoted("") == "''")
        // A control character: ANSI-C quoting keeps the command on one line.
        #expect(ReplayCommand.shellQuoted("a\nb's\\\u{1}c\u{85}") == #"$'a\nb\'s\\\x01c\xC2\x85'"#)
    }

    @Test("a JSON object streamed member by member is byte for byte the tree JSONWriter renders")
    func jsonObjectStream() {
        let record: JSONOutput = .object([("a", .int(1)), ("b", .array([.string("x\n"), .null])), ("c", .object([]))])
        for count in [0, 1, 3] {
            let tree: JSONOutput = .object([
                ("format", .int(1)), ("records", .array(Array(repeating: record, count: count))), ("empty", .array([])),
                ("tail", .object([("k", .double(0.5))])),
            ])
            var streamed = ""
            var document = JSONObjectStream()
            document.member("format", .int(1), to: &streamed)
            document.beginArray("records", to: &streamed)
            for _ in 0..<count { document.element(record, to: &streamed) }
            document.endArray(to: &streamed)
            document.beginArray("empty", to: &streamed)
            document.endArray(to: &streamed)
            document.member("tail", .object([("k", .double(0.5))]), to: &streamed)
            document.end(to: &streamed)
            #expect(streamed == tree.render(pretty: true))
        }
        var empty = ""
        JSONObjectStream().end(to: &empty)
        #expect(empty == JSONOutput.object([]).render(pretty: true))
    }

    @Test("one rounding rule for sizes in every table, chart and sentence: KiB to one decimal, half up")
    func sizes() {
        #expect(Format.size(6100) == "6.0 KiB")
        #expect(Format.sizeWithBytes(6100) == "6.0 KiB (6 100 bytes)")
        #expect(Format.size(6080) == "5.9 KiB")
        #expect(Format.size(5130) == "5.0 KiB")
        #expect(Format.size(1536) == "1.5 KiB")
        #expect(Format.size(3 << 10) == "3 KiB")
        #expect(Format.size(3 << 20) == "3 MiB")
        #expect(Format.size(1023) == "1023 B")
        #expect(Format.sizeWithBytes(49152) == "48 KiB (49 152 bytes)")
        #expect(Format.sizeWithBytes(1000) == "1 000 bytes")
        #expect(Format.size(exponent: 12) == "4 KiB")
    }

    @Test("percentages and seconds: one writer each, never by locale")
    func numbers() {
        #expect(Format.percent(0.995) == "99.5%")
        #expect(Format.percent(1) == "100%")
        #expect(Format.percent(0.12345) == "12.345%")
        #expect(Format.percentOneDecimal(0.9876) == "98.8%")
        #expect(Format.percentOneDecimal(0.99) == "99%")
        #expect(Format.wholePercent(0.004) == "<1%")
        #expect(Format.wholePercent(0.93) == "93%")
        #expect(Format.seconds(7.3, decimals: 2) == "7.30s")
        #expect(Format.percentile(99.9) == "p99.9")
        #expect(Format.decimal(-0.001) == "0")
        #expect(Format.decimal(12.346) == "12.35")
    }

    @Test("JUnit: dotted class names, seconds with a '.', XML escaping")
    func junit() {
        #expect(RunReport.dottedClassName("scenarios/net/slow.json") == "scenarios.net.slow")
        #expect(RunReport.dottedClassName("./scenarios/v1.2/a.json") == "scenarios.v1_2.a")
        #expect(Format.seconds(1.2345, decimals: 3, unit: false) == "1.235")
        #expect(Format.seconds(0.0004, decimals: 3, unit: false) == "0.000")
        #expect(Format.seconds(12, decimals: 3, unit: false) == "12.000")
        #expect(Escape.xml("a<b & \"c\"\n\u{1}") == "a&lt;b &amp; &quot;c&quot;&#10;\u{FFFD}")
    }

    @Test("GitHub workflow commands escape %, CR, LF, and in properties also : and ,")
    func gitHub() {
        #expect(RunReport.annotation(file: "a,b:c.json", line: 3, column: nil, title: "t", message: "50% done\nnext")
            == "::error file=a%2Cb%3Ac.json,line=3,title=t::50%25 done%0Anext")
    }

    @Test("Markdown table cells escape pipes, line breaks and other control characters")
    func markdown() {
        #expect(Escape.markdownCell("a|b\nc") == "a\\|b\\nc")
        #expect(Escape.markdownCell("a\r\nb\u{1B}[1m") == "a\\r\\nb\\u{1B}[1m")
    }

    @Test("text summary seconds have two decimals")
    func seconds() {
        #expect(Format.seconds(4.567, decimals: 2) == "4.57s")
        #expect(Format.seconds(0.004, decimals: 2) == "0.00s")
        #expect(Format.seconds(10.05, decimals: 2) == "10.05s")
    }

    @Test("calibration chart: every decade label sits where its value would, also when the data start well above it")
    func calibrationChartAxis() {
        let group = GroupFit(
            dataset: 0, group: "", metric: .streamRound, measuredCount: 3, simulatedCount: 2, ks: 0.2, critical: 0.5,
            quantiles: [], measuredSuccess: nil, simulatedSuccess: 1, measuredSorted: [750, 800, 900],
            simulatedSorted: [760, 850])
        let result = CalibrationResult(
            name: "axis", file: "axis.json", seed: 1, trials: 2, fitted: false, evaluations: 1, bootstrap: 0,
            objective: 0, parameters: [], groups: [group])
        let svg = CalibrationChart.svg(result)
        // Decades 100 ms … 1 s: the 100 ms label at the plot's left edge, 1 s at its right.
        let left = CalibrationChart.left
        let right = CalibrationChart.width - CalibrationChart.right
        #expect(svg.contains(#"<text x="\#(Format.decimal(left))""#) && svg.contains(">100ms</text>"))
        #expect(svg.contains(#"<text x="\#(Format.decimal(right))""#) && svg.contains(">1s</text>"))
        let hundred = svg.components(separatedBy: "\n").first { $0.hasSuffix(">100ms</text>") } ?? ""
        #expect(hundred.hasPrefix(#"    <text x="\#(Format.decimal(left))""#), "\(hundred)")
    }
}
