// The caveats on a summary's figures, worded once for the data-quality section and stderr.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stepstat {

/// Coarser than this, gaps of a few µs (a typical launch gap) cannot be told apart: the
/// threshold for saying so on stderr. Any resolution above 1 ns is in the data-quality notes.
inline constexpr int64_t kGapAffectingResolutionNs = 1000;

/// "1000 ns (1 µs)"-style wording of a resolution.
std::string ResolutionText(int64_t resolution_ns);

/// The note for a file whose start times move in steps of `resolution_ns` (> 1).
std::string CoarseTimeNote(std::string_view file, int64_t resolution_ns);

/// The note for a GPU input holding the kernels of `devices` GPUs and `processes` processes
/// (0: unknown); empty when it holds one of each.
std::string SeveralDevicesNote(std::string_view file, int64_t devices, int64_t processes);

}  // namespace stepstat
