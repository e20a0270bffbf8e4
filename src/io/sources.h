// The ByteSource implementations behind OpenByteSource, exposed for tests and benchmarks
// that want a particular one (a tiny window, a chunked memory source). Internal to src/io/.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string_view>

#include "io/byte_source.h"
#include "io/input_stream.h"

namespace stepstat {

inline constexpr size_t kDefaultWindowBytes = 16 << 20;
inline constexpr size_t kReadBufferBytes = 256 << 10;

/// A regular file mapped `window_bytes` at a time (rounded up to pages). Fails on platforms
/// without mmap and on files that cannot be mapped; callers then fall back to a stream.
Result<std::unique_ptr<ByteSource>> OpenMappedFile(const std::filesystem::path& path,
                                                   std::string_view display_name,
                                                   size_t window_bytes = kDefaultWindowBytes);

/// A reused buffer of `buffer_bytes` (grown when one record does not fit) filled from `stream`.
std::unique_ptr<ByteSource> BufferedSource(std::unique_ptr<InputStream> stream,
                                           size_t buffer_bytes = 1 << 20);

/// Like MemoryByteSource, but reveals `chunk` more bytes per Next(): rows cross view
/// boundaries at every position a test wants. The bytes must outlive it.
std::unique_ptr<ByteSource> ChunkedMemoryByteSource(std::string_view bytes, size_t chunk);

}  // namespace stepstat
