#!/usr/bin/env python3
"""Checks that every `default:` arm of a `switch` in Sources/ is a permitted one.

Usage: check-default-arms.py [--list] [REPO]

A `default:` arm in a switch over one of the project's own enums lets a newly
added case compile and silently take the default's path. Such switches list
their cases instead. The `default:` arms that remain switch over values with
no closed set of cases (Unicode scalars, characters, strings, integers), over
enums the project does not own (Optional, Result of foreign types, ...) or
over dynamic types; each is listed in Tests/Lint/default-arms.txt as

    FILE | SWITCH SUBJECT | REASON

where FILE is relative to the repository, SWITCH SUBJECT is the text between
`switch` and its `{` with runs of white space made one space, and REASON is
one word (see REASONS below). A file and subject with several `default:` arms
takes one line per arm. No line numbers: edits elsewhere in a file do not
touch the list.

The check reads Swift source without type information: it finds each
`default:` that is a switch arm (not a `default:` argument label such as
`dictionary[key, default: 0]`), outside comments and string literals, and
the `switch` whose braces hold it. It fails (exit 1) when an arm is not in
the list, or when a line of the list names an arm that is no longer there
(delete the line); it passes (exit 0) otherwise. `--list` prints every arm
found, in the list's format with `?` for the reason, and exits 0.

Standard library only; Python 3.8 or later.
"""
import os
import re
import sys
from collections import Counter

# The one-word reasons an arm may have.
REASONS = {
    "scalar": "a Unicode scalar",
    "character": "a Character",
    "string": "a String",
    "integer": "an integer (bytes, codes, counts, file modes)",
    "foreign-enum": "an enum the project does not own, such as Optional or Result of foreign types",
    "type-cast": "`case let x as T` patterns over a dynamic type",
    "pending": "an own enum in a file being changed elsewhere; to be written out, then deleted from the list",
}

ALLOW_LIST = os.path.join("Tests", "Lint", "default-arms.txt")


def blank_literals(text):
    """`text` with comments and string literals replaced by spaces (newlines
    kept), so that braces and keywords inside them are not seen."""
    out = list(text)
    n = len(text)
    i = 0
    # A stack of the string literals we are inside (an interpolation's code
    # can open another): each entry is (closing delimiter, hashes, multiline,
    # the depth of parentheses when its interpolation started or None).
    stack = []
    paren_depth = 0

    def blank(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if stack and stack[-1][3] is None:
            # Inside a string literal's text.
            _, hashes, multiline, _ = stack[-1]
            closing = ('"""' if multiline else '"') + "#" * hashes
            if text.startswith("\\" + "#" * hashes + "(", i):
                # An interpolation: code until its parenthesis closes.
                length = 2 + hashes
                blank(i, i + length)
                i += length
                paren_depth += 1
                stack[-1] = (stack[-1][0], hashes, multiline, paren_depth)
                continue
            if text.startswith("\\" + "#" * hashes, i):
                # An escape: skip the backslash and the character after it.
                length = 1 + hashes + 1
                blank(i, min(i + length, n))
                i += length
                continue
            if text.startswith(closing, i):
                blank(i, i + len(closing))
                i += len(closing)
                stack.pop()
                continue
            blank(i, i + 1)
            i += 1
            continue
        # In code (top level or inside an interpolation).
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
            continue
        if text.startswith("/*", i):
            depth = 0
            j = i
            while j < n:
                if text.startswith("/*", j):
                    depth += 1
                    j += 2
                elif text.startswith("*/", j):
                    depth -= 1
                    j += 2
                    if depth == 0:
                        break
                else:
                    j += 1
            blank(i, j)
            i = j
            continue
        match = re.match(r'(#*)("""|")', text[i:i + 64])
        if match and (match.group(1) or text[i] == '"'):
            hashes = len(match.group(1))
            multiline = match.group(2) == '"""'
            length = hashes + len(match.group(2))
            blank(i, i + length)
            i += length
            stack.append(('"', hashes, multiline, None))
            continue
        if stack:
            if text[i] == "(":
                paren_depth += 1
            elif text[i] == ")":
                if paren_depth == stack[-1][3]:
                    # The interpolation ends: back to the string's text.
                    paren_depth -= 1
                    blank(i, i + 1)
                    stack[-1] = (stack[-1][0], stack[-1][1], stack[-1][2], None)
                    i += 1
                    continue
                paren_depth -= 1
            # Code inside an interpolation is blanked as part of the string.
            blank(i, i + 1)
        i += 1
    return "".join(out)


DEFAULT_ARM = re.compile(r"(?<![\w.$])default\s*:")
SWITCH = re.compile(r"\bswitch\b")


def default_arms(path, text):
    """Each `default:` switch arm of `text`: (line, switch subject)."""
    code = blank_literals(text)
    arms = []
    for match in DEFAULT_ARM.finditer(code):
        start = match.start()
        before = code[:start].rstrip()
        # An argument label (`f(x, default: 1)`, `d[k, default: 0]`) follows
        # a comma or an opening bracket; an arm follows a statement, a brace,
        # or `@unknown`.
        if before and before[-1] in ",([":
            continue
        # The brace that opens the block holding the arm.
        depth = 0
        position = start - 1
        while position >= 0:
            character = code[position]
            if character == "}":
                depth += 1
            elif character == "{":
                if depth == 0:
                    break
                depth -= 1
            position -= 1
        line = code.count("\n", 0, start) + 1
        if position < 0:
            raise SystemExit(f"{path}:{line}: a default: outside any braces")
        # The `switch` whose subject ends at that brace.
        head = code[:position]
        statement_start = max(head.rfind(";"), head.rfind("{"), head.rfind("}")) + 1
        switches = list(SWITCH.finditer(head, statement_start))
        if not switches:
            raise SystemExit(f"{path}:{line}: a default: whose block does not open with a switch")
        subject = " ".join(head[switches[-1].end():].split())
        arms.append((line, subject))
    return arms


def scan(root):
    """Every `default:` arm under Sources/: {(file, subject): [lines]}."""
    found = {}
    sources = os.path.join(root, "Sources")
    for directory, subdirectories, files in os.walk(sources):
        subdirectories.sort()
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            for line, subject in default_arms(relative, text):
                found.setdefault((relative, subject), []).append(line)
    return found


def read_allow_list(root):
    """The permitted arms: a Counter of (file, subject), and the problems of
    the list itself."""
    allowed = Counter()
    problems = []
    path = ALLOW_LIST
    with open(os.path.join(root, ALLOW_LIST), encoding="utf-8") as handle:
        for number, raw in enumerate(handle, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            fields = [field.strip() for field in line.split(" | ")]
            if len(fields) < 3:
                problems.append(f"{path}:{number}: expected 'FILE | SWITCH SUBJECT | REASON', found: {line}")
                continue
            file, subject, reason = fields[0], " ".join(" | ".join(fields[1:-1]).split()), fields[-1]
            if reason not in REASONS:
                problems.append(
                    f"{path}:{number}: unknown reason '{reason}'; expected one of {', '.join(sorted(REASONS))}")
                continue
            allowed[(file, subject)] += 1
    return allowed, problems


def main(arguments):
    listing = "--list" in arguments
    positional = [argument for argument in arguments if argument != "--list"]
    root = positional[0] if positional else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    root = os.path.normpath(root)
    found = scan(root)
    if listing:
        for (file, subject), lines in sorted(found.items()):
            for _ in lines:
                print(f"{file} | {subject} | ?")
        return 0
    allowed, problems = read_allow_list(root)
    for key in sorted(set(found) | set(allowed)):
        file, subject = key
        lines = found.get(key, [])
        permitted = allowed.get(key, 0)
        if len(lines) > permitted:
            where = ", ".join(f"{file}:{line}" for line in lines)
            problems.append(
                f"{where}: {len(lines) - permitted} `default:` arm(s) of `switch {subject}` not in {ALLOW_LIST}. "
                "Over one of the project's own enums, list the cases instead (so a new case must be placed); "
                f"over a scalar, character, string, integer or foreign enum, add a line '{file} | {subject} | REASON'.")
        elif len(lines) < permitted:
            problems.append(
                f"{ALLOW_LIST}: {permitted - len(lines)} line(s) '{file} | {subject} | …' name no `default:` arm "
                "that is still there; delete them.")
    if problems:
        for problem in problems:
            print("error: " + problem, file=sys.stderr)
        print(f"check-default-arms: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    total = sum(len(lines) for lines in found.values())
    print(f"check-default-arms: all {total} default: arms in Sources/ are in {ALLOW_LIST}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
