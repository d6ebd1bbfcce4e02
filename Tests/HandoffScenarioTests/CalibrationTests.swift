import Foundation
import Handoff
import HandoffWorld
@testable import HandoffScenario
import SimKernel
import Testing

/// The model against what was measured of Apple's peer-to-peer path:
/// per-run figures of a fresh connection and one request/response between a
/// Mac and an iPhone, over AWDL and over a cable (PrivateDrop evaluation
/// data, USENIX Security 2021, shipped in calibration/data/).
@Suite("Calibration against measured runs")
struct CalibrationTests {
    struct Run {
        let networkMilliseconds: Double
        let uploadMegabitsPerSecond: Double
    }

    /// The runs of `calibration/data/privatedrop-<path>.csv`.
    static func measured(_ path: String) throws -> [Run] {
        let text = try String(contentsOfFile: packageRoot() + "/calibration/data/privatedrop-\(path).csv", encoding: .utf8)
        // Lines end in CRLF or LF.
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        let header = lines.removeFirst().split(separator: ",").map(String.init)
        let network = try #require(header.firstIndex(of: "network_ms"))
        let bytes = try #require(header.firstIndex(of: "upload_bytes"))
        let milliseconds = try #require(header.firstIndex(of: "upload_ms"))
        return try lines.map { line in
            let fields = line.split(separator: ",").map(String.init)
            let uploadBytes = try #require(Double(fields[bytes]))
            let uploadMilliseconds = try #require(Double(fields[milliseconds]))
            return Run(
                networkMilliseconds: try #require(Double(fields[network])),
                uploadMegabitsPerSecond: uploadBytes * 8 / uploadMilliseconds / 1000)
        }
    }

    /// The nearest-rank quantile.
    static func quantile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted[max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
    }

    /// The fetch latencies, in ms, of the shipped scenario
    /// `scenarios/measured/<path>-request-response.json`.
    static func simulatedFetches(_ path: String) throws -> [Double] {
        let file = packageRoot() + "/scenarios/measured/\(path)-request-response.json"
        let scenario = try validScenario(try String(contentsOfFile: file, encoding: .utf8), file: file)
        let result = ScenarioRunner(jobs: 2, recordsSamples: true).run(scenario)
        #expect(result.passed, "the scenario's own expectations hold")
        return result.samples.compactMap(\.fetch).map { Double($0.nanoseconds) / 1e6 }
    }

    @Test("the shipped measurements have the quantiles their README states", arguments: [
        ("awdl", [124.0, 183, 316, 438, 1196, 1623], [82.1, 91.5, 96.3, 100.4, 103.2, 104.5]),
        ("cable", [93.0, 101, 103, 104, 108, 110], [90.2, 96.1, 101.2, 103.1, 104.5, 105.8]),
    ])
    func measuredQuantiles(path: String, network: [Double], throughput: [Double]) throws {
        let runs = try Self.measured(path)
        #expect(runs.count == 1500)
        let levels = [0.05, 0.25, 0.5, 0.75, 0.95, 0.99]
        #expect(levels.map { Self.quantile(runs.map(\.networkMilliseconds), $0) } == network)
        let rates = levels.map { (Self.quantile(runs.map(\.uploadMegabitsPerSecond), $0) * 10).rounded() / 10 }
        #expect(rates == throughput)
    }

    // Source: PrivateDrop evaluation data (USENIX Security 2021), network_ms
    // of 1,500 runs over AWDL: a fresh connection and one request/response.
    @Test("a fresh connection and one request/response over AWDL: Kolmogorov–Smirnov distance ≤ 0.05 from the measured runs")
    func awdlRequestResponse() throws {
        let simulated = try Self.simulatedFetches("awdl")
        #expect(simulated.count >= 2000)
        let measured = try Self.measured("awdl").map(\.networkMilliseconds)
        let distance = KolmogorovSmirnov.distance(simulated, measured)
        #expect(distance <= 0.05, "KS distance \(distance)")
        // The check can fail: the same runs over a cable are far from it.
        let cable = try Self.measured("cable").map(\.networkMilliseconds)
        #expect(KolmogorovSmirnov.distance(simulated, cable) > 0.5)
    }

    // Source: PrivateDrop evaluation data, network_ms of 1,500 runs over a cable.
    @Test("a fresh connection and one request/response over a cable: Kolmogorov–Smirnov distance ≤ 0.10 from the measured runs")
    func cableRequestResponse() throws {
        let simulated = try Self.simulatedFetches("cable")
        let measured = try Self.measured("cable").map(\.networkMilliseconds)
        let distance = KolmogorovSmirnov.distance(simulated, measured)
        #expect(distance <= 0.10, "KS distance \(distance)")
    }

    // Source: PrivateDrop evaluation data, upload_ms of 1,500 uploads of
    // 10.49 MB on AirDrop's established connection over AWDL.
    @Test("a 10.49 MB upload on an established AWDL connection: median within 3% of the measured, spread from the fitted rate spread, KS ≤ 0.17")
    func awdlUpload() throws {
        let file = packageRoot() + "/scenarios/measured/awdl-upload.json"
        let scenario = try validScenario(try String(contentsOfFile: file, encoding: .utf8), file: file)
        let result = ScenarioRunner(jobs: 2, recordsSamples: true).run(scenario, trials: 150)
        let simulated = result.samples.compactMap(\.streamRound).map { Double($0.nanoseconds) / 1e6 }
        #expect(simulated.count == 150)
        let measured = try Self.measured("awdl").map { 10_489_141 * 8 / $0.uploadMegabitsPerSecond / 1000 }
        let median = Self.quantile(simulated, 0.5)
        #expect(abs(median / Self.quantile(measured, 0.5) - 1) <= 0.03, "median \(median) ms")
        // The rate spreads from trial to trial: the middle half spans tens
        // of milliseconds, as measured (81 ms), not one AWDL slot's worth.
        let spread = Self.quantile(simulated, 0.75) - Self.quantile(simulated, 0.25)
        #expect(spread > 40 && spread < 200, "interquartile range \(spread) ms")
        // Not within the KS test's critical value (0.12 here): the fastest
        // simulated uploads are faster than any measured (a log-normal rate
        // has no ceiling; the measured runs do). 0.15 at 150 trials.
        let distance = KolmogorovSmirnov.distance(simulated, measured)
        #expect(distance <= 0.17, "KS distance \(distance)")
    }

    // Source: PrivateDrop evaluation data, upload throughput of 10.49 MB on
    // an established connection over AWDL: median 96.3 Mbit/s.
    @Test("bulk throughput over the default AWDL link: median within 5% of the measured 96.3 Mbit/s")
    func awdlBulkThroughput() throws {
        let bytes = 10_489_141
        var rates: [Double] = []
        for seed in UInt64(1)...31 {
            let devices = [
                DeviceDescription(name: "mac", kind: .mac, osVersion: OSVersion(14, 4), account: "alice"),
                DeviceDescription(
                    name: "iphone", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
                    mobility: .stationary(Position(x: 0.5, y: 0))),
            ]
            let world = try World(devices: devices, configuration: WorldConfiguration(), stream: RandomStreamKey(seed: seed))
            var simulation = Simulation(model: WorldSimulation(world: world))
            let connection = simulation.model.world.openConnection(
                from: DeviceID(0), to: DeviceID(1), over: .wifiPeerToPeer, at: .zero)
            simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
            // The upload starts on the established connection, within 5 ms
            // of the handshake, while the pair is active.
            var now = SimInstant.zero
            while !simulation.model.log.contains(where: { $0.notification == .connectionEstablished(connection) }) {
                now = now + .milliseconds(5)
                try #require(now < .zero + .seconds(30), "the connection is established")
                simulation.run(until: now)
            }
            let start = now
            simulation.model.world.send(bytes: bytes, tag: 1, on: connection, from: .initiator, at: start)
            simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
            simulation.run()
            let delivered = try #require(simulation.model.log.first {
                if case .messageDelivered(connection, .responder, 1, bytes) = $0.notification { return true }
                return false
            }?.instant)
            let seconds = Double((delivered - start).nanoseconds) / 1e9
            rates.append(Double(bytes) * 8 / seconds / 1e6)
        }
        let median = Self.quantile(rates, 0.5)
        #expect(abs(median / 96.3 - 1) <= 0.05, "median \(median) Mbit/s")
    }
}
