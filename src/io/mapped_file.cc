// A regular file mapped one window at a time. Pages behind the window are unmapped as the
// reader moves on, so resident memory stays near the window size whatever the file size.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/sources.h"

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

class MappedFileSource final : public ByteSource {
 public:
  MappedFileSource(int fd, uint64_t file_size, size_t window_bytes, std::string_view display_name)
      : fd_(fd), file_size_(file_size), window_bytes_(window_bytes), name_(display_name) {
    page_ = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    window_bytes_ = std::max<uint64_t>(page_, (window_bytes_ + page_ - 1) / page_ * page_);
  }
  ~MappedFileSource() override {
    Unmap();
    ::close(fd_);
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
      int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
      flags |= MAP_POPULATE;  // one call faults the window in; much cheaper than page by page
#endif
      void* address = ::mmap(nullptr, length, PROT_READ, flags, fd_, static_cast<off_t>(map_begin));
      if (address == MAP_FAILED)
        return ErrorAt(name_, 0, std::string("cannot map: ") + std::strerror(errno));
      ::madvise(address, length, MADV_SEQUENTIAL);
      map_ = static_cast<const char*>(address);
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
  void Unmap() {
    if (map_ != nullptr) ::munmap(const_cast<char*>(map_), map_length_);
    map_ = nullptr;
    map_length_ = 0;
  }

  int fd_;
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
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrorAt(display_name, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return ErrorAt(display_name, 0, "cannot map: not a regular file");
  }
  return std::unique_ptr<ByteSource>(std::make_unique<MappedFileSource>(
      fd, static_cast<uint64_t>(info.st_size), window_bytes, display_name));
}

#else

Result<std::unique_ptr<ByteSource>> OpenMappedFile(const std::filesystem::path&,
                                                   std::string_view display_name, size_t) {
  return ErrorAt(display_name, 0, "cannot map: no mmap on this platform");
}

#endif

}  // namespace stepstat
