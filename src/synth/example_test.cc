// The bundled example: regenerating it gives the committed bytes, and the committed CSVs,
// read here with a deliberately simple parser of their own, carry every integer of the
// reference summary (spec/gb10-post-fc2-warmed-step-stats.json).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "stepstat/synth.h"
#include "synth/kernel_catalog.h"
#include "synth/test_csv.h"
#include "test_platform.h"

namespace stepstat::synth {
namespace {

const fs::path kExampleBase =
    fs::path(STEPSTAT_SOURCE_DIR) / "examples/gb10-dit-step/gb10-dit-step";

struct Span {
  int64_t start, end;
};

std::vector<Span> Merge(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  std::vector<Span> merged;
  for (const Span& s : spans) {
    if (!merged.empty() && s.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, s.end);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

// The integer after `"key": ` at or after `from` in the reference JSON; milliseconds become ns.
int64_t JsonInteger(const std::string& json, const std::string& key, size_t from = 0) {
  size_t at = json.find("\"" + key + "\": ", from);
  EXPECT_NE(at, std::string::npos) << key;
  size_t begin = at + key.size() + 4;
  size_t end = json.find_first_of(",\n", begin);
  std::string number = json.substr(begin, end - begin);
  if (key != "milliseconds") return std::stoll(number);
  size_t dot = number.find('.');
  std::string fraction = dot == std::string::npos ? "" : number.substr(dot + 1);
  fraction.resize(6, '0');
  return std::stoll(number.substr(0, dot)) * 1'000'000 + std::stoll(fraction);
}

TEST(Example, RegeneratingGivesTheCommittedBytes) {
  fs::path dir = fs::temp_directory_path() / "stepstat_synth_example_test";
  fs::create_directories(dir);
  SynthOptions options;
  options.out_base = dir / "gb10-dit-step";
  Result<SynthResult> result = WriteSynthTraces(options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  for (const char* suffix : {"_cuda_gpu_trace.csv", "_cuda_kern_exec_trace.csv"}) {
    fs::path committed = kExampleBase;
    committed += suffix;
    fs::path fresh = options.out_base;
    fresh += suffix;
    ASSERT_TRUE(fs::exists(committed)) << committed;
    EXPECT_TRUE(ReadFile(committed) == ReadFile(fresh))
        << committed << " differs from a fresh `stepstat synth`: regenerate it (see its README)";
  }
  EXPECT_FALSE(fs::exists(fs::path(options.out_base).concat("_cuda_gpu_trace.csv.tmp")));
  fs::remove_all(dir);
}

TEST(Example, CarriesEveryIntegerOfTheReferenceSummary) {
  fs::path reference = STEPSTAT_SHARED_DIR "/spec/gb10-post-fc2-warmed-step-stats.json";
  if (!fs::exists(reference)) GTEST_SKIP() << reference << " is absent";
  const std::string json = ReadFile(reference);
  Table gpu = ReadCsv(fs::path(kExampleBase).concat("_cuda_gpu_trace.csv"));
  Table exec = ReadCsv(fs::path(kExampleBase).concat("_cuda_kern_exec_trace.csv"));

  std::map<std::string, std::string> intended;  // kernel name -> component
  for (const KernelKind& kind : AllKinds())
    intended[std::string(kind.name)] = ComponentName(kind.component);
  std::map<std::string, std::array<int64_t, 2>> components;  // ns, launches

  int64_t first = INT64_MAX, last = INT64_MIN, kernel_time = 0, kernels = 0, previous_start = 0;
  std::vector<Span> kernel_spans;
  for (size_t r = 0; r < gpu.rows.size(); ++r) {
    int64_t start = gpu.Int(r, "Start (ns)");
    int64_t end = start + gpu.Int(r, "Duration (ns)");
    EXPECT_GE(start, previous_start) << "row " << r << ": nsys writes rows by start";
    previous_start = start;
    first = std::min(first, start);
    last = std::max(last, end);
    const std::string& name = gpu.Text(r, "Name");
    EXPECT_EQ(gpu.Text(r, "Device"), "NVIDIA GB10 (0)");
    if (name.rfind("[CUDA mem", 0) == 0) continue;
    ++kernels;
    kernel_time += end - start;
    kernel_spans.push_back({start, end});
    ASSERT_TRUE(intended.count(name)) << name;
    components[intended[name]][0] += end - start;
    components[intended[name]][1] += 1;
  }
  EXPECT_EQ(last - first, JsonInteger(json, "gpu_span_ns"));
  EXPECT_EQ(static_cast<int64_t>(gpu.rows.size()), JsonInteger(json, "gpu_operation_count"));
  EXPECT_EQ(kernels, JsonInteger(json, "kernel_count"));
  EXPECT_EQ(kernel_time, JsonInteger(json, "kernel_time_ns"));

  // The spec's frontier walk over kernels sorted by (start, end).
  std::vector<Span> sorted = kernel_spans;
  std::sort(sorted.begin(), sorted.end(), [](const Span& a, const Span& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  int64_t frontier = sorted.front().end, gap_count = 0, gap_total = 0, gap_max = 0;
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].start > frontier) {
      ++gap_count;
      gap_total += sorted[i].start - frontier;
      gap_max = std::max(gap_max, sorted[i].start - frontier);
    }
    frontier = std::max(frontier, sorted[i].end);
  }
  EXPECT_EQ(gap_count, JsonInteger(json, "positive_gap_count"));
  EXPECT_EQ(gap_total, JsonInteger(json, "total_ns"));
  EXPECT_EQ(gap_max, JsonInteger(json, "maximum_ns"));

  // Launch calls: union, and its overlap with the kernel union, measured per nanosecond
  // boundary by a sweep over both merged lists.
  std::vector<Span> calls;
  previous_start = 0;
  for (size_t r = 0; r < exec.rows.size(); ++r) {
    int64_t api_start = exec.Int(r, "API Start (ns)");
    int64_t api_end = api_start + exec.Int(r, "API Dur (ns)");
    EXPECT_GE(api_start, previous_start) << "kern exec rows come by API start";
    previous_start = api_start;
    EXPECT_EQ(exec.Int(r, "Queue Start (ns)"), api_end);
    EXPECT_EQ(exec.Int(r, "Queue Dur (ns)"), exec.Int(r, "Kernel Start (ns)") - api_end);
    EXPECT_GE(exec.Int(r, "Queue Dur (ns)"), 0);
    EXPECT_EQ(exec.Int(r, "Total Dur (ns)"),
              exec.Int(r, "Kernel Start (ns)") + exec.Int(r, "Kernel Dur (ns)") - api_start);
    calls.push_back({api_start, api_end});
  }
  EXPECT_EQ(static_cast<int64_t>(exec.rows.size()), kernels);
  std::vector<Span> call_union = Merge(calls);
  std::vector<Span> kernel_union = Merge(kernel_spans);
  int64_t union_ns = 0, overlap_ns = 0;
  for (const Span& c : call_union) {
    union_ns += c.end - c.start;
    for (const Span& k : kernel_union) {
      overlap_ns += std::max<int64_t>(0, std::min(c.end, k.end) - std::max(c.start, k.start));
    }
  }
  EXPECT_EQ(union_ns, JsonInteger(json, "launch_api_union_ns"));
  EXPECT_EQ(overlap_ns, JsonInteger(json, "launch_api_gpu_overlap_ns"));

  for (int c = 0; c < kComponentCount; ++c) {
    std::string name(ComponentName(static_cast<Component>(c)));
    size_t block = json.find("\"" + name + "\": {");
    ASSERT_NE(block, std::string::npos) << name;
    EXPECT_EQ(components[name][0], JsonInteger(json, "milliseconds", block)) << name;
    EXPECT_EQ(components[name][1], JsonInteger(json, "launches", block)) << name;
  }
}

// Everything but the two source-path lines, with one final newline.
std::string WithoutSourcePaths(const std::string& json) {
  std::istringstream in(json);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.find("\"source_") == std::string::npos) out += line + "\n";
  }
  return out;
}

TEST(Example, SummarizePrintsTheReferenceSummary) {
  fs::path reference = STEPSTAT_SHARED_DIR "/spec/gb10-post-fc2-warmed-step-stats.json";
  if (!fs::exists(reference)) GTEST_SKIP() << reference << " is absent";
  fs::path output = fs::temp_directory_path() / "stepstat_synth_example_summary.json";
  testing_support::ShellCommand command;
  command.dir = STEPSTAT_SOURCE_DIR;
  command.argv = {STEPSTAT_BINARY, "summarize", "examples/gb10-dit-step/gb10-dit-step"};
  command.stdout_file = output.string();
  ASSERT_EQ(testing_support::RunShell(command), 0) << testing_support::ShellLine(command);
  std::string summary = ReadFile(output);
  EXPECT_NE(summary.find("\"source_gpu_trace\": "
                         "\"examples/gb10-dit-step/gb10-dit-step_cuda_gpu_trace.csv\""),
            std::string::npos);
  EXPECT_EQ(WithoutSourcePaths(summary), WithoutSourcePaths(ReadFile(reference)));
  fs::remove(output);
}

}  // namespace
}  // namespace stepstat::synth
