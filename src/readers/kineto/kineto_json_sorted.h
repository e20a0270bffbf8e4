// The Kineto reader's second half in bounded memory: the records of each parsed chunk go
// into external sorters (spilled_sort.h) as compact fixed-size records; at the end the GPU
// ops come out by start, the launch calls are joined to their kernels by correlation id (both
// sides sorted by id, merge-joined) and come out by API start, then the CPU ranges by start.
// Ties keep file order: every record carries its sequence number in the file.
//
// A pass that reads none of a call's kernel fields (TraceFields) is spared the join: each
// call is handed out once, alone, and the kernels are not sorted by id at all.
//
// Kineto writes baseTimeNanoseconds and deviceProperties after the events, so the records
// keep times relative to the base and device indexes until they are emitted; the overflow
// check of `ts + dur + base` names the first offending event in file order, as before.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "readers/kineto/kineto_json_internal.h"
#include "readers/spilled_sort.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat::kineto {

class SortedRecords {
 public:
  /// `fields`: what the sink reads (TraceSink::reads).
  SortedRecords(const SpillOptions& options, std::string_view display_name, TraceFields fields);
  SortedRecords(const SortedRecords&) = delete;
  SortedRecords& operator=(const SortedRecords&) = delete;
  ~SortedRecords();

  /// Moves the records of `records` (lines resolved, each vector in file order, after those
  /// taken before) into the sorters and clears its vectors.
  Status Take(Records& records);

  /// Checks the times against the base, names the devices (from `records`' device keys and
  /// names), joins and hands everything to `sink` in batches: GPU ops by start, launch calls
  /// by API start, CPU ranges by start. Once.
  Status Emit(const Records& records, StringPool& pool, TraceSink& sink);

  /// Defined in the .cc only.
  struct Sorters;
  struct JoinedCall;

 private:
  /// Joins the launch calls to their kernels by correlation id, handing `out` each call
  /// (once per kernel) in correlation order, then drops both sides.
  Status Join(const std::vector<NameId>& devices, NameId unknown_kernel, int64_t base,
              const std::function<Status(const JoinedCall&)>& out);
  std::unique_ptr<Sorters> sorters_;
  std::string_view display_name_;
  TraceFields fields_;
  bool join_kernels_;  ///< whether the sink reads a field the join fills
};

}  // namespace stepstat::kineto
