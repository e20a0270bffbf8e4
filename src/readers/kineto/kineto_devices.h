// The GPUs a PyTorch profiler trace describes in `"deviceProperties": [{"id": 0, "name":
// "NVIDIA A100-SXM4-80GB", ...}, ...]`, which torch.profiler writes before "traceEvents":
// found in a bounded prefix, so that the input checks learn the GPU model without the parse.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stepstat {

/// "<name> (<id>)" for each device of deviceProperties in `json_prefix` (the start of a
/// Kineto document), as the reader names its operations' devices; in the trace's order.
/// Empty when the list is not there whole (absent, written after the events, malformed):
/// the reader, not this, says what is wrong with a file. Every device the machine had, not
/// only those the trace's kernels ran on.
std::vector<std::string> KinetoDevicesInPrefix(std::string_view json_prefix);

}  // namespace stepstat
