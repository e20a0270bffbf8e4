// A regular file mapped one window at a time. Pages behind the window are unmapped as the
// reader moves on, so resident memory stays near the window size whatever the file size.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/sources.h"

#if defined(_WIN32)
#include <windows.h>
#define STEPSTAT_HAVE_MMAP 1
#elif defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define STEPSTAT_HAVE_MMAP 1
#endif

namespace stepstat {

#if STEPSTAT_HAVE_MMAP
namespace {

#if defined(_WIN32)
// The file and its mapping object; views are mapped from the latter.
struct OsFile {
  HANDLE file = INVALID_HANDLE_VALUE;
  HANDLE mapping = nullptr;  ///< none for an empty file (Windows cannot map 0 bytes)
  void Close() {
    if (mapping != nullptr) CloseHandle(mapping);
    if (file != INVALID_HANDLE_VALUE) CloseHandle(file);
  }
};

// Views start at multiples of the allocation granularity (64 KiB), not the page size.
uint64_t MapAlignment() {
  SYSTEM_INFO info;
  GetSystemInfo(&info);
  return info.dwAllocationGranularity;
}

std::string LastErrorText() { return "error " + std::to_string(GetLastError()); }
#else
struct OsFile {
  int fd = -1;
  void Close() { ::close(fd); }
};

uint64_t MapAlignment() { return static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)); }
#endif

class MappedFileSource final : public ByteSource {
 public:
  MappedFileSource(OsFile file, uint64_t file_size, size_t window_bytes,
                   std::string_view display_name)
      : file_(file), file_size_(file_size), window_bytes_(window_bytes), name_(display_name) {
    page_ = MapAlignment();
    window_bytes_ = std::max<uint64_t>(page_, (window_bytes_ + page_ - 1) / page_ * page_);
  }
  ~MappedFileSource() override {
    Unmap();
    file_.Close();
  }

  Result<std::string_view> Next(size_t consumed) override {
    uint64_t begin = view_offset_ + std::min<uint64_t>(consumed, view_end_ - view_offset_);
    uint64_t rest = view_end_ - begin;
    uint64_t map_begin = begin / page_ * page_;
    // Grow the window until the new view is longer than what the caller could not use.
    uint64_t length = window_bytes_;
    while (map_begin + length < file_size_ && map_begin + length <= begin + rest) length *= 2;
    if (map_begin + length >= file_size_) length = file_size_ - map_begin;
    if (length == 0) {
      Unmap();
      view_offset_ = view_end_ = begin;
      return std::string_view();
    }
    if (map_begin != map_offset_ || length != map_length_ || map_ == nullptr) {
      Unmap();
      ASSIGN_OR_RETURN(map_, MapRange(map_begin, length));
      map_offset_ = map_begin;
      map_length_ = length;
    }
    view_offset_ = begin;
    view_end_ = map_begin + length;
    return std::string_view(map_ + (begin - map_begin), view_end_ - begin);
  }
  bool exhausted() const override { return view_end_ >= file_size_; }
  uint64_t offset() const override { return view_offset_; }

 private:
#if defined(_WIN32)
  Result<const char*> MapRange(uint64_t begin, uint64_t length) {
    void* address = MapViewOfFile(file_.mapping, FILE_MAP_READ, static_cast<DWORD>(begin >> 32),
                                  static_cast<DWORD>(begin), static_cast<SIZE_T>(length));
    if (address == nullptr) return ErrorAt(name_, 0, "cannot map: " + LastErrorText());
    return static_cast<const char*>(address);
  }
  void Unmap() {
    if (map_ != nullptr) UnmapViewOfFile(map_);
    map_ = nullptr;
    map_length_ = 0;
  }
#else
  Result<const char*> MapRange(uint64_t begin, uint64_t length) {
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;  // one call faults the window in; much cheaper than page by page
#endif
    void* address = ::mmap(nullptr, length, PROT_READ, flags, file_.fd, static_cast<off_t>(begin));
    if (address == MAP_FAILED)
      return ErrorAt(name_, 0, std::string("cannot map: ") + std::strerror(errno));
    ::madvise(address, length, MADV_SEQUENTIAL);
    return static_cast<const char*>(address);
  }
  void Unmap() {
    if (map_ != nullptr) ::munmap(const_cast<char*>(map_), map_length_);
    map_ = nullptr;
    map_length_ = 0;
  }
#endif

  OsFile file_;
  uint64_t file_size_;
  uint64_t window_bytes_;
  uint64_t page_ = 4096;
  std::string name_;
  const char* map_ = nullptr;
  uint64_t map_offset_ = 0;
  uint64_t map_length_ = 0;
  uint64_t view_offset_ = 0;
  uint64_t view_end_ = 0;
};

}  // namespace

Result<std::unique_ptr<ByteSource>> OpenMappedFile(const std::filesystem::path& path,
                                                   std::string_view display_name,
                                                   size_t window_bytes) {
#if defined(_WIN32)
  OsFile file;
  // FILE_SHARE_DELETE too: reading a trace must not stop another program from replacing it.
  file.file = CreateFileW(path.c_str(), GENERIC_READ,
                          FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                          OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, nullptr);
  if (file.file == INVALID_HANDLE_VALUE) {
    return ErrorAt(display_name, 0, "cannot open: " + LastErrorText());
  }
  LARGE_INTEGER size{};
  BY_HANDLE_FILE_INFORMATION info{};
  if (GetFileType(file.file) != FILE_TYPE_DISK || !GetFileInformationByHandle(file.file, &info) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0 || !GetFileSizeEx(file.file, &size)) {
    file.Close();
    return ErrorAt(display_name, 0, "cannot map: not a regular file");
  }
  if (size.QuadPart > 0) {
    file.mapping = CreateFileMappingW(file.file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (file.mapping == nullptr) {
      Status error = ErrorAt(display_name, 0, "cannot map: " + LastErrorText());
      file.Close();
      return error;
    }
  }
  return std::unique_ptr<ByteSource>(std::make_unique<MappedFileSource>(
      file, static_cast<uint64_t>(size.QuadPart), window_bytes, display_name));
#else
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrorAt(display_name, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return ErrorAt(display_name, 0, "cannot map: not a regular file");
  }
  return std::unique_ptr<ByteSource>(std::make_unique<MappedFileSource>(
      OsFile{fd}, static_cast<uint64_t>(info.st_size), window_bytes, display_name));
#endif
}

#else

Result<std::unique_ptr<ByteSource>> OpenMappedFile(const std::filesystem::path&,
                                                   std::string_view display_name, size_t) {
  return ErrorAt(display_name, 0, "cannot map: no mmap on this platform");
}

#endif

}  // namespace stepstat
