import Foundation
import HandoffWorld
import SimKernel
import Testing

// Validation of the radio layer: log-distance path loss with log-normal
// shadowing, distance-dependent loss on a link, and Bluetooth LE advertising
// against a receiver's scan duty cycle.
//
// Every statistical check uses a fixed seed, states its bound, and checks
// the sample size it measured.

/// Φ(x), the standard normal distribution function, from Foundation's erfc.
private func standardNormalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

/// |observed − expected| ≤ 2.576 · √(p(1 − p)/n): a 99% binomial bound.
private func withinBinomialBound(successes: Int, trials: Int, probability: Double, z: Double = z99) -> Bool {
    let observed = Double(successes) / Double(trials)
    return abs(observed - probability) <= z * (probability * (1 - probability) / Double(trials)).squareRoot()
}

/// Devices named d0, d1, … at `positions`.
private func radioDevices(at positions: [Position]) -> [DeviceDescription] {
    positions.enumerated().map { index, position in
        DeviceDescription(
            name: "d\(index)", kind: .iPhone, osVersion: OSVersion(17, 4), account: "alice",
            mobility: .stationary(position))
    }
}

/// Devices on a line at the given x coordinates.
private func radioWorld(
    xs: [Double], configuration: WorldConfiguration = WorldConfiguration(), seed: UInt64 = 1
) throws -> World {
    try World(
        devices: radioDevices(at: xs.map { Position(x: $0, y: 0) }), configuration: configuration,
        stream: RandomStreamKey(seed: seed))
}

/// The advertisement receptions in a log, with their instants.
private func receptions(
    in log: [WorldSimulation.Record], from sender: DeviceID? = nil, to receiver: DeviceID? = nil
) -> [(instant: SimInstant, from: DeviceID, to: DeviceID, payload: UInt64)] {
    log.compactMap { record in
        guard case let .advertisementReceived(from, to, payload) = record.notification else { return nil }
        if let sender, from != sender { return nil }
        if let receiver, to != receiver { return nil }
        return (record.instant, from, to, payload)
    }
}

/// Starts `device` advertising at the simulation's current instant.
private func startAdvertising(_ simulation: inout Simulation<WorldSimulation>, _ device: DeviceID, payload: UInt64) {
    simulation.model.world.startAdvertising(device, payload: payload, at: simulation.now)
    simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
}

@Suite("Radio propagation, distance loss and advertising")
struct RadioTests {
    /// A model with a reference distance other than 1 m, so d₀ matters.
    static let longReference: RadioPropagation = {
        guard let radio = try? RadioPropagation(
            referencePower: -40, referenceDistance: 2, pathLossExponent: 2.2, shadowingStandardDeviation: 4,
            receptionThreshold: -85)
        else { preconditionFailure("valid parameters") }
        return radio
    }()

    // MARK: Path loss

    @Test("Mean received power is P0 − 10·n·log10(d/d0) to 1e-9 dB, and P0 inside d0",
          arguments: [0.0, 0.25, 1.0, 1.5, 2.0, 3.7, 10.0, 10.797, 55.5, 1000.0])
    func meanPowerFollowsLogDistanceLaw(distance: Double) {
        for radio in [RadioPropagation.bluetoothLowEnergy, .wifi, Self.longReference] {
            // P̄(d) = P₀ − 10 · n · log₁₀(d / d₀) for d ≥ d₀, P₀ below.
            let p0 = radio.referencePower
            let d0 = radio.referenceDistance
            let expected = distance <= d0 ? p0 : p0 - 10 * radio.pathLossExponent * log10(distance / d0)
            let mean = radio.meanReceivedPower(atDistance: distance)
            #expect(abs(mean - expected) <= 1e-9, "\(mean) dBm at \(distance) m, expected \(expected)")
        }
    }

    @Test("The sample mean (and SD) of received power over 10^5 draws match P̄(d) (and σ) within 99% bounds",
          arguments: [0.5, 3.0, 10.0, 40.0])
    func sampledPowerHasMeanAndShadowing(distance: Double) {
        for (index, radio) in [RadioPropagation.bluetoothLowEnergy, Self.longReference].enumerated() {
            var generator = RandomStreamKey(seed: 3).child("power", index).child("\(distance) m").generator()
            let count = 100_000
            var sum = 0.0
            var sumOfSquares = 0.0
            for _ in 0..<count {
                let power = radio.sampleReceivedPower(atDistance: distance, using: &generator)
                sum += power
                sumOfSquares += power * power
            }
            let mean = sum / Double(count)
            let variance = (sumOfSquares - sum * mean) / Double(count - 1)
            let sigma = radio.shadowingStandardDeviation
            // Mean: |x̄ − P̄(d)| ≤ 2.576 · σ/√N.
            let meanBound = z99 * sigma / Double(count).squareRoot()
            #expect(abs(mean - radio.meanReceivedPower(atDistance: distance)) <= meanBound)
            // Variance of a normal sample: SE(s²) = σ² · √(2/(N − 1)).
            let varianceBound = z99 * sigma * sigma * (2 / Double(count - 1)).squareRoot()
            #expect(abs(variance - sigma * sigma) <= varianceBound, "s² = \(variance), σ² = \(sigma * sigma)")
        }
    }

    @Test("Bluetooth LE's threshold distance is 10^((−59 + 90)/30) ≈ 10.80 m, where the mean power equals the threshold")
    func bluetoothThresholdDistance() {
        let radio = RadioPropagation.bluetoothLowEnergy
        // d_th = d₀ · 10^((P₀ − threshold)/(10 n)) = 10^(31/30).
        let expected = pow(10, (-59.0 + 90) / 30)
        #expect(abs(radio.thresholdDistance - expected) <= 1e-9 * expected)
        #expect(abs(radio.thresholdDistance - 10.798) < 0.001)
        #expect(abs(radio.meanReceivedPower(atDistance: radio.thresholdDistance) - radio.receptionThreshold) < 1e-9)
        let other = Self.longReference
        #expect(abs(other.thresholdDistance - 2 * pow(10, 45 / 22.0)) <= 1e-9 * other.thresholdDistance)
    }

    @Test("Reception probability is Φ((P̄(d) − threshold)/σ): 0.5 at the threshold distance, Φ(±1) at threshold ± σ",
          arguments: [0.0, 1.0, -1.0, 2.0])
    func receptionProbabilityFollowsNormalTail(standardDeviations k: Double) {
        for (index, radio) in [RadioPropagation.bluetoothLowEnergy, Self.longReference].enumerated() {
            // The distance where P̄(d) = threshold + kσ:
            // d = d₀ · 10^((P₀ − threshold − kσ)/(10 n)).
            let target = radio.receptionThreshold + k * radio.shadowingStandardDeviation
            let distance = radio.referenceDistance
                * pow(10, (radio.referencePower - target) / (10 * radio.pathLossExponent))
            #expect(abs(radio.meanReceivedPower(atDistance: distance) - target) < 1e-9)
            var generator = RandomStreamKey(seed: 31).child("reception", index).generator()
            let count = 100_000
            var received = 0
            for _ in 0..<count where radio.isReceived(atDistance: distance, using: &generator) { received += 1 }
            // P(P̄ + X ≥ threshold) = P(X ≥ −kσ) = Φ(k).
            let probability = standardNormalCDF(k)
            // Eight such checks run (four offsets, two radios): a 99.99%
            // bound (z = 3.891) each keeps a false alarm below 1 in 1,000.
            #expect(withinBinomialBound(successes: received, trials: count, probability: probability, z: 3.891),
                    "received \(received) of \(count), expected \(probability)")
        }
        #expect(abs(standardNormalCDF(1) - 0.841_344_746) < 1e-9)
    }

    @Test("Without shadowing, reception is an exact step at the threshold distance")
    func noShadowingIsAStep() throws {
        let radio = try RadioPropagation(
            referencePower: -59, pathLossExponent: 3, shadowingStandardDeviation: 0, receptionThreshold: -90)
        let threshold = radio.thresholdDistance
        var generator = RandomStreamKey(seed: 32).generator("step")
        for fraction in [0.01, 0.5, 0.9, 0.999, 0.999_999] {
            let received = (0..<1000).filter { _ in radio.isReceived(atDistance: threshold * fraction, using: &generator) }
            #expect(received.count == 1000, "inside at \(fraction) × threshold")
        }
        for fraction in [1.000_001, 1.001, 1.1, 2, 100] {
            let received = (0..<1000).filter { _ in radio.isReceived(atDistance: threshold * fraction, using: &generator) }
            #expect(received.isEmpty, "outside at \(fraction) × threshold")
        }
        #expect(radio.sampleReceivedPower(atDistance: 5, using: &generator) == radio.meanReceivedPower(atDistance: 5))
    }

    // MARK: Distance loss on a link

    enum Placement: String, CaseIterable, Sendable {
        case oneMetre, thresholdDistance, tenTimesThreshold
    }

    @Test("Distance loss on a Wi-Fi peer link delivers ≈ 50% at the threshold distance, all at 1 m, none at 10× threshold",
          arguments: Placement.allCases)
    func distanceLossOnLink(placement: Placement) throws {
        let radio = RadioPropagation.bluetoothLowEnergy
        let distance: Double
        switch placement {
        case .oneMetre: distance = 1
        case .thresholdDistance: distance = radio.thresholdDistance
        case .tenTimesThreshold: distance = 10 * radio.thresholdDistance
        }
        let link = LinkParameters(latency: .microseconds(100), loss: .distance(radio))
        let world = try radioWorld(xs: [0, distance], configuration: WorldConfiguration(wifiPeerToPeer: link), seed: 33)
        #expect(world.distance(between: DeviceID(0), and: DeviceID(1), at: .zero) == distance)
        let id = world.link(.wifiPeerToPeer(from: DeviceID(0), to: DeviceID(1)))
        var simulation = Simulation(model: WorldSimulation(world: world, keepsLog: false))
        let count = 20_000
        for tag in 0..<count {
            simulation.model.world.sendDatagram(on: id, bytes: 100, tag: UInt32(tag), at: simulation.now)
            simulation.model.world.schedulePendingEvents(into: &simulation.scheduler)
            simulation.run()
        }
        let statistics = simulation.model.world.statistics(of: id)
        #expect(statistics.packetsOffered == count)
        #expect(statistics.packetsDelivered == simulation.model.notificationCount)
        let delivered = statistics.packetsDelivered
        switch placement {
        case .oneMetre:
            // 31 dB above the threshold = 5.2σ: loss probability Φ(−5.17) ≈ 1e-7 each.
            #expect(delivered == count)
        case .thresholdDistance:
            // P̄(d_th) = threshold: a coin toss per datagram; 99% binomial bound.
            #expect(withinBinomialBound(successes: delivered, trials: count, probability: 0.5), "delivered \(delivered)")
        case .tenTimesThreshold:
            // 30 dB below = 5σ: reception probability Φ(−5) ≈ 3e-7 each.
            #expect(delivered == 0)
        }
    }

    // MARK: Advertising and scanning

    @Test("Advertising events are interval + U[0, 10 ms] apart, and a full-duty receiver at 1 m hears every one")
    func advertisingGapsIncludeRandomDelay() throws {
        let interval: Int64 = 100_000_000
        let configuration = WorldConfiguration(
            advertising: try AdvertisingParameters(interval: .nanoseconds(interval)),
            scanning: try ScanParameters(window: .nanoseconds(interval), interval: .nanoseconds(interval)))
        var simulation = Simulation(model: WorldSimulation(world: try radioWorld(xs: [0, 1], configuration: configuration, seed: 34)))
        let (advertiser, receiver) = (DeviceID(0), DeviceID(1))
        startAdvertising(&simulation, advertiser, payload: 0xAD)
        simulation.run(until: seconds(60))

        let heard = receptions(in: simulation.model.log)
        let sent = simulation.model.world.advertisementsSent(by: advertiser)
        // 60 s / 105 ms mean spacing ≈ 571 events.
        #expect((560...580).contains(sent))
        #expect(heard.count == sent, "every advertising event is heard")
        #expect(heard.allSatisfy { $0.from == advertiser && $0.to == receiver && $0.payload == 0xAD })
        let instants = heard.map(\.instant.nanosecondsSinceStart)
        // The first event comes after the random delay alone.
        #expect(instants.first.map { (0...10_000_000).contains($0) } == true)
        let gaps = zip(instants.dropFirst(), instants).map { $0 - $1 }
        #expect(gaps.allSatisfy { (interval...(interval + 10_000_000)).contains($0) }, "each gap in [interval, interval + 10 ms]")
        #expect(Set(gaps).count > gaps.count / 2, "the random delay varies")
        // Mean gap interval + 5 ms; U[0, 10 ms] has SD 10 ms/√12; 99% bound.
        let meanGap = Double(gaps.reduce(0, +)) / Double(gaps.count)
        let bound = z99 * 10_000_000 / 12.0.squareRoot() / Double(gaps.count).squareRoot()
        #expect(abs(meanGap - Double(interval + 5_000_000)) <= bound, "mean gap \(meanGap) ns")
    }

    // WirelessProximity's Continuity advertising rates (WPContinuity): rate
    // 48 then 290, in 0.625 ms units, i.e. 30 ms, then 181.25 ms; the fast
    // rate's 2 s is an assumption (updateTime 2.0); the 0–10 ms advDelay is
    // the Bluetooth Core Specification's (Vol 6 Part B §4.4.2.2.1).
    @Test("By default a Continuity advertiser sends every 30 ms for 2 s, then every 181.25 ms, each + U[0, 10 ms]")
    func defaultContinuityRates() throws {
        let configuration = WorldConfiguration(
            scanning: try ScanParameters(window: .milliseconds(100), interval: .milliseconds(100)))
        var simulation = Simulation(model: WorldSimulation(world: try radioWorld(xs: [0, 1], configuration: configuration, seed: 5)))
        startAdvertising(&simulation, DeviceID(0), payload: 0xC0)
        simulation.run(until: seconds(10))
        let instants = receptions(in: simulation.model.log).map(\.instant.nanosecondsSinceStart)
        let gaps = zip(instants.dropFirst(), instants).map { (start: $1, gap: $0 - $1) }
        let fast = gaps.filter { $0.start + $0.gap <= 2_000_000_000 }.map(\.gap)
        let slow = gaps.filter { $0.start >= 2_000_000_000 }.map(\.gap)
        // 2 s / 35 ms mean ≈ 57 fast events; 8 s / 186.25 ms ≈ 43 slow ones.
        #expect((50...62).contains(fast.count))
        #expect((38...47).contains(slow.count))
        #expect(fast.allSatisfy { (30_000_000...40_000_000).contains($0) })
        #expect(slow.allSatisfy { (181_250_000...191_250_000).contains($0) })
    }

    @Test("A close receiver hears a fraction window/interval of adverts, always while scanning",
          arguments: [(3, 10), (1, 5), (5, 10), (9, 10)])
    func dutyCycleSetsReceivedFraction(windowMilliseconds: Int64, intervalMilliseconds: Int64) throws {
        // Each advertising event comes 20 ms + U[0, 10 ms] after the last. The
        // scan interval divides both 20 ms and the 10 ms spread of the delay, so
        // each event's offset within the scan cycle is uniform and independent of
        // the previous ones: receptions are i.i.d. Bernoulli(window/interval), and
        // the binomial bound applies exactly. (With a scan interval much longer
        // than the delay's spread the offsets drift slowly and receptions are
        // strongly correlated.)
        let scanning = try ScanParameters(window: .milliseconds(windowMilliseconds), interval: .milliseconds(intervalMilliseconds))
        let configuration = WorldConfiguration(
            advertising: try AdvertisingParameters(interval: .milliseconds(20)), scanning: scanning)
        var simulation = Simulation(model: WorldSimulation(world: try radioWorld(xs: [0, 1], configuration: configuration, seed: 35)))
        let (advertiser, receiver) = (DeviceID(0), DeviceID(1))
        startAdvertising(&simulation, advertiser, payload: 1)
        simulation.run(until: seconds(250))

        let sent = simulation.model.world.advertisementsSent(by: advertiser)
        let heard = receptions(in: simulation.model.log, to: receiver)
        // 250 s / 25 ms = 10 000 events; the total of 10⁴ delays has SD ≈ 0.3 s.
        #expect((9_900...10_100).contains(sent))
        let dutyCycle = Double(windowMilliseconds) / Double(intervalMilliseconds)
        #expect(scanning.dutyCycle == dutyCycle)
        #expect(withinBinomialBound(successes: heard.count, trials: sent, probability: dutyCycle),
                "heard \(heard.count) of \(sent), duty cycle \(dutyCycle)")
        #expect(heard.allSatisfy { simulation.model.world.isScanning(receiver, at: $0.instant) })
    }

    enum Side: String, CaseIterable, Sendable { case advertiser, receiver }

    @Test("Bluetooth off at the advertiser or the receiver stops receptions until it is back on",
          arguments: Side.allCases)
    func bluetoothOffStopsReceptions(side: Side) throws {
        let configuration = WorldConfiguration(
            advertising: try AdvertisingParameters(interval: .milliseconds(100)),
            scanning: try ScanParameters(window: .milliseconds(100), interval: .milliseconds(100)))
        var simulation = Simulation(model: WorldSimulation(world: try radioWorld(xs: [0, 1], configuration: configuration, seed: 36)))
        let (advertiser, receiver) = (DeviceID(0), DeviceID(1))
        let switched = side == .advertiser ? advertiser : receiver
        startAdvertising(&simulation, advertiser, payload: 7)
        simulation.run(until: seconds(2))
        let sentBefore = simulation.model.world.advertisementsSent(by: advertiser)
        simulation.model.world.setSettings(DeviceSettings(bluetoothEnabled: false), of: switched)
        if side == .receiver {
            let scanningWhileOff = simulation.model.world.isScanning(receiver, at: simulation.now)
            #expect(!scanningWhileOff)
        }
        simulation.run(until: seconds(4))
        let sentWhileOff = simulation.model.world.advertisementsSent(by: advertiser) - sentBefore
        simulation.model.world.setSettings(DeviceSettings(bluetoothEnabled: true), of: switched)
        let advertisingAfterRadioOff = simulation.model.world.isAdvertising(advertiser)
        #expect(advertisingAfterRadioOff, "advertising survives the radio being off")
        simulation.run(until: seconds(6))

        let instants = receptions(in: simulation.model.log).map(\.instant)
        let before = instants.filter { $0 < seconds(2) }.count
        let during = instants.filter { $0 >= seconds(2) && $0 < seconds(4) }.count
        let after = instants.filter { $0 >= seconds(4) }.count
        // About 2 s / 105 ms ≈ 19 events in each phase.
        #expect(before >= 17)
        #expect(during == 0)
        #expect(after >= 17)
        if side == .advertiser {
            #expect(sentWhileOff == 0, "an advertiser with Bluetooth off sends nothing")
        } else {
            #expect(sentWhileOff >= 17, "the advertiser keeps sending while the receiver is off")
        }
    }

    @Test("stopAdvertising stops events; starting again resumes them with the new payload")
    func stopAdvertisingStopsEvents() throws {
        let configuration = WorldConfiguration(
            advertising: try AdvertisingParameters(interval: .milliseconds(100)),
            scanning: try ScanParameters(window: .milliseconds(100), interval: .milliseconds(100)))
        var simulation = Simulation(model: WorldSimulation(world: try radioWorld(xs: [0, 1], configuration: configuration, seed: 37)))
        let advertiser = DeviceID(0)
        startAdvertising(&simulation, advertiser, payload: 1)
        let advertisingAtStart = simulation.model.world.isAdvertising(advertiser)
        #expect(advertisingAtStart)
        simulation.run(until: seconds(2))
        simulation.model.world.stopAdvertising(advertiser)
        let advertisingAfterStop = simulation.model.world.isAdvertising(advertiser)
        #expect(!advertisingAfterStop)
        let sentAtStop = simulation.model.world.advertisementsSent(by: advertiser)
        simulation.run(until: seconds(4))
        #expect(simulation.model.world.advertisementsSent(by: advertiser) == sentAtStop)
        #expect(simulation.scheduler.isEmpty, "no advertising event is left pending")
        startAdvertising(&simulation, advertiser, payload: 2)
        simulation.run(until: seconds(6))

        let heard = receptions(in: simulation.model.log)
        #expect(heard.filter { $0.instant > seconds(2) && $0.instant < seconds(4) }.isEmpty)
        let first = heard.filter { $0.payload == 1 }
        let second = heard.filter { $0.payload == 2 }
        #expect(first.count == sentAtStop)
        #expect(first.allSatisfy { $0.instant <= seconds(2) })
        #expect(second.allSatisfy { $0.instant >= seconds(4) })
        #expect(second.first.map { $0.instant <= seconds(4) + .milliseconds(10) } == true)
        #expect(second.count == simulation.model.world.advertisementsSent(by: advertiser) - sentAtStop)
        #expect(second.count >= 17)
    }

    /// Three receivers at 2, 8 and 12 m from an advertiser, default scanning.
    static func advertisingLog(seed: UInt64) throws -> [WorldSimulation.Record] {
        var simulation = Simulation(model: WorldSimulation(world: try radioWorld(xs: [0, 2, 8, 12], seed: seed)))
        startAdvertising(&simulation, DeviceID(0), payload: 42)
        startAdvertising(&simulation, DeviceID(2), payload: 43)
        simulation.run(until: seconds(60))
        return simulation.model.log
    }

    @Test("The same seed gives an identical advertising log; a different seed a different one")
    func advertisingIsDeterministic() throws {
        let first = try Self.advertisingLog(seed: 38)
        let again = try Self.advertisingLog(seed: 38)
        let other = try Self.advertisingLog(seed: 39)
        #expect(first.count > 100)
        #expect(first == again)
        #expect(first != other)
        #expect(receptions(in: first).contains { $0.to == DeviceID(3) }, "the 12 m receiver hears some adverts")
    }

    // MARK: Scan schedule

    /// Independent reference: the scan containing `t` starts at
    /// phase + ⌊(t − phase)/interval⌋ · interval (floor division, correct for
    /// negative numerators).
    static func referenceIsScanning(_ t: Int64, phase: Int64, window: Int64, interval: Int64) -> Bool {
        let difference = t - phase
        var k = difference / interval
        if difference % interval != 0, difference < 0 { k -= 1 }
        let start = phase + k * interval
        return start <= t && t < start + window
    }

    @Test("isScanning covers [phase + k·interval, phase + k·interval + window) for every integer k, including before the phase",
          arguments: [(30, 100, 90), (30, 100, 0), (100, 100, 37), (1, 7, 6), (45, 50, 49)])
    func isScanningWrapsPhase(window: Int64, interval: Int64, phase: Int64) throws {
        let scanning = try ScanParameters(window: .milliseconds(window), interval: .milliseconds(interval))
        let ms: Int64 = 1_000_000
        var mismatches: [Int64] = []
        // Every half-millisecond, and either side of each boundary, over several cycles.
        var instants: [Int64] = stride(from: Int64(0), through: 5 * interval * ms, by: 500_000).map { $0 }
        for k in Int64(-1)...5 {
            let start = (phase + k * interval) * ms
            for edge in [start, start + window * ms] where edge >= 1 {
                instants += [edge - 1, edge, edge + 1]
            }
        }
        for t in instants where scanning.isScanning(at: SimInstant(nanosecondsSinceStart: t), phase: .milliseconds(phase))
            != Self.referenceIsScanning(t, phase: phase * ms, window: window * ms, interval: interval * ms) {
            mismatches.append(t)
        }
        #expect(mismatches.isEmpty, "disagrees with the reference at \(mismatches.prefix(5)) ns")
        // Time 0 lies in the scan that started at phase − interval.
        let atZero = SimInstant.zero
        #expect(scanning.isScanning(at: atZero, phase: .milliseconds(phase)) == (phase == 0 || phase - interval + window > 0))
    }

    @Test("isScanning at named points: phase 90 ms, window 30 ms, interval 100 ms")
    func isScanningNamedPoints() throws {
        let scanning = try ScanParameters(window: .milliseconds(30), interval: .milliseconds(100))
        let phase = SimDuration.milliseconds(90)
        func at(_ nanoseconds: Int64) -> Bool { scanning.isScanning(at: SimInstant(nanosecondsSinceStart: nanoseconds), phase: phase) }
        #expect(at(0))  // in the scan [−10 ms, 20 ms)
        #expect(at(19_999_999))
        #expect(!at(20_000_000))
        #expect(!at(89_999_999))
        #expect(at(90_000_000))
        #expect(at(119_999_999))
        #expect(!at(120_000_000))
        #expect(at(1_000_000_000 + 5_000_000))  // 1.005 s: 15 ms into the scan from 990 ms
        #expect(scanning.dutyCycle == 0.3)
    }

    // MARK: Invalid parameters

    static let invalidCases: [InvalidParameterCase] = [
        InvalidParameterCase(setting: "scanInterval") { _ = try ScanParameters(window: .milliseconds(1), interval: .zero) },
        InvalidParameterCase(setting: "scanWindow") { _ = try ScanParameters(window: .zero, interval: .milliseconds(100)) },
        InvalidParameterCase(setting: "scanWindow") { _ = try ScanParameters(window: .milliseconds(101), interval: .milliseconds(100)) },
        InvalidParameterCase(setting: "scanWindow") { _ = try ScanParameters(window: .milliseconds(-5), interval: .milliseconds(100)) },
        InvalidParameterCase(setting: "advertisingInterval") { _ = try AdvertisingParameters(interval: .zero) },
        InvalidParameterCase(setting: "advertisingInterval") { _ = try AdvertisingParameters(interval: .milliseconds(-20)) },
        InvalidParameterCase(setting: "advertisingDelay") {
            _ = try AdvertisingParameters(interval: .milliseconds(20), maximumRandomDelay: .nanoseconds(-1))
        },
        InvalidParameterCase(setting: "referencePower") {
            _ = try RadioPropagation(referencePower: .nan, pathLossExponent: 3, shadowingStandardDeviation: 6, receptionThreshold: -90)
        },
        InvalidParameterCase(setting: "referenceDistance") {
            _ = try RadioPropagation(
                referencePower: -59, referenceDistance: 0, pathLossExponent: 3, shadowingStandardDeviation: 6, receptionThreshold: -90)
        },
        InvalidParameterCase(setting: "pathLossExponent") {
            _ = try RadioPropagation(referencePower: -59, pathLossExponent: 0, shadowingStandardDeviation: 6, receptionThreshold: -90)
        },
        InvalidParameterCase(setting: "shadowing") {
            _ = try RadioPropagation(referencePower: -59, pathLossExponent: 3, shadowingStandardDeviation: -1, receptionThreshold: -90)
        },
        InvalidParameterCase(setting: "receptionThreshold") {
            _ = try RadioPropagation(
                referencePower: -59, pathLossExponent: 3, shadowingStandardDeviation: 6, receptionThreshold: -.infinity)
        },
    ]

    @Test("Invalid radio, advertising and scan settings throw invalidParameter naming the setting",
          arguments: invalidCases)
    func invalidSettingsAreNamed(_ invalid: InvalidParameterCase) {
        expectInvalidParameter(invalid)
    }
}
