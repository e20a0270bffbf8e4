// nvtx_pushpop_trace and nvtx_gpu_proj_trace CSV reports → CpuRange batches.
#pragma once

#include <string_view>

#include "io/byte_source.h"
#include "stepstat/read.h"
#include "stepstat/trace.h"

namespace stepstat {

/// Ranges carry CPU times: `Start`/`End` (or `Start` + `Duration`) of a push/pop trace, the
/// `Orig Start`/`Orig Duration` of a GPU projection (its `Projected` columns are GPU times).
/// Names are kept as nsys prints them (with a `domain:` prefix when it has one).
Result<ReadReport> ReadNsysNvtxTrace(ByteSource& source, std::string_view display_name,
                                     TraceSink& sink);

}  // namespace stepstat
