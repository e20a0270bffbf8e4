// The SQLite and Kineto formats of a synth run against its CSV pair: the same run read
// through each format's reader must give the same summary and the same steps, integer for
// integer (Kineto's microseconds carry three decimals, so no nanosecond is lost).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "stepstat/policy.h"
#include "stepstat/read.h"
#include "stepstat/step_stats.h"
#include "stepstat/steps.h"
#include "stepstat/synth.h"

namespace stepstat::synth {
namespace {

namespace fs = std::filesystem;

struct FormatRun {
  fs::path dir;
  SynthResult csv, sqlite, kineto;
};

FormatRun WriteAllFormats(const std::string& tag, int64_t steps, int streams) {
  FormatRun run;
  run.dir = fs::temp_directory_path() / ("stepstat_synth_formats_" + tag);
  fs::remove_all(run.dir);
  fs::create_directories(run.dir);
  SynthOptions options;
  options.out_base = run.dir / "run";
  options.steps = steps;
  options.streams = streams;
  options.nvtx = true;
  for (auto [format, result] :
       {std::pair{SynthFormat::kCsv, &run.csv}, std::pair{SynthFormat::kSqlite, &run.sqlite},
        std::pair{SynthFormat::kKineto, &run.kineto}}) {
    options.format = format;
    Result<SynthResult> written = WriteSynthTraces(options);
    EXPECT_TRUE(written.ok()) << written.status().message();
    if (written.ok()) *result = written.value();
  }
  return run;
}

StepStats SummaryOf(const std::string& input) {
  Result<SummaryInputs> inputs = ResolveInputs({input});
  EXPECT_TRUE(inputs.ok()) << inputs.status().message();
  if (!inputs.ok()) return {};
  Result<StepStats> stats = Summarize(*inputs, BuiltinPolicy(kDefaultPolicyName).value());
  EXPECT_TRUE(stats.ok()) << stats.status().message();
  return stats.ok() ? stats.value() : StepStats();
}

void ExpectSameSummary(const StepStats& expected, const StepStats& actual, const char* format) {
  SCOPED_TRACE(format);
  EXPECT_GT(expected.kernel_count, 0);
  EXPECT_EQ(actual.gpu_span_ns, expected.gpu_span_ns);
  EXPECT_EQ(actual.gpu_operation_count, expected.gpu_operation_count);
  EXPECT_EQ(actual.kernel_count, expected.kernel_count);
  EXPECT_EQ(actual.kernel_time_ns, expected.kernel_time_ns);
  EXPECT_EQ(actual.launch_gaps.positive_gap_count, expected.launch_gaps.positive_gap_count);
  EXPECT_EQ(actual.launch_gaps.total_ns, expected.launch_gaps.total_ns);
  EXPECT_EQ(actual.launch_gaps.maximum_ns, expected.launch_gaps.maximum_ns);
  ASSERT_TRUE(expected.cpu_gpu_overlap.has_value());
  ASSERT_TRUE(actual.cpu_gpu_overlap.has_value());
  EXPECT_EQ(actual.cpu_gpu_overlap->launch_api_union_ns,
            expected.cpu_gpu_overlap->launch_api_union_ns);
  EXPECT_EQ(actual.cpu_gpu_overlap->launch_api_gpu_overlap_ns,
            expected.cpu_gpu_overlap->launch_api_gpu_overlap_ns);
  ASSERT_EQ(actual.components.size(), expected.components.size());
  for (size_t c = 0; c < expected.components.size(); ++c) {
    EXPECT_EQ(actual.components[c].name, expected.components[c].name);
    EXPECT_EQ(actual.components[c].time_ns, expected.components[c].time_ns) << c;
    EXPECT_EQ(actual.components[c].launches, expected.components[c].launches) << c;
  }
}

StepsReport StepsOf(const std::vector<std::string>& args, const std::string& regex) {
  Result<StepsInputs> inputs = ResolveStepsInputs(args);
  EXPECT_TRUE(inputs.ok()) << inputs.status().message();
  if (!inputs.ok()) return {};
  StepsOptions options;
  options.range_regex = regex;
  Result<StepsReport> report =
      AnalyzeSteps(*inputs, BuiltinPolicy(kDefaultPolicyName).value(), options);
  EXPECT_TRUE(report.ok()) << report.status().message();
  return report.ok() ? report.value() : StepsReport();
}

// `clock_offset`: what the format adds to every nsys time (Kineto's trace has its own zero).
void ExpectSameSteps(const StepsReport& expected, const StepsReport& actual, int64_t steps,
                     const char* format) {
  SCOPED_TRACE(format);
  ASSERT_EQ(static_cast<int64_t>(expected.steps.size()), steps);
  ASSERT_EQ(actual.steps.size(), expected.steps.size());
  const int64_t clock_offset = actual.steps[0].cpu_start_ns - expected.steps[0].cpu_start_ns;
  for (size_t s = 0; s < expected.steps.size(); ++s) {
    const StepRecord& want = expected.steps[s];
    const StepRecord& got = actual.steps[s];
    EXPECT_EQ(got.cpu_start_ns - clock_offset, want.cpu_start_ns) << s;
    EXPECT_EQ(got.cpu_end_ns - clock_offset, want.cpu_end_ns) << s;
    EXPECT_EQ(got.totals.kernel_count, want.totals.kernel_count) << s;
    EXPECT_EQ(got.totals.operation_count, want.totals.operation_count) << s;
    EXPECT_EQ(got.totals.kernel_time_ns, want.totals.kernel_time_ns) << s;
    EXPECT_EQ(got.totals.launch_call_count, want.totals.launch_call_count) << s;
  }
  EXPECT_EQ(actual.outside.operation_count, expected.outside.operation_count);
}

class SynthFormats : public ::testing::TestWithParam<std::pair<int64_t, int>> {};

TEST_P(SynthFormats, SqliteAndKinetoSummarizeLikeTheCsvPair) {
  auto [steps, streams] = GetParam();
  FormatRun run = WriteAllFormats("summary" + std::to_string(streams), steps, streams);
  EXPECT_EQ(run.sqlite.gpu_trace, run.dir / "run.sqlite");
  EXPECT_EQ(run.kineto.gpu_trace, run.dir / "run.pt.trace.json");
  EXPECT_EQ(run.sqlite.bytes, static_cast<int64_t>(fs::file_size(run.sqlite.gpu_trace)));
  EXPECT_EQ(run.kineto.bytes, static_cast<int64_t>(fs::file_size(run.kineto.gpu_trace)));
  EXPECT_EQ(DetectInputKind(run.sqlite.gpu_trace, "sqlite").value(), InputKind::kNsysSqlite);
  EXPECT_EQ(DetectInputKind(run.kineto.gpu_trace, "kineto").value(), InputKind::kKinetoJson);
  StepStats csv = SummaryOf((run.dir / "run").string());
  EXPECT_EQ(csv.kernel_count, run.csv.kern_exec_rows);
  ExpectSameSummary(csv, SummaryOf(run.sqlite.gpu_trace.string()), "sqlite");
  ExpectSameSummary(csv, SummaryOf(run.kineto.gpu_trace.string()), "kineto");
  fs::remove_all(run.dir);
}

TEST_P(SynthFormats, StepRangesCutTheSameSteps) {
  auto [steps, streams] = GetParam();
  FormatRun run = WriteAllFormats("steps" + std::to_string(streams), steps, streams);
  StepsReport csv = StepsOf({(run.dir / "run").string(), run.csv.nvtx_trace.string()}, "denoise");
  EXPECT_EQ(csv.source, StepSourceKind::kRanges);
  StepsReport sqlite = StepsOf({run.sqlite.gpu_trace.string()}, "denoise");
  EXPECT_EQ(sqlite.source, StepSourceKind::kRanges);
  StepsReport kineto = StepsOf({run.kineto.gpu_trace.string()}, "");
  EXPECT_EQ(kineto.source, StepSourceKind::kProfilerStep);
  ExpectSameSteps(csv, sqlite, steps, "sqlite");
  ExpectSameSteps(csv, kineto, steps, "kineto");
  fs::remove_all(run.dir);
}

INSTANTIATE_TEST_SUITE_P(StepsAndStreams, SynthFormats,
                         ::testing::Values(std::pair<int64_t, int>{3, 2},
                                           std::pair<int64_t, int>{2, 1}));

// The tables and rows nsys would write: each table in start order, every kernel launched by
// one runtime row with its correlation id, names through StringIds.
TEST(SynthSqlite, TablesAreInStartOrderAndJoinLikeAnExport) {
  FormatRun run = WriteAllFormats("tables", 2, 2);
  sqlite3* db = nullptr;
  ASSERT_EQ(
      sqlite3_open_v2(run.sqlite.gpu_trace.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
      SQLITE_OK);
  auto integer = [&](const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    int64_t value = -1;
    if (sqlite3_step(stmt) == SQLITE_ROW) value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
  };
  for (const char* table :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
        "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"}) {
    EXPECT_GT(integer(std::string("SELECT count(*) FROM ") + table), 0) << table;
    EXPECT_EQ(integer(std::string("SELECT count(*) FROM ") + table + " a JOIN " + table +
                      " b ON b.rowid = a.rowid + 1 WHERE b.start < a.start"),
              0)
        << table;
  }
  const int64_t kernels = integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
  EXPECT_EQ(kernels, run.csv.kern_exec_rows);
  EXPECT_EQ(integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                    "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND "
                    "k.globalPid = (r.globalTid & 0xFFFFFFFFFF000000) JOIN StringIds s ON "
                    "s.id = r.nameId WHERE s.value GLOB 'cu*Launch*' AND r.end <= k.start"),
            kernels);
  EXPECT_EQ(integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON "
                    "d.id = k.demangledName JOIN StringIds s ON s.id = k.shortName WHERE "
                    "instr(d.value, s.value) > 0 AND length(s.value) < length(d.value)"),
            integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds d ON "
                    "d.id = k.demangledName WHERE d.value LIKE 'void %'"));
  EXPECT_EQ(integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY") +
                integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET") + kernels,
            run.csv.gpu_rows);
  sqlite3_close(db);
  fs::remove_all(run.dir);
}

TEST(SynthSqlite, FailureLeavesNoFileAndAStaleTemporaryIsReplaced) {
  fs::path dir = fs::temp_directory_path() / "stepstat_synth_formats_errors";
  fs::remove_all(dir);
  fs::create_directories(dir);
  SynthOptions options;
  options.out_base = dir / "missing" / "run";
  for (SynthFormat format : {SynthFormat::kSqlite, SynthFormat::kKineto}) {
    options.format = format;
    Result<SynthResult> result = WriteSynthTraces(options);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("cannot create"), std::string::npos);
  }
  EXPECT_TRUE(fs::is_empty(dir));
  // A run killed mid-write leaves run.sqlite.tmp; the next run must not append to it.
  std::ofstream(dir / "run.sqlite.tmp") << "not a database";
  options.out_base = dir / "run";
  options.format = SynthFormat::kSqlite;
  Result<SynthResult> result = WriteSynthTraces(options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_FALSE(fs::exists(dir / "run.sqlite.tmp"));
  EXPECT_EQ(SummaryOf(result->gpu_trace.string()).kernel_count, result->kern_exec_rows);
  fs::remove_all(dir);
}

TEST(SynthFormat, ParsesTheThreeNames) {
  EXPECT_EQ(ParseSynthFormat("csv"), SynthFormat::kCsv);
  EXPECT_EQ(ParseSynthFormat("sqlite"), SynthFormat::kSqlite);
  EXPECT_EQ(ParseSynthFormat("kineto"), SynthFormat::kKineto);
  EXPECT_FALSE(ParseSynthFormat("json").has_value());
}

}  // namespace
}  // namespace stepstat::synth
