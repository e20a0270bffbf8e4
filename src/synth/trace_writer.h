// Writes generated steps as the two nsys CSV reports: `cuda_gpu_trace` (2024+ header, rows
// by start time) and `cuda_kern_exec_trace` (rows by API start). Formatting goes straight
// into one reused buffer with std::to_chars and leaves in large fwrite calls.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepstat/status.h"
#include "synth/step_plan.h"
#include "synth/step_timeline.h"

namespace stepstat::synth {

/// A buffered CSV sink over a FILE* it does not own; Flush() reports write errors.
class CsvOut {
 public:
  /// `name` is for error messages.
  CsvOut(std::FILE* file, std::string name);
  void Text(std::string_view text) { Append(text.data(), text.size()); }
  void Char(char c) { Append(&c, 1); }
  void Int(int64_t value);
  /// `thousandths` / 1000 with exactly three decimals ("0.524").
  void Fixed3(int64_t thousandths);
  /// Right-aligned in `width` columns, as nsys pads GridXYZ ("  32").
  void Padded(int64_t value, int width);
  /// Writes out when the buffer is full; call after each row.
  Status MaybeFlush() { return size_ >= kFlushAt ? Flush() : Status::Ok(); }
  Status Flush();
  int64_t bytes_written() const { return bytes_written_; }

 private:
  static constexpr size_t kFlushAt = size_t{4} << 20;
  std::FILE* file_;
  std::string name_;
  void Append(const char* data, size_t length) {
    if (size_ + length > capacity_) Grow(length);
    std::memcpy(buffer_.get() + size_, data, length);
    size_ += length;
  }
  void Grow(size_t length);

  // A raw buffer: std::string::append here trips a GCC 12 -Wrestrict false positive.
  std::unique_ptr<char[]> buffer_;
  size_t size_ = 0;
  size_t capacity_ = 0;
  int64_t bytes_written_ = 0;
};

/// Renders steps of one plan; holds the CSV-quoted names so each is escaped once.
class TraceWriter {
 public:
  explicit TraceWriter(const StepPlan& plan);
  static void GpuTraceHeader(CsvOut& out);
  static void KernExecHeader(CsvOut& out);
  /// Appends the step's kernels and memory operations, sorted by start.
  Status AppendGpuTrace(const StepRows& rows, CsvOut& out);
  /// Appends one row per launch, in launch (API start) order.
  Status AppendKernExec(const StepRows& rows, CsvOut& out);

 private:
  const StepPlan& plan_;
  std::vector<std::string> quoted_names_;            ///< per Kind
  std::vector<std::pair<int64_t, uint32_t>> order_;  ///< reused: (start, row) for sorting
};

/// `field` as an RFC 4180 CSV field: quoted when it holds a comma, quote or line break.
std::string CsvField(std::string_view field);

}  // namespace stepstat::synth
