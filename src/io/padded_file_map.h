// A whole regular file mapped read-only and followed by readable zero bytes, for parsers
// that read past the end of their input (simdjson reads up to SIMDJSON_PADDING bytes past
// it). Parsing the mapping in place spares a copy of the file into fresh memory, which on
// these machines costs more to touch than parsing does. Mapped pages count as resident
// memory: a parser that reads front to back releases what it is done with (Release).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

class FileProgress;

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

  /// Pages are mapped in as they are read, not all at Open, so that a parser going through
  /// the file front to back can keep its resident memory to a window:
  /// Prefetch maps the pages of bytes [begin, end) in one call (cheaper than a fault per
  /// page); Release drops the pages wholly inside [begin, end) from this process's memory
  /// (they stay in the page cache, and views into them stay valid: reading one maps it in
  /// again). Both are hints: where the OS lacks them they do nothing.
  void Prefetch(size_t begin, size_t end) const;
  void Release(size_t begin, size_t end) const;

  /// Copies the file's bytes [offset, offset + size) into `out` with reads of the file, not
  /// through the mapping: a parser that copies its input anyway then spares the mapping's
  /// page-ins and releases (~10 % of a Kineto parse's time). False where there is no such
  /// read (Windows, for now) and on any error or short read: the caller copies from
  /// bytes() instead. Safe from several threads at once.
  bool ReadAt(size_t offset, char* out, size_t size) const;
  /// Counts the bytes before `end` into the installed progress meter, as Prefetch does, for
  /// a parser that reads them with ReadAt. Not from several threads at once.
  void CountRead(size_t end) const { CountPrefetch(end); }

 private:
  PaddedFileMap(const char* data, size_t size, size_t readable, size_t mapped, size_t page,
                std::unique_ptr<FileProgress> progress, int fd = -1);
  /// Counts Prefetch's advance into the installed progress meter (null: none installed).
  void CountPrefetch(size_t end) const;
  const char* data_;
  size_t size_;
  size_t readable_;
  size_t mapped_;  ///< length of the whole reservation, for munmap
  size_t page_;    ///< the OS page size
  int fd_;         ///< the file, open for ReadAt (POSIX); -1: none
  std::unique_ptr<FileProgress> progress_;
};

}  // namespace stepstat
