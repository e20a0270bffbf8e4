// The header rows of nsys stats CSV reports: which report a header belongs to, its columns by
// name (never by position) and the units in their parenthesised suffixes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/read.h"

namespace stepstat {

/// The report kind of a header line seen raw (unparsed), or nullopt when it is none of the
/// nsys trace reports: cuda_gpu_trace/gputrace, cuda_kern_exec_trace, cuda_api_trace,
/// nvtx_pushpop_trace, nvtx_gpu_proj_trace.
std::optional<InputKind> ClassifyNsysCsvHeader(std::string_view raw_line);

/// For a header of an nsys summary report stepstat cannot use (cuda_kern_exec_sum,
/// nvtx_kern_sum, cuda_api_sum, ...): its report name, or "summary" when it is not known;
/// nullopt for anything else (cuda_gpu_kern_sum is a kind: ClassifyNsysCsvHeader).
std::optional<std::string> NsysUnusableSummaryReport(std::string_view raw_line);

/// Why summary report `report` (a name, or "summary") cannot stand in for a trace, and what
/// to export instead.
std::string SummaryIsNotATrace(std::string_view report);

/// "Start (ns)" → "Start", "Duration(nsec)" → "Duration", "Thru(MB/s)" → "Thru".
std::string_view ColumnBaseName(std::string_view header_name);

/// What is inside the trailing parentheses: "Start (ns)" → "ns"; empty when none.
std::string_view ColumnUnit(std::string_view header_name);

/// Powers of ten from a time unit to ns: ns/nsec 0, us/usec 3, ms/msec 6, s/sec 9.
std::optional<int> TimeUnitToNsExponent(std::string_view unit);

/// Powers of ten from a size unit to bytes: "" or B 0, KB 3, MB 6, GB 9 (decimal, as nsys).
std::optional<int> SizeUnitToBytesExponent(std::string_view unit);

/// The header row's columns, looked up by base name.
class CsvHeader {
 public:
  explicit CsvHeader(std::span<const std::string_view> fields);
  /// Index of the first column whose base name is one of `names`, or -1.
  int Find(std::initializer_list<std::string_view> names) const;
  const std::string& name(int column) const { return names_[static_cast<size_t>(column)]; }
  size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
};

}  // namespace stepstat
