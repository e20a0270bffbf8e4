// Start order, decided in one place. nsys writes rows sorted by start, and every streaming
// accumulator (a union, a gap meter, an overlap meter) needs them so. Every pass puts a
// StartOrderSink in front of its sinks: while the run knows no break, the stage watches each
// side (GPU operations by start, launch calls by API start) and stops the read at the first
// row that starts before the one before it, saying where (file, line). RunInStartOrder then
// runs the pass once more with its sinks holding their intervals and sorting them at the
// end (exact, memory growing with the rows), and the run's StartOrder remembers the break,
// so its later passes hold from the start instead of streaming into the same wall, and the
// break becomes a data-quality note. Nothing here relies on a reader sorting its rows.
//
// The kernel sequence of the period detector is ordered by (start, end), finer than this:
// it keeps its own check (steps/period/steps_period.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "stepstat/trace.h"

namespace stepstat {

/// Where a side's rows first went out of start order.
struct OrderBreak {
  std::string file;
  int64_t line = 0;  ///< the first row that starts before the row before it
  std::string rows;  ///< "GPU operations" or "launch calls"
};

/// The data-quality note for a break.
std::string OrderBreakNote(const OrderBreak& order_break);

/// The stage: passes every batch on to `next`. Unless `hold`, it checks each side's starts
/// and fails the read (OutOfStartOrder()) at the first row out of order, before `next` sees
/// its batch; broke() then says where. Without `stop_at_break` it only watches: it records
/// the first break and passes everything on (for a pass that copes with any order itself,
/// so that the run still learns where order broke).
class StartOrderSink : public TraceSink {
 public:
  StartOrderSink(TraceSink& next, std::string file, bool hold, bool stop_at_break = true)
      : next_(next), file_(std::move(file)), hold_(hold), stop_at_break_(stop_at_break) {}

  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override;
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override;
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    return next_.OnRanges(ranges, names);
  }
  Status OnFinish() override { return next_.OnFinish(); }
  TraceFields reads() const override {
    return TraceFields::Wrapping(next_.reads(), {TraceFields::kOpStart, TraceFields::kApiStart});
  }

  const std::optional<OrderBreak>& broke() const { return broke_; }

 private:
  /// Records the break; the status that stops the read, or Ok when only watching.
  Status Broke(int64_t line, const char* rows);

  TraceSink& next_;
  std::string file_;
  bool hold_;  ///< no (more) checking: holding, or a watched break was recorded
  bool stop_at_break_;
  // The latest start seen on each side; nullopt before its first row.
  std::optional<int64_t> ops_last_start_;
  std::optional<int64_t> calls_last_start_;
  std::optional<OrderBreak> broke_;
};

/// The status of a read the stage stopped.
Status OutOfStartOrder();
bool IsOutOfStartOrder(const Status& status);

/// What a run knows of its inputs' start order, kept across its passes. Used from one
/// thread: a pass that reads on two threads hands over its stages after the join.
class StartOrder {
 public:
  /// Whether passes must hold and sort: some input broke start order in an earlier pass.
  bool hold() const { return first_break_.has_value(); }
  const std::optional<OrderBreak>& first_break() const { return first_break_; }
  /// Takes what a finished (or stopped) read's stage saw (StartOrderSink::broke()).
  void Learn(const std::optional<OrderBreak>& stage_break);

 private:
  std::optional<OrderBreak> first_break_;
};

/// The one way a pass meets unsorted input: `pass(hold)` runs with hold() of `order`; when
/// its stages found a break (the run learned it during this pass), it runs once more with
/// hold true. `pass` must Learn() what every stage it made saw, also when its read failed.
template <typename T>
T RunInStartOrder(StartOrder& order, const std::function<T(bool hold)>& pass) {
  const bool held = order.hold();
  T result = pass(held);
  if (held || !order.hold()) return result;
  return pass(true);
}

}  // namespace stepstat
