// UTF-16 (with a byte order mark) transcoded to UTF-8 as a stream: Windows PowerShell's `>`
// and `Out-File` write nsys's CSV output this way, and every reader downstream expects UTF-8.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/input_stream.h"

namespace stepstat {

namespace {

constexpr size_t kChunk = 64 << 10;

class Utf16ToUtf8Stream final : public InputStream {
 public:
  Utf16ToUtf8Stream(std::unique_ptr<InputStream> in, bool big_endian, std::string_view display_name)
      : in_(std::move(in)), big_endian_(big_endian), name_(display_name), chunk_(kChunk) {}

  Result<size_t> Read(char* dest, size_t capacity) override {
    size_t out = 0;
    while (out < capacity) {
      if (pending_used_ < pending_.size()) {  // the tail of a code point that did not fit
        size_t n = std::min(capacity - out, pending_.size() - pending_used_);
        std::memcpy(dest + out, pending_.data() + pending_used_, n);
        pending_used_ += n;
        out += n;
        continue;
      }
      ASSIGN_OR_RETURN(bool more, Fill(4));
      if (!more) break;
      ASSIGN_OR_RETURN(uint32_t code_point, NextCodePoint());
      if (first_ && code_point == 0xFEFF) {  // the byte order mark: not part of the text
        first_ = false;
        continue;
      }
      first_ = false;
      char encoded[4];
      size_t length = Encode(code_point, encoded);
      size_t n = std::min(capacity - out, length);
      std::memcpy(dest + out, encoded, n);
      out += n;
      pending_.assign(encoded + n, length - n);
      pending_used_ = 0;
    }
    return out;
  }

 private:
  // Makes at least `want` undecoded bytes available unless the input ends first; false when
  // none are left at all.
  Result<bool> Fill(size_t want) {
    while (end_ - begin_ < want && !eof_) {
      if (begin_ > 0) {
        std::memmove(chunk_.data(), chunk_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      ASSIGN_OR_RETURN(size_t got, in_->Read(chunk_.data() + end_, chunk_.size() - end_));
      if (got == 0) eof_ = true;
      end_ += got;
    }
    return end_ > begin_;
  }

  Result<uint16_t> NextUnit() {
    if (end_ - begin_ < 2) {
      return ErrorAt(name_, 0, "UTF-16 text ends in the middle of a character (odd byte count)");
    }
    auto byte = [this](size_t i) { return static_cast<uint16_t>(static_cast<uint8_t>(chunk_[i])); };
    uint16_t unit = big_endian_ ? static_cast<uint16_t>(byte(begin_) << 8 | byte(begin_ + 1))
                                : static_cast<uint16_t>(byte(begin_ + 1) << 8 | byte(begin_));
    begin_ += 2;
    offset_ += 2;
    return unit;
  }

  Result<uint32_t> NextCodePoint() {
    const uint64_t start = offset_;
    ASSIGN_OR_RETURN(uint16_t unit, NextUnit());
    if (unit < 0xD800 || unit > 0xDFFF) return uint32_t{unit};
    if (unit >= 0xDC00) return Invalid(start);
    ASSIGN_OR_RETURN(bool more, Fill(2));
    if (!more) return Invalid(start);
    ASSIGN_OR_RETURN(uint16_t low, NextUnit());
    if (low < 0xDC00 || low > 0xDFFF) return Invalid(start);
    return 0x10000 + ((uint32_t{unit} - 0xD800) << 10) + (uint32_t{low} - 0xDC00);
  }

  Status Invalid(uint64_t at) const {
    return ErrorAt(name_, 0,
                   "invalid UTF-16 (an unpaired surrogate) at byte " + std::to_string(at));
  }

  static size_t Encode(uint32_t cp, char* out) {
    if (cp < 0x80) {
      out[0] = static_cast<char>(cp);
      return 1;
    }
    if (cp < 0x800) {
      out[0] = static_cast<char>(0xC0 | (cp >> 6));
      out[1] = static_cast<char>(0x80 | (cp & 0x3F));
      return 2;
    }
    if (cp < 0x10000) {
      out[0] = static_cast<char>(0xE0 | (cp >> 12));
      out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out[2] = static_cast<char>(0x80 | (cp & 0x3F));
      return 3;
    }
    out[0] = static_cast<char>(0xF0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<char>(0x80 | (cp & 0x3F));
    return 4;
  }

  std::unique_ptr<InputStream> in_;
  bool big_endian_;
  std::string name_;
  std::vector<char> chunk_;
  size_t begin_ = 0, end_ = 0;
  uint64_t offset_ = 0;
  bool eof_ = false;
  bool first_ = true;
  std::string pending_;
  size_t pending_used_ = 0;
};

// Decides on the first Read, so that opening never reads (a corrupt compressed stream is
// reported by the first read, as without this wrapper).
class SniffingStream final : public InputStream {
 public:
  SniffingStream(std::unique_ptr<InputStream> in, std::string_view display_name)
      : in_(std::move(in)), name_(display_name) {}

  Result<size_t> Read(char* dest, size_t capacity) override {
    if (!decided_) {
      std::string front(2, '\0');
      size_t have = 0;
      while (have < front.size()) {
        ASSIGN_OR_RETURN(size_t got, in_->Read(front.data() + have, front.size() - have));
        if (got == 0) break;
        have += got;
      }
      front.resize(have);
      const bool utf16 = front == "\xff\xfe" || front == "\xfe\xff";
      const bool big_endian = utf16 && front[0] == '\xfe';
      in_ = PrefixedStream(std::move(front), std::move(in_));
      if (utf16) in_ = Utf16ToUtf8(std::move(in_), big_endian, name_);
      decided_ = true;
    }
    return in_->Read(dest, capacity);
  }

 private:
  std::unique_ptr<InputStream> in_;
  std::string name_;
  bool decided_ = false;
};

}  // namespace

std::unique_ptr<InputStream> TextFromMaybeUtf16(std::unique_ptr<InputStream> in,
                                                std::string_view display_name) {
  return std::make_unique<SniffingStream>(std::move(in), display_name);
}

std::unique_ptr<InputStream> Utf16ToUtf8(std::unique_ptr<InputStream> utf16, bool big_endian,
                                         std::string_view display_name) {
  return std::make_unique<Utf16ToUtf8Stream>(std::move(utf16), big_endian, display_name);
}

}  // namespace stepstat
