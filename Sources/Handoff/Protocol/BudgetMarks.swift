import SimKernel

/// The moments of one attempt's fetch and launch that its
/// ``LatencyBudget`` is cut at, kept as the attempt reaches them.
///
/// Unlike ``MilestoneTimes`` (first time reached, for latencies), each mark
/// is the latest: after Rapport gives up, the marks start again from the
/// fallback, so the budget follows the path that delivered the payload.
struct BudgetMarks {
    /// The app (or the browser) was launched.
    var launched: SimInstant?
    /// `willContinue` returned.
    var appReady: SimInstant?
    /// Rapport gave up and the fetch went over the cloud relay.
    var fellBack: SimInstant?
    var resolved: SimInstant?
    var connected: SimInstant?
    var verified: SimInstant?
    var requested: SimInstant?
    /// The request reached the source.
    var requestReceived: SimInstant?
    /// The source's update and save, then its encoding, after the request.
    var sourceUpdate = SimDuration.zero
    var encode = SimDuration.zero
    /// The payload (or the source's answer) left the source.
    var payloadSent: SimInstant?
    var payloadArrived: SimInstant?
    var decoded: SimInstant?
    /// The relay's delay on the request's way and on the payload's.
    var relayOnRequest = SimDuration.zero
    var relayOnPayload = SimDuration.zero

    /// Forgets the fetch's marks: Rapport gave up at `instant`.
    mutating func fallBack(at instant: SimInstant) {
        let launched = launched, appReady = appReady
        self = BudgetMarks()
        self.launched = launched
        self.appReady = appReady
        fellBack = instant
    }

    /// The budget of an attempt accepted at `accepted` that continued at
    /// `continued`: the phases of the later of the app's readiness and the
    /// payload's decode, which add up to `continued - accepted` exactly
    /// (each phase ends where the next begins; a moment out of order or
    /// missing gives its time to the next phase reached).
    func budget(accepted: SimInstant, continued: SimInstant) -> LatencyBudget {
        var cut = Cut(cursor: accepted, end: continued)
        let fetchLast = decoded.map { decoded in appReady.map { decoded > $0 } ?? true } ?? false
        if fetchLast {
            cut.advance(to: fellBack, as: .rapportGaveUp)
            cut.advance(to: resolved, as: .resolve)
            cut.advance(to: connected, as: .connect)
            cut.advance(to: verified, as: .pairVerify)
            cut.advance(to: requested, as: .systemInfo)
            cut.advance(to: requestReceived, as: .request, less: relayOnRequest)
            if let received = requestReceived, received == cut.cursor {
                cut.advance(to: received + sourceUpdate, as: .sourceUpdate)
                cut.advance(to: received + sourceUpdate + encode, as: .encode)
            }
            cut.advance(to: payloadSent, as: .encode)
            cut.advance(to: payloadArrived, as: .transfer, less: relayOnPayload)
            cut.advance(to: continued, as: .decode)
        } else {
            cut.advance(to: launched, as: .launch)
            cut.advance(to: continued, as: .willContinue)
        }
        return cut.budget
    }

    /// A budget being cut, phase after phase, from a cursor to an end.
    private struct Cut {
        var budget = LatencyBudget()
        var cursor: SimInstant
        let end: SimInstant

        /// Gives the time from the cursor to `instant` (at most the end) to
        /// `phase`, less `carved`, which goes to the relay's delay.
        mutating func advance(to instant: SimInstant?, as phase: LatencyBudget.Phase, less carved: SimDuration = .zero) {
            guard let instant, instant > cursor else { return }
            let next = min(instant, end)
            let span = next - cursor
            let carve = max(.zero, min(carved, span))
            budget[phase] += span - carve
            budget[.relay] += carve
            cursor = next
        }
    }
}
