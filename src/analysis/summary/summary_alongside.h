// The summary with details of an nsys CSV pair (a GPU trace and a launch trace), or of a
// trace whose parse is kept and replayed side by side (Kineto, trace_reads.h), made by
// sinks that another pass's two reader threads feed: `stepstat report`'s steps already read
// both sides at once, in start order, so the page's summary rides on that read instead of
// reading them again (engine_report.cc). Then the exact spreads of the kernels the
// details list, from a later read of the GPU side (the steps' residue pass).
//
// Threads: the GPU side's sinks are fed by the thread that reads the GPU side and the launch
// side's by the launch reader, as in the summary's own pass (summarize.cc); they share one
// LaunchKeyMatcher, which locks for a batch and never waits, and one OverlapMeter that is
// unbounded here, so neither side ever waits on it: it cannot add a wait to the steps'
// own pass (whose StepOverlapMeter alone bounds how far one reader runs ahead, and so what
// this meter holds, but for launch calls outside every step, which that meter does not
// see). Everything else (Completed, Finish, the spreads) runs on the calling thread after
// the pass's join.
//
// The sinks never fail the pass they ride on: a batch they cannot take marks the summary
// failed (the caller then summarizes the pair on its own, which says what is wrong), so the
// steps read exactly as they would without them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stepstat/details.h"
#include "stepstat/policy.h"
#include "stepstat/step_stats.h"
#include "stepstat/trace.h"

namespace stepstat {

class SummaryAlongside {
 public:
  /// Whether `inputs` are what this can summarize as SummarizeWithDetails would: an nsys
  /// CSV GPU trace with a CSV launch trace beside it, or one kept trace; every device.
  static bool Fits(const SummaryInputs& inputs);
  /// Requires Fits(inputs). `policy` must outlive this.
  static Result<std::unique_ptr<SummaryAlongside>> Create(const SummaryInputs& inputs,
                                                          const Policy& policy);
  ~SummaryAlongside();
  SummaryAlongside(const SummaryAlongside&) = delete;
  SummaryAlongside& operator=(const SummaryAlongside&) = delete;

  /// Whether a pass over `trace` should feed the sinks: none has yet, and `trace` is the
  /// pair this summarizes (the same files as the same kinds).
  bool Wants(const SummaryInputs& trace) const;
  /// The sinks of the GPU side and the launch side, each for one thread, in start order
  /// (behind the pass's start-order stage). Asking for them marks the sinks fed.
  TraceSink& gpu_side();
  TraceSink& launch_side();
  /// The pass read both files whole, in start order (no row was out of order), and these are
  /// what the files held; without this call the summary is not complete.
  void Completed(const ReadReport& gpu, const ReadReport& launches);

  /// A sink for one more read of the GPU side, in file order, that keeps the durations of
  /// the kernels the details list; null when the summary is not complete (or failed). Asked
  /// again (a read that starts over), it starts afresh.
  TraceSink* SpreadsSink();

  /// The summary and its details, as SummarizeWithDetails gives them for the pair, and the
  /// spreads of KernelSpreadsOf; nullopt when the ride did not complete (a failed batch,
  /// rows out of start order, no spreads read): summarize on its own then.
  struct Summary {
    StepStats stats;
    Details details;
    std::vector<KernelSpread> spreads;
    std::vector<KernelDetails> kernel_totals;  ///< for the policy hint (KernelTotalsOf)
  };
  std::optional<Summary> Take();

 private:
  struct Sides;  // summary_alongside.cc
  explicit SummaryAlongside(std::unique_ptr<Sides> sides);
  // The details once the pass completed (made once, on the calling thread).
  const Details* DetailsOnce();

  std::unique_ptr<Sides> sides_;
  bool fed_ = false;
};

}  // namespace stepstat
