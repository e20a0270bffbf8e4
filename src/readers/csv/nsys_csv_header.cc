#include "readers/csv/nsys_csv_header.h"

#include <algorithm>
#include <span>

namespace stepstat {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Column names that only one report kind has; two of them make a header of that kind.
constexpr std::string_view kGpuTraceColumns[] = {
    "GrdX",    "GrdY",     "GrdZ",     "BlkX", "BlkY",     "BlkZ",       "Reg/Trd", "StcSMem",
    "DymSMem", "SrcMemKd", "DstMemKd", "Strm", "GreenCtx", "Throughput", "Thru"};
constexpr std::string_view kKernExecColumns[] = {
    "API Start",  "API Dur",   "Queue Start",  "Queue Dur", "Kernel Start",
    "Kernel Dur", "Total Dur", "API Function", "GridXYZ",   "BlockXYZ"};
constexpr std::string_view kApiTraceColumns[] = {"Result", "T-Pri", "Thread Name"};
constexpr std::string_view kNvtxColumns[] = {
    "Projected Start", "Projected Duration", "Orig Start", "DurChild", "DurNonChild",
    "RangeStack",      "NameTree",           "RangeId",    "ParentId", "NumChild"};

int CountIn(const std::vector<std::string_view>& names, std::span<const std::string_view> set) {
  int count = 0;
  for (std::string_view name : names) {
    if (std::find(set.begin(), set.end(), name) != set.end()) ++count;
  }
  return count;
}

bool Has(const std::vector<std::string_view>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Column base names of a raw header line; empty when it cannot be a header (quotes).
std::vector<std::string_view> HeaderNames(std::string_view raw_line) {
  // Header names never hold commas or quotes; a line that has quotes is data or a log line.
  if (raw_line.find('"') != std::string_view::npos) return {};
  std::vector<std::string_view> names;
  while (true) {
    size_t comma = raw_line.find(',');
    names.push_back(ColumnBaseName(raw_line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    raw_line.remove_prefix(comma + 1);
  }
  return names;
}

// cuda_gpu_kern_sum: "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),
// StdDev (ns),Name". nvtx_sum has Instances too, but names ranges in `Range`.
bool IsGpuKernSum(const std::vector<std::string_view>& names) {
  return Has(names, "Instances") && Has(names, "Total Time") && Has(names, "Name") &&
         !Has(names, "Range") && !Has(names, "Operation");
}

}  // namespace

std::optional<std::string> NsysUnusableSummaryReport(std::string_view raw_line) {
  std::vector<std::string_view> names = HeaderNames(raw_line);
  if (names.size() < 3 || IsGpuKernSum(names)) return std::nullopt;
  if (Has(names, "KAvg") && Has(names, "TAvg")) return "cuda_kern_exec_sum";
  if (Has(names, "NVTX Range") && Has(names, "Kern Inst")) return "nvtx_kern_sum";
  if (Has(names, "Num Calls")) return "cuda_api_sum";
  if (Has(names, "Med") && Has(names, "StdDev")) return "summary";
  return std::nullopt;
}

std::string SummaryIsNotATrace(std::string_view report) {
  const bool kern_sum = report == "cuda_gpu_kern_sum";
  return (report == "summary" ? std::string("an nsys summary report")
                              : "an nsys " + std::string(report) + " summary report") +
         " holds totals, not the trace that summarize and steps need: export cuda_gpu_trace "
         "(nsys stats --report cuda_gpu_trace,cuda_kern_exec_trace --format csv --output run "
         "report.nsys-rep)" +
         (kern_sum ? "; `stepstat classify` reads this one"
                   : "; `stepstat classify` reads a cuda_gpu_kern_sum report");
}

std::string_view ColumnBaseName(std::string_view header_name) {
  std::string_view name = Trim(header_name);
  if (!name.empty() && name.back() == ')') {
    size_t open = name.rfind('(');
    if (open != std::string_view::npos) name = Trim(name.substr(0, open));
  }
  return name;
}

std::string_view ColumnUnit(std::string_view header_name) {
  std::string_view name = Trim(header_name);
  if (name.empty() || name.back() != ')') return {};
  size_t open = name.rfind('(');
  if (open == std::string_view::npos) return {};
  return Trim(name.substr(open + 1, name.size() - open - 2));
}

std::optional<int> TimeUnitToNsExponent(std::string_view unit) {
  if (unit == "ns" || unit == "nsec") return 0;
  if (unit == "us" || unit == "usec") return 3;
  if (unit == "ms" || unit == "msec") return 6;
  if (unit == "s" || unit == "sec") return 9;
  return std::nullopt;
}

std::optional<int> SizeUnitToBytesExponent(std::string_view unit) {
  if (unit.empty() || unit == "B") return 0;
  if (unit == "KB") return 3;
  if (unit == "MB") return 6;
  if (unit == "GB") return 9;
  return std::nullopt;
}

std::optional<InputKind> ClassifyNsysCsvHeader(std::string_view raw_line) {
  std::vector<std::string_view> names = HeaderNames(raw_line);
  if (names.size() < 3) return std::nullopt;
  if (IsGpuKernSum(names)) return InputKind::kNsysGpuKernSumCsv;
  if (CountIn(names, kKernExecColumns) >= 2) return InputKind::kNsysKernExecTraceCsv;
  if (CountIn(names, kGpuTraceColumns) >= 2) return InputKind::kNsysGpuTraceCsv;
  if (CountIn(names, kNvtxColumns) >= 2) return InputKind::kNsysNvtxTraceCsv;
  if (CountIn(names, kApiTraceColumns) >= 2) return InputKind::kNsysApiTraceCsv;
  return std::nullopt;
}

CsvHeader::CsvHeader(std::span<const std::string_view> fields) {
  names_.reserve(fields.size());
  for (std::string_view field : fields) names_.emplace_back(Trim(field));
}

int CsvHeader::Find(std::initializer_list<std::string_view> names) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    std::string_view base = ColumnBaseName(names_[i]);
    for (std::string_view name : names) {
      if (base == name) return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace stepstat
