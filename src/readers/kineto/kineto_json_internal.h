// The Kineto reader's two halves: simdjson events → compact records (kineto_json_events.cc),
// and records → sorted, joined batches for the sink (kineto_json.cc).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "readers/spilled_sort.h"
#include "stepstat/read.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat::kineto {

/// What the event pass found. GpuOp::device is an index into `device_keys`, `line` is the
/// event's byte offset until lines are resolved, and times exclude baseTimeNanoseconds
/// (SortedRecords turns them into what the sink gets).
struct Records {
  std::vector<GpuOp> ops;
  std::vector<LaunchCall> calls;
  std::vector<CpuRange> ranges;  ///< user annotations (ProfilerStep#N, record_function)
  /// The raw JSON text of each distinct GPU "pid" (a number or a quoted string); views point
  /// into the document buffer and live as long as it.
  std::vector<std::string_view> device_keys;
  /// deviceProperties: device id → name.
  std::unordered_map<int64_t, std::string> device_names;
  std::optional<int64_t> base_time_ns;
  int64_t events = 0;
  bool saw_decimal_time = false;  ///< some ts/dur had a fraction ("12.345")
  bool lines_resolved = false;    ///< `line`s already hold lines, not byte offsets
};

/// How far a forward newline count over the document has got.
struct LineCursor {
  size_t scanned = 0;
  int64_t line = 1;
};

/// Turns the byte offsets in `line` of the records from the given indexes on (each vector in
/// file order, all at or past `cursor`) into 1-based lines of `document`.
void OffsetsToLines(std::string_view document, Records& records, size_t first_op, size_t first_call,
                    size_t first_range, LineCursor& cursor);

/// Where the parse is in the document, for an owner of its memory that maps pages in as
/// they are needed (PaddedFileMap): `ahead(begin, end)` before bytes [begin, end) are read,
/// `behind(end)` once no byte before `end` is needed in memory any more (views into them
/// must stay valid: such pages may be read again). Either may be empty.
struct DocumentWindow {
  std::function<void(size_t begin, size_t end)> ahead;
  std::function<void(size_t end)> behind;
  /// When set, the chunked parse copies a chunk's bytes [offset, offset + size) with it
  /// rather than from the document's memory (reading a file costs less than mapping its
  /// pages in and out); false: copy from the document. Called from several threads at once.
  std::function<bool(size_t offset, char* out, size_t size)> read;
};

/// How a large document is cut and parsed (tests make chunks small to have many).
struct ChunkOptions {
  /// About how many bytes of the document each chunk holds (cut at an event's line). Each
  /// parse thread has a simdjson index of ~4 bytes per byte of its chunk: two threads on
  /// 2 MiB chunks hold what one did on 4 MiB (bench/results/kineto-parallel-2026-12-05.md).
  size_t chunk_bytes = size_t{2} << 20;
  /// Threads parsing chunks beside the caller's; 0: one per core, at most two.
  int parse_threads = 0;
};

/// The parse threads `options` asks for.
int ParseThreadsFor(const ChunkOptions& options);

/// ParseKinetoJson over `json`, whose buffer is readable (and zero) up to
/// `json.data() + readable_size`, at least SIMDJSON_PADDING bytes past its end.
/// `spill`: how the records are sorted (tests give a small buffer to make them spill).
Result<ReadReport> ParsePaddedJson(std::string_view json, size_t readable_size,
                                   std::string_view display_name, TraceSink& sink,
                                   const DocumentWindow& window = {},
                                   const SpillOptions& spill = {}, const ChunkOptions& chunks = {});

/// ParseKinetoJson and ReadKinetoJson with the records' sort configured.
Result<ReadReport> ParseKinetoJsonWith(std::string& json, std::string_view display_name,
                                       TraceSink& sink, const SpillOptions& spill,
                                       const ChunkOptions& chunks = {});
Result<ReadReport> ReadKinetoJsonWith(const std::filesystem::path& path,
                                      std::string_view display_name, TraceSink& sink,
                                      const SpillOptions& spill, const ChunkOptions& chunks = {});

/// Where a parsed text lies in the document: its byte i is byte i + shift of `document`
/// (a chunk copied out with a made-up prefix has shift = its offset - the prefix's length).
struct TextOrigin {
  std::string_view document;
  int64_t shift = 0;
};

/// How the top level of a parsed text looked (for checking a chunk's cut).
struct TextShape {
  int event_arrays = 0;   ///< top-level "traceEvents" arrays
  size_t events_end = 0;  ///< offset in the text of the token after the last one's ']'
};

/// Walks the JSON text (`size` bytes at `data`, readable up to `data + padded_size`) and
/// appends records, with byte offsets in `origin.document`; names are interned into `pool`.
/// On error, records may hold part of the text's events. Fills `shape` unless null.
Status ParseEvents(const char* data, size_t size, size_t padded_size, const TextOrigin& origin,
                   std::string_view display_name, StringPool& pool, Records& records,
                   TextShape* shape = nullptr);

/// Like ParseEvents over the whole `document`, a few MiB of "traceEvents" at a time, so that
/// simdjson's index stays small and in cache instead of 4 bytes of fresh memory per token.
/// The chunks are parsed on ParseThreadsFor(options) threads and handed back in file order:
/// `records` (names in `pool`, devices, lines) ends as one thread's parse would leave it.
/// `drain`, when given, is handed each chunk's records in file order on the caller's thread
/// (lines resolved, names and devices those of `pool` and `records`) and takes their ops,
/// calls and ranges out; its error ends the parse. `window.ahead` is called from the parse
/// threads, one call at a time, in file order; `window.behind` from the caller's thread,
/// perhaps during an `ahead` call.
/// Fails, leaving `records` partly filled, when the document cannot be cut that way (no line
/// starting with '{' near a cut, or anything unexpected, including any error in the input):
/// callers then parse it whole, which also gives the error message.
Status ParseEventsInChunks(std::string_view document, std::string_view display_name,
                           StringPool& pool, Records& records, const DocumentWindow& window = {},
                           const std::function<Status(Records&)>& drain = {},
                           const ChunkOptions& options = {});

/// Exact ns of a time written as plain decimal µs ("1712867402000000", "12.345": at most 3
/// fraction digits, at most 19 digits); nullopt for any other form, which callers hand to
/// ParseScaledDecimal. Sets `has_fraction` when the text has a '.'.
std::optional<int64_t> SimpleMicrosToNs(std::string_view text, bool& has_fraction);

/// SimpleMicrosToNs with the ns in `ns` and false for nullopt: what the parse calls (an
/// optional returned through the stack stalled on store forwarding at every call).
bool MicrosToNsIfSimple(std::string_view text, bool& has_fraction, int64_t& ns);

/// Number of '\n' bytes in `text`.
int64_t CountNewlines(std::string_view text);

/// 1-based line of byte `offset` in `text`.
int64_t LineAt(std::string_view text, size_t offset);

/// The content of a JSON string token (`"..."` with the quotes), unescaped into `scratch`
/// when it has escapes. The result views `token` or `scratch`. nullopt on a bad escape.
std::optional<std::string_view> UnescapeJsonString(std::string_view token, std::string& scratch);

}  // namespace stepstat::kineto
