// A whole regular file mapped read-only and followed by readable zero bytes, for parsers
// that read past the end of their input (simdjson reads up to SIMDJSON_PADDING bytes past
// it). Parsing the mapping in place spares a copy of the file into fresh memory, which on
// these machines costs more to touch than parsing does.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

class PaddedFileMap {
 public:
  /// Maps `path` with at least `zero_tail` zero bytes readable after its last byte. Fails
  /// (callers then read the file another way) for pipes, other non-regular files and where
  /// there is no mmap. `display_name` is how messages name the file.
  static Result<std::unique_ptr<PaddedFileMap>> Open(const std::filesystem::path& path,
                                                     std::string_view display_name,
                                                     size_t zero_tail);
  PaddedFileMap(const PaddedFileMap&) = delete;
  PaddedFileMap& operator=(const PaddedFileMap&) = delete;
  ~PaddedFileMap();

  /// The file's bytes; valid while this object lives (views into it die with it).
  std::string_view bytes() const { return {data_, size_}; }
  /// Bytes readable from bytes().data(): the file and at least `zero_tail` zeros after it.
  size_t readable_size() const { return readable_; }

 private:
  PaddedFileMap(const char* data, size_t size, size_t readable, size_t mapped)
      : data_(data), size_(size), readable_(readable), mapped_(mapped) {}
  const char* data_;
  size_t size_;
  size_t readable_;
  size_t mapped_;  ///< length of the whole reservation, for munmap
};

}  // namespace stepstat
