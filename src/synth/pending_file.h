// Output written under a temporary name and renamed into place only when complete, so a
// failed or interrupted `synth` never leaves a partial trace under the final name.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat::synth {

/// `base` with `suffix` appended to its last component ("run" + "_x.csv" → "run_x.csv").
std::filesystem::path WithSuffix(const std::filesystem::path& base, std::string_view suffix);

/// A temporary path ("<final>.tmp") removed on destruction unless Commit() renamed it.
class PendingPath {
 public:
  explicit PendingPath(std::filesystem::path final_path);
  ~PendingPath();
  PendingPath(const PendingPath&) = delete;
  PendingPath& operator=(const PendingPath&) = delete;

  const std::filesystem::path& temp_path() const { return temp_path_; }
  const std::filesystem::path& final_path() const { return final_path_; }
  /// Removes a temporary file left by an earlier, killed run (SQLite would open it).
  Status RemoveStale();
  /// Renames the (closed) temporary file to the final path.
  Status Commit();

 private:
  std::filesystem::path final_path_;
  std::filesystem::path temp_path_;
  bool committed_ = false;
};

/// A PendingPath written through stdio.
class PendingFile {
 public:
  explicit PendingFile(std::filesystem::path final_path) : path_(std::move(final_path)) {}
  ~PendingFile() { Close(); }
  Status Open();
  std::FILE* get() const { return file_; }
  /// Closes (reporting write errors) and renames into place.
  Status Commit();
  const std::filesystem::path& final_path() const { return path_.final_path(); }

 private:
  bool Close();
  PendingPath path_;
  std::FILE* file_ = nullptr;
};

}  // namespace stepstat::synth
