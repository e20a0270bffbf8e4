// The two halves of ResolveInputs (step_stats.h), apart: INPUT names → files, then files →
// their roles in one summary. The engine puts inputs handed over in memory between them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stepstat/read.h"
#include "stepstat/step_stats.h"

namespace stepstat {

/// Each INPUT argument as a file (kind detected from content), or an nsys output base as its
/// gpu trace and, if present, its kern-exec (or api) trace.
Result<std::vector<TraceInput>> ResolveInputFiles(const std::vector<std::string>& args);

/// An input in memory named `name`, its kind detected from `bytes` (which must outlive the
/// returned input). SQLite exports and .nsys-rep are refused: they are read by path.
Result<TraceInput> InMemoryInput(const std::string& name, std::string_view bytes);

/// The GPU side and the launch side among `files`; an error for a second of either, for a
/// file that is not part of a summary (kern_sum, NVTX) and when no GPU side is found (named
/// after `first_name`, the first input, when not empty).
Result<SummaryInputs> AssignInputRoles(std::vector<TraceInput> files, std::string_view first_name);

}  // namespace stepstat
