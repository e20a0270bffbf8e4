// File and pipe InputStreams: read() on POSIX, ReadFile() on Windows, std::fread elsewhere.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "io/input_stream.h"

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

Status CannotOpen(std::string_view display_name, int error_number) {
  return ErrorAt(display_name, 0, std::string("cannot open: ") + std::strerror(error_number));
}

Status ReadError(std::string_view display_name, int error_number) {
  return ErrorAt(display_name, 0, std::string("read error: ") + std::strerror(error_number));
}

class StdioStream final : public InputStream {
 public:
  StdioStream(std::FILE* file, std::string_view display_name) : file_(file), name_(display_name) {}
  ~StdioStream() override { std::fclose(file_); }
  Result<size_t> Read(char* dest, size_t capacity) override {
    size_t got = std::fread(dest, 1, capacity, file_);
    if (got == 0 && std::ferror(file_)) return ReadError(name_, errno);
    return got;
  }

 private:
  std::FILE* file_;
  std::string name_;
};

#if defined(_WIN32)
class HandleStream final : public InputStream {
 public:
  HandleStream(HANDLE handle, std::string_view display_name)
      : handle_(handle), name_(display_name) {}
  ~HandleStream() override { CloseHandle(handle_); }
  Result<size_t> Read(char* dest, size_t capacity) override {
    DWORD got = 0;
    const DWORD want = static_cast<DWORD>(std::min<size_t>(capacity, 1u << 30));
    if (ReadFile(handle_, dest, want, &got, nullptr)) return static_cast<size_t>(got);
    // The write end of a pipe closed: its end, as read() returning 0.
    if (GetLastError() == ERROR_BROKEN_PIPE) return size_t{0};
    return ErrorAt(name_, 0, "read error: error " + std::to_string(GetLastError()));
  }

 private:
  HANDLE handle_;
  std::string name_;
};
#endif

#if STEPSTAT_POSIX_IO
class FdStream final : public InputStream {
 public:
  FdStream(int fd, std::string_view display_name) : fd_(fd), name_(display_name) {}
  ~FdStream() override { ::close(fd_); }
  Result<size_t> Read(char* dest, size_t capacity) override {
    for (;;) {
      ssize_t got = ::read(fd_, dest, capacity);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno != EINTR) return ReadError(name_, errno);
    }
  }

 private:
  int fd_;
  std::string name_;
};
#endif

}  // namespace

Result<std::unique_ptr<InputStream>> OpenStdioStream(const std::filesystem::path& path,
                                                     std::string_view display_name) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return CannotOpen(display_name, EISDIR);
#if defined(_WIN32)
  std::FILE* file = _wfopen(path.c_str(), L"rb");  // fopen() reads names in the ANSI code page
#else
  std::FILE* file = std::fopen(path.c_str(), "rb");
#endif
  if (file == nullptr) return CannotOpen(display_name, errno);
  return std::unique_ptr<InputStream>(std::make_unique<StdioStream>(file, display_name));
}

Result<std::unique_ptr<InputStream>> OpenFileStream(const std::filesystem::path& path,
                                                    std::string_view display_name) {
#if STEPSTAT_POSIX_IO
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return CannotOpen(display_name, errno);
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return CannotOpen(display_name, EISDIR);
  }
  return std::unique_ptr<InputStream>(std::make_unique<FdStream>(fd, display_name));
#elif defined(_WIN32)
  // FILE_SHARE_DELETE: as on POSIX, another program may delete or replace a trace while
  // stepstat reads it (fopen's handles would refuse that).
  HANDLE handle = CreateFileW(path.c_str(), GENERIC_READ,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                              OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    const DWORD error = GetLastError();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return CannotOpen(display_name, EISDIR);
    return CannotOpen(display_name, error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND
                                        ? ENOENT
                                        : EACCES);
  }
  if (GetFileType(handle) == FILE_TYPE_DISK) {
    BY_HANDLE_FILE_INFORMATION info{};
    if (GetFileInformationByHandle(handle, &info) &&
        (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
      CloseHandle(handle);
      return CannotOpen(display_name, EISDIR);
    }
  }
  return std::unique_ptr<InputStream>(std::make_unique<HandleStream>(handle, display_name));
#else
  return OpenStdioStream(path, display_name);
#endif
}

}  // namespace stepstat
