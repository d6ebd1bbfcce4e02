/// The state of one parse: the input, the read index, the line bookkeeping
/// for positions, and the containers under construction.
///
/// Iterative, not recursive: open containers are kept in `frames`, and their
/// finished elements and members on two shared stacks, so the depth of the
/// input never reaches the call stack.
struct JSONReader {
    /// An array or object that has been opened and not yet closed.
    struct Frame {
        /// Whether this is an object (else an array).
        let isObject: Bool
        /// Where the opening bracket is.
        let position: SourcePosition
        /// Where this container's finished children start on `elements` or
        /// `members`.
        let firstChild: Int
        /// For an object, the key whose value is being read.
        var key = ""
        /// For an object, where that key is.
        var keyPosition: SourcePosition
    }

    let bytes: [UInt8]
    /// The next byte to read.
    var index = 0
    /// The current line (1-based).
    var line = 1
    /// The offset of the current line's first byte.
    var lineStart = 0
    /// UTF-8 continuation bytes read on the current line, so that
    /// `index - lineStart - lineContinuationBytes` counts scalars.
    var lineContinuationBytes = 0

    var frames: [Frame] = []
    var elements: [JSONNode] = []
    var members: [JSONMember] = []
    /// Reused buffer for strings with escapes.
    var scratch: [UInt8] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - Positions and errors

    /// The position of `offset`.
    ///
    /// Valid only for an offset on the current line with no multi-byte
    /// character between it and `index` (so: `index` itself, or a few ASCII
    /// bytes back). Positions needed later, such as a string's opening quote
    /// or a comma, are taken when they are read.
    func position(_ offset: Int) -> SourcePosition {
        SourcePosition(line: line, column: offset - lineStart - lineContinuationBytes + 1, offset: offset)
    }

    func error(at offset: Int, _ message: String) -> JSONSyntaxError {
        JSONSyntaxError(position: position(offset), message: message)
    }

    var atEnd: Bool { index >= bytes.count }

    /// Whether a `//` or `/*` comment starts at `index`.
    var atComment: Bool {
        index + 1 < bytes.count && bytes[index] == .slash
            && (bytes[index + 1] == .slash || bytes[index + 1] == .asterisk)
    }

    /// The error for the character at `index` (or the end of the input) where
    /// `expected` was required: "unexpected 'x'; expected a value".
    func unexpected(_ expected: String) -> JSONSyntaxError {
        if atEnd { return error(at: index, "unexpected end of input; expected \(expected)") }
        if atComment { return error(at: index, "comments are not allowed in JSON") }
        switch describeCharacter(at: index) {
        case .success(let shown): return error(at: index, "unexpected \(shown); expected \(expected)")
        case .failure(let invalid): return invalid
        }
    }

    /// The error for a missing piece of punctuation at `index`:
    /// "expected ',' or ']' after an array element".
    func missing(_ expected: String) -> JSONSyntaxError {
        if atEnd { return error(at: index, "unexpected end of input; expected \(expected)") }
        if atComment { return error(at: index, "comments are not allowed in JSON") }
        if case .failure(let invalid) = describeCharacter(at: index) { return invalid }
        return error(at: index, "expected \(expected)")
    }

    /// The character at `offset` as shown in messages: 'x' for printable
    /// ASCII, U+000B for other ASCII, 'é' (U+00E9) for anything else; or the
    /// invalid UTF-8 error.
    func describeCharacter(at offset: Int) -> Result<String, JSONSyntaxError> {
        let byte = bytes[offset]
        if byte > 0x20 && byte < 0x7F { return .success("'\(Character(Unicode.Scalar(byte)))'") }
        if byte < 0x80 { return .success(Self.codePoint(UInt32(byte))) }
        guard let (value, _) = decodeScalar(at: offset), let scalar = Unicode.Scalar(value) else {
            return .failure(invalidUTF8(at: offset))
        }
        return .success("'\(Character(scalar))' (\(Self.codePoint(value)))")
    }

    func invalidUTF8(at offset: Int) -> JSONSyntaxError {
        error(at: offset, "invalid UTF-8 (byte \(Self.hex(UInt32(bytes[offset]), digits: 2, prefix: "0x")))")
    }

    /// "U+00E9".
    static func codePoint(_ value: UInt32) -> String {
        hex(value, digits: 4, prefix: "U+")
    }

    /// Upper-case hexadecimal, zero-padded to at least `digits`.
    static func hex(_ value: UInt32, digits: Int, prefix: String) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return prefix + String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// A token or key for a message, cut to 40 scalars.
    static func shortened(_ text: String) -> String {
        let limit = 40
        let scalars = text.unicodeScalars
        guard scalars.count > limit else { return text }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars.prefix(limit))
        return String(result) + "..."
    }

    // MARK: - Whitespace

    /// Skips spaces, tabs and line breaks (LF, CR, CRLF), counting lines.
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case .space, .tab:
                index += 1
            case .lineFeed:
                index += 1
                startLine()
            case .carriageReturn:
                index += 1
                if index < bytes.count && bytes[index] == .lineFeed { index += 1 }
                startLine()
            default:
                return
            }
        }
    }

    mutating func startLine() {
        line += 1
        lineStart = index
        lineContinuationBytes = 0
    }

    // MARK: - The document

    mutating func readDocument() throws(JSONSyntaxError) -> JSONNode {
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            index = 3
            lineStart = 3
        }
        readValues: while true {
            skipWhitespace()
            let start = index
            guard start < bytes.count else { throw unexpected("a value") }
            var finished: JSONNode
            switch bytes[start] {
            case .openBrace:
                try open(isObject: true)
                skipWhitespace()
                if !atEnd && bytes[index] == .closeBrace {
                    index += 1
                    finished = close()
                } else {
                    try readKey(afterComma: false)
                    continue readValues
                }
            case .openBracket:
                try open(isObject: false)
                skipWhitespace()
                if !atEnd && bytes[index] == .closeBracket {
                    index += 1
                    finished = close()
                } else {
                    continue readValues
                }
            case .quote:
                let position = position(start)
                finished = JSONNode(value: .string(try readString()), position: position)
            case .minus, .plus, .period, .digitZero ... .digitNine:
                finished = JSONNode(value: .number(try readNumber()), position: position(start))
            case .lowerA ... .lowerZ, .upperA ... .upperZ, .underscore:
                finished = JSONNode(value: try readWord(), position: position(start))
            case .apostrophe:
                throw error(at: start, "strings use double quotes, not single quotes")
            default:
                throw unexpected("a value")
            }

            // Hand the finished value to its container, closing containers
            // for as long as their closing bracket follows.
            while true {
                guard let frame = frames.last else {
                    skipWhitespace()
                    guard atEnd else {
                        if atComment { throw error(at: index, "comments are not allowed in JSON") }
                        if case .failure(let invalid) = describeCharacter(at: index) { throw invalid }
                        throw error(at: index, "unexpected text after the JSON value")
                    }
                    return finished
                }
                if frame.isObject {
                    members.append(JSONMember(key: frame.key, keyPosition: frame.keyPosition, value: finished))
                } else {
                    elements.append(finished)
                }
                skipWhitespace()
                let closer: UInt8 = frame.isObject ? .closeBrace : .closeBracket
                if !atEnd && bytes[index] == .comma {
                    let comma = position(index)
                    index += 1
                    skipWhitespace()
                    if !atEnd && bytes[index] == closer {
                        throw JSONSyntaxError(
                            position: comma,
                            message: frame.isObject ? "trailing comma before '}'" : "trailing comma before ']'")
                    }
                    if frame.isObject { try readKey(afterComma: true) }
                    continue readValues
                } else if !atEnd && bytes[index] == closer {
                    index += 1
                    finished = close()
                } else {
                    throw missing(frame.isObject ? "',' or '}' after an object member" : "',' or ']' after an array element")
                }
            }
        }
    }

    /// Opens the container whose bracket is at `index`.
    mutating func open(isObject: Bool) throws(JSONSyntaxError) {
        guard frames.count < JSONParser.maximumDepth else {
            throw error(at: index, "nesting deeper than \(JSONParser.maximumDepth) levels")
        }
        let position = position(index)
        frames.append(Frame(
            isObject: isObject, position: position,
            firstChild: isObject ? members.count : elements.count, keyPosition: position))
        index += 1
    }

    /// Closes the innermost container (its closing bracket has been read).
    mutating func close() -> JSONNode {
        let frame = frames.removeLast()
        if frame.isObject {
            let children = Array(members[frame.firstChild...])
            members.removeSubrange(frame.firstChild...)
            return JSONNode(value: .object(children), position: frame.position)
        } else {
            let children = Array(elements[frame.firstChild...])
            elements.removeSubrange(frame.firstChild...)
            return JSONNode(value: .array(children), position: frame.position)
        }
    }

    /// Reads a key and its colon into the innermost frame (an object).
    mutating func readKey(afterComma: Bool) throws(JSONSyntaxError) {
        skipWhitespace()
        guard !atEnd else { throw unexpected(afterComma ? "a key" : "a key or '}'") }
        let start = index
        switch bytes[start] {
        case .quote:
            break
        case .apostrophe:
            throw error(at: start, "strings use double quotes, not single quotes")
        case .lowerA ... .lowerZ, .upperA ... .upperZ, .digitZero ... .digitNine, .underscore, .dollar:
            throw error(at: start, "object keys must be strings in double quotes")
        default:
            throw unexpected(afterComma ? "a key" : "a key or '}'")
        }
        let keyPosition = position(start)
        let key = try readString()
        skipWhitespace()
        guard !atEnd && bytes[index] == .colon else {
            throw missing("':' after the key \(Self.shortened(JSONWriter.quoted(key)))")
        }
        index += 1
        frames[frames.count - 1].key = key
        frames[frames.count - 1].keyPosition = keyPosition
    }

    // MARK: - Literals and numbers

    /// The end of the run of letters, digits and `_ + - .` starting at `start`.
    func tokenEnd(from start: Int) -> Int {
        var end = start
        while end < bytes.count {
            switch bytes[end] {
            case .lowerA ... .lowerZ, .upperA ... .upperZ, .digitZero ... .digitNine, .underscore, .plus, .minus, .period:
                end += 1
            default:
                return end
            }
        }
        return end
    }

    /// Reads `true`, `false` or `null`.
    mutating func readWord() throws(JSONSyntaxError) -> JSONNode.Value {
        let start = index
        let end = tokenEnd(from: start)
        let token = bytes[start..<end]
        let value: JSONNode.Value
        if token.elementsEqual("true".utf8) {
            value = .bool(true)
        } else if token.elementsEqual("false".utf8) {
            value = .bool(false)
        } else if token.elementsEqual("null".utf8) {
            value = .null
        } else {
            let text = Self.shortened(String(decoding: token, as: UTF8.self))
            if token.elementsEqual("NaN".utf8) || token.elementsEqual("Infinity".utf8) {
                throw error(at: start, "invalid number \"\(text)\": NaN and Infinity are not allowed in JSON")
            }
            throw error(at: start, "unexpected '\(text)'; expected a value")
        }
        index = end
        return value
    }

    /// Reads a number (the token starts with a digit, '-', '+' or '.').
    mutating func readNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = index
        let end = tokenEnd(from: start)
        let token = bytes[start..<end]
        let text = String(decoding: token, as: UTF8.self)
        if let problem = JSONNumber.problem(in: token) {
            throw error(at: start, "invalid number \"\(Self.shortened(text))\": \(problem)")
        }
        index = end
        return JSONNumber(validatedText: text)
    }

    // MARK: - Strings

    /// Reads a string whose opening quote is at `index`.
    mutating func readString() throws(JSONSyntaxError) -> String {
        let quote = position(index)
        index += 1
        var segmentStart = index
        var escaped = false
        while true {
            guard index < bytes.count else { throw JSONSyntaxError(position: quote, message: "unterminated string") }
            let byte = bytes[index]
            if byte == .quote {
                let result: String
                if escaped {
                    scratch.append(contentsOf: bytes[segmentStart..<index])
                    result = String(decoding: scratch, as: UTF8.self)
                } else {
                    result = String(decoding: bytes[segmentStart..<index], as: UTF8.self)
                }
                index += 1
                return result
            } else if byte == .backslash {
                if !escaped {
                    scratch.removeAll(keepingCapacity: true)
                    escaped = true
                }
                scratch.append(contentsOf: bytes[segmentStart..<index])
                try readEscape(quote: quote)
                segmentStart = index
            } else if byte < 0x20 {
                throw error(at: index, "control character \(Self.codePoint(UInt32(byte))) in a string; write it as \(JSONWriter.escape(forControl: byte))")
            } else if byte < 0x80 {
                index += 1
            } else {
                guard let (_, length) = decodeScalar(at: index) else { throw invalidUTF8(at: index) }
                index += length
                lineContinuationBytes += length - 1
            }
        }
    }

    /// Reads the escape whose backslash is at `index` onto `scratch`.
    mutating func readEscape(quote: SourcePosition) throws(JSONSyntaxError) {
        let backslash = index
        guard backslash + 1 < bytes.count else { throw JSONSyntaxError(position: quote, message: "unterminated string") }
        let decoded: UInt8
        switch bytes[backslash + 1] {
        case .quote: decoded = .quote
        case .backslash: decoded = .backslash
        case .slash: decoded = .slash
        case .lowerB: decoded = 0x08
        case .lowerF: decoded = 0x0C
        case .lowerN: decoded = .lineFeed
        case .lowerR: decoded = .carriageReturn
        case .lowerT: decoded = .tab
        case .lowerU:
            try readUnicodeEscape(quote: quote)
            return
        default:
            let escapes = "use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"
            let next = bytes[backslash + 1]
            if next > 0x20 && next < 0x7F {
                throw error(at: backslash, "invalid escape '\\\(Character(Unicode.Scalar(next)))' in a string; \(escapes)")
            }
            switch describeCharacter(at: backslash + 1) {
            case .success(let shown):
                throw error(at: backslash, "invalid escape in a string: '\\' followed by \(shown); \(escapes)")
            case .failure(let invalid):
                throw invalid
            }
        }
        scratch.append(decoded)
        index += 2
    }

    /// Reads a `\uXXXX` escape (and the low half of a surrogate pair) onto
    /// `scratch`.
    mutating func readUnicodeEscape(quote: SourcePosition) throws(JSONSyntaxError) {
        let first = index
        let value = try hexQuad(escapeAt: first, quote: quote)
        index += 6
        var scalarValue = value
        if value >= 0xD800 && value <= 0xDBFF {
            let second = index
            guard second + 1 < bytes.count, bytes[second] == .backslash, bytes[second + 1] == .lowerU else {
                throw error(at: first, "unpaired surrogate \\u\(Self.hex(value, digits: 4, prefix: ""))")
            }
            let low = try hexQuad(escapeAt: second, quote: quote)
            guard low >= 0xDC00 && low <= 0xDFFF else {
                throw error(at: first, "unpaired surrogate \\u\(Self.hex(value, digits: 4, prefix: ""))")
            }
            index += 6
            scalarValue = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        } else if value >= 0xDC00 && value <= 0xDFFF {
            throw error(at: first, "unpaired surrogate \\u\(Self.hex(value, digits: 4, prefix: ""))")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw error(at: first, "unpaired surrogate \\u\(Self.hex(value, digits: 4, prefix: ""))")  // unreachable
        }
        scratch.append(contentsOf: String(scalar).utf8)
    }

    /// The four hexadecimal digits after the `\u` at `escape`.
    func hexQuad(escapeAt escape: Int, quote: SourcePosition) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for offset in escape + 2 ..< escape + 6 {
            guard offset < bytes.count else { throw JSONSyntaxError(position: quote, message: "unterminated string") }
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case .digitZero ... .digitNine: digit = byte - .digitZero
            case .lowerA ... .lowerF: digit = byte - .lowerA + 10
            case .upperA ... .upperF: digit = byte - .upperA + 10
            default: throw error(at: escape, "invalid \\u escape: expected four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// The scalar value and length of the UTF-8 sequence at `offset`, or nil
    /// when it is not valid UTF-8 (overlong forms, surrogates, values above
    /// U+10FFFF, stray or missing continuation bytes).
    func decodeScalar(at offset: Int) -> (value: UInt32, length: Int)? {
        let lead = bytes[offset]
        if lead < 0x80 { return (UInt32(lead), 1) }
        let length: Int
        var value: UInt32
        var lowest: UInt8 = 0x80, highest: UInt8 = 0xBF
        switch lead {
        case 0xC2 ... 0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0: length = 3; value = UInt32(lead & 0x0F); lowest = 0xA0
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xED: length = 3; value = UInt32(lead & 0x0F); highest = 0x9F
        case 0xF0: length = 4; value = UInt32(lead & 0x07); lowest = 0x90
        case 0xF1 ... 0xF3: length = 4; value = UInt32(lead & 0x07)
        case 0xF4: length = 4; value = UInt32(lead & 0x07); highest = 0x8F
        default: return nil
        }
        guard offset + length <= bytes.count else { return nil }
        let second = bytes[offset + 1]
        guard second >= lowest && second <= highest else { return nil }
        value = value << 6 | UInt32(second & 0x3F)
        for continuation in offset + 2 ..< offset + length {
            let byte = bytes[continuation]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return (value, length)
    }
}

extension UInt8 {
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let dollar = UInt8(ascii: "$")
    static let apostrophe = UInt8(ascii: "'")
    static let asterisk = UInt8(ascii: "*")
    static let plus = UInt8(ascii: "+")
    static let comma = UInt8(ascii: ",")
    static let minus = UInt8(ascii: "-")
    static let period = UInt8(ascii: ".")
    static let slash = UInt8(ascii: "/")
    static let digitZero = UInt8(ascii: "0")
    static let digitNine = UInt8(ascii: "9")
    static let colon = UInt8(ascii: ":")
    static let upperA = UInt8(ascii: "A")
    static let upperF = UInt8(ascii: "F")
    static let upperZ = UInt8(ascii: "Z")
    static let openBracket = UInt8(ascii: "[")
    static let backslash = UInt8(ascii: "\\")
    static let closeBracket = UInt8(ascii: "]")
    static let underscore = UInt8(ascii: "_")
    static let lowerA = UInt8(ascii: "a")
    static let lowerB = UInt8(ascii: "b")
    static let lowerF = UInt8(ascii: "f")
    static let lowerN = UInt8(ascii: "n")
    static let lowerR = UInt8(ascii: "r")
    static let lowerT = UInt8(ascii: "t")
    static let lowerU = UInt8(ascii: "u")
    static let lowerZ = UInt8(ascii: "z")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
}
