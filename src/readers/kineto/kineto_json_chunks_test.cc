// The chunked Kineto parse (documents over a few MiB) against the whole-document parse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "fixtures/formats/collecting_sink.h"
#include "readers/kineto/kineto_json.h"
#include "readers/kineto/kineto_json_internal.h"

namespace stepstat {
namespace {

using ::testing::HasSubstr;
using testing_support::CollectingSink;

// A pretty-printed trace of about `target` bytes: each event on its own lines, devices
// (objects on lines of their own, the cut a chunker must not take) before the events and
// baseTimeNanoseconds after them.
std::string ChunkableTrace(size_t target, bool compact) {
  const char* nl = compact ? "" : "\n";
  std::string json = std::string("{") + nl + "  \"deviceProperties\": [" + nl +
                     "    {\"id\": 0, \"name\": \"GPU zero\"}," + nl +
                     "    {\"id\": 1, \"name\": \"GPU one\"}" + nl + "  ]," + nl +
                     "  \"traceEvents\": [" + nl;
  for (int64_t i = 0; json.size() < target; ++i) {
    std::string ts = std::to_string(1000000 + 10 * i) + (i % 3 == 0 ? ".125" : "");
    json += "  {" + std::string(nl) + "    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op" +
            std::to_string(i % 7) + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts +
            ", \"dur\": 5, \"args\": {\"Input Dims\": [[1, 2]], \"x\": \"{\\n  {\"}" + nl + "  }," +
            nl;
    json +=
        "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
        "\"pid\": 1, \"tid\": 1, \"ts\": " +
        ts + ", \"dur\": 2, \"args\": {\"correlation\": " + std::to_string(i) + "}}," + nl;
    json += "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k" + std::to_string(i % 5) +
            "\", \"pid\": " + std::to_string(i % 2) +
            ", \"tid\": 7, \"ts\": " + std::to_string(1000004 + 10 * i) +
            ", \"dur\": 3, \"args\": {\"stream\": 7, "
            "\"correlation\": " +
            std::to_string(i) + "}}," + nl;
    if (i % 1000 == 0) {
      json += "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" +
              std::to_string(i / 1000) + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts +
              ", \"dur\": 9000}," + nl;
    }
  }
  json += "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"x\"}}" +
          std::string(nl) + "  ]," + nl + "  \"baseTimeNanoseconds\": 1700000000000000000" + nl +
          "}" + nl;
  return json;
}

void ExpectSameRecords(const kineto::Records& a, const kineto::Records& b, const StringPool& pa,
                       const StringPool& pb) {
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].start_ns, b.ops[i].start_ns) << i;
    EXPECT_EQ(a.ops[i].duration_ns, b.ops[i].duration_ns) << i;
    EXPECT_EQ(a.ops[i].line, b.ops[i].line) << i;
    EXPECT_EQ(a.ops[i].device, b.ops[i].device) << i;
    EXPECT_EQ(a.ops[i].correlation_id, b.ops[i].correlation_id) << i;
    ASSERT_EQ(pa.Get(a.ops[i].name), pb.Get(b.ops[i].name)) << i;
  }
  ASSERT_EQ(a.calls.size(), b.calls.size());
  for (size_t i = 0; i < a.calls.size(); ++i) {
    EXPECT_EQ(a.calls[i].api_start_ns, b.calls[i].api_start_ns) << i;
    EXPECT_EQ(a.calls[i].line, b.calls[i].line) << i;
    EXPECT_EQ(a.calls[i].correlation_id, b.calls[i].correlation_id) << i;
  }
  ASSERT_EQ(a.ranges.size(), b.ranges.size());
  for (size_t i = 0; i < a.ranges.size(); ++i) {
    EXPECT_EQ(a.ranges[i].start_ns, b.ranges[i].start_ns) << i;
    EXPECT_EQ(a.ranges[i].end_ns, b.ranges[i].end_ns) << i;
    EXPECT_EQ(a.ranges[i].line, b.ranges[i].line) << i;
  }
  EXPECT_EQ(a.device_keys, b.device_keys);
  EXPECT_EQ(a.device_names, b.device_names);
  EXPECT_EQ(a.base_time_ns, b.base_time_ns);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.saw_decimal_time, b.saw_decimal_time);
}

TEST(KinetoChunks, ChunkedParseGivesTheWholeParsesRecords) {
  std::string json = ChunkableTrace(20 << 20, /*compact=*/false);
  const size_t size = json.size();
  json.append(simdjson::SIMDJSON_PADDING, '\0');
  std::string_view document(json.data(), size);
  StringPool whole_pool, chunk_pool;
  kineto::Records whole, chunked;
  ASSERT_TRUE(kineto::ParseEvents(json.data(), size, json.size(), {document, 0}, "t.json",
                                  whole_pool, whole)
                  .ok());
  Status status = kineto::ParseEventsInChunks(document, "t.json", chunk_pool, chunked);
  ASSERT_TRUE(status.ok()) << status.message();
  // The chunked parse resolves lines as it goes; the whole parse leaves byte offsets.
  EXPECT_TRUE(chunked.lines_resolved);
  kineto::LineCursor cursor;
  kineto::OffsetsToLines(document, whole, 0, 0, 0, cursor);
  EXPECT_GT(whole.ops.size(), 40000u);
  EXPECT_EQ(whole.device_keys.size(), 2u);
  EXPECT_EQ(whole.base_time_ns, int64_t{1700000000000000000});
  EXPECT_EQ(whole.device_names.size(), 2u);
  ExpectSameRecords(whole, chunked, whole_pool, chunk_pool);
}

// The owner of a mapped document is told each chunk's bytes before they are read and the
// cut behind which nothing is needed: in order, covering the document once, and the records
// are those of a parse told nothing.
TEST(KinetoChunks, TheWindowMovesForwardOverTheWholeDocument) {
  std::string json = ChunkableTrace(20 << 20, /*compact=*/false);
  const size_t size = json.size();
  json.append(simdjson::SIMDJSON_PADDING, '\0');
  std::string_view document(json.data(), size);
  std::vector<std::pair<size_t, size_t>> ahead;
  std::vector<size_t> behind;
  kineto::DocumentWindow window;
  window.ahead = [&](size_t begin, size_t end) { ahead.emplace_back(begin, end); };
  window.behind = [&](size_t end) { behind.push_back(end); };
  StringPool plain_pool, window_pool;
  kineto::Records plain, windowed;
  ASSERT_TRUE(kineto::ParseEventsInChunks(document, "t.json", plain_pool, plain).ok());
  ASSERT_TRUE(kineto::ParseEventsInChunks(document, "t.json", window_pool, windowed, window).ok());
  ExpectSameRecords(plain, windowed, plain_pool, window_pool);
  ASSERT_GE(ahead.size(), 3u);
  EXPECT_EQ(behind.size(), ahead.size() - 1);  // the last chunk ends the parse
  EXPECT_EQ(ahead.front().first, 0u);
  EXPECT_EQ(ahead.back().second, size);
  for (size_t i = 0; i < behind.size(); ++i) {
    // Released only behind the chunk just read, and the next chunk starts at the cut.
    EXPECT_GT(behind[i], ahead[i].first) << i;
    EXPECT_LE(behind[i], ahead[i].second) << i;
    EXPECT_EQ(ahead[i + 1].first, behind[i]) << i;
  }
}

TEST(KinetoChunks, CompactDocumentsAndBadCutsAreLeftToTheWholeParse) {
  std::string compact = ChunkableTrace(20 << 20, /*compact=*/true);
  compact.append(simdjson::SIMDJSON_PADDING, '\0');
  StringPool pool;
  kineto::Records records;
  EXPECT_FALSE(kineto::ParseEventsInChunks(
                   std::string_view(compact.data(), compact.size() - simdjson::SIMDJSON_PADDING),
                   "t.json", pool, records)
                   .ok());
  // Events of a second array after the first: every line start is an object, but cuts that
  // fall in "deviceProperties" (after "traceEvents") must not be taken for events.
  std::string json = "{\"traceEvents\": [\n  {\"ph\": \"i\"}\n],\n\"deviceProperties\": [\n";
  while (json.size() < (20 << 20)) json += "  {\"id\": 3, \"name\": \"x\"},\n";
  json += "  {\"id\": 4, \"name\": \"y\"}\n]}\n";
  const size_t size = json.size();
  json.append(simdjson::SIMDJSON_PADDING, '\0');
  kineto::Records cut;
  EXPECT_FALSE(
      kineto::ParseEventsInChunks(std::string_view(json.data(), size), "t.json", pool, cut).ok());
  // Through the public entry point the whole parse takes over and reads it right.
  json.resize(size);
  CollectingSink sink;
  Result<ReadReport> report = ParseKinetoJson(json, "t.json", sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->rows, 1);
}

TEST(KinetoChunks, ErrorsDeepInALargeDocumentNameTheirLine) {
  std::string json = ChunkableTrace(12 << 20, /*compact=*/false);
  size_t at = json.find("\"dur\": 3", json.size() / 2);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, 9, "\"dur\": -3");
  int64_t line = kineto::LineAt(json, at);
  CollectingSink sink;
  Result<ReadReport> report = ParseKinetoJson(json, "t.json", sink);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("t.json:" + std::to_string(line) + ":"));
}

// The parse threads hand their chunks back in file order whatever their number and however
// small the chunks (thousands of hand-offs): the records, names, devices and lines are the
// whole parse's, both when they pile up in `records` and when a drain takes each chunk's.
TEST(KinetoChunks, ParseThreadsGiveTheWholeParsesRecords) {
  std::string json = ChunkableTrace(6 << 20, /*compact=*/false);
  const size_t size = json.size();
  json.append(simdjson::SIMDJSON_PADDING, '\0');
  std::string_view document(json.data(), size);
  StringPool whole_pool;
  kineto::Records whole;
  ASSERT_TRUE(kineto::ParseEvents(json.data(), size, json.size(), {document, 0}, "t.json",
                                  whole_pool, whole)
                  .ok());
  kineto::LineCursor cursor;
  kineto::OffsetsToLines(document, whole, 0, 0, 0, cursor);
  for (int threads : {1, 2, 3}) {
    for (size_t chunk_bytes : {size_t{4} << 10, size_t{256} << 10}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, chunks of " + std::to_string(chunk_bytes));
      const kineto::ChunkOptions options{chunk_bytes, threads};
      StringPool pool;
      kineto::Records records;
      Status status =
          kineto::ParseEventsInChunks(document, "t.json", pool, records, {}, {}, options);
      ASSERT_TRUE(status.ok()) << status.message();
      EXPECT_TRUE(records.lines_resolved);
      ExpectSameRecords(whole, records, whole_pool, pool);

      StringPool drained_pool;
      kineto::Records drained, taken;
      int64_t drains = 0;
      auto drain = [&](kineto::Records& chunk) {
        ++drains;
        taken.ops.insert(taken.ops.end(), chunk.ops.begin(), chunk.ops.end());
        taken.calls.insert(taken.calls.end(), chunk.calls.begin(), chunk.calls.end());
        taken.ranges.insert(taken.ranges.end(), chunk.ranges.begin(), chunk.ranges.end());
        chunk.ops.clear();
        chunk.calls.clear();
        chunk.ranges.clear();
        return Status::Ok();
      };
      ASSERT_TRUE(
          kineto::ParseEventsInChunks(document, "t.json", drained_pool, drained, {}, drain, options)
              .ok());
      EXPECT_TRUE(drained.ops.empty());
      EXPECT_GT(drains, static_cast<int64_t>(size / chunk_bytes / 2));
      taken.device_keys = drained.device_keys;
      taken.device_names = drained.device_names;
      taken.base_time_ns = drained.base_time_ns;
      taken.events = drained.events;
      taken.saw_decimal_time = drained.saw_decimal_time;
      ExpectSameRecords(whole, taken, whole_pool, drained_pool);
    }
  }
}

// A window that reads the chunks (as from the file) gives the records of one that does not,
// and so does one whose reads fail (the chunks are then copied from the document); the
// reads cover the document once, in chunks, from both threads.
TEST(KinetoChunks, ChunksReadThroughTheWindowGiveTheSameRecords) {
  std::string json = ChunkableTrace(3 << 20, /*compact=*/false);
  const std::string file = json;  // what the reads copy from
  json.append(simdjson::SIMDJSON_PADDING, '\0');
  std::string_view document(json.data(), file.size());
  const kineto::ChunkOptions options{size_t{64} << 10, 2};
  StringPool plain_pool, read_pool, failing_pool;
  kineto::Records plain, read, failing;
  ASSERT_TRUE(
      kineto::ParseEventsInChunks(document, "t.json", plain_pool, plain, {}, {}, options).ok());
  std::atomic<size_t> bytes_read{0};
  kineto::DocumentWindow window;
  window.read = [&](size_t offset, char* out, size_t size) {
    file.copy(out, size, offset);
    bytes_read += size;
    return true;
  };
  ASSERT_TRUE(
      kineto::ParseEventsInChunks(document, "t.json", read_pool, read, window, {}, options).ok());
  EXPECT_EQ(bytes_read.load(), file.size());
  ExpectSameRecords(plain, read, plain_pool, read_pool);
  window.read = [](size_t, char*, size_t) { return false; };
  ASSERT_TRUE(
      kineto::ParseEventsInChunks(document, "t.json", failing_pool, failing, window, {}, options)
          .ok());
  ExpectSameRecords(plain, failing, plain_pool, failing_pool);
}

// A bad event in a late chunk: the chunks before it are drained in order (as one thread
// would) and no chunk after it; the parse fails, and the reader's message (from the whole
// parse it then falls back to) names the same line whatever the threads and chunks.
TEST(KinetoChunks, AnErrorInALateChunkNamesTheSameLineOnEveryThreadCount) {
  std::string json = ChunkableTrace(6 << 20, /*compact=*/false);
  const size_t at = json.find("\"dur\": 3", json.size() * 9 / 10);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, 9, "\"dur\": -3");
  const int64_t line = kineto::LineAt(json, at);
  std::string copy = json;
  CollectingSink whole_sink;
  Result<ReadReport> whole = kineto::ParseKinetoJsonWith(copy, "t.json", whole_sink, {},
                                                         kineto::ChunkOptions{size_t{1} << 30, 1});
  ASSERT_FALSE(whole.ok());
  EXPECT_THAT(whole.status().message(), HasSubstr("t.json:" + std::to_string(line) + ":"));
  const size_t size = json.size();
  for (int threads : {1, 2, 3}) {
    for (size_t chunk_bytes : {size_t{4} << 10, size_t{256} << 10}) {
      SCOPED_TRACE(std::to_string(threads) + " threads, chunks of " + std::to_string(chunk_bytes));
      const kineto::ChunkOptions options{chunk_bytes, threads};
      json.append(simdjson::SIMDJSON_PADDING, '\0');
      StringPool pool;
      kineto::Records records;
      int64_t last_line = 0;
      bool in_order = true;
      auto drain = [&](kineto::Records& chunk) {
        for (const GpuOp& op : chunk.ops) {
          in_order = in_order && op.line > last_line;
          last_line = op.line;
        }
        chunk.ops.clear();
        chunk.calls.clear();
        chunk.ranges.clear();
        return Status::Ok();
      };
      EXPECT_FALSE(kineto::ParseEventsInChunks(std::string_view(json.data(), size), "t.json", pool,
                                               records, {}, drain, options)
                       .ok());
      EXPECT_TRUE(in_order);
      // Every op before the bad event's chunk, none at or after the bad line.
      EXPECT_LT(last_line, line);
      EXPECT_GT(last_line, line - static_cast<int64_t>(2 * chunk_bytes / 20));
      json.resize(size);

      CollectingSink sink;
      Result<ReadReport> chunked = kineto::ParseKinetoJsonWith(json, "t.json", sink, {}, options);
      ASSERT_FALSE(chunked.ok());
      EXPECT_EQ(chunked.status().message(), whole.status().message());
    }
  }
}

}  // namespace
}  // namespace stepstat
