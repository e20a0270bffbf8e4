#include "engine/input_hash_beside.h"

#include <utility>

#include "stepstat/ledger.h"

namespace stepstat {

// Threads: the hashing thread owns nothing but what it writes, `hash_`, and reads `files_`,
// which nobody changes while it lives; it opens its own streams on the files (the steps'
// readers open theirs), so it shares no reader, buffer or sink with the steps' threads, and
// waits on nothing. The one wait is join(), in Take() or the destructor, on the thread that
// constructed this object; the hashing thread never waits on that one, so the join ends.
InputHashBeside::InputHashBeside(std::vector<std::filesystem::path> files)
    : files_(std::move(files)) {
  if (files_.empty()) return;
  thread_ = std::thread([this] { hash_ = HashInputFiles(files_); });
}

InputHashBeside::~InputHashBeside() {
  if (thread_.joinable()) thread_.join();
}

Result<std::string> InputHashBeside::Take(const std::vector<std::filesystem::path>& files) {
  if (thread_.joinable()) thread_.join();
  if (files != files_ || !hash_) return HashInputFiles(files);
  return std::move(*hash_);
}

}  // namespace stepstat
