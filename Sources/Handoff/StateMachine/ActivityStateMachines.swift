import SimKernel

/// A finite state machine given as a table: its states, its events, and
/// for each (state, event) pair either the next state or nothing, which
/// makes the event illegal in that state.
///
/// The protocol engine never applies an event without asking the table; an
/// illegal event is recorded as a ``Violation`` and fails the run, never
/// ignored.
public protocol ActivityStateMachine {
    /// The machine's states.
    associatedtype State: CaseIterable, Hashable, Sendable, CustomStringConvertible
    /// The events that move it.
    associatedtype Event: CaseIterable, Hashable, Sendable, CustomStringConvertible

    /// The state `event` leads to from `state`, or `nil` if the event is
    /// illegal there.
    static func transition(from state: State, on event: Event) -> State?
}

/// The life of an activity on the device that created it.
///
/// `created → current (becomeCurrent) → resigned | invalidated`. Only one
/// activity per device is current: making another current supersedes it.
/// After `invalidate` nothing is legal, not even a second `invalidate`.
///
/// | state | becomeCurrent | resignCurrent | superseded | save | continued | invalidate |
/// |---|---|---|---|---|---|---|
/// | created | current | — | — | — | — | invalidated |
/// | current | current | resigned | resigned | current | current | invalidated |
/// | resigned | current | — | — | resigned | resigned | invalidated |
/// | invalidated | — | — | — | — | — | — |
public enum SourceActivityMachine: ActivityStateMachine {
    /// Where a source activity is in its life.
    public enum State: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        /// Made, never current yet: not eligible for Handoff.
        case created
        /// The device's current activity, advertised to nearby devices.
        case current
        /// Was current; no longer advertised, but its data can still be
        /// fetched by an offer already accepted.
        case resigned
        /// Withdrawn for good.
        case invalidated

        /// The raw value.
        public var description: String { rawValue }
    }

    /// What happens to a source activity.
    public enum Event: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        /// The app calls `becomeCurrent` (again, to say it was updated).
        case becomeCurrent
        /// The app calls `resignCurrent`.
        case resignCurrent
        /// Another activity on the device became current.
        case superseded
        /// The system saves it for a fetch (`userActivityWillSave` when
        /// `needsSave`, responders' `updateUserActivityState`).
        case save
        /// Another device continued it (`userActivityWasContinued`).
        case continued
        /// The app calls `invalidate`.
        case invalidate

        /// The raw value.
        public var description: String { rawValue }
    }

    /// The state `event` moves `state` to, or nil when the event is not allowed there.
    public static func transition(from state: State, on event: Event) -> State? {
        switch (state, event) {
        case (.invalidated, _): return nil
        case (_, .invalidate): return .invalidated
        case (_, .becomeCurrent): return .current
        case (.current, .resignCurrent), (.current, .superseded): return .resigned
        case (.current, .save), (.current, .continued): return .current
        case (.resigned, .save), (.resigned, .continued): return .resigned
        case (.created, _), (.resigned, _): return nil
        }
    }

    /// Whether the app may still change an activity in `state` (set
    /// `needsSave`, add `userInfo` entries, set `isEligibleForHandoff`):
    /// in every state but ``State/invalidated``, after which nothing is
    /// legal.
    public static func allowsChanges(in state: State) -> Bool {
        switch state {
        case .created, .current, .resigned: return true
        case .invalidated: return false
        }
    }
}

/// One attempt to continue an activity on a receiving device.
///
/// `discovered → offered → accepted → launching → willContinue → continued |
/// failed`, then `restored` once the restoration handler's objects have
/// restored their state. An offer can be withdrawn before it is accepted; an
/// activity with no suitable app but an http or https `webpageURL` opens in
/// the browser after the launch instead.
///
/// The machine is what the app sees. The system fetches the payload from
/// the moment the user accepts, while the app launches (Apple:
/// `willContinue` comes "possibly before the data associated with that
/// activity is available"); `willContinue` comes when the app is up, and
/// `continue` (or `fail`) when the app is up and the fetch has ended, so
/// `continue` never comes before the data. The fetch's own steps are in the
/// trace as the system's.
///
/// Exactly one of `continue` and `fail` follows `willContinue`; every other
/// order is illegal. Several restorable objects each restore, so `restore`
/// may repeat.
public enum ContinuationMachine: ActivityStateMachine {
    /// Where a continuation attempt is.
    public enum State: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        /// An eligible advertisement arrived.
        case discovered
        /// The system shows the activity (dock, app switcher, lock screen).
        case offered
        /// The user picked it.
        case accepted
        /// The receiving app (or the browser) is launching; the payload is
        /// being fetched meanwhile.
        case launching
        /// `application(_:willContinueUserActivityWithType:)` was called;
        /// the fetch may still be under way.
        case willContinue
        /// `application(_:continue:restorationHandler:)` was called.
        case continued
        /// Objects handed to the restoration handler restored their state.
        case restored
        /// `application(_:didFailToContinueUserActivityWithType:error:)` was called.
        case failed
        /// The offer went away before the user picked it.
        case withdrawn
        /// The activity's `webpageURL` opened in the browser.
        case inBrowser

        /// The raw value.
        public var description: String { rawValue }

        /// Whether no event can follow.
        public var isTerminal: Bool {
            switch self {
            case .failed, .withdrawn, .inBrowser: return true
            case .discovered, .offered, .accepted, .launching, .willContinue, .continued, .restored: return false
            }
        }
    }

    /// What happens to a continuation attempt.
    public enum Event: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        /// The system decides to show it (or shows it again on a repeated
        /// advertisement).
        case offer
        /// The user picks it.
        case accept
        /// The system launches the app or the browser (and starts fetching).
        case launch
        /// The app is up and told a continuation is starting.
        case willContinue
        /// The app is up and the payload has arrived: the app continues the
        /// activity.
        case `continue`
        /// A restorable object restored its state.
        case restore
        /// The continuation failed with an error code.
        case fail
        /// The offer is taken back (the activity was invalidated, or a more
        /// recent one replaced it).
        case withdraw
        /// The browser opens the activity's `webpageURL`.
        case openInBrowser

        /// The raw value.
        public var description: String { rawValue }
    }

    /// The state `event` moves `state` to, or nil when the event is not allowed there.
    public static func transition(from state: State, on event: Event) -> State? {
        switch (state, event) {
        case (.discovered, .offer), (.offered, .offer): return .offered
        case (.discovered, .withdraw), (.offered, .withdraw): return .withdrawn
        case (.offered, .accept): return .accepted
        case (.accepted, .launch): return .launching
        case (.launching, .willContinue): return .willContinue
        case (.launching, .openInBrowser): return .inBrowser
        case (.willContinue, .fail): return .failed
        case (.willContinue, .continue): return .continued
        case (.continued, .restore), (.restored, .restore): return .restored
        // Every other pair is illegal, each written out, so that a new state
        // or event cannot compile until its row or column is decided.
        case (.discovered, .accept), (.discovered, .launch), (.discovered, .willContinue), (.discovered, .continue),
            (.discovered, .restore), (.discovered, .fail), (.discovered, .openInBrowser),
            (.offered, .launch), (.offered, .willContinue), (.offered, .continue), (.offered, .restore), (.offered, .fail),
            (.offered, .openInBrowser),
            (.accepted, .offer), (.accepted, .accept), (.accepted, .willContinue), (.accepted, .continue),
            (.accepted, .restore), (.accepted, .fail), (.accepted, .withdraw), (.accepted, .openInBrowser),
            (.launching, .offer), (.launching, .accept), (.launching, .launch), (.launching, .continue),
            (.launching, .restore), (.launching, .fail), (.launching, .withdraw),
            (.willContinue, .offer), (.willContinue, .accept), (.willContinue, .launch), (.willContinue, .willContinue),
            (.willContinue, .restore), (.willContinue, .withdraw), (.willContinue, .openInBrowser),
            (.continued, .offer), (.continued, .accept), (.continued, .launch), (.continued, .willContinue),
            (.continued, .continue), (.continued, .fail), (.continued, .withdraw), (.continued, .openInBrowser),
            (.restored, .offer), (.restored, .accept), (.restored, .launch), (.restored, .willContinue),
            (.restored, .continue), (.restored, .fail), (.restored, .withdraw), (.restored, .openInBrowser),
            (.failed, .offer), (.failed, .accept), (.failed, .launch), (.failed, .willContinue), (.failed, .continue),
            (.failed, .restore), (.failed, .fail), (.failed, .withdraw), (.failed, .openInBrowser),
            (.withdrawn, .offer), (.withdrawn, .accept), (.withdrawn, .launch), (.withdrawn, .willContinue),
            (.withdrawn, .continue), (.withdrawn, .restore), (.withdrawn, .fail), (.withdrawn, .withdraw),
            (.withdrawn, .openInBrowser),
            (.inBrowser, .offer), (.inBrowser, .accept), (.inBrowser, .launch), (.inBrowser, .willContinue),
            (.inBrowser, .continue), (.inBrowser, .restore), (.inBrowser, .fail), (.inBrowser, .withdraw),
            (.inBrowser, .openInBrowser):
            return nil
        }
    }
}

/// An event applied in a state where the machine does not allow it.
///
/// A violation fails the run: it is a bug in the app code driving the
/// simulation, or in the simulator itself.
public struct Violation: Hashable, Sendable, CustomStringConvertible {
    /// When it happened.
    public let time: SimInstant
    /// The device's name.
    public let device: String
    /// The activity (its type and title).
    public let activity: String
    /// What was attempted: an illegal step of a machine, or a change the
    /// app made to an activity it had invalidated.
    public let step: Step

    /// What a violation attempted.
    public enum Step: Hashable, Sendable {
        /// A step the machine does not allow from its state (`to` is nil).
        case transition(StateTransition)
        /// A change to an activity after `invalidate`.
        case changeAfterInvalidate(ActivityChange.Kind)
    }

    /// Which machine: `source` or `continuation`.
    public var machine: String {
        switch step {
        case let .transition(transition):
            if case .continuation = transition { return "continuation" }
            return "source"
        case .changeAfterInvalidate: return "source"
        }
    }

    /// The state the machine was in.
    public var state: String {
        switch step {
        case let .transition(.source(from, _, _)): return from.description
        case let .transition(.continuation(from, _, _)): return from.description
        case .changeAfterInvalidate: return SourceActivityMachine.State.invalidated.description
        }
    }

    /// The event that is illegal there.
    public var event: String {
        switch step {
        case let .transition(.source(_, event, _)): return event.description
        case let .transition(.continuation(_, event, _)): return event.description
        case let .changeAfterInvalidate(change): return TraceEvent.illegalChange(change).name.rawValue
        }
    }

    /// The violation in words: the machine, the state, the event and where.
    public var description: String {
        "illegal transition at \(time) on \(device): \(machine) activity \(activity) is \(state); \(event) is not "
            + "allowed there"
    }
}
