// A scratch file for data that does not fit in memory (sorted runs spilled by a reader).
// It has no name anyone can see for long: on POSIX it is removed right after it is created
// (the open handle keeps it readable), on Windows it is opened delete-on-close; so it is
// gone when this object closes it, when the process returns on an error path, and also when
// the process is killed.
//
// Threads: Append and ReadAt may be called from several threads (the two sides of a kept
// trace are replayed at once, two_sides.h); each holds the file's lock for one seek and one
// read or write, and waits for nothing else while it does, so no wait can close a cycle.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "core/mutex.h"
#include "stepstat/status.h"

namespace stepstat {

class TempFile {
 public:
  /// A new, empty file in `folder`, or in the system's temporary folder
  /// (std::filesystem::temp_directory_path(): $TMPDIR, %TEMP%) when `folder` is empty.
  static Result<std::unique_ptr<TempFile>> Create(const std::filesystem::path& folder = {});
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();

  /// Appends `size` bytes; a write error (a full disk) is a one-line error naming the file.
  Status Append(const void* data, size_t size) EXCLUDES(mutex_);
  /// Reads exactly `size` bytes at `offset` (which must lie within what was appended).
  Status ReadAt(uint64_t offset, void* data, size_t size) EXCLUDES(mutex_);
  /// Bytes appended so far.
  uint64_t size() const EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    return size_;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  TempFile(std::FILE* file, std::filesystem::path path, bool removed)
      : file_(file), path_(std::move(path)), removed_(removed) {}
  Status Failed(const std::string& what) const;

  mutable Mutex mutex_;
  std::FILE* file_ PT_GUARDED_BY(mutex_);  ///< its position moves on every read and write
  std::filesystem::path path_;
  bool removed_;  ///< its name is already gone (POSIX)
  uint64_t size_ GUARDED_BY(mutex_) = 0;
};

}  // namespace stepstat
