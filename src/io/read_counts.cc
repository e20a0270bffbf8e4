#include "io/read_counts.h"

#include <atomic>

#include "core/mutex.h"
#include "io/byte_source.h"

namespace stepstat {

namespace {

// Opens happen on any reader thread (two sides read at once): the map is locked.
struct Counts {
  std::atomic<bool> on{false};
  Mutex mutex;
  std::map<std::string, FileReads> by_file GUARDED_BY(mutex);
};

Counts& TheCounts() {
  static Counts counts;
  return counts;
}

void Add(const std::filesystem::path& path, int64_t opens, int64_t to_end) {
  Counts& counts = TheCounts();
  if (!counts.on.load(std::memory_order_relaxed)) return;
  MutexLock lock(counts.mutex);
  FileReads& reads = counts.by_file[path.filename().string()];
  reads.opens += opens;
  reads.to_end += to_end;
}

// Counts one read to the end when the wrapped source first says it is exhausted.
class CountingSource : public ByteSource {
 public:
  CountingSource(std::filesystem::path path, std::unique_ptr<ByteSource> inner)
      : path_(std::move(path)), inner_(std::move(inner)) {}
  Result<std::string_view> Next(size_t consumed) override {
    Result<std::string_view> view = inner_->Next(consumed);
    if (!counted_ && inner_->exhausted()) {
      counted_ = true;
      Add(path_, 0, 1);
    }
    return view;
  }
  bool exhausted() const override { return inner_->exhausted(); }
  uint64_t offset() const override { return inner_->offset(); }

 private:
  std::filesystem::path path_;
  std::unique_ptr<ByteSource> inner_;
  bool counted_ = false;
};

}  // namespace

void StartCountingReads() {
  Counts& counts = TheCounts();
  MutexLock lock(counts.mutex);
  counts.by_file.clear();
  counts.on.store(true);
}

std::map<std::string, FileReads> StopCountingReads() {
  Counts& counts = TheCounts();
  MutexLock lock(counts.mutex);
  counts.on.store(false);
  return std::exchange(counts.by_file, {});
}

void CountOpen(const std::filesystem::path& path) { Add(path, 1, 0); }

void CountWholeRead(const std::filesystem::path& path) { Add(path, 1, 1); }

std::unique_ptr<ByteSource> CountedSource(const std::filesystem::path& path,
                                          std::unique_ptr<ByteSource> source) {
  if (!TheCounts().on.load(std::memory_order_relaxed)) return source;
  CountOpen(path);
  return std::make_unique<CountingSource>(path, std::move(source));
}

}  // namespace stepstat
