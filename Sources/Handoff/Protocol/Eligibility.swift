/// Where an activity would go on a receiver, or the rule that blocks it
/// (see ``ReceiverRole/eligibility(of:on:at:core:)``).
enum Eligibility: Hashable, Sendable {
    /// Offered, to continue in this app or the browser.
    case eligible(ContinuationTarget)
    /// Kept from the receiver by this rule.
    case blocked(NotOfferedReason)
}
