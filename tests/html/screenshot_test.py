#!/usr/bin/env python3
"""Headless Chromium renders each golden `stepstat report` page: a screenshot of the expected
size that is not blank (colored charts drawn), and no console message (a CSP violation or a
script error would be one). No network: names resolve nowhere and the proxy is a closed port.
A page with an inline script and a remote image must produce console messages, so that the
check is known to see them. Skips (exit 77) when neither chromium-headless-shell nor chromium
is installed (scripts/setup installs chromium-headless-shell).

usage: screenshot_test.py SOURCE_DIR [SCREENSHOT_DIR]
"""
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 1100, 2400
PAGES = ["tests/golden/report-example/stdout", "tests/golden/report-hostile-names/stdout",
         "tests/html/golden/synth-steps.html", "tests/html/golden/synth-vs.html",
         "tests/html/golden/diff.html"]


def browser():
    for name in ("chromium-headless-shell", "chromium"):
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(chrome, page, png, profile):
    args = [chrome]
    if not chrome.endswith("headless-shell"):
        args.append("--headless")
    args += ["--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--enable-logging=stderr", "--v=0", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--proxy-server=127.0.0.1:9", f"--user-data-dir={profile}",
             f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={png}", page.as_uri()]
    result = subprocess.run(args, capture_output=True, timeout=120)
    log = result.stderr.decode(errors="replace")
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    return result.returncode, console


def decode_png(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, color = header[:4]
    assert depth == 8 and color in (2, 6), f"unexpected PNG format {depth}/{color}"
    channels = 3 if color == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def rendered(png):
    """Problems with a screenshot: wrong size, blank, or no chart colors."""
    width, height, channels, rows = decode_png(png.read_bytes())
    if (width, height) != (WIDTH, HEIGHT):
        return [f"{png.name}: {width}x{height}, want {WIDTH}x{HEIGHT}"]
    colors, ink = set(), 0
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            pixel = row[x:x + 3]
            colors.add(pixel)
            ink += pixel != b"\xff\xff\xff"
    samples = (height // 4) * (width // 4)
    problems = []
    if ink < samples * 0.05:
        problems.append(f"{png.name}: nearly blank ({ink} of {samples} samples not white)")
    # Okabe-Ito blue and orange are the first two component colors of every page.
    for name, rgb in (("blue", b"\x00\x72\xb2"), ("orange", b"\xe6\x9f\x00")):
        if rgb not in colors:
            problems.append(f"{png.name}: no {name} chart pixels")
    return problems


def main():
    source = pathlib.Path(sys.argv[1])
    chrome = browser()
    if chrome is None:
        print("SKIP: no chromium-headless-shell or chromium (scripts/setup installs it)")
        return 77
    keep = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else None
    failures = []
    with tempfile.TemporaryDirectory(prefix="stepstat-screenshots-") as scratch:
        scratch = pathlib.Path(scratch)
        for page_path in PAGES:
            page = scratch / (page_path.replace("/", "-") + ".html")
            shutil.copyfile(source / page_path, page)
            png = page.with_suffix(".png")
            code, console = screenshot(chrome, page, png, scratch / "profile")
            if code != 0 or not png.exists():
                failures.append(f"{page_path}: chromium exited {code} without a screenshot")
                continue
            failures += [f"{page_path}: console: {line}" for line in console]
            failures += [f"{page_path}: {problem}" for problem in rendered(png)]
            if keep:
                keep.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(png, keep / png.name)
        bad = scratch / "bad.html"
        bad.write_text((source / PAGES[0]).read_text().replace(
            "<body>", '<body><script>console.log(1)</script><img src="https://example.com/x.png">', 1))
        _, console = screenshot(chrome, bad, scratch / "bad.png", scratch / "profile")
        if len(console) < 2:
            failures.append(f"a page with a script and a remote image logged {console}: "
                            "console messages are not seen")
    for failure in failures:
        print("FAIL", failure)
    print(f"{len(PAGES)} pages rendered, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
