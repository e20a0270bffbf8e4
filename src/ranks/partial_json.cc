// Partials as JSON (docs/schemas.md, stepstat.partial/1): written with the Python-compatible
// writer, read back with simdjson trusting nothing: every rank is rebuilt and merged again,
// and the totals written must be the totals that merge gives.
#include <fmt/format.h>
#include <simdjson.h>

#include "ranks/partial_internal.h"
#include "report/json_writer.h"
#include "stepstat/partial.h"

namespace stepstat {

namespace {

namespace dom = simdjson::dom;

void WriteIntArray(JsonWriter& json, std::string_view key, const std::vector<int64_t>& values) {
  json.Key(key).BeginArray();
  for (int64_t value : values) json.Int(value);
  json.EndArray();
}

void WriteTotals(JsonWriter& json, const PartialTotals& t) {
  json.Key("totals")
      .BeginObject()
      .Field("rank_count", t.rank_count)
      .Field("gpu_span_ns", t.gpu_span_ns)
      .Field("gpu_operation_count", t.gpu_operation_count)
      .Field("kernel_count", t.kernel_count)
      .Field("kernel_time_ns", t.kernel_time_ns)
      .Field("gap_count", t.gap_count)
      .Field("gap_total_ns", t.gap_total_ns)
      .Field("gap_max_ns", t.gap_max_ns)
      .Field("launch_ranks", t.launch_ranks)
      .Field("launch_union_ns", t.launch_union_ns)
      .Field("launch_overlap_ns", t.launch_overlap_ns);
  WriteIntArray(json, "component_ns", t.component_ns);
  WriteIntArray(json, "component_launches", t.component_launches);
  json.EndObject();
}

void WriteRank(JsonWriter& json, const RankPartial& r) {
  json.BeginObject().Key("rank");
  if (r.rank) {
    json.Int(*r.rank);
  } else {
    json.Null();
  }
  json.Field("rank_source", r.rank_source);
  // Only in partials split by device, so that whole-trace partials keep their bytes.
  if (r.device) json.Field("device", *r.device);
  json.Field("source_gpu_trace", r.source_gpu_trace)
      .Field("source_kernel_exec_trace", r.source_kernel_exec_trace)
      .Field("gpu_span_ns", r.gpu_span_ns)
      .Field("gpu_operation_count", r.gpu_operation_count)
      .Field("kernel_count", r.kernel_count)
      .Field("kernel_time_ns", r.kernel_time_ns)
      .Field("gap_count", r.gap_count)
      .Field("gap_total_ns", r.gap_total_ns)
      .Field("gap_max_ns", r.gap_max_ns)
      .Field("has_launches", r.has_launches)
      .Field("launch_union_ns", r.launch_union_ns)
      .Field("launch_overlap_ns", r.launch_overlap_ns);
  WriteIntArray(json, "component_ns", r.component_ns);
  WriteIntArray(json, "component_launches", r.component_launches);
  json.EndObject();
}

/// Reads fields of one JSON object, keeping the first error (with the object's name).
class Fields {
 public:
  Fields(dom::element element, std::string what, std::string_view origin, Status* status)
      : what_(std::move(what)), origin_(origin), status_(status) {
    if (element.get_object().get(object_)) Fail("is not an object");
  }

  dom::element Element(std::string_view key) {
    dom::element value;
    if (status_->ok() && object_[key].get(value)) Fail(fmt::format("has no \"{}\"", key));
    return value;
  }
  /// A count or a time: an integer >= 0 (what every partial field is).
  int64_t Count(std::string_view key) {
    dom::element value = Element(key);
    int64_t number = 0;
    if (!status_->ok()) return 0;
    if (value.get_int64().get(number) || number < 0) {
      Fail(fmt::format("\"{}\" is not an integer >= 0", key));
    }
    return number;
  }
  std::string Text(std::string_view key) {
    dom::element value = Element(key);
    std::string_view text;
    if (status_->ok() && value.get_string().get(text)) {
      Fail(fmt::format("\"{}\" is not a string", key));
    }
    return std::string(text);
  }
  /// A string that may be absent (a field added since the schema's first version).
  std::optional<std::string> OptionalText(std::string_view key) {
    dom::element value;
    if (!status_->ok() || object_[key].get(value)) return std::nullopt;
    return Text(key);
  }
  std::optional<std::string> TextOrNull(std::string_view key) {
    dom::element value = Element(key);
    if (!status_->ok() || value.is_null()) return std::nullopt;
    return Text(key);
  }
  bool Flag(std::string_view key) {
    dom::element value = Element(key);
    bool flag = false;
    if (status_->ok() && value.get_bool().get(flag)) {
      Fail(fmt::format("\"{}\" is not true or false", key));
    }
    return flag;
  }
  std::vector<int64_t> Counts(std::string_view key, size_t expected) {
    dom::element value = Element(key);
    dom::array array;
    std::vector<int64_t> numbers;
    if (!status_->ok()) return numbers;
    if (value.get_array().get(array) || array.size() != expected) {
      Fail(fmt::format("\"{}\" is not an array of {} integers (one per component)", key, expected));
      return numbers;
    }
    for (dom::element item : array) {
      int64_t number = 0;
      if (item.get_int64().get(number) || number < 0) {
        Fail(fmt::format("\"{}\" holds a value that is not an integer >= 0", key));
        return numbers;
      }
      numbers.push_back(number);
    }
    return numbers;
  }
  void Fail(std::string_view what) {
    if (status_->ok()) {
      *status_ = Status::Error(fmt::format("{}: {} {}", origin_, what_, what));
    }
  }

 private:
  dom::object object_;
  std::string what_;
  std::string_view origin_;
  Status* status_;
};

bool SameTotals(const PartialTotals& a, const PartialTotals& b) {
  return a.rank_count == b.rank_count && a.gpu_span_ns == b.gpu_span_ns &&
         a.gpu_operation_count == b.gpu_operation_count && a.kernel_count == b.kernel_count &&
         a.kernel_time_ns == b.kernel_time_ns && a.gap_count == b.gap_count &&
         a.gap_total_ns == b.gap_total_ns && a.gap_max_ns == b.gap_max_ns &&
         a.launch_ranks == b.launch_ranks && a.launch_union_ns == b.launch_union_ns &&
         a.launch_overlap_ns == b.launch_overlap_ns && a.component_ns == b.component_ns &&
         a.component_launches == b.component_launches;
}

}  // namespace

std::string PartialToJson(const Partial& partial) {
  JsonWriter json;
  json.BeginObject().Field("schema", kPartialSchema);
  json.Key("policy")
      .BeginObject()
      .Field("name", partial.policy.name)
      .Field("hash", partial.policy.hash)
      .Key("components")
      .BeginArray();
  for (const auto& [name, description] : partial.policy.components) {
    json.BeginObject().Field("name", name).Field("description", description).EndObject();
  }
  json.EndArray().EndObject();
  WriteTotals(json, partial.totals);
  json.Key("ranks").BeginArray();
  for (const RankPartial& rank : partial.ranks) WriteRank(json, rank);
  json.EndArray().EndObject();
  std::string text = std::move(json).Take();
  text += '\n';
  return text;
}

Result<Partial> PartialFromJson(std::string_view json, std::string_view origin) {
  dom::parser parser;
  dom::element root;
  if (auto error = parser.parse(simdjson::padded_string(json)).get(root)) {
    return ErrorAt(origin, 0, fmt::format("not JSON ({})", simdjson::error_message(error)));
  }
  Status status;
  Fields top(root, "the partial", origin, &status);
  std::string schema = top.Text("schema");
  RETURN_IF_ERROR(status);
  if (schema != kPartialSchema) {
    return ErrorAt(origin, 0,
                   fmt::format("schema \"{}\", this stepstat reads {}", schema, kPartialSchema));
  }
  PartialPolicy policy;
  Fields policy_fields(top.Element("policy"), "\"policy\"", origin, &status);
  policy.name = policy_fields.Text("name");
  policy.hash = policy_fields.Text("hash");
  dom::array components;
  if (status.ok() && policy_fields.Element("components").get_array().get(components)) {
    policy_fields.Fail("\"components\" is not an array");
  }
  RETURN_IF_ERROR(status);
  for (dom::element component : components) {
    Fields fields(component, "a component of \"policy\"", origin, &status);
    std::string name = fields.Text("name");
    std::string description = fields.Text("description");
    policy.components.emplace_back(std::move(name), std::move(description));
  }
  RETURN_IF_ERROR(status);
  if (policy.hash.empty() || policy.components.empty() ||
      policy.components.back().first != "other") {
    return ErrorAt(origin, 0, "\"policy\" has no hash or no components ending in \"other\"");
  }
  const size_t width = policy.components.size();

  PartialTotals stated;
  Fields totals(top.Element("totals"), "\"totals\"", origin, &status);
  stated.rank_count = totals.Count("rank_count");
  stated.gpu_span_ns = totals.Count("gpu_span_ns");
  stated.gpu_operation_count = totals.Count("gpu_operation_count");
  stated.kernel_count = totals.Count("kernel_count");
  stated.kernel_time_ns = totals.Count("kernel_time_ns");
  stated.gap_count = totals.Count("gap_count");
  stated.gap_total_ns = totals.Count("gap_total_ns");
  stated.gap_max_ns = totals.Count("gap_max_ns");
  stated.launch_ranks = totals.Count("launch_ranks");
  stated.launch_union_ns = totals.Count("launch_union_ns");
  stated.launch_overlap_ns = totals.Count("launch_overlap_ns");
  stated.component_ns = totals.Counts("component_ns", width);
  stated.component_launches = totals.Counts("component_launches", width);
  dom::array ranks;
  if (status.ok() && top.Element("ranks").get_array().get(ranks)) {
    top.Fail("\"ranks\" is not an array");
  }
  RETURN_IF_ERROR(status);

  // Each rank becomes a partial of its own and they merge again: the sums, the canonical
  // order and the refusal of a rank or trace given twice are MergePartials', not the file's.
  Partial merged;
  size_t index = 0;
  for (dom::element element : ranks) {
    Fields fields(element, fmt::format("ranks[{}]", index++), origin, &status);
    RankPartial r;
    dom::element rank = fields.Element("rank");
    if (status.ok() && !rank.is_null()) r.rank = fields.Count("rank");
    r.rank_source = fields.Text("rank_source");
    if (status.ok() && r.rank.has_value() == r.rank_source.empty()) {
      fields.Fail("has a rank without its source, or a source without a rank");
    }
    r.device = fields.OptionalText("device");
    r.source_gpu_trace = fields.Text("source_gpu_trace");
    r.source_kernel_exec_trace = fields.TextOrNull("source_kernel_exec_trace");
    r.gpu_span_ns = fields.Count("gpu_span_ns");
    r.gpu_operation_count = fields.Count("gpu_operation_count");
    r.kernel_count = fields.Count("kernel_count");
    r.kernel_time_ns = fields.Count("kernel_time_ns");
    r.gap_count = fields.Count("gap_count");
    r.gap_total_ns = fields.Count("gap_total_ns");
    r.gap_max_ns = fields.Count("gap_max_ns");
    r.has_launches = fields.Flag("has_launches");
    r.launch_union_ns = fields.Count("launch_union_ns");
    r.launch_overlap_ns = fields.Count("launch_overlap_ns");
    r.component_ns = fields.Counts("component_ns", width);
    r.component_launches = fields.Counts("component_launches", width);
    RETURN_IF_ERROR(status);
    Result<Partial> next =
        MergePartials(std::move(merged), PartialOfRank(policy, std::move(r), std::string(origin)));
    if (!next.ok()) return ErrorAt(origin, 0, next.status().message());
    merged = std::move(next).value();
  }
  if (merged.IsIdentity()) {
    merged.policy = std::move(policy);
    merged.totals.component_ns.assign(width, 0);
    merged.totals.component_launches.assign(width, 0);
  }
  if (!SameTotals(merged.totals, stated)) {
    return ErrorAt(origin, 0, "\"totals\" are not the sums of \"ranks\"");
  }
  merged.origin = std::string(origin);
  return merged;
}

}  // namespace stepstat
