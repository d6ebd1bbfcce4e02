// `--help`, generated from a command's spec and wrapped at 80 columns.

/// The help of every command, made from its ``CommandSpec``.
package enum Help {
    /// The width help text is wrapped to.
    package static let width = 80

    /// The widest label column: a longer argument or option label gets a
    /// line of its own, its help on the next.
    static let widestColumn = 26

    /// The help of the command at `path`: overview, usage, discussion,
    /// arguments, options, subcommands, notes and exit codes.
    package static func text(for path: CommandPath) -> String {
        let spec = path.spec
        var sections: [[String]] = []
        sections.append(wrap(spec.abstract, first: "OVERVIEW: ", rest: ""))
        let usage = usageLines(path)
        sections.append(usage.enumerated().flatMap { index, line in
            wrap(line, first: index == 0 ? "USAGE: " : "       ", rest: "         ")
        })
        if !spec.discussion.isEmpty { sections.append(paragraphs(spec.discussion)) }

        let subcommandLabels = spec.subcommands.map(\.name)
        let labels = spec.arguments.map(\.label) + spec.options.map(\.label) + subcommandLabels
        // Two spaces, the widest label that fits, two spaces.
        let column = 4 + (labels.map(\.count).filter { $0 + 4 <= widestColumn }.max() ?? 0)
        if !spec.arguments.isEmpty {
            sections.append(["ARGUMENTS:"] + spec.arguments.flatMap { row($0.label, $0.help, column: column) })
        }
        sections.append(["OPTIONS:"] + spec.options.flatMap { option in
            row(option.label, option.helpText, column: column)
        })
        if !spec.subcommands.isEmpty {
            sections.append([path.isRoot ? "COMMANDS:" : "SUBCOMMANDS:"] + spec.subcommands.flatMap {
                row($0.name, $0.abstract, column: column)
            })
            let see = path.isRoot
                ? "See '\(path.invocation) <command> --help' (or '\(path.invocation) help <command>') for a command's arguments, options and exit codes."
                : "See '\(path.invocation) <subcommand> --help' for a subcommand's arguments, options and exit codes."
            sections.append(wrap(see, first: "", rest: ""))
        }
        if !spec.notes.isEmpty { sections.append(paragraphs(spec.notes)) }
        sections.append(["EXIT CODES:"] + spec.exitCodes.flatMap {
            wrap($0.meaning, first: "  " + String($0.code.rawValue).padding(to: 4), rest: String(repeating: " ", count: 6))
        })
        return sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }

    /// The usage lines of the command at `path`, each starting with the
    /// tool's name: one for a command that runs, one per subcommand for a
    /// command that groups subcommands, and `<command> [options]` for the
    /// tool itself.
    package static func usageLines(_ path: CommandPath) -> [String] {
        let spec = path.spec
        if path.isRoot { return ["\(path.invocation) <command> [options]"] }
        if !spec.subcommands.isEmpty { return spec.subcommands.flatMap { usageLines(path.appending($0)) } }
        var words = [path.invocation] + spec.arguments.map(\.label)
        for option in spec.declaredOptions where option.isShownInUsage {
            words.append(option.label)
        }
        if spec.declaredOptions.contains(where: { !$0.isShownInUsage }) { words.append("[options]") }
        return [words.joined(separator: " ")]
    }

    /// A label and its help in two columns; the help starts at `column`,
    /// or on the next line when the label is too wide.
    static func row(_ label: String, _ help: String, column: Int) -> [String] {
        let indent = String(repeating: " ", count: column)
        let start = "  " + label
        if start.count + 2 <= column {
            return wrap(help, first: start.padding(to: column), rest: indent)
        }
        return [start] + wrap(help, first: indent, rest: indent)
    }

    /// `text`'s lines wrapped: a line that starts with spaces keeps them on
    /// every line it wraps to; an empty line stays empty.
    static func paragraphs(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line -> [String] in
            let indent = String(line.prefix { $0 == " " })
            return line.isEmpty ? [""] : wrap(String(line.dropFirst(indent.count)), first: indent, rest: indent)
        }
    }

    /// `text` wrapped at ``width`` columns between words, the first line
    /// after `first` and the others after `rest`. A word longer than a line
    /// is not broken.
    static func wrap(_ text: String, first: String, rest: String) -> [String] {
        var lines: [String] = []
        var line = first
        var lineHasWord = false
        for word in text.split(separator: " ") {
            if lineHasWord, line.count + 1 + word.count > width {
                lines.append(line)
                line = rest
                lineHasWord = false
            }
            line += (lineHasWord ? " " : "") + word
            lineHasWord = true
        }
        lines.append(line)
        return lines
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
