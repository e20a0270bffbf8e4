// Sorting more records than memory should hold: records are collected into a buffer of a
// fixed size; a full buffer is sorted and written to a temporary file as a run; at the end
// the runs are merged (a heap over the runs' heads, each run read through a small buffer).
// When every record fits in the buffer, no file is written and the sort is in memory.
//
// Memory: the buffer (SpillOptions::buffer_bytes) while collecting; while merging, one read
// buffer per run (at most 16 KiB each, less when there are many runs: a run is a buffer's
// worth of records, so the runs' count is the records' size over the buffer's). 16 KiB of
// narrow records is ~1,000 records: larger buffers only made peak RSS grow with the runs.
//
// A run goes to the file narrow (RunCodec): each record as its 8-byte words, each word the
// zigzag varint of its difference from the same word of the record before it in the run.
// Neighbours in a sorted run differ little (times, sequence numbers, lines, the same stream
// and name), so a 64-byte record takes ~15 bytes: writing a file costs fresh page-cache
// memory, which on the project's machines costs more than the encoding
// (bench/results/kineto-parallel-2026-12-05.md).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <queue>
#include <string>
#include <type_traits>
#include <vector>

#include "io/temp_file.h"
#include "stepstat/status.h"

namespace stepstat {

struct SpillOptions {
  /// Bytes of records a sorter holds before it writes a sorted run to a temporary file.
  size_t buffer_bytes = size_t{4} << 20;
  /// Where the temporary files go; empty: the system's temporary folder.
  std::filesystem::path temp_folder;
  /// When set, counts the runs written (tests check that a small buffer spills).
  int64_t* runs_written = nullptr;
};

/// A run's records to and from their narrow form (see the top of this file). Holds the
/// record before, so one codec encodes or decodes one run, front to back.
template <typename T>
class RunCodec {
 public:
  static constexpr size_t kWords = (sizeof(T) + 7) / 8;
  /// The most bytes one record takes.
  static constexpr size_t kMaxBytes = kWords * 10;

  /// Appends `record` at `out`, which has kMaxBytes free; returns the end.
  char* Encode(const T& record, char* out) {
    std::array<uint64_t, kWords> words{};
    std::memcpy(words.data(), &record, sizeof(T));
    for (size_t i = 0; i < kWords; ++i) {
      const uint64_t delta = words[i] - prev_[i];
      prev_[i] = words[i];
      // Zigzag: small negative differences stay small.
      uint64_t v = (delta << 1) ^ (0 - (delta >> 63));
      while (v >= 0x80) {
        *out++ = static_cast<char>(v | 0x80);
        v >>= 7;
      }
      *out++ = static_cast<char>(v);
    }
    return out;
  }

  /// Decodes one record from [in, end); returns the end of what it read, or null when the
  /// bytes end inside the record or a varint is too long (a damaged file).
  const char* Decode(const char* in, const char* end, T& record) {
    std::array<uint64_t, kWords> words{};
    for (size_t i = 0; i < kWords; ++i) {
      uint64_t v = 0;
      // Most differences fit one byte: those take one test instead of the loop's three.
      if (in != end && static_cast<uint8_t>(*in) < 0x80) {
        v = static_cast<uint8_t>(*in++);
      } else {
        for (int shift = 0;; shift += 7) {
          if (in == end || shift > 63) return nullptr;
          const auto byte = static_cast<uint8_t>(*in++);
          v |= static_cast<uint64_t>(byte & 0x7F) << shift;
          if (byte < 0x80) break;
        }
      }
      const uint64_t delta = (v >> 1) ^ (0 - (v & 1));
      prev_[i] += delta;
      words[i] = prev_[i];
    }
    std::memcpy(static_cast<void*>(&record), words.data(), sizeof(T));  // trivially copyable
    return in;
  }

 private:
  std::array<uint64_t, kWords> prev_{};
};

/// Sorts records of a trivially copyable `T` by `Less`, which must order them totally (ties
/// broken by a sequence number when file order matters): the merge does not keep any order
/// among records `Less` calls equal.
template <typename T, typename Less>
class SpilledSorter {
  static_assert(std::is_trivially_copyable_v<T>, "records go to a file as bytes");

 public:
  explicit SpilledSorter(const SpillOptions& options)
      : options_(options), capacity_(std::max<size_t>(1, options.buffer_bytes / sizeof(T))) {}
  // Not movable: the heap holds a pointer to the runs.
  SpilledSorter(const SpilledSorter&) = delete;
  SpilledSorter& operator=(const SpilledSorter&) = delete;

  Status Add(const T& record) {
    if (buffer_.size() == buffer_.capacity()) {
      if (buffer_.size() >= capacity_) {
        RETURN_IF_ERROR(Spill());
      } else if (buffer_.capacity() * 2 > capacity_) {
        buffer_.reserve(capacity_);  // grow to the budget, not past it
      }
    }
    buffer_.push_back(record);
    return Status::Ok();
  }

  /// Ends the adding; the records are then read in order with NextBatch.
  Status Finish() {
    if (runs_.empty()) {
      if (!std::is_sorted(buffer_.begin(), buffer_.end(), Less())) {
        std::sort(buffer_.begin(), buffer_.end(), Less());
      }
      return Status::Ok();
    }
    if (!buffer_.empty()) RETURN_IF_ERROR(Spill());
    std::vector<T>().swap(buffer_);  // the runs hold everything now
    std::vector<char>().swap(encoded_);
    // Half of a run's share for its bytes as read, half for its records as decoded.
    const size_t per_run = std::clamp<size_t>(options_.buffer_bytes / runs_.size(), 4096, 16384);
    const size_t records = std::max<size_t>(1, per_run / 2 / sizeof(T));
    for (size_t i = 0; i < runs_.size(); ++i) {
      runs_[i].buffer.reserve(std::min<uint64_t>(records, runs_[i].count));
      runs_[i].bytes.reserve(std::max(per_run / 2, 2 * Codec::kMaxBytes));
      ASSIGN_OR_RETURN(bool has, Refill(runs_[i]));
      if (has) heads_.push(i);
    }
    return Status::Ok();
  }

  /// Up to `max` next records in order into `out` (cleared first); empty at the end.
  Status NextBatch(std::vector<T>& out, size_t max) {
    out.clear();
    if (runs_.empty()) {
      size_t count = std::min(max, buffer_.size() - next_);
      out.insert(out.end(), buffer_.begin() + static_cast<std::ptrdiff_t>(next_),
                 buffer_.begin() + static_cast<std::ptrdiff_t>(next_ + count));
      next_ += count;
      return Status::Ok();
    }
    while (out.size() < max && !heads_.empty()) {
      Run& run = runs_[heads_.top()];
      out.push_back(run.buffer[run.next]);
      const size_t index = heads_.top();
      heads_.pop();
      if (++run.next == run.buffer.size()) {
        ASSIGN_OR_RETURN(bool has, Refill(run));
        if (!has) continue;
      }
      heads_.push(index);
    }
    return Status::Ok();
  }

  /// Whether any run went to a file.
  bool spilled() const { return !runs_.empty(); }

 private:
  using Codec = RunCodec<T>;
  struct Run {
    uint64_t offset = 0;   ///< in the file, bytes
    uint64_t size = 0;     ///< bytes written: never more are read back
    uint64_t count = 0;    ///< records written: never more are decoded
    uint64_t read = 0;     ///< bytes read back so far
    uint64_t decoded = 0;  ///< records decoded so far
    Codec codec;
    std::vector<char> bytes;  ///< read, not yet decoded from `taken` on
    size_t taken = 0;
    std::vector<T> buffer;  ///< decoded, handed out from `next` on
    size_t next = 0;
  };

  // Orders run indexes by their head record, smallest on top.
  struct HeadAfter {
    const std::vector<Run>* runs;
    bool operator()(size_t a, size_t b) const {
      const Run& ra = (*runs)[a];
      const Run& rb = (*runs)[b];
      return Less()(rb.buffer[rb.next], ra.buffer[ra.next]);
    }
  };

  Status Spill() {
    if (!file_) {
      ASSIGN_OR_RETURN(file_, TempFile::Create(options_.temp_folder));
    }
    if (!std::is_sorted(buffer_.begin(), buffer_.end(), Less())) {
      std::sort(buffer_.begin(), buffer_.end(), Less());
    }
    Run run;
    run.offset = file_->size();
    run.count = buffer_.size();
    // Encoded and written a piece at a time: the encoded run is never whole in memory.
    constexpr size_t kPiece = size_t{64} << 10;
    encoded_.resize(kPiece + Codec::kMaxBytes);
    Codec codec;
    char* out = encoded_.data();
    for (const T& record : buffer_) {
      out = codec.Encode(record, out);
      if (static_cast<size_t>(out - encoded_.data()) >= kPiece) {
        RETURN_IF_ERROR(file_->Append(encoded_.data(), static_cast<size_t>(out - encoded_.data())));
        out = encoded_.data();
      }
    }
    RETURN_IF_ERROR(file_->Append(encoded_.data(), static_cast<size_t>(out - encoded_.data())));
    run.size = file_->size() - run.offset;
    runs_.push_back(std::move(run));
    if (options_.runs_written != nullptr) ++*options_.runs_written;
    buffer_.clear();
    return Status::Ok();
  }

  // The run's next records into its buffer; false when all it holds were read.
  Result<bool> Refill(Run& run) {
    const uint64_t left = run.count - run.decoded;
    if (left == 0) return false;
    const size_t count = static_cast<size_t>(std::min<uint64_t>(left, run.buffer.capacity()));
    run.buffer.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (run.bytes.size() - run.taken < Codec::kMaxBytes && run.read < run.size) {
        // Keep the bytes not yet decoded, then read as many more as fit.
        const size_t kept = run.bytes.size() - run.taken;
        std::memmove(run.bytes.data(), run.bytes.data() + run.taken, kept);
        const size_t more = static_cast<size_t>(
            std::min<uint64_t>(run.size - run.read, run.bytes.capacity() - kept));
        run.bytes.resize(kept + more);
        RETURN_IF_ERROR(file_->ReadAt(run.offset + run.read, run.bytes.data() + kept, more));
        run.read += more;
        run.taken = 0;
      }
      const char* begin = run.bytes.data() + run.taken;
      const char* end = run.codec.Decode(begin, run.bytes.data() + run.bytes.size(), run.buffer[i]);
      if (end == nullptr) return TempFileDamaged();
      run.taken += static_cast<size_t>(end - begin);
    }
    run.decoded += count;
    run.next = 0;
    return true;
  }

  Status TempFileDamaged() const {
    return Status::Error(file_->path().string() +
                         ": a temporary file read back differs from what was written");
  }

  SpillOptions options_;
  size_t capacity_;  ///< records the buffer holds before a spill
  std::vector<T> buffer_;
  size_t next_ = 0;  ///< the next record of an in-memory sort to hand out
  std::unique_ptr<TempFile> file_;
  std::vector<char> encoded_;  ///< a piece of a run being written
  std::vector<Run> runs_;
  std::priority_queue<size_t, std::vector<size_t>, HeadAfter> heads_{HeadAfter{&runs_}};
};

}  // namespace stepstat
