// Checks on the inputs of a summary before it is made, on a bounded prefix of each file so
// that they cost the same whatever the trace's size: a launch trace from another run is
// refused, a file holding several GPUs and coarse timestamps are said on stderr.
#pragma once

#include <string>
#include <vector>

#include "stepstat/status.h"
#include "stepstat/step_stats.h"

namespace stepstat {

struct InputCheckOptions {
  size_t launch_rows = 4096;  ///< launch rows checked against the GPU trace
  /// GPU-trace rows read for devices and resolution, and for the kernels the launch rows
  /// match (4 per launch row: kernels of other streams interleave). Small enough that the
  /// check costs a few ms whatever the file's size.
  size_t gpu_rows = size_t{1} << 14;
  /// Warn when the GPU rows hold several devices or processes (off when the caller asked
  /// for one device: it knows).
  bool note_several_devices = true;
};

struct InputCheckReport {
  std::vector<std::string> warnings;  ///< one line each, without the "stepstat: " prefix
  int64_t launch_rows_checked = 0;
  int64_t launch_rows_matched = 0;
  /// The devices of the checked GPU rows, as the trace names them ("NVIDIA GB10 (0)"): a
  /// CSV's Device column in order of appearance; an SQLite export's sampled kernels' devices
  /// by id, named from TARGET_INFO_GPU; a Kineto trace's deviceProperties when it comes
  /// before the events (every GPU of the machine, as the profiler lists them).
  std::vector<std::string> devices;
};

/// An error when under half of the checked launch rows match a kernel of the GPU trace
/// (kern-exec rows by kernel start and duration, api-trace rows by correlation id).
/// The launch check is for CSV pairs only: an SQLite export or Kineto trace holds both sides
/// of one run. Of an SQLite export the first kernels as stored say how many GPUs it holds; a
/// Kineto trace is parsed whole, so only its first 4 MiB of text are read here (for the time
/// resolution and deviceProperties; how many GPUs its kernels used, `--details` says).
Result<InputCheckReport> CheckInputs(const SummaryInputs& inputs,
                                     const InputCheckOptions& options = {});

}  // namespace stepstat
