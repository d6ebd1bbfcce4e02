/// The notes app's editor: the note on screen and where the cursor is.
///
/// This is app code: it knows nothing of HandoffSim. Its Handoff glue is
/// what `NSUserActivity` needs: the activity type, the `userInfo` it
/// writes, and how it reads one back.
public final class NoteEditor {
    /// The activity type the app declares in `NSUserActivityTypes`.
    public static let activityType = "com.example.notes.editing"

    /// The note on screen, if any.
    public private(set) var noteID: String?
    /// Its text.
    public private(set) var text: String = ""
    /// The cursor's offset in the text.
    public private(set) var cursor: Int = 0

    /// An editor showing nothing.
    public init() {}

    /// Opens a note with the cursor at `cursor`.
    public func open(noteID: String, text: String, cursor: Int = 0) {
        self.noteID = noteID
        self.text = text
        self.cursor = min(max(cursor, 0), text.count)
    }

    /// The activity's `userInfo` for the note on screen: its identifier and
    /// the cursor, not the text (a few bytes, as Apple advises; the
    /// receiving device has the note through iCloud).
    public var userInfo: [String: Any] {
        guard let noteID else { return [:] }
        return ["noteID": noteID, "cursor": cursor]
    }

    /// Restores the state `userInfo` describes, reading the note's text
    /// from `store`. Returns false when the activity names no note the store
    /// has.
    @discardableResult
    public func restore(from userInfo: [String: Any], store: [String: String]) -> Bool {
        guard let noteID = userInfo["noteID"] as? String, let text = store[noteID] else { return false }
        open(noteID: noteID, text: text, cursor: (userInfo["cursor"] as? Int) ?? 0)
        return true
    }
}
