// The JSON report writers on arbitrary bytes and doubles. Checks: a string literal and a whole
// report hold printable ASCII and newlines only (ensure_ascii: no raw control or non-ASCII
// byte ever reaches the output); simdjson parses both; a valid UTF-8 string reads back as
// itself; a finite double reads back exactly (repr's shortest round trip) and non-finite
// ones are spelled NaN / Infinity / -Infinity as json.dumps does.
#include <simdjson.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "report/json_writer.h"
#include "report/python_float.h"
#include "stepstat/report.h"

namespace {

void CheckPrintable(std::string_view json) {
  for (char c : json) {
    auto byte = static_cast<unsigned char>(c);
    FUZZ_CHECK((byte >= 0x20 && byte < 0x7f) || byte == '\n');
  }
}

simdjson::dom::element Parse(simdjson::dom::parser& parser, const std::string& json) {
  auto parsed = parser.parse(json);
  if (parsed.error() != simdjson::SUCCESS) {
    std::fprintf(stderr, "simdjson: %s in: %s\n", simdjson::error_message(parsed.error()),
                 json.substr(0, 400).c_str());
    std::abort();
  }
  return parsed.value();
}

void CheckDouble(double x) {
  std::string text = stepstat::PythonFloat(x);
  if (std::isnan(x)) {
    FUZZ_CHECK(text == "NaN");
    return;
  }
  if (std::isinf(x)) {
    FUZZ_CHECK(text == (x > 0 ? "Infinity" : "-Infinity"));
    return;
  }
  char* end = nullptr;
  double back = std::strtod(text.c_str(), &end);
  FUZZ_CHECK(end == text.c_str() + text.size());
  FUZZ_CHECK(std::memcmp(&back, &x, sizeof x) == 0 ||
             (back == 0 && x == 0 && std::signbit(back) == std::signbit(x)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < sizeof(double)) return 0;
  double x;
  std::memcpy(&x, data, sizeof x);
  CheckDouble(x);
  std::string_view text(reinterpret_cast<const char*>(data + sizeof x), size - sizeof x);

  simdjson::dom::parser parser;
  std::string literal;
  stepstat::AppendJsonString(text, &literal);
  CheckPrintable(literal);
  FUZZ_CHECK(literal.size() >= 2 && literal.front() == '"' && literal.back() == '"');
  std::string_view decoded;
  FUZZ_CHECK(Parse(parser, literal).get_string().get(decoded) == simdjson::SUCCESS);
  if (simdjson::validate_utf8(text.data(), text.size())) FUZZ_CHECK(decoded == text);

  stepstat::StepStats stats;
  stats.source_gpu_trace = std::string(text);
  stats.source_kernel_exec_trace = std::string(text.substr(0, text.size() / 2));
  stats.kernel_busy_percent_of_span = x;
  stats.gpu_span_ns = static_cast<int64_t>(size) * 1000003;
  stats.components.push_back(
      {std::string(text.substr(text.size() / 3)), std::string(text), 1, x, 2.5, 3});
  stats.components.push_back({"other", std::string(text.substr(0, 7)), 0, 0.0, 0.0, 0});
  std::string report = stepstat::StepStatsToJson(stats);
  CheckPrintable(report);
  // json.dumps writes NaN and Infinity, which strict JSON parsers refuse.
  if (std::isfinite(x)) {
    simdjson::dom::element root = Parse(parser, report);
    std::string_view source;
    FUZZ_CHECK(root["source_gpu_trace"].get_string().get(source) == simdjson::SUCCESS);
    if (simdjson::validate_utf8(text.data(), text.size())) FUZZ_CHECK(source == text);
  }
  return 0;
}
