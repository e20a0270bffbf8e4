// The Kineto (PyTorch profiler) JSON reader on arbitrary documents, in memory. Checks: ops,
// calls and ranges keep trace.h's promises and arrive sorted by start as kineto_json.h says;
// errors follow the message rules; the input text is left as it was.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "readers/kineto_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string original(reinterpret_cast<const char*>(data), size);
  std::string json = original;
  stepstat::fuzz::CheckingSink sink(/*sorted=*/true);
  stepstat::Result<stepstat::ReadReport> report =
      stepstat::ParseKinetoJson(json, "fuzz.json", sink);
  FUZZ_CHECK(json == original);  // "its contents stay as they are"
  if (!report.ok()) {
    stepstat::fuzz::CheckErrorMessage(report.status(), "fuzz.json");
    return 0;
  }
  FUZZ_CHECK(report->kind == stepstat::InputKind::kKinetoJson);
  FUZZ_CHECK(report->rows >= 0);
  return 0;
}
