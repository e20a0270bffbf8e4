// A file read at chosen offsets (pread on POSIX, ReadFile at an offset on Windows, std::fread
// elsewhere): for a reader that walks a file's own structure (an SQLite export's table
// B-tree, read page run by page run) instead of its bytes in order. Each object is one open
// handle, used by one thread. All OS calls of stepstat live in src/io/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

class FileProgress;

class RandomAccessFile {
 public:
  /// Opens `path` for reading. Reads count into the installed progress meter (each byte at
  /// most once as far as the file's size allows, as a database read page by page): into
  /// `progress` when given (another open's share that already planned the file's bytes, used
  /// on this object's thread), else into a share of this open's own.
  static Result<std::unique_ptr<RandomAccessFile>> Open(const std::filesystem::path& path,
                                                        std::string_view display_name,
                                                        FileProgress* progress = nullptr);
  virtual ~RandomAccessFile();
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;

  /// The file's size when it was opened.
  uint64_t size() const { return size_; }
  /// Its last write time then, in the file system's clock ticks (0 when it cannot say): with
  /// the size, what tells a file rewritten in place from the one read before.
  int64_t modified_ticks() const { return modified_ticks_; }
  /// Reads exactly `size` bytes at `offset`; an error when the file ends before them.
  Status ReadAt(uint64_t offset, void* data, size_t size);

 protected:
  RandomAccessFile(uint64_t size, std::string_view display_name);
  /// Up to `size` bytes at `offset`: how many were read (0 only at the end of the file).
  virtual Result<size_t> ReadSome(uint64_t offset, char* data, size_t size) = 0;
  const std::string& display_name() const { return display_name_; }

 private:
  uint64_t size_;
  int64_t modified_ticks_ = 0;
  std::string display_name_;
  std::unique_ptr<FileProgress> own_progress_;
  FileProgress* progress_ = nullptr;  ///< own_progress_ or the one given to Open
};

}  // namespace stepstat
