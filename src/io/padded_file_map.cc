#include "io/padded_file_map.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "io/read_counts.h"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define STEPSTAT_HAVE_MMAP 1
#endif

namespace stepstat {

#if STEPSTAT_HAVE_MMAP

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
    int flags = MAP_PRIVATE | MAP_FIXED;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;  // one call maps every cached page instead of a fault per page
#endif
    void* file = ::mmap(reserved, size, PROT_READ, flags, fd, 0);
    if (file == MAP_FAILED) {
      int error = errno;
      ::munmap(reserved, mapped);
      ::close(fd);
      return MapError(display_name, std::strerror(error));
    }
    ::madvise(file, size, MADV_SEQUENTIAL);
  }
  ::close(fd);           // the mapping keeps the file
  CountWholeRead(path);  // mapped to be parsed whole
  return std::unique_ptr<PaddedFileMap>(
      new PaddedFileMap(static_cast<const char*>(reserved), size, mapped, mapped));
}

PaddedFileMap::~PaddedFileMap() { ::munmap(const_cast<char*>(data_), mapped_); }

#else

Result<std::unique_ptr<PaddedFileMap>> PaddedFileMap::Open(const std::filesystem::path&,
                                                           std::string_view display_name, size_t) {
  return ErrorAt(display_name, 0, "cannot map: no mmap on this platform");
}

PaddedFileMap::~PaddedFileMap() = default;

#endif

}  // namespace stepstat
