// The writers of a finished job: JSON (stepstat.ranks/1), the terminal table, CSV.
#include <fmt/format.h>

#include "report/json_writer.h"
#include "report/python_float.h"
#include "report/step_stats_json.h"
#include "report/table.h"
#include "report/text_escape.h"
#include "stepstat/metrics.h"
#include "stepstat/ranks.h"

namespace stepstat {

namespace {

std::string StragglerRule() {
  return fmt::format("gpu_span_ns over the median rank's by more than {} %",
                     kStragglerPercentOverMedian);
}

void WriteAcross(JsonWriter& json, const AcrossRanks& a) {
  json.Key(a.name).BeginObject();
  if (a.integer) {
    json.Field("min", a.min_int).Field("min_rank", a.min_rank);
  } else {
    json.Field("min", a.min).Field("min_rank", a.min_rank);
  }
  if (a.min_device) json.Field("min_device", *a.min_device);
  if (a.integer) {
    json.Field("p50", a.p50_int).Field("p90", a.p90_int);
    json.Field("max", a.max_int).Field("max_rank", a.max_rank);
  } else {
    json.Field("p50", a.p50).Field("p90", a.p90);
    json.Field("max", a.max).Field("max_rank", a.max_rank);
  }
  if (a.max_device) json.Field("max_device", *a.max_device);
  json.EndObject();
}

// A row's rank as tables print it: "3", or "3 NVIDIA GB10 (1)" when split by device.
std::string RowName(int64_t rank, const std::optional<std::string>& device) {
  return device ? std::to_string(rank) + " " + *device : std::to_string(rank);
}

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string AcrossCell(const AcrossRanks& a, double value, int64_t integer) {
  if (!a.integer)
    return a.name.find("percent") != std::string::npos ? FormatPercent(value)
                                                       : fmt::format("{:.3f}", value);
  return FormatMs(integer);
}

}  // namespace

std::string RanksToJson(const RanksReport& report) {
  JsonWriter json;
  json.BeginObject().Field("schema", kRanksSchema);
  json.Key("policy")
      .BeginObject()
      .Field("name", report.policy.name)
      .Field("hash", report.policy.hash)
      .EndObject();
  json.Field("rank_count", static_cast<int64_t>(report.ranks.size()));
  json.Key("totals").BeginObject();
  WriteStepStatsMeasures(json, report.totals, /*overlap_scope=*/true);
  json.EndObject();
  json.Key("across_ranks").BeginObject();
  for (const AcrossRanks& across : report.across_ranks) WriteAcross(json, across);
  json.EndObject();
  json.Key("stragglers").BeginObject().Field("rule", StragglerRule()).Key("ranks").BeginArray();
  std::optional<int64_t> last_straggler;  // a rank once, however many of its devices straggle
  for (const RankRow& row : report.ranks) {
    if (row.straggler && last_straggler != row.rank) json.Int(row.rank);
    if (row.straggler) last_straggler = row.rank;
  }
  json.EndArray();
  if (report.per_device) {
    json.Key("devices").BeginArray();
    for (const RankRow& row : report.ranks) {
      if (!row.straggler) continue;
      json.BeginObject().Field("rank", row.rank).Field("device", row.device).EndObject();
    }
    json.EndArray();
  }
  json.EndObject();
  json.Key("ranks").BeginArray();
  for (const RankRow& row : report.ranks) {
    json.BeginObject().Field("rank", row.rank);
    if (row.device) json.Field("device", *row.device);
    json.Field("rank_source", row.rank_source).Field("straggler", row.straggler);
    WriteStepStatsFields(json, row.stats);
    json.EndObject();
  }
  json.EndArray();
  json.Key("errors").BeginArray();
  for (const RankError& error : report.errors) {
    json.BeginObject().Field("input", error.input).Field("message", error.message).EndObject();
  }
  json.EndArray().EndObject();
  std::string text = std::move(json).Take();
  text += '\n';
  return text;
}

std::string RanksToTable(const RanksReport& report, const TextStyle& style) {
  std::string rows = fmt::format("{} ranks", report.ranks.size());
  if (report.per_device) {
    size_t ranks = 0;
    for (size_t i = 0; i < report.ranks.size(); ++i) {
      if (i == 0 || report.ranks[i].rank != report.ranks[i - 1].rank) ++ranks;
    }
    rows = fmt::format("{} devices of {} ranks", report.ranks.size(), ranks);
  }
  std::string out = fmt::format(
      "{}, policy {}; job totals (each {} own span, summed): span {} ms, kernel "
      "time {} ms, busy {} % of span, gaps {} ms\n\n",
      rows, EscapeForTerminal(report.policy.name), report.per_device ? "device's" : "rank's",
      FormatMs(report.totals.gpu_span_ns), FormatMs(report.totals.kernel_time_ns),
      FormatPercent(report.totals.kernel_busy_percent_of_span),
      FormatMs(report.totals.launch_gaps.total_ns));
  TextTable table;
  table.Column("rank", TextTable::kRight);
  if (report.per_device) table.Column("device", TextTable::kLeft, {0, 8});
  table.Column("", TextTable::kLeft)
      .Column("span ms", TextTable::kRight)
      .Column("busy % of span", TextTable::kRight, {3, 0})
      .Column("gaps ms", TextTable::kRight, {2, 0})
      .Column("kernel ms", TextTable::kRight, {1, 0})
      .Column("trace", TextTable::kLeft, {0, 12});
  for (const RankRow& row : report.ranks) {
    std::vector<std::string> cells = {std::to_string(row.rank)};
    if (report.per_device) cells.push_back(DisplayName(row.device.value_or(""), 200, style));
    for (std::string cell :
         {std::string(row.straggler ? "straggler" : ""), FormatMs(row.stats.gpu_span_ns),
          FormatPercent(row.stats.kernel_busy_percent_of_span),
          FormatMs(row.stats.launch_gaps.total_ns), FormatMs(row.stats.kernel_time_ns),
          DisplayName(row.stats.source_gpu_trace, 200, style)}) {
      cells.push_back(std::move(cell));
    }
    table.Row(cells);
  }
  out += table.Render(2, style);
  out += fmt::format("\nstragglers: {}\n\n", StragglerRule());

  TextTable across;
  across.Column("across ranks", TextTable::kLeft, {0, 16})
      .Column("min", TextTable::kRight)
      .Column("(rank)", TextTable::kRight)
      .Column("p50", TextTable::kRight)
      .Column("p90", TextTable::kRight, {1, 0})
      .Column("max", TextTable::kRight)
      .Column("(rank)", TextTable::kRight);
  for (const AcrossRanks& a : report.across_ranks) {
    std::string name = a.integer && a.name.size() > 3 && a.name.ends_with("_ns")
                           ? a.name.substr(0, a.name.size() - 3) + " ms"
                           : a.name;
    across.Row({DisplayName(name, 200, style), AcrossCell(a, a.min, a.min_int),
                DisplayName(RowName(a.min_rank, a.min_device), 200, style),
                AcrossCell(a, a.p50, a.p50_int), AcrossCell(a, a.p90, a.p90_int),
                AcrossCell(a, a.max, a.max_int),
                DisplayName(RowName(a.max_rank, a.max_device), 200, style)});
  }
  out += across.Render(2, style);
  for (const RankError& error : report.errors) {
    out += "\nerror: " + DisplayName(error.message, 400, style);
  }
  if (!report.errors.empty()) out += "\n";
  return out;
}

std::string RanksToCsv(const RanksReport& report) {
  std::string out = report.per_device ? "rank,device," : "rank,";
  out += "rank_source,straggler,source_gpu_trace,source_kernel_exec_trace";
  for (const SummaryMetric& metric : kSummaryMetrics) {
    if (!metric.rank_column.empty()) out += "," + std::string(metric.rank_column);
  }
  for (const auto& component : report.policy.components) {
    out += "," + CsvField(component.first + "_ns");
  }
  out += "\n";
  for (const RankRow& row : report.ranks) {
    const StepStats& s = row.stats;
    out += std::to_string(row.rank) + ",";
    if (report.per_device) out += CsvField(row.device.value_or("")) + ",";
    out += fmt::format("{},{},{},{}", row.rank_source, row.straggler ? 1 : 0,
                       CsvField(s.source_gpu_trace),
                       CsvField(s.source_kernel_exec_trace.value_or("")));
    for (const SummaryMetric& metric : kSummaryMetrics) {
      if (metric.rank_column.empty()) continue;
      const MetricValue value = metric.value(s);
      out += ",";
      if (value.integer) out += std::to_string(*value.integer);
      if (value.real) out += PythonFloat(*value.real);
    }
    for (const ComponentStats& component : s.components) {
      out += "," + std::to_string(component.time_ns);
    }
    out += "\n";
  }
  return out;
}

}  // namespace stepstat
