#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

namespace stepstat {

namespace {

std::string TempSuffix() {
  std::random_device random;
  return ".tmp" + std::to_string(random() % 1000000);
}

}  // namespace

Result<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Open(
    const std::filesystem::path& path) {
  std::filesystem::path temp = path;
  temp += TempSuffix();
  std::FILE* file = std::fopen(temp.string().c_str(), "wb");
  if (file == nullptr) {
    return ErrorAt(path.string(), 0, std::string("cannot write: ") + std::strerror(errno));
  }
  return std::unique_ptr<AtomicFileWriter>(new AtomicFileWriter(path, std::move(temp), file));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_ == nullptr) return;
  std::fclose(file_);
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
