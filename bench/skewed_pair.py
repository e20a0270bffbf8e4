#!/usr/bin/env python3
"""Writes a skewed nsys CSV pair: the shape that hung `summarize` (issue 11).

One stream of short-named kernels with an idle gap after each (so every kernel is its own
union component), launched by two CPU threads whose API calls overlap each other (so the
launch union has few, long components). The GPU-trace reader then runs far ahead of the
launch reader in union components, which is what exposed the two readers waiting on each
other. Both files use the 2024+ layouts (21-column GPU trace, 14-column kern-exec trace).

  bench/skewed_pair.py --out /tmp/skew --kernels 1100000   # about 480 MB in all
  bench/skewed_pair.py --out /tmp/skew --kernels 1100000 --burst 800
    (--burst: launches per overlapping run of API calls; short bursts interleave the sides)
"""
import argparse

GPU_HEADER = ("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,"
              "StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,"
              "Device,Ctx,GreenCtx,Strm,Name")
KEXEC_HEADER = ("API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),"
                "Kernel Dur (ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,"
                "Kernel Name")
NAMES = ["gemm_nt_128x64", "flash_fwd_kernel", "rms_norm_kernel", "quantize_nvfp4",
         "elementwise_add", "silu_mul_kernel", "rope_apply", "softmax_warp"]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="writes OUT_cuda_gpu_trace.csv and "
                        "OUT_cuda_kern_exec_trace.csv")
    parser.add_argument("--kernels", type=int, default=1_100_000)
    parser.add_argument("--burst", type=int, default=50_000,
                        help="launches per run of overlapping API calls (default 50000)")
    args = parser.parse_args()

    gpu_rows, kexec_rows = [], []
    api_start = 1_000_000
    gpu_free = api_start + 50_000
    for i in range(args.kernels):
        name = NAMES[(i * 7 + i // 13) % len(NAMES)]
        duration = 1_500 + (i * 37) % 2_000
        # Two threads alternate; each call lasts 3 us and starts 2 us after the previous
        # one, so a burst's calls chain into one union component. Between bursts the CPU
        # pauses, opening a gap in the launch union.
        if i % args.burst == 0 and i > 0:
            api_start += 20_000
        api_duration = 3_000
        tid = 70412 + (i % 2)
        queue_start = api_start + api_duration
        kernel_start = max(gpu_free, queue_start + 500)
        gpu_free = kernel_start + duration + 400  # an idle gap after every kernel
        corr = i + 1
        gpu_rows.append(f"{kernel_start},{duration},{corr},1,1,1,128,1,1,32,0.000,0.000,,,,,"
                        f"NVIDIA GB10 (0),1,,7,{name}")
        kexec_rows.append(f"{api_start},{api_duration},{queue_start},{kernel_start - queue_start},"
                          f"{kernel_start},{duration},{kernel_start + duration - api_start},"
                          f"70412,{tid},0,cudaLaunchKernel,   1    1    1, 128    1    1,{name}")
        api_start += 2_000
        if len(gpu_rows) >= 100_000:
            flush(args.out, gpu_rows, kexec_rows)
    flush(args.out, gpu_rows, kexec_rows)


_opened = set()


def flush(out, gpu_rows, kexec_rows):
    for suffix, header, rows in (("_cuda_gpu_trace.csv", GPU_HEADER, gpu_rows),
                                 ("_cuda_kern_exec_trace.csv", KEXEC_HEADER, kexec_rows)):
        path = out + suffix
        first = path not in _opened
        _opened.add(path)
        with open(path, "w" if first else "a") as f:
            if first:
                f.write(header + "\n")
            f.write("\n".join(rows))
            if rows:
                f.write("\n")
        rows.clear()


if __name__ == "__main__":
    main()
