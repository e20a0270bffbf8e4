// The inputs' content hash (HashInputFiles, the ledger's and diff's identity of a capture),
// computed on a thread of its own while the steps read the same files: the steps' residue
// and key passes read on one thread, so the hash mostly fills the idle core instead of
// adding a read of every byte after them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "stepstat/status.h"

namespace stepstat {

class InputHashBeside {
 public:
  /// Starts hashing `files` (the trace files as resolved before the steps read them);
  /// nothing when `files` is empty.
  explicit InputHashBeside(std::vector<std::filesystem::path> files);
  /// Waits for the hash (a thread never outlives its object, on any path).
  ~InputHashBeside();
  InputHashBeside(const InputHashBeside&) = delete;
  InputHashBeside& operator=(const InputHashBeside&) = delete;

  /// The hash of `files`: the one computed beside when they are the files it was started
  /// on, else computed now.
  Result<std::string> Take(const std::vector<std::filesystem::path>& files);

 private:
  std::vector<std::filesystem::path> files_;
  std::optional<Result<std::string>> hash_;
  std::thread thread_;
};

}  // namespace stepstat
