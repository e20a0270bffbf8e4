// Every real nsys trace CSV in shared/data/real reads with the row count and values that an
// independent reading of the file text gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "readers/test_sink.h"
#include "stepstat/read.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

const fs::path kRealDir = fs::path(STEPSTAT_SHARED_DIR) / "data" / "real";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A deliberately simple quote-aware splitter, independent of CsvScanner.
std::vector<std::vector<std::string>> SplitCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        rows.back().back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        rows.back().back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\n') {
      rows.emplace_back(1);
    } else if (c != '\r') {
      rows.back().back() += c;
    }
  }
  rows.pop_back();  // after the final newline
  return rows;
}

// "26.997" MB → 26997000 bytes by moving the decimal point; empty → -1.
int64_t MegabytesToBytes(const std::string& text) {
  if (text.empty()) return -1;
  size_t dot = text.find('.');
  std::string whole = text.substr(0, dot);
  std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
  fraction.resize(6, '0');
  return std::stoll(whole + fraction);
}

std::vector<fs::path> RealFiles(const std::string& suffix) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kRealDir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct RealRead {
  InputKind kind{};
  ReadReport report;
  CollectingSink sink;
};

void ReadReal(const fs::path& path, RealRead& out) {
  std::string name = path.filename().string();
  auto kind = DetectInputKind(path, name);
  ASSERT_TRUE(kind.ok()) << kind.status().message();
  out.kind = *kind;
  auto report = ReadInput(path, name, *kind, out.sink);
  ASSERT_TRUE(report.ok()) << report.status().message();
  out.report = *report;
}

TEST(RealDataTest, GpuTraces) {
  auto files = RealFiles("cuda_gpu_trace.csv");
  if (files.empty()) GTEST_SKIP() << "no *cuda_gpu_trace.csv in " << kRealDir;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    auto rows = SplitCsv(Slurp(path));
    RealRead read;
    ReadReal(path, read);
    EXPECT_EQ(read.kind, InputKind::kNsysGpuTraceCsv);
    EXPECT_EQ(read.report.layout, "2024+");
    ASSERT_EQ(read.report.rows, static_cast<int64_t>(rows.size() - 1));
    ASSERT_EQ(read.sink.ops.size(), rows.size() - 1);
    const auto& header = rows[0];
    size_t name_col = std::find(header.begin(), header.end(), "Name") - header.begin();
    size_t strm_col = std::find(header.begin(), header.end(), "Strm") - header.begin();
    size_t bytes_col = std::find(header.begin(), header.end(), "Bytes (MB)") - header.begin();
    for (size_t i = 1; i < rows.size(); ++i) {
      const CollectedOp& op = read.sink.ops[i - 1];
      ASSERT_EQ(op.op.start_ns, std::stoll(rows[i][0])) << "row " << i;
      ASSERT_EQ(op.op.duration_ns, std::stoll(rows[i][1])) << "row " << i;
      ASSERT_EQ(op.name, rows[i][name_col]) << "row " << i;
      ASSERT_EQ(op.op.stream, std::stoll(rows[i][strm_col])) << "row " << i;
      bool memory = rows[i][name_col].rfind("[CUDA mem", 0) == 0;
      ASSERT_EQ(op.op.kind == OpKind::kKernel, !memory) << "row " << i;
      ASSERT_EQ(op.op.bytes, MegabytesToBytes(rows[i][bytes_col])) << "row " << i;
    }
  }
}

TEST(RealDataTest, GramSchmidtUnifiedCopiesAreMemcpysOnStreamZero) {
  fs::path path = kRealDir / "hcc_h100nvl_GRAMSCHM_uvm_cuda_gpu_trace.csv";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  RealRead read;
  ReadReal(path, read);
  int unified = 0;
  for (const CollectedOp& op : read.sink.ops) {
    if (op.name.rfind("[CUDA memcpy Unified", 0) != 0) continue;
    ++unified;
    EXPECT_EQ(op.op.kind, OpKind::kMemcpy);
    EXPECT_EQ(op.op.stream, 0);
    EXPECT_EQ(op.op.correlation_id, 0);
    EXPECT_GT(op.op.bytes, 0);
  }
  EXPECT_GT(unified, 100);
}

TEST(RealDataTest, KmeansKernelTotalsMatchNsysKernelSummary) {
  fs::path trace = kRealDir / "hcc_h100nvl_kmeans_cc_cuda_gpu_trace.csv";
  fs::path summary = kRealDir / "hcc_h100nvl_kmeans_cc_cuda_gpu_kern_sum.csv";
  if (!fs::exists(trace) || !fs::exists(summary)) GTEST_SKIP() << "kmeans files absent";
  RealRead read;
  ReadReal(trace, read);
  std::map<std::string, int64_t> total_by_name;
  std::map<std::string, int64_t> count_by_name;
  for (const CollectedOp& op : read.sink.ops) {
    if (op.op.kind != OpKind::kKernel) continue;
    total_by_name[op.name] += op.op.duration_ns;
    ++count_by_name[op.name];
  }
  auto rows = SplitCsv(Slurp(summary));
  ASSERT_EQ(rows[0][1], "Total Time (ns)");
  ASSERT_EQ(rows.size() - 1, total_by_name.size());
  int64_t kernels = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::string& name = rows[i][8];
    EXPECT_EQ(total_by_name[name], std::stoll(rows[i][1])) << name;
    EXPECT_EQ(count_by_name[name], std::stoll(rows[i][2])) << name;
    kernels += std::stoll(rows[i][2]);
  }
  int64_t read_kernels = 0;
  for (const auto& [name, count] : count_by_name) read_kernels += count;
  EXPECT_EQ(read_kernels, kernels);
}

TEST(RealDataTest, KernExecTraces) {
  auto files = RealFiles("kern_exec_trace.csv");
  if (files.empty()) GTEST_SKIP() << "no *kern_exec_trace.csv in " << kRealDir;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    auto rows = SplitCsv(Slurp(path));
    RealRead read;
    ReadReal(path, read);
    EXPECT_EQ(read.kind, InputKind::kNsysKernExecTraceCsv);
    ASSERT_EQ(read.sink.calls.size(), rows.size() - 1);
    for (size_t i = 1; i < rows.size(); ++i) {
      const CollectedCall& c = read.sink.calls[i - 1];
      ASSERT_EQ(c.call.api_start_ns, std::stoll(rows[i][0]));
      ASSERT_EQ(c.call.api_duration_ns, std::stoll(rows[i][1]));
      ASSERT_EQ(c.call.queue_duration_ns, std::stoll(rows[i][3]));
      ASSERT_EQ(c.call.kernel_start_ns, std::stoll(rows[i][4]));
      ASSERT_EQ(c.call.kernel_duration_ns, std::stoll(rows[i][5]));
      ASSERT_EQ(c.call.pid, std::stoll(rows[i][7]));
      ASSERT_EQ(c.api_name, rows[i][10]);
      ASSERT_EQ(c.kernel_name, rows[i][13]);
    }
  }
}

TEST(RealDataTest, ApiTraces) {
  auto files = RealFiles("cuda_api_trace.csv");
  if (files.empty()) GTEST_SKIP() << "no *cuda_api_trace.csv in " << kRealDir;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    auto rows = SplitCsv(Slurp(path));
    RealRead read;
    ReadReal(path, read);
    EXPECT_EQ(read.kind, InputKind::kNsysApiTraceCsv);
    EXPECT_EQ(read.report.rows, static_cast<int64_t>(rows.size() - 1));
    std::vector<const std::vector<std::string>*> launches;
    for (size_t i = 1; i < rows.size(); ++i) {
      if (rows[i][2].rfind("cudaLaunchKernel", 0) == 0 ||
          rows[i][2].rfind("cuLaunchKernel", 0) == 0) {
        launches.push_back(&rows[i]);
      }
    }
    ASSERT_EQ(read.sink.calls.size(), launches.size());
    for (size_t i = 0; i < launches.size(); ++i) {
      const CollectedCall& c = read.sink.calls[i];
      ASSERT_EQ(c.call.api_start_ns, std::stoll((*launches[i])[0]));
      ASSERT_EQ(c.call.api_duration_ns, std::stoll((*launches[i])[1]));
      ASSERT_EQ(c.call.correlation_id, std::stoll((*launches[i])[4]));
      ASSERT_EQ(c.call.tid, std::stoll((*launches[i])[6]));
    }
  }
}

TEST(RealDataTest, KmeansApiTraceHasOneLaunchPerKernel) {
  fs::path path = kRealDir / "hcc_h100nvl_kmeans_cc_cuda_api_trace.csv";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  RealRead read;
  ReadReal(path, read);
  EXPECT_EQ(read.sink.calls.size(), 500u);  // nsys's cuda_api_sum: 500 cudaLaunchKernel calls
  for (const CollectedCall& c : read.sink.calls) EXPECT_EQ(c.api_name, "cudaLaunchKernel");
}

TEST(RealDataTest, NvtxTracesAreDetectedButNotGpuTraces) {
  auto files = RealFiles("nvtx_pushpop_trace.csv");
  if (files.empty()) GTEST_SKIP() << "no *nvtx_pushpop_trace.csv in " << kRealDir;
  for (const fs::path& path : files) {
    auto kind = DetectInputKind(path, path.filename().string());
    ASSERT_TRUE(kind.ok()) << kind.status().message();
    EXPECT_EQ(*kind, InputKind::kNsysNvtxTraceCsv) << path;
  }
}

}  // namespace
}  // namespace stepstat
