// `--fail-if-slower PCT` and `--fail-if METRIC:LIMIT`: parsed here so every face words the
// errors alike; a gate fails only on a significant change past its limit.
#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "compare/diff_internal.h"

namespace stepstat {
namespace {

/// "+5", "-0.5", "5": a signed number (no sign means +).
std::optional<double> ParseSigned(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);
  double value;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string Signed(double value) { return fmt::format("{:+g}", value); }

}  // namespace

Result<GateSpec> ParseGate(std::string_view spec) {
  GateSpec gate;
  gate.text = std::string(spec);
  size_t colon = spec.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == spec.size()) {
    return Status::Error(fmt::format(
        "gate \"{}\": expected METRIC:LIMIT, e.g. gpu_span_ns:+5% or launch_gaps.total_ns:+2ms",
        spec));
  }
  gate.metric = std::string(spec.substr(0, colon));
  std::string_view limit = spec.substr(colon + 1);
  const MetricInfo info = DescribeMetric(gate.metric);
  if (limit == "changed") {
    gate.limit = GateSpec::Limit::kChanged;
    return gate;
  }
  static constexpr std::pair<std::string_view, double> kTimeUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  std::string_view number = limit;
  if (limit.ends_with("pp")) {
    gate.limit = GateSpec::Limit::kPoints;
    number.remove_suffix(2);
  } else if (limit.ends_with('%')) {
    gate.limit = GateSpec::Limit::kPercent;
    number.remove_suffix(1);
  } else {
    gate.limit = GateSpec::Limit::kAbsolute;
    double scale = 1;
    for (auto [unit, ns] : kTimeUnits) {  // "ms" before "s": the first suffix that fits wins
      if (limit.ends_with(unit) && limit.size() > unit.size() &&
          !std::isalpha(uint8_t(limit[limit.size() - unit.size() - 1]))) {
        if (info.kind != MetricKind::kTime) {
          return Status::Error(fmt::format("gate \"{}\": {} is not a time, so no {} limit", spec,
                                           gate.metric, unit));
        }
        scale = ns / (info.unit == "ms" ? 1e6 : 1);
        number.remove_suffix(unit.size());
        break;
      }
    }
    if (scale == 1 && number == limit && info.kind == MetricKind::kTime) {
      return Status::Error(
          fmt::format("gate \"{}\": a time limit needs a unit (ns, us, ms, s) or %", spec));
    }
    if (auto value = ParseSigned(number))
      gate.value = *value * scale;
    else
      return Status::Error(fmt::format("gate \"{}\": \"{}\" is not a number", spec, limit));
    return gate;
  }
  auto value = ParseSigned(number);
  if (!value) {
    return Status::Error(fmt::format(
        "gate \"{}\": limit \"{}\" is not +N%, +N<ns|us|ms|s>, +Npp, +N or changed", spec, limit));
  }
  gate.value = *value;
  if (gate.limit == GateSpec::Limit::kPoints && info.kind != MetricKind::kShare) {
    return Status::Error(
        fmt::format("gate \"{}\": {} is not a share, so no pp limit (use %)", spec, gate.metric));
  }
  if (gate.limit == GateSpec::Limit::kPercent && info.kind == MetricKind::kShare) {
    return Status::Error(fmt::format(
        "gate \"{}\": {} is a share: give its limit in percentage points (pp)", spec, gate.metric));
  }
  return gate;
}

Result<GateSpec> SlowerGate(std::string_view percent) {
  std::string spec = fmt::format("gpu_span_ns:+{}%", percent);
  ASSIGN_OR_RETURN(GateSpec gate, ParseGate(spec));
  gate.text = fmt::format("--fail-if-slower {}", percent);
  return gate;
}

GateResult EvaluateGate(const GateSpec& gate, const DiffRow* row, const std::string& refused,
                        double alpha) {
  GateResult result{gate.text, true, ""};
  if (!row) {
    result.passed = false;
    result.why = fmt::format("{} was not compared: {}", gate.metric, refused);
    return result;
  }
  // The gate's own limit, not the noise floor: a user asking for 0.5 % means 0.5 %. What
  // must hold is that the change is real: p < alpha when tested; counts are exact; a whole
  // run a side has no test, so a change past the limit fails (closed) and says so.
  const bool tested = row->p.has_value() && row->kind != MetricKind::kCount;
  const bool real = tested ? *row->p < alpha : row->delta != 0;
  const std::string evidence =
      tested ? fmt::format(" (p = {:.3g})", *row->p)
             : (row->kind == MetricKind::kCount ? "" : " (one run a side: no significance test)");
  double measure = row->delta;
  std::string unit = row->unit;
  switch (gate.limit) {
    case GateSpec::Limit::kChanged:
      result.passed = !real;
      result.why = real ? fmt::format("changed by {} {}{}", Signed(row->delta), row->unit, evidence)
                        : fmt::format("no significant change{}", evidence);
      return result;
    case GateSpec::Limit::kPercent:
      if (!row->delta_pct) {
        result.passed = row->delta == 0;
        result.why = result.passed ? "base and cand are both 0"
                                   : "base is 0, so any change is past a % limit";
        return result;
      }
      measure = *row->delta_pct;
      unit = "%";
      break;
    case GateSpec::Limit::kPoints: unit = "pp"; break;
    case GateSpec::Limit::kAbsolute: break;
  }
  const bool past = gate.value >= 0 ? measure > gate.value : measure < gate.value;
  result.passed = !(past && real);
  if (!past) {
    result.why = fmt::format("{:+.2f} {}{} is within the limit {} {}", measure, unit, evidence,
                             Signed(gate.value), unit);
  } else if (real) {
    result.why = fmt::format("{:+.2f} {}{} is past the limit {} {}", measure, unit, evidence,
                             Signed(gate.value), unit);
  } else {
    result.why = fmt::format("{:+.2f} {} is past the limit {} {} but not significant{}", measure,
                             unit, Signed(gate.value), unit, evidence);
  }
  return result;
}

}  // namespace stepstat
