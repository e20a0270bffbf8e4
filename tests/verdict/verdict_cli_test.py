#!/usr/bin/env python3
"""Issue 30 as a user meets it, through the real binary: verdicts that name what moved, gates
that keep to their own limit, pairs that cannot be compared, the ledger that keeps up, and
A/A pairs that never alarm.

Slow-downs come two ways: `synth --slower` and slow_down.py beside this file, which
stretches kernels in a written capture and shifts every later GPU timestamp (an independent
implementation of "the same run, those kernels slower").

usage: verdict_cli_test.py STEPSTAT_BINARY SHARED_DIR [A/A PAIRS]
  SHARED_DIR holds data/real (the real traces; their cases skip when absent).
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

BINARY = str(pathlib.Path(sys.argv[1]).resolve())
REAL = pathlib.Path(sys.argv[2]) / "data" / "real"
AA_PAIRS = int(sys.argv[3]) if len(sys.argv) > 3 else 50
SLOW_DOWN = pathlib.Path(__file__).with_name("slow_down.py")
failures = []


def run(args, cwd, env=None):
    proc = subprocess.run([BINARY] + args, cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=600)
    return proc.returncode, proc.stdout, proc.stderr


def diff(cwd, *args, code=0):
    rc, out, err = run(["diff", *args, "--format", "json"], cwd)
    check(rc == code, f"diff {' '.join(args)}: exit {rc}, expected {code}: {err}")
    return json.loads(out) if out else {}


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def synth(cwd, *args):
    rc, _, err = run(["synth", "--quiet", *args], cwd)
    assert rc == 0, err


def gemm_regression(cwd):
    synth(cwd, "--out", "base", "--steps", "20", "--nvtx")
    synth(cwd, "--out", "gemm5", "--steps", "20", "--nvtx", "--slower", "nvfp4_gemms=5")
    subprocess.run([sys.executable, SLOW_DOWN, "base", "shifted", "cutlass|gemm", "5"],
                   cwd=cwd, check=True)
    for cand in ("gemm5", "shifted"):
        d = diff(cwd, "base", cand)
        reason = d.get("verdict_reason", "")
        check(d.get("verdict") == "regression", f"{cand}: {d.get('verdict')}: {reason}")
        check(reason.startswith("nvfp4_gemms +5.0 %"), f"{cand}: reason {reason!r}")
        check("step span +1.0 %" in reason, f"{cand}: reason {reason!r}")
        gate = diff(cwd, "base", cand, "--fail-if-slower", "0.5", code=1)["gates"][0]
        check("is past the limit +0.5 %" in gate["why"] and "(p = " in gate["why"],
              f"{cand}: gate {gate}")
        gate = diff(cwd, "base", cand, "--fail-if-slower", "2")["gates"][0]
        check(gate["passed"] and "is within the limit +2 %" in gate["why"], f"{cand}: {gate}")


def one_capture_a_side(cwd):
    knn = REAL / "hcc_h100nvl_knn_cc_cuda_gpu_trace.csv"
    if not knn.exists():
        print("skip: one capture a side,", knn, "is absent")
        return
    (cwd / "knn_cuda_gpu_trace.csv").write_bytes(knn.read_bytes())
    # cuComputeDistanceGlobal holds 5.8 % of the kernel time; 50 % slower per call.
    subprocess.run([sys.executable, SLOW_DOWN, "knn", "knnslow", "cuComputeDistanceGlobal",
                    "50"], cwd=cwd, check=True)
    d = diff(cwd, "knn", "knnslow")
    check(d.get("verdict") == "regression", f"knn: {d.get('verdict_reason')}")
    check("kernel cuComputeDistanceGlobal +50.0 % per call" in d.get("verdict_reason", ""),
          f"knn: {d.get('verdict_reason')}")
    moved = [k for k in d.get("kernels", []) if k["decides"]]
    check(len(moved) == 1 and moved[0]["p"] < 1e-100, f"knn kernels: {moved}")


def different_programs(cwd):
    alexnet = REAL / "hta_alexnet_a100_kineto.json"
    recsys = REAL / "hta_a100_80g_rank0_ws16_kineto.json.gz"
    if not (alexnet.exists() and recsys.exists()):
        print("skip: different programs, the HTA traces are absent")
        return
    d = diff(cwd, str(alexnet), str(recsys), "--fail-if-slower", "5", code=1)
    check(d.get("verdict") == "not_comparable", f"alexnet vs recsys: {d.get('verdict')}")
    check(not d["gates"][0]["passed"] and "not comparable" in d["gates"][0]["why"],
          f"gate {d['gates']}")
    anyway = diff(cwd, str(alexnet), str(recsys), "--allow-different")
    check(anyway.get("verdict") != "not_comparable", "--allow-different still refused")


def real_traces_against_themselves(cwd):
    if not REAL.exists():
        print("skip: real traces absent")
        return
    for trace in sorted(REAL.iterdir()):
        name = trace.name
        if not (name.endswith(("_cuda_gpu_trace.csv", ".sqlite", "kineto.json", "kineto.json.gz"))):
            continue
        d = diff(cwd, str(trace), str(trace), "--fail-if-slower", "1")
        check(d.get("verdict") == "neutral", f"{name} vs itself: {d.get('verdict_reason')}")


def aa_pairs(cwd):
    alarms = 0
    for k in range(AA_PAIRS):
        a, b = 2 + 2 * k, 3 + 2 * k  # seed 1's first step is fitted to the reference: not A/A
        synth(cwd, "--out", "aa", "--steps", "12", "--nvtx", "--seed", str(a))
        synth(cwd, "--out", "bb", "--steps", "12", "--nvtx", "--seed", str(b))
        rc, out, err = run(["diff", "aa", "bb", "--fail-if-slower", "1", "--format", "json"], cwd)
        d = json.loads(out)
        if rc != 0 or d["verdict"] != "neutral":
            alarms += 1
            print(f"A/A seeds {a},{b}: exit {rc}, {d['verdict']}: {d['verdict_reason']}")
    print(f"A/A: {alarms} of {AA_PAIRS} pairs alarmed")
    check(alarms == 0, f"{alarms} of {AA_PAIRS} A/A pairs alarmed")


def ledger(cwd):
    for args in (["history", "--ledger", "nope/typo.sqlite"],
                 ["baseline", "list", "--ledger", "nope/typo.sqlite"],
                 ["diff", "@latest", "base", "--ledger", "nope/typo.sqlite"]):
        rc, out, err = run(args, cwd)
        check(rc == 2 and "no ledger here" in err and out == "", f"{args}: {rc} {err!r}")
        check(not (cwd / "nope").exists(), f"{args} created nope/")
    ledger_flag = ["--ledger", "l.sqlite"]
    rc, _, err = run(["record", "base", "--label", "dit", *ledger_flag], cwd)
    check(rc == 0, err)
    rc, recorded, err = run(["record", "gemm5", "--label", "dit", *ledger_flag], cwd)
    check(rc == 0, err)
    d = diff(cwd, "@1", "@2", *ledger_flag)
    check(f"vs run 1: regression — {d.get('verdict_reason')}" in recorded,
          f"record said {recorded!r}, diff {d.get('verdict_reason')!r}")
    rc, out, err = run(["history", "--regressions", "--format", "json", *ledger_flag], cwd)
    runs = json.loads(out)["runs"] if rc == 0 else []
    check([r["id"] for r in runs] == [2], f"history --regressions: {runs}")

    # Three runs of one code measure the floor: one tag value, or one commit when the
    # scratch folder sits inside a git work tree (the commit wins a tie).
    for seed in (4, 5, 6):
        synth(cwd, "--out", f"s{seed}", "--steps", "12", "--nvtx", "--seed", str(seed))
        rc, _, err = run(["record", f"s{seed}", "--label", "noise", "--tag", "code=a",
                          *ledger_flag], cwd)
        check(rc == 0, err)
    d = diff(cwd, "label:noise", "s4", *ledger_flag)
    options = d.get("options", {})
    check(options.get("noise_floor_source") == "measured" and
          ("3 runs (1 value of tag code)" in options.get("noise_floor_how", "") or
           "3 runs (1 commit)" in options.get("noise_floor_how", "")),
          f"floor: {options}")


def main():
    with tempfile.TemporaryDirectory(prefix="stepstat_verdict_") as tmp:
        cwd = pathlib.Path(tmp)
        os.environ.pop("STEPSTAT_LEDGER", None)
        for case in (gemm_regression, one_capture_a_side, different_programs,
                     real_traces_against_themselves, ledger, aa_pairs):
            case(cwd)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
