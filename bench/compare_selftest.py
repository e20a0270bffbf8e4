"""`bench/compare --self-test`: checks the pandas and DuckDB references (and stepstat, when
built) on inputs whose answers are known, before anyone trusts them on 1 GB:

1. a hand-made pair with concurrent kernels, a tie on start, a kernel that starts exactly
   at the frontier, a zero-length memset and launch call, a quoted name with a comma and
   `""`, and one component `exclude`; every answer is worked out in the comments below;
2. the real 4-stream RTX 2080 Ti trace (GPU trace only), and the real H100 launch trace
   (kern-exec, with a GPU trace made of its own kernel columns), against plain per-row loops;
3. the researched kernel names (shared/data/kernel-names/labeled.tsv), one kernel each with
   its own duration, against the component each name is labelled with;
4. examples/gb10-dit-step/ against the spec's reference JSON, once that example exists;
5. a small `stepstat synth` run (3 steps, 2 streams) in every format: stepstat on its SQLite
   and Kineto files, and the sqlite3 floor's two integers, against pandas on its CSV pair.
"""
import csv
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

GPU_HEADER = ("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
              "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name")
KERNEL = ",148,1,1,128,1,1,32,0.000,0.000,,,,,NVIDIA GB10 (0),1,,7,"
MEMORY = ",,,,,,,,,,0.004,1.000,Pinned,Device,NVIDIA GB10 (0),1,,7,"
ABS = ('"void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, '
       'at::detail::Array<char*, 2> >(int, at::native::AbsFunctor<float>, at::detail::Array<char*, 2>)"')
# (start, duration, row tail); intervals in the comments are [start, end).
HAND_GPU_ROWS = [
    (100, 50, MEMORY + "[CUDA memcpy Host-to-Device]"),                  # op [100,150)
    (200, 100, KERNEL + '"qk_int8_sv_f8_attn_kernel<128, 64>(int, float*)"'),  # sage2 [200,300)
    (250, 30, KERNEL + "cutlass3x_sm120_bstensorop_s16864gemm_block_scaled_x"),  # gemms, inside the one before
    (290, 40, KERNEL + ABS),                                             # packing [290,330)
    (330, 10, KERNEL + "fused_add_mul_kernel"),                          # gate_add, starts at the frontier: no gap
    (400, 20, KERNEL + "flash_fp4_gemm_attn"),                           # gemm pattern, but excluded: other
    (400, 5, KERNEL + "rms_norm_kernel"),                                # norm; same start, sorts first
    (500, 0, MEMORY + "[CUDA memset]"),                                  # op, zero length
    (600, 100, KERNEL + "QuantInt8Kernel"),                              # sage2 [600,700)
    (650, 10, KERNEL + '"Some_Other, ""quoted"" kernel"'),               # other, inside the one before
    (800, 50, MEMORY + "[CUDA memcpy Device-to-Host]"),                  # op, last end 850
]
EXEC_HEADER = ("API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
               "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name")
HAND_API = [(150, 60), (205, 55), (180, 10), (340, 60), (590, 20), (690, 30), (720, 0)]  # not sorted
HAND_EXPECTED = {
    "span_ns": 750,                 # 850 - 100
    "gpu_operation_count": 11,
    "kernel_count": 8,
    "kernel_time_ns": 315,          # 100+30+40+10+20+5+100+10
    # sorted by (start, end): frontier 300, 300, 330, 340 | 400-340 = 60 | 405, 420 | 600-420 = 180
    "gap_count": 2, "gap_total_ns": 240, "gap_max_ns": 180,
    # API union [150,260) [340,400) [590,610) [690,720) = 110+60+20+30
    "launch_union_ns": 220,
    # kernel union [200,340) [400,420) [600,700): overlap [200,260) + [600,610) + [690,700)
    "launch_overlap_ns": 80,
    "components": {
        "sage2": {"launches": 2, "time_ns": 200},
        "nvfp4_gemms": {"launches": 1, "time_ns": 30},
        "nvfp4_packing": {"launches": 1, "time_ns": 40},
        "norm_and_rope": {"launches": 1, "time_ns": 5},
        "remaining_gate_add": {"launches": 1, "time_ns": 10},
        "other": {"launches": 2, "time_ns": 30},
    },
}


def write_hand_pair(work):
    work.mkdir(parents=True, exist_ok=True)
    base = work / "hand"
    rows = [GPU_HEADER] + [f"{s},{d},{i + 1}{tail}" for i, (s, d, tail) in enumerate(HAND_GPU_ROWS)]
    Path(f"{base}_cuda_gpu_trace.csv").write_text("\n".join(rows) + "\n")
    rows = [EXEC_HEADER] + [f"{s},{d},,,0,0,,1,1,0,cudaLaunchKernel,  148    1    1,  128    1    1,k"
                            for s, d in HAND_API]
    Path(f"{base}_cuda_kern_exec_trace.csv").write_text("\r\n".join(rows) + "\r\n")
    return base


def write_labeled_names(work, labeled_path):
    """A GPU trace with one back-to-back kernel per labelled name (duration i + 1), and the
    per-component launches and time the labels call for."""
    lines = Path(labeled_path).read_text().splitlines()[1:]
    components = {}
    rows, start = [GPU_HEADER], 1000
    for i, line in enumerate(lines):
        label, name = line.split("\t", 1)
        quoted = '"' + name.replace('"', '""') + '"'
        rows.append(f"{start},{i + 1},{i}{KERNEL}{quoted}")
        start += i + 1
        entry = components.setdefault(label, {"launches": 0, "time_ns": 0})
        entry["launches"] += 1
        entry["time_ns"] += i + 1
    path = work / "labeled_cuda_gpu_trace.csv"
    path.write_text("\n".join(rows) + "\n")
    return path, components


def merged(intervals):
    """The union of [start, end) intervals as a sorted list of disjoint ones, by a loop."""
    out = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def naive_overlap(a, b):
    """Length of the intersection of two sorted disjoint interval lists, pair by pair."""
    return sum(max(0, min(ae, be) - max(as_, bs)) for as_, ae in a for bs, be in b)


def write_pair_from_kern_exec(work, kern_exec_path):
    """A GPU trace made of a kern-exec trace's own kernel columns, so its real launch calls
    have real kernels to overlap."""
    with open(kern_exec_path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    lines = [GPU_HEADER] + [f"{r['Kernel Start (ns)']},{r['Kernel Dur (ns)']},{i}{KERNEL}"
                            + '"' + r["Kernel Name"].replace('"', '""') + '"'
                            for i, r in enumerate(rows)]
    base = work / "kern_exec_pair"
    Path(f"{base}_cuda_gpu_trace.csv").write_text("\n".join(lines) + "\n")
    Path(f"{base}_cuda_kern_exec_trace.csv").write_bytes(Path(kern_exec_path).read_bytes())
    return base


def naive_summary(gpu_path, policy_path, kern_exec_path=None):
    """A per-row loop over the traces: slow, obvious, independent of both references."""
    doc = tomllib.loads(Path(policy_path).read_text())
    flags = re.ASCII | (0 if doc.get("policy", {}).get("case_sensitive") else re.IGNORECASE)
    rules = [(c["name"], [re.compile(p, flags) for p in c.get("patterns", [])],
              [re.compile(p, flags) for p in c.get("exclude", [])]) for c in doc.get("component", [])]
    components = {name: {"launches": 0, "time_ns": 0} for name, _, _ in rules}
    components["other"] = {"launches": 0, "time_ns": 0}
    with open(gpu_path, newline="", encoding="utf-8-sig") as f:
        ops = [(int(r["Start (ns)"]), int(r["Duration (ns)"]), r["Name"]) for r in csv.DictReader(f)]
    kernels = sorted((s, s + d) for s, d, name in ops if not name.startswith("[CUDA mem"))
    for s, d, name in ops:
        if name.startswith("[CUDA mem"):
            continue
        chosen = next((n for n, pats, excl in rules
                       if any(p.search(name) for p in pats) and not any(x.search(name) for x in excl)),
                      "other")
        components[chosen]["launches"] += 1
        components[chosen]["time_ns"] += d
    gaps, frontier = [], None
    for start, end in kernels:
        if frontier is not None and start > frontier:
            gaps.append(start - frontier)
        frontier = end if frontier is None else max(frontier, end)
    summary = {"span_ns": max(s + d for s, d, _ in ops) - min(s for s, _, _ in ops) if ops else 0,
            "gpu_operation_count": len(ops), "kernel_count": len(kernels),
            "kernel_time_ns": sum(e - s for s, e in kernels), "gap_count": len(gaps),
            "gap_total_ns": sum(gaps), "gap_max_ns": max(gaps, default=0),
            "launch_union_ns": None, "launch_overlap_ns": None, "components": components}
    if kern_exec_path is not None:
        with open(kern_exec_path, newline="", encoding="utf-8-sig") as f:
            launches = merged((int(r["API Start (ns)"]), int(r["API Start (ns)"]) + int(r["API Dur (ns)"]))
                              for r in csv.DictReader(f))
        summary["launch_union_ns"] = sum(e - s for s, e in launches)
        summary["launch_overlap_ns"] = naive_overlap(launches, merged(kernels))
    return summary


def run_tools(bench, root, stepstat, base, files, policy):
    """{tool: integers} for the references, and stepstat when it is built."""
    import compare  # the bench/compare script, loaded for its mapping and diff helpers
    commands = compare.commands(stepstat, str(base), files[0], files[1] if len(files) > 1 else None,
                                policy, ["--policy", str(policy)])
    results = {}
    for tool in ("stepstat", "pandas", "duckdb"):
        if tool == "stepstat" and not stepstat.exists():
            continue
        done = subprocess.run(commands[tool], capture_output=True, text=True)
        if done.returncode != 0:
            results[tool] = {"error": done.stderr.strip()}
            continue
        results[tool] = compare.parse_integers(tool, done.stdout)
    return results


def check(case, results, expected):
    import compare
    failed = False
    for tool, integers in results.items():
        if "error" in integers:
            failed = True
            print(f"FAIL  {case}: {tool} failed: {integers['error']}")
            continue
        differences = compare.mismatches({"expected": expected, tool: integers})
        if differences:
            failed = True
            print(f"FAIL  {case}: {tool}\n" + "\n".join(differences))
        else:
            print(f"ok    {case}: {tool}")
    return failed


def load_compare(bench):
    """bench/compare has no .py suffix: load it as the module `compare`."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("compare", str(bench / "compare"))
    spec = importlib.util.spec_from_loader("compare", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules["compare"] = module


def run(bench, root, stepstat):
    load_compare(bench)
    import compare
    compare.ensure_duckdb()
    policy = compare.default_policy()
    failed = False

    base = write_hand_pair(bench / "work")
    files = list(compare.trace_pair(base))
    failed |= check("hand-made pair", run_tools(bench, root, stepstat, base, files, policy), HAND_EXPECTED)

    four_stream = root.parent / "shared/data/real/cudalearning_rtx2080ti_4stream_cuda_gpu_trace.csv"
    if four_stream.exists():
        base = Path(str(four_stream).removesuffix("_cuda_gpu_trace.csv"))
        failed |= check("real 4-stream trace vs a per-row loop",
                        run_tools(bench, root, stepstat, base, [four_stream], policy),
                        naive_summary(four_stream, policy))
    else:
        print(f"skip  real 4-stream trace: {four_stream} absent")

    launch_trace = root.parent / "shared/data/real/hcc_h100nvl_cclaunch_foo_cuda_kern_exec_trace.csv"
    if launch_trace.exists():
        base = write_pair_from_kern_exec(bench / "work", launch_trace)
        files = list(compare.trace_pair(base))
        failed |= check("real H100 launch trace (kern-exec) vs a per-row loop",
                        run_tools(bench, root, stepstat, base, files, policy),
                        naive_summary(files[0], policy, files[1]))
    else:
        print(f"skip  real H100 launch trace: {launch_trace} absent")

    labeled = root.parent / "shared/data/kernel-names/labeled.tsv"
    if labeled.exists():
        path, labels = write_labeled_names(bench / "work", labeled)
        expected = naive_summary(path, policy)
        for name, entry in expected["components"].items():
            entry.update(labels.get(name, {"launches": 0, "time_ns": 0}))
        base = Path(str(path).removesuffix("_cuda_gpu_trace.csv"))
        failed |= check("labeled kernel names vs their labels",
                        run_tools(bench, root, stepstat, base, [path], policy), expected)
    else:
        print(f"skip  labeled kernel names: {labeled} absent")

    example = root / "examples/gb10-dit-step"
    reference = root.parent / "shared/spec/gb10-post-fc2-warmed-step-stats.json"
    gpu_files = sorted(example.glob("*_cuda_gpu_trace.csv")) if example.is_dir() else []
    if gpu_files and reference.exists():
        base = Path(str(gpu_files[0]).removesuffix("_cuda_gpu_trace.csv"))
        files = [f for f in compare.trace_pair(base) if f.exists()]
        expected = compare.integers_from_stepstat(json.loads(reference.read_text()))
        failed |= check("examples/gb10-dit-step vs the spec's reference JSON",
                        run_tools(bench, root, stepstat, base, files, policy), expected)
    else:
        print("skip  examples/gb10-dit-step: not on this branch yet")

    if stepstat.exists():
        failed |= check_synth_formats(bench, stepstat, policy)
    else:
        print("skip  synth formats: stepstat not built")
    return 1 if failed else 0


def check_synth_formats(bench, stepstat, policy):
    """One synthetic run in the three formats: what stepstat (and the sqlite3 floor) reads from
    the SQLite and Kineto files must equal what pandas reads from the CSV pair."""
    import compare
    base = bench / "work" / "selftest-formats"
    for fmt in ("csv",) + tuple(compare.DEFAULT_FORMATS):
        compare.synthesize(stepstat, base, 3, 2, fmt)
    if subprocess.run(["/usr/bin/python3", str(bench / "short_rows.py"), str(base),
                       f"{base}{compare.FORMATS['csv-short']['suffix']}"]).returncode != 0:
        print("FAIL  synth formats: short_rows.py failed")
        return True
    pair = [str(f) for f in compare.trace_pair(base)]
    done = subprocess.run(["/usr/bin/python3", str(bench / "pandas_summary.py")] + pair +
                          ["--policy", str(policy)], capture_output=True, text=True)
    if done.returncode != 0:
        print(f"FAIL  synth formats: pandas failed: {done.stderr.strip()}")
        return True
    expected = compare.parse_integers("pandas", done.stdout)
    failed = False
    for fmt, spec in compare.FORMATS.items():
        path = Path(f"{base}{spec['suffix']}")
        for row, command in compare.format_commands(stepstat, fmt, path, ["--policy", str(policy)]).items():
            if not compare.checked(row) or (row.endswith(":sqlite3") and not shutil.which("sqlite3")):
                continue
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                failed = True
                print(f"FAIL  synth formats: {row} failed: {done.stderr.strip()}")
                continue
            differences = compare.format_mismatches(expected, compare.parse_integers(row, done.stdout),
                                                    trace_keys_only=fmt == "csv-short")
            if differences:
                failed = True
                print(f"FAIL  synth formats: {row} vs pandas on the CSV pair\n" + "\n".join(differences))
            else:
                print(f"ok    synth formats: {row} vs pandas on the CSV pair")
    return failed
