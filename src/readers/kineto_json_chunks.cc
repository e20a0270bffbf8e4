// ParseEventsInChunks: the "traceEvents" array a few MiB at a time. A whole-document parse
// gives simdjson an index of 4 bytes per JSON token (~0.9 GB for a 1 GiB trace), and touching
// that much fresh memory cost several times the parse itself (bench/results/readers-*.md).
// Each chunk is copied into one reused buffer between a made-up head and tail so that it is
// a JSON document of its own:
//   first:  <document up to the cut>]}
//   middle: {"traceEvents": [<events between two cuts>]}
//   last:   {"traceEvents": [<the rest of the document>
// Cuts are at lines that start with '{' (a raw newline never occurs inside a JSON string, so
// that '{' opens an object outside strings). Whether the cut fell between two events of the
// top-level array, and not inside one, is checked after the fact: the chunk must parse with
// exactly one "traceEvents" array that ends at the made-up ']'. Anything else fails, and the
// caller parses the whole document instead.
#include <simdjson.h>

#include <string>

#include "readers/kineto_json_internal.h"

namespace stepstat::kineto {
namespace {

constexpr size_t kChunkBytes = 4 << 20;
constexpr std::string_view kHead = "{\"traceEvents\": [";
constexpr std::string_view kTail = "]}";

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The offset of the last '{' in [from, to) that is the first non-blank byte of its line, or
// npos.
size_t LastObjectLineStart(std::string_view doc, size_t from, size_t to) {
  size_t newline = to;
  while (newline > from) {
    newline = doc.rfind('\n', newline - 1);
    if (newline == std::string_view::npos || newline < from) return std::string_view::npos;
    size_t i = newline + 1;
    while (i < to && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\r')) ++i;
    if (i < to && doc[i] == '{') return i;
  }
  return std::string_view::npos;
}

// `text` without trailing blanks and the one ',' that must end it; nullopt without the ','.
std::optional<std::string_view> WithoutTrailingComma(std::string_view text) {
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  if (text.empty() || text.back() != ',') return std::nullopt;
  text.remove_suffix(1);
  return text;
}

Status CannotCut(std::string_view display_name) {
  return ErrorAt(display_name, 0, "not cut into chunks");
}

}  // namespace

Status ParseEventsInChunks(std::string_view document, std::string_view display_name,
                           StringPool& pool, Records& records, const DocumentWindow& window,
                           const std::function<Status(Records&)>& drain) {
  if (document.size() < 2 * kChunkBytes) return CannotCut(display_name);  // whole is fine
  std::string buffer;
  buffer.reserve(kChunkBytes + kHead.size() + kTail.size() + simdjson::SIMDJSON_PADDING);
  size_t begin = 0;  // where the next chunk starts in the document
  LineCursor lines;
  for (bool first = true;; first = false) {
    const size_t first_op = records.ops.size();
    const size_t first_call = records.calls.size();
    const size_t first_range = records.ranges.size();
    const bool last = document.size() - begin <= kChunkBytes + kChunkBytes / 2;
    if (window.ahead) window.ahead(begin, last ? document.size() : begin + kChunkBytes);
    std::string_view body;
    size_t cut = document.size();
    if (!last) {
      cut = LastObjectLineStart(document, begin + kChunkBytes / 2, begin + kChunkBytes);
      if (cut == std::string_view::npos) return CannotCut(display_name);
      std::optional<std::string_view> events =
          WithoutTrailingComma(document.substr(begin, cut - begin));
      if (!events) return CannotCut(display_name);
      body = *events;
    } else {
      body = document.substr(begin);
    }
    buffer.clear();
    if (!first) buffer += kHead;
    const int64_t shift = static_cast<int64_t>(begin) - static_cast<int64_t>(buffer.size());
    buffer += body;
    if (!last) buffer += kTail;
    const size_t size = buffer.size();
    buffer.append(simdjson::SIMDJSON_PADDING, '\0');
    TextShape shape;
    RETURN_IF_ERROR(ParseEvents(buffer.data(), size, buffer.size(), {document, shift}, display_name,
                                pool, records, &shape));
    if (shape.event_arrays != 1) return CannotCut(display_name);
    // The one array must close at the made-up ']', right before the made-up '}'.
    if (!last && shape.events_end != size - 1) return CannotCut(display_name);
    // Lines now, while this part of the document is still in cache.
    OffsetsToLines(document, records, first_op, first_call, first_range, lines);
    if (drain) RETURN_IF_ERROR(drain(records));
    if (last) {
      records.lines_resolved = true;
      return Status::Ok();
    }
    // The chunk was copied out and its lines counted: the document before the cut is done
    // (a failed cut later parses the whole document, which maps it in again).
    if (window.behind) window.behind(cut);
    begin = cut;
  }
}

}  // namespace stepstat::kineto
