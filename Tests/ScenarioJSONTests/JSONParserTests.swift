import ScenarioJSON
import Testing

/// One document that must be rejected, with the exact message and position.
struct RejectedDocument: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]
    let message: String
    let line: Int
    let column: Int

    init(_ text: String, _ message: String, line: Int, column: Int) {
        self.init(bytes: Array(text.utf8), message, line: line, column: column)
    }

    init(bytes: [UInt8], _ message: String, line: Int, column: Int) {
        self.bytes = bytes
        self.message = message
        self.line = line
        self.column = column
    }

    var testDescription: String { "\(message) (\(bytes.count) bytes)" }
}

/// The error `JSONParser` throws for `bytes`, or nil when it parses.
func parseError(_ bytes: [UInt8]) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

/// A position on the first line of an ASCII document.
func firstLine(column: Int) -> SourcePosition {
    SourcePosition(line: 1, column: column, offset: column - 1)
}

// MARK: - Documents that parse

@Suite("JSON reader: values and positions")
struct JSONParserValueTests {
    @Test("scalars read as their values")
    func scalars() throws {
        #expect(try JSONParser.parse("null").value == .null)
        #expect(try JSONParser.parse("true").value == .bool(true))
        #expect(try JSONParser.parse(" false ").value == .bool(false))
        #expect(try JSONParser.parse("\"hi\"").value == .string("hi"))
        #expect(try JSONParser.parse("-12").value == .number(try #require(JSONNumber("-12"))))
        #expect(try JSONParser.parse("[]").value == .array([]))
        #expect(try JSONParser.parse("{}").value == .object([]))
        #expect(try JSONParser.parse("\t\n\r\n 7 \r").position == SourcePosition(line: 3, column: 2, offset: 5))
    }

    @Test("arrays and objects keep their children in document order, with positions")
    func containers() throws {
        let node = try JSONParser.parse(#"{"b": [1, "x", null], "a": {}}"#)
        let one = JSONNode(value: .number(try #require(JSONNumber("1"))), position: firstLine(column: 8))
        let x = JSONNode(value: .string("x"), position: firstLine(column: 11))
        let null = JSONNode(value: .null, position: firstLine(column: 16))
        let expected = JSONNode(
            value: .object([
                JSONMember(
                    key: "b", keyPosition: firstLine(column: 2),
                    value: JSONNode(value: .array([one, x, null]), position: firstLine(column: 7))),
                JSONMember(
                    key: "a", keyPosition: firstLine(column: 23),
                    value: JSONNode(value: .object([]), position: firstLine(column: 28))),
            ]),
            position: firstLine(column: 1))
        #expect(node == expected)
    }

    @Test("positions count lines after CRLF and columns in scalars after é and 😀")
    func positionsAcrossLinesAndMultibyteCharacters() throws {
        let text = "{\r\n  \"café\": [1, {\"😀\": true}],\r\n\t\"b\": null\r\n}"
        let root = try JSONParser.parse(text)
        #expect(root.position == SourcePosition(line: 1, column: 1, offset: 0))
        let cafe = try #require(root.member("café"))
        #expect(cafe.keyPosition == SourcePosition(line: 2, column: 3, offset: 5))
        #expect(cafe.value.position == SourcePosition(line: 2, column: 11, offset: 14))
        guard case .array(let elements) = cafe.value.value else {
            Issue.record("expected an array, found \(cafe.value.kindName)")
            return
        }
        #expect(elements[0].position == SourcePosition(line: 2, column: 12, offset: 15))
        #expect(elements[1].position == SourcePosition(line: 2, column: 15, offset: 18))
        let smile = try #require(elements[1].member("😀"))
        #expect(smile.keyPosition == SourcePosition(line: 2, column: 16, offset: 19))
        #expect(smile.value.position == SourcePosition(line: 2, column: 21, offset: 27))
        #expect(smile.value.value == .bool(true))
        let b = try #require(root.member("b"))
        #expect(b.keyPosition == SourcePosition(line: 3, column: 2, offset: 37))
        #expect(b.value.position == SourcePosition(line: 3, column: 7, offset: 42))
    }

    @Test("LF, CR and CRLF each end one line")
    func lineBreaks() throws {
        let node = try JSONParser.parse("[\n1,\r2,\r\n3,\n\r4]")
        guard case .array(let elements) = node.value else {
            Issue.record("expected an array")
            return
        }
        #expect(elements.map(\.position) == [
            SourcePosition(line: 2, column: 1, offset: 2),
            SourcePosition(line: 3, column: 1, offset: 5),
            SourcePosition(line: 4, column: 1, offset: 9),
            SourcePosition(line: 6, column: 1, offset: 13),
        ])
    }

    @Test("one leading byte order mark is skipped and not counted as a column")
    func byteOrderMark() throws {
        let node = try JSONParser.parse("\u{FEFF}{\"a\": 1}")
        #expect(node.position == SourcePosition(line: 1, column: 1, offset: 3))
        #expect(node.member("a")?.keyPosition == SourcePosition(line: 1, column: 2, offset: 4))
        #expect(node.member("a")?.value.position == SourcePosition(line: 1, column: 7, offset: 9))
    }

    @Test("string escapes decode, surrogate pairs combine, raw non-ASCII and DEL are kept")
    func stringEscapes() throws {
        let text = #""\"\\\/\b\f\n\r\t\u00e9\u00E9\uD83D\uDE00\ud83d\ude00\u0000 é😀\#u{7F}""#
        let node = try JSONParser.parse(text)
        #expect(node.value == .string("\"\\/\u{8}\u{C}\n\r\téé😀😀\u{0} é😀\u{7F}"))
    }

    @Test("object members keep duplicates in order; member(_:) finds the first")
    func duplicateKeys() throws {
        let node = try JSONParser.parse(#"{"a": 1, "b": 2, "a": 3}"#)
        guard case .object(let members) = node.value else {
            Issue.record("expected an object")
            return
        }
        #expect(members.map(\.key) == ["a", "b", "a"])
        #expect(members.map(\.keyPosition.column) == [2, 10, 18])
        #expect(node.member("a")?.value.value == .number(try #require(JSONNumber("1"))))
        #expect(node.member("a")?.keyPosition == firstLine(column: 2))
        #expect(node.member("c") == nil)
        #expect(try JSONParser.parse("[1]").member("a") == nil)
    }

    @Test("member(_:) compares keys by Unicode scalars, not canonical equivalence")
    func memberKeysCompareByScalars() throws {
        let node = try JSONParser.parse("{\"e\u{301}\": 1, \"\u{E9}\": 2}")
        #expect(node.member("\u{E9}")?.keyPosition.column == 11)
        #expect(node.member("e\u{301}")?.keyPosition.column == 2)
    }

    @Test("kind names read naturally in messages")
    func kindNames() throws {
        let kinds = try ["null", "true", "1", "\"s\"", "[]", "{}"].map { try JSONParser.parse($0).kindName }
        #expect(kinds == ["null", "a boolean", "a number", "a string", "an array", "an object"])
    }

    @Test("the String and byte entry points agree")
    func stringAndBytesAgree() throws {
        let text = "{\"é\": [1.5, \"😀\", {\"k\": null}]}\n"
        #expect(try JSONParser.parse(text) == JSONParser.parse(Array(text.utf8)))
    }

    @Test("256 levels of nesting are accepted")
    func deepestAcceptedNesting() throws {
        let depth = JSONParser.maximumDepth
        #expect(depth == 256)
        var node = try JSONParser.parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        var levels = 1
        while case .array(let children) = node.value, let child = children.first {
            node = child
            levels += 1
        }
        #expect(levels == depth)
        #expect(node.position == firstLine(column: depth))
        let objects = String(repeating: "{\"a\":", count: depth) + "0" + String(repeating: "}", count: depth)
        #expect(throws: Never.self) { try JSONParser.parse(objects) }
    }

    @Test("a large document parses with every element in place")
    func largeDocument() throws {
        var text = "[\n"
        let count = 20_000
        for index in 0..<count {
            text += "  {\"id\": \(index), \"name\": \"dévice-\(index) 😀\", \"x\": \(index).5, \"on\": \(index % 2 == 0)},\n"
        }
        text += "  null\n]\n"
        let node = try JSONParser.parse(text)
        guard case .array(let elements) = node.value else {
            Issue.record("expected an array")
            return
        }
        #expect(elements.count == count + 1)
        let last = elements[count - 1]
        #expect(last.position == SourcePosition(line: count + 1, column: 3, offset: last.position.offset))
        #expect(last.member("id")?.value.value == .number(try #require(JSONNumber("\(count - 1)"))))
        #expect(last.member("x")?.value.position.column == 48)
        #expect(elements[count].position.line == count + 2)
    }
}

// MARK: - Numbers

@Suite("JSON reader: numbers")
struct JSONNumberTests {
    @Test("every valid number form keeps its text and reads exactly", arguments: [
        ("0", true, Int64(0), 0.0),
        ("-0", true, 0, -0.0),
        ("7", true, 7, 7),
        ("-7", true, -7, -7),
        ("1234567890", true, 1_234_567_890, 1_234_567_890),
        ("9223372036854775807", true, Int64.max, 0x1p63),
        ("-9223372036854775808", true, Int64.min, -0x1p63),
        ("9223372036854775808", true, nil, 0x1p63),
        ("-9223372036854775809", true, nil, -0x1p63),
        ("123456789012345678901234567890", true, nil, 1.2345678901234568e29),
        ("0.5", false, nil, 0.5),
        ("-0.5", false, nil, -0.5),
        ("3.50", false, nil, 3.5),
        ("3.0", false, nil, 3),
        ("0.0", false, nil, 0),
        ("1e3", false, nil, 1000),
        ("1E3", false, nil, 1000),
        ("1e+3", false, nil, 1000),
        ("1e-3", false, nil, 0.001),
        ("1e05", false, nil, 100_000),
        ("-1.5E-10", false, nil, -1.5e-10),
        ("0e0", false, nil, 0),
        ("-0.0e-0", false, nil, -0.0),
        ("0.1", false, nil, 0.1),
        ("1.7976931348623157e308", false, nil, Double.greatestFiniteMagnitude),
        ("5e-324", false, nil, Double.leastNonzeroMagnitude),
        ("1e400", false, nil, Double.infinity),
        ("-1e400", false, nil, -Double.infinity),
        ("1e-400", false, nil, 0),
    ] as [(String, Bool, Int64?, Double)])
    func validNumbers(text: String, isInteger: Bool, int64Value: Int64?, doubleValue: Double) throws {
        let node = try JSONParser.parse("[\(text)]")
        guard case .array(let elements) = node.value, case .number(let number) = elements.first?.value else {
            Issue.record("expected an array holding a number")
            return
        }
        #expect(number.text == text)
        #expect(number.description == text)
        #expect(number.isInteger == isInteger)
        #expect(number.int64Value == int64Value)
        #expect(number.doubleValue == doubleValue)
        #expect(number.doubleValue.sign == doubleValue.sign)
        #expect(JSONNumber(text) == number)
        #expect(elements.first?.position == firstLine(column: 2))
    }

    @Test("JSONNumber(_:) accepts only JSON number literals", arguments: [
        "", " 1", "1 ", "01", "+1", ".5", "1.", "1e", "-", "NaN", "Infinity", "0x10", "1_000", "١",
    ])
    func rejectsNonNumbers(text: String) {
        #expect(JSONNumber(text) == nil)
    }

    @Test("numbers compare by their text")
    func numbersCompareByText() throws {
        #expect(JSONNumber("1.0") != JSONNumber("1"))
        #expect(try #require(JSONNumber("1.0")).doubleValue == 1)
    }
}

// MARK: - Documents that are rejected

@Suite("JSON reader: error messages and positions")
struct JSONParserErrorTests {
    static let escapes = #"use \" \\ \/ \b \f \n \r \t or \uXXXX"#

    @Test("each problem is reported verbatim at its line and column", arguments: [
        // Missing values and the end of the input.
        RejectedDocument("", "unexpected end of input; expected a value", line: 1, column: 1),
        RejectedDocument("  \n  ", "unexpected end of input; expected a value", line: 2, column: 3),
        RejectedDocument("\u{FEFF}", "unexpected end of input; expected a value", line: 1, column: 1),
        RejectedDocument("[", "unexpected end of input; expected a value", line: 1, column: 2),
        RejectedDocument("[1,", "unexpected end of input; expected a value", line: 1, column: 4),
        RejectedDocument("{\"a\":", "unexpected end of input; expected a value", line: 1, column: 6),
        RejectedDocument("{", "unexpected end of input; expected a key or '}'", line: 1, column: 2),
        RejectedDocument("{\"a\":1,", "unexpected end of input; expected a key", line: 1, column: 8),
        RejectedDocument("{\"a\"", "unexpected end of input; expected ':' after the key \"a\"", line: 1, column: 5),
        RejectedDocument("{\"a\":1", "unexpected end of input; expected ',' or '}' after an object member", line: 1, column: 7),
        RejectedDocument("[1\n", "unexpected end of input; expected ',' or ']' after an array element", line: 2, column: 1),
        // Unexpected characters where a value belongs.
        RejectedDocument("x", "unexpected 'x'; expected a value", line: 1, column: 1),
        RejectedDocument("[@]", "unexpected '@'; expected a value", line: 1, column: 2),
        RejectedDocument("]", "unexpected ']'; expected a value", line: 1, column: 1),
        RejectedDocument("[,1]", "unexpected ','; expected a value", line: 1, column: 2),
        RejectedDocument("{\"a\": }", "unexpected '}'; expected a value", line: 1, column: 7),
        RejectedDocument("[tru]", "unexpected 'tru'; expected a value", line: 1, column: 2),
        RejectedDocument("True", "unexpected 'True'; expected a value", line: 1, column: 1),
        RejectedDocument("nullx", "unexpected 'nullx'; expected a value", line: 1, column: 1),
        RejectedDocument("[\"é\", é]", "unexpected 'é' (U+00E9); expected a value", line: 1, column: 7),
        RejectedDocument("[\"😀\", x]", "unexpected 'x'; expected a value", line: 1, column: 7),
        RejectedDocument("[\u{A0}1]", "unexpected '\u{A0}' (U+00A0); expected a value", line: 1, column: 2),
        RejectedDocument("\u{B}1", "unexpected U+000B; expected a value", line: 1, column: 1),
        RejectedDocument("\u{FEFF}\u{FEFF}1", "unexpected '\u{FEFF}' (U+FEFF); expected a value", line: 1, column: 1),
        RejectedDocument("/", "unexpected '/'; expected a value", line: 1, column: 1),
        RejectedDocument(
            "[\"\(String(repeating: "x", count: 10))\", \(String(repeating: "y", count: 50))]",
            "unexpected '\(String(repeating: "y", count: 40))...'; expected a value", line: 1, column: 16),
        // Keys and colons.
        RejectedDocument("{,}", "unexpected ','; expected a key or '}'", line: 1, column: 2),
        RejectedDocument("{\"a\": 1, ]", "unexpected ']'; expected a key", line: 1, column: 10),
        RejectedDocument("{name: 1}", "object keys must be strings in double quotes", line: 1, column: 2),
        RejectedDocument("{\"a\": 1,\n 2: 1}", "object keys must be strings in double quotes", line: 2, column: 2),
        RejectedDocument("{\"name\" 1}", "expected ':' after the key \"name\"", line: 1, column: 9),
        RejectedDocument("{\"na\\\"me\"= 1}", "expected ':' after the key \"na\\\"me\"", line: 1, column: 10),
        RejectedDocument(
            "{\"\(String(repeating: "k", count: 45))\"}",
            "expected ':' after the key \"\(String(repeating: "k", count: 39))...", line: 1, column: 49),
        // Missing and trailing commas.
        RejectedDocument("{\"a\": 1 \"b\": 2}", "expected ',' or '}' after an object member", line: 1, column: 9),
        RejectedDocument("{\"a\": 1]", "expected ',' or '}' after an object member", line: 1, column: 8),
        RejectedDocument("[1 2]", "expected ',' or ']' after an array element", line: 1, column: 4),
        RejectedDocument("[1,2}", "expected ',' or ']' after an array element", line: 1, column: 5),
        RejectedDocument("[\r\n  1,\r\n  \"é\" x]", "expected ',' or ']' after an array element", line: 3, column: 7),
        RejectedDocument("[1, 2,]", "trailing comma before ']'", line: 1, column: 6),
        RejectedDocument("[1,\n]", "trailing comma before ']'", line: 1, column: 3),
        RejectedDocument("{\"a\": 1,}", "trailing comma before '}'", line: 1, column: 8),
        RejectedDocument("{\"a\": [1,],}", "trailing comma before ']'", line: 1, column: 9),
        // Comments.
        RejectedDocument("// settings\n{}", "comments are not allowed in JSON", line: 1, column: 1),
        RejectedDocument("{\"a\": 1 /* one */}", "comments are not allowed in JSON", line: 1, column: 9),
        RejectedDocument("{/* x */}", "comments are not allowed in JSON", line: 1, column: 2),
        RejectedDocument("{\"a\" // x\n: 1}", "comments are not allowed in JSON", line: 1, column: 6),
        RejectedDocument("[1, // x\n2]", "comments are not allowed in JSON", line: 1, column: 5),
        RejectedDocument("[1] // done", "comments are not allowed in JSON", line: 1, column: 5),
        // Single quotes.
        RejectedDocument("['a']", "strings use double quotes, not single quotes", line: 1, column: 2),
        RejectedDocument("{'a': 1}", "strings use double quotes, not single quotes", line: 1, column: 2),
        // Text after the value.
        RejectedDocument("1 2", "unexpected text after the JSON value", line: 1, column: 3),
        RejectedDocument("{}\n x", "unexpected text after the JSON value", line: 2, column: 2),
        RejectedDocument("[1]]", "unexpected text after the JSON value", line: 1, column: 4),
        RejectedDocument("\"a\"\"b\"", "unexpected text after the JSON value", line: 1, column: 4),
        // Strings.
        RejectedDocument("\"abc", "unterminated string", line: 1, column: 1),
        RejectedDocument("[\"é😀", "unterminated string", line: 1, column: 2),
        RejectedDocument("[\"ab\\", "unterminated string", line: 1, column: 2),
        RejectedDocument("\"\\u12", "unterminated string", line: 1, column: 1),
        RejectedDocument("\"a\nb\"", "control character U+000A in a string; write it as \\n", line: 1, column: 3),
        RejectedDocument("\"\r\"", "control character U+000D in a string; write it as \\r", line: 1, column: 2),
        RejectedDocument("\"é\t\"", "control character U+0009 in a string; write it as \\t", line: 1, column: 3),
        RejectedDocument("\"\u{8}\"", "control character U+0008 in a string; write it as \\b", line: 1, column: 2),
        RejectedDocument("\"\u{C}\"", "control character U+000C in a string; write it as \\f", line: 1, column: 2),
        RejectedDocument("\"\u{0}\"", "control character U+0000 in a string; write it as \\u0000", line: 1, column: 2),
        RejectedDocument("\"\u{1F}\"", "control character U+001F in a string; write it as \\u001f", line: 1, column: 2),
        RejectedDocument("\"\\x\"", "invalid escape '\\x' in a string; \(escapes)", line: 1, column: 2),
        RejectedDocument("\"\\U0041\"", "invalid escape '\\U' in a string; \(escapes)", line: 1, column: 2),
        RejectedDocument("\"😀\\é\"", "invalid escape in a string: '\\' followed by 'é' (U+00E9); \(escapes)", line: 1, column: 3),
        RejectedDocument("\"\\ \"", "invalid escape in a string: '\\' followed by U+0020; \(escapes)", line: 1, column: 2),
        RejectedDocument("\"\\u12G4\"", "invalid \\u escape: expected four hexadecimal digits", line: 1, column: 2),
        RejectedDocument("\"\\uD800\\u12\"", "invalid \\u escape: expected four hexadecimal digits", line: 1, column: 8),
        RejectedDocument("\"\\uD800\"", "unpaired surrogate \\uD800", line: 1, column: 2),
        RejectedDocument("\"x\\udbff\"", "unpaired surrogate \\uDBFF", line: 1, column: 3),
        RejectedDocument("\"\\uDC00\"", "unpaired surrogate \\uDC00", line: 1, column: 2),
        RejectedDocument("\"\\uD83D\\u0041\"", "unpaired surrogate \\uD83D", line: 1, column: 2),
        RejectedDocument("\"\\uD83D\\uD83D\\uDE00\"", "unpaired surrogate \\uD83D", line: 1, column: 2),
        RejectedDocument("\"\\uD83D\\n\"", "unpaired surrogate \\uD83D", line: 1, column: 2),
        RejectedDocument("\"\\uDE00\\uD83D\"", "unpaired surrogate \\uDE00", line: 1, column: 2),
        // Numbers.
        RejectedDocument("01", "invalid number \"01\": leading zeros are not allowed", line: 1, column: 1),
        RejectedDocument("[-007]", "invalid number \"-007\": leading zeros are not allowed", line: 1, column: 2),
        RejectedDocument("+1", "invalid number \"+1\": a leading '+' is not allowed", line: 1, column: 1),
        RejectedDocument(".5", "invalid number \".5\": a digit is required before the decimal point", line: 1, column: 1),
        RejectedDocument("-.5", "invalid number \"-.5\": a digit is required before the decimal point", line: 1, column: 1),
        RejectedDocument("[1.]", "invalid number \"1.\": expected a digit after the decimal point", line: 1, column: 2),
        RejectedDocument("1.e5", "invalid number \"1.e5\": expected a digit after the decimal point", line: 1, column: 1),
        RejectedDocument("1e", "invalid number \"1e\": expected a digit in the exponent", line: 1, column: 1),
        RejectedDocument("[1E+]", "invalid number \"1E+\": expected a digit in the exponent", line: 1, column: 2),
        RejectedDocument("-", "invalid number \"-\": expected a digit after '-'", line: 1, column: 1),
        RejectedDocument("[- 1]", "invalid number \"-\": expected a digit after '-'", line: 1, column: 2),
        RejectedDocument("-x", "invalid number \"-x\": expected a digit after '-'", line: 1, column: 1),
        RejectedDocument("1.2.3", "invalid number \"1.2.3\": unexpected '.' after \"1.2\"", line: 1, column: 1),
        RejectedDocument("0x1F", "invalid number \"0x1F\": unexpected 'x' after \"0\"", line: 1, column: 1),
        RejectedDocument("[1-2]", "invalid number \"1-2\": unexpected '-' after \"1\"", line: 1, column: 2),
        RejectedDocument("1e5e5", "invalid number \"1e5e5\": unexpected 'e' after \"1e5\"", line: 1, column: 1),
        RejectedDocument("NaN", "invalid number \"NaN\": NaN and Infinity are not allowed in JSON", line: 1, column: 1),
        RejectedDocument("[Infinity]", "invalid number \"Infinity\": NaN and Infinity are not allowed in JSON", line: 1, column: 2),
        RejectedDocument("-Infinity", "invalid number \"-Infinity\": NaN and Infinity are not allowed in JSON", line: 1, column: 1),
        RejectedDocument("+NaN", "invalid number \"+NaN\": NaN and Infinity are not allowed in JSON", line: 1, column: 1),
        // Nesting.
        RejectedDocument(String(repeating: "[", count: 257), "nesting deeper than 256 levels", line: 1, column: 257),
        RejectedDocument(
            "\n" + String(repeating: "{\"a\":", count: 300), "nesting deeper than 256 levels", line: 2, column: 1281),
        // Invalid UTF-8, wherever it is.
        RejectedDocument(bytes: [0xFF], "invalid UTF-8 (byte 0xFF)", line: 1, column: 1),
        RejectedDocument(bytes: [0x5B, 0x80, 0x5D], "invalid UTF-8 (byte 0x80)", line: 1, column: 2),
        RejectedDocument(bytes: [0x22, 0xC3, 0x28, 0x22], "invalid UTF-8 (byte 0xC3)", line: 1, column: 2),
        RejectedDocument(bytes: [0x22, 0xC0, 0xAF, 0x22], "invalid UTF-8 (byte 0xC0)", line: 1, column: 2),
        RejectedDocument(bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], "invalid UTF-8 (byte 0xE0)", line: 1, column: 2),
        RejectedDocument(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 (byte 0xED)", line: 1, column: 2),
        RejectedDocument(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 (byte 0xF4)", line: 1, column: 2),
        RejectedDocument(bytes: [0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], "invalid UTF-8 (byte 0xF0)", line: 1, column: 2),
        RejectedDocument(bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], "invalid UTF-8 (byte 0xF5)", line: 1, column: 2),
        RejectedDocument(bytes: [0x22, 0xC3, 0xA9, 0xE2, 0x82, 0x22], "invalid UTF-8 (byte 0xE2)", line: 1, column: 3),
        RejectedDocument(bytes: [0x22, 0xE2, 0x82], "invalid UTF-8 (byte 0xE2)", line: 1, column: 2),
        RejectedDocument(bytes: [0x0A, 0x7B, 0xE9, 0x7D], "invalid UTF-8 (byte 0xE9)", line: 2, column: 2),
        RejectedDocument(bytes: [0x7B, 0x22, 0x61, 0x22, 0xE9], "invalid UTF-8 (byte 0xE9)", line: 1, column: 5),
        RejectedDocument(bytes: [0x5B, 0x31, 0xE9], "invalid UTF-8 (byte 0xE9)", line: 1, column: 3),
        RejectedDocument(bytes: [0x7B, 0x7D, 0x20, 0xFE], "invalid UTF-8 (byte 0xFE)", line: 1, column: 4),
        RejectedDocument(bytes: [0x22, 0x5C, 0xE9, 0x22], "invalid UTF-8 (byte 0xE9)", line: 1, column: 3),
        RejectedDocument(bytes: [0xEF, 0xBB], "invalid UTF-8 (byte 0xEF)", line: 1, column: 1),
    ])
    func rejects(document: RejectedDocument) {
        let error = parseError(document.bytes)
        #expect(error?.message == document.message)
        #expect(error?.position.line == document.line)
        #expect(error?.position.column == document.column)
        #expect(error?.description == "line \(document.line), column \(document.column): \(document.message)")
    }

    @Test("error offsets are UTF-8 byte offsets")
    func errorOffsets() {
        let error = parseError(Array("\u{FEFF}[\"é😀\",\r\n x]".utf8))
        #expect(error == JSONSyntaxError(
            position: SourcePosition(line: 2, column: 2, offset: 16), message: "unexpected 'x'; expected a value"))
    }

    @Test("100,000 open brackets stop at level 257 without exhausting the stack")
    func hostileNesting() {
        let error = parseError([UInt8](repeating: UInt8(ascii: "["), count: 100_000))
        #expect(error == JSONSyntaxError(position: firstLine(column: 257), message: "nesting deeper than 256 levels"))
        let mixed = parseError(Array(String(repeating: "[{\"k\":", count: 50_000).utf8))
        #expect(mixed?.message == "nesting deeper than 256 levels")
        #expect(mixed?.position.column == 128 * 6 + 1)
    }

    @Test("the documentation examples say what happens")
    func documentationExamples() throws {
        #expect(parseError(Array("[1, 2,]".utf8))?.description == "line 1, column 6: trailing comma before ']'")
        #expect(parseError(Array("{\"a\": 1 \"b\": 2}".utf8))?.description
            == "line 1, column 9: expected ',' or '}' after an object member")
        let node = try JSONParser.parse("{\"name\": \"Mac\", \"x\": 2.5}")
        let name = try #require(node.member("name"))
        #expect(name.value.value == .string("Mac"))
        #expect("\(name.keyPosition) \(name.value.position)" == "line 1, column 2 line 1, column 10")
        #expect(SourcePosition(line: 3, column: 7, offset: 40).description == "line 3, column 7")
        #expect(JSONNumber("12")?.int64Value == 12)
        #expect(JSONNumber("3.50")?.int64Value == nil)
        #expect(JSONNumber("3.50")?.doubleValue == 3.5)
        #expect(JSONNumber("1e3")?.int64Value == nil)
        #expect(JSONNumber("01") == nil)
    }

    @Test("positions order by offset")
    func positionOrder() {
        let early = SourcePosition(line: 1, column: 9, offset: 8)
        let late = SourcePosition(line: 2, column: 1, offset: 10)
        #expect(early < late)
        #expect(!(late < early))
        #expect(late.description == "line 2, column 1")
    }
}
