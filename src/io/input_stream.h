// Sequential byte streams under the buffered ByteSource: a file or pipe, and the gzip and zstd
// decoders that sit on top of one. Internal to src/io/.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

class InputStream {
 public:
  virtual ~InputStream() = default;
  /// Reads up to `capacity` bytes into `dest`; 0 means end of input.
  virtual Result<size_t> Read(char* dest, size_t capacity) = 0;
};

/// A file or pipe read with read() (POSIX) or std::fread elsewhere.
Result<std::unique_ptr<InputStream>> OpenFileStream(const std::filesystem::path& path,
                                                    std::string_view display_name);

/// A std::FILE stream: the portable path, also usable on POSIX (tests run it there).
Result<std::unique_ptr<InputStream>> OpenStdioStream(const std::filesystem::path& path,
                                                     std::string_view display_name);

/// Inflates gzip (or zlib) members one after another from `compressed`.
std::unique_ptr<InputStream> GzipStream(std::unique_ptr<InputStream> compressed,
                                        std::string_view display_name);

/// Decompresses zstd frames one after another from `compressed`.
std::unique_ptr<InputStream> ZstdStream(std::unique_ptr<InputStream> compressed,
                                        std::string_view display_name);

/// Transcodes UTF-16 (little- or big-endian; a leading byte order mark is dropped) to UTF-8.
std::unique_ptr<InputStream> Utf16ToUtf8(std::unique_ptr<InputStream> utf16, bool big_endian,
                                         std::string_view display_name);

/// `in` as it is, or transcoded by Utf16ToUtf8 when it starts with a UTF-16 byte order mark;
/// decided at the first Read.
std::unique_ptr<InputStream> TextFromMaybeUtf16(std::unique_ptr<InputStream> in,
                                                std::string_view display_name);

/// Returns `prefix` first, then the rest of `rest`: puts sniffed magic bytes back in front.
std::unique_ptr<InputStream> PrefixedStream(std::string prefix, std::unique_ptr<InputStream> rest);

}  // namespace stepstat
