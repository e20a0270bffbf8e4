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

// Bits of positions >= i (i < 64) and < i of a block.
inline uint64_t FromBit(size_t i) { return ~uint64_t{0} << i; }
inline uint64_t BelowBit(size_t i) { return (uint64_t{1} << i) - 1; }

}  // namespace

CsvScanner::CsvScanner(ByteSource& source, std::string_view display_name)
    : source_(source), display_name_(display_name), fields_(32) {}

// Slides the window past what was consumed (pos_).
Status CsvScanner::Refill() {
  ASSIGN_OR_RETURN(view_, source_.Next(pos_));
  ++refills_;
  pos_ = 0;
  chunk_base_ = nullptr;
  chunk_blocks_ = 0;
  if (!started_) {
    started_ = true;
    while (view_.size() < kBom.size() && !source_.exhausted()) {
      ASSIGN_OR_RETURN(view_, source_.Next(0));
      ++refills_;
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

// Classifies up to kChunkBlocks blocks from p. A last block shorter than 64 bytes is
// classified from a copy padded with spaces, so its positions past the view hold no bits.
void CsvScanner::ClassifyChunk(const char* p) {
  const size_t available = static_cast<size_t>(view_.data() + view_.size() - p);
  const size_t full = std::min(kChunkBlocks, available / 64);
  ClassifyBlocks(p, full, masks_);
  chunk_blocks_ = full;
  if (full < kChunkBlocks && available % 64 != 0) {
    char padded[64];
    std::memset(padded, ' ', sizeof padded);
    std::memcpy(padded, p + 64 * full, available % 64);
    ClassifyBlocks(padded, 1, masks_ + full);
    ++chunk_blocks_;
  }
  chunk_base_ = p;
}

bool CsvScanner::Seek(const char* p) {
  if (p >= view_.data() + view_.size()) return false;
  if (chunk_base_ == nullptr || p < chunk_base_ || p >= chunk_base_ + 64 * chunk_blocks_) {
    ClassifyChunk(p);
  }
  const size_t offset = static_cast<size_t>(p - chunk_base_);
  block_ = offset / 64;
  bits_ = masks_[block_].any & FromBit(offset % 64);
  return true;
}

bool CsvScanner::NextBlock() {
  if (block_ + 1 == chunk_blocks_) {
    const char* next = chunk_base_ + 64 * chunk_blocks_;
    if (next >= view_.data() + view_.size()) return false;
    ClassifyChunk(next);
    block_ = 0;
  } else {
    ++block_;
  }
  bits_ = masks_[block_].any;
  return true;
}

// Walks the structural bits of the blocks (classified 64 bytes at a time, ahead of use):
// each bit is a field or row end, a quote, or a NUL. A quoted field jumps to its closing
// quote through the quote bits, counting the newline bits it passes.
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
  const char* row_end = nullptr;            // one past the row's line ending, once found
  // The walk's cursor in locals: the field stores through `out` may alias members (size_t
  // and uint64_t are the same type), which would reload them after every field.
  uint64_t bits = 0;
  uint64_t stops = 0;  // the block's bits that are not commas: newline, quote, NUL
  const char* block_start = nullptr;
  auto load_cursor = [&] {
    bits = bits_;
    const StructuralMasks& m = masks_[block_];
    stops = m.newline | m.quote | m.nul;
    block_start = chunk_base_ + 64 * block_;
  };
  if (!Seek(field)) return Parse::kNeedMore;
  load_cursor();
  while (row_end == nullptr) {
    while (bits == 0) {
      if (!NextBlock()) return Parse::kNeedMore;
      load_cursor();
    }
    // The commas before the block's next stop end fields with no byte to look at: most rows
    // are nothing but commas up to their newline.
    const uint64_t pending_stops = bits & stops;
    uint64_t commas = bits & ~stops;
    if (pending_stops != 0) {
      commas &= BelowBit(static_cast<size_t>(std::countr_zero(pending_stops)));
    }
    bits &= ~commas;
    while (commas != 0) {
      const char* at = block_start + std::countr_zero(commas);
      commas &= commas - 1;
      add_field(field, at);
      field = at + 1;
    }
    if (bits == 0) continue;
    const size_t i = static_cast<size_t>(std::countr_zero(bits));
    bits &= bits - 1;
    const char* at = block_start + i;
    const char c = *at;  // a stop: the commas before it were taken above
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
    // A quoted field: the next quote bit closes it, unless a second quote follows ("").
    in_quote_ = true;
    open_quote_line_ = line;
    const char* content = at + 1;
    const char* piece = content;  // text not yet copied to unescaped_ starts here
    bool escaped = false;
    size_t unescaped_begin = unescaped_.size();
    uint64_t from = FromBit(i) << 1;  // the block's positions after the opening quote
    const char* close;
    for (;;) {
      const StructuralMasks& m = masks_[block_];
      const uint64_t quotes = m.quote & from;
      const uint64_t inside =
          quotes != 0 ? from & BelowBit(static_cast<size_t>(std::countr_zero(quotes))) : from;
      if ((m.nul & inside) != 0) {
        const size_t nul = static_cast<size_t>(std::countr_zero(m.nul & inside));
        line += std::popcount(m.newline & inside & BelowBit(nul));
        error = ErrorAt(display_name_, line, "NUL byte in a text file");
        return Parse::kError;
      }
      // Baseline x86-64 has no popcnt instruction: skip the library call when (as nearly
      // always) the quoted text has no newline.
      if ((m.newline & inside) != 0) line += std::popcount(m.newline & inside);
      if (quotes == 0) {
        if (!NextBlock()) return Parse::kNeedMore;
        from = ~uint64_t{0};
        continue;
      }
      const size_t j = static_cast<size_t>(std::countr_zero(quotes));
      close = chunk_base_ + 64 * block_ + j;
      if (close + 1 == end) return Parse::kNeedMore;
      if (close[1] != '"') break;
      unescaped_.append(piece, static_cast<size_t>(close + 1 - piece));  // keeps one quote
      escaped = true;
      piece = close + 2;
      if (j < 63) {
        from = FromBit(j + 1) << 1;  // after the escape's second quote
      } else {                       // the second quote is the next block's first byte
        if (!NextBlock()) return Parse::kNeedMore;
        from = ~uint64_t{1};
      }
    }
    in_quote_ = false;
    if (escaped) {
      unescaped_.append(piece, static_cast<size_t>(close - piece));
      unescaped_fields_.push_back({count, unescaped_begin, unescaped_.size() - unescaped_begin});
    }
    add_field(content, close);
    const char* after = close + 1;
    if (*after == ',') {
      field = after + 1;
      if (!Seek(field)) return Parse::kNeedMore;
      load_cursor();
      continue;
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
  count_ = count;
  for (const Unescaped& u : unescaped_fields_) {
    fields_[u.field] = std::string_view(unescaped_.data() + u.offset, u.size);
  }
  next_line_ = line + 1;
  row_begin_ = view_.data() + pos_;
  row_end_ = row_end;
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
