// The Kineto (PyTorch profiler) JSON reader on arbitrary documents, in memory. Checks: ops,
// calls and ranges keep trace.h's promises and arrive sorted by start as kineto_json.h says;
// errors follow the message rules; the input text is left as it was; sorting through
// spilled runs (a buffer of a few records) gives what the in-memory sort gives, byte for byte,
// with the document cut into chunks of ~64 bytes where it can be, parsed on two threads; a
// sink that reads only the summary's fields (no launch join) gets the same result on those
// fields, each call once.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "readers/kineto/kineto_json.h"
#include "readers/kineto/kineto_json_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string original(reinterpret_cast<const char*>(data), size);
  std::string json = original;
  stepstat::fuzz::CheckingSink sink(/*sorted=*/true);
  stepstat::Result<stepstat::ReadReport> report =
      stepstat::ParseKinetoJson(json, "fuzz.json", sink);
  FUZZ_CHECK(json == original);  // "its contents stay as they are"
  std::string spilled_json = original;
  stepstat::fuzz::CheckingSink spilled_sink(/*sorted=*/true);
  stepstat::Result<stepstat::ReadReport> spilled = stepstat::kineto::ParseKinetoJsonWith(
      spilled_json, "fuzz.json", spilled_sink, stepstat::SpillOptions{200, {}, nullptr},
      stepstat::kineto::ChunkOptions{64, 2});
  FUZZ_CHECK(spilled.ok() == report.ok());
  if (!report.ok()) FUZZ_CHECK(spilled.status().message() == report.status().message());
  if (report.ok()) FUZZ_CHECK(spilled_sink.digest() == sink.digest());
  if (!report.ok()) {
    stepstat::fuzz::CheckErrorMessage(report.status(), "fuzz.json");
    return 0;
  }
  FUZZ_CHECK(report->kind == stepstat::InputKind::kKinetoJson);
  FUZZ_CHECK(report->rows >= 0);

  using stepstat::TraceFields;
  constexpr TraceFields kSummaryFields{
      TraceFields::kOpStart | TraceFields::kOpDuration | TraceFields::kOpName,
      TraceFields::kApiStart | TraceFields::kApiDuration};
  auto read_kept = [&](TraceFields fields) {
    std::string text = original;
    stepstat::fuzz::CheckingSink kept_sink(/*sorted=*/true);
    kept_sink.fields = fields;
    kept_sink.kept = kSummaryFields;
    kept_sink.collapse_repeated_calls = true;
    stepstat::Result<stepstat::ReadReport> read =
        stepstat::ParseKinetoJson(text, "fuzz.json", kept_sink);
    FUZZ_CHECK(read.ok());  // the same document read whole a moment ago
    return kept_sink.digest();
  };
  FUZZ_CHECK(read_kept(kSummaryFields) == read_kept(TraceFields::All()));
  return 0;
}
