// `ranks --per-device` and `summarize --device` (issue 16): a trace of two GPUs, made by
// interleaving two synthetic single-GPU captures in start order with the second renamed to
// device 1, must split back into exactly the two captures' summaries: each device's own span,
// gaps and launch union, never bridged to the other's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_suite.h"

namespace {

namespace fs = std::filesystem;
namespace testing_support = stepstat::testing_support;

constexpr char kDevice0[] = "NVIDIA GB10 (0)";
constexpr char kDevice1[] = "NVIDIA GB10 (1)";

using testing_support::ReadAll;

std::vector<std::string> Lines(const fs::path& path) {
  std::vector<std::string> lines;
  std::istringstream in(ReadAll(path));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int64_t LeadingNumber(const std::string& line) {
  return std::stoll(line.substr(0, line.find(',')));
}

// The rows of two CSVs of one report (one header) merged by their first column, a start time
// (stable: `a`'s row first on a tie); `rename` rewrites each row of `b`.
template <typename Rename>
void MergeByStart(const fs::path& a, const fs::path& b, const fs::path& out, Rename rename) {
  std::vector<std::string> rows_a = Lines(a), rows_b = Lines(b);
  std::vector<std::pair<int64_t, std::string>> rows;
  for (size_t i = 1; i < rows_a.size(); ++i) rows.emplace_back(LeadingNumber(rows_a[i]), rows_a[i]);
  for (size_t i = 1; i < rows_b.size(); ++i) {
    rows.emplace_back(LeadingNumber(rows_b[i]), rename(rows_b[i]));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::ofstream file(out, std::ios::binary);
  file << rows_a.front() << "\n";
  for (const auto& row : rows) file << row.second << "\n";
}

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The summary's fields (without its outer braces and source names), as they sit in ranks[]
// (two levels deeper), so that one trace's summary can be found inside another output.
std::string MeasureFields(const std::string& summary) {
  std::string fields;
  std::istringstream lines(summary);
  std::string line;
  std::getline(lines, line);  // "{"
  while (std::getline(lines, line)) {
    if (line == "}" || line.find("\"source_") != std::string::npos) continue;
    fields += "    " + line + "\n";
  }
  return fields;
}

class PerDevice : public testing_support::CliSuite<PerDevice> {
 protected:
  // two/gpus: device 0 is the seed-1 capture, device 1 the seed-2 one, on one clock.
  static void SetUpTestSuite() {
    MakeScratch("stepstat_per_device_");
    fs::create_directories(*dir_ / "two");
    for (const char* run : {"synth --out dev0 --seed 1 --steps 2 --streams 2",
                            "synth --out dev1 --seed 2 --steps 2 --streams 2"}) {
      ASSERT_EQ(Run(run), 0) << run << ": " << err_;
    }
    const fs::path& d = *dir_;
    MergeByStart(d / "dev0_cuda_gpu_trace.csv", d / "dev1_cuda_gpu_trace.csv",
                 d / "two" / "gpus_cuda_gpu_trace.csv",
                 [](const std::string& row) { return Replaced(row, kDevice0, kDevice1); });
    // Kern-exec rows: ...,PID,TID,DevId,API Function,...: the first ",0,cu" is DevId.
    MergeByStart(d / "dev0_cuda_kern_exec_trace.csv", d / "dev1_cuda_kern_exec_trace.csv",
                 d / "two" / "gpus_cuda_kern_exec_trace.csv",
                 [](const std::string& row) { return Replaced(row, ",0,cu", ",1,cu"); });
    ready_ = true;
  }
};

TEST_F(PerDevice, OneDeviceOfTheTraceSummarizesAsItsCaptureAlone) {
  for (auto [device, alone] : {std::pair{kDevice0, "dev0"}, std::pair{kDevice1, "dev1"}}) {
    ASSERT_EQ(Run(std::string("summarize --format json ") + alone), 0) << err_;
    const std::string expected = MeasureFields(out_);
    ASSERT_EQ(Run(std::string("summarize --format json two/gpus --device '") + device + "'"), 0)
        << err_;
    EXPECT_EQ(MeasureFields(out_), expected) << device;
    EXPECT_EQ(err_, "") << "one device asked for: no several-GPUs warning";
  }
  // The whole file is neither: its span bridges the two devices' work.
  ASSERT_EQ(Run("summarize --format json two/gpus"), 0) << err_;
  EXPECT_NE(err_.find("holds the kernels of 2 GPUs"), std::string::npos) << err_;
}

TEST_F(PerDevice, EachDeviceIsARowEqualToSummarizeOfThatDevice) {
  ASSERT_EQ(Run("ranks two/gpus --per-device --format json"), 0) << err_;
  const std::string job = out_;
  for (const char* device : {kDevice0, kDevice1}) {
    ASSERT_EQ(Run(std::string("summarize --format json two/gpus --device '") + device + "'"), 0);
    EXPECT_NE(job.find(MeasureFields(out_)), std::string::npos) << device << " not in:\n" << job;
    EXPECT_NE(job.find(std::string("\"rank\": 0,\n      \"device\": \"") + device + "\",\n" +
                       "      \"rank_source\": \"order\""),
              std::string::npos)
        << job;
  }
  EXPECT_NE(job.find("\"rank_count\": 2"), std::string::npos);

  // Totals sum the devices' own figures, as ranks' do: the same as two separate ranks.
  ASSERT_EQ(Run("ranks dev0 dev1 --format json"), 0) << err_;
  const std::string separate = out_;
  auto totals = [](const std::string& text) {
    size_t from = text.find("\"totals\"");
    return text.substr(from, text.find("\"across_ranks\"") - from);
  };
  EXPECT_EQ(totals(job), totals(separate));
}

TEST_F(PerDevice, WithoutTheFlagTheFileIsOneRankAsBefore) {
  ASSERT_EQ(Run("ranks two/gpus --format json"), 0) << err_;
  EXPECT_EQ(out_.find("\"device\""), std::string::npos);
  ASSERT_EQ(Run("summarize --format json two/gpus"), 0) << err_;
  EXPECT_NE(out_.find("\"gpu_span_ns\""), std::string::npos);
}

TEST_F(PerDevice, AnyJobCountAndArgumentOrderPrintTheSameBytes) {
  ASSERT_EQ(Run("ranks two/gpus dev0 --per-device --format json -j 1"), 0) << err_;
  const std::string one = out_;
  ASSERT_EQ(Run("ranks dev0 two/gpus --per-device --format json -j 2"), 0) << err_;
  EXPECT_EQ(out_, one);
  // dev0 (one device) is one row, rank 0; the two-GPU trace's rows share rank 1.
  EXPECT_NE(one.find("\"rank\": 1,\n      \"device\": \"NVIDIA GB10 (1)\""), std::string::npos)
      << one;
  EXPECT_NE(one.find("\"rank_count\": 3"), std::string::npos);
}

TEST_F(PerDevice, PartialsPerDeviceMergeIntoTheSameBytes) {
  ASSERT_EQ(Run("ranks two/gpus dev1 --per-device --format json --partials-dir parts"), 0) << err_;
  const std::string whole = out_;
  ASSERT_EQ(Run("merge parts/dev1.partial.json parts/gpus.partial.json --format json"), 0) << err_;
  EXPECT_EQ(out_, whole);
  // One device summarized on its own joins the other's.
  ASSERT_EQ(Run(std::string("summarize two/gpus --format json --device '") + kDevice0 +
                "' --partial-out d0.json"),
            0)
      << err_;
  ASSERT_EQ(Run(std::string("summarize two/gpus --format json --device '") + kDevice1 +
                "' --partial-out d1.json"),
            0)
      << err_;
  ASSERT_EQ(Run("merge d1.json parts/dev1.partial.json d0.json --format json"), 0) << err_;
  EXPECT_EQ(out_, whole);
  // A device twice, or the trace whole beside one of its devices, would count twice.
  EXPECT_EQ(Run("merge d1.json parts/gpus.partial.json"), 2);
  EXPECT_NE(err_.find("summarized twice"), std::string::npos) << err_;
  ASSERT_EQ(Run("summarize two/gpus --format json --partial-out whole.json"), 0) << err_;
  EXPECT_EQ(Run("merge whole.json d0.json"), 2);
  EXPECT_NE(err_.find("summarized twice"), std::string::npos) << err_;
}

TEST_F(PerDevice, TheTableAndCsvNameEachDevice) {
  ASSERT_EQ(Run("ranks two/gpus dev1 --per-device --format table"), 0) << err_;
  EXPECT_NE(out_.find("3 devices of 2 ranks"), std::string::npos) << out_;
  EXPECT_NE(out_.find(kDevice1), std::string::npos) << out_;
  ASSERT_EQ(Run("ranks two/gpus --per-device --format csv"), 0) << err_;
  EXPECT_EQ(out_.rfind("rank,device,rank_source,", 0), 0u) << out_;
  EXPECT_NE(out_.find(std::string("\n0,") + kDevice1 + ",order,"), std::string::npos) << out_;
}

TEST_F(PerDevice, AnUnknownDeviceIsAnErrorNamingIt) {
  EXPECT_EQ(Run("summarize two/gpus --device 'NVIDIA GB10 (7)'"), 2);
  EXPECT_NE(err_.find("no GPU operations on device NVIDIA GB10 (7)"), std::string::npos) << err_;
  EXPECT_EQ(Run("summarize two/gpus --device 'NVIDIA GB10 (1)' --step 0"), 2);
}

}  // namespace
