// The top of the page: what was read, what to distrust, the headline numbers, and where the
// time went.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "report/html/html_escape.h"
#include "report/html/page_parts.h"
#include "report/html/svg_charts.h"
#include "report/table.h"
#include "stepstat/read.h"

namespace stepstat::html {

namespace {

std::string_view RoleName(InputRole role) {
  switch (role) {
    case InputRole::kGpuOperations: return "GPU operations";
    case InputRole::kLaunches: return "launch calls";
    case InputRole::kStepRanges: return "step ranges";
  }
  return "";
}

std::string Fact(std::string_view term, const std::string& value_html) {
  return "<dt>" + EscapeHtml(term) + "</dt><dd>" + value_html + "</dd>\n";
}

const Distribution* FindDistribution(const StepsReport& report, std::string_view metric) {
  for (const Distribution& distribution : report.steady_state) {
    if (distribution.metric == metric) return &distribution;
  }
  return nullptr;
}

std::string Card(std::string_view label, const std::string& value, const std::string& extra) {
  return "<div class=\"card\"><div class=\"label\">" + EscapeHtml(label) +
         "</div><div class=\"value\">" + EscapeHtml(value) + "</div><div class=\"extra\">" +
         EscapeHtml(extra) + "</div></div>\n";
}

// A count that may be interpolated (a median of counts): whole when it is, else 1 decimal.
std::string CountValue(double value) {
  if (value == std::floor(value)) return FormatCount(static_cast<int64_t>(value));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

int64_t IdleNs(const Details& details) { return details.span_ns - details.kernel_union_ns; }

}  // namespace

std::string HeaderSection(const PageData& data) {
  const RunContext& context = data.summary.context;
  std::string out = "<header id=\"header\">\n<h1>stepstat report</h1>\n<dl class=\"facts\">\n";
  std::string inputs;
  for (const ResolvedInput& input : context.inputs) {
    inputs += (inputs.empty() ? "" : "<br>") + EscapeHtml(input.name) + " <span class=\"note\">(" +
              EscapeHtml(InputKindName(input.kind)) + ", " + EscapeHtml(RoleName(input.role)) +
              ")</span>";
  }
  out += Fact("inputs", inputs);
  std::string devices;
  for (const DeviceDetails& device : data.details.devices) {
    devices += (devices.empty() ? "" : ", ") + EscapeHtml(device.device);
  }
  out += Fact("device", devices.empty() ? "unknown" : devices);
  if (data.steps != nullptr) {
    const StepsReport& report = data.steps->report;
    out += Fact("steps", EscapeHtml(std::to_string(report.steps.size()) + " from " +
                                    std::string(StepSourceKindName(report.source)) + " (" +
                                    report.source_detail + "), attributed by " +
                                    std::string(StepAttributionName(report.attribution)) + "; " +
                                    std::to_string(report.warmup_count) + " warm-up, " +
                                    std::to_string(report.steady_count) + " steady"));
  } else {
    out += Fact("steps", EscapeHtml(data.steps_note));
  }
  const ClassificationCoverage& coverage = data.details.coverage;
  out += Fact("policy", EscapeHtml(context.policy.name + ": classifies " +
                                   Percent(coverage.classified_percent_of_kernel_time) +
                                   " of the kernel time (" + Ms(coverage.classified_time_ns) +
                                   " of " + Ms(data.details.kernel_time_ns) + ")"));
  return out + "</dl>\n</header>\n";
}

std::string QualityBanner(const PageData& data) {
  std::vector<std::string> items;
  for (const std::string& warning : data.summary.context.warnings) items.push_back(warning);
  const DataQuality& quality = data.details.data_quality;
  for (const std::string& note : quality.notes) items.push_back(note);
  if (quality.zero_duration_kernels > 0) {
    items.push_back(FormatCount(quality.zero_duration_kernels) +
                    " kernels have a zero duration (counted as launches, no time)");
  }
  if (quality.kernels_overlapping_on_their_stream > 0) {
    items.push_back(FormatCount(quality.kernels_overlapping_on_their_stream) +
                    " kernels start before the previous kernel on their stream ended");
  }
  if (quality.launches_without_gpu_kernel.value_or(0) > 0) {
    items.push_back(FormatCount(*quality.launches_without_gpu_kernel) +
                    " launch rows match no GPU kernel (dropped from the launch overlap)");
  }
  if (data.summary.context.policy_hint)
    items.push_back(data.summary.context.policy_hint->Message());
  if (data.steps != nullptr) {
    const StepsReport& report = data.steps->report;
    if (report.source == StepSourceKind::kPeriodDetector) {
      items.push_back(
          "steps are guessed: no step annotations, so the run is cut at the period "
          "of its kernel-name sequence (" +
          report.source_detail + ")");
    }
    int64_t partial = 0;
    for (const StepRecord& step : report.steps) partial += (step.flags & kStepPartial) ? 1 : 0;
    if (partial > 0) {
      items.push_back(std::to_string(partial) +
                      " partial steps (before the first cut or a short "
                      "tail)");
    }
  }
  if (items.empty()) return "";
  std::string out =
      "<aside class=\"banner\" id=\"data-quality\" role=\"note\">\n<h2>Data quality</h2>\n<ul>\n";
  for (const std::string& item : items) out += "<li>" + EscapeHtml(item) + "</li>\n";
  return out + "</ul>\n</aside>\n";
}

std::string CardsSection(const PageData& data) {
  const StepStats& stats = data.summary.stats;
  const Details& details = data.details;
  std::string cards;
  const Distribution* span = nullptr;
  const Distribution* kernels = nullptr;
  if (data.steps != nullptr) {
    span = FindDistribution(data.steps->report, "gpu_span_ns");
    kernels = FindDistribution(data.steps->report, "kernel_count");
  }
  if (span != nullptr && data.steps->report.steady_count > 0) {
    cards += Card("median step (steady state)", Ms(span->median),
                  "p90 " + Ms(span->p90) + " over " +
                      std::to_string(data.steps->report.steady_count) + " steps");
  } else {
    cards += Card("GPU span (whole run)", Ms(stats.gpu_span_ns), "no steps to take a median of");
  }
  cards += Card("GPU busy (union, whole run)", Percent(details.kernel_union_percent_of_span),
                Ms(details.kernel_union_ns) + " of the " + Ms(details.span_ns) + " span");
  cards += Card("GPU idle (whole run)", Ms(IdleNs(details)),
                Percent(PercentOf(static_cast<double>(IdleNs(details)),
                                  static_cast<double>(details.span_ns))) +
                    " of the span, no kernel running");
  if (stats.cpu_gpu_overlap) {
    cards += Card("launch overlap", Percent(stats.cpu_gpu_overlap->launch_api_overlap_percent),
                  "of the launch-API time, while a kernel ran");
  } else {
    cards += Card("launch overlap", "unknown", "no launch trace among the inputs");
  }
  if (kernels != nullptr && data.steps->report.steady_count > 0) {
    cards += Card("kernels per step (median)", CountValue(kernels->median),
                  "p90 " + CountValue(kernels->p90));
  } else {
    cards += Card("kernels (whole run)", FormatCount(stats.kernel_count), "");
  }
  return Section("headline", "Headline", "<div class=\"cards\">\n" + cards + "</div>\n");
}

std::string TimeSection(const PageData& data) {
  const StepStats& stats = data.summary.stats;
  const int64_t idle = IdleNs(data.details);
  const double whole = static_cast<double>(stats.kernel_time_ns + idle);
  std::vector<Segment> segments;
  HtmlTable table;
  table.Column("component", HtmlTable::kText)
      .Column("kernel time")
      .Column("% of kernel time")
      .Column("% of bar")
      .Column("launches")
      .Column("what it holds", HtmlTable::kText);
  std::string desc;
  for (size_t i = 0; i < stats.components.size(); ++i) {
    const ComponentStats& component = stats.components[i];
    const std::string share = Percent(PercentOf(static_cast<double>(component.time_ns), whole));
    segments.push_back({static_cast<double>(component.time_ns),
                        ComponentClass(i, stats.components.size()),
                        component.name + ": " + Ms(component.time_ns) + ", " + share});
    desc += component.name + " " + Ms(component.time_ns) + " (" + share + "); ";
    table.Row({EscapeHtml(component.name), Ms(component.time_ns),
               Percent(component.percent_of_kernel_time), share, FormatCount(component.launches),
               EscapeHtml(component.description)});
  }
  const std::string idle_share = Percent(PercentOf(static_cast<double>(idle), whole));
  segments.push_back({static_cast<double>(idle), std::string(kIdleClass),
                      "idle: " + Ms(idle) + ", " + idle_share});
  desc += "idle " + Ms(idle) + " (" + idle_share + ")";
  table.Row({"idle", Ms(idle), "", idle_share, "", "span minus the union of kernels"});
  const std::string svg = StackedBarSvg(
      {"time-bar", "Where the GPU time went, by component, idle last", desc}, segments);
  const std::string caption =
      "Denominator: the kernel time summed over kernels (" + Ms(stats.kernel_time_ns) +
      ") plus the idle time (span minus the union of kernels, " + Ms(idle) +
      "): " + Ms(static_cast<int64_t>(whole)) +
      ". Components in policy order; with concurrent streams the summed kernel time can pass "
      "the busy time.";
  return Section("where-the-time-went", "Where the time went",
                 Legend(stats, true) + Figure(svg, EscapeHtml(caption), table.Render()));
}

}  // namespace stepstat::html
