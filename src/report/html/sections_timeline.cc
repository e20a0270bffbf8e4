// The timeline strips: the median step and the slowest step, each drawn over its own span,
// a lane per device and stream, the CPU's launch calls, the longest gaps numbered and listed
// with the kernels around them.
#include <string>
#include <vector>

#include "report/html/html_escape.h"
#include "report/html/page_parts.h"
#include "report/html/svg_charts.h"
#include "report/table.h"

namespace stepstat::html {

namespace {

constexpr std::string_view kMemoryClass = "mem";
constexpr std::string_view kLaunchClass = "launch";
constexpr std::string_view kHeading = "Timeline of the median and the slowest step";

std::string LaneLabel(const TimelineLane& lane) {
  std::string label =
      lane.device + " stream " + (lane.stream < 0 ? "?" : std::to_string(lane.stream));
  if (lane.process >= 0) label += " (pid " + std::to_string(lane.process) + ")";
  return label;
}

std::string StepTitle(const StepTimeline& timeline) {
  return "step " + std::to_string(timeline.step) + " (" + timeline.step_name + ")";
}

// A run of a lane as a shape: its share of the span, its fill class.
std::vector<TimelineShape> Shapes(const std::vector<TimelineRun>& runs, const StepTimeline& t,
                                  const std::vector<std::string>& classes,
                                  std::string_view fixed_class) {
  const double span = static_cast<double>(std::max<int64_t>(1, t.end_ns - t.start_ns));
  std::vector<TimelineShape> shapes;
  shapes.reserve(runs.size());
  for (const TimelineRun& run : runs) {
    std::string_view css = fixed_class;
    if (css.empty()) {
      css = run.component == kTimelineMemoryOp || run.component < 0 ||
                    static_cast<size_t>(run.component) >= classes.size()
                ? kMemoryClass
                : std::string_view(classes[static_cast<size_t>(run.component)]);
    }
    shapes.push_back({static_cast<double>(run.start_ns - t.start_ns) / span,
                      static_cast<double>(run.end_ns - t.start_ns) / span, css});
  }
  return shapes;
}

std::string StripFigure(const StepTimeline& t, const StepStats& stats, std::string_view id) {
  const int64_t span = t.end_ns - t.start_ns;
  const double span_d = static_cast<double>(span);
  std::vector<std::string> classes;
  for (size_t c = 0; c < stats.components.size(); ++c) {
    classes.push_back(ComponentClass(c, stats.components.size()));
  }
  std::vector<TimelineLaneRow> rows;
  HtmlTable lanes;
  lanes.Column("lane", HtmlTable::kText).Column("kernels").Column("memory ops");
  lanes.Column("busy (union)").Column("% of step span").Column("drawn as shapes");
  int64_t kernels = 0;
  for (const TimelineLane& lane : t.lanes) {
    rows.push_back({LaneLabel(lane), Shapes(lane.runs, t, classes, "")});
    kernels += lane.kernel_count;
    lanes.Row({EscapeHtml(LaneLabel(lane)), FormatCount(lane.kernel_count),
               FormatCount(lane.memory_op_count), Ms(lane.busy_ns),
               Percent(PercentOf(static_cast<double>(lane.busy_ns), span_d)),
               FormatCount(static_cast<int64_t>(lane.runs.size()))});
  }
  std::string launch_desc;
  if (t.has_launches) {
    rows.push_back({"CPU launch calls", Shapes(t.launch_runs, t, classes, kLaunchClass)});
    // Calls before the span (a CPU running ahead) are not drawn; say how much of them there is.
    std::string what = "CPU launch calls (union of the API calls)";
    if (t.launch_outside_span_ns > 0) {
      what += "; " + Ms(t.launch_outside_span_ns) + " more outside the span, not drawn";
    }
    lanes.Row({EscapeHtml(what), FormatCount(t.launch_calls), "", Ms(t.launch_union_ns),
               Percent(PercentOf(static_cast<double>(t.launch_union_ns), span_d)),
               FormatCount(static_cast<int64_t>(t.launch_runs.size()))});
    launch_desc = "; launch calls cover " + Ms(t.launch_union_ns) + " (" +
                  Percent(PercentOf(static_cast<double>(t.launch_union_ns), span_d)) +
                  ") of the span, " + Ms(t.launch_outside_span_ns) + " outside it";
  }

  std::vector<TimelineMark> marks;
  HtmlTable gaps;
  gaps.Column("gap").Column("starts at").Column("length").Column("% of step span");
  gaps.Column("kernel before", HtmlTable::kText).Column("kernel after", HtmlTable::kText);
  for (size_t i = 0; i < t.longest_gaps.size(); ++i) {
    const TimelineGap& gap = t.longest_gaps[i];
    const std::string number = std::to_string(i + 1);
    const int64_t length = gap.end_ns - gap.start_ns;
    marks.push_back({static_cast<double>(gap.start_ns - t.start_ns) / span_d,
                     static_cast<double>(gap.end_ns - t.start_ns) / span_d, number,
                     "gap " + number + ": " + Ms(length) + " at " + Ms(gap.start_ns - t.start_ns) +
                         ", after " + gap.kernel_before + ", before " + gap.kernel_after});
    gaps.Row({number, "+" + Ms(gap.start_ns - t.start_ns), Ms(length),
              Percent(PercentOf(static_cast<double>(length), span_d)), NameCell(gap.kernel_before),
              NameCell(gap.kernel_after)});
  }

  const std::string title = "Timeline of the " + t.role + ", " + StepTitle(t);
  std::string desc = StepTitle(t) + ": span " + Ms(span) + "; " + FormatCount(kernels) +
                     " kernels on " + std::to_string(t.lanes.size()) + " lanes; busy (union) " +
                     Ms(t.kernel_busy_ns) + " (" +
                     Percent(PercentOf(static_cast<double>(t.kernel_busy_ns), span_d)) + "); " +
                     FormatCount(t.gap_count) + " gaps totalling " + Ms(t.gap_total_ns);
  if (!t.longest_gaps.empty()) {
    const TimelineGap& longest = t.longest_gaps.front();
    desc += ", the longest " + Ms(longest.end_ns - longest.start_ns);
  }
  desc += launch_desc;
  const std::string svg = TimelineSvg({id, title, desc}, rows, marks, span);
  const std::string caption =
      "The " + t.role + ", " + StepTitle(t) + ", over its span of " + Ms(span) +
      " (its first operation's start to its last one's end): a lane per device and stream, "
      "each kernel colored by its component, memory operations black" +
      (t.has_launches ? ", and the CPU's launch API calls (their union) in the last lane" : "") +
      ". Operations less than one drawing column apart (span / " +
      std::to_string(kTimelineColumns) + " = " + Ms(t.resolution_ns) +
      ") are drawn as one shape, in the component with the most time in it. Dashed boxes: the " +
      std::to_string(t.longest_gaps.size()) + " longest of the step's " + FormatCount(t.gap_count) +
      " gaps (" + Ms(t.gap_total_ns) +
      " in all), when no kernel of the step ran on any lane; the percentages are of the span.";
  std::string tables = lanes.Render();
  if (!t.longest_gaps.empty()) {
    tables +=
        "<p class=\"note\">The longest gaps, as numbered in the strip; each starts at the "
        "given time after the step's first operation.</p>\n" +
        gaps.Render();
  }
  return "<h3>" + EscapeHtml("The " + t.role + ": " + StepTitle(t)) + "</h3>\n" +
         Figure(svg, EscapeHtml(caption), tables);
}

}  // namespace

std::string TimelineSection(const PageData& data) {
  if (data.timelines == nullptr || data.timelines->empty()) {
    return Section(
        "timeline", kHeading,
        "<p class=\"note\">" +
            EscapeHtml(data.steps == nullptr ? "Nothing to draw, " + std::string(data.steps_note)
                                             : "Nothing to draw: no step has GPU work.") +
            "</p>\n");
  }
  std::string body = Legend(data.summary.stats, false);
  body +=
      "<ul class=\"legend\"><li><span class=\"swatch mem\"></span>memory copy or "
      "set</li><li><span class=\"swatch launch\"></span>CPU launch calls</li><li><span "
      "class=\"swatch gap\"></span>a gap (numbered, longest first)</li></ul>\n";
  const char* ids[] = {"timeline-0", "timeline-1"};
  for (size_t i = 0; i < data.timelines->size() && i < 2; ++i) {
    body += StripFigure((*data.timelines)[i], data.summary.stats, ids[i]);
  }
  return Section("timeline", kHeading, body);
}

}  // namespace stepstat::html
