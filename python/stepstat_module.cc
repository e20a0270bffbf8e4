// stepstat._stepstat: the engine (include/stepstat/) for Python. Every call takes paths and
// options, releases the GIL while the engine reads files, and returns the JSON text the CLI
// prints; the package (stepstat/__init__.py) turns it into dicts. Nothing here computes a
// figure: what Python gets is byte for byte what the CLI writes.
//
// Threads: each call runs the engine on the calling thread (and the engine's own reader
// threads, joined before it returns); with the GIL released, two Python threads may call at
// once: the engine calls share nothing mutable.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "stepstat/engine.h"
#include "stepstat/engine_ranks.h"
#include "stepstat/engine_report.h"
#include "stepstat/html_report.h"
#include "stepstat/partial.h"
#include "stepstat/ranks.h"
#include "stepstat/report.h"
#include "stepstat/steps.h"

namespace py = pybind11;

namespace stepstat {
namespace {

/// The exception the package re-exports as stepstat.Error; its text is the engine's message
/// ("<file>:<line>: <what>").
py::object* error_type = nullptr;

[[noreturn]] void Raise(const Status& status) {
  PyErr_SetString(error_type->ptr(), status.message().c_str());
  throw py::error_already_set();
}

template <typename T>
T Take(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

RunOptions Options(const std::vector<std::filesystem::path>& inputs, const std::string& policy) {
  RunOptions options;
  options.inputs = inputs;
  options.policy = policy;
  return options;
}

/// (json, warnings)
std::pair<std::string, std::vector<std::string>> PySummarize(
    const std::vector<std::filesystem::path>& inputs, const std::string& policy, bool details,
    const std::string& device) {
  RunOptions options = Options(inputs, policy);
  options.details = details;
  options.device = device;
  Result<SummaryResult> result = Status::Error("not run");
  {
    py::gil_scoped_release unlocked;
    result = RunSummary(options);
  }
  SummaryResult summary = Take(std::move(result));
  std::string json = summary.details ? StepStatsWithDetailsToJson(summary.stats, *summary.details)
                                     : StepStatsToJson(summary.stats);
  return {std::move(json), std::move(summary.context.warnings)};
}

std::pair<std::string, std::vector<std::string>> PySteps(
    const std::vector<std::filesystem::path>& inputs, const std::string& policy,
    const std::string& steps_regex) {
  RunOptions options = Options(inputs, policy);
  options.steps.range_regex = steps_regex;
  Result<StepsResult> result = Status::Error("not run");
  std::string json;
  {
    py::gil_scoped_release unlocked;
    result = RunSteps(options);
    if (result.ok()) json = StepsToJson(result->report, result->context.policy);
  }
  StepsResult steps = Take(std::move(result));
  return {std::move(json), std::move(steps.context.warnings)};
}

// The page `stepstat report` writes, from the same engine call (RunReport); `command_line` is
// what the page shows under "How this page was made".
std::pair<std::string, std::vector<std::string>> PyReport(
    const std::vector<std::filesystem::path>& inputs, const std::string& policy,
    const std::string& steps_regex, const std::string& command_line) {
  ReportRunOptions options;
  options.run = Options(inputs, policy);
  options.run.steps.range_regex = steps_regex;
  Result<ReportResult> result = Status::Error("not run");
  std::string html;
  {
    py::gil_scoped_release unlocked;
    result = RunReport(options);
    if (result.ok()) html = ReportToHtml(*result, command_line);
  }
  ReportResult report = Take(std::move(result));
  return {std::move(html), std::move(report.summary.context.warnings)};
}

std::string PartialOf(const std::vector<std::filesystem::path>& inputs, const std::string& policy,
                      const std::string& rank_regex, bool per_device) {
  Result<Partial> partial = Status::Error("not run");
  {
    py::gil_scoped_release unlocked;
    partial = RunPartial(Options(inputs, policy), rank_regex, nullptr, per_device);
  }
  return PartialToJson(Take(std::move(partial)));
}

/// Partial JSON texts, each named (for messages) by the matching entry of `names`.
Partial MergeTexts(const std::vector<std::string>& texts, const std::vector<std::string>& names) {
  Partial job;
  for (size_t i = 0; i < texts.size(); ++i) {
    std::string name = i < names.size() ? names[i] : "partial " + std::to_string(i);
    Partial partial = Take(PartialFromJson(texts[i], name));
    job = Take(MergePartials(std::move(job), std::move(partial)));
  }
  return job;
}

std::string MergePartialTexts(const std::vector<std::string>& texts,
                              const std::vector<std::string>& names) {
  return PartialToJson(MergeTexts(texts, names));
}

/// The job's stepstat.ranks/1 JSON from merged partials and (input, message) errors.
std::string FinishJob(const std::vector<std::string>& texts, const std::vector<std::string>& names,
                      const std::vector<std::pair<std::string, std::string>>& errors) {
  std::vector<RankError> rank_errors;
  for (const auto& [input, message] : errors) rank_errors.push_back({input, message});
  return RanksToJson(FinishRanks(MergeTexts(texts, names), std::move(rank_errors)));
}

std::string RanksJob(const std::vector<std::filesystem::path>& inputs, const std::string& policy,
                     const std::string& rank_regex, size_t jobs, bool per_device) {
  RanksOptions options;
  options.inputs = inputs;
  options.policy = policy;
  options.rank_regex = rank_regex;
  options.jobs = jobs;
  options.per_device = per_device;
  Result<RanksRun> run = Status::Error("not run");
  {
    py::gil_scoped_release unlocked;
    run = RunRanks(options);
  }
  return RanksToJson(Take(std::move(run)).report);
}

std::vector<std::string> ListTraces(const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::string> names;
  for (const std::filesystem::path& path : Take(ListRankTraces(inputs))) {
    names.push_back(path.string());
  }
  return names;
}

}  // namespace
}  // namespace stepstat

PYBIND11_MODULE(_stepstat, m) {
  using namespace stepstat;
  m.doc() = "stepstat's engine; use the stepstat package, not this module";
  // Never freed: a Python object must not be destroyed after the interpreter is finalized.
  error_type = new py::object(py::exception<std::exception>(m, "Error", PyExc_RuntimeError));
  m.def("summarize", &PySummarize, py::arg("inputs"), py::arg("policy"), py::arg("details"),
        py::arg("device"));
  m.def("steps", &PySteps, py::arg("inputs"), py::arg("policy"), py::arg("steps_regex"));
  m.def("report", &PyReport, py::arg("inputs"), py::arg("policy"), py::arg("steps_regex"),
        py::arg("command_line"));
  m.def("partial", &PartialOf, py::arg("inputs"), py::arg("policy"), py::arg("rank_regex"),
        py::arg("per_device"));
  m.def("merge_partials", &MergePartialTexts, py::arg("texts"), py::arg("names"));
  m.def("finish", &FinishJob, py::arg("texts"), py::arg("names"), py::arg("errors"));
  m.def("ranks", &RanksJob, py::arg("inputs"), py::arg("policy"), py::arg("rank_regex"),
        py::arg("jobs"), py::arg("per_device"));
  m.def("list_traces", &ListTraces, py::arg("inputs"));
  m.attr("PARTIAL_SCHEMA") = std::string(kPartialSchema);
  m.attr("RANKS_SCHEMA") = std::string(kRanksSchema);
}
