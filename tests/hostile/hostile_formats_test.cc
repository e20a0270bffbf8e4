// Hostile Kineto JSON, SQLite and .nsys-rep inputs through the real binary and the library
// path of the CLI, under the same rule as hostile_inputs_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "hostile/hostile_support.h"
#include "stepstat/policy.h"

namespace stepstat::hostile {
namespace {

constexpr std::string_view kKineto = R"json({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 10, "dur": 3, "args": {"correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 15.5, "dur": 4, "args": {"stream": 7, "correlation": 5}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 20, "dur": 1.25, "args": {"stream": 7, "bytes": 4096}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 2, "ts": 1, "dur": 40}
]}
)json";

RunResult RunOn(const ScratchDir& dir, std::string_view name, std::string_view bytes) {
  dir.Write(name, bytes);
  RunResult run = Summarize(dir, {std::string(name)});
  EXPECT_EQ(CheckOutcome(run), "") << "input " << name << " (" << bytes.size() << " bytes)";
  return run;
}

TEST(HostileFormats, KinetoTruncatedAtEveryByteOffset) {
  Result<Policy> policy = BuiltinPolicy(kDefaultPolicyName);
  ASSERT_TRUE(policy.ok());
  ScratchDir dir("kineto-cuts");
  EXPECT_EQ(RunOn(dir, "whole.json", kKineto).exit_code, 0);
  for (size_t size = 0; size < kKineto.size(); ++size) {
    std::filesystem::path path = dir.Write("trace.json", kKineto.substr(0, size));
    std::string message = SummarizeInProcess(path, policy.value());
    ASSERT_EQ(message.rfind("BAD: ", 0), std::string::npos) << "cut at " << size << ": " << message;
  }
}

TEST(HostileFormats, KinetoNestingNumbersAndTypes) {
  ScratchDir dir("kineto");
  RunOn(dir, "deep.json",
        "{\"traceEvents\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  RunOn(dir, "deep-object.json", "[{" + std::string(50000, '[') + "]");
  const std::string event = R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, )";
  for (std::string_view times :
       {R"("ts": 1e400, "dur": 1)", R"("ts": -5, "dur": 1)", R"("ts": 1, "dur": -1)",
        R"("ts": 9223372036854775807, "dur": 1)", R"("ts": "12", "dur": 1)",
        R"("ts": null, "dur": 1)", R"("ts": 1.5e-300, "dur": 1e18)",
        R"("ts": 18446744073709551616, "dur": 1)", R"("ts": 1)",
        R"("ts": 1, "dur": 1, "args": {"stream": "7", "correlation": 1e99})"}) {
    RunOn(dir, "t.json", "{\"traceEvents\": [" + event + std::string(times) + "}]}");
  }
  RunOn(dir, "names.json",
        "{\"traceEvents\": [" + event +
            R"("ts": 1, "dur": 1, "name": "\u001b[2J\u0000<script>\ud800\udfff\ud800"}]})");
  RunOn(dir, "empty-array.json", "[]");
  RunOn(dir, "no-events.json", "{\"traceEvents\": {}}");
}

TEST(HostileFormats, SqliteFilesThatAreNotExports) {
  ScratchDir dir("sqlite");
  // The magic and then nothing sensible.
  std::string header("SQLite format 3\0", 16);
  RunResult magic = RunOn(dir, "magic.sqlite", header);
  EXPECT_EQ(magic.exit_code, 2);
  RunResult garbage = RunOn(dir, "garbage.sqlite", header + std::string(8192, '\xa5'));
  EXPECT_EQ(garbage.exit_code, 2);
  std::string zeros = header + std::string(4096 - 16, '\0');
  RunOn(dir, "zeros.sqlite", zeros);
}

TEST(HostileFormats, NsysRepWithoutNsys) {
  ScratchDir dir("rep");
  dir.Write("run.nsys-rep", "not really a report");
  // With no nsys on PATH this is an error that says what to run; with nsys it fails to export.
  RunResult run = Summarize(dir, {"run.nsys-rep"});
  EXPECT_EQ(CheckOutcome(run), "");
  EXPECT_EQ(run.exit_code, 2);
}

}  // namespace
}  // namespace stepstat::hostile
