// Hostile trace files through the real binary (and, where a case needs thousands of variants,
// through the library path the CLI takes). Each must end in exit 0 with clean JSON or exit 2
// with one `stepstat: ` line and no output file (hostile_support.h), in time linear in the input:
// no timing assertions, but the sizes are large enough that a quadratic path would time out.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "hostile/hostile_support.h"
#include "stepstat/policy.h"

namespace stepstat::hostile {
namespace {

// GrdX and Strm make it a cuda_gpu_trace header (detection wants two such columns).
constexpr std::string_view kHeader = "Start (ns),Duration (ns),CorrId,GrdX,Strm,Name\n";

std::string Row(std::string_view start, std::string_view duration, std::string_view name) {
  return std::string(start) + "," + std::string(duration) + ",1,1,7," + std::string(name) + "\n";
}

std::string PairTrace() { return ReadSourceFile("tests/golden/pair-2024/step_cuda_gpu_trace.csv"); }

Policy DefaultPolicy() {
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  EXPECT_TRUE(policy.ok());
  return std::move(policy).value();
}

// Runs one file through the binary and checks the shared rule; returns the run.
RunResult RunOn(const ScratchDir& dir, std::string_view name, std::string_view bytes) {
  dir.Write(name, bytes);
  RunResult run = Summarize(dir, {std::string(name)});
  EXPECT_EQ(CheckOutcome(run), "") << "input " << name << " (" << bytes.size() << " bytes)";
  return run;
}

TEST(HostileInputs, TruncatedAtEveryByteOffset) {
  const std::string trace = PairTrace();
  ASSERT_GT(trace.size(), 1000u);
  const Policy policy = DefaultPolicy();
  ScratchDir dir("truncated");
  int ok = 0;
  for (size_t size = 0; size < trace.size(); ++size) {
    std::filesystem::path path = dir.Write("trace.csv", std::string_view(trace).substr(0, size));
    std::string message = SummarizeInProcess(path, policy);
    ASSERT_EQ(message.rfind("BAD: ", 0), std::string::npos) << "cut at " << size << ": " << message;
    // A cut inside the last line leaves no newline at the end: always an error.
    bool ends_in_newline = size > 0 && trace[size - 1] == '\n';
    if (message.empty()) {
      ++ok;
      EXPECT_TRUE(ends_in_newline) << "cut at " << size << " was accepted";
    }
  }
  EXPECT_GT(ok, 0);
  // The binary on a sample of the cuts (every process start costs; the library saw them all).
  for (size_t size = 0; size < trace.size(); size += 97) {
    RunOn(dir, "cut.csv", std::string_view(trace).substr(0, size));
  }
}

TEST(HostileInputs, RandomByteFlips) {
  const std::string trace = PairTrace();
  const Policy policy = DefaultPolicy();
  ScratchDir dir("flips");
  std::mt19937 random(20261202);
  for (int variant = 0; variant < 400; ++variant) {
    std::string bytes = trace;
    int flips = 1 + variant % 8;
    for (int i = 0; i < flips; ++i) {
      bytes[random() % bytes.size()] = static_cast<char>(random() & 0xff);
    }
    std::filesystem::path path = dir.Write("trace.csv", bytes);
    std::string message = SummarizeInProcess(path, policy);
    ASSERT_EQ(message.rfind("BAD: ", 0), std::string::npos)
        << "variant " << variant << ": " << message;
    if (variant % 40 == 0) RunOn(dir, "flipped.csv", bytes);
  }
}

TEST(HostileInputs, NulBytes) {
  ScratchDir dir("nul");
  using namespace std::string_literals;
  RunResult in_name = RunOn(dir, "a.csv", std::string(kHeader) + Row("1", "2", "ker\0nel"s));
  EXPECT_EQ(in_name.exit_code, 2);
  RunResult in_header =
      RunOn(dir, "b.csv", "Start (ns),Dur\0ation (ns),GrdX,Strm,Name\n1,2,1,7,k\n"s);
  EXPECT_EQ(in_header.exit_code, 2);
  RunResult at_end = RunOn(dir, "c.csv", std::string(kHeader) + Row("1", "2", "k") + "\0"s);
  EXPECT_EQ(at_end.exit_code, 2);
  RunOn(dir, "d.csv", std::string(4096, '\0'));
}

TEST(HostileInputs, InvalidUtf8InNamesAndFileNames) {
  ScratchDir dir("utf8");
  std::string names[] = {"\xff\xfe",         "\xc0\xaf",    "\xed\xa0\x80",
                         "\xf4\x90\x80\x80", "abc\xe2\x82", "\x80"};
  std::string trace(kHeader);
  int start = 0;
  for (const std::string& name : names) trace += Row(std::to_string(start += 10), "5", name);
  RunResult run = RunOn(dir, "trace.csv", trace);
  EXPECT_EQ(run.exit_code, 0);
#if defined(_WIN32)
  GTEST_SKIP() << "Windows file names hold no control bytes and no invalid UTF-16: the odd "
                  "file name below cannot exist there";
#endif
  // The file name lands in the JSON (source_gpu_trace): invalid UTF-8 there too.
  RunResult odd_name = RunOn(dir, "tr\xff\xc3(ace\x01.csv", trace);
  EXPECT_EQ(odd_name.exit_code, 0);
  EXPECT_NE(odd_name.out.find("\\u0001"), std::string::npos) << odd_name.out.substr(0, 200);
}

TEST(HostileInputs, TenMegabyteField) {
  ScratchDir dir("bigfield");
  const std::string big(10 << 20, 'k');
  RunResult name = RunOn(dir, "name.csv", std::string(kHeader) + Row("1", "2", big));
  EXPECT_EQ(name.exit_code, 0);
  RunResult quoted =
      RunOn(dir, "quoted.csv", std::string(kHeader) + Row("1", "2", "\"" + big + "\n\"\"x\""));
  EXPECT_EQ(quoted.exit_code, 0);
  RunResult number =
      RunOn(dir, "number.csv", std::string(kHeader) + Row(std::string(10 << 20, '7'), "2", "k"));
  EXPECT_EQ(number.exit_code, 2);
  RunResult unterminated = RunOn(dir, "open.csv", std::string(kHeader) + Row("1", "2", "\"" + big));
  EXPECT_EQ(unterminated.exit_code, 2);
}

TEST(HostileInputs, HeaderWithHundredThousandColumns) {
  ScratchDir dir("columns");
  std::string header = "Start (ns),Duration (ns),GrdX,Strm,Name";
  std::string row = "1,2,1,7,k";
  for (int i = 0; i < 100000; ++i) {
    header += ",c" + std::to_string(i);
    row += ",";
  }
  RunResult wide = RunOn(dir, "wide.csv", header + "\n" + row + "\n");
  EXPECT_EQ(wide.exit_code, 0);
  RunResult short_row = RunOn(dir, "short.csv", header + "\n1,2,1,7,k\n");
  EXPECT_EQ(short_row.exit_code, 2);
  // The columns a reader needs, far to the right.
  std::string late;
  for (int i = 0; i < 100000; ++i) late += "c" + std::to_string(i) + ",";
  RunOn(dir, "late.csv",
        late + "Start (ns),Duration (ns),GrdX,Strm,Name\n" + std::string(100000, ',') +
            "1,2,1,7,k\n");
}

TEST(HostileInputs, MillionEmptyLines) {
  ScratchDir dir("empty-lines");
  const std::string empty(1000000, '\n');
  RunResult after = RunOn(dir, "after.csv", std::string(kHeader) + Row("1", "2", "k") + empty);
  EXPECT_EQ(after.exit_code, 0);
  RunOn(dir, "before.csv", empty + std::string(kHeader) + Row("1", "2", "k"));
  RunOn(dir, "only.csv", empty);
  RunOn(dir, "crlf.csv",
        std::string(kHeader) + Row("1", "2", "k") + std::string(2000000, '\r') + "\n");
}

// Rows after a long run of blank lines are data, not something to drop: either they are read
// or the file is refused ("blank line between data rows"), never silently cut short.
TEST(HostileInputs, DataAfterManyBlankLinesIsNotDropped) {
  ScratchDir dir("blank-gap");
  for (int blanks : {1, 999, 1000, 1001, 5000}) {
    std::string trace =
        std::string(kHeader) + Row("1", "2", "k") + std::string(blanks, '\n') + Row("10", "2", "k");
    RunResult run = RunOn(dir, "gap.csv", trace);
    if (run.exit_code == 0) {
      EXPECT_NE(run.out.find("\"gpu_operation_count\": 2"), std::string::npos)
          << blanks << " blank lines: the row after them was dropped";
    }
  }
}

TEST(HostileInputs, TimesBeyondInt64AndNegativeDurations) {
  ScratchDir dir("times");
  const std::pair<std::string, std::string> refused[] = {
      {"9223372036854775808", "1"},
      {"1", "9223372036854775808"},
      {"9223372036854775807", "1"},
      {"1e30", "1"},
      {"1", "-5"},
      {"-1", "5"},
      {"99999999999999999999999999999999999999", "1"},
      {"1", "1e99999999999"},
  };
  for (const auto& [start, duration] : refused) {
    RunResult run = RunOn(dir, "t.csv", std::string(kHeader) + Row(start, duration, "k"));
    EXPECT_EQ(run.exit_code, 2) << start << " + " << duration;
  }
  // Each op fits, but sums across ops pass int64: kernel time, span, gaps, components.
  std::string sums(kHeader);
  sums += Row("0", "4611686018427387904", "gemm_a");
  sums += Row("1", "4611686018427387904", "gemm_b");
  sums += Row("2", "4611686018427387904", "flash_c");
  sums += Row("9223372036854775000", "807", "d");
  RunOn(dir, "sums.csv", sums);
  // Seconds: 9.3e9 s is beyond int64 ns.
  RunResult seconds =
      RunOn(dir, "sec.csv", "Start (s),Duration (s),GrdX,Strm,Name\n9300000000,1,1,7,k\n");
  EXPECT_EQ(seconds.exit_code, 2);
  RunResult zero = RunOn(dir, "zero.csv", std::string(kHeader) + Row("-0", "0", "k"));
  EXPECT_EQ(zero.exit_code, 0);
}

TEST(HostileInputs, HundredThousandCharacterKernelName) {
  ScratchDir dir("longname");
  std::string name(100000, 'x');
  RunResult run = RunOn(dir, "t.csv",
                        std::string(kHeader) + Row("1", "2", name) + Row("5", "2", "gemm_" + name));
  EXPECT_EQ(run.exit_code, 0);
}

TEST(HostileInputs, EscapeSequencesAndHtmlInNames) {
  ScratchDir dir("escapes");
  const std::string nasty =
      "\"\x1b]0;pwned\x07\x1b[2J\x1b[31m<script>alert('x')</script>&amp;\r\b\"";
  RunResult run =
      RunOn(dir, "t.csv", std::string(kHeader) + Row("1", "2", nasty) + Row("5", "2", "ok"));
  EXPECT_EQ(run.exit_code, 0);
  // In an error message: the header cell shows up in "unknown time unit" (header cells
  // cannot be quoted, so no newline; an escape byte can be there).
  RunResult header =
      RunOn(dir, "h.csv", "Start (\x1b[2J<b>\r),Duration (ns),GrdX,Strm,Name\n1,2,1,7,k\n");
  EXPECT_EQ(header.exit_code, 2);
  // In the file name: a missing file's name is echoed.
  RunResult missing = Summarize(dir, {"no\nsuch\x1b[31m.csv"});
  EXPECT_EQ(CheckOutcome(missing), "");
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace stepstat::hostile
