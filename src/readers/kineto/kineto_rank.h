// The rank a PyTorch profiler trace says it is: `"distributedInfo": {..., "rank": N, ...}`,
// which torch.profiler writes before "traceEvents". Only a bounded prefix is read, so a
// trace without it costs at most that much.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

/// Bytes of a (decompressed) trace searched for distributedInfo.
inline constexpr size_t kKinetoRankPrefixBytes = size_t{1} << 20;

/// distributedInfo.rank in `json_prefix` (the start of a Kineto document), or nullopt when
/// it is not there or not a plain integer.
std::optional<int64_t> KinetoRankInPrefix(std::string_view json_prefix);

/// The same over the first kKinetoRankPrefixBytes of `path` (plain, .gz or .zst).
Result<std::optional<int64_t>> KinetoRankOfFile(const std::filesystem::path& path,
                                                std::string_view display_name);

}  // namespace stepstat
