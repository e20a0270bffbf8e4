// Output files appear whole or not at all: written to a temporary file beside the target,
// then renamed over it. A failed run leaves no partial output behind.
#pragma once

#include <filesystem>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

/// Writes `bytes` to `path` atomically (same-directory temp file + rename); a device or pipe
/// is written in place.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes);

/// Writes `bytes` to standard output; false if the write failed (e.g. a closed pipe).
bool WriteStdout(std::string_view bytes);

}  // namespace stepstat
