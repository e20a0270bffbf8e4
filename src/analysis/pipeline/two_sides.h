// Reading the two sides of a trace at once: the GPU side on the calling thread, the launch
// side on one new thread. The summary and the steps pipelines both read through here; it is
// the only place in the analysis that starts a thread.
//
// Concurrency contract (what each thread owns, what can block, why nothing waits in a
// cycle):
//  - The calling thread runs `gpu_side`; the launch thread runs `launch_side`. Each side
//    function owns its reader, its sinks and the one meter producer of its side (sinks are
//    handed their producer; MeterProducer stops the process if a second thread adds
//    through it). The two threads share nothing but the meter, which locks, the two
//    result slots below, which each thread writes before it returns and the caller reads
//    after the join, and, for a trace whose parse is kept (trace_reads.h), what was kept:
//    read only, from a scratch file whose lock is held for one seek and read at a time.
//  - What can block: a producer's Add, while its side is further ahead of the other than
//    the meter's bound; and the join. An empty Add, Close and Abort never block.
//  - Why no two waits wait for each other: a meter lets at most one producer wait, and only
//    for the other producer's next Add, Close or an Abort (see the meters' opening comments).
//    Every side function ends by closing its producer (the sinks' destructors close it, on
//    every path), and a side that fails aborts the meter first, so a waiting producer is
//    always released by the other side's progress, end or failure. The join waits for the
//    launch thread only after the calling thread's own side has returned and closed its
//    producer, so the launch thread cannot be waiting for the caller then.
#pragma once

#include <functional>

#include "stepstat/status.h"

namespace stepstat {

struct SideStatuses {
  Status gpu;
  Status launch;
};

/// Runs `gpu_side` here and `launch_side` on a new thread; returns once both returned.
/// `abort` (the meter's Abort) runs as soon as either side fails, on that side's thread.
SideStatuses ReadBothSides(const std::function<Status()>& gpu_side,
                           const std::function<Status()>& launch_side,
                           const std::function<void()>& abort);

/// The failure to report: the first side's own error, not the "cancelled" that an Abort
/// made of the other side. Ok when both succeeded.
Status FirstFailure(const SideStatuses& statuses);

/// The status a sink returns when the other side failed and this one stops early.
Status CancelledByOtherSide();
bool IsCancelledByOtherSide(const Status& status);

}  // namespace stepstat
