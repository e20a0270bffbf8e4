// ParseEventsInChunks: the "traceEvents" array a few MiB at a time, on parse threads. A
// whole-document parse gives simdjson an index of 4 bytes per JSON token (~0.9 GB for a 1 GiB
// trace), and touching that much fresh memory cost several times the parse itself
// (bench/results/readers-*.md). Each chunk is read (DocumentWindow::read: from the file, not
// through the mapping) or copied into its parse thread's buffer between a made-up head and
// tail so that it is a JSON document of its own:
//   first:  <document up to the cut>]}
//   middle: {"traceEvents": [<events between two cuts>]}
//   last:   {"traceEvents": [<the rest of the document>
// Cuts are at lines that start with '{' (a raw newline never occurs inside a JSON string, so
// that '{' opens an object outside strings). Whether the cut fell between two events of the
// top-level array, and not inside one, is checked after the fact: the chunk must parse with
// exactly one "traceEvents" array that ends at the made-up ']'. Anything else fails, and the
// caller parses the whole document instead (which also names the first bad line).
//
// A cut depends only on the one before it, so cutting is sequential and cheap (a look back
// from the chunk's end for a line start); parsing a chunk, counting its lines and interning
// its names is independent of every other chunk and runs on the parse threads. The caller's
// thread takes the parsed chunks in file order: it renumbers their names and devices into
// the reader's pool and device list, adds the lines before the chunk, and drains them, so
// that everything downstream (sequence numbers, name ids, the sorters) sees what one thread
// parsing front to back saw.
#include <simdjson.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "readers/kineto/kineto_json_internal.h"

namespace stepstat::kineto {
namespace {

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

// A chunk of the document: [begin, end), of which `body` (the events without the comma after
// the last) is what gets parsed.
struct Chunk {
  size_t index = 0;
  size_t begin = 0;
  size_t end = 0;
  std::string_view body;
  bool last = false;
};

// One parsed chunk on its way from a parse thread to the caller's thread.
struct Slot {
  enum class State { kFree, kParsing, kParsed, kFailed };
  State state = State::kFree;
  Chunk chunk;
  int parser = 0;  ///< which parse thread, whose pool `records`' name ids index
  /// Names ids are the parse thread's, devices index `records.device_keys` (this chunk's
  /// own), lines count from 1 at the chunk's first byte.
  Records records;
  /// The parse thread's pool's names first interned by this chunk, from id `first_new_name`.
  std::vector<std::string> new_names;
  size_t first_new_name = 0;
  int64_t newlines = 0;  ///< '\n's in [chunk.begin, chunk.end)
};

// Threads: the caller's thread (the consumer) starts `options.parse_threads` parse threads
// and joins them before returning, on every path. Shared state is guarded by `mutex_`:
// the cutting position, the two flags and each slot's state. A slot is written by one
// side at a time, as its state says: the parse thread that claimed it (kParsing) fills it
// outside the lock; the consumer reads and drains a kParsed slot outside the lock and then
// frees it (kFree); nobody else touches a slot in another's state. Chunk i goes to slot
// i % slots, claimed (in index order: the cut and `window.ahead` are done under the lock)
// before its slot is waited for.
// What blocks: a parse thread waits (slot_freed_) for its chunk's slot, which is chunk i's
// once the consumer has drained chunk i - slots (`drained_`, so that of two claimed chunks
// of one slot the later never takes it first); the consumer waits (slot_parsed_) for chunk i.
// No two waits wait for each other: the consumer waits only for the lowest chunk not yet
// drained, whose slot held a chunk already drained, so its parse thread never waits and
// finishes it (or, when no thread claimed it, a free parse thread claims it, or claims are
// over and the consumer stops); and a parse thread waits only on the consumer, never on
// another parse thread. A chunk that does not cut or parse ends the claims; the consumer
// drains every chunk before it, as one thread would have, and fails at it. Returning, the
// consumer sets `stop_` and wakes the parse threads, which leave without another chunk.
// `window.ahead` (which counts the progress meter) is called under the lock, so one at a
// time and in file order. Memory: threads + 1 slots of one chunk's records, and per thread
// a copy of a chunk and a simdjson parser (its index ~4 bytes per byte of the chunk).
class ChunkedParse {
 public:
  ChunkedParse(std::string_view document, std::string_view display_name,
               const DocumentWindow& window, const ChunkOptions& options, int parse_threads)
      : document_(document),
        display_name_(display_name),
        window_(window),
        chunk_bytes_(options.chunk_bytes),
        slots_(static_cast<size_t>(parse_threads) + 1) {}

  Status Run(int parse_threads, StringPool& pool, Records& records,
             const std::function<Status(Records&)>& drain) {
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(parse_threads));
    for (int i = 0; i < parse_threads; ++i) threads.emplace_back([this, i] { ParseThread(i); });
    Status status = Consume(parse_threads, pool, records, drain);
    Stop();
    for (std::thread& thread : threads) thread.join();
    return status;
  }

 private:
  // The most bytes a chunk spans: the last takes up to half a chunk more.
  size_t MaxChunk() const { return chunk_bytes_ + chunk_bytes_ / 2; }

  // Chunk `index` from the position `next_begin_`; under the lock.
  std::optional<Chunk> CutNext() {
    Chunk chunk;
    chunk.index = next_index_;
    chunk.begin = next_begin_;
    chunk.last = document_.size() - chunk.begin <= chunk_bytes_ + chunk_bytes_ / 2;
    if (chunk.last) {
      chunk.end = document_.size();
      chunk.body = document_.substr(chunk.begin);
    } else {
      chunk.end = LastObjectLineStart(document_, chunk.begin + chunk_bytes_ / 2,
                                      chunk.begin + chunk_bytes_);
      if (chunk.end == std::string_view::npos) return std::nullopt;
      std::optional<std::string_view> events =
          WithoutTrailingComma(document_.substr(chunk.begin, chunk.end - chunk.begin));
      if (!events) return std::nullopt;
      chunk.body = *events;
    }
    return chunk;
  }

  void ParseThread(int parser) {
    StringPool names;  // this thread's; the consumer renumbers into the reader's
    // Not zeroed: only what a chunk writes is read.
    std::unique_ptr<char[]> buffer(
        new char[kHead.size() + MaxChunk() + kTail.size() + simdjson::SIMDJSON_PADDING]);
    for (;;) {
      Slot* slot = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (stop_ || claims_over_) return;
        std::optional<Chunk> chunk = CutNext();
        if (!chunk) {
          claims_over_ = true;  // the consumer fails when it reaches this chunk
          lock.unlock();
          slot_parsed_.notify_all();
          return;
        }
        ++next_index_;
        next_begin_ = chunk->end;
        claims_over_ = chunk->last;
        if (window_.ahead) window_.ahead(chunk->begin, chunk->end);
        slot = &slots_[chunk->index % slots_.size()];
        // The slot is this chunk's once the chunk `slots` before it is drained (not merely
        // once it is free: a later chunk of the same slot must not take it first).
        slot_freed_.wait(lock, [&] { return stop_ || chunk->index < drained_ + slots_.size(); });
        if (stop_) return;
        slot->state = Slot::State::kParsing;
        slot->chunk = *chunk;
      }
      const bool parsed = Parse(parser, names, buffer, *slot);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        slot->state = parsed ? Slot::State::kParsed : Slot::State::kFailed;
        // No chunk after a failed one is needed: the consumer stops there.
        if (!parsed) claims_over_ = true;
      }
      slot_parsed_.notify_all();
    }
  }

  // Parses the slot's chunk into it (outside the lock: the slot is this thread's).
  bool Parse(int parser, StringPool& names, const std::unique_ptr<char[]>& buffer, Slot& slot) {
    const Chunk& chunk = slot.chunk;
    Records& records = slot.records;
    records.ops.clear();
    records.calls.clear();
    records.ranges.clear();
    records.device_keys.clear();
    records.device_names.clear();
    records.base_time_ns.reset();
    records.events = 0;
    records.saw_decimal_time = false;
    // The whole chunk (the events, and the blanks and ',' after them, whose lines count),
    // read from the file when the document's owner offers it, else copied from its memory;
    // the buffer is never zero-filled first (it would cost as much as the copy).
    const size_t chunk_size = chunk.end - chunk.begin;
    if (chunk_size > MaxChunk()) return false;
    char* const text = buffer.get();
    size_t size = 0;
    if (chunk.index != 0) {
      kHead.copy(text, kHead.size());
      size = kHead.size();
    }
    const int64_t shift = static_cast<int64_t>(chunk.begin) - static_cast<int64_t>(size);
    const size_t body_at = size;
    if (!window_.read || !window_.read(chunk.begin, text + body_at, chunk_size)) {
      document_.copy(text + body_at, chunk_size, chunk.begin);
    }
    // The newlines after the events (before the tail overwrites them); those in the events
    // are counted with the records' lines below, in one pass.
    const size_t events_size = chunk.body.size();
    const int64_t newlines_after =
        CountNewlines(std::string_view(text + body_at + events_size, chunk_size - events_size));
    size = body_at + events_size;
    if (!chunk.last) {
      kTail.copy(text + size, kTail.size());
      size += kTail.size();
    }
    std::memset(text + size, 0, simdjson::SIMDJSON_PADDING);
    const size_t names_before = names.size();
    TextShape shape;
    if (!ParseEvents(text, size, size + simdjson::SIMDJSON_PADDING, {document_, shift},
                     display_name_, names, records, &shape)
             .ok()) {
      return false;
    }
    if (shape.event_arrays != 1) return false;
    // The one array must close at the made-up ']', right before the made-up '}'.
    if (!chunk.last && shape.events_end != size - 1) return false;
    // The records' byte offsets (all inside the events) as lines counted from the chunk's
    // start, while it is in cache; the consumer adds the lines before it.
    const std::string_view events(text + body_at, events_size);
    const auto begin = static_cast<int64_t>(chunk.begin);
    for (GpuOp& op : records.ops) op.line -= begin;
    for (LaunchCall& call : records.calls) call.line -= begin;
    for (CpuRange& range : records.ranges) range.line -= begin;
    LineCursor cursor;
    OffsetsToLines(events, records, 0, 0, 0, cursor);
    slot.newlines = cursor.line - 1 + CountNewlines(events.substr(cursor.scanned)) + newlines_after;
    slot.parser = parser;
    slot.first_new_name = names_before;
    slot.new_names.clear();
    for (size_t id = names_before; id < names.size(); ++id) {
      slot.new_names.emplace_back(names.Get(static_cast<NameId>(id)));
    }
    return true;
  }

  // The caller's side: chunks in file order into `records` / `drain`.
  Status Consume(int parse_threads, StringPool& pool, Records& records,
                 const std::function<Status(Records&)>& drain) {
    // Each parse thread's name ids → the reader's; grown in the order the thread interned
    // them, since its chunks arrive here in the order it parsed them. Every pool starts with
    // the empty name.
    std::vector<std::vector<NameId>> names(static_cast<size_t>(parse_threads),
                                           std::vector<NameId>{pool.Intern("")});
    std::vector<NameId> devices;
    int64_t lines_before = 0;
    for (size_t index = 0;; ++index) {
      Slot& slot = slots_[index % slots_.size()];
      {
        std::unique_lock<std::mutex> lock(mutex_);
        auto done = [&] {
          return slot.chunk.index == index &&
                 (slot.state == Slot::State::kParsed || slot.state == Slot::State::kFailed);
        };
        // Chunks are claimed in order: one past the last claim is never parsed once claims
        // are over.
        slot_parsed_.wait(lock, [&] { return done() || (claims_over_ && index >= next_index_); });
        if (!done() || slot.state == Slot::State::kFailed) return CannotCut(display_name_);
      }
      std::vector<NameId>& renumber = names[static_cast<size_t>(slot.parser)];
      if (renumber.size() != slot.first_new_name) {
        return ErrorAt(display_name_, 0, "internal error: a parse thread's names out of order");
      }
      for (const std::string& name : slot.new_names) renumber.push_back(pool.Intern(name));
      Merge(slot, renumber, devices, lines_before, records);
      if (drain) {
        RETURN_IF_ERROR(drain(slot.records));
      } else {
        Append(slot.records, records);
      }
      lines_before += slot.newlines;
      const Chunk chunk = slot.chunk;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        slot.state = Slot::State::kFree;
        drained_ = index + 1;
      }
      slot_freed_.notify_all();
      if (chunk.last) {
        records.lines_resolved = true;
        return Status::Ok();
      }
      // The chunk was copied out and its lines counted: the document before the cut is done
      // (a failed cut later parses the whole document, which maps it in again).
      if (window_.behind) window_.behind(chunk.end);
    }
  }

  // The slot's records renumbered as if one parse had gone through the document, and its
  // document-wide fields merged into `records` (first device name wins, the last base).
  static void Merge(Slot& slot, const std::vector<NameId>& renumber, std::vector<NameId>& devices,
                    int64_t lines_before, Records& records) {
    Records& chunk = slot.records;
    devices.clear();
    for (std::string_view key : chunk.device_keys) {
      auto it = std::find(records.device_keys.begin(), records.device_keys.end(), key);
      devices.push_back(static_cast<NameId>(it - records.device_keys.begin()));
      if (it == records.device_keys.end()) records.device_keys.push_back(key);
    }
    for (GpuOp& op : chunk.ops) {
      op.name = renumber[op.name];
      op.device = devices[op.device];
      op.line += lines_before;
    }
    for (LaunchCall& call : chunk.calls) {
      call.api_name = renumber[call.api_name];
      call.line += lines_before;
    }
    for (CpuRange& range : chunk.ranges) {
      range.name = renumber[range.name];
      range.line += lines_before;
    }
    for (auto& [id, name] : chunk.device_names) records.device_names.emplace(id, name);
    if (chunk.base_time_ns) records.base_time_ns = chunk.base_time_ns;
    records.events += chunk.events;
    records.saw_decimal_time = records.saw_decimal_time || chunk.saw_decimal_time;
  }

  static void Append(Records& chunk, Records& records) {
    records.ops.insert(records.ops.end(), chunk.ops.begin(), chunk.ops.end());
    records.calls.insert(records.calls.end(), chunk.calls.begin(), chunk.calls.end());
    records.ranges.insert(records.ranges.end(), chunk.ranges.begin(), chunk.ranges.end());
    chunk.ops.clear();
    chunk.calls.clear();
    chunk.ranges.clear();
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    slot_freed_.notify_all();
    slot_parsed_.notify_all();
  }

  const std::string_view document_;
  const std::string_view display_name_;
  const DocumentWindow& window_;
  const size_t chunk_bytes_;
  std::mutex mutex_;
  std::condition_variable slot_freed_;   ///< a parse thread waits for its chunk's slot
  std::condition_variable slot_parsed_;  ///< the consumer waits for the next chunk
  bool stop_ = false;                    ///< set by the consumer as it returns: parse threads leave
  bool claims_over_ = false;  ///< the last chunk was claimed, or a chunk failed to cut or parse
  size_t next_index_ = 0;
  size_t drained_ = 0;  ///< chunks the consumer is done with: chunk i may fill its slot when
                        ///< i < drained_ + slots
  size_t next_begin_ = 0;
  std::vector<Slot> slots_;
};

}  // namespace

int ParseThreadsFor(const ChunkOptions& options) {
  if (options.parse_threads > 0) return options.parse_threads;
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 2u));
}

Status ParseEventsInChunks(std::string_view document, std::string_view display_name,
                           StringPool& pool, Records& records, const DocumentWindow& window,
                           const std::function<Status(Records&)>& drain,
                           const ChunkOptions& options) {
  if (options.chunk_bytes < 64 || document.size() < 2 * options.chunk_bytes) {
    return CannotCut(display_name);  // whole is fine
  }
  const int threads = ParseThreadsFor(options);
  ChunkedParse parse(document, display_name, window, options, threads);
  return parse.Run(threads, pool, records, drain);
}

}  // namespace stepstat::kineto
