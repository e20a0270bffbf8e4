#!/usr/bin/env python3
"""The progress line (issue 17, item 5) through the real binary, with stderr on a
pseudo-terminal: every command that reads traces draws `stepstat: reading ...` there and
erases it before anything else is written; stdout (a pipe) holds exactly the bytes of a run
without a terminal; `--quiet` draws nothing; with stderr not a terminal nothing is drawn.

STEPSTAT_PROGRESS_AFTER_MS=0 (a knob for tests) shows the line from the start instead of
after a second, so a synth run of a few dozen steps is enough.

usage: progress_pty_test.py STEPSTAT_BINARY
"""
import os
import pathlib
import pty
import re
import select
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 120
DRAW = re.compile(rb"\rstepstat: reading [^\r\n\x1b]*\x1b\[K")
CLEAR = b"\r\x1b[K"
# bytes of total, rate, time left: what the line says mid-read.
FULL = re.compile(rb"stepstat: reading \d+(\.\d)? [kMGTPE]?B of \d+(\.\d)? [kMGTPE]?B, "
                  rb"\d+(\.\d)? [kMGTPE]?B/s, \d+ (s|min|h)[^\r\x1b]* left")


def on_pty(binary, args, cwd, env):
    """Runs stepstat with stderr on a pty, stdout on a pipe: (exit code, stdout, pty bytes)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([binary] + args, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    deadline = time.monotonic() + TIMEOUT_S
    transcript, out = b"", b""
    fds = [master, proc.stdout.fileno()]
    while fds:
        left = deadline - time.monotonic()
        if left <= 0:
            proc.kill()
            raise AssertionError(f"stepstat {' '.join(args)}: no end in {TIMEOUT_S} s")
        ready, _, _ = select.select(fds, [], [], left)
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the pty's last writer closed
                chunk = b""
            if not chunk:
                fds.remove(fd)
            elif fd == master:
                transcript += chunk
            else:
                out += chunk
    os.close(master)
    return proc.wait(timeout=TIMEOUT_S), out, transcript


def piped(binary, args, cwd, env):
    result = subprocess.run([binary] + args, cwd=cwd, env=env, capture_output=True,
                            stdin=subprocess.DEVNULL, timeout=TIMEOUT_S)
    return result.returncode, result.stdout, result.stderr


def check_command(binary, name, args, cwd, env, full_line=False):
    code, out, transcript = on_pty(binary, args, cwd, env)
    want_code, want_out, want_err = piped(binary, args, cwd, env)
    where = f"stepstat {' '.join(args)}"
    assert code == want_code, f"{where}: exit {code} on a pty, {want_code} without"
    assert out == want_out, f"{where}: stdout differs with stderr on a terminal"
    assert b"\r" not in want_err and b"reading" not in want_err, \
        f"{where}: progress on a stderr that is not a terminal: {want_err!r}"
    draws = DRAW.findall(transcript)
    assert draws, f"{where}: no progress line on the pty: {transcript!r}"
    if full_line:
        assert any(FULL.search(d) for d in draws), \
            f"{where}: no line with bytes of total, rate and time left: {draws!r}"
    # The last draw is erased before anything else reaches the terminal.
    last = max(m.end() for m in DRAW.finditer(transcript))
    assert transcript[last:].startswith(CLEAR), \
        f"{where}: the line is not erased after the last draw: {transcript[last:]!r}"
    # Without the draws and erasures, the terminal saw exactly what a pipe gets (the pty
    # turns "\n" into "\r\n").
    rest = DRAW.sub(b"", transcript).replace(CLEAR, b"").replace(b"\r\n", b"\n")
    assert rest == want_err, f"{where}: stderr mixed: {rest!r} vs {want_err!r}"
    # --quiet: nothing drawn, the same messages.
    code, out, transcript = on_pty(binary, args + ["--quiet"], cwd, env)
    assert code == want_code and out == want_out, f"{where} --quiet: other result"
    assert b"reading" not in transcript and b"\x1b" not in transcript, \
        f"{where} --quiet: drew on the terminal: {transcript!r}"
    assert transcript.replace(b"\r\n", b"\n") == want_err, f"{where} --quiet: other messages"
    print(f"ok: {name} ({len(draws)} draws)")


def main():
    binary = os.path.abspath(sys.argv[1])
    env = dict(os.environ, STEPSTAT_PROGRESS_AFTER_MS="0", TERM="xterm", COLUMNS="200")
    env.pop("STEPSTAT_LEDGER", None)
    with tempfile.TemporaryDirectory(prefix="stepstat_progress_") as tmp:
        cwd = pathlib.Path(tmp)
        # ~150 MB a pair: `steps` reads its GPU trace three times, for about a second, long
        # enough for a draw mid-read; the other commands draw at least their first line.
        subprocess.run([binary, "synth", "--out", "run", "--steps", "80"], cwd=cwd,
                       check=True, capture_output=True, timeout=TIMEOUT_S)
        subprocess.run([binary, "synth", "--out", "after", "--steps", "80", "--slower",
                        "nvfp4_gemms=10"], cwd=cwd, check=True, capture_output=True,
                       timeout=TIMEOUT_S)
        for fmt in ("sqlite", "kineto"):  # read through libsqlite3 and a padded map
            subprocess.run([binary, "synth", "--out", "other", "--steps", "20", "--format", fmt],
                           cwd=cwd, check=True, capture_output=True, timeout=TIMEOUT_S)
        (cwd / "job").mkdir()
        for rank, base in (("0", "run"), ("1", "after")):
            for side in ("cuda_gpu_trace", "cuda_kern_exec_trace"):
                (cwd / "job" / f"rank{rank}_{side}.csv").symlink_to(cwd / f"{base}_{side}.csv")
        check_command(binary, "steps", ["steps", "run", "--format", "json"], cwd, env,
                      full_line=True)
        check_command(binary, "summarize", ["summarize", "run", "--details", "--format", "json"],
                      cwd, env)
        check_command(binary, "classify", ["classify", "run", "--format", "csv"], cwd, env)
        check_command(binary, "policies --check", ["policies", "--check", "run"], cwd, env)
        check_command(binary, "diff", ["diff", "run", "after", "--format", "json"], cwd, env)
        check_command(binary, "ranks", ["ranks", "job", "--format", "json", "-j", "2"], cwd, env)
        check_command(binary, "report", ["report", "run", "-o", "-"], cwd, env)
        check_command(binary, "steps (SQLite)", ["steps", "other.sqlite", "--format", "json"],
                      cwd, env)
        check_command(binary, "steps (Kineto)",
                      ["steps", "other.pt.trace.json", "--format", "json"], cwd, env)
        check_record(binary, cwd, env)
        # A command that reads no trace has nothing to show, however long it runs.
        code, _, transcript = on_pty(binary, ["synth", "--out", "quiet", "--steps", "2"], cwd, env)
        assert code == 0 and b"reading" not in transcript and b"\x1b" not in transcript, \
            f"synth drew a progress line: {transcript!r}"
        print("ok: synth draws nothing")
    return 0


def check_record(binary, cwd, env):
    """record prints its run number: each run gets a ledger of its own."""
    args = ["record", "run", "--label", "progress"]
    runs = []
    for ledger, runner in (("l1.sqlite", on_pty), ("l2.sqlite", piped)):
        runs.append(runner(binary, args + ["--ledger", ledger], cwd, env))
    (code, out, transcript), (want_code, want_out, want_err) = runs
    assert code == want_code == 0 and out == want_out, "record: other result on a pty"
    assert DRAW.search(transcript), f"record: no progress line: {transcript!r}"
    rest = DRAW.sub(b"", transcript).replace(CLEAR, b"").replace(b"\r\n", b"\n")
    assert rest == want_err, f"record: stderr mixed: {rest!r}"
    print("ok: record")


if __name__ == "__main__":
    sys.exit(main())
