#!/usr/bin/env python3
"""Checks that every example in the documentation runs.

Usage (from anywhere; it works in the repository's root):

    python3 Tests/Docs/check-examples.py [--binary PATH] [FILE...]

FILE: Markdown or YAML files to check (default: README.md, every *.md
under docs/, scenarios/ and calibration/, and docs/examples/*.yml). The
binary (default .build/release/handoff-sim, and handoff-bench beside it)
must be built. Needs python3 and PyYAML.

What it checks (the conventions are in docs/contributing.md, "Keeping the
documentation true"):

- every fenced block names its language (the first word of its info
  string), and is checked by it: `yaml`/`yml` parse (PyYAML's safe_load);
  `json` parses, a line holding only `…` standing for elided members or
  elements (it and the comma before it are dropped); a JSON object with
  "devices", "activity" or "activities" is a scenario, and `handoff-sim
  validate` must accept it; `sh`/`shell`/`bash`/`console` (a console
  block's commands are its `$ ` lines): every handoff-sim and
  handoff-bench command names a command that exists, every --option it
  uses is in that command's --help, and every file it names in the
  repository's folders exists;
- a `text output` block is the exact standard output of the one command in
  the nearest `sh` block above it: the command is run and the output
  compared (trailing whitespace aside);
- a `text excerpt` block is lines of that output, in order, a line of only
  `...` or `…` standing for lines left out;
- a `text usage` block is the USAGE lines of its command's --help;
- the commands in inline code spans (`handoff-sim run … --junit PATH`),
  and those in YAML (a workflow step's `run:`, a container's `command:` or
  `args:`), are checked as those of an `sh` block;
- a GitHub Actions workflow (YAML with `jobs`) holds together: jobs run
  somewhere and need jobs that exist, steps run or use a versioned action,
  `steps.ID` and `matrix.KEY` name a step and a matrix key of their job;
- relative links point at files that exist;
- numbers that describe the shipped suite (how many scenarios, how many
  trials) are what `handoff-sim run scenarios` runs;
- scenarios/README.md and calibration/scenarios/README.md link every
  scenario file in their folder.

Exit 0 when everything holds; 1, with one line per problem, otherwise.
"""

import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    sys.exit("error: PyYAML is needed (Debian: apt-get install python3-yaml; else pip install --user pyyaml)")

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
os.chdir(ROOT)

problems = []


def problem(where, message):
    problems.append(f"{where}: {message}")


# ---------------------------------------------------------------- the files

def default_files():
    files = ["README.md"]
    for folder in ["docs", "scenarios", "calibration"]:
        files += sorted(glob.glob(f"{folder}/**/*.md", recursive=True))
    files += sorted(glob.glob("docs/examples/*.yml"))
    return files


# ------------------------------------------------------------ fenced blocks

FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")


class Block:
    def __init__(self, path, line, info, text):
        self.path, self.line, self.text = path, line, text
        words = info.split()
        self.language = words[0].lower() if words else ""
        self.flags = set(words[1:])

    @property
    def where(self):
        return f"{self.path}:{self.line}"


def fenced_blocks(path, lines):
    """Every fenced block: (opening line number from 1, info string, text)."""
    blocks, index = [], 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        indent, fence, info = len(match.group(1)), match.group(2), match.group(3).strip()
        body, end = [], index + 1
        while end < len(lines):
            closing = FENCE.match(lines[end])
            if closing and closing.group(2)[0] == fence[0] and len(closing.group(2)) >= len(fence) \
                    and not closing.group(3).strip():
                break
            line = lines[end]
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            end += 1
        if end == len(lines):
            problem(f"{path}:{index + 1}", "a fenced block is never closed")
        blocks.append(Block(path, index + 1, info, "\n".join(body) + "\n"))
        index = end + 1
    return blocks


# ------------------------------------------------------------- the commands

BINARY = ".build/release/handoff-sim"
help_cache = {}


def help_text(tool, words):
    key = (tool, tuple(words))
    if key not in help_cache:
        binary = BINARY if tool == "handoff-sim" else os.path.join(os.path.dirname(BINARY), tool)
        result = subprocess.run([binary, *words, "--help"], capture_output=True, text=True, env=clean_env())
        help_cache[key] = (result.returncode, result.stdout + result.stderr)
    return help_cache[key]


def clean_env():
    """The environment without GitHub's: a command run here must not write a
    step summary or annotations of its own when this runs on GitHub Actions."""
    env = dict(os.environ)
    for name in ["GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"]:
        env.pop(name, None)
    return env


SHELL_OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "2>", "2>&1", "<", ">/dev/null", "2>/dev/null", "then", "do"}
TOOL = re.compile(r"(^|/)(handoff-sim|handoff-bench)$")
# Top-level folders of the repository: a file named under one of them must exist.
REPOSITORY_FOLDERS = {entry for entry in os.listdir(".") if os.path.isdir(entry) and not entry.startswith(".")}


def logical_lines(text, console):
    """Lines of shell with backslash continuations joined; for a console
    block, only the `$ ` lines (the commands)."""
    joined, pending = [], ""
    for raw in text.split("\n"):
        line = raw.rstrip()
        if console and not pending:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    if pending:
        joined.append(pending)
    return joined


def starts_command(before):
    """Whether a tool's name after these tokens is the command run (not an
    argument of another program, as in `mutate-scenarios.py BINARY 1 300`):
    after nothing, a shell operator, environment assignments, `swift run`
    with its options, or `time`."""
    start = max([0] + [index + 1 for index, token in enumerate(before) if token in SHELL_OPERATORS])
    rest = [token for token in before[start:] if not re.match(r"^[A-Z_][A-Z0-9_]*=", token) and token != "time"]
    if rest[:2] == ["swift", "run"]:
        rest = [token for token in rest[2:] if token not in ("-c", "release", "debug") and not token.startswith("--")]
    return not rest


def commands_in(line):
    """Each handoff-sim or handoff-bench invocation in a line of shell:
    (tool, the words after it up to a shell operator)."""
    try:
        tokens = shlex.split(line, comments=True)
    except ValueError:
        return []
    found = []
    for index, token in enumerate(tokens):
        match = TOOL.search(token)
        if not match or not starts_command(tokens[:index]):
            continue
        # `swift run [-c release] handoff-sim`, a path, or the bare name.
        words = []
        for word in tokens[index + 1:]:
            if word in SHELL_OPERATORS or word.startswith(">") or word.startswith("2>"):
                break
            words.append(word)
        found.append((match.group(2), words))
    return found


def check_command(where, tool, words):
    if not words:
        return
    if tool == "handoff-sim":
        if words[0].startswith("-"):
            code, text = help_text(tool, [])
            for word in words:
                if word.startswith("--") and word.split("=")[0] not in text:
                    problem(where, f"handoff-sim has no option {word}")
            return
        command = [words[0]]
        if words[0] == "baseline" and len(words) > 1 and not words[1].startswith("-"):
            command.append(words[1])
        if command[0] in ("help", "…", "...") or command[0].startswith("<") or "COMMAND" in command[0]:
            return
        code, text = help_text(tool, command)
        if code != 0:
            problem(where, f"'handoff-sim {' '.join(command)}' is not a command (its --help exits {code})")
            return
        options = text
    else:
        code, text = help_text(tool, [])
        if words[0] in ("…", "..."):
            return
        if not re.search(rf"^  {re.escape(words[0])}\s", text, re.M):
            problem(where, f"'handoff-bench {words[0]}' is not a command (not in handoff-bench --help)")
            return
        command, options = [words[0]], text
    for word in words[len(command):]:
        if word.startswith("--"):
            name = word.split("=")[0]
            known = re.search(rf"(^|[\s,(\[]){re.escape(name)}([\s,=\]]|$)", options, re.M) is not None
            if not known:
                problem(where, f"'{tool} {' '.join(command)}' has no option {name} (not in its --help)")
        elif not word.startswith("-") and "/" in word and not any(c in word for c in "*?$<…{"):
            first = word.split("/")[0]
            if first in REPOSITORY_FOLDERS and not os.path.exists(word):
                problem(where, f"{word} does not exist (named in '{tool} {' '.join(command)}')")


def check_shell(block, console=False):
    commands = []
    for line in logical_lines(block.text, console):
        for tool, words in commands_in(line):
            check_command(block.where, tool, words)
            commands.append((tool, words))
    return commands


COMMAND_KEYS = {"run", "command", "args", "script", "entrypoint"}


def check_strings(where, value, key=None):
    """The handoff-sim commands in a parsed YAML document: the strings under
    a key that holds commands (a workflow step's `run`, a container's
    `command` or `args`), in lists or not."""
    if isinstance(value, dict):
        for name, item in value.items():
            check_strings(where, item, name)
    elif isinstance(value, list):
        for item in value:
            check_strings(where, item, key)
    elif isinstance(value, str) and key in COMMAND_KEYS:
        for line in logical_lines(value, console=False):
            for tool, words in commands_in(line):
                check_command(where, tool, words)


# ---------------------------------------------------------- YAML and JSON

def check_yaml(path, first_line, text):
    """YAML that starts at first_line (from 1) of path."""
    try:
        documents = list(yaml.safe_load_all(text))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{first_line + mark.line}" if mark else f"{path}:{first_line}"
        context = getattr(error, "context", None)
        detail = getattr(error, "problem", None) or str(error)
        column = f" column {mark.column + 1}" if mark else ""
        problem(where, f"invalid YAML at{column}: {detail}" + (f" ({context})" if context else ""))
        return
    for document in documents:
        check_strings(f"{path}:{first_line}", document)
        if isinstance(document, dict) and isinstance(document.get("jobs"), dict):
            check_workflow(f"{path}:{first_line}", document, whole=first_line == 1)


EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def check_workflow(where, workflow, whole):
    """What a YAML parser cannot see in a GitHub Actions workflow: a whole
    file has `on` (PyYAML reads the key as True) and `jobs`; every job runs
    somewhere and needs only jobs that exist; every step runs or uses an
    action at a version; `steps.ID` names a step of the same job and
    `matrix.KEY` a key of the job's matrix."""
    if whole and "on" not in workflow and True not in workflow:
        problem(where, "the workflow has no 'on:' (what starts it)")
    jobs = workflow["jobs"]
    for name, job in jobs.items():
        if not isinstance(job, dict):
            problem(where, f"job {name} is not a mapping")
            continue
        if "runs-on" not in job and "uses" not in job:
            problem(where, f"job {name} has no runs-on")
        needs = job.get("needs", [])
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in jobs:
                problem(where, f"job {name} needs {need}, which is not a job")
        steps = job.get("steps", [])
        ids = {step.get("id") for step in steps if isinstance(step, dict)}
        matrix = ((job.get("strategy") or {}).get("matrix") or {})
        for index, step in enumerate(steps):
            if not isinstance(step, dict) or ("run" in step) == ("uses" in step):
                problem(where, f"job {name}, step {index + 1}: a step has exactly one of run and uses")
                continue
            if "uses" in step and "@" not in step["uses"] and not step["uses"].startswith(("./", "docker://")):
                problem(where, f"job {name}, step {index + 1}: {step['uses']} names no version (@v4)")
        for expression in EXPRESSION.findall(json.dumps(job)) + [str(step.get("if", "")) for step in steps
                                                                  if isinstance(step, dict)]:
            for step_id in re.findall(r"\bsteps\.([A-Za-z_][\w-]*)", expression):
                if step_id not in ids:
                    problem(where, f"job {name}: steps.{step_id} is not a step of the job")
            for key in re.findall(r"\bmatrix\.([A-Za-z_][\w-]*)", expression):
                if key not in matrix:
                    problem(where, f"job {name}: matrix.{key} is not in the job's matrix")


ELISION = re.compile(r",?(\s*\n\s*…\s*)(?=\n)")


def parse_json_block(text):
    """A JSON block with its elisions (lines holding only `…`) dropped,
    with the comma before each."""
    return json.loads(ELISION.sub("", text))


def check_json(block):
    try:
        value = parse_json_block(block.text)
    except json.JSONDecodeError as error:
        problem(f"{block.path}:{block.line + error.lineno}", f"invalid JSON at column {error.colno}: {error.msg}")
        return
    if isinstance(value, dict) and ({"devices", "activity", "activities"} & value.keys()):
        # Written beside the Markdown file, so a relative "$schema" or
        # overlay path in the example resolves as it does for the reader.
        folder = os.path.dirname(block.path) or "."
        with tempfile.NamedTemporaryFile("w", suffix=".json", prefix=".example-", dir=folder, delete=False) as file:
            file.write(block.text)
            name = file.name
        try:
            result = subprocess.run([BINARY, "validate", name], capture_output=True, text=True, env=clean_env())
        finally:
            os.unlink(name)
        if result.returncode != 0:
            message = " ".join((result.stdout + result.stderr).replace(name, "the example").split())
            problem(block.where, f"the scenario example is not valid (handoff-sim validate exits {result.returncode}): {message}")


# ----------------------------------------------------------------- outputs

def run_for_output(where, tool, words):
    binary = BINARY if tool == "handoff-sim" else os.path.join(os.path.dirname(BINARY), tool)
    try:
        result = subprocess.run([binary, *words], capture_output=True, text=True, timeout=30, env=clean_env())
    except subprocess.TimeoutExpired:
        problem(where, "the command took over 30 s: do not show the output of a slow command")
        return None
    return result.stdout


def command_above(block, shown_after):
    """The one command of the nearest `sh` block above a `text output` or
    `text excerpt` block."""
    if shown_after is None:
        problem(block.where, "a `text output` or `text excerpt` block with no `sh` block above it")
        return None
    if len(shown_after) != 1:
        problem(block.where, f"a `text output` or `text excerpt` block must follow an `sh` block of one command "
                f"(found {len(shown_after)})")
        return None
    return shown_after[0]


def output_above(block, shown_after):
    """The command the block shows the output of, and that output; None
    (with the problem reported) when there is no such command or it failed."""
    command = command_above(block, shown_after)
    if command is None:
        return None
    tool, words = command
    actual = run_for_output(block.where, tool, words)
    return None if actual is None else (tool, words, actual)


def compare_excerpt(block, shown_after):
    """Every line of the block, but a line of only `...` or `…` (lines left
    out), is a line of the command's output, in the same order."""
    shown = output_above(block, shown_after)
    if shown is None:
        return
    tool, words, actual = shown
    remaining = [line.rstrip() for line in actual.split("\n")]
    position = 0
    for number, line in enumerate(block.text.rstrip("\n").split("\n"), block.line + 1):
        line = line.rstrip()
        if line.strip() in ("...", "…"):
            continue
        try:
            position = remaining.index(line, position) + 1
        except ValueError:
            problem(f"{block.path}:{number}", f"not a line of the output of '{tool} {' '.join(words)}' "
                    f"(after the lines above it):\n    shown: {line}")
            return


def compare_output(block, shown_after):
    shown = output_above(block, shown_after)
    if shown is None:
        return
    tool, words, actual = shown
    expected_lines = [line.rstrip() for line in block.text.rstrip("\n").split("\n")]
    actual_lines = [line.rstrip() for line in actual.rstrip("\n").split("\n")]
    if expected_lines != actual_lines:
        for number, (want, got) in enumerate(zip(expected_lines + [""] * len(actual_lines),
                                                 actual_lines + [""] * len(expected_lines))):
            if want != got:
                problem(block.where, f"the output of '{tool} {' '.join(words)}' differs at its line {number + 1}:\n"
                        f"    shown:  {want}\n    actual: {got}")
                break


def check_usage(block):
    first = block.text.split()
    if len(first) < 2 or first[0] != "handoff-sim":
        problem(block.where, "a `text usage` block must start with 'handoff-sim <command>'")
        return
    command = first[1:3] if first[1] == "baseline" and first[2] in ("update", "check") else first[1:2]
    command = ["baseline"] if first[1] == "baseline" and "\nhandoff-sim baseline" in block.text else command
    code, text = help_text("handoff-sim", command)
    usage = re.search(r"^USAGE: (.*?)\n\n", text, re.M | re.S)
    if not usage:
        problem(block.where, f"'handoff-sim {' '.join(command)} --help' has no USAGE")
        return
    wanted = [line.strip() for line in usage.group(1).split("\n")]
    shown = [line.strip() for line in block.text.strip().split("\n")]
    if wanted != shown:
        problem(block.where, f"the usage differs from 'handoff-sim {' '.join(command)} --help': {wanted}")


# ------------------------------------------------------------------ links

LINK = re.compile(r"\]\(([^)\s]+)\)")


def check_links(path, text):
    folder = os.path.dirname(path)
    for number, line in enumerate(text.split("\n"), 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            file = target.split("#")[0]
            if file and not os.path.exists(os.path.normpath(os.path.join(folder, file))):
                problem(f"{path}:{number}", f"the link {target} leads nowhere")


def check_scenario_indexes():
    for folder in ["scenarios", "calibration/scenarios"]:
        index = open(os.path.join(folder, "README.md"), encoding="utf-8").read()
        linked = {os.path.normpath(os.path.join(folder, target.split("#")[0])) for target in LINK.findall(index)}
        for file in sorted(glob.glob(f"{folder}/**/*.json", recursive=True)):
            if os.path.normpath(file) not in linked:
                problem(f"{folder}/README.md", f"{file} is not listed (link every scenario file in the folder)")


# ------------------------------------------------------- the suite's numbers

def suite_figures():
    """What the README's `handoff-sim run scenarios` runs: the number of
    scenarios and their trials, from the tool's own JSON report."""
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "report.json")
        result = subprocess.run([BINARY, "run", "scenarios", "--no-progress", "--json", report],
                                capture_output=True, text=True, env=clean_env())
        if result.returncode not in (0, 1):
            problem("scenarios", f"handoff-sim run scenarios exits {result.returncode}: {result.stderr.strip()}")
            return None
        data = json.load(open(report))
    scenarios = [entry for entry in data["scenarios"] if entry.get("status") != "skipped"]
    files = len(glob.glob("scenarios/**/*.json", recursive=True))
    if files != len(scenarios):
        problem("scenarios", f"{files} scenario files but the run ran {len(scenarios)} scenarios")
    return len(scenarios), sum(entry["trials"] for entry in scenarios)


def number(text):
    return int(re.sub(r"[,\s\u00a0\u202f]", "", text))


# Sentences that state the shipped suite's size: (file, pattern, what each
# group is). Each pattern must be found, so that a sentence reworded is
# noticed here rather than left unchecked.
SUITE_CLAIMS = [
    ("README.md", r"runs the (\d+) scenario files in", ["scenarios"]),
    ("README.md", r"\n(\d+) scenarios: (\d+) passed in", ["scenarios", "scenarios"]),
    ("scenarios/README.md", r"The (\d+) scenario files here", ["scenarios"]),
    ("docs/performance.md", r"shipped suite of (\d+) scenarios\s+\(([\d,\s]+) trials\)", ["scenarios", "trials"]),
    ("docs/cli.md", r"\n(\d+) scenarios over \d+ seeds: (\d+) passed under every seed", ["scenarios", "scenarios"]),
]


def check_suite_claims(checked):
    figures = suite_figures()
    if figures is None:
        return
    actual = {"scenarios": figures[0], "trials": figures[1]}
    for path, pattern, kinds in SUITE_CLAIMS:
        if path not in checked:
            continue
        text = open(path, encoding="utf-8").read()
        matches = list(re.finditer(pattern, text))
        if not matches:
            problem(path, f"no sentence matches /{pattern}/ (reworded? update SUITE_CLAIMS in Tests/Docs/check-examples.py)")
        for match in matches:
            line = text.count("\n", 0, match.start(1)) + 1
            for group, kind in enumerate(kinds, 1):
                if number(match.group(group)) != actual[kind]:
                    problem(f"{path}:{line}", f"says {match.group(group).strip()} {kind}; the shipped suite "
                            f"(handoff-sim run scenarios) has {actual[kind]}")


# ------------------------------------------------------------------- main

SHELL = {"sh", "shell", "bash", "console"}
KNOWN = SHELL | {"yaml", "yml", "json", "text", "swift", "xml", "csv", "markdown", "md", ""}


def check_markdown(path):
    text = open(path, encoding="utf-8").read()
    check_links(path, text)
    last_shell = None
    for block in fenced_blocks(path, text.split("\n")):
        language = block.language
        if language == "":
            problem(block.where, "a fenced block without a language: name it (`text` for output)")
        elif language not in KNOWN:
            problem(block.where, f"unknown language '{language}' (the checker knows {', '.join(sorted(KNOWN - {''}))})")
        if language in ("yaml", "yml"):
            check_yaml(block.path, block.line + 1, block.text)
        elif language == "json":
            check_json(block)
        elif language in SHELL:
            last_shell = check_shell(block, console=language == "console")
        elif language == "text" and "output" in block.flags:
            compare_output(block, last_shell)
        elif language == "text" and "excerpt" in block.flags:
            compare_excerpt(block, last_shell)
        elif language == "text" and "usage" in block.flags:
            check_usage(block)
    # Commands in inline code spans, outside fenced blocks.
    prose = re.sub(r"(?ms)^ *(`{3,}|~{3,}).*?^ *\1", lambda block: "\n" * block.group(0).count("\n"), text)
    for match in re.finditer(r"(?<!`)`([^`]*?handoff-(?:sim|bench) [^`]*)`(?!`)", prose):
        line = prose.count("\n", 0, match.start()) + 1
        for tool, words in commands_in(" ".join(match.group(1).split())):
            check_command(f"{path}:{line}", tool, words)
    # Command lines in indented code blocks (four spaces, outside lists).
    for number, line in enumerate(text.split("\n"), 1):
        match = re.match(r"^    ((?:swift run (?:-c release )?|\.build/release/)?handoff-(?:sim|bench) .*)$", line)
        if match:
            for tool, words in commands_in(match.group(1)):
                check_command(f"{path}:{number}", tool, words)


def main(arguments):
    global BINARY
    if arguments[:1] == ["--binary"]:
        BINARY, arguments = arguments[1], arguments[2:]
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"error: {BINARY} is not built (swift build -c release)")
    files = arguments or default_files()
    checked = set()
    for path in files:
        if not os.path.exists(path):
            problem(path, "no such file")
            continue
        checked.add(os.path.relpath(os.path.realpath(path), ROOT))
        if path.endswith((".yml", ".yaml")):
            check_yaml(path, 1, open(path, encoding="utf-8").read())
        else:
            check_markdown(path)
    if not arguments:
        check_suite_claims(checked)
        check_scenario_indexes()
    for line in problems:
        print(line, file=sys.stderr)
    blocks = sum(len(fenced_blocks(path, open(path, encoding="utf-8").read().split("\n")))
                 for path in files if path.endswith(".md") and os.path.exists(path))
    if problems:
        print(f"{len(problems)} problem(s) in the documentation's examples", file=sys.stderr)
        return 1
    print(f"every example holds: {len(files)} files, {blocks} fenced blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
