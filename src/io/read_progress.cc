#include "io/read_progress.h"

#include <algorithm>
#include <atomic>
#include <system_error>

#include "core/mutex.h"

namespace stepstat {

namespace {

// Scopes open and close on any thread (a report runs two calls at once, ranks one per
// worker): installing locks; readers only load the pointer.
struct Installed {
  Mutex mutex;
  std::atomic<ProgressMeter*> meter{nullptr};
  int depth GUARDED_BY(mutex) = 0;
};

Installed& TheInstalled() {
  static Installed installed;
  return installed;
}

class ProgressStream final : public InputStream {
 public:
  ProgressStream(std::unique_ptr<FileProgress> progress, std::unique_ptr<InputStream> inner)
      : progress_(std::move(progress)), inner_(std::move(inner)) {}
  Result<size_t> Read(char* dest, size_t capacity) override {
    ASSIGN_OR_RETURN(size_t got, inner_->Read(dest, capacity));
    progress_->Read(got);
    return got;
  }

 private:
  std::unique_ptr<FileProgress> progress_;
  std::unique_ptr<InputStream> inner_;
};

}  // namespace

ProgressScope::ProgressScope(ProgressMeter* meter) {
  if (meter == nullptr) return;
  Installed& installed = TheInstalled();
  MutexLock lock(installed.mutex);
  ProgressMeter* current = installed.meter.load(std::memory_order_relaxed);
  if (current != nullptr && current != meter) return;
  installed.meter.store(meter, std::memory_order_release);
  ++installed.depth;
  installed_ = true;
}

ProgressScope::~ProgressScope() {
  if (!installed_) return;
  Installed& installed = TheInstalled();
  MutexLock lock(installed.mutex);
  if (--installed.depth == 0) installed.meter.store(nullptr, std::memory_order_release);
}

ProgressMeter* InstalledProgress() { return TheInstalled().meter.load(std::memory_order_acquire); }

FileProgress::FileProgress(ProgressMeter& meter, uint64_t size) : meter_(meter), size_(size) {
  meter_.AddOpened(size_);
}

FileProgress::~FileProgress() {
  if (read_ < size_) meter_.AddUnread(size_ - read_);
}

void FileProgress::Read(uint64_t bytes) {
  if (bytes == 0) return;
  // A file that grew while read counts as opened for what it grew, so the total stays at
  // least what was read.
  const uint64_t within = read_ < size_ ? std::min(bytes, size_ - read_) : 0;
  if (within < bytes) meter_.AddOpened(bytes - within);
  meter_.AddRead(bytes);
  read_ += bytes;
  size_ = std::max(size_, read_);
}

std::unique_ptr<FileProgress> OpenFileProgress(const std::filesystem::path& path) {
  ProgressMeter* meter = InstalledProgress();
  if (meter == nullptr) return nullptr;
  std::error_code ec;
  const uint64_t size =
      std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  return std::make_unique<FileProgress>(*meter, ec ? 0 : size);
}

std::unique_ptr<InputStream> ProgressCountedStream(const std::filesystem::path& path,
                                                   std::unique_ptr<InputStream> stream) {
  std::unique_ptr<FileProgress> progress = OpenFileProgress(path);
  if (progress == nullptr) return stream;
  return std::make_unique<ProgressStream>(std::move(progress), std::move(stream));
}

}  // namespace stepstat
