#include "synth/text_out.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace stepstat::synth {

TextOut::TextOut(std::FILE* file, std::string name) : file_(file), name_(std::move(name)) {
  Grow(kFlushAt + (size_t{1} << 16));
}

void TextOut::Grow(size_t length) {
  size_t capacity = std::max(capacity_ * 2, size_ + length);
  auto bigger = std::make_unique<char[]>(capacity);
  if (size_ > 0) std::memcpy(bigger.get(), buffer_.get(), size_);
  buffer_ = std::move(bigger);
  capacity_ = capacity;
}

void TextOut::Int(int64_t value) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof digits, value);
  Append(digits, static_cast<size_t>(result.ptr - digits));
}

void TextOut::Fixed3(int64_t thousandths) {
  if (thousandths < 0) {
    Char('-');
    thousandths = -thousandths;
  }
  Int(thousandths / 1000);
  int64_t fraction = thousandths % 1000;
  char digits[4] = {'.', static_cast<char>('0' + fraction / 100),
                    static_cast<char>('0' + fraction / 10 % 10),
                    static_cast<char>('0' + fraction % 10)};
  Append(digits, 4);
}

void TextOut::Padded(int64_t value, int width) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof digits, value);
  int length = static_cast<int>(result.ptr - digits);
  for (int pad = length; pad < width; ++pad) Char(' ');
  Append(digits, static_cast<size_t>(length));
}

Status TextOut::Flush() {
  if (size_ == 0) return Status::Ok();
  size_t written = std::fwrite(buffer_.get(), 1, size_, file_);
  bytes_written_ += static_cast<int64_t>(written);
  bool ok = written == size_;
  size_ = 0;
  return ok ? Status::Ok() : Status::Error("cannot write " + name_ + " (disk full?)");
}

}  // namespace stepstat::synth
