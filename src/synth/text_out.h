// A buffered text sink for the generated files (CSV, JSON): formatting goes straight into one
// reused buffer with std::to_chars and leaves in large fwrite calls.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat::synth {

/// Buffers text for a FILE* it does not own; Flush() reports write errors.
class TextOut {
 public:
  /// `name` is for error messages.
  TextOut(std::FILE* file, std::string name);
  void Text(std::string_view text) { Append(text.data(), text.size()); }
  void Char(char c) { Append(&c, 1); }
  void Int(int64_t value);
  /// `thousandths` / 1000 with exactly three decimals ("0.524"); exact for any integer, so
  /// nanoseconds print as exact microseconds.
  void Fixed3(int64_t thousandths);
  /// Right-aligned in `width` columns, as nsys pads GridXYZ ("  32").
  void Padded(int64_t value, int width);
  /// Writes out when the buffer is full; call after each row or event.
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

}  // namespace stepstat::synth
