import SimKernel

/// What the packet path needs to know about a link, as plain values.
struct LinkFlags: Sendable {
    var usesDistance = false
    var hasOutages = false
    /// Whether the radios at both ends are on (for an internet link: its
    /// device has internet access), as of the latest settings change.
    var radiosUp = true
    /// Whether the link's state holds its default parameters, so that
    /// starting it again in a later trial need not copy them in.
    var stateHoldsDefaults = false

    init(_ parameters: LinkParameters, radiosUp: Bool) {
        if case .distance = parameters.loss { usesDistance = true }
        hasOutages = !parameters.outages.isEmpty
        self.radiosUp = radiosUp
    }
}

extension [TimeWindow] {
    /// Whether any window contains the instant `time` (in nanoseconds).
    func anyContains(_ time: Int64) -> Bool {
        let instant = SimInstant(nanosecondsSinceStart: time)
        for window in self where window.contains(instant) { return true }
        return false
    }
}
