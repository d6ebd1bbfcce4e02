// How an option's value is written: its placeholder in the help, what it
// must be, its choices, and the conversion from text that the parser runs.
import Foundation
import HandoffScenario

/// How the value of an option is written and read: the placeholder the
/// help shows (`N`), what a value must be (`a whole number from 1 to
/// 1024`), the choices, and the conversion from the text given.
///
/// A conversion that fails is a usage error (exit 64) naming the option,
/// what it expects and what it found:
/// `option '--jobs' expects a whole number from 1 to 1024, found '0'`.
package struct ValueSyntax<Element: Sendable>: Sendable {
    /// The value's name in the help and the usage line, e.g. `N`.
    package let placeholder: String
    /// What a value must be, e.g. `one of text, json`; the messages for a
    /// bad or missing value say it.
    package let expected: String?
    /// The values the option takes, as written, when they are a closed set
    /// (the help lists them).
    package let choices: [String]
    /// What the help calls the choices: `values`, or the part of a
    /// compound value they are the choices of (`metrics`).
    package let choicesLabel: String
    /// The text `value` is written as (for the default in the help).
    let describe: @Sendable (Element) -> String
    /// Reads the text given to the option named by the first argument.
    let convert: @Sendable (_ option: String, _ text: String) throws(UsageError) -> Element

    /// A syntax of its own: `convert` reads the text given to the option it
    /// names, and throws a usage error that says what it expected (see
    /// ``UsageError/badValue(_:expected:found:suggestion:)``).
    package init(
        _ placeholder: String, expected: String? = nil, choices: [String] = [], choicesLabel: String = "values",
        describe: @escaping @Sendable (Element) -> String = { "\($0)" },
        convert: @escaping @Sendable (_ option: String, _ text: String) throws(UsageError) -> Element
    ) {
        self.placeholder = placeholder
        self.expected = expected
        self.choices = choices
        self.choicesLabel = choicesLabel
        self.describe = describe
        self.convert = convert
    }
}

extension ValueSyntax where Element: FixedWidthInteger {
    /// A whole number in `range`, written in decimal.
    package static func integer(_ placeholder: String, in range: ClosedRange<Element>) -> ValueSyntax {
        let expected = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        return ValueSyntax(placeholder, expected: expected) { option, text throws(UsageError) in
            guard let value = Element(text), range.contains(value) else {
                throw .badValue(option, expected: expected, found: text)
            }
            return value
        }
    }
}

extension ValueSyntax where Element: CaseIterable & RawRepresentable<String> {
    /// One of `Element`'s cases, written as its raw value; the choices are
    /// `Element.allCases`, in their order.
    package static func choice(_ placeholder: String, of type: Element.Type = Element.self) -> ValueSyntax {
        let names = Element.allCases.map(\.rawValue)
        let expected = "one of " + names.joined(separator: ", ")
        return ValueSyntax(placeholder, expected: expected, choices: names, describe: \.rawValue) {
            option, text throws(UsageError) in
            guard let value = Element(rawValue: text) else {
                throw .badValue(option, expected: expected, found: text, suggestion: suggestion(for: text, among: names))
            }
            return value
        }
    }
}

extension ValueSyntax where Element == String {
    /// Any text: a name, or a path.
    package static func text(_ placeholder: String) -> ValueSyntax {
        ValueSyntax(placeholder) { _, text throws(UsageError) in text }
    }
}

extension ValueSyntax where Element == [String] {
    /// A comma-separated list, each item without the spaces around it.
    package static func list(_ placeholder: String = "LIST") -> ValueSyntax {
        ValueSyntax(placeholder, describe: { $0.joined(separator: ",") }) { _, text throws(UsageError) in
            listItems(text)
        }
    }
}

/// A comma-separated list, each item without the spaces around it.
func listItems(_ text: String) -> [String] {
    text.split(separator: ",", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
    }
}

extension UsageError {
    /// "option '--jobs' expects a whole number from 1 to 1024, found '0'",
    /// with a did-you-mean when `suggestion` is given.
    package static func badValue(
        _ option: String, expected: String, found text: String, suggestion: String? = nil
    ) -> UsageError {
        let close = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return UsageError(message: "option '\(option)' expects \(expected), found '\(text.escapingControlCharacters)'\(close)")
    }
}
