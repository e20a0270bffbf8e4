#include "io/temp_file.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <system_error>

namespace stepstat {

namespace {

// Opens a file that must not exist yet, for reading and writing.
std::FILE* OpenNew(const std::filesystem::path& path) {
#if defined(_WIN32)
  // 'D': deleted when its last handle closes, the process's end included; fopen() would read
  // a UTF-8 name in the ANSI code page.
  std::error_code ec;
  if (std::filesystem::exists(path, ec) || ec) return nullptr;
  return _wfopen(path.c_str(), L"w+bD");
#else
  return std::fopen(path.c_str(), "w+bx");  // 'x': fails when the name exists (C11)
#endif
}

int Seek(std::FILE* file, uint64_t offset) {
#if defined(_WIN32)
  return _fseeki64(file, static_cast<long long>(offset), SEEK_SET);
#else
  return fseeko(file, static_cast<off_t>(offset), SEEK_SET);
#endif
}

std::string UniqueName() {
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  uint64_t bits = (uint64_t{random()} << 32) ^ random() ^ (counter.fetch_add(1) << 48);
  return "stepstat-sort-" + std::to_string(bits) + ".tmp";
}

}  // namespace

Result<std::unique_ptr<TempFile>> TempFile::Create(const std::filesystem::path& folder) {
  std::error_code ec;
  std::filesystem::path dir = folder.empty() ? std::filesystem::temp_directory_path(ec) : folder;
  if (ec) {
    // Only an unusable $TMPDIR (or %TMP%/%TEMP%) gets here: name it.
#if defined(_WIN32)
    const char* named = std::getenv("TMP") != nullptr ? std::getenv("TMP") : std::getenv("TEMP");
#else
    const char* named = std::getenv("TMPDIR");
#endif
    return ErrorAt(named != nullptr ? named : "the temporary folder", 0,
                   "cannot use it as the temporary folder: " + ec.message());
  }
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::filesystem::path path = dir / UniqueName();
    std::FILE* file = OpenNew(path);
    if (file == nullptr) {
      if (errno == EEXIST) continue;
      return ErrorAt(path.string(), 0,
                     std::string("cannot create a temporary file: ") + std::strerror(errno));
    }
    bool removed = false;
#if !defined(_WIN32)
    // Nameless from now on: nothing is left behind, whatever ends the process.
    removed = std::filesystem::remove(path, ec) && !ec;
#endif
    return std::unique_ptr<TempFile>(new TempFile(file, std::move(path), removed));
  }
  return ErrorAt(dir.string(), 0, "cannot create a temporary file: every name tried exists");
}

TempFile::~TempFile() {
  std::fclose(file_);
  if (removed_) return;
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

Status TempFile::Failed(const std::string& what) const {
  return ErrorAt(path_.string(), 0, what + ": " + std::strerror(errno));
}

Status TempFile::Append(const void* data, size_t size) {
  if (size == 0) return Status::Ok();
  MutexLock lock(mutex_);
  // Reads seek; writes go at the end wherever the last read left the position.
  if (Seek(file_, size_) != 0) return Failed("cannot write the temporary file");
  errno = 0;
  if (std::fwrite(data, 1, size, file_) != size || std::fflush(file_) != 0) {
    return Failed("cannot write the temporary file (is its disk full?)");
  }
  size_ += size;
  return Status::Ok();
}

Status TempFile::ReadAt(uint64_t offset, void* data, size_t size) {
  MutexLock lock(mutex_);
  if (offset > size_ || size > size_ - offset) {
    return ErrorAt(path_.string(), 0, "internal error: read past what was written");
  }
  if (size == 0) return Status::Ok();
  errno = 0;
  if (Seek(file_, offset) != 0 || std::fread(data, 1, size, file_) != size) {
    return Failed("cannot read back the temporary file");
  }
  return Status::Ok();
}

}  // namespace stepstat
