#include "report/policy_tools_report.h"

#include "core/true_divide.h"
#include "report/json_writer.h"
#include "report/text_escape.h"

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
  t.Column("component", TextTable::kLeft)
      .Column("launches", TextTable::kRight)
      .Column("ms", TextTable::kRight)
      .Column("% of summed kernel time", TextTable::kRight)
      .Column("name", TextTable::kLeft);
  for (const KernelDetails& k : l.kernels) {
    t.Row({DisplayName(k.component, 24, style), FormatCount(k.launches), FormatMs(k.total_ns),
           FormatPercent(Percent(k.total_ns, l.kernel_time_ns)), DisplayName(k.name, 100, style)});
  }
  return out + t.Render();
}

std::string KernelListingToMarkdown(const KernelListing& l) {
  std::string out = "### Kernel names under policy " + EscapeForMarkdown(l.policy) + "\n\n" +
                    EscapeForMarkdown(Scope(l)) + " in " + EscapeForMarkdown(l.source) +
                    ", by time.\n\n";
  out += "| component | launches | ms | % of summed kernel time | name |\n";
  out += "| --- | ---: | ---: | ---: | --- |\n";
  for (const KernelDetails& k : l.kernels) {
    out += "| " + EscapeForMarkdown(k.component) + " | " + FormatCount(k.launches) + " | " +
           FormatMs(k.total_ns) + " | " + FormatPercent(Percent(k.total_ns, l.kernel_time_ns)) +
           " | " + EscapeForMarkdown(k.name) + " |\n";
  }
  return out;
}

std::string KernelListingToJson(const KernelListing& l) {
  JsonWriter j;
  j.BeginObject()
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
        .Field("max_ns", k.max_ns)
        .EndObject();
  }
  j.EndArray().EndObject();
  return std::move(j).Take() + "\n";
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

}  // namespace stepstat
