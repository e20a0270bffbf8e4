// What a bounded look at an input says before it is read: for the checks that warn early
// (several GPUs in one file, times coarser than a nanosecond) without knowing the format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepstat/read.h"
#include "stepstat/status.h"

namespace stepstat {

struct InputSample {
  /// Distinct devices and processes the sampled kernels ran on (0 where the format's sample
  /// does not count them).
  int64_t devices = 0;
  int64_t processes = 0;
  /// The devices as the reader names them ("NVIDIA GB10 (0)").
  std::vector<std::string> device_names;
  /// The times carry no fraction of a µs (a PyTorch trace written with µs clocks).
  bool whole_microseconds = false;
};

/// A bounded sample of a file that has one: the first `kernel_rows` kernels of an nsys
/// SQLite export, the first 4 MiB of a PyTorch profiler trace. Other kinds give an empty
/// sample (the CSV checks read their own prefixes).
Result<InputSample> SampleInput(const TraceInput& input, int64_t kernel_rows);

/// Whether an nsys CSV report's header declares start times coarser than ns ("Start (us)",
/// "Start(sec)"): only then are round digits the format's resolution rather than a
/// coincidence of a hand-written file or a GPU clock's tick. False without a start column
/// (the reader says what is missing).
Result<bool> DeclaresCoarseTimes(const TraceInput& input);

}  // namespace stepstat
