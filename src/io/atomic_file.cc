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
