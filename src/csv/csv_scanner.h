// CsvScanner: bytes of a ByteSource → rows of fields (RFC 4180). It knows syntax only: quotes,
// "" escapes, CRLF or LF, a UTF-8 BOM. Fields are handed out as written (no trimming, no
// numbers); readers interpret them.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "csv/structural_mask.h"
#include "io/byte_source.h"
#include "stepstat/status.h"

namespace stepstat {

class CsvScanner {
 public:
  /// `source` must outlive the scanner; `display_name` names the file in messages.
  CsvScanner(ByteSource& source, std::string_view display_name);

  /// Reads the next row into fields(). Returns false at the end of input. Errors (with
  /// "<file>:<line>: "): unterminated quote, truncated last line, NUL byte, text after a
  /// closing quote.
  Result<bool> NextRow();

  /// The fields of the last row. They point into the source's window or a scanner-owned
  /// buffer: valid until the next call of NextRow() or SkipLinesUntil(). The span itself
  /// is reused for every row (no allocation per row).
  std::span<const std::string_view> fields() const { return {fields_.data(), count_}; }

  /// Where the bytes that may be read from `field` (one of fields()) end: for a field that
  /// lies in the last row as written, one past the row's line ending, so a parser may load
  /// whole words past the field's end; for a field unescaped into a scanner buffer, its own
  /// end.
  const char* ReadableEnd(std::string_view field) const {
    const auto at = reinterpret_cast<uintptr_t>(field.data());
    if (at >= reinterpret_cast<uintptr_t>(row_begin_) &&
        at <= reinterpret_cast<uintptr_t>(row_end_)) {
      return row_end_;
    }
    return field.data() + field.size();
  }

  /// The unread rest of the window, for a caller that reads plain rows itself (FastRowPlan)
  /// and hands any other row to NextRow(); empty before the first NextRow(). Valid until
  /// the next NextRow() or SkipLinesUntil().
  std::string_view Unread() const { return started_ ? view_.substr(pos_) : std::string_view(); }
  /// Numbers the windows: the bytes at an address of Unread() change when this does.
  uint64_t window() const { return refills_; }

  /// Consumes the first `size` bytes of Unread(), one line through its '\n', read by the
  /// caller as one row: line() is then its line, fields() is empty.
  void TakeLine(size_t size) {
    row_line_ = next_line_++;
    count_ = 0;
    row_begin_ = row_end_ = view_.data() + pos_ + size;
    pos_ += size;
  }

  /// 1-based line where the last row starts (quoted fields may span lines).
  int64_t line() const { return row_line_; }

  /// Skips lines, looked at raw (not CSV-parsed: a log line may hold a stray quote), until
  /// `wanted(line)` is true for one (given without its line ending); that line is then read
  /// by the next NextRow(). Returns false when the input ends first, or when `max_lines`
  /// lines or a line longer than `max_line_bytes` went by without a match.
  Result<bool> SkipLinesUntil(const std::function<bool(std::string_view)>& wanted,
                              int64_t max_lines = 1000, size_t max_line_bytes = 1 << 20);

  /// True when nothing but the BOM was read so far and the input is empty.
  bool input_was_empty() const { return input_was_empty_; }

  const std::string& display_name() const { return display_name_; }

 private:
  enum class Parse { kRow, kNeedMore, kError };
  Parse ParseRow(Status& error);
  Status Refill();
  // Points the block cursor (block_, bits_) at `p`; false when p is at the view's end.
  bool Seek(const char* p);
  // Moves the cursor to the next block (bits_ = all of it); false past the view's end.
  bool NextBlock();
  void ClassifyChunk(const char* p);

  ByteSource& source_;
  std::string display_name_;
  std::string_view view_;
  size_t pos_ = 0;  // next unread byte of view_
  uint64_t refills_ = 0;
  bool started_ = false;
  bool input_was_empty_ = false;
  int64_t next_line_ = 1;
  int64_t row_line_ = 0;
  const char* row_begin_ = nullptr;  // the last row as written in view_
  const char* row_end_ = nullptr;
  // While a row is parsed: the line where an unclosed quote opened, for the error.
  int64_t open_quote_line_ = 0;
  bool in_quote_ = false;

  std::vector<std::string_view> fields_;  // grown, never shrunk; the row is the first count_
  size_t count_ = 0;
  std::string unescaped_;  // fields that had "" escapes, back to back
  struct Unescaped {
    size_t field;
    size_t offset;
    size_t size;
  };
  std::vector<Unescaped> unescaped_fields_;

  // Masks of up to kChunkBlocks 64-byte blocks of view_ from chunk_base_, classified ahead
  // of the rows that use them (a row rarely fills a block). Valid until the next Refill().
  static constexpr size_t kChunkBlocks = 16;
  StructuralMasks masks_[kChunkBlocks];
  const char* chunk_base_ = nullptr;
  size_t chunk_blocks_ = 0;
  size_t block_ = 0;   // cursor: the block being walked
  uint64_t bits_ = 0;  // cursor: its structural bits not walked yet
};

}  // namespace stepstat
