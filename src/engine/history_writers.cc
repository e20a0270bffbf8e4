// History's writers: JSON (a schema key first, as every stepstat JSON that may change shape),
// CSV (one row a run and metric, for spreadsheets) and the terminal table with sparklines.
// They sit with the engine because History is the engine's result; they use report's pieces.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "report/json_writer.h"
#include "report/python_float.h"
#include "report/table.h"
#include "report/text_escape.h"
#include "stepstat/engine_compare.h"
#include "stepstat/metrics.h"

namespace stepstat {

namespace {

std::string Number(std::optional<double> value) {
  if (!value) return "";
  if (std::nearbyint(*value) == *value && std::fabs(*value) < 1e15) {
    return std::to_string(static_cast<int64_t>(*value));
  }
  return PythonFloat(*value);
}

// One glyph per value, scaled between the smallest and the largest.
std::string Sparkline(const std::vector<double>& values, bool unicode) {
  static const char* kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  static const char kAscii[] = "_.-:=+*#";
  if (values.empty()) return "";
  auto [low, high] = std::minmax_element(values.begin(), values.end());
  std::string line;
  for (double v : values) {
    int level =
        *high == *low ? 3 : static_cast<int>(std::lround((v - *low) / (*high - *low) * 7.0));
    line += unicode ? kBlocks[level] : std::string(1, kAscii[level]);
  }
  return line;
}

// A table cell: times (`_ns` keys) in milliseconds, shares and component milliseconds at
// the registry's precision (stepstat/metrics.h), counts and figures it does not declare as
// they are (a median of counts can be a half).
std::string Cell(const std::string& metric, std::optional<double> value, bool sign) {
  if (!value) return "";
  std::string text;
  if (metric.ends_with("_ns")) {
    char ms[64];
    std::snprintf(ms, sizeof ms, sign ? "%+.3f ms" : "%.3f ms", *value / 1e6);
    return ms;
  }
  if (std::optional<FigurePrecision> precision = PrecisionOf(metric);
      precision && precision->unit != "count") {
    return sign ? fmt::format("{:+.{}f}", *value, precision->decimals)
                : fmt::format("{:.{}f}", *value, precision->decimals);
  }
  text = Number(value);
  if (sign && *value > 0) text.insert(0, 1, '+');
  return text;
}

void OptionalNumber(JsonWriter& json, std::string_view key, std::optional<double> value) {
  json.Key(key);
  if (value) {
    json.Double(*value);
  } else {
    json.Null();
  }
}

}  // namespace

std::string HistoryToJson(const History& history) {
  JsonWriter json;
  json.BeginObject().Field("schema", kHistorySchema);
  json.Key("metrics").BeginArray();
  for (const std::string& metric : history.metrics) json.String(metric);
  json.EndArray();
  json.Key("runs").BeginArray();
  for (const HistoryRow& row : history.rows) {
    const RunInfo& run = row.run;
    json.BeginObject().Field("id", run.id).Field("label", run.label);
    json.Field("recorded_at", run.recorded_at).Field("git_commit", run.git_commit);
    json.Field("gpu", run.gpu).Field("policy", run.policy_name);
    json.Field("tool_version", run.tool_version).Field("steps", run.step_count);
    json.Key("tags").BeginObject();
    for (const auto& [key, value] : run.tags) json.Field(key, value);
    json.EndObject().Field("note", run.note);
    json.Key("values").BeginObject();
    for (const HistoryValue& value : row.values) {
      json.Key(value.metric).BeginObject();
      OptionalNumber(json, "value", value.value);
      OptionalNumber(json, "delta_vs_previous", value.delta_vs_previous);
      OptionalNumber(json, "delta_vs_best", value.delta_vs_best);
      json.EndObject();
    }
    json.EndObject().Key("verdict_vs_previous");
    if (row.verdict) {
      json.String(VerdictName(*row.verdict));
    } else {
      json.Null();
    }
    json.EndObject();
  }
  json.EndArray();
  json.Key("sparklines").BeginObject();
  for (const auto& [label, series] : history.series) {
    json.Key(label).BeginObject();
    for (size_t m = 0; m < series.size(); ++m) {
      json.Field(history.metrics[m], Sparkline(series[m], /*unicode=*/true));
    }
    json.EndObject();
  }
  json.EndObject().EndObject();
  return std::move(json).Take() + "\n";
}

std::string HistoryToCsv(const History& history) {
  std::string csv =
      "id,label,recorded_at,git_commit,metric,value,delta_vs_previous,delta_vs_best\n";
  auto field = [](std::string_view text) {
    if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
    std::string quoted(1, '"');
    for (char c : text) {
      quoted.push_back(c);
      if (c == '"') quoted.push_back('"');
    }
    quoted.push_back('"');
    return quoted;
  };
  for (const HistoryRow& row : history.rows) {
    for (const HistoryValue& value : row.values) {
      for (const std::string& cell :
           {std::to_string(row.run.id), field(row.run.label), field(row.run.recorded_at),
            field(row.run.git_commit.value_or("")), field(value.metric), Number(value.value),
            Number(value.delta_vs_previous)}) {
        csv.append(cell).push_back(',');
      }
      csv.append(Number(value.delta_vs_best)).push_back('\n');
    }
  }
  return csv;
}

std::string HistoryToTable(const History& history, bool unicode) {
  TextTable table;
  table.Column("run", TextTable::kRight).Column("label", TextTable::kLeft);
  table.Column("recorded (UTC)", TextTable::kLeft).Column("commit", TextTable::kLeft);
  for (const std::string& metric : history.metrics) {
    table.Column(metric, TextTable::kRight)
        .Column("Δ prev", TextTable::kRight)
        .Column("Δ best", TextTable::kRight);
  }
  table.Column("vs prev", TextTable::kLeft);
  size_t shown = 0;
  for (const HistoryRow& row : history.rows) {
    std::string id = std::to_string(row.run.id);
    id.insert(0, 1, '@');
    std::vector<std::string> cells = {id, EscapeForTerminal(row.run.label),
                                      row.run.recorded_at.substr(0, 16),
                                      row.run.git_commit.value_or("").substr(0, 10)};
    for (const HistoryValue& value : row.values) {
      cells.push_back(Cell(value.metric, value.value, false));
      cells.push_back(Cell(value.metric, value.delta_vs_previous, true));
      cells.push_back(Cell(value.metric, value.delta_vs_best, true));
    }
    cells.push_back(row.verdict ? std::string(VerdictName(*row.verdict)) : "");
    table.Row(std::move(cells));
    ++shown;
  }
  if (shown == 0) return "  no runs\n";
  std::string text = table.Render();
  for (const auto& [label, series] : history.series) {
    for (size_t m = 0; m < series.size(); ++m) {
      text.append("  ").append(EscapeForTerminal(label)).append("  ");
      text.append(history.metrics[m]).append("  ");
      text.append(Sparkline(series[m], unicode)).push_back('\n');
    }
  }
  return text;
}

}  // namespace stepstat
