import Handoff
import ScenarioJSON
import SimKernel

/// Every kind of expectation a scenario file can state, in the order error
/// messages list their keys. A new kind is its type (one file in this
/// folder) and its line here.
let expectationKinds: [ExpectationKindEntry] = [
    ExpectationKindEntry(OutcomeExpectation.self),
    ExpectationKindEntry(SuccessRateExpectation.self),
    ExpectationKindEntry(ErrorExpectation.self),
    ExpectationKindEntry(NotOfferedExpectation.self),
    ExpectationKindEntry(CallbacksExpectation.self),
    ExpectationKindEntry(EventsExpectation.self),
    ExpectationKindEntry(LatencyExpectation.self),
]

/// A kind of expectation as the reader looks it up: its type's static
/// members, taken once.
struct ExpectationKindEntry: Sendable {
    let key: String
    let otherKeys: [String]
    let coversDevice: Bool
    let takesRate: Bool
    let read: @Sendable (JSONNode, JSONPath, ObjectReader, RateBound?, DecodingContext) -> (any ExpectationKind)?

    init<Kind: ExpectationKind>(_ kind: Kind.Type) {
        key = Kind.key
        otherKeys = Kind.otherKeys
        coversDevice = Kind.coversDevice
        takesRate = Kind.takesRate
        read = { Kind.read($0, at: $1, in: $2, rate: $3, context: $4) }
    }
}

/// One kind of expectation: the key that names it in a scenario file, how
/// its value is read, what it measures over the trials and what it asks, in
/// words.
///
/// A kind measures one of three things (its ``shape``): a share of trials
/// by how they ended (``ShareExpectation``), an exact sequence of trace
/// events (``SequenceExpectation``) or a latency percentile
/// (``PercentileExpectation``). The tally, the verdict and the report's
/// words for the measurement are per shape, so a kind conforms to one of
/// the three and writes only what is its own.
package protocol ExpectationKind: Hashable, Sendable {
    /// The key that names the kind in an expectation object: `"successRate"`.
    static var key: String { get }
    /// The kind's other keys in an expectation object (a latency's
    /// `"percentile"` and its bound), beyond those every expectation may
    /// have.
    static var otherKeys: [String] { get }
    /// Whether the kind is about a device's whole trace (every activity,
    /// and any device, the source included) rather than one activity on a
    /// receiving device.
    static var coversDevice: Bool { get }
    /// Whether `"atLeast"`/`"atMost"` may bound the share of trials.
    static var takesRate: Bool { get }
    /// Reads the kind from `expectation`, the expectation object whose
    /// ``key`` holds `value` (at `path`), reporting every problem to
    /// `context`; nil when it cannot be read.
    ///
    /// - Parameter rate: the `"atLeast"`/`"atMost"` bound the object gives,
    ///   if any.
    static func read(
        _ value: JSONNode, at path: JSONPath, in expectation: ObjectReader, rate: RateBound?, context: DecodingContext
    ) -> Self?
    /// What it measures.
    var shape: ExpectationShape { get }
    /// What it asks, in words: `subject` names the activity and device
    /// ("on ipad", "tabs on ipad"), `device` the device alone.
    func question(subject: String, device: String) -> String
}

extension ExpectationKind {
    static var otherKeys: [String] { [] }
}

/// What an expectation measures over the trials.
package enum ExpectationShape: Sendable {
    /// A share of trials, by how each ended.
    case share(any ShareExpectation)
    /// An exact sequence of trace events on a device.
    case sequence(any SequenceExpectation)
    /// A latency percentile.
    case percentile(any PercentileExpectation)
}

/// A kind that counts the trials that ended one way: in every trial, or in
/// a share of them within its ``rate``.
package protocol ShareExpectation: ExpectationKind {
    /// Whether a trial that ended in `outcome` counts.
    func counts(_ outcome: ContinuationOutcome) -> Bool
    /// The bound on the share that counts; nil for every trial.
    var rate: RateBound? { get }
    /// What counts, in words: "continued", "failed with 4611".
    var countedWords: String { get }
}

extension ShareExpectation {
    var shape: ExpectationShape { .share(self) }
    static var coversDevice: Bool { false }
    static var takesRate: Bool { true }

    /// `words` and how many trials: "… in every trial", "… in ≥ 99% of
    /// trials".
    func question(saying words: String) -> String {
        words + " " + (rate.map { "in \($0) of trials" } ?? "in every trial")
    }
}

/// A kind that compares a device's trace events, in order, with a list: in
/// every trial, or in a share of them within its ``rate``.
package protocol SequenceExpectation: ExpectationKind {
    /// The names expected, in order.
    var expected: [TraceEvent.Name] { get }
    /// The part of a device's trace `events` compared with ``expected``.
    func compared(_ events: [TraceEvent.Name]) -> [TraceEvent.Name]
    /// The bound on the share of trials that show the sequence; nil for
    /// every trial.
    var rate: RateBound? { get }
}

extension SequenceExpectation {
    var shape: ExpectationShape { .sequence(self) }
    static var coversDevice: Bool { true }
    static var takesRate: Bool { true }

    /// Reads a list of trace event names, each one of `allowed`; `unknown`
    /// says what an unknown name is expected to be.
    static func readNames(
        _ value: JSONNode, at path: JSONPath, allowed: [String], context: DecodingContext,
        unknown: (String) -> String
    ) -> [TraceEvent.Name]? {
        guard let names = context.strings(value, path) else { return nil }
        var events: [TraceEvent.Name] = []
        for (index, name) in names.enumerated() {
            if let event = TraceEvent.Name(rawValue: name), allowed.contains(name) {
                events.append(event)
            } else {
                context.report(path.index(index), at: context.array(value, path, expected: "")?[index].position,
                               unknown(name) + context.didYouMean(name, among: allowed))
            }
        }
        return events.count == names.count ? events : nil
    }

    func question(device: String, what: String) -> String {
        "\(what) on \(device) are exactly [\(expected.map(\.rawValue).joined(separator: ", "))]"
            + (rate.map { " in \($0) of trials" } ?? "")
    }
}

/// A kind that bounds a percentile of a latency, over the trials that
/// reached the latency's end.
package protocol PercentileExpectation: ExpectationKind {
    /// The latency.
    var metric: LatencyMetric { get }
    /// The percentile (95 for p95).
    var percentile: Double { get }
    /// The bound it must keep.
    var bound: DurationBound { get }
}

extension PercentileExpectation {
    var shape: ExpectationShape { .percentile(self) }
    static var coversDevice: Bool { false }
    static var takesRate: Bool { false }
}

/// An outcome an expectation asks for.
package enum OutcomeKind: String, CaseIterable, Hashable, Sendable {
    case continued
    case continuedInBrowser
    case failed
    case notOffered
    case withdrawn
    case notAccepted
    case unfinished

    /// Whether `outcome` is of this kind.
    package func matches(_ outcome: ContinuationOutcome) -> Bool {
        switch (self, outcome) {
        case (.continued, .continued), (.continuedInBrowser, .continuedInBrowser), (.failed, .failed),
            (.notOffered, .notOffered), (.withdrawn, .withdrawn), (.notAccepted, .notAccepted),
            (.unfinished, .unfinished):
            return true
        case (.continued, .continuedInBrowser), (.continued, .failed), (.continued, .notOffered), (.continued, .withdrawn),
            (.continued, .notAccepted), (.continued, .unfinished),
            (.continuedInBrowser, .continued), (.continuedInBrowser, .failed), (.continuedInBrowser, .notOffered),
            (.continuedInBrowser, .withdrawn), (.continuedInBrowser, .notAccepted), (.continuedInBrowser, .unfinished),
            (.failed, .continued), (.failed, .continuedInBrowser), (.failed, .notOffered), (.failed, .withdrawn),
            (.failed, .notAccepted), (.failed, .unfinished),
            (.notOffered, .continued), (.notOffered, .continuedInBrowser), (.notOffered, .failed),
            (.notOffered, .withdrawn), (.notOffered, .notAccepted), (.notOffered, .unfinished),
            (.withdrawn, .continued), (.withdrawn, .continuedInBrowser), (.withdrawn, .failed), (.withdrawn, .notOffered),
            (.withdrawn, .notAccepted), (.withdrawn, .unfinished),
            (.notAccepted, .continued), (.notAccepted, .continuedInBrowser), (.notAccepted, .failed),
            (.notAccepted, .notOffered), (.notAccepted, .withdrawn), (.notAccepted, .unfinished),
            (.unfinished, .continued), (.unfinished, .continuedInBrowser), (.unfinished, .failed),
            (.unfinished, .notOffered), (.unfinished, .withdrawn), (.unfinished, .notAccepted):
            return false
        }
    }
}

/// A bound on a fraction of trials: at least, or at most.
package enum RateBound: Hashable, Sendable, CustomStringConvertible {
    case atLeast(Double)
    case atMost(Double)

    /// Whether `rate` keeps the bound.
    func holds(for rate: Double) -> Bool {
        switch self {
        case let .atLeast(bound): return rate >= bound
        case let .atMost(bound): return rate <= bound
        }
    }

    package var description: String {
        switch self {
        case let .atLeast(bound): return "≥ \(percentText(bound))"
        case let .atMost(bound): return "≤ \(percentText(bound))"
        }
    }
}

/// A bound on a duration: strictly below, or strictly above.
package enum DurationBound: Hashable, Sendable, CustomStringConvertible {
    case below(SimDuration)
    case above(SimDuration)

    /// Whether `duration` keeps the bound.
    func holds(for duration: SimDuration) -> Bool {
        switch self {
        case let .below(bound): return duration < bound
        case let .above(bound): return duration > bound
        }
    }

    package var description: String {
        switch self {
        case let .below(bound): return "< \(bound)"
        case let .above(bound): return "> \(bound)"
        }
    }
}

/// One expectation of a scenario, about one activity on one receiving
/// device (or, for a sequence, about a device's whole trace).
package struct Expectation: Hashable, Sendable {
    /// What must hold.
    package let kind: any ExpectationKind
    /// The receiving device it is about.
    package let device: String
    /// The activity it is about (index into ``Scenario/activities``).
    package let activity: Int
    /// Where the expectation is in the file.
    package let path: String
    /// The line of the expectation in the file, when known.
    package let line: Int?

    package static func == (lhs: Expectation, rhs: Expectation) -> Bool {
        AnyHashable(lhs.kind) == AnyHashable(rhs.kind) && lhs.device == rhs.device && lhs.activity == rhs.activity
            && lhs.path == rhs.path && lhs.line == rhs.line
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(kind))
        hasher.combine(device)
        hasher.combine(activity)
        hasher.combine(path)
        hasher.combine(line)
    }

    /// What the expectation asks, in words, as reports and `list` show it:
    /// "outcome on ipad is continued in every trial", "acceptToContinue p95
    /// on ipad < 1.5s".
    ///
    /// - Parameters:
    ///   - activityName: The name of the activity it is about.
    ///   - namesActivity: Whether to name the activity (its scenario has
    ///     several).
    package func question(activityName: String, namesActivity: Bool) -> String {
        kind.question(subject: namesActivity ? "\(activityName) on \(device)" : "on \(device)", device: device)
    }

    /// ``question(activityName:namesActivity:)`` for an expectation of
    /// `scenario`.
    package func question(in scenario: Scenario) -> String {
        question(activityName: scenario.activities[activity].name, namesActivity: scenario.activities.count > 1)
    }
}

/// `0.995` as `"99.5%"`: up to three decimals, no trailing zeros.
func percentText(_ fraction: Double) -> String {
    let thousandths = (fraction * 100_000).rounded()
    let whole = Int64(thousandths) / 1000
    var decimals = Int64(thousandths) % 1000
    guard decimals != 0 else { return "\(whole)%" }
    var digits = 3
    while decimals % 10 == 0 {
        decimals /= 10
        digits -= 1
    }
    var fractionText = String(decimals)
    while fractionText.count < digits { fractionText = "0" + fractionText }
    return "\(whole).\(fractionText)%"
}
