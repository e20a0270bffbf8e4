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

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes) {
  // A device or pipe (-o /dev/null, a FIFO, /dev/stdout on a pipe) is written in place: a temp
  // file renamed over it would replace it with a regular file (as root, /dev/null itself).
  std::error_code type_ec;
  const std::filesystem::file_status target = std::filesystem::status(path, type_ec);
  if (!type_ec && std::filesystem::exists(target) && !std::filesystem::is_regular_file(target) &&
      !std::filesystem::is_directory(target)) {
    std::FILE* device = std::fopen(path.string().c_str(), "wb");
    if (device == nullptr) {
      return ErrorAt(path.string(), 0, std::string("cannot write: ") + std::strerror(errno));
    }
    bool ok = std::fwrite(bytes.data(), 1, bytes.size(), device) == bytes.size();
    ok = (std::fclose(device) == 0) && ok;
    return ok ? Status::Ok() : ErrorAt(path.string(), 0, "cannot write the output file");
  }
  std::filesystem::path temp = path;
  temp += TempSuffix();
  std::FILE* file = std::fopen(temp.string().c_str(), "wb");
  if (file == nullptr) {
    return ErrorAt(path.string(), 0, std::string("cannot write: ") + std::strerror(errno));
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = (std::fclose(file) == 0) && ok;
  std::error_code ec;
  if (ok) std::filesystem::rename(temp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(temp, ec);
    return ErrorAt(path.string(), 0, "cannot write the output file");
  }
  return Status::Ok();
}

bool WriteStdout(std::string_view bytes) {
  return std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size() &&
         std::fflush(stdout) == 0;
}

}  // namespace stepstat
