#include "readers/input_sample.h"

#include <memory>
#include <string_view>

#include "io/byte_source.h"
#include "readers/csv/nsys_csv_table.h"
#include "readers/input_source.h"
#include "readers/input_traits.h"
#include "readers/kineto/kineto_devices.h"
#include "readers/sqlite/nsys_sqlite.h"

namespace stepstat {
namespace {

// A Kineto trace writes "ts" in µs; with ns clocks PyTorch writes a fraction ("ts":
// 1700000000123.456). The first "ts" values of the text stand in: none of kKinetoSample
// with a fraction means µs.
bool TimesInWholeMicroseconds(std::string_view view) {
  constexpr size_t kKinetoSample = 256;
  size_t seen = 0;
  for (size_t at = view.find("\"ts\""); at != std::string_view::npos && seen < kKinetoSample;
       at = view.find("\"ts\"", at + 4)) {
    size_t value = view.find_first_not_of(" \t\r\n:", at + 4);
    if (value == std::string_view::npos) break;
    size_t end = view.find_first_not_of("0123456789", value);
    if (end == value || end == std::string_view::npos) continue;  // a string, or cut off
    if (view[end] == '.' || view[end] == 'e' || view[end] == 'E') return false;
    ++seen;
  }
  return seen > 0;
}

// The reader parses a whole Kineto file before it emits an event, so the sample reads a
// prefix of the text instead.
Result<InputSample> SampleKinetoPrefix(const TraceInput& input) {
  constexpr size_t kMaxBytes = size_t{4} << 20;
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenInputSource(input));
  ASSIGN_OR_RETURN(std::string_view view, source->Next(0));
  while (view.size() < kMaxBytes && !source->exhausted()) {
    ASSIGN_OR_RETURN(view, source->Next(0));
  }
  InputSample sample;
  sample.whole_microseconds = TimesInWholeMicroseconds(view);
  sample.device_names = KinetoDevicesInPrefix(view);
  return sample;
}

}  // namespace

Result<InputSample> SampleInput(const TraceInput& input, int64_t kernel_rows) {
  if (ReadByQueries(input.kind)) {
    ASSIGN_OR_RETURN(KernelPlaces places,
                     SampleNsysSqliteKernelPlaces(input.path, input.display_name, kernel_rows));
    InputSample sample;
    sample.devices = places.devices;
    sample.processes = places.processes;
    sample.device_names = std::move(places.device_names);
    return sample;
  }
  if (IsPyTorchProfilerTrace(input.kind)) return SampleKinetoPrefix(input);
  return InputSample{};
}

Result<bool> DeclaresCoarseTimes(const TraceInput& input) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenInputSource(input));
  ASSIGN_OR_RETURN(auto table, NsysCsvTable::Open(*source, input.display_name, input.kind));
  int column = table->header().Find({"Start", "API Start"});
  if (column < 0) return false;
  ASSIGN_OR_RETURN(int exponent, table->TimeExponent(column));
  return exponent > 0;
}

}  // namespace stepstat
