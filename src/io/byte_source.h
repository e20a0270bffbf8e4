// ByteSource: the bytes of one input, seen through a window that slides forward. Files are
// mapped a window at a time (pages behind the window are released, so resident memory does
// not grow with the file); pipes and decompressed streams fill one reused buffer.
// All OS calls of stepstat live in src/io/.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  /// Drops the first `consumed` bytes of the current view and returns the next one: the
  /// unconsumed rest of the previous view followed by more input, if there is more. The view
  /// is valid until the next call. Unless exhausted(), the new view is strictly longer than
  /// the unconsumed rest (the window grows when a single record does not fit it).
  virtual Result<std::string_view> Next(size_t consumed) = 0;

  /// True once the last view returned reaches the end of the input.
  virtual bool exhausted() const = 0;

  /// Bytes consumed before the current view: the view starts at this input offset.
  virtual uint64_t offset() const = 0;
};

/// Opens `path` for reading. Compressed files (.gz, .zst; detected by magic bytes) are
/// decompressed as a stream. `display_name` is how messages name the file.
Result<std::unique_ptr<ByteSource>> OpenByteSource(const std::filesystem::path& path,
                                                   std::string_view display_name);

/// OpenByteSource for bytes already in memory (a face handed them over): compressed or
/// UTF-16 bytes are decoded as a stream, plain ones are viewed in place. The bytes must
/// outlive the source.
Result<std::unique_ptr<ByteSource>> OpenMemoryByteSource(std::string_view bytes,
                                                         std::string_view display_name);

/// A source over bytes already in memory, as they are (tests, fuzzers). The bytes must
/// outlive it.
std::unique_ptr<ByteSource> MemoryByteSource(std::string_view bytes);

}  // namespace stepstat
