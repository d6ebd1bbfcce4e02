import HandoffScenario

/// Self-contained HTML reports: one file a reviewer opens in a browser,
/// for `run`, `sweep`, `advise`, `calibrate` and `baseline check`.
///
/// Every report is one HTML5 document with its CSS, its SVG pictures and a
/// few lines of plain JavaScript inline: it loads nothing (no network, no
/// font, no script or style from elsewhere; the only `http` in it are links
/// a reader clicks), and it reads fully with JavaScript off — the script
/// only adds buttons that filter the scenarios by status.
///
/// The DOM contract, which tests and a team's own tooling may rely on:
///
/// - `<html data-report="run|sweep|advice|calibration|baseline">`;
/// - in a run report, one `<section class="scenario">` per scenario file
///   (per file and seed with several seeds) with
///   `data-scenario="<file as given>"` and
///   `data-status="pass|fragile|fail|error|invalid|skipped"`, the status
///   every report gives it (`RunSummary.Status`, `--strict` applied: a
///   fragile scenario under `--strict` is `fail`); `data-seed` with
///   several seeds;
/// - in a failing scenario, each trial that shows a failing expectation
///   (and a scenario's trial that stopped at a limit) once, as
///   `<div class="trial" data-trial="K">` with its replay command in
///   `<code class="replay">` and an inline `<svg>` trace diagram inside
///   `<figure class="trace">`, within the page's bounds (at most 10 trials
///   and 8 MiB of diagrams; past them a note, and
///   `<p class="pictures-left-out">` at the top);
/// - the script, when it runs, sets `data-script="ran"` on `<html>`, and
///   `data-script-error` if a script error happens on the page.
///
/// Every name and value taken from input is escaped; no output varies
/// between runs but the wall time the caller passes in ``Context``.
///
/// ```swift
/// let html = HTMLReport.run(RunSummary(results), context: HTMLReport.Context(toolVersion: "0.1.0", arguments: ["run", "scenarios"]))
/// ```
public enum HTMLReport {
    /// What a report says about how it was made.
    public struct Context: Sendable {
        /// The tool's version.
        public var toolVersion: String
        /// The command's arguments after `handoff-sim` (`["run", "scenarios"]`).
        public var arguments: [String]
        /// The wall time the command took, in seconds (nil: not shown).
        public var wallSeconds: Double?
        /// The overlay file given with `--overlay`, if any.
        public var overlay: String?

        /// A context.
        public init(toolVersion: String, arguments: [String], wallSeconds: Double? = nil, overlay: String? = nil) {
            self.toolVersion = toolVersion
            self.arguments = arguments
            self.wallSeconds = wallSeconds
            self.overlay = overlay
        }

        /// The command line, each argument quoted for a POSIX shell where it
        /// needs it.
        var commandLine: String {
            (["handoff-sim"] + arguments.map(ReplayCommand.shellQuoted)).joined(separator: " ")
        }
    }
}

// MARK: - The page

/// One HTML document under construction: a title, the facts about the run
/// and the body's elements, each line already escaped.
struct HTMLPage {
    /// The report's kind, for `<html data-report>`.
    let kind: String
    /// The page title and the heading.
    let title: String
    /// The line under the heading (a verdict), escaped.
    var lede = ""
    /// Label and value pairs shown under the heading (unescaped).
    var facts: [(String, String)] = []
    /// Whether the page has scenario filter buttons.
    var filters: [(status: String, label: String)] = []
    /// The body, escaped HTML lines.
    var body: [String] = []

    /// The whole document.
    func render(_ context: HTMLReport.Context) -> String {
        var facts = facts
        facts.append(("command", context.commandLine))
        if let overlay = context.overlay { facts.append(("overlay", overlay)) }
        facts.append(("tool", "handoff-sim \(context.toolVersion)"))
        if let seconds = context.wallSeconds, seconds.isFinite, seconds >= 0 {
            facts.append(("wall time", Format.seconds(seconds, decimals: 2)))
        }
        var lines = [
            "<!DOCTYPE html>",
            "<html lang=\"en\" data-report=\"\(html(kind))\">",
            "<head>",
            "<meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<title>\(html(title))</title>",
            "<style>", Self.style, "</style>",
            "</head>",
            "<body>",
            "<header>",
            "<h1>\(html(title))</h1>",
        ]
        if !lede.isEmpty { lines.append("<p class=\"lede\">\(lede)</p>") }
        lines.append("<dl class=\"facts\">")
        for (label, value) in facts {
            let code = label == "command" || label == "overlay"
            lines.append("<div><dt>\(html(label))</dt><dd>\(code ? "<code>" + html(value) + "</code>" : html(value))</dd></div>")
        }
        lines.append("</dl>")
        if !filters.isEmpty {
            // Shown by the script only: without it every scenario is listed.
            lines.append("<nav class=\"filters\" hidden aria-label=\"Show scenarios\">")
            lines.append("<button type=\"button\" data-filter=\"all\" aria-pressed=\"true\">all</button>")
            for filter in filters {
                lines.append("<button type=\"button\" data-filter=\"\(html(filter.status))\" aria-pressed=\"false\">\(html(filter.label))</button>")
            }
            lines.append("</nav>")
        }
        lines.append("</header>")
        lines.append("<main>")
        lines += body
        lines.append("</main>")
        lines.append("<footer><p>Made by handoff-sim \(html(context.toolVersion)): a deterministic simulation; "
            + "every figure here is simulated, not measured on devices.</p></footer>")
        lines.append("<script>")
        lines.append(Self.script)
        lines.append("</script>")
        lines.append("</body>")
        lines.append("</html>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The style sheet: system fonts, readable at a phone's width and in
    /// print; status never by colour alone (every badge has its word).
    static let style = """
        :root { color-scheme: light; --pass: #1a7f37; --fail: #cf222e; --fragile: #9a6700; --invalid: #6e40c9; --muted: #57606a; --line: #d0d7de; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; background: #ffffff; }
        header, main, footer { max-width: 1200px; margin: 0 auto; padding: 0 16px; }
        header { padding-top: 16px; border-bottom: 1px solid var(--line); }
        h1 { font-size: 24px; margin: 8px 0; }
        h2 { font-size: 19px; margin: 24px 0 8px; }
        h3 { font-size: 16px; margin: 16px 0 6px; }
        .lede { font-size: 17px; margin: 4px 0 12px; }
        .facts { display: flex; flex-wrap: wrap; gap: 4px 24px; margin: 0 0 12px; font-size: 13px; color: var(--muted); }
        .facts div { display: flex; gap: 6px; min-width: 0; }
        .facts dt { font-weight: 600; }
        .facts dd { margin: 0; overflow-wrap: anywhere; }
        code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
        pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; overflow-x: auto; white-space: pre; }
        .scroll { overflow-x: auto; max-width: 100%; }
        table { border-collapse: collapse; font-size: 13px; margin: 6px 0 12px; }
        th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
        th { background: #f6f8fa; font-weight: 600; }
        td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        .badge { display: inline-block; min-width: 4.5em; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 700; text-align: center; color: #ffffff; }
        .badge.pass { background: var(--pass); } .badge.fail, .badge.error { background: var(--fail); }
        .badge.fragile { background: var(--fragile); } .badge.invalid { background: var(--invalid); } .badge.skipped { background: var(--muted); }
        section.scenario { border: 1px solid var(--line); border-left: 6px solid var(--muted); border-radius: 6px; margin: 12px 0; padding: 4px 12px 8px; }
        section.scenario[data-verdict="pass"] { border-left-color: var(--pass); }
        section.scenario[data-verdict="fail"], section.scenario[data-verdict="error"] { border-left-color: var(--fail); }
        section.scenario[data-verdict="fragile"] { border-left-color: var(--fragile); }
        section.scenario[data-verdict="invalid"] { border-left-color: var(--invalid); }
        section.scenario h2 { font-size: 16px; margin: 8px 0 4px; display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
        section.scenario h2 .file { font: 13px ui-monospace, Menlo, Consolas, monospace; color: var(--muted); font-weight: 400; overflow-wrap: anywhere; }
        details > summary { cursor: pointer; margin: 4px 0; }
        figure { margin: 8px 0; }
        figure svg, .picture svg { max-width: 100%; height: auto; }
        figure.trace { overflow-x: auto; }
        figure.trace svg { max-width: none; }
        figcaption { font-size: 13px; color: var(--muted); }
        .note { color: var(--muted); font-size: 13px; }
        .filters { display: flex; flex-wrap: wrap; gap: 6px; margin: 0 0 12px; }
        .filters button { font: inherit; font-size: 13px; padding: 2px 10px; border: 1px solid var(--line); border-radius: 14px; background: #ffffff; cursor: pointer; }
        .filters button[aria-pressed="true"] { background: #1f2328; color: #ffffff; }
        .bar { display: inline-block; height: 10px; background: #0072b2; vertical-align: middle; }
        footer { border-top: 1px solid var(--line); margin-top: 24px; color: var(--muted); font-size: 12px; }
        @media (max-width: 600px) { body { font-size: 14px; } h1 { font-size: 20px; } }
        @media print { .filters { display: none !important; } section.scenario { break-inside: avoid; } }
        """

    /// The script: filter buttons, and a mark that it ran.
    static let script = """
        (function () {
          var root = document.documentElement;
          window.addEventListener("error", function (event) { root.setAttribute("data-script-error", String(event.message)); });
          var bar = document.querySelector("nav.filters");
          if (bar) {
            var buttons = bar.querySelectorAll("button");
            var sections = document.querySelectorAll("section.scenario");
            var show = function (filter) {
              Array.prototype.forEach.call(sections, function (section) {
                section.hidden = !(filter === "all" || filter === section.getAttribute("data-status"));
              });
              Array.prototype.forEach.call(buttons, function (button) {
                button.setAttribute("aria-pressed", String(button.getAttribute("data-filter") === filter));
              });
            };
            Array.prototype.forEach.call(buttons, function (button) {
              button.addEventListener("click", function () { show(button.getAttribute("data-filter")); });
            });
            bar.hidden = false;
          }
          root.setAttribute("data-script", "ran");
        })();
        """
}

// MARK: - Escaping and pieces

/// `text` safe in HTML text and in a double-quoted attribute
/// (``Escape/html(_:)``, the pages' shorthand for it).
func html(_ text: String) -> String { Escape.html(text) }

/// A table: a header row and rows of cells, each cell's text escaped (or,
/// with `escaped`, each cell already HTML the caller escaped); columns in
/// `numeric` are right-aligned. Wrapped so a wide table
/// scrolls on its own rather than widening the page.
func htmlTable(
    _ header: [String], _ rows: [[String]], numeric: Set<Int> = [], className: String? = nil, escaped: Bool = false
) -> [String] {
    let classAttribute = className.map { " class=\"\(html($0))\"" } ?? ""
    var lines = ["<div class=\"scroll\"><table\(classAttribute)>", "<thead><tr>"]
    lines.append(header.enumerated().map { index, name in
        "<th scope=\"col\"\(numeric.contains(index) ? " class=\"number\"" : "")>\(html(name))</th>"
    }.joined())
    lines.append("</tr></thead>")
    lines.append("<tbody>")
    for row in rows {
        lines.append("<tr>" + row.enumerated().map { index, cell in
            "<td\(numeric.contains(index) ? " class=\"number\"" : "")>\(escaped ? cell : html(cell))</td>"
        }.joined() + "</tr>")
    }
    lines.append("</tbody></table></div>")
    return lines
}

/// An SVG document as an element of an HTML page: without its XML
/// declaration and its `xmlns` (HTML gives inline SVG its namespace).
/// Element ids are the picture's own business: a picture drawn for a page
/// with others takes an id prefix where it is drawn (``TraceDiagram``).
func inlineSVG(_ svg: String) -> String {
    var text = svg
    if text.hasPrefix("<?xml"), let end = text.firstIndex(of: "\n") { text = String(text[text.index(after: end)...]) }
    text = text.replacing(" xmlns=\"http://www.w3.org/2000/svg\"", with: "")
    while text.hasSuffix("\n") { text.removeLast() }
    return text
}
