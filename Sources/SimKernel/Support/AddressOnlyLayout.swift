/// A stored property that makes the value holding it address-only, so that
/// borrowing the value (calling one of its non-mutating methods, reading it
/// through a class) passes its address instead of a copy of its bytes.
///
/// Swift passes a large *loadable* struct that it borrows from a variable
/// by copying the struct's bytes into a temporary first: for a model of a
/// few kilobytes, a `memcpy` of the whole model at every query, even when
/// the model is noncopyable. An address-only struct is always passed by
/// address. An existential of a protocol that is not class-bound is
/// address-only, and so is every struct that stores one, directly or in a
/// stored property of its own; this one holds the empty tuple in the
/// existential's inline buffer, so it allocates nothing.
///
/// Store one in a large model that is queried on a hot path (the world
/// does; whatever embeds the world inherits it).
package struct AddressOnlyLayout: Sendable {
    private let opaque: any Sendable = ()

    /// The marker.
    package init() {}
}
