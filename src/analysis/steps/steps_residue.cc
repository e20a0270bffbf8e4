#include "analysis/steps/steps_residue.h"

#include <algorithm>

#include "analysis/pipeline/tee_sink.h"
#include "analysis/steps/steps_attribution.h"

namespace stepstat {

namespace {

int64_t Intersection(const Interval& a, const Interval& b) {
  return std::max<int64_t>(0, std::min(a.end, b.end) - std::max(a.start, b.start));
}

}  // namespace

ResidueMeter::ResidueMeter(const StepsReport& report) : report_(report) {
  std::vector<Interval> spans;
  for (const StepRecord& step : report.steps) {
    const StepTotals& t = step.totals;
    if (t.operation_count > 0) spans.push_back({t.first_start_ns, t.last_end_ns});
  }
  spans_ = UnionOf(std::move(spans));
  own_.resize(report.steps.size());
}

void ResidueMeter::Add(int32_t step, const Interval& op, bool kernel) {
  first_start_ = seen_ ? std::min(first_start_, op.start) : op.start;
  last_end_ = seen_ ? std::max(last_end_, op.end) : op.end;
  seen_ = true;
  last_start_ = op.start;
  if (step == kUnlaunched) AddUnlaunched(op);
  if (!kernel) return;

  if (!group_start_ || op.start != *group_start_) {
    FinishStartGroup();
    group_start_ = op.start;
    if (gpu_open_ && op.start > gpu_open_->end)
      pending_gap_ = PendingGap{{gpu_open_->end, op.start}};
  }
  if (step >= 0) {
    // A gap of the step's own kernels is the whole trace's gap exactly when nothing else ran
    // in it; it then ends at this start group, where pending_gap_ is that whole-trace gap.
    OwnUnion& own = own_[static_cast<size_t>(step)];
    if (own.seen && op.start > own.end) {
      Interval gap{own.end, op.start};
      if (pending_gap_ && !pending_gap_->matched && pending_gap_->gap == gap) {
        pending_gap_->matched = true;
      } else {
        ++residue_.filled_step_gap_count;
        residue_.filled_step_gap_ns += gap.length();
      }
    }
    own.end = own.seen ? std::max(own.end, op.end) : op.end;
    own.seen = true;
    if (auto closed = step_kernels_.Add(op.start, op.end)) step_kernels_busy_ += closed->length();
  }
  if (!gpu_open_) {
    gpu_open_ = op;
  } else if (op.start > gpu_open_->end) {
    CloseGpuComponent(*gpu_open_);
    gpu_open_ = op;
  } else {
    gpu_open_->end = std::max(gpu_open_->end, op.end);
  }
}

void ResidueMeter::AddUnlaunched(const Interval& op) {
  unlaunched_first_ = unlaunched_seen_ ? std::min(unlaunched_first_, op.start) : op.start;
  unlaunched_last_end_ = unlaunched_seen_ ? std::max(unlaunched_last_end_, op.end) : op.end;
  unlaunched_seen_ = true;
  if (auto closed = unlaunched_union_.Add(op.start, op.end)) unlaunched_busy_ += closed->length();
}

// Splits a component of the union of every kernel between the steps' spans and the three
// residue places.
void ResidueMeter::CloseGpuComponent(const Interval& c) {
  if (spans_.empty()) {
    busy_before_ += c.length();
    return;
  }
  while (span_cursor_ < spans_.size() && spans_[span_cursor_].end <= c.start) ++span_cursor_;
  int64_t in_spans = 0;
  for (size_t j = span_cursor_; j < spans_.size() && spans_[j].start < c.end; ++j) {
    in_spans += Intersection(spans_[j], c);
  }
  int64_t before = std::max<int64_t>(0, std::min(c.end, spans_.front().start) - c.start);
  int64_t after = std::max<int64_t>(0, c.end - std::max(c.start, spans_.back().end));
  busy_in_spans_ += in_spans;
  busy_before_ += before;
  busy_after_ += after;
  busy_between_ += c.length() - in_spans - before - after;
}

void ResidueMeter::FinishStartGroup() {
  if (pending_gap_ && !pending_gap_->matched) {
    ResiduePart& part = PartOf(pending_gap_->gap);
    ++part.gap_count;
    part.gap_total_ns += pending_gap_->gap.length();
  }
  pending_gap_.reset();
}

ResiduePart& ResidueMeter::PartOf(const Interval& gap) {
  if (spans_.empty() || gap.end <= spans_.front().start) return residue_.before_first;
  if (gap.start >= spans_.back().end) return residue_.after_last;
  return residue_.between_steps;
}

StepsResidue ResidueMeter::Finish() {
  FinishStartGroup();
  if (gpu_open_) CloseGpuComponent(*gpu_open_);
  gpu_open_.reset();
  if (auto last = step_kernels_.Finish()) step_kernels_busy_ += last->length();
  if (auto last = unlaunched_union_.Finish()) unlaunched_busy_ += last->length();

  StepsResidue& r = residue_;
  r.gpu_span_ns = seen_ ? last_end_ - first_start_ : 0;
  if (spans_.empty()) {
    r.before_first.span_ns = r.gpu_span_ns;
  } else {
    r.before_first.span_ns = spans_.front().start - first_start_;
    r.after_last.span_ns = last_end_ - spans_.back().end;
    for (size_t i = 0; i + 1 < spans_.size(); ++i) {
      r.between_steps.span_ns += spans_[i + 1].start - spans_[i].end;
    }
  }
  r.before_first.idle_ns = r.before_first.span_ns - busy_before_;
  r.between_steps.idle_ns = r.between_steps.span_ns - busy_between_;
  r.after_last.idle_ns = r.after_last.span_ns - busy_after_;

  int64_t step_spans = 0, step_busy = 0;
  for (const StepRecord& step : report_.steps) {
    const StepTotals& t = step.totals;
    if (t.operation_count > 0) step_spans += t.last_end_ns - t.first_start_ns;
    step_busy += t.kernel_busy_ns;
  }
  r.steps_overlap_ns = step_spans - TotalLength(spans_);
  r.concurrent_step_kernels_ns = step_busy - step_kernels_busy_;
  r.outside_kernels_in_steps_ns = busy_in_spans_ - step_kernels_busy_;
  r.unlaunched = report_.residue.unlaunched;  // the counts, from the steps' pass
  if (unlaunched_seen_) {
    r.unlaunched.span_ns = unlaunched_last_end_ - unlaunched_first_;
    r.unlaunched.idle_ns = r.unlaunched.span_ns - unlaunched_busy_;
  }
  // The steps' pass checked that the sum fits (CountUnlaunched).
  r.kernel_time_ns = report_.outside.kernel_time_ns + r.unlaunched.kernel_time_ns;
  return r;
}

namespace {

struct HeldOp {
  Interval interval;
  int32_t step;
  bool kernel;
};

class ResidueSink : public TraceSink {
 public:
  ResidueSink(ResidueMeter& meter, const Plan& plan, bool hold)
      : meter_(meter), plan_(plan), hold_(hold) {}
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    for (const GpuOp& op : ops) {
      HeldOp held{{op.start_ns, op.end_ns()}, plan_.op_step(op), op.kind == OpKind::kKernel};
      if (hold_) {
        held_.push_back(held);
      } else if (!meter_.InOrder(op.start_ns)) {  // the start-order stage saw to it
        return ErrorAt("GPU operations", op.line,
                       "internal error: a row out of start order passed the stage");
      } else {
        meter_.Add(held.step, held.interval, held.kernel);
      }
    }
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  // Each operation's interval and kind (the readers always give the kind), and what its
  // step is found by: the start, or the correlation id that keys its launch call (steps.cc).
  TraceFields reads() const override {
    return {TraceFields::kOpStart | TraceFields::kOpDuration | TraceFields::kOpCorrelation, 0};
  }
  // Feeds what was held, in start order.
  Status OnFinish() override {
    std::stable_sort(held_.begin(), held_.end(), [](const HeldOp& a, const HeldOp& b) {
      return a.interval.start < b.interval.start;
    });
    for (const HeldOp& op : held_) meter_.Add(op.step, op.interval, op.kernel);
    held_ = {};
    return Status::Ok();
  }

 private:
  ResidueMeter& meter_;
  const Plan& plan_;
  bool hold_;
  std::vector<HeldOp> held_;
};

}  // namespace

Result<StepsResidue> MeasureResidue(const StepsInputs& inputs, const Plan& plan,
                                    const StepsReport& report, StepsPasses& passes,
                                    const std::function<TraceSink*()>& alongside,
                                    ReadReport* gpu_read) {
  return RunInStartOrder<Result<StepsResidue>>(
      passes.order, [&](bool hold) -> Result<StepsResidue> {
        ResidueMeter meter(report);
        ResidueSink sink(meter, plan, hold);
        StartOrderSink in_order(sink, inputs.trace.gpu.display_name, hold);
        TeeSink both{alongside ? alongside() : nullptr, &in_order};
        Result<ReadReport> read = passes.reads.GpuSide(inputs.trace.gpu, both);
        passes.order.Learn(in_order.broke());
        RETURN_IF_ERROR(read.status());  // the read finished the sink: what it held is fed
        if (gpu_read) *gpu_read = std::move(read.value());
        return meter.Finish();
      });
}

void SetPeriods(StepsReport& report) {
  StepRecord* previous = nullptr;
  for (StepRecord& step : report.steps) {
    step.period_ns = -1;
    if (step.totals.operation_count == 0) continue;
    if (previous)
      previous->period_ns = step.totals.first_start_ns - previous->totals.first_start_ns;
    previous = &step;
  }
}

}  // namespace stepstat
