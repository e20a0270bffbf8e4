#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include "stepstat/output.h"

namespace stepstat {

namespace {

std::string TempSuffix() {
  std::random_device random;
  return ".tmp" + std::to_string(random() % 1000000);
}

// A device or pipe (-o /dev/null, a FIFO, /dev/stdout on a pipe) is written in place: a temp
// file renamed over it would replace it with a regular file (as root, /dev/null itself).
bool WrittenInPlace(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status target = std::filesystem::status(path, ec);
  return !ec && std::filesystem::exists(target) && !std::filesystem::is_regular_file(target) &&
         !std::filesystem::is_directory(target);
}

}  // namespace

Result<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Open(
    const std::filesystem::path& path) {
  const bool in_place = WrittenInPlace(path);
  std::filesystem::path temp = path;
  if (!in_place) temp += TempSuffix();
  std::FILE* file = std::fopen(temp.string().c_str(), "wb");
  if (file == nullptr) {
    return ErrorAt(path.string(), 0, std::string("cannot write: ") + std::strerror(errno));
  }
  return std::unique_ptr<AtomicFileWriter>(
      new AtomicFileWriter(path, std::move(temp), file, in_place));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  if (in_place_) return;
  std::error_code ignored;
  std::filesystem::remove(temp_, ignored);
}

bool AtomicFileWriter::Append(std::string_view bytes) {
  ok_ = ok_ && std::fwrite(bytes.data(), 1, bytes.size(), file_) == bytes.size();
  return ok_;
}

Status AtomicFileWriter::Commit() {
  bool ok = (std::fclose(file_) == 0) && ok_;
  file_ = nullptr;
  if (in_place_) return ok ? Status::Ok() : ErrorAt(path_.string(), 0, "cannot write the output");
  std::error_code ec;
  if (ok) std::filesystem::rename(temp_, path_, ec);
  if (!ok || ec) {
    std::filesystem::remove(temp_, ec);
    return ErrorAt(path_.string(), 0, "cannot write the output file");
  }
  return Status::Ok();
}

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes) {
  ASSIGN_OR_RETURN(std::unique_ptr<AtomicFileWriter> file, AtomicFileWriter::Open(path));
  file->Append(bytes);
  return file->Commit();
}

bool WriteStdout(std::string_view bytes) {
  return std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size() &&
         std::fflush(stdout) == 0;
}

}  // namespace stepstat
