// DiffToJson: "stepstat.diff/2" (docs/schemas.md). Reads only the DiffResult.
#include "report/json_writer.h"
#include "stepstat/compare.h"

namespace stepstat {
namespace {

std::string_view KindName(MetricKind kind) {
  switch (kind) {
    case MetricKind::kTime: return "time";
    case MetricKind::kCount: return "count";
    case MetricKind::kShare: return "share";
  }
  return "time";
}

std::string_view EffectName(Effect effect) {
  switch (effect) {
    case Effect::kNone: return "none";
    case Effect::kWorse: return "worse";
    case Effect::kBetter: return "better";
    case Effect::kChanged: return "changed";
  }
  return "none";
}

void Optional(JsonWriter& json, std::string_view key, const std::optional<double>& value) {
  json.Key(key);
  value ? json.Double(*value) : json.Null();
}

void Interval(JsonWriter& json, std::string_view key,
              const std::optional<ConfidenceInterval>& interval) {
  json.Key(key);
  if (!interval) {
    json.Null();
    return;
  }
  json.BeginObject()
      .Field("lo", interval->lo)
      .Field("hi", interval->hi)
      .Field("coverage", interval->coverage)
      .EndObject();
}

void SideObject(JsonWriter& json, std::string_view key, const SideMetadata& side) {
  json.Key(key)
      .BeginObject()
      .Field("label", side.label)
      .Field("schema", side.schema)
      .Field("policy", side.policy_name)
      .Field("policy_hash", side.policy_hash)
      .Field("gpu", side.gpu)
      .Field("input_format", side.input_format)
      .Field("input_hash", side.input_hash)
      .Field("kernel_names", int64_t(side.kernels.size()))
      .EndObject();
}

void Rows(JsonWriter& json, std::string_view key, const std::vector<DiffRow>& rows) {
  json.Key(key).BeginArray();
  for (const DiffRow& row : rows) {
    json.BeginObject()
        .Field("name", row.name)
        .Field("unit", row.unit)
        .Field("kind", KindName(row.kind))
        .Field("base", row.base)
        .Field("cand", row.cand)
        .Field("delta", row.delta);
    Optional(json, "delta_pct", row.delta_pct);
    Optional(json, "delta_pp", row.delta_pp);
    json.Field("n_base", row.n_base).Field("n_cand", row.n_cand);
    Optional(json, "p", row.p);
    json.Field("significant", row.significant)
        .Field("effect", EffectName(row.effect))
        .Field("note", row.note)
        .Field("beyond_floor", row.beyond_floor);
    Optional(json, "rolled_up_ns", row.rolled_up_ns);
    json.Field("decides", row.decides);
    json.Key("statistics");
    if (const auto& s = row.stats) {
      json.BeginObject();
      Interval(json, "base_median_ci", s->base_interval);
      Interval(json, "cand_median_ci", s->cand_interval);
      json.Field("hodges_lehmann_shift", s->shift.shift);
      Interval(json, "shift_ci", s->shift.interval);
      json.Field("test", s->test.method == MannWhitneyMethod::kExact ? "mann_whitney_exact"
                                                                     : "mann_whitney_normal")
          .EndObject();
    } else {
      json.Null();
    }
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace

std::string DiffToJson(const DiffResult& diff) {
  JsonWriter json;
  json.BeginObject().Field("schema", kDiffSchema).Field("delta", "cand - base");
  SideObject(json, "base", diff.base);
  SideObject(json, "cand", diff.cand);
  json.Key("options")
      .BeginObject()
      .Field("min_steps", diff.options.min_steps)
      .Field("alpha", diff.options.alpha)
      .Field("noise_floor_percent", diff.options.noise_floor_pct)
      .Field("noise_floor_source", diff.options.noise_floor_source)
      .Field("noise_floor_how", diff.options.noise_floor_how)
      .Field("noise_floor_pp", diff.options.noise_floor_pp)
      .Field("decide_percent_of_span", diff.options.decide_percent_of_span)
      .Field("allow_different", diff.options.allow_different)
      .Field("confidence", diff.options.confidence)
      .EndObject();
  json.Field("verdict", VerdictName(diff.verdict))
      .Field("verdict_reason", diff.verdict_reason)
      .Field("headline", diff.headline);
  json.Key("comparability").BeginObject().Field("refuse_all", diff.comparability.refuse_all);
  json.Field("refuse_components", diff.comparability.refuse_components)
      .Field("not_comparable", diff.comparability.not_comparable);
  for (auto [key, list] : {std::pair{"refusals", &diff.comparability.refusals},
                           std::pair{"warnings", &diff.comparability.warnings}}) {
    json.Key(key).BeginArray();
    for (const std::string& text : *list) json.String(text);
    json.EndArray();
  }
  json.EndObject();
  Rows(json, "metrics", diff.rows);
  Rows(json, "components", diff.components);
  json.Key("kernels").BeginArray();
  for (const KernelDiff& k : diff.kernels) {
    json.BeginObject()
        .Field("name", k.name)
        .Field("status", KernelChangeName(k.change))
        .Field("base_count", k.base.count)
        .Field("cand_count", k.cand.count)
        .Field("base_total_ns", k.base.total_ns)
        .Field("cand_total_ns", k.cand.total_ns)
        .Field("delta_ns", k.delta_ns)
        .Field("count_part_ns", k.count_part_ns)
        .Field("per_call_part_ns", k.per_call_part_ns)
        .Field("component", k.component);
    Optional(json, "p", k.p);
    Optional(json, "per_call_percent", k.per_call_pct);
    json.Field("significant", k.significant).Field("decides", k.decides).EndObject();
  }
  json.EndArray();
  json.Key("gates").BeginArray();
  for (const GateResult& gate : diff.gates) {
    json.BeginObject()
        .Field("gate", gate.spec)
        .Field("passed", gate.passed)
        .Field("why", gate.why)
        .EndObject();
  }
  json.EndArray().EndObject();
  return std::move(json).Take() + "\n";
}

}  // namespace stepstat
