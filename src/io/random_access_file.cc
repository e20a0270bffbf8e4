#include "io/random_access_file.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "io/read_progress.h"

#if defined(_WIN32)
#include <windows.h>
#elif defined(__unix__) || defined(__APPLE__)
#define STEPSTAT_POSIX_IO 1
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace stepstat {
namespace {

Status CannotOpen(std::string_view display_name, const std::string& why) {
  return ErrorAt(display_name, 0, "cannot open: " + why);
}

Status ReadError(std::string_view display_name, const std::string& why) {
  return ErrorAt(display_name, 0, "read error: " + why);
}

#if STEPSTAT_POSIX_IO
class FdFile final : public RandomAccessFile {
 public:
  FdFile(int fd, uint64_t size, std::string_view display_name)
      : RandomAccessFile(size, display_name), fd_(fd) {}
  ~FdFile() override { ::close(fd_); }

 protected:
  Result<size_t> ReadSome(uint64_t offset, char* data, size_t size) override {
    for (;;) {
      ssize_t got = ::pread(fd_, data, size, static_cast<off_t>(offset));
      if (got >= 0) return static_cast<size_t>(got);
      if (errno != EINTR) return ReadError(display_name(), std::strerror(errno));
    }
  }

 private:
  int fd_;
};
#elif defined(_WIN32)
class HandleFile final : public RandomAccessFile {
 public:
  HandleFile(HANDLE handle, uint64_t size, std::string_view display_name)
      : RandomAccessFile(size, display_name), handle_(handle) {}
  ~HandleFile() override { CloseHandle(handle_); }

 protected:
  Result<size_t> ReadSome(uint64_t offset, char* data, size_t size) override {
    OVERLAPPED at{};
    at.Offset = static_cast<DWORD>(offset & 0xFFFFFFFFu);
    at.OffsetHigh = static_cast<DWORD>(offset >> 32);
    DWORD got = 0;
    const DWORD want = static_cast<DWORD>(std::min<size_t>(size, 1u << 30));
    if (ReadFile(handle_, data, want, &got, &at)) return static_cast<size_t>(got);
    if (GetLastError() == ERROR_HANDLE_EOF) return size_t{0};
    return ReadError(display_name(), "error " + std::to_string(GetLastError()));
  }

 private:
  HANDLE handle_;
};
#else
class StdioFile final : public RandomAccessFile {
 public:
  StdioFile(std::FILE* file, uint64_t size, std::string_view display_name)
      : RandomAccessFile(size, display_name), file_(file) {}
  ~StdioFile() override { std::fclose(file_); }

 protected:
  Result<size_t> ReadSome(uint64_t offset, char* data, size_t size) override {
    if (offset > static_cast<uint64_t>(LONG_MAX) ||
        std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0) {
      return ReadError(display_name(), "cannot seek");
    }
    size_t got = std::fread(data, 1, size, file_);
    if (got == 0 && std::ferror(file_)) return ReadError(display_name(), std::strerror(errno));
    return got;
  }

 private:
  std::FILE* file_;
};
#endif

}  // namespace

RandomAccessFile::RandomAccessFile(uint64_t size, std::string_view display_name)
    : size_(size), display_name_(display_name) {}

RandomAccessFile::~RandomAccessFile() = default;

Result<std::unique_ptr<RandomAccessFile>> RandomAccessFile::Open(const std::filesystem::path& path,
                                                                 std::string_view display_name,
                                                                 FileProgress* progress) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return CannotOpen(display_name, "not a regular file");
  }
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return CannotOpen(display_name, ec.message());
  std::unique_ptr<RandomAccessFile> file;
#if STEPSTAT_POSIX_IO
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return CannotOpen(display_name, std::strerror(errno));
  file = std::make_unique<FdFile>(fd, size, display_name);
#elif defined(_WIN32)
  // FILE_SHARE_DELETE: as file_stream.cc, another program may replace the file meanwhile.
  HANDLE handle = CreateFileW(path.c_str(), GENERIC_READ,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                              OPEN_EXISTING, FILE_FLAG_RANDOM_ACCESS, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    return CannotOpen(display_name, "error " + std::to_string(GetLastError()));
  }
  file = std::make_unique<HandleFile>(handle, size, display_name);
#else
  std::FILE* stdio = std::fopen(path.c_str(), "rb");
  if (stdio == nullptr) return CannotOpen(display_name, std::strerror(errno));
  file = std::make_unique<StdioFile>(stdio, size, display_name);
#endif
  if (progress == nullptr) {
    file->own_progress_ = OpenFileProgress(path);
    progress = file->own_progress_.get();
  }
  file->progress_ = progress;
  const std::filesystem::file_time_type modified = std::filesystem::last_write_time(path, ec);
  if (!ec) file->modified_ticks_ = static_cast<int64_t>(modified.time_since_epoch().count());
  return file;
}

Status RandomAccessFile::ReadAt(uint64_t offset, void* data, size_t size) {
  char* out = static_cast<char*>(data);
  size_t done = 0;
  while (done < size) {
    ASSIGN_OR_RETURN(size_t got, ReadSome(offset + done, out + done, size - done));
    if (got == 0) return ReadError(display_name_, "the file ends early");
    done += got;
  }
  if (progress_) progress_->ReadWithin(size);
  return Status::Ok();
}

}  // namespace stepstat
