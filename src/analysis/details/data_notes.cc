#include "analysis/details/data_notes.h"

namespace stepstat {

std::string ResolutionText(int64_t resolution_ns) {
  std::string text = std::to_string(resolution_ns) + " ns";
  if (resolution_ns % 1'000'000 == 0) {
    text += " (" + std::to_string(resolution_ns / 1'000'000) + " ms)";
  } else if (resolution_ns % 1000 == 0) {
    text += " (" + std::to_string(resolution_ns / 1000) + " us)";
  }
  return text;
}

std::string CoarseTimeNote(std::string_view file, int64_t resolution_ns) {
  return std::string(file) + ": start times move in steps of " + ResolutionText(resolution_ns) +
         ", so gaps and same-stream overlaps are known only to that step";
}

std::string SeveralDevicesNote(std::string_view file, int64_t devices, int64_t processes) {
  std::string who;
  if (devices > 1) {
    who = std::to_string(devices) + " GPUs";
    if (processes > 1) who += " (" + std::to_string(processes) + " processes)";
  } else if (processes > 1) {
    // One device name, several processes: ranks on several machines each see their GPU 0.
    who = std::to_string(processes) + " processes on GPUs of one name";
  } else {
    return {};
  }
  return std::string(file) + " holds the kernels of " + who +
         ": its whole-file span, gaps and kernel unions describe no single GPU; see the "
         "per-device figures (--details)";
}

}  // namespace stepstat
