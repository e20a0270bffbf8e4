// The Kineto reader's records sorted through temporary files (a buffer small enough to
// spill) against the same reader sorting in memory: every op, call and range the sink gets,
// field by field, on disordered traces and on the real ones; and no temporary file is left.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fixtures/formats/collecting_sink.h"
#include "io/temp_file.h"
#include "readers/kineto/kineto_json.h"
#include "readers/kineto/kineto_json_internal.h"
#include "readers/spilled_sort.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_support::CollectingSink;

// A fresh, empty folder for one test's temporary files.
// Named after the running test too: ctest runs each parameter of a test in a process of its
// own, in parallel, and two of them sharing a folder saw each other's spilled runs.
fs::path EmptyFolder(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string unique = name + "_" + test->test_suite_name() + "_" + test->name();
  std::replace(unique.begin(), unique.end(), '/', '_');
  fs::path dir = fs::path(::testing::TempDir()) / ("stepstat_kineto_sorted_" + unique);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool IsEmptyFolder(const fs::path& dir) { return fs::is_empty(dir); }

// A trace written far out of time order, one event a line (so a large one is parsed in
// chunks): kernels, memcpys and launch calls shuffled, graph launches (several kernels under
// one correlation id), calls of ids with no kernel and with none at all, equal starts (ties
// must keep file order), three devices, annotations; baseTimeNanoseconds after the events.
// `calls_in_order`: the launch calls keep their places in time and correlation order (as
// synth and a one-thread profile write them), only the GPU side is shuffled among them.
std::string DisorderedTrace(size_t target_bytes, uint32_t seed, bool calls_in_order = false) {
  std::mt19937 random(seed);
  std::vector<std::string> events;
  std::vector<std::string> calls;
  size_t bytes = 0;
  for (int64_t id = 1; bytes < target_bytes; ++id) {
    const int64_t ts = calls_in_order ? 1000 + id * 5 - id % 2
                                      : 1000 + static_cast<int64_t>(random() % 200000) * 5;
    const int kernels = id % 17 == 0 ? 3 : (id % 23 == 0 ? 0 : 1);
    std::string call = R"({"ph": "X", "cat": "cuda_runtime", "name": ")" +
                       std::string(kernels > 1 ? "cudaGraphLaunch" : "cudaLaunchKernel") +
                       R"(", "pid": 7, "tid": )" + std::to_string(id % 3) + R"(, "ts": )" +
                       std::to_string(ts) + ", \"dur\": " + std::to_string(random() % 9) +
                       R"(, "args": {"correlation": )" + std::to_string(id % 31 == 0 ? -1 : id) +
                       "}}";
    events.push_back(call);
    for (int k = 0; k < kernels; ++k) {
      const int64_t start = ts + static_cast<int64_t>(random() % 3000) - 500;
      events.push_back(R"({"ph": "X", "cat": "kernel", "name": "kernel_)" +
                       std::to_string(random() % 40) + R"(", "pid": )" + std::to_string(id % 3) +
                       R"(, "tid": 7, "ts": )" + std::to_string(std::max<int64_t>(start, 0)) +
                       ".5, \"dur\": " + std::to_string(random() % 700) +
                       R"(, "args": {"stream": )" + std::to_string(7 + id % 4) +
                       R"(, "correlation": )" + std::to_string(id) + "}}");
    }
    if (id % 11 == 0) {
      events.push_back(R"({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 1, )"
                       R"("tid": 9, "ts": )" +
                       std::to_string(ts) + R"(, "dur": 4, "args": {"stream": 9, "bytes": )" +
                       std::to_string(id * 64) + R"(, "correlation": )" + std::to_string(id) +
                       "}}");
    }
    if (id % 97 == 0) {
      events.push_back(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" +
                       std::to_string(id / 97) + R"(", "pid": 7, "tid": 0, "ts": )" +
                       std::to_string(ts) + ", \"dur\": 900}");
    }
    bytes += 400;
  }
  std::shuffle(events.begin(), events.end(), random);
  // The calls in order, each at a random place among the rest.
  std::vector<size_t> places;
  for (size_t i = 0; i < calls.size(); ++i) places.push_back(random() % (events.size() + 1));
  std::sort(places.begin(), places.end());
  for (size_t i = calls.size(); i-- > 0;) {
    events.insert(events.begin() + static_cast<std::ptrdiff_t>(places[i]), calls[i]);
  }
  std::string json = "{\n\"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) {
    json += events[i];
    json += i + 1 < events.size() ? ",\n" : "\n";
  }
  json +=
      "],\n\"deviceProperties\": [{\"id\": 1, \"name\": \"GPU one\"}],\n"
      "\"baseTimeNanoseconds\": 1700000000000000000\n}\n";
  return json;
}

void ExpectSameStream(const CollectingSink& a, const CollectingSink& b) {
  ASSERT_EQ(a.ops().size(), b.ops().size());
  for (size_t i = 0; i < a.ops().size(); ++i) {
    const GpuOp& x = a.ops()[i].op;
    const GpuOp& y = b.ops()[i].op;
    ASSERT_EQ(x.start_ns, y.start_ns) << i;
    ASSERT_EQ(x.duration_ns, y.duration_ns) << i;
    ASSERT_EQ(x.stream, y.stream) << i;
    ASSERT_EQ(x.bytes, y.bytes) << i;
    ASSERT_EQ(x.correlation_id, y.correlation_id) << i;
    ASSERT_EQ(x.line, y.line) << i;
    ASSERT_EQ(x.kind, y.kind) << i;
    ASSERT_EQ(x.pid, y.pid) << i;
    ASSERT_EQ(a.ops()[i].name, b.ops()[i].name) << i;
    ASSERT_EQ(a.ops()[i].device, b.ops()[i].device) << i;
  }
  ASSERT_EQ(a.calls().size(), b.calls().size());
  for (size_t i = 0; i < a.calls().size(); ++i) {
    const LaunchCall& x = a.calls()[i].call;
    const LaunchCall& y = b.calls()[i].call;
    ASSERT_EQ(x.api_start_ns, y.api_start_ns) << i;
    ASSERT_EQ(x.api_duration_ns, y.api_duration_ns) << i;
    ASSERT_EQ(x.queue_duration_ns, y.queue_duration_ns) << i;
    ASSERT_EQ(x.kernel_start_ns, y.kernel_start_ns) << i;
    ASSERT_EQ(x.kernel_duration_ns, y.kernel_duration_ns) << i;
    ASSERT_EQ(x.pid, y.pid) << i;
    ASSERT_EQ(x.tid, y.tid) << i;
    ASSERT_EQ(x.correlation_id, y.correlation_id) << i;
    ASSERT_EQ(x.line, y.line) << i;
    ASSERT_EQ(x.device, y.device) << i;  // an id: both runs intern in the same order
    ASSERT_EQ(a.calls()[i].api_name, b.calls()[i].api_name) << i;
    ASSERT_EQ(a.calls()[i].kernel_name, b.calls()[i].kernel_name) << i;
  }
  ASSERT_EQ(a.ranges().size(), b.ranges().size());
  for (size_t i = 0; i < a.ranges().size(); ++i) {
    const CpuRange& x = a.ranges()[i].range;
    const CpuRange& y = b.ranges()[i].range;
    ASSERT_EQ(x.start_ns, y.start_ns) << i;
    ASSERT_EQ(x.end_ns, y.end_ns) << i;
    ASSERT_EQ(x.pid, y.pid) << i;
    ASSERT_EQ(x.tid, y.tid) << i;
    ASSERT_EQ(x.line, y.line) << i;
    ASSERT_EQ(a.ranges()[i].name, b.ranges()[i].name) << i;
  }
}

// What a sink gets from `json` sorted in memory, and with `buffer_bytes` of records per
// sorter; the spilled runs are counted into `runs`.
struct TwoWays {
  CollectingSink memory;
  CollectingSink spilled;
  int64_t runs = 0;
};

void ParseBothWays(const std::string& json, size_t buffer_bytes, const fs::path& folder,
                   TwoWays& out) {
  std::string a = json, b = json;
  Result<ReadReport> in_memory =
      kineto::ParseKinetoJsonWith(a, "t.json", out.memory, SpillOptions{});
  ASSERT_TRUE(in_memory.ok()) << in_memory.status().message();
  SpillOptions small{buffer_bytes, folder, &out.runs};
  Result<ReadReport> spilled = kineto::ParseKinetoJsonWith(b, "t.json", out.spilled, small);
  ASSERT_TRUE(spilled.ok()) << spilled.status().message();
  EXPECT_EQ(in_memory->rows, spilled->rows);
}

TEST(KinetoSpilled, ADisorderedTraceSortsThroughFilesAsInMemory) {
  const fs::path folder = EmptyFolder("small");
  TwoWays result;
  ParseBothWays(DisorderedTrace(600 << 10, 1), 4096, folder, result);
  EXPECT_GT(result.runs, 50);
  EXPECT_GT(result.memory.ops().size(), 1000u);
  ExpectSameStream(result.memory, result.spilled);
  // The trace has what the join must get right.
  const auto& calls = result.memory.calls();
  EXPECT_TRUE(std::any_of(calls.begin(), calls.end(),
                          [](const auto& c) { return c.call.kernel_start_ns < 0; }));
  EXPECT_GT(std::count_if(calls.begin(), calls.end(),
                          [](const auto& c) { return c.api_name == "cudaGraphLaunch"; }),
            100);
  EXPECT_TRUE(IsEmptyFolder(folder));
}

// Calls in order: the join's output goes to the sink without a sort of its own.
TEST(KinetoSpilled, CallsInOrderJoinStraightToTheSinkAsInMemory) {
  const fs::path folder = EmptyFolder("calls_in_order");
  TwoWays result;
  ParseBothWays(DisorderedTrace(600 << 10, 6, /*calls_in_order=*/true), 4096, folder, result);
  EXPECT_GT(result.runs, 50);
  EXPECT_GT(result.memory.calls().size(), 1000u);
  ExpectSameStream(result.memory, result.spilled);
  EXPECT_TRUE(IsEmptyFolder(folder));
}

// Over 8 MiB: parsed in chunks, each chunk's records leaving for the sorters.
TEST(KinetoSpilled, AChunkedTraceSortsThroughFilesAsInMemory) {
  const fs::path folder = EmptyFolder("chunked");
  TwoWays result;
  ParseBothWays(DisorderedTrace(12 << 20, 2), 64 << 10, folder, result);
  EXPECT_GT(result.runs, 20);
  ExpectSameStream(result.memory, result.spilled);
  EXPECT_TRUE(IsEmptyFolder(folder));
}

TEST(KinetoSpilled, NothingIsWrittenWhenTheRecordsFit) {
  const fs::path folder = EmptyFolder("fits");
  std::string json = DisorderedTrace(100 << 10, 3);
  CollectingSink sink;
  int64_t runs = 0;
  ASSERT_TRUE(kineto::ParseKinetoJsonWith(json, "t.json", sink,
                                          SpillOptions{size_t{8} << 20, folder, &runs})
                  .ok());
  EXPECT_EQ(runs, 0);
  EXPECT_GT(sink.ops().size(), 100u);
}

TEST(KinetoSpilled, ErrorsNameTheSameLineAndLeaveNoFile) {
  const fs::path folder = EmptyFolder("errors");
  // A bad value deep in a chunked trace: the parse stops after runs were written.
  std::string json = DisorderedTrace(12 << 20, 4);
  size_t at = json.find("\"dur\": ", json.size() * 3 / 4);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, 7, "\"dur\": -");
  std::string copy = json;
  CollectingSink memory_sink, spilled_sink;
  Result<ReadReport> in_memory = kineto::ParseKinetoJsonWith(copy, "t.json", memory_sink, {});
  int64_t runs = 0;
  Result<ReadReport> spilled = kineto::ParseKinetoJsonWith(
      json, "t.json", spilled_sink, SpillOptions{size_t{16} << 10, folder, &runs});
  ASSERT_FALSE(spilled.ok());
  EXPECT_GT(runs, 0);
  EXPECT_EQ(spilled.status().message(), in_memory.status().message());
  EXPECT_THAT(spilled.status().message(), HasSubstr("t.json:"));
  EXPECT_TRUE(IsEmptyFolder(folder));

  // An overflow found once the base is known (after the events) names the first offending
  // event in file order, however the records were sorted.
  std::string overflow = DisorderedTrace(200 << 10, 5);
  const size_t base = overflow.find("\"baseTimeNanoseconds\": ");
  overflow.replace(base, std::string("\"baseTimeNanoseconds\": 1700000000000000000").size(),
                   "\"baseTimeNanoseconds\": 9223372036854000000");
  std::string overflow_copy = overflow;
  Result<ReadReport> memory_overflow =
      kineto::ParseKinetoJsonWith(overflow_copy, "t.json", memory_sink, {});
  Result<ReadReport> spilled_overflow = kineto::ParseKinetoJsonWith(
      overflow, "t.json", spilled_sink, SpillOptions{size_t{4} << 10, folder, nullptr});
  ASSERT_FALSE(spilled_overflow.ok());
  EXPECT_THAT(spilled_overflow.status().message(), HasSubstr("overflows"));
  EXPECT_EQ(spilled_overflow.status().message(), memory_overflow.status().message());
  EXPECT_TRUE(IsEmptyFolder(folder));
}

// A temporary folder that cannot be written: the read fails with one line naming the file
// it tried, and the sink is left unfinished.
TEST(KinetoSpilled, AnUnwritableTemporaryFolderIsOneLineError) {
  const fs::path folder = EmptyFolder("unwritable") / "absent";
  std::string json = DisorderedTrace(100 << 10, 7);
  CollectingSink sink;
  Result<ReadReport> report =
      kineto::ParseKinetoJsonWith(json, "t.json", sink, SpillOptions{1024, folder, nullptr});
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr(folder.string()));
  EXPECT_THAT(report.status().message(), HasSubstr("cannot create a temporary file"));
  EXPECT_EQ(report.status().message().find('\n'), std::string::npos);
}

class RealKinetoSpilled : public ::testing::TestWithParam<const char*> {};

TEST_P(RealKinetoSpilled, SortsThroughFilesAsInMemory) {
  const fs::path path = fs::path(STEPSTAT_SHARED_DIR) / "data/real" / GetParam();
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent (shared data not mounted)";
  const fs::path folder = EmptyFolder("real");
  CollectingSink memory, spilled;
  ASSERT_TRUE(kineto::ReadKinetoJsonWith(path, GetParam(), memory, {}).ok());
  int64_t runs = 0;
  Result<ReadReport> report =
      kineto::ReadKinetoJsonWith(path, GetParam(), spilled, SpillOptions{256, folder, &runs});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_GT(runs, 0);
  ExpectSameStream(memory, spilled);
  EXPECT_TRUE(IsEmptyFolder(folder));
}

INSTANTIATE_TEST_SUITE_P(Traces, RealKinetoSpilled,
                         ::testing::Values("hta_a100_80g_rank0_ws16_kineto.json.gz",
                                           "hta_alexnet_a100_kineto.json",
                                           "hta_event_sync_multistream_a100_kineto.json",
                                           "hta_sampled_rank0_kineto.json"));

// Every record a finished sorter hands out, `batch_size` at a time, appended to `merged`.
template <typename Sorter, typename T>
void DrainSorter(Sorter& sorter, size_t batch_size, std::vector<T>& merged) {
  std::vector<T> batch;
  for (;;) {
    ASSERT_TRUE(sorter.NextBatch(batch, batch_size).ok());
    if (batch.empty()) return;
    merged.insert(merged.end(), batch.begin(), batch.end());
  }
}

// The sorter alone: many runs, duplicates keys broken by a sequence, against std::sort.
TEST(SpilledSorter, MergesRunsIntoTheSortedOrder) {
  struct Item {
    int64_t key;
    uint64_t seq;
  };
  struct ByKey {
    bool operator()(const Item& a, const Item& b) const {
      return a.key != b.key ? a.key < b.key : a.seq < b.seq;
    }
  };
  const fs::path folder = EmptyFolder("sorter");
  std::mt19937 random(9);
  std::vector<Item> items;
  for (uint64_t i = 0; i < 100000; ++i) items.push_back({static_cast<int64_t>(random() % 5000), i});
  int64_t runs = 0;
  {
    SpilledSorter<Item, ByKey> sorter(SpillOptions{1000 * sizeof(Item), folder, &runs});
    for (const Item& item : items) ASSERT_TRUE(sorter.Add(item).ok());
    ASSERT_TRUE(sorter.Finish().ok());
    EXPECT_TRUE(sorter.spilled());
    std::vector<Item> merged;
    DrainSorter(sorter, 777, merged);
    std::sort(items.begin(), items.end(), ByKey());
    ASSERT_EQ(merged.size(), items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      ASSERT_EQ(merged[i].key, items[i].key) << i;
      ASSERT_EQ(merged[i].seq, items[i].seq) << i;
    }
  }
  EXPECT_EQ(runs, 100);
  EXPECT_TRUE(IsEmptyFolder(folder));
}

// Encodes `records` as one run and decodes them: true when every byte came back and the
// decoding ended where the encoding did.
template <typename T>
bool RoundTrips(const std::vector<T>& records) {
  RunCodec<T> encoder;
  RunCodec<T> decoder;
  std::vector<char> bytes(records.size() * RunCodec<T>::kMaxBytes);
  char* out = bytes.data();
  for (const T& record : records) out = encoder.Encode(record, out);
  const char* in = bytes.data();
  for (const T& record : records) {
    T back{};
    in = decoder.Decode(in, out, back);
    if (in == nullptr || std::memcmp(&back, &record, sizeof(T)) != 0) return false;
  }
  return in == out;
}

// Runs are written narrow (RunCodec: word differences as varints): every bit comes back,
// across the extremes of each word, a record whose size is not a multiple of 8, and reads
// that end inside a record.
TEST(SpilledSorter, NarrowRunsGiveBackEveryBit) {
  struct Odd {
    int64_t key;
    uint64_t seq;
    uint8_t tail[5];
  };
  struct ByKey {
    bool operator()(const Odd& a, const Odd& b) const {
      return a.key != b.key ? a.key < b.key : a.seq < b.seq;
    }
  };
  const int64_t extremes[] = {std::numeric_limits<int64_t>::min(), -1, 0, 1,
                              std::numeric_limits<int64_t>::max()};
  std::mt19937_64 random(11);
  std::vector<Odd> items;
  for (uint64_t i = 0; i < 20000; ++i) {
    Odd item{};
    item.key = i % 3 == 0 ? extremes[random() % 5] : static_cast<int64_t>(random());
    item.seq = i % 7 == 0 ? std::numeric_limits<uint64_t>::max() - i : i;
    for (uint8_t& byte : item.tail) byte = static_cast<uint8_t>(random());
    items.push_back(item);
  }
  // The codec alone, on 13-byte records (a partial last word) and on the items.
  std::vector<std::array<uint8_t, 13>> odd_sized(5000);
  for (auto& record : odd_sized) {
    for (uint8_t& byte : record) byte = static_cast<uint8_t>(random() % 4 == 0 ? random() : 0xFF);
  }
  EXPECT_TRUE(RoundTrips(odd_sized));
  std::vector<std::array<int64_t, 2>> words;
  for (const Odd& item : items) words.push_back({item.key, static_cast<int64_t>(item.seq)});
  EXPECT_TRUE(RoundTrips(words));
  std::array<int64_t, 2> cut{};
  RunCodec<std::array<int64_t, 2>> truncated;
  const char bytes[3] = {'\x80', '\x80', '\x80'};
  EXPECT_EQ(truncated.Decode(bytes, bytes + 3, cut), nullptr);
  // One-byte varints take a shortcut: a record cut after its first word, and a varint of
  // 11 bytes after a one-byte one, are still damage.
  const char one_word[1] = {'\x02'};
  RunCodec<std::array<int64_t, 2>> cut_after_one;
  EXPECT_EQ(cut_after_one.Decode(one_word, one_word + 1, cut), nullptr);
  std::string too_long = std::string(1, '\x02') + std::string(10, '\x80') + '\x01';
  RunCodec<std::array<int64_t, 2>> overlong;
  EXPECT_EQ(overlong.Decode(too_long.data(), too_long.data() + too_long.size(), cut), nullptr);
  std::string ten_bytes = std::string(1, '\x02') + std::string(9, '\x80') + '\x01';
  RunCodec<std::array<int64_t, 2>> longest;
  EXPECT_EQ(longest.Decode(ten_bytes.data(), ten_bytes.data() + ten_bytes.size(), cut),
            ten_bytes.data() + ten_bytes.size());
  EXPECT_EQ(cut[0], 1);  // zigzag 2 -> 1

  const fs::path folder = EmptyFolder("narrow");
  int64_t runs = 0;
  {
    // Buffers of 700 records; the merge reads each run through 4 KiB of bytes.
    SpilledSorter<Odd, ByKey> sorter(SpillOptions{700 * sizeof(Odd), folder, &runs});
    for (const Odd& item : items) ASSERT_TRUE(sorter.Add(item).ok());
    ASSERT_TRUE(sorter.Finish().ok());
    std::vector<Odd> merged;
    DrainSorter(sorter, 501, merged);
    std::sort(items.begin(), items.end(), ByKey());
    ASSERT_EQ(merged.size(), items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      ASSERT_EQ(merged[i].key, items[i].key) << i;
      ASSERT_EQ(merged[i].seq, items[i].seq) << i;
      ASSERT_EQ(std::memcmp(merged[i].tail, items[i].tail, sizeof(items[i].tail)), 0) << i;
    }
  }
  EXPECT_GT(runs, 20);
  EXPECT_TRUE(IsEmptyFolder(folder));
}

TEST(TempFile, ReadsBackWhatWasWrittenAndRefusesToReadPastIt) {
  const fs::path folder = EmptyFolder("temp_file");
  Result<std::unique_ptr<TempFile>> file = TempFile::Create(folder);
  ASSERT_TRUE(file.ok()) << file.status().message();
  const std::string text = "0123456789";
  ASSERT_TRUE((*file)->Append(text.data(), text.size()).ok());
  ASSERT_TRUE((*file)->Append(text.data(), 4).ok());
  EXPECT_EQ((*file)->size(), 14u);
  char out[6] = {};
  ASSERT_TRUE((*file)->ReadAt(8, out, 6).ok());
  EXPECT_EQ(std::string(out, 6), "890123");
  EXPECT_FALSE((*file)->ReadAt(10, out, 5).ok());
  file.value().reset();
  EXPECT_TRUE(IsEmptyFolder(folder));
  // A folder that is not there: one line naming where it tried.
  Result<std::unique_ptr<TempFile>> missing = TempFile::Create(folder / "absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot create a temporary file"));
}

}  // namespace
}  // namespace stepstat
