// A file that holds both sides of a trace (GPU operations and the launch calls), read one
// side at a time: what a caller uses that reads the two sides on two threads, without
// knowing the format. Only a format read by queries (ReadByQueries in input_traits.h: the
// nsys SQLite export) has sides of its own; any other file is read whole.
#pragma once

#include "stepstat/read.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat {

/// How a reader that reads by queries puts a table in the order it needs. Either way the rows
/// a successful read hands on are the same, in the same order.
enum class TableScan {
  /// One pass over each table's key columns first says whether it is stored in order, a
  /// few rows out (a reorder window) or further (SQL's ORDER BY); then the read.
  kChecked,
  /// No pass first: each table is read as stored through the reorder window, its order
  /// checked while reading. A table further out of order fails the read midway, after rows
  /// went to the sink (in order, but maybe missing some): the caller drops what the read
  /// made and reads again with kChecked, which also reports whatever error the file has
  /// exactly as it always did. One walk of each table less where the file is in order.
  kAsStored,
};

/// The GPU side: GPU operations, then NVTX ranges, no launch calls; memory does not grow
/// with the trace. A file without sides of its own is read whole.
Result<ReadReport> ReadGpuSide(const TraceInput& input, TraceSink& sink,
                               TableScan scan = TableScan::kChecked);

/// The launch side on its own connection: the launch calls joined to their kernels (one per
/// launched kernel), in API start order. A file without sides of its own is read whole.
Result<ReadReport> ReadLaunchSide(const TraceInput& input, TraceSink& sink,
                                  TableScan scan = TableScan::kChecked);

}  // namespace stepstat
