// Progress of the reads into a face's ProgressMeter (stepstat/progress.h). A Run* call
// installs its meter for the time of the call (ProgressScope); every file opened meanwhile
// counts what is read of it, at the one place its bytes come in: the file stream under the
// buffered sources (a read() of 256 KiB, or of a compressed block), a padded map's prefetch
// (a parser's window). One relaxed atomic add per chunk; with no meter installed, an open
// costs one atomic load and nothing is wrapped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "io/input_stream.h"
#include "stepstat/progress.h"

namespace stepstat {

/// Installs `meter` (null: does nothing) for the process while it lives. Scopes nest: calls
/// that a call makes (a diff's steps and summaries, a report's two threads) install the
/// same meter again and share it. A scope of another meter while one is installed does
/// nothing: that call's reads are not shown (one meter at a time, for the whole process).
class ProgressScope {
 public:
  explicit ProgressScope(ProgressMeter* meter);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  bool installed_ = false;
};

/// The meter installed now, or null.
ProgressMeter* InstalledProgress();

/// One opened file's share of a meter. Used by the one thread that reads the file.
class FileProgress {
 public:
  /// `size` 0: not known (a pipe); what is read then counts as opened as it comes.
  FileProgress(ProgressMeter& meter, uint64_t size);
  /// Gives back what was never read (a sniff, a bounded check, an error).
  ~FileProgress();
  FileProgress(const FileProgress&) = delete;
  FileProgress& operator=(const FileProgress&) = delete;

  /// `bytes` more were read.
  void Read(uint64_t bytes);
  /// `bytes` more were read at any place, perhaps again: counted only up to the size (a
  /// database read page by page; its total then never grows past the file).
  void ReadWithin(uint64_t bytes) {
    if (read_ < size_) Read(bytes < size_ - read_ ? bytes : size_ - read_);
  }
  /// Everything before `offset` has been read (counts only what is new).
  void ReadTo(uint64_t offset) {
    if (offset > read_) Read(offset - read_);
  }

 private:
  ProgressMeter& meter_;
  uint64_t size_;
  uint64_t read_ = 0;
};

/// While a meter is installed, a FileProgress for `path` (its size as the file system says);
/// else null.
std::unique_ptr<FileProgress> OpenFileProgress(const std::filesystem::path& path);

/// `stream` (a file's bytes as stored) counted into the installed meter; itself when none.
std::unique_ptr<InputStream> ProgressCountedStream(const std::filesystem::path& path,
                                                   std::unique_ptr<InputStream> stream);

}  // namespace stepstat
