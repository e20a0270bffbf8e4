// Output files appear whole or not at all: written to a temporary file beside the target,
// then renamed over it. A failed run leaves no partial output behind.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat {

/// Writes `bytes` to `path` atomically (same-directory temp file + rename); a device or pipe
/// is written in place.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes);

/// The same for output written piece by piece: the file appears at Commit(), whole; a
/// writer destroyed before that removes its temporary file. A device or pipe is written in
/// place.
class AtomicFileWriter {
 public:
  static Result<std::unique_ptr<AtomicFileWriter>> Open(const std::filesystem::path& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// False once a write failed (Commit then reports it).
  bool Append(std::string_view bytes);
  Status Commit();

 private:
  AtomicFileWriter(std::filesystem::path path, std::filesystem::path temp, std::FILE* file,
                   bool in_place)
      : path_(std::move(path)), temp_(std::move(temp)), file_(file), in_place_(in_place) {}
  std::filesystem::path path_;
  std::filesystem::path temp_;  ///< the path itself when written in place
  std::FILE* file_;
  bool in_place_;
  bool ok_ = true;
};

/// Writes `bytes` to standard output; false if the write failed (e.g. a closed pipe).
bool WriteStdout(std::string_view bytes);

}  // namespace stepstat
