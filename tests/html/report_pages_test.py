#!/usr/bin/env python3
"""`stepstat report` pages through the real binary: the structure check (check_page.py) on the
bundled example, a trace of hostile kernel names, a multi-step synth run, that run against a
base with every nvfp4 GEMM 10 % longer (`report --vs`) and the same pair as `diff --format
html`; the synth pages against their golden copies (STEPSTAT_UPDATE_GOLDEN=1 rewrites them;
review the diff); and the same request twice gives the same bytes.

usage: report_pages_test.py STEPSTAT_BINARY SOURCE_DIR
"""
import html
import os
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_page import check_page  # noqa: E402

SYNTH_STEPS = 6


def run(binary, args, cwd):
    result = subprocess.run([binary] + args, cwd=cwd, capture_output=True, timeout=300)
    if result.returncode != 0:
        raise AssertionError(f"stepstat {' '.join(args)} exited {result.returncode}: "
                             f"{result.stderr.decode(errors='replace')}")
    return result.stdout


def page_and_summary(binary, inputs, summary_inputs, cwd, extra=()):
    page_path = pathlib.Path(cwd) / "page.html"
    run(binary, ["report", *inputs, *extra, "-o", "page.html"], cwd)  # the page shows -o
    summary = run(binary, ["summarize", *summary_inputs, "--details", "--format", "json"], cwd)
    return page_path.read_bytes(), summary.decode()


def write_hostile_steps(source, scratch):
    """The hostile-names trace repeated 12 times, so that the period detector cuts it into
    steps and the timeline lists its names around the longest gaps: the gap after row i is
    50 + 20 * (rows - i) ns, so the first rows (the `</script>` and `k<float, 2>` ones)
    open and close the longest. Bytes, not text: the trace holds invalid UTF-8 on purpose."""
    data = (source / "tests/golden/report-hostile-names/trace.csv").read_bytes()
    header, *rows = [line for line in data.split(b"\n") if line]
    out, start, correlation = [header], 100, 1
    for _ in range(12):
        for i, row in enumerate(rows):
            rest = row.split(b",", 3)[3]
            out.append(b"%d,%d,%d," % (start, 100 + 10 * i, correlation) + rest)
            correlation += 1
            start += 100 + 10 * i + 50 + 20 * (len(rows) - i)
        start += 300
    path = pathlib.Path(scratch) / "hostile-steps.csv"
    path.write_bytes(b"\n".join(out) + b"\n")
    return str(path)


def timeline_names(page):
    """(title, text) of the name cells in the timeline section."""
    section = page[page.index('<section id="timeline">'):]
    section = section[:section.index("</section>")]
    cells = re.findall(r'<td class="name" title="([^"]*)"><div class="clamp">(.*?)</div></td>',
                       section, flags=re.S)
    return [(html.unescape(title), html.unescape(text)) for title, text in cells]


def checker_catches_broken_pages(page, summary):
    """The check must fail pages that break each rule (else it could pass anything)."""
    broken = {
        "an image that loads": page.replace("<body>", '<body><img src="https://x/y.png">', 1),
        "a second script": page.replace("</body>", "<script>alert(1)</script></body>", 1),
        "an event handler": page.replace("<table>", '<table onclick="x()">', 1),
        "an untitled chart": page.replace("<title id=", "<desc id=", 1),
        "sections swapped": page.replace('id="headline"', 'id="tmp"', 1)
                                .replace('id="definitions"', 'id="headline"', 1)
                                .replace('id="tmp"', 'id="definitions"', 1),
        "a changed JSON value": page.replace('"kernel_count": ', '"kernel_count": 1', 1),
        # Every name cell of the kernel tables (the timeline's gap tables name some too).
        "kernel names dropped": page[:page.index('id="top-kernels"')] + page[
            page.index('id="top-kernels"'):].replace('<td class="name"', '<td class="x"'),
        "a hover name unlike its text": re.sub(r'(<td class="name" title=")', r"\1x", page, 1),
        "an unclosed element": page.replace("</figure>", "", 1),
    }
    return [f"the check passed a page with {what}"
            for what, text in broken.items() if not check_page(text, summary)]


def main():
    binary, source = sys.argv[1], pathlib.Path(sys.argv[2])
    failures = []
    with tempfile.TemporaryDirectory(prefix="stepstat-report-pages-") as scratch:
        example = str(source / "examples/gb10-dit-step/gb10-dit-step")
        hostile = str(source / "tests/golden/report-hostile-names/trace.csv")
        hostile_steps = write_hostile_steps(source, scratch)
        run(binary, ["synth", "--out", "run", "--steps", str(SYNTH_STEPS), "--nvtx"], scratch)
        cases = {
            "example": ([example], [example], ()),
            "hostile-names": ([hostile], [hostile], ()),
            "hostile-steps": ([hostile_steps], [hostile_steps], ()),
            "synth": (["run", "run_nvtx_pushpop_trace.csv"], ["run"], ("--steps", "denoise")),
        }
        pages = {}
        for name, (inputs, summary_inputs, extra) in cases.items():
            page, summary = page_and_summary(binary, inputs, summary_inputs, scratch, extra)
            pages[name] = page
            for problem in check_page(page.decode("utf-8"), summary):
                failures.append(f"{name}: {problem}")

        # Outside the JSON block (where `\"` is JSON's own escape), no hostile text survives raw.
        _, example_summary = page_and_summary(binary, *cases["example"][:2], scratch)
        failures += checker_catches_broken_pages(pages["example"].decode(), example_summary)
        hostile_page = pages["hostile-names"].decode()
        hostile_page = hostile_page[:hostile_page.index('<script type="application/json"')]
        for raw in ("<script>alert", "<b>bold", "k<float", "\" onmouseover"):
            if raw in hostile_page:
                failures.append(f"hostile-names: {raw!r} appears unescaped")

        # The timeline's gap tables name the kernels around each gap, escaped like every name.
        steps_page = pages["hostile-steps"].decode()
        shown = timeline_names(steps_page)
        for want in ("</script><script>alert(1)</script>", "k<float, 2>"):
            if (want, want) not in shown:
                failures.append(f"hostile-steps: {want!r} is not in the timeline's gap tables")
        body = steps_page[:steps_page.index('<script type="application/json"')]
        for raw in ("<script>alert", "k<float", "\" onmouseover"):
            if raw in body:
                failures.append(f"hostile-steps: {raw!r} appears unescaped")
        for name in ("synth", "hostile-steps"):
            page = pages[name].decode()
            if page.count('<svg class="chart"', page.index('<section id="timeline">'),
                          page.index('<section id="steps">')) != 2:
                failures.append(f"{name}: not two timeline strips (median and slowest step)")

        again, _ = page_and_summary(binary, *cases["synth"][:2], scratch, cases["synth"][2])
        if again != pages["synth"]:
            failures.append("synth: two runs gave different bytes")

        # Before and after: the synth run against a base whose nvfp4 GEMMs are 10 % faster.
        run(binary, ["synth", "--out", "base", "--steps", str(SYNTH_STEPS), "--nvtx", "--seed", "2",
                     "--slower", "nvfp4_gemms=-10"], scratch)
        diff_args = ["base", "run", "--steps", "denoise"]
        diff_json = run(binary, ["diff", *diff_args, "--format", "json"], scratch).decode()
        run(binary, ["report", "run", "run_nvtx_pushpop_trace.csv", "--steps", "denoise", "--vs",
                     "base", "-o", "page.html"], scratch)
        pages["synth-vs"] = (pathlib.Path(scratch) / "page.html").read_bytes()
        _, synth_summary = page_and_summary(binary, *cases["synth"][:2], scratch, cases["synth"][2])
        for problem in check_page(pages["synth-vs"].decode(), synth_summary, diff_json):
            failures.append(f"synth-vs: {problem}")
        run(binary, ["diff", *diff_args, "--format", "html", "-o", "page.html"], scratch)
        pages["diff"] = (pathlib.Path(scratch) / "page.html").read_bytes()
        for problem in check_page(pages["diff"].decode(), None, diff_json):
            failures.append(f"diff: {problem}")
        for name in ("synth-vs", "diff"):
            if not re.search(r"components\.nvfp4_gemms\.milliseconds: \+11\.\d % slower",
                             pages[name].decode()):
                failures.append(f"{name}: GEMMs 1/0.9 as long are not drawn +11 % slower")

        for name, file in (("synth", "synth-steps.html"), ("synth-vs", "synth-vs.html"),
                           ("diff", "diff.html")):
            golden = source / "tests/html/golden" / file
            page = pages[name]
            if os.environ.get("STEPSTAT_UPDATE_GOLDEN"):
                golden.write_bytes(page)
                print(f"rewrote {golden}")
            elif not golden.exists() or golden.read_bytes() != page:
                failures.append(f"{name}: the page differs from {golden} "
                                "(STEPSTAT_UPDATE_GOLDEN=1 rewrites it; review the diff)")
    for failure in failures:
        print("FAIL", failure)
    print(f"{len(pages)} pages checked, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
