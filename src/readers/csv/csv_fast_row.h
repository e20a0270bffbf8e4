// FastRowPlan: one walk over a row's bytes that splits it and converts its numeric columns as
// each field's end is found, for the two big nsys reports (cuda_gpu_trace,
// cuda_kern_exec_trace). The general path (CsvScanner::ParseRow storing 14-21 field views and
// its error bookkeeping, then the reader reading ten of them again through a list of columns)
// was half of summarize's time on short rows.
//
// The row's bytes are classified 64 at a time (ClassifyBlocks, as the scanner does), so each
// field's end is the next comma or newline bit, found without a dependency on the previous
// field's parse; a number is converted as its end is found, a column the reader does not use
// is passed over. A row whose only quotes enclose its last field (a templated kernel name
// with commas, as nsys writes it) is walked as an unquoted one up to that field.
//
// The walk splits a row as CsvScanner would and converts a number with the very call the
// checked path makes (ParseScaled; blank optional fields left alone), so whatever it accepts
// reads the same. It accepts only rows it can split that way simply: no NUL, quoted fields
// with no "" and no newline inside, the header's number of fields, and every number
// converting without an error. A CR before the newline is dropped as the scanner drops it
// (from a non-empty unquoted last field, or after a quoted one). For any other row it says
// no and the reader reads that row by the checked path, which gives the values or the
// message of today. A rejection is never an error, only a slower row.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "csv/structural_mask.h"
#include "readers/csv/csv_values.h"

namespace stepstat {

enum class FastField : uint8_t {
  kIgnore,          // not used by the reader: any text the scanner accepts, not converted
  kText,            // handed out as text
  kNumber,          // ParseScaled(text, exponent) must succeed
  kOptionalNumber,  // the same, or blank (the value is then left as it was)
};

class FastRowPlan {
 public:
  /// A plan for rows of `columns` fields, all kIgnore until set.
  explicit FastRowPlan(size_t columns) : columns_(columns) {}

  /// Column `column` (absent when < 0) is a number × 10^exponent written to values[slot].
  void Number(int column, int exponent, bool required, int slot) {
    Set(column, {required ? FastField::kNumber : FastField::kOptionalNumber, exponent, slot});
  }
  /// Column `column` (absent when < 0) is text written to texts[slot].
  void Text(int column, int slot) { Set(column, {FastField::kText, 0, slot}); }
  /// Stops every row from being walked (a column the walk does not cover, or a test).
  void Disable() { usable_ = false; }
  bool usable() const { return usable_ && !columns_.empty() && columns_.size() <= kMaxFields; }

  /// Walks the row at the start of `unread` (the unread rest of the scanner's window, which
  /// the scanner numbers `window`: the bytes under an address change when it slides). Returns
  /// the row's length through its '\n' when it read every field as the checked path would:
  /// values[] and texts[] then hold the row's numbers and texts (a blank optional number
  /// leaves its value). Returns 0 when the row must be read by the checked path (values[]
  /// and texts[] may be partly written).
  size_t Walk(std::string_view unread, uint64_t window, int64_t* values, std::string_view* texts) {
    const char* const begin = unread.data();
    const char* const limit = begin + unread.size();
    if (window != window_ || begin < chunk_ || begin >= chunk_ + 64 * chunk_blocks_) {
      Classify(begin, limit, window);
    }
    auto off = static_cast<size_t>(begin - chunk_);
    size_t newline = FindFrom(&StructuralMasks::newline, off);
    if (newline == kNone) {
      if (off == 0) return 0;  // a row of over 1 KiB, or at the window's end
      Classify(begin, limit, window);
      off = 0;
      newline = FindFrom(&StructuralMasks::newline, 0);
      if (newline == kNone) return 0;
    }
    uint64_t quotes = 0;
    uint64_t nuls = 0;
    if (!plain_chunk_) {  // most chunks have neither: no loop over the row's blocks then
      for (size_t b = off / 64; b <= newline / 64; ++b) {
        const uint64_t in_row = InRow(b, off, newline);
        quotes |= masks_[b].quote & in_row;
        nuls |= masks_[b].nul & in_row;
      }
      if (nuls != 0) return 0;
    }
    // A CR before the newline: walks of their own, so an LF row pays no check a field.
    const bool crlf = newline > off && chunk_[newline - 1] == '\r';
    // A quoted last field (a kernel name with commas, as nsys writes it) is the only quoting
    // most rows have: the fields before it are walked as in an unquoted row.
    size_t open = kNone;
    if (quotes != 0) {
      // The row holds a quote, so the first from `off` is in it; the next one closes the
      // last field only if it sits right before the row's end.
      const size_t first = FindFrom(&StructuralMasks::quote, off);
      const size_t close = newline - (crlf ? 2 : 1);
      if (first > off && first < close && chunk_[first - 1] == ',' &&
          FindFrom(&StructuralMasks::quote, first + 1) == close) {
        open = first;
      }
    }
    bool walked;
    if (quotes == 0 || open != kNone) {
      walked = crlf ? WalkUnquoted<true>(off, newline, open, values, texts)
                    : WalkUnquoted<false>(off, newline, open, values, texts);
    } else {
      walked = crlf ? WalkQuoted<true>(off, newline, values, texts)
                    : WalkQuoted<false>(off, newline, values, texts);
    }
    return walked ? newline + 1 - off : 0;
  }

 private:
  // Rows of up to 1 KiB and 64 fields: a longer row takes the checked path.
  static constexpr size_t kChunkBlocks = 16;
  static constexpr size_t kMaxFields = 64;
  static constexpr size_t kNone = ~size_t{0};
  struct Column {
    FastField kind = FastField::kIgnore;
    int exponent = 0;
    int slot = 0;
  };
  struct Used {
    size_t column;
    Column what;
  };

  void Set(int column, Column what) {
    if (column < 0) return;
    columns_[static_cast<size_t>(column)] = what;
    used_.clear();
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].kind != FastField::kIgnore) used_.push_back({c, columns_[c]});
    }
  }

  // Masks for the whole 64-byte blocks from `begin` (up to kChunkBlocks): rows in a partial
  // last block are left to the checked path.
  void Classify(const char* begin, const char* limit, uint64_t window) {
    chunk_ = begin;
    window_ = window;
    chunk_blocks_ = std::min(kChunkBlocks, static_cast<size_t>(limit - begin) / 64);
    ClassifyBlocks(begin, chunk_blocks_, masks_);
    uint64_t quotes_or_nuls = 0;
    for (size_t b = 0; b < chunk_blocks_; ++b) quotes_or_nuls |= masks_[b].quote | masks_[b].nul;
    plain_chunk_ = quotes_or_nuls == 0;
  }

  // The chunk position of the first byte of a kind (StructuralMasks::newline, ::quote) at or
  // after `off`, or kNone.
  size_t FindFrom(uint64_t StructuralMasks::*kind, size_t off) const {
    for (size_t b = off / 64; b < chunk_blocks_; ++b) {
      uint64_t bits = masks_[b].*kind;
      if (b == off / 64) bits &= ~uint64_t{0} << (off % 64);
      if (bits != 0) return 64 * b + static_cast<size_t>(std::countr_zero(bits));
    }
    return kNone;
  }

  // The bits of block b that lie in the row [off, newline].
  static uint64_t InRow(size_t b, size_t off, size_t newline) {
    uint64_t bits = ~uint64_t{0};
    if (b == off / 64) bits &= ~uint64_t{0} << (off % 64);
    if (b == newline / 64 && newline % 64 != 63) bits &= (uint64_t{2} << (newline % 64)) - 1;
    return bits;
  }

  // No quote in the row, or only the two around its last field (from `open`, its opening
  // quote, to the quote that ends the row; kNone when unquoted): its other fields end at
  // its commas, so their positions are gathered first (a loop with no work per field) and
  // only the used columns are read.
  template <bool kCrlf>
  bool WalkUnquoted(size_t off, size_t newline, size_t open, int64_t* values,
                    std::string_view* texts) {
    const size_t fields = columns_.size();
    const size_t last = fields - 1;
    // The last delimiter gathered: the newline, or the comma before the opening quote (the
    // quoted name's own commas are text).
    const size_t stop = open == kNone ? newline : open - 1;
    uint32_t ends[kMaxFields + 1];
    size_t n = 0;
    for (size_t b = off / 64; b <= stop / 64; ++b) {
      uint64_t bits = masks_[b].any & InRow(b, off, stop);
      while (bits != 0) {
        if (n == fields) return false;  // a field too many
        ends[n++] = static_cast<uint32_t>(64 * b + static_cast<size_t>(std::countr_zero(bits)));
        bits &= bits - 1;
      }
    }
    size_t last_start;
    if (open == kNone) {
      if (n != fields) return false;  // a field too few (the last end is the newline)
      last_start = last == 0 ? off : ends[last - 1] + 1;
      // The CR before the newline (the last field holds it) is dropped, as the scanner drops
      // it: the last field's end bounds nothing else.
      if (kCrlf && newline > last_start) --ends[last];
    } else {
      if (n != last) return false;  // the quote opens the last field, or the row is odd
      last_start = open + 1;
      ends[last] = static_cast<uint32_t>(newline - (kCrlf ? 2 : 1));  // the closing quote
    }
    const char* readable_end = chunk_ + 64 * chunk_blocks_;
    for (const Used& used : used_) {
      const size_t start = used.column == last ? last_start
                           : used.column == 0  ? off
                                               : ends[used.column - 1] + 1;
      const std::string_view text(chunk_ + start, ends[used.column] - start);
      if (!Read(used.what, text, readable_end, values, texts)) return false;
    }
    return true;
  }

  // A row with quotes: field by field, as the scanner does. A quote opening a field closes
  // at the next quote, which must be followed by the field's delimiter (not a second quote,
  // a CR, or text); a quote inside an unquoted field is text.
  template <bool kCrlf>
  bool WalkQuoted(size_t off, size_t newline, int64_t* values, std::string_view* texts) {
    const char* readable_end = chunk_ + 64 * chunk_blocks_;
    const size_t last = columns_.size() - 1;
    size_t block = off / 64;
    // The field ends (commas, the newline) not passed yet in `block`.
    uint64_t ends = (masks_[block].any & ~masks_[block].quote) & InRow(block, off, newline);
    size_t p = off;  // the field's first byte
    for (size_t c = 0; c <= last; ++c) {
      size_t end;  // the field's delimiter
      std::string_view text;
      if (chunk_[p] != '"') {
        while (ends == 0) {
          if (++block > newline / 64) return false;
          ends = masks_[block].any & ~masks_[block].quote & InRow(block, off, newline);
        }
        end = 64 * block + static_cast<size_t>(std::countr_zero(ends));
        ends &= ends - 1;
        // The scanner drops the CR from a non-empty last field.
        const bool cr = kCrlf && end == newline && end > p;
        text = std::string_view(chunk_ + p, end - p - (cr ? 1 : 0));
      } else {
        size_t b = (p + 1) / 64;
        uint64_t quotes = masks_[b].quote & (~uint64_t{0} << ((p + 1) % 64));
        while (quotes == 0) {
          if (++b > newline / 64) return false;
          quotes = masks_[b].quote;
        }
        const size_t close = 64 * b + static_cast<size_t>(std::countr_zero(quotes));
        if (close >= newline) return false;  // the field goes on past the line
        end = close + 1;
        if (kCrlf && end + 1 == newline) end = newline;  // "text"CRLF: the CR is at `end`
        text = std::string_view(chunk_ + p + 1, close - p - 1);
        block = end / 64;  // the cursor passes the commas inside the quotes
        ends = masks_[block].any & ~masks_[block].quote & InRow(block, off, newline) &
               (~uint64_t{0} << (end % 64));
        if (ends == 0 || static_cast<size_t>(std::countr_zero(ends)) != end % 64) return false;
        ends &= ends - 1;
      }
      if (chunk_[end] != (c == last ? '\n' : ',')) return false;  // a field too many or few
      if (columns_[c].kind != FastField::kIgnore &&
          !Read(columns_[c], text, readable_end, values, texts)) {
        return false;
      }
      p = end + 1;
    }
    return true;
  }

  // A used field: a text handed out, or a number converted by the checked path's calls
  // (plain digits inline, anything else ParseScaled); an error (the checked path's
  // message) rejects the row.
  static bool Read(const Column& column, std::string_view text, const char* readable_end,
                   int64_t* values, std::string_view* texts) {
    if (column.kind == FastField::kText) {
      texts[column.slot] = text;
      return true;
    }
    if (std::optional<int64_t> value = ParsePlainDigits(text, column.exponent, readable_end)) {
      values[column.slot] = *value;
      return true;
    }
    if (column.kind == FastField::kOptionalNumber && IsBlank(text)) return true;
    const DecimalResult r = ParseScaled(text, column.exponent);
    if (!r.ok()) return false;
    values[column.slot] = r.value;
    return true;
  }

  std::vector<Column> columns_;
  std::vector<Used> used_;
  bool usable_ = true;
  // Masks of up to kChunkBlocks whole blocks from chunk_, in the window numbered window_:
  // rows (a short one is a fraction of a block) are walked on masks classified ahead.
  StructuralMasks masks_[kChunkBlocks];
  const char* chunk_ = nullptr;
  size_t chunk_blocks_ = 0;
  uint64_t window_ = 0;
  bool plain_chunk_ = false;  // no quote and no NUL in any of the masks
};

}  // namespace stepstat
