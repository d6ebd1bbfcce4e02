import Foundation
@testable import HandoffCalibration
@testable import HandoffScenario
import SimKernel
import Testing

/// The calibrator's search (a Latin-hypercube screen on an eighth of the
/// trials, Nelder–Mead on a quarter, then on every trial) on functions
/// whose minimum is known, and the bootstrap replicates an overlay keeps.
@Suite("Calibration search and replicates")
struct CalibrationSearchTests {
    static let key = RandomStreamKey(seed: 1).child("calibrate")

    /// The search with the calibrator's settings and budget (60 simulations
    /// per vertex), from the middle of the ranges.
    static func search(
        _ dimension: Int, _ f: ([Double]) -> Double, with search: GlobalSearch = GlobalSearch()
    ) throws -> (point: [Double], value: Double) {
        try search.minimise(
            from: Array(repeating: 0.5, count: dimension), budget: 60 * (dimension + 1), key: key
        ) { point, _ in f(point) }
    }

    @Test("a shifted quadratic in four dimensions: its minimum, from the middle")
    func shiftedQuadratic() throws {
        let target = [0.21, 0.83, 0.35, 0.64]
        let weights = [1.0, 4, 0.5, 2]
        func f(_ point: [Double]) -> Double {
            point.indices.map { weights[$0] * (point[$0] - target[$0]) * (point[$0] - target[$0]) }.reduce(0, +)
        }
        let found = try Self.search(4, f)
        #expect(zip(found.point, target).allSatisfy { abs($0 - $1) < 0.02 }, "\(found.point)")
        #expect(found.value == f(found.point))
    }

    @Test("Rosenbrock's curved valley in two dimensions: its minimum at (1, 1), from the middle, with a longer last stage")
    func rosenbrock() throws {
        // x and y over -2…2: the minimum at (0.75, 0.75) of the unit square.
        func f(_ point: [Double]) -> Double {
            let x = 4 * point[0] - 2, y = 4 * point[1] - 2
            return (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x)
        }
        // The last stage's default share (10 simulations a vertex) is sized
        // for the shipped experiment, whose floor is flat; a valley this
        // long takes more steps along it.
        let found = try Self.search(2, f, with: GlobalSearch(finalBudget: 40))
        #expect(found.value < 0.01, "\(found)")
        #expect(abs(found.point[0] - 0.75) < 0.02 && abs(found.point[1] - 0.75) < 0.04, "\(found.point)")
    }

    @Test("two basins, the middle in the shallow one: the search ends in the deep one, where Nelder–Mead from the middle does not")
    func twoBasins() throws {
        let deep = [0.12, 0.86]
        func f(_ point: [Double]) -> Double {
            let shallow = 0.3 + 2 * ((point[0] - 0.5) * (point[0] - 0.5) + (point[1] - 0.5) * (point[1] - 0.5))
            let near = 12 * ((point[0] - deep[0]) * (point[0] - deep[0]) + (point[1] - deep[1]) * (point[1] - deep[1]))
            return min(shallow, near)
        }
        // The previous search (Nelder–Mead from the start) stays in the
        // middle's basin: the test can tell the two apart.
        let simplex = try Calibrator.nelderMead(from: [0.5, 0.5], value: f([0.5, 0.5]), size: 0.25, budget: 180) { f($0) }
        #expect(simplex.value >= 0.3, "\(simplex)")
        let found = try Self.search(2, f)
        #expect(found.value < 1e-3, "\(found)")
        #expect(zip(found.point, deep).allSatisfy { abs($0 - $1) < 0.01 }, "\(found.point)")
    }

    @Test("a bowl with ripples in four dimensions: a simplex of half the screen's spacing ends within a ripple of the minimum, one of 0.05 stalls farther out")
    func rippledBowl() throws {
        // The shipped AWDL experiment's surface (slots and excursions make
        // the fetch's distribution jump as the latency and the excursion
        // cross slot boundaries) in miniature: a bowl whose every 0.1 of
        // the range has a local minimum. From the middle the search of
        // twice a screen cell (0.05 for four parameters) ended at 0.3392
        // against the defaults' 0.2076 on the shipped experiment.
        let target = [0.53, 0.16, 0.46, 0.40]
        func f(_ point: [Double]) -> Double {
            point.indices.map { axis in
                let offset = point[axis] - target[axis]
                return offset * offset + 0.02 * (1 - cos(2 * Double.pi * offset / 0.1))
            }.reduce(0, +)
        }
        #expect(abs(GlobalSearch.simplexSize(screened: 40, dimension: 4) - 0.5 * pow(40, -0.25)) < 1e-12)
        let found = try Self.search(4, f)
        // Within one ripple (0.1) of the minimum on every axis, and at most
        // one ripple's floor (0.01) above it: 0.0103 at the time of writing.
        #expect(zip(found.point, target).allSatisfy { abs($0 - $1) < 0.11 }, "\(found)")
        #expect(found.value < 0.015, "\(found)")
        // A simplex of 0.05 stalls several ripples out: 0.0586.
        let narrow = try Self.search(4, f, with: GlobalSearch(simplex: 0.05))
        #expect(narrow.value > found.value + 0.03, "\(narrow) against \(found)")
    }

    @Test("the cheap stages run fewer trials; the point returned is valued on every trial")
    func fidelity() throws {
        var divisors: [Int] = []
        // A cheap simulation reads 0.1 too high: the value returned must be
        // the full one.
        let found = try GlobalSearch().minimise(from: [0.5, 0.5], budget: 180, key: Self.key) { point, divisor in
            divisors.append(divisor)
            return (point[0] - 0.3) * (point[0] - 0.3) + (point[1] - 0.6) * (point[1] - 0.6) + (divisor > 1 ? 0.1 : 0)
        }
        #expect(divisors.count <= 180)
        #expect(Set(divisors) == [8, 4, 1])
        #expect(divisors.filter { $0 == 1 }.count <= 31, "at most the last stage's share on every trial")
        #expect(abs(found.value - ((found.point[0] - 0.3) * (found.point[0] - 0.3) + (found.point[1] - 0.6) * (found.point[1] - 0.6))) < 1e-15)
        // Any budget is kept, down to one simulation.
        for budget in [1, 2, 5, 12] {
            var count = 0
            _ = try GlobalSearch().minimise(from: [0.5, 0.5], budget: budget, key: Self.key) { point, _ in
                count += 1
                return point[0]
            }
            #expect(count <= budget, "budget \(budget): \(count)")
        }
    }

    @Test("the same search twice gives the same point, bit for bit")
    func determinism() throws {
        func f(_ point: [Double]) -> Double { abs(point[0] - 0.4) + (point[1] - 0.7) * (point[1] - 0.7) + 0.01 * sin(40 * point[0]) }
        let first = try Self.search(2, f)
        let second = try Self.search(2, f)
        #expect(first.point == second.point && first.value == second.value)
    }
}

extension CalibrationSearchTests {
    /// Bootstrap on a tiny experiment (the shipped cable scenario, 50 trials).
    static func bootstrapped(jobs: Int) throws -> CalibrationResult {
        let csv = "ms\n" + (0..<40).map { String(96 + ($0 * 7) % 15) }.joined(separator: "\n") + "\n"
        let text = ExperimentTests.experiment(parameters: #"[{"path": "protocol.rapport.processing", "min": "8ms", "max": "20ms"}]"#)
        let experiment = try ExperimentTests.decode(text, csv: csv).get()
        return try Calibrator(jobs: jobs, bootstrap: 3, maximumEvaluations: 12).run(experiment, read: ExperimentTests.read)
    }

    @Test("a bootstrap keeps each replicate's values, the same on 1 and 2 threads, and its overlay round-trips them")
    func replicatesRoundTrip() throws {
        let one = try Self.bootstrapped(jobs: 1)
        let two = try Self.bootstrapped(jobs: 2)
        #expect(one == two)
        #expect(one.replicates.count == 3)
        let interval = try #require(one.parameters[0].interval)
        #expect(one.replicates.allSatisfy { interval.contains($0[0]) })
        let overlay = Overlay(fitted: one, description: "fit")
        let decoded = try Overlay(bytes: Array(overlay.json.utf8), file: "fit.json")
        #expect(decoded.settings == overlay.settings && decoded.replicateSettings == overlay.replicateSettings)
        #expect(decoded.replicates.count == 3)
        for (replicate, values) in zip(decoded.replicates, one.replicates) {
            #expect(replicate.settings.map(\.path) == ["protocol.rapport.processing"])
            #expect(replicate.settings[0].value == one.parameters[0].parameter.text(values[0]))
        }
        // Without a bootstrap, no member at all.
        #expect(!Overlay(fitted: one.withoutReplicates, description: "").json.contains("replicates"))
    }

    @Test("a replicate replaces the values it sets and keeps the others")
    func replicateOverlays() throws {
        let text = #"""
            {"overlay": "fit", "set": [{"path": "network.wifiPeerToPeer.latency", "value": "2ms"}, {"path": "network.wifiPeerToPeer.loss", "value": 0.1}],
             "replicates": [{"set": [{"path": "network.wifiPeerToPeer.loss", "value": 0.2}]},
                            {"set": [{"path": "network.wifiPeerToPeer.loss", "value": 0.3}, {"path": "network.wifiPeerToPeer.latency", "value": "3ms"}]}]}
            """#
        let overlay = try Overlay(bytes: Array(text.utf8), file: "fit.json")
        let replicates = overlay.replicates
        #expect(replicates.count == 2)
        #expect(replicates[0].settings.map(\.value) == ["2ms", "0.2"])
        #expect(replicates[1].settings.map(\.value) == ["3ms", "0.3"], "in the base's order")
        #expect(replicates.allSatisfy { $0.replicates.isEmpty })
        // A replicate's value that does not fit a scenario is reported against its place in the file.
        let problems = ScenarioProblems(problems: [ScenarioProblem(
            file: "s.json", path: "$.network.wifiPeerToPeer.loss", position: nil, message: "expected at most 1")])
        let scenario = try #require(try? ScenarioDecoder.parse(Array("{}".utf8), file: "s.json").get())
        let attributed = Overlay.attributing(problems, to: [replicates[1]], scenario: scenario, file: "s.json")
        #expect(attributed.problems[0].path == "$.replicates[1].set[0].value", "\(attributed)")
    }

    static func problems(_ text: String) -> [String] {
        switch Overlay.decode(Array(text.utf8), file: "fit.json") {
        case .success: return []
        case let .failure(problems): return problems.problems.map(\.description)
        }
    }

    @Test("invalid replicates: each a clear error naming the file and the JSON path", arguments: [
        (#""replicates": {}"#, "$.replicates", "an array of bootstrap replicates"),
        (#""replicates": [[]]"#, "$.replicates[0]", "a bootstrap replicate"),
        (#""replicates": [{}]"#, "$.replicates[0]", "missing required key \"set\""),
        (#""replicates": [{"set": [], "value": 1}]"#, "$.replicates[0].value", "unknown key \"value\""),
        (#""replicates": [{"set": [{"path": "network.wifiPeerToPeer.loss", "value": 0.2}]}]"#, "$.replicates[0].set[0].path", "a path the overlay's \"set\" sets"),
        (#""replicates": [{"set": [{"path": "network.wifiPeerToPeer.latency", "value": "2ms"}, {"path": "network.wifiPeerToPeer.latency", "value": "3ms"}]}]"#, "$.replicates[0].set[1].path", "each path once"),
        (#""replicates": [{"set": [{"path": "network.wifiPeerToPeer.latency", "value": true}]}]"#, "$.replicates[0].set[0].value", "a number or a string"),
        (#""replicates": [{"set": [{"path": "network.wifiPeerToPeer.latency", "value": 1e999}]}]"#, "$.replicates[0].set[0].value", "a number a double can hold"),
    ])
    func invalidReplicates(member: String, path: String, mentions: String) {
        let text = #"{"set": [{"path": "network.wifiPeerToPeer.latency", "value": "2ms"}], \#(member)}"#
        let problems = Self.problems(text)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first.map { $0.hasPrefix("fit.json") && $0.contains(path + ":") && $0.contains(mentions) } == true, "\(problems)")
    }

    @Test("at most 1,000 replicates")
    func replicateBound() {
        let replicate = #"{"set": [{"path": "network.wifiPeerToPeer.latency", "value": "2ms"}]}"#
        func text(_ count: Int) -> String {
            #"{"set": [{"path": "network.wifiPeerToPeer.latency", "value": "2ms"}], "replicates": [\#(Array(repeating: replicate, count: count).joined(separator: ","))]}"#
        }
        #expect(Self.problems(text(Overlay.maximumReplicates)).isEmpty)
        let problems = Self.problems(text(Overlay.maximumReplicates + 1))
        #expect(problems.count == 1 && problems[0].contains("$.replicates") && problems[0].contains("at most 1000"), "\(problems)")
    }

    @Test("schema/overlay.schema.json lists the keys the decoder takes and its bound on replicates")
    func schemaAgrees() throws {
        let data = try #require(FileManager.default.contents(atPath: packageRoot() + "/schema/overlay.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(Overlay.keys))
        let replicates = try #require(properties["replicates"] as? [String: Any])
        #expect(replicates["maxItems"] as? Int == Overlay.maximumReplicates)
        let item = try #require(replicates["items"] as? [String: Any])
        #expect(Set(try #require(item["properties"] as? [String: Any]).keys) == Set(Overlay.replicateKeys))
        let defs = try #require(schema["$defs"] as? [String: Any])
        let setting = try #require(defs["setting"] as? [String: Any])
        #expect(Set(try #require(setting["properties"] as? [String: Any]).keys) == Set(Overlay.settingKeys))
    }
}

extension CalibrationResult {
    /// The result as if no bootstrap had been asked for.
    var withoutReplicates: CalibrationResult {
        var copy = self
        copy.replicates = []
        return copy
    }
}
