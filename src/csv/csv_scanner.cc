#include "csv/csv_scanner.h"

#include <algorithm>
#include <cstring>

namespace stepstat {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

const char* Find(const char* begin, const char* end, char c) {
  return static_cast<const char*>(std::memchr(begin, c, static_cast<size_t>(end - begin)));
}

int64_t CountNewlines(const char* begin, const char* end) {
  int64_t count = 0;
  while ((begin = Find(begin, end, '\n')) != nullptr) {
    ++count;
    ++begin;
  }
  return count;
}

}  // namespace

CsvScanner::CsvScanner(ByteSource& source, std::string_view display_name)
    : source_(source), display_name_(display_name) {}

// Slides the window past what was consumed (pos_) and records where the first NUL byte of
// the new bytes is, so rows need no per-byte NUL test.
Result<bool> CsvScanner::Refill() {
  if (started_ && source_.exhausted()) return false;
  size_t before = view_.size() - pos_;
  ASSIGN_OR_RETURN(view_, source_.Next(pos_));
  pos_ = 0;
  // At the start, enough bytes to see a whole BOM; fetched before the NUL scan below, so it
  // covers them too.
  while (!started_ && view_.size() < kBom.size() && !source_.exhausted()) {
    ASSIGN_OR_RETURN(view_, source_.Next(0));
  }
  uint64_t begin = source_.offset();
  uint64_t end = begin + view_.size();
  uint64_t from = std::max(begin, nul_checked_until_);
  if (first_nul_ == UINT64_MAX && from < end) {
    const char* nul = Find(view_.data() + (from - begin), view_.data() + view_.size(), '\0');
    if (nul != nullptr) first_nul_ = begin + static_cast<uint64_t>(nul - view_.data());
  }
  nul_checked_until_ = std::max(nul_checked_until_, end);
  if (!started_) {
    started_ = true;
    if (view_.substr(0, kBom.size()) == kBom) pos_ = kBom.size();
    input_was_empty_ = pos_ == view_.size() && source_.exhausted();
    return true;
  }
  return view_.size() > before || !source_.exhausted();
}

Status CsvScanner::NulError(uint64_t row_begin) {
  int64_t line = row_line_;
  uint64_t begin = source_.offset();
  if (row_begin >= begin && first_nul_ >= row_begin && first_nul_ - begin <= view_.size()) {
    line += CountNewlines(view_.data() + (row_begin - begin), view_.data() + (first_nul_ - begin));
  }
  return ErrorAt(display_name_, line, "NUL byte in a text file");
}

Result<bool> CsvScanner::NextRow() {
  if (!started_) {
    ASSIGN_OR_RETURN(bool more, Refill());
    (void)more;
  }
  for (;;) {
    Status error;
    uint64_t row_begin = source_.offset() + pos_;
    Parse parse = ParseRow(error);
    if (parse == Parse::kError) return error;
    if (parse == Parse::kRow) {
      if (first_nul_ < source_.offset() + pos_) return NulError(row_begin);
      return true;
    }
    if (source_.exhausted()) {
      if (pos_ == view_.size()) return false;  // clean end: the last row ended in a newline
      row_line_ = next_line_;
      if (first_nul_ != UINT64_MAX) return NulError(row_begin);
      if (in_quote_) return ErrorAt(display_name_, open_quote_line_, "unterminated quote");
      return ErrorAt(display_name_, next_line_, "truncated last line (no newline at the end)");
    }
    ASSIGN_OR_RETURN(bool more, Refill());
    (void)more;
  }
}

CsvScanner::Parse CsvScanner::ParseRow(Status& error) {
  const char* p = view_.data() + pos_;
  const char* const end = view_.data() + view_.size();
  fields_.clear();
  unescaped_.clear();
  unescaped_fields_.clear();
  in_quote_ = false;
  row_line_ = next_line_;
  int64_t line = next_line_;  // the line p is on
  if (p == end) return Parse::kNeedMore;
  const char* line_end = nullptr;
  for (;;) {
    if (*p != '"') {
      if (line_end == nullptr || line_end < p) {
        line_end = Find(p, end, '\n');
        if (line_end == nullptr) return Parse::kNeedMore;
      }
      const char* comma = Find(p, line_end, ',');
      if (comma != nullptr) {
        fields_.emplace_back(p, static_cast<size_t>(comma - p));
        p = comma + 1;
        continue;
      }
      const char* field_end = line_end;
      if (field_end > p && field_end[-1] == '\r') --field_end;
      fields_.emplace_back(p, static_cast<size_t>(field_end - p));
      p = line_end + 1;
      break;
    }
    // A quoted field: find the closing quote, unescaping "" on the way when there is one.
    in_quote_ = true;
    open_quote_line_ = line;
    const char* content = p + 1;
    const char* q = content;
    bool escaped = false;
    size_t unescaped_begin = unescaped_.size();
    const char* close;
    for (;;) {
      close = Find(q, end, '"');
      if (close == nullptr || close + 1 == end) return Parse::kNeedMore;
      if (close[1] != '"') break;
      unescaped_.append(q, static_cast<size_t>(close + 1 - q));  // keeps one quote
      escaped = true;
      q = close + 2;
    }
    in_quote_ = false;
    line += CountNewlines(content, close);
    if (escaped) {
      unescaped_.append(q, static_cast<size_t>(close - q));
      unescaped_fields_.push_back({fields_.size(), unescaped_begin, unescaped_.size() - unescaped_begin});
    }
    fields_.emplace_back(content, static_cast<size_t>(close - content));
    p = close + 1;
    if (*p == ',') {
      ++p;
      if (p == end) return Parse::kNeedMore;
      continue;
    }
    if (*p == '\n') {
      ++p;
      break;
    }
    if (*p == '\r') {
      if (p + 1 == end) return Parse::kNeedMore;
      if (p[1] == '\n') {
        p += 2;
        break;
      }
    }
    error = ErrorAt(display_name_, line, "unexpected text after a closing quote");
    return Parse::kError;
  }
  for (const Unescaped& u : unescaped_fields_) {
    fields_[u.field] = std::string_view(unescaped_.data() + u.offset, u.size);
  }
  next_line_ = line + 1;
  pos_ = static_cast<size_t>(p - view_.data());
  return Parse::kRow;
}

Result<bool> CsvScanner::SkipLinesUntil(const std::function<bool(std::string_view)>& wanted,
                                        int64_t max_lines, size_t max_line_bytes) {
  if (!started_) {
    ASSIGN_OR_RETURN(bool more, Refill());
    (void)more;
  }
  for (int64_t skipped = 0; skipped <= max_lines;) {
    const char* begin = view_.data() + pos_;
    const char* end = view_.data() + view_.size();
    const char* newline = Find(begin, end, '\n');
    if (newline == nullptr && !source_.exhausted()) {
      if (static_cast<size_t>(end - begin) > max_line_bytes) return false;
      ASSIGN_OR_RETURN(bool more, Refill());
      (void)more;
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
