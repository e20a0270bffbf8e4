// Sides from the JSON stepstat writes (docs/schemas.md). The summary carries no "schema" key
// (it is byte-identical to the reference output), so it is known by its keys.
#include <fmt/format.h>
#include <simdjson.h>

#include "compare/policy_identity.h"
#include "stepstat/compare.h"
#include "stepstat/metrics.h"

namespace stepstat {
namespace {

namespace dom = simdjson::dom;

constexpr std::string_view kReadable = "diff reads stepstat.summary/1 and stepstat.steps/2";

/// The measures of a summary object or one step of a steps report, as (key path, value), in
/// the summary's order. Absent keys are skipped; null values too (no launch source).
void Flatten(dom::object object, std::vector<MetricValues>* out, bool as_step) {
  auto add = [&](std::string key, dom::element value) {
    double number;
    if (value.get_double().get(number)) return;  // null or not a number
    if (as_step) {
      for (MetricValues& metric : *out) {
        if (metric.key == key) return metric.steps.push_back(number);
      }
      out->push_back({std::move(key), {number}, std::nullopt});
    } else {
      out->push_back({std::move(key), {}, number});
    }
  };
  for (const SummaryMetric& metric : kSummaryMetrics) {
    dom::element value;
    if (metric.group().empty() && !object[metric.key].get(value)) {
      add(std::string(metric.key), value);
    }
  }
  std::vector<std::string_view> groups;  // the registry's, in its order, then components
  for (const SummaryMetric& metric : kSummaryMetrics) {
    if (!metric.group().empty() && (groups.empty() || groups.back() != metric.group())) {
      groups.push_back(metric.group());
    }
  }
  groups.push_back("components");
  for (std::string_view group : groups) {
    dom::object inner;
    if (object[group].get_object().get(inner)) continue;
    for (auto [name, value] : inner) {
      if (group == "components") {
        dom::object component;
        if (value.get_object().get(component)) continue;
        for (auto [field, number] : component) {
          add(fmt::format("components.{}.{}", name, field), number);
        }
      } else if (name != "scope") {
        add(fmt::format("{}.{}", group, name), value);
      }
    }
  }
  if (as_step) {
    for (std::string_view key : kStepMetricsInDiff) {
      dom::element value;
      if (!object[key].get(value)) add(std::string(key), value);
    }
  }
}

void ReadPolicy(dom::object root, SideMetadata* meta) {
  dom::object policy;
  if (root["classification_policy"].get_object().get(policy)) return;
  std::vector<std::pair<std::string, std::string>> components;
  for (auto [name, description] : policy) {
    std::string_view text;
    if (description.get_string().get(text)) text = "";
    components.emplace_back(std::string(name), std::string(text));
  }
  meta->policy_hash = ComponentsIdentity(components);
}

void ReadDetails(dom::object root, SideMetadata* meta) {
  dom::array kernels;
  if (!root["details"]["top_kernels"].get_array().get(kernels)) {
    for (dom::element kernel : kernels) {
      std::string_view name;
      int64_t launches, total_ns;
      if (kernel["name"].get(name) || kernel["launches"].get(launches) ||
          kernel["total_ns"].get(total_ns)) {
        continue;
      }
      std::string_view component;
      if (kernel["component"].get(component)) component = {};
      meta->kernels[std::string(name)] = {launches, total_ns, std::string(component), {}};
    }
  }
  std::string_view kind;
  if (!root["details"]["data_quality"]["inputs"].at(0)["kind"].get(kind)) {
    meta->input_format = std::string(kind);
  }
}

Result<Side> ReadSteps(dom::object root, Side side) {
  dom::array steps;
  if (root["steps"].get_array().get(steps)) {
    return Status::Error(fmt::format("{}: stepstat.steps/2 without \"steps\"", side.meta.label));
  }
  for (dom::element step : steps) {
    bool warmup = false;
    int64_t operations = 0;
    if (step["warmup"].get(warmup) || step["gpu_operation_count"].get(operations)) {
      return Status::Error(
          fmt::format("{}: a step without warmup or gpu_operation_count", side.meta.label));
    }
    // Steady steps with GPU work, as SideFromSteps takes them.
    if (warmup || operations == 0) continue;
    dom::object object;
    if (step.get_object().get(object)) continue;
    Flatten(object, &side.metrics, /*as_step=*/true);
  }
  ReadPolicy(root, &side.meta);
  return side;
}

}  // namespace

Result<Side> SideFromJson(std::string_view json, std::string label) {
  dom::parser parser;
  simdjson::padded_string padded(json);
  dom::element document;
  if (auto error = parser.parse(padded).get(document)) {
    return Status::Error(
        fmt::format("{}: not JSON ({}); {}", label, simdjson::error_message(error), kReadable));
  }
  dom::object root;
  if (document.get_object().get(root)) {
    return Status::Error(fmt::format("{}: not a JSON object; {}", label, kReadable));
  }
  Side side;
  side.meta.label = label;
  std::string_view schema;
  if (!root["schema"].get(schema)) {
    side.meta.schema = std::string(schema);
    if (schema == "stepstat.steps/2") return ReadSteps(root, std::move(side));
    std::string hint =
        schema.starts_with("stepstat.steps/") || schema.starts_with("stepstat.summary/")
            ? "a version this stepstat does not read"
            : "not a summary or steps output";
    return Status::Error(
        fmt::format("{}: schema \"{}\" is {}; {}", label, schema, hint, kReadable));
  }
  dom::element span;
  if (root["gpu_span_ns"].get(span) || root["classification_policy"].get(span)) {
    return Status::Error(fmt::format(
        "{}: no \"schema\" key and not a summary (no gpu_span_ns, classification_policy); {}",
        label, kReadable));
  }
  side.meta.schema = "stepstat.summary/1";
  Flatten(root, &side.metrics, /*as_step=*/false);
  ReadPolicy(root, &side.meta);
  ReadDetails(root, &side.meta);
  return side;
}

}  // namespace stepstat
