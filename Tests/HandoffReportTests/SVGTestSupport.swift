#if canImport(FoundationXML)
import Foundation
import FoundationXML
#else
import Foundation
#endif

// XML, to read the charts back in tests.

/// An element read back from the SVG.
final class XMLElementNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLElementNode] = []
    /// The element's own character data.
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// This element and every element under it named `name`, in document
    /// order.
    func descendants(_ name: String) -> [XMLElementNode] {
        (self.name == name ? [self] : []) + children.flatMap { $0.descendants(name) }
    }

    /// This element and every element under it with one of `names`, in
    /// document order.
    func descendants(in names: Set<String>) -> [XMLElementNode] {
        (names.contains(name) ? [self] : []) + children.flatMap { $0.descendants(in: names) }
    }

    /// The character data of this element and everything under it.
    var allText: String { text + children.map(\.allText).joined() }
}

/// Builds the tree of elements as the parser reports them.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    var stack: [XMLElementNode] = []
    var root: XMLElementNode?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let element = XMLElementNode(name: elementName, attributes: attributes)
        stack.last?.children.append(element)
        if stack.isEmpty { root = element }
        stack.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.text += string
    }
}

/// The document element of `text`, or `nil` when it is not well-formed XML.
func parseXML(_ text: String) -> XMLElementNode? {
    let parser = XMLParser(data: Data(text.utf8))
    let builder = XMLTreeBuilder()
    parser.delegate = builder
    guard parser.parse() else { return nil }
    return builder.root
}

/// Whether `text` is a number as the chart prints it: an optional minus,
/// digits, and at most two decimals without a trailing zero; never `-0`.
func isPlainNumber(_ text: String) -> Bool {
    let unsigned = text.hasPrefix("-") ? String(text.dropFirst()) : text
    let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
    guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCII), whole.allSatisfy(\.isNumber),
        parts.count <= 2
    else { return false }
    if parts.count == 2 {
        let fraction = parts[1]
        guard (1...2).contains(fraction.count), fraction.allSatisfy(\.isNumber), fraction.allSatisfy(\.isASCII),
            fraction.last != "0"
        else { return false }
    }
    return !(text.hasPrefix("-") && Double(unsigned) == 0)
}

/// The points of a path's `d` (`M x,y L x,y …`).
func pathPoints(_ path: XMLElementNode) -> [(x: Double, y: Double)] {
    let d = path.attributes["d"] ?? ""
    return d.split(whereSeparator: { $0 == "M" || $0 == "L" || $0 == " " || $0 == "Z" }).compactMap { pair in
        let parts = pair.split(separator: ",")
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else { return nil }
        return (x, y)
    }
}
