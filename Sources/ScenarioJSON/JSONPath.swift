/// A JSON path: `$`, `$.devices[1].kind`, `$["odd key"]`.
package struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    private(set) var text = "$"

    /// The root, `$`.
    package init() {}

    /// The path of member `key` of the object here.
    package func key(_ key: String) -> JSONPath {
        var path = self
        let isIdentifier = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "$"
        } && !("0"..."9").contains(key.unicodeScalars.first!)
        if isIdentifier {
            path.text += "." + key
        } else {
            var escaped = ""
            for character in key {
                if character == "\\" || character == "\"" { escaped.append("\\") }
                escaped.append(character)
            }
            path.text += "[\"" + escaped + "\"]"
        }
        return path
    }

    /// The path of element `index` of the array here.
    package func index(_ index: Int) -> JSONPath {
        var path = self
        path.text += "[\(index)]"
        return path
    }

    /// The path as written: `$.devices[1].kind`.
    package var description: String { text }
}
