import Handoff
import HandoffWorld
import SimKernel

/// A validated scenario file: the setup it describes, its activities and
/// timeline, how many trials to run under which seed, its limits and its
/// expectations. Made by ``ScenarioSuite/load(_:overlay:)``; run by
/// ``ScenarioRunner``.
public struct Scenario: Sendable {
    /// The file, as it was named on the command line.
    public let file: String
    /// The scenario's name (the file name without `.json` if the file
    /// gives none).
    public let name: String
    /// What the scenario checks, in words.
    package let summary: String?
    /// The seed of trial 0's stream; trial k draws from stream (seed, k).
    public let seed: UInt64
    /// How many trials to run.
    public let trials: Int
    /// Per-trial limits.
    let limits: ScenarioLimits
    /// How long each trial is observed, if the scenario fixes it; without
    /// one, a trial runs until nothing is under way, and reaching
    /// ``ScenarioLimits/maxSimulatedTime`` first is an error.
    package let duration: SimDuration?
    /// Devices, apps, site associations, world and protocol settings.
    public let setup: HandoffSetup
    /// How each scenario-described app behaves, by bundle ID, in the order
    /// of the file.
    let behaviours: [(bundleID: String, behaviour: AppBehaviour)]
    /// The activities, in the order of the file.
    public let activities: [ScenarioActivity]
    /// What happens when, in time order (ties keep file order).
    let timeline: [TimelineEntry]
    /// What must hold, in the order of the file (empty for a file that only
    /// describes a sweep).
    package let expectations: [Expectation]
    /// The file's `sweep` block, if any.
    package let sweep: ScenarioSweep?
    /// A digest of the file's bytes (SHA-256, hex), recorded in reports so
    /// results from different versions of a scenario are never mixed; run
    /// with an overlay (its own `"overlay"` or a command's), of the bytes
    /// and the overlay's values.
    package let digest: String
    /// The overlay file whose values were written over the file before it
    /// was decoded (`--overlay`), if any: replay commands name it.
    package internal(set) var overlayFile: String?
    /// What validation found that does not stop the file from running but
    /// will make it fail, such as a literal `userInfo` over
    /// `protocol.userInfoLimit` (every trial ends in 4611): each a
    /// ``ScenarioProblem`` of severity ``ScenarioProblem/Severity/warning``,
    /// in document order.
    public internal(set) var warnings: [ScenarioProblem] = []

    /// The behaviour of app `bundleID` (the default behaviour if the file
    /// gives none).
    func behaviour(of bundleID: String) -> AppBehaviour {
        behaviours.first { $0.bundleID == bundleID }?.behaviour ?? AppBehaviour()
    }
}

/// A scenario file's `sweep` block: what `handoff-sim sweep` varies when
/// the command line does not say.
package struct ScenarioSweep: Sendable {
    /// Payload sizes, as written.
    let payloads: [String]
    /// Network profile names.
    package let profiles: [String]
    /// Parameter paths with their values, as written.
    let parameters: [(path: String, values: [String])]
}

/// Bounds on one trial: hitting one ends the scenario with an error (the
/// suite goes on).
struct ScenarioLimits: Hashable, Sendable {
    /// The most events one trial may handle.
    var maxEvents: UInt64
    /// The latest simulated time a trial may reach.
    var maxSimulatedTime: SimDuration

    /// The defaults: a million events, ten simulated minutes.
    static let defaults = ScenarioLimits(maxEvents: 1_000_000, maxSimulatedTime: .seconds(600))

    /// Limits of the given size.
    init(maxEvents: UInt64, maxSimulatedTime: SimDuration) {
        self.maxEvents = maxEvents
        self.maxSimulatedTime = maxSimulatedTime
    }
}

/// One activity of a scenario: its content and the app and device that
/// create it at time zero.
public struct ScenarioActivity: Hashable, Sendable {
    /// The name the timeline and expectations use for it.
    public let name: String
    /// The device it is created on.
    public let device: String
    /// The bundle ID of the app that creates it.
    public let app: String
    /// Its content.
    public let content: ActivityContent
}

/// A timed action of the timeline.
struct TimelineEntry: Hashable, Sendable {
    /// When it happens.
    let time: SimInstant
    /// What happens.
    let action: TimelineAction
    /// Where the entry is in the file.
    let path: String
}

/// What a timeline entry does: a Handoff action whose activity is named by
/// its index in ``Scenario/activities`` (``ScenarioRunner`` resolves it per
/// trial). Moves are not actions: they become the device's mobility.
enum TimelineAction: Hashable, Sendable {
    /// The activity's app calls `becomeCurrent`.
    case becomeCurrent(activity: Int)
    /// The activity's app calls `resignCurrent`.
    case resignCurrent(activity: Int)
    /// The activity's app calls `invalidate`.
    case invalidate(activity: Int)
    /// The activity's app sets `needsSave`.
    case setNeedsSave(activity: Int, Bool)
    /// The activity's app calls `addUserInfoEntries`.
    case addUserInfoEntries(activity: Int, UserInfo)
    /// The activity's app sets `isEligibleForHandoff`.
    case setEligibleForHandoff(activity: Int, Bool)
    /// The user on the device picks the offered activity.
    case accept(device: String)
    /// The device's switches become these.
    case setSettings(device: String, DeviceSettings)
    /// The device signs in to the account, or out with `nil`.
    case setAccount(device: String, AccountID?)
    /// The user on the device gives input: it is in use, and its idle time
    /// starts over.
    case userInput(device: String)
}
