// What each input format holds and how it is best read, asked by capability. The one place
// outside a format's own reader that tells the formats apart (issue 31): a pass asks "are
// this file's GPU operations its launch rows?", never "is it a kern-exec CSV?", so a new
// format answers these questions here instead of in every pass that reads it.
#pragma once

#include "stepstat/read.h"

namespace stepstat {

/// Per-kernel totals (cuda_gpu_kern_sum), not a trace: only a kernel listing reads it.
constexpr bool IsKernelSummary(InputKind kind) { return kind == InputKind::kNsysGpuKernSumCsv; }

/// CPU ranges only (an NVTX CSV): it marks steps and holds no GPU work.
constexpr bool IsStepRanges(InputKind kind) { return kind == InputKind::kNsysNvtxTraceCsv; }

/// GPU operations alone, one row each (a cuda_gpu_trace CSV).
constexpr bool IsGpuOperationsCsv(InputKind kind) { return kind == InputKind::kNsysGpuTraceCsv; }

/// Launch calls alone, one row each (a cuda_kern_exec_trace or cuda_api_trace CSV).
constexpr bool IsLaunchCsv(InputKind kind) {
  return kind == InputKind::kNsysKernExecTraceCsv || kind == InputKind::kNsysApiTraceCsv;
}

/// One of the nsys CSV traces, read by the CSV table reader.
constexpr bool IsNsysCsvTrace(InputKind kind) {
  return IsGpuOperationsCsv(kind) || IsLaunchCsv(kind);
}

/// Read as a GPU side, its launch rows are the GPU operations: each row of a kern-exec CSV is
/// a launch with its kernel's start and duration (LaunchedKernelsSink makes them operations).
constexpr bool OpsAreItsLaunchRows(InputKind kind) {
  return kind == InputKind::kNsysKernExecTraceCsv;
}

/// Launch rows joined to their kernels by the kernel's start time, never copy calls (a
/// kern-exec CSV, which has no correlation ids): a row's kernel starts no earlier than its
/// call (steps check it on every row: streamed_key_runs.h).
constexpr bool LaunchesKeyedByKernelStart(InputKind kind) {
  return kind == InputKind::kNsysKernExecTraceCsv;
}

/// Launch rows that say neither the kernel nor the device they launched (cuda_api_trace).
constexpr bool LaunchesLackTheirKernels(InputKind kind) {
  return kind == InputKind::kNsysApiTraceCsv;
}

/// One file with both GPU operations and launch calls, each read as a side of its own (an
/// SQLite export, a PyTorch profiler trace).
constexpr bool HoldsLaunchesAndOps(InputKind kind) {
  return kind == InputKind::kNsysSqlite || kind == InputKind::kKinetoJson;
}

/// Whether a GPU file given alone is its own launch source.
constexpr bool CarriesLaunches(InputKind kind) {
  return HoldsLaunchesAndOps(kind) || OpsAreItsLaunchRows(kind);
}

/// Parsed once and its records replayed to every pass (a PyTorch profiler trace:
/// analysis/pipeline/trace_reads.h).
constexpr bool ParsedOnceAndReplayed(InputKind kind) { return kind == InputKind::kKinetoJson; }

/// Read by queries over its pages, the GPU half and the launch half apart, a share of the
/// file not known before (an SQLite export); its launch rows come from the reader's join,
/// which gives each kernel to one row.
constexpr bool ReadByQueries(InputKind kind) { return kind == InputKind::kNsysSqlite; }

/// Exported to an SQLite file beside it before it is read (.nsys-rep).
constexpr bool ExportedBeforeReading(InputKind kind) { return kind == InputKind::kNsysRep; }

/// A PyTorch profiler trace: its header says the time resolution, the devices and perhaps
/// the distributed rank.
constexpr bool IsPyTorchProfilerTrace(InputKind kind) { return kind == InputKind::kKinetoJson; }

}  // namespace stepstat
