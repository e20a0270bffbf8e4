#include "io/padded_file_map.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/read_counts.h"
#include "io/read_progress.h"

#if defined(_WIN32)
#include <windows.h>
#elif defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define STEPSTAT_HAVE_MMAP 1
#endif

namespace stepstat {

PaddedFileMap::PaddedFileMap(const char* data, size_t size, size_t readable, size_t mapped,
                             size_t page, std::unique_ptr<FileProgress> progress, int fd)
    : data_(data),
      size_(size),
      readable_(readable),
      mapped_(mapped),
      page_(page),
      fd_(fd),
      progress_(std::move(progress)) {}

// A parser prefetches the window it is about to read: its progress through the file.
void PaddedFileMap::CountPrefetch(size_t end) const {
  if (progress_ != nullptr) progress_->ReadTo(std::min(end, size_));
}

#if defined(_WIN32)

// Windows cannot lay a file view over reserved zero pages as mmap(MAP_FIXED) does (without
// the Windows 10 placeholder API), and a read-only mapping cannot be longer than its file.
// What it does guarantee: the rest of the view's last page reads as zeros. So the file is
// mapped when that rest holds `zero_tail` bytes, and otherwise Open fails and the caller
// reads the file another way (as for a pipe). An empty file is a zeroed allocation.
Result<std::unique_ptr<PaddedFileMap>> PaddedFileMap::Open(const std::filesystem::path& path,
                                                           std::string_view display_name,
                                                           size_t zero_tail) {
  HANDLE file = CreateFileW(path.c_str(), GENERIC_READ,
                            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                            OPEN_EXISTING, FILE_FLAG_SEQUENTIAL_SCAN, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    return ErrorAt(display_name, 0, "cannot open: error " + std::to_string(GetLastError()));
  }
  LARGE_INTEGER size{};
  BY_HANDLE_FILE_INFORMATION info{};
  const bool regular =
      GetFileType(file) == FILE_TYPE_DISK && GetFileInformationByHandle(file, &info) &&
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0 && GetFileSizeEx(file, &size);
  SYSTEM_INFO system;
  GetSystemInfo(&system);
  const size_t page = system.dwPageSize;
  const size_t bytes = static_cast<size_t>(size.QuadPart);
  const size_t readable = (bytes + page - 1) / page * page;
  if (!regular || (bytes > 0 && readable - bytes < zero_tail)) {
    CloseHandle(file);
    return ErrorAt(
        display_name, 0,
        regular ? "cannot map: no room for the padding" : "cannot map: not a regular file");
  }
  void* view = nullptr;
  if (bytes == 0) {
    view = VirtualAlloc(nullptr, zero_tail, MEM_COMMIT | MEM_RESERVE, PAGE_READONLY);
  } else if (HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr)) {
    view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    CloseHandle(mapping);  // the view keeps it
  }
  const DWORD error = GetLastError();
  CloseHandle(file);
  if (view == nullptr)
    return ErrorAt(display_name, 0, "cannot map: error " + std::to_string(error));
  CountWholeRead(path);  // mapped to be parsed whole
  // mapped_ == 0 marks the empty file's allocation for the destructor.
  return std::unique_ptr<PaddedFileMap>(
      new PaddedFileMap(static_cast<const char*>(view), bytes, bytes == 0 ? zero_tail : readable,
                        bytes == 0 ? 0 : readable, page, OpenFileProgress(path)));
}

PaddedFileMap::~PaddedFileMap() {
  if (mapped_ == 0) {
    VirtualFree(const_cast<char*>(data_), 0, MEM_RELEASE);
  } else {
    UnmapViewOfFile(data_);
  }
}

// Pages come in by faults as the parser reaches them (the view was opened for a sequential
// scan, so Windows reads ahead).
void PaddedFileMap::Prefetch(size_t, size_t end) const { CountPrefetch(end); }

bool PaddedFileMap::ReadAt(size_t, char*, size_t) const { return false; }

void PaddedFileMap::Release(size_t begin, size_t end) const {
  end = std::min(end, size_) / page_ * page_;  // pages wholly inside only
  begin = (begin + page_ - 1) / page_ * page_;
  if (begin >= end) return;
  // VirtualUnlock of pages that were never locked takes them out of the working set (and
  // reports ERROR_NOT_LOCKED, expected here); they are read again from the cache if touched.
  VirtualUnlock(const_cast<char*>(data_) + begin, end - begin);
}

#elif STEPSTAT_HAVE_MMAP

namespace {

Status MapError(std::string_view display_name, std::string_view what) {
  return ErrorAt(display_name, 0, std::string("cannot map: ") + std::string(what));
}

}  // namespace

Result<std::unique_ptr<PaddedFileMap>> PaddedFileMap::Open(const std::filesystem::path& path,
                                                           std::string_view display_name,
                                                           size_t zero_tail) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrorAt(display_name, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size < 0) {
    ::close(fd);
    return MapError(display_name, "not a regular file");
  }
  const size_t size = static_cast<size_t>(info.st_size);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t mapped = (size + zero_tail + page - 1) / page * page;
  // Reserve the file's pages and the tail as anonymous zero pages, then lay the file over
  // the front: the tail of the file's last page and the pages after it read as zeros, so
  // the padding never needs a copy of the file, whatever its size.
  void* reserved = ::mmap(nullptr, mapped, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserved == MAP_FAILED) {
    int error = errno;
    ::close(fd);
    return MapError(display_name, std::strerror(error));
  }
  if (size > 0) {
    // No MAP_POPULATE: pages come in by Prefetch as the parser reaches them, so that what
    // it Releases behind it leaves resident memory bounded by its window.
    void* file = ::mmap(reserved, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    if (file == MAP_FAILED) {
      int error = errno;
      ::munmap(reserved, mapped);
      ::close(fd);
      return MapError(display_name, std::strerror(error));
    }
    ::madvise(file, size, MADV_SEQUENTIAL);
  }
  CountWholeRead(path);  // mapped to be parsed whole
  // The descriptor stays open for ReadAt (closed with the mapping).
  return std::unique_ptr<PaddedFileMap>(new PaddedFileMap(
      static_cast<const char*>(reserved), size, mapped, mapped, page, OpenFileProgress(path), fd));
}

PaddedFileMap::~PaddedFileMap() {
  ::munmap(const_cast<char*>(data_), mapped_);
  if (fd_ >= 0) ::close(fd_);
}

bool PaddedFileMap::ReadAt(size_t offset, char* out, size_t size) const {
  if (fd_ < 0 || offset > size_ || size > size_ - offset) return false;
  while (size > 0) {
    const ssize_t got = ::pread(fd_, out, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;  // an error, or the file shrank
    out += got;
    offset += static_cast<size_t>(got);
    size -= static_cast<size_t>(got);
  }
  return true;
}

void PaddedFileMap::Prefetch(size_t begin, size_t end) const {
  CountPrefetch(end);
  end = std::min(end, size_);
  begin = begin / page_ * page_;  // the page holding `begin`
  if (begin >= end) return;
#ifdef MADV_POPULATE_READ
  // Fails on kernels before 5.14 (EINVAL): the pages then come in by faults.
  ::madvise(const_cast<char*>(data_) + begin, end - begin, MADV_POPULATE_READ);
#else
  ::madvise(const_cast<char*>(data_) + begin, end - begin, MADV_WILLNEED);
#endif
}

void PaddedFileMap::Release(size_t begin, size_t end) const {
  end = std::min(end, size_) / page_ * page_;  // pages wholly inside only
  begin = (begin + page_ - 1) / page_ * page_;
  if (begin >= end) return;
  // A private read-only file mapping has no changes to lose: its pages are dropped from
  // this process and read again from the page cache if touched.
  ::madvise(const_cast<char*>(data_) + begin, end - begin, MADV_DONTNEED);
}

#else

Result<std::unique_ptr<PaddedFileMap>> PaddedFileMap::Open(const std::filesystem::path&,
                                                           std::string_view display_name, size_t) {
  return ErrorAt(display_name, 0, "cannot map: no mmap on this platform");
}

PaddedFileMap::~PaddedFileMap() = default;
void PaddedFileMap::Prefetch(size_t, size_t end) const { CountPrefetch(end); }
void PaddedFileMap::Release(size_t, size_t) const {}
bool PaddedFileMap::ReadAt(size_t, char*, size_t) const { return false; }

#endif

}  // namespace stepstat
