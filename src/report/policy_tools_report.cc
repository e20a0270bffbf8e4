#include <fmt/format.h>

#include "core/true_divide.h"
#include "report/json_writer.h"
#include "report/table.h"
#include "report/text_escape.h"
#include "stepstat/report.h"

namespace stepstat {

namespace {

double Percent(int64_t a, int64_t b) { return b == 0 ? 0.0 : TrueDivide(a, b) * 100.0; }

std::string Scope(const KernelListing& l) {
  std::string scope = std::to_string(l.kernels.size()) + " of " + std::to_string(l.distinct_names) +
                      " distinct kernel names";
  if (l.unmatched_only) scope += " (only those in `other`)";
  return scope;
}

}  // namespace

std::string KernelListingToTable(const KernelListing& l, const TextStyle& style) {
  std::string out = "GPU trace: " + EscapeForTerminal(l.source) +
                    "\npolicy:    " + EscapeForTerminal(l.policy) + "\n" + Scope(l) +
                    ", by time\n\n";
  TextTable t;
  // Without a width limit names are cut at 100 columns as before; with one, the name gives
  // way last, elided in the middle where kernel names differ least.
  t.Column("component", TextTable::kLeft)
      .Column("launches", TextTable::kRight)
      .Column("ms", TextTable::kRight)
      .Column("% of summed kernel time", TextTable::kRight, ColumnFit{1, 0})
      .Column("name", TextTable::kLeft, ColumnFit{0, 40});
  std::vector<int64_t> times;
  for (const KernelDetails& k : l.kernels) times.push_back(k.total_ns);
  std::vector<std::string> ms = FormatMsColumn(times);
  for (size_t i = 0; i < l.kernels.size(); ++i) {
    const KernelDetails& k = l.kernels[i];
    std::string name = EscapeForTerminal(k.name);
    if (style.width == 0) name = DisplayName(k.name, 100, style);
    t.Row({DisplayName(k.component, 24, style), FormatCount(k.launches), ms[i],
           FormatPercent(Percent(k.total_ns, l.kernel_time_ns)), std::move(name)});
  }
  return out + t.Render(2, style);
}

std::string KernelListingToMarkdown(const KernelListing& l) {
  std::string out = "### Kernel names under policy " + EscapeForMarkdown(l.policy) + "\n\n" +
                    EscapeForMarkdown(Scope(l)) + " in " + EscapeForMarkdown(l.source) +
                    ", by time.\n\n";
  out += "| component | launches | ms | % of summed kernel time | name |\n";
  out += "| --- | ---: | ---: | ---: | --- |\n";
  std::vector<int64_t> times;
  for (const KernelDetails& k : l.kernels) times.push_back(k.total_ns);
  std::vector<std::string> ms = FormatMsColumn(times);
  for (size_t i = 0; i < l.kernels.size(); ++i) {
    const KernelDetails& k = l.kernels[i];
    out += "| " + EscapeForMarkdown(k.component) + " | " + FormatCount(k.launches) + " | " + ms[i] +
           " | " + FormatPercent(Percent(k.total_ns, l.kernel_time_ns)) + " | " +
           EscapeForMarkdown(k.name) + " |\n";
  }
  return out;
}

std::string KernelListingToJson(const KernelListing& l) {
  JsonWriter j;
  j.BeginObject()
      .Field("schema", kClassifySchema)
      .Field("source_gpu_trace", l.source)
      .Field("policy", l.policy)
      .Field("kernel_time_ns", l.kernel_time_ns)
      .Field("distinct_kernel_names", l.distinct_names)
      .Field("unmatched_only", l.unmatched_only)
      .Key("kernels")
      .BeginArray();
  for (const KernelDetails& k : l.kernels) {
    j.BeginObject()
        .Field("name", k.name)
        .Field("component", k.component)
        .Field("launches", k.launches)
        .Field("total_ns", k.total_ns)
        .Field("percent_of_kernel_time", Percent(k.total_ns, l.kernel_time_ns))
        .Field("mean_ns", k.mean_ns)
        .Field("median_ns", k.median_ns)
        .Field("min_ns", k.min_ns)
        .Field("max_ns", k.max_ns)
        .EndObject();
  }
  j.EndArray().EndObject();
  return std::move(j).Take() + "\n";
}

namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string KernelListingToCsv(const KernelListing& l) {
  // nsys's cuda_gpu_kern_sum columns, plus the component; one decimal for the two values
  // that can have a fraction, as nsys prints them.
  std::string out =
      "name,component,launches,total_ns,avg_ns,median_ns,min_ns,max_ns,percent_of_kernel_time\n";
  for (const KernelDetails& k : l.kernels) {
    out += fmt::format("{},{},{},{},{:.1f},{:.1f},{},{},{:.2f}\n", CsvField(k.name),
                       CsvField(k.component), k.launches, k.total_ns, k.mean_ns, k.median_ns,
                       k.min_ns, k.max_ns, Percent(k.total_ns, l.kernel_time_ns));
  }
  return out;
}

std::string PoliciesToTable(const std::vector<Policy>& policies, const TextStyle& style) {
  std::string out;
  for (const Policy& p : policies) {
    if (!out.empty()) out += "\n";
    out += DisplayName(p.name, 60, style) + ": " + EscapeForTerminal(p.description) +
           (p.case_sensitive ? " (case-sensitive)" : "") + "\n";
    TextTable t;
    t.Column("component", TextTable::kLeft)
        .Column("patterns", TextTable::kRight)
        .Column("excludes", TextTable::kRight)
        .Column("description", TextTable::kLeft);
    for (const ComponentRule& c : p.components) {
      t.Row({DisplayName(c.name, 40, style), std::to_string(c.patterns.size()),
             std::to_string(c.exclude.size()), EscapeForTerminal(c.description)});
    }
    t.Row({"other", "", "", EscapeForTerminal(p.other_description)});
    out += t.Render();
  }
  return out;
}

std::string PoliciesToMarkdown(const std::vector<Policy>& policies) {
  std::string out;
  for (const Policy& p : policies) {
    if (!out.empty()) out += "\n";
    out += "### " + EscapeForMarkdown(p.name) + "\n\n" + EscapeForMarkdown(p.description) +
           "\n\n| component | patterns | exclude | description |\n| --- | ---: | ---: | --- |\n";
    for (const ComponentRule& c : p.components) {
      out += "| " + EscapeForMarkdown(c.name) + " | " + std::to_string(c.patterns.size()) + " | " +
             std::to_string(c.exclude.size()) + " | " + EscapeForMarkdown(c.description) + " |\n";
    }
    out += "| other |  |  | " + EscapeForMarkdown(p.other_description) + " |\n";
  }
  return out;
}

std::string PoliciesToJson(const std::vector<Policy>& policies) {
  JsonWriter j;
  j.BeginArray();
  for (const Policy& p : policies) {
    j.BeginObject()
        .Field("name", p.name)
        .Field("description", p.description)
        .Field("case_sensitive", p.case_sensitive)
        .Key("components")
        .BeginArray();
    for (const ComponentRule& c : p.components) {
      j.BeginObject().Field("name", c.name).Field("description", c.description);
      j.Key("patterns").BeginArray();
      for (const std::string& pattern : c.patterns) j.String(pattern);
      j.EndArray().Key("exclude").BeginArray();
      for (const std::string& pattern : c.exclude) j.String(pattern);
      j.EndArray().EndObject();
    }
    j.EndArray().Field("other_description", p.other_description).EndObject();
  }
  j.EndArray();
  return std::move(j).Take() + "\n";
}

std::string MostClassifyingPolicy(const PolicyCoverageReport& r) {
  const PolicyCoverage* best = nullptr;
  for (const PolicyCoverage& c : r.policies) {
    if (best == nullptr || c.classified_time_ns > best->classified_time_ns) best = &c;
  }
  return best == nullptr ? "" : best->policy;
}

namespace {

int64_t KernelTime(const PolicyCoverageReport& r) {
  return r.policies.empty() ? 0 : r.policies.front().kernel_time_ns;
}

std::string CoverageScope(const PolicyCoverageReport& r) {
  return std::to_string(r.distinct_names) + " distinct kernel names, " + FormatMs(KernelTime(r)) +
         " ms of summed kernel time";
}

}  // namespace

std::string PolicyCoverageToTable(const PolicyCoverageReport& r, const TextStyle& style) {
  std::string out = "GPU trace: " + EscapeForTerminal(r.source) + "\n" + CoverageScope(r) +
                    "; the share each built-in policy classifies (outside `other`)\n\n";
  const std::string most = MostClassifyingPolicy(r);
  TextTable t;
  t.Column("policy", TextTable::kLeft)
      .Column("classified %", TextTable::kRight)
      .Column("other %", TextTable::kRight)
      .Column("names in other", TextTable::kRight)
      .Column("", TextTable::kLeft);
  for (const PolicyCoverage& c : r.policies) {
    t.Row({DisplayName(c.policy, 40, style), FormatPercent(c.classified_percent_of_kernel_time),
           FormatPercent(c.other_percent_of_kernel_time), FormatCount(c.other_names),
           c.policy == most ? "most" : ""});
  }
  return out + t.Render(2, style);
}

std::string PolicyCoverageToMarkdown(const PolicyCoverageReport& r) {
  std::string out = "### Built-in policies on " + EscapeForMarkdown(r.source) + "\n\n" +
                    EscapeForMarkdown(CoverageScope(r)) + ".\n\n";
  out += "| policy | classified % | other % | names in other |\n| --- | ---: | ---: | ---: |\n";
  const std::string most = MostClassifyingPolicy(r);
  for (const PolicyCoverage& c : r.policies) {
    out += "| " + EscapeForMarkdown(c.policy) + (c.policy == most ? " (most)" : "") + " | " +
           FormatPercent(c.classified_percent_of_kernel_time) + " | " +
           FormatPercent(c.other_percent_of_kernel_time) + " | " + FormatCount(c.other_names) +
           " |\n";
  }
  return out;
}

std::string PolicyCoverageToJson(const PolicyCoverageReport& r) {
  JsonWriter j;
  j.BeginObject()
      .Field("schema", kPolicyCoverageSchema)
      .Field("source_gpu_trace", r.source)
      .Field("kernel_time_ns", KernelTime(r))
      .Field("distinct_kernel_names", r.distinct_names)
      .Field("most_classified_policy", MostClassifyingPolicy(r))
      .Key("policies")
      .BeginArray();
  for (const PolicyCoverage& c : r.policies) {
    j.BeginObject()
        .Field("policy", c.policy)
        .Field("classified_time_ns", c.classified_time_ns)
        .Field("classified_percent_of_kernel_time", c.classified_percent_of_kernel_time)
        .Field("other_time_ns", c.kernel_time_ns - c.classified_time_ns)
        .Field("other_percent_of_kernel_time", c.other_percent_of_kernel_time)
        .Field("other_names", c.other_names)
        .EndObject();
  }
  j.EndArray().EndObject();
  return std::move(j).Take() + "\n";
}

}  // namespace stepstat
