#include "synth/pending_file.h"

#include <string>
#include <system_error>

namespace stepstat::synth {

std::filesystem::path WithSuffix(const std::filesystem::path& base, std::string_view suffix) {
  std::filesystem::path path = base;
  path += std::string(suffix);
  return path;
}

PendingPath::PendingPath(std::filesystem::path final_path)
    : final_path_(std::move(final_path)), temp_path_(WithSuffix(final_path_, ".tmp")) {}

PendingPath::~PendingPath() {
  if (committed_) return;
  std::error_code ignored;
  std::filesystem::remove(temp_path_, ignored);
}

Status PendingPath::RemoveStale() {
  std::error_code error;
  std::filesystem::remove(temp_path_, error);
  if (error) return Status::Error("cannot remove " + temp_path_.string() + ": " + error.message());
  return Status::Ok();
}

Status PendingPath::Commit() {
  std::error_code error;
  std::filesystem::rename(temp_path_, final_path_, error);
  if (error) {
    return Status::Error("cannot rename to " + final_path_.string() + ": " + error.message());
  }
  committed_ = true;
  return Status::Ok();
}

Status PendingFile::Open() {
#if defined(_WIN32)
  // The C library's wide fopen: fopen() would read a UTF-8 name in the ANSI code page.
  file_ = _wfopen(path_.temp_path().c_str(), L"wb");
#else
  file_ = std::fopen(path_.temp_path().c_str(), "wb");
#endif
  if (file_ == nullptr) return Status::Error("cannot create " + path_.temp_path().string());
  return Status::Ok();
}

bool PendingFile::Close() {
  if (file_ == nullptr) return true;
  bool ok = std::fclose(file_) == 0;
  file_ = nullptr;
  return ok;
}

Status PendingFile::Commit() {
  if (!Close()) return Status::Error("cannot write " + path_.temp_path().string());
  return path_.Commit();
}

}  // namespace stepstat::synth
