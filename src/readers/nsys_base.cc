#include "readers/nsys_base.h"

#include <filesystem>
#include <initializer_list>
#include <system_error>

#include "stepstat/platform.h"

namespace stepstat {

namespace {

constexpr std::string_view kGpuTraceReports[] = {"_cuda_gpu_trace.csv", "_gputrace.csv"};
constexpr std::string_view kLaunchReports[] = {"_cuda_kern_exec_trace.csv", "_cuda_api_trace.csv"};
constexpr std::string_view kStepRangeReports[] = {"_nvtx_pushpop_trace.csv"};
// The byte source detects .gz and .zst by their magic; the names only say where to look.
constexpr std::string_view kCompressions[] = {"", ".gz", ".zst"};

bool IsFile(const std::string& name) {
  std::error_code ec;
  return std::filesystem::is_regular_file(PathFromUtf8(name), ec);
}

// The first of base + report + compression that is a file, the reports in their order.
template <size_t N>
std::optional<std::string> FirstExisting(const std::string& base,
                                         const std::string_view (&reports)[N]) {
  for (std::string_view report : reports) {
    for (std::string_view compression : kCompressions) {
      std::string name = base + std::string(report) + std::string(compression);
      if (IsFile(name)) return name;
    }
  }
  return std::nullopt;
}

// `name` without the first report + compression it ends in; nullopt when none.
template <size_t N>
std::optional<std::string> StripReport(std::string_view name,
                                       const std::string_view (&reports)[N]) {
  for (std::string_view report : reports) {
    for (std::string_view compression : kCompressions) {
      std::string suffix = std::string(report) + std::string(compression);
      if (name.size() > suffix.size() && name.ends_with(suffix)) {
        return std::string(name.substr(0, name.size() - suffix.size()));
      }
    }
  }
  return std::nullopt;
}

}  // namespace

NsysBaseFiles FindNsysBaseFiles(const std::string& base) {
  return {FirstExisting(base, kGpuTraceReports), FirstExisting(base, kLaunchReports),
          FirstExisting(base, kStepRangeReports)};
}

std::string NsysBaseOfGpuTrace(std::string_view name) {
  return StripReport(name, kGpuTraceReports).value_or("");
}

std::string RunNameOf(std::string_view file_name) {
  std::string name(file_name);
  for (const auto* reports : {&kGpuTraceReports, &kLaunchReports}) {
    if (auto base = StripReport(name, *reports)) return *base;
  }
  for (std::string_view end : {".gz", ".zst", ".json", ".pt.trace", ".sqlite", ".nsys-rep"}) {
    if (name.size() > end.size() && name.ends_with(end)) name.resize(name.size() - end.size());
  }
  return name;
}

}  // namespace stepstat
