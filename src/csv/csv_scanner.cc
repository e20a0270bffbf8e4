#include "csv/csv_scanner.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace stepstat {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

const char* Find(const char* begin, const char* end, char c) {
  return static_cast<const char*>(std::memchr(begin, c, static_cast<size_t>(end - begin)));
}

// Word-at-a-time search (SWAR): plain C++ on 64-bit words, so it is portable and needs no
// intrinsics. Rows are mostly short fields, where a memchr call per field costs more than
// the search itself.
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;

// 0x80 in every byte of x that is zero, 0 elsewhere (exact: no false positives).
inline uint64_t ZeroBytes(uint64_t x) { return ~(((x & kLow7) + kLow7) | x | kLow7); }

// Eight bytes with the first one in the low byte, whatever the machine's byte order.
inline uint64_t Load8(const char* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  if constexpr (std::endian::native == std::endian::big) {
    uint64_t swapped = 0;
    for (int i = 0; i < 8; ++i) swapped |= ((word >> (8 * i)) & 0xFF) << (8 * (7 - i));
    word = swapped;
  }
  return word;
}

// 0x80 in each of the (up to) 8 bytes at p that is ',', '\n', '"' or NUL; fewer than 8
// bytes left: the missing positions hold nothing. Per class the test is a zero-byte test
// of word ^ class; the four share their final step (~A | ~B == ~(A & B)).
inline uint64_t SignificantBytes(const char* p, const char* end) {
  if (end - p >= 8) {
    uint64_t word = Load8(p);
    auto not_zero = [](uint64_t x) { return ((x & kLow7) + kLow7) | x; };
    uint64_t all_not_zero = not_zero(word ^ (kOnes * ',')) & not_zero(word ^ (kOnes * '\n')) &
                            not_zero(word ^ (kOnes * '"')) & not_zero(word);
    return ~(all_not_zero | kLow7);
  }
  uint64_t mask = 0;
  for (int i = 0; p + i < end; ++i) {
    char c = p[i];
    if (c == ',' || c == '\n' || c == '"' || c == '\0') mask |= uint64_t{0x80} << (8 * i);
  }
  return mask;
}

// The first '"' or NUL in [p, end), or end; adds the newlines before it to `newlines`.
inline const char* FindQuoteOrNul(const char* p, const char* end, int64_t& newlines) {
  while (end - p >= 8) {
    uint64_t word = Load8(p);
    uint64_t stops = ZeroBytes(word ^ (kOnes * '"')) | ZeroBytes(word);
    uint64_t breaks = ZeroBytes(word ^ (kOnes * '\n'));
    if (stops != 0) {
      uint64_t before = (stops & (~stops + 1)) - 1;  // bits below the first stop
      if ((breaks & before) != 0) newlines += std::popcount(breaks & before);
      return p + std::countr_zero(stops) / 8;
    }
    if (breaks != 0) newlines += std::popcount(breaks);
    p += 8;
  }
  for (; p < end && *p != '"' && *p != '\0'; ++p) newlines += *p == '\n';
  return p;
}

}  // namespace

CsvScanner::CsvScanner(ByteSource& source, std::string_view display_name)
    : source_(source), display_name_(display_name), fields_(32) {}

// Slides the window past what was consumed (pos_).
Status CsvScanner::Refill() {
  ASSIGN_OR_RETURN(view_, source_.Next(pos_));
  pos_ = 0;
  if (!started_) {
    started_ = true;
    while (view_.size() < kBom.size() && !source_.exhausted()) {
      ASSIGN_OR_RETURN(view_, source_.Next(0));
    }
    if (view_.substr(0, kBom.size()) == kBom) pos_ = kBom.size();
    input_was_empty_ = pos_ == view_.size() && source_.exhausted();
  }
  return Status::Ok();
}

Result<bool> CsvScanner::NextRow() {
  if (!started_) RETURN_IF_ERROR(Refill());
  for (;;) {
    Status error;
    Parse parse = ParseRow(error);
    if (parse == Parse::kError) return error;
    if (parse == Parse::kRow) return true;
    if (source_.exhausted()) {
      if (pos_ == view_.size()) return false;  // clean end: the last row ended in a newline
      row_line_ = next_line_;
      if (in_quote_) return ErrorAt(display_name_, open_quote_line_, "unterminated quote");
      return ErrorAt(display_name_, next_line_, "truncated last line (no newline at the end)");
    }
    RETURN_IF_ERROR(Refill());
  }
}

// Classifies the row 8 bytes at a time and walks the delimiters found in each word: the
// words do not depend on each other, so the CPU overlaps them, where a search per field
// would wait for each field's end before starting the next.
CsvScanner::Parse CsvScanner::ParseRow(Status& error) {
  const char* const end = view_.data() + view_.size();
  unescaped_.clear();
  unescaped_fields_.clear();
  in_quote_ = false;
  row_line_ = next_line_;
  int64_t line = next_line_;  // the line being scanned
  size_t count = 0;
  std::string_view* out = fields_.data();
  auto add_field = [&](const char* begin, const char* stop) {
    if (count == fields_.size()) {
      fields_.resize(fields_.size() * 2);
      out = fields_.data();
    }
    out[count++] = std::string_view(begin, static_cast<size_t>(stop - begin));
  };
  const char* field = view_.data() + pos_;  // start of the current field
  const char* word = field;                 // next 8 bytes to classify
  const char* row_end = nullptr;            // one past the row's line ending, once found
  while (row_end == nullptr) {
    if (word >= end) return Parse::kNeedMore;
    uint64_t pending = SignificantBytes(word, end);
    const char* next_word = word + 8;
    while (pending != 0) {
      uint64_t bit = pending & (~pending + 1);
      pending ^= bit;
      const char* at = word + std::countr_zero(bit) / 8;
      const char c = *at;
      if (c == ',') {
        add_field(field, at);
        field = at + 1;
        continue;
      }
      if (c == '\n') {
        const char* field_end = at > field && at[-1] == '\r' ? at - 1 : at;
        add_field(field, field_end);
        row_end = at + 1;
        break;
      }
      if (c == '\0') {
        error = ErrorAt(display_name_, line, "NUL byte in a text file");
        return Parse::kError;
      }
      if (at != field) continue;  // a quote inside an unquoted field is text
      // A quoted field: find the closing quote, unescaping "" on the way when there is one.
      in_quote_ = true;
      open_quote_line_ = line;
      const char* content = at + 1;
      const char* q = content;
      bool escaped = false;
      size_t unescaped_begin = unescaped_.size();
      const char* close;
      for (;;) {
        close = FindQuoteOrNul(q, end, line);
        if (close == end || close + 1 == end) return Parse::kNeedMore;
        if (*close == '\0') {
          error = ErrorAt(display_name_, line, "NUL byte in a text file");
          return Parse::kError;
        }
        if (close[1] != '"') break;
        unescaped_.append(q, static_cast<size_t>(close + 1 - q));  // keeps one quote
        escaped = true;
        q = close + 2;
      }
      in_quote_ = false;
      if (escaped) {
        unescaped_.append(q, static_cast<size_t>(close - q));
        unescaped_fields_.push_back({count, unescaped_begin, unescaped_.size() - unescaped_begin});
      }
      add_field(content, close);
      const char* after = close + 1;
      if (*after == ',') {
        field = after + 1;
        next_word = field;  // the rest of this word was inside the quotes: classify again
        break;
      }
      if (*after == '\n') {
        row_end = after + 1;
        break;
      }
      if (*after == '\r') {
        if (after + 1 == end) return Parse::kNeedMore;
        if (after[1] == '\n') {
          row_end = after + 2;
          break;
        }
      }
      error = ErrorAt(display_name_, line, "unexpected text after a closing quote");
      return Parse::kError;
    }
    word = next_word;
  }
  count_ = count;
  for (const Unescaped& u : unescaped_fields_) {
    fields_[u.field] = std::string_view(unescaped_.data() + u.offset, u.size);
  }
  next_line_ = line + 1;
  pos_ = static_cast<size_t>(row_end - view_.data());
  return Parse::kRow;
}

Result<bool> CsvScanner::SkipLinesUntil(const std::function<bool(std::string_view)>& wanted,
                                        int64_t max_lines, size_t max_line_bytes) {
  if (!started_) RETURN_IF_ERROR(Refill());
  for (int64_t skipped = 0; skipped <= max_lines;) {
    const char* begin = view_.data() + pos_;
    const char* end = view_.data() + view_.size();
    const char* newline = Find(begin, end, '\n');
    if (newline == nullptr && !source_.exhausted()) {
      if (static_cast<size_t>(end - begin) > max_line_bytes) return false;
      RETURN_IF_ERROR(Refill());
      continue;
    }
    const char* line_end = newline != nullptr ? newline : end;
    if (begin == line_end && newline == nullptr) return false;  // end of input
    if (static_cast<size_t>(line_end - begin) > max_line_bytes) return false;
    std::string_view line(begin, static_cast<size_t>(line_end - begin));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (wanted(line)) return true;
    if (newline == nullptr) return false;
    pos_ = static_cast<size_t>(newline + 1 - view_.data());
    ++next_line_;
    ++skipped;
  }
  return false;
}

}  // namespace stepstat
