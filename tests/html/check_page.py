"""Structure checks of a `stepstat report` page, with Python's html.parser.

check_page(html_text, summary_json_text) returns a list of problems (empty: the page is
sound): tags balanced, the sections in the issue's order, every chart titled and captioned
with its numbers in a table, nothing that loads or runs, the embedded JSON equal to
`summarize --details --format json`, and every kernel name it lists shown as text.
"""
import html.parser
import json
import re

VOID = {"meta", "br", "hr", "img", "input", "link", "area", "base", "col", "embed", "source",
        "track", "wbr"}
# The page's sections, in the order of issue 17; data-quality appears only when needed.
SECTIONS = ["header", "data-quality", "headline", "where-the-time-went", "timeline", "steps",
            "streams", "launch-path", "top-kernels", "before-after", "definitions"]
OPTIONAL_SECTIONS = {"data-quality", "before-after"}
# `diff --format html`: the before/after section alone.
DIFF_SECTIONS = ["header", "before-after", "definitions"]
FORBIDDEN_TAGS = {"link", "img", "iframe", "object", "embed", "base", "form", "a", "image",
                  "use", "foreignobject", "audio", "video", "source", "frame", "frameset"}
FORBIDDEN_ATTRIBUTES = {"href", "xlink:href", "src", "srcset", "action", "formaction", "style",
                        "background", "poster", "data"}


class PageParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems = []
        self.stack = []
        self.sections = []       # ids of top-level <section>/<header>/<aside>, in order
        self.charts = []         # per svg.chart: {"title", "desc", "first_children", "labelledby"}
        self.ids = set()
        self.scripts = []        # (attrs, text)
        self.name_cells = []     # (title attribute, text) of td.name
        self.figures = []        # per figure: {"caption", "has_chart"}
        self.after_figure = []   # the first element tag after each </figure>
        self.styles = []
        self.csp = None
        self._name_cell_depth = None  # stack depth inside the td.name being read
        self._pending_after_figure = False

    def _open(self, tag, attrs, self_closing):
        attributes = dict(attrs)
        if self._pending_after_figure:
            self.after_figure.append(tag)
            self._pending_after_figure = False
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"forbidden element <{tag}>")
        for name, value in attrs:
            if name in FORBIDDEN_ATTRIBUTES or name.startswith("on"):
                self.problems.append(f"forbidden attribute {name}={value!r} on <{tag}>")
        if "id" in attributes:
            if attributes["id"] in self.ids:
                self.problems.append(f"duplicate id {attributes['id']}")
            self.ids.add(attributes["id"])
        if tag == "meta" and attributes.get("http-equiv", "").lower() == "content-security-policy":
            self.csp = attributes.get("content", "")
        depth_in_body = [t for t in self.stack if t not in ("html", "body")]
        if tag in ("section", "header", "aside") and not depth_in_body:
            self.sections.append(attributes.get("id", ""))
        if tag == "svg" and "chart" in attributes.get("class", "").split():
            self.charts.append({"title": "", "desc": "", "children": [],
                                "labelledby": attributes.get("aria-labelledby", "")})
        elif self.stack and self.stack[-1] == "svg" and self.charts and self._in_chart():
            self.charts[-1]["children"].append(tag)
        if tag == "figure":
            self.figures.append({"caption": "", "has_chart": False})
        if tag == "svg" and "figure" in self.stack and self.figures:
            self.figures[-1]["has_chart"] = True
        if tag == "script":
            self.scripts.append([attributes, ""])
        if tag == "td" and "name" in attributes.get("class", "").split():
            self.name_cells.append([attributes.get("title"), ""])
            self._name_cell_depth = len(self.stack) + 1
        if not self_closing and tag not in VOID:
            self.stack.append(tag)

    def _in_chart(self):
        return self.stack.count("svg") == 1

    def handle_starttag(self, tag, attrs):
        self._open(tag, attrs, False)

    def handle_startendtag(self, tag, attrs):
        self._open(tag, attrs, True)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        if len(self.stack) == self._name_cell_depth:
            self._name_cell_depth = None
        self.stack.pop()
        if tag == "figure":
            self._pending_after_figure = True

    def handle_data(self, data):
        if not self.stack:
            if data.strip():
                self.problems.append(f"text outside the document: {data[:40]!r}")
            return
        top = self.stack[-1]
        if top == "title" and self.charts and "svg" in self.stack and self._chart_title_level():
            self.charts[-1]["title"] += data
        elif top == "desc" and self.charts and "svg" in self.stack:
            self.charts[-1]["desc"] += data
        elif top == "script" and self.scripts:
            self.scripts[-1][1] += data
        elif top == "style":
            self.styles.append(data)
        if top == "figcaption" or "figcaption" in self.stack:
            self.figures[-1]["caption"] += data
        if self._name_cell_depth is not None:
            self.name_cells[-1][1] += data

    def _chart_title_level(self):
        # The chart's own <title> sits directly in the <svg>; a shape's hover title does not.
        return len(self.stack) >= 2 and self.stack[-2] == "svg"

    def handle_decl(self, decl):
        if decl.lower() != "doctype html":
            self.problems.append(f"unexpected declaration {decl}")

    def unknown_decl(self, data):
        self.problems.append(f"unknown declaration {data!r}")


def check_page(page, summary_json=None, diff_json=None):
    """Problems found in `page` (str). A report page: `summary_json` is what summarize --details
    --format json printed for the same inputs, and `diff_json` (with --vs) what diff --format
    json printed for the same pair. A diff page: `diff_json` alone."""
    parser = PageParser()
    parser.feed(page)
    parser.close()
    problems = list(parser.problems)
    if not page.startswith("<!DOCTYPE html>"):
        problems.append("no <!DOCTYPE html> first")
    if parser.stack:
        problems.append(f"unclosed elements: {parser.stack}")
    csp = parser.csp or ""
    for directive in ("default-src 'none'", "script-src 'none'"):
        if directive not in csp:
            problems.append(f"CSP lacks {directive!r}: {csp!r}")
    for style in parser.styles:
        for url in re.findall(r"url\(([^)]*)\)", style):
            if not url.startswith("#"):
                problems.append(f"style sheet loads {url!r}")
        if "@import" in style:
            problems.append("style sheet imports")

    order = SECTIONS if summary_json is not None else DIFF_SECTIONS
    present = [s for s in parser.sections if s in order]
    if present != sorted(present, key=order.index):
        problems.append(f"sections out of order: {present}")
    required = [s for s in order if s not in OPTIONAL_SECTIONS or
                (s == "before-after" and diff_json is not None)]
    missing = [s for s in required if s not in present]
    if missing:
        problems.append(f"sections missing: {missing}")

    if not parser.charts:
        problems.append("no chart")
    for i, chart in enumerate(parser.charts):
        if not chart["title"].strip() or not chart["desc"].strip():
            problems.append(f"chart {i} lacks a title or desc")
        if chart["children"][:2] != ["title", "desc"]:
            problems.append(f"chart {i} does not start with <title><desc>: {chart['children'][:2]}")
        for label in chart["labelledby"].split():
            if label not in parser.ids:
                problems.append(f"chart {i} is labelled by a missing id {label}")
    for i, figure in enumerate(parser.figures):
        if not figure["has_chart"] or not figure["caption"].strip():
            problems.append(f"figure {i} lacks a chart or a caption")
    if len(parser.after_figure) != len(parser.figures) or any(
            tag not in ("table", "details") for tag in parser.after_figure):
        problems.append(f"a figure is not followed by its table: {parser.after_figure}")

    want = {}
    if summary_json is not None:
        want["stepstat-summary"] = summary_json
    if diff_json is not None:
        want["stepstat-diff"] = diff_json
    if len(parser.scripts) != len(want):
        problems.append(f"{len(parser.scripts)} script elements, want the JSON blocks {list(want)}")
    for attributes, text in parser.scripts:
        block = attributes.get("id")
        if attributes.get("type") != "application/json" or block not in want:
            problems.append(f"a script element is no expected JSON block: {attributes}")
        elif json.loads(text) != json.loads(want[block]):
            problems.append(f"the embedded {block} JSON differs from stepstat's --format json")

    names = []
    if diff_json is not None:
        names += [k["name"] for k in json.loads(diff_json).get("kernels", [])]
    if summary_json is not None:
        details = json.loads(summary_json).get("details", {})
        names += [k["name"] for k in details.get("top_kernels", [])]
        names += [k["name"] for k in details.get("classification_coverage", {}).get("top_other", [])]
    for title, text in parser.name_cells:
        if title != text:
            problems.append(f"a name cell's hover text {title!r} is not its text {text!r}")
    shown = {text for _, text in parser.name_cells}
    titles = {title for title, _ in parser.name_cells}
    for name in names:
        want_text = printable(name)
        if want_text not in shown or want_text not in titles:
            problems.append(f"kernel name {name!r} is not shown as text")
    return problems


def printable(name):
    """A name as the page shows it: controls (but tab and newline) as U+FFFD."""
    return "".join("\ufffd" if (ord(c) < 0x20 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F
                   else c for c in name)
