#include "analysis/pipeline/trace_reads.h"

#include "analysis/pipeline/launched_kernels_sink.h"
#include "readers/input_traits.h"
#include "readers/read_sides.h"

namespace stepstat {

// One parse's records in the order the reader gave them, and its names with their ids.
// Each batch is kept in a vector of its own, sized to it: a vector per kind grown to the
// whole trace would, at each doubling, hold the old rows and the new at once (a peak near
// twice the records, every page of it touched), where batches of a few thousand rows add
// what they hold and no more.
struct TraceReads::Recording {
  enum class Kind { kOps, kCalls, kRanges };
  struct Batch {
    Kind kind;
    std::vector<GpuOp> ops;
    std::vector<LaunchCall> calls;
    std::vector<CpuRange> ranges;
  };
  StringPool names;
  std::vector<Batch> batches;
  ReadReport report;

  /// The copy calls were recorded for the sinks that ask for them; the others get none.
  Result<ReadReport> Replay(TraceSink& sink) const {
    const bool copy_calls = sink.reads().has(TraceFields::kCopyCalls);
    std::vector<LaunchCall> scratch;
    for (const Batch& batch : batches) {
      switch (batch.kind) {
        case Kind::kOps: RETURN_IF_ERROR(sink.OnGpuOps(batch.ops, names)); break;
        case Kind::kCalls: {
          std::span<const LaunchCall> kept = batch.calls;
          if (!copy_calls) kept = WithoutCopyCalls(kept, scratch);
          if (!kept.empty()) RETURN_IF_ERROR(sink.OnLaunchCalls(kept, names));
          break;
        }
        case Kind::kRanges: RETURN_IF_ERROR(sink.OnRanges(batch.ranges, names)); break;
      }
    }
    RETURN_IF_ERROR(sink.OnFinish());
    return report;
  }
};

namespace {

// Keeps a read's batches. The reader's names are copied in id order as they appear, so
// the kept pool hands out the very ids the rows carry (both pools start with "" as id 0).
class Recorder : public TraceSink {
 public:
  explicit Recorder(TraceReads::Recording& out) : out_(out) {}
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    Keep(ops, Kind::kOps, &Batch::ops, names);
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    Keep(calls, Kind::kCalls, &Batch::calls, names);
    return Status::Ok();
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    Keep(ranges, Kind::kRanges, &Batch::ranges, names);
    return Status::Ok();
  }
  /// Every field, and the copy calls, for whichever replay asks.
  TraceFields reads() const override {
    return TraceFields::All() | TraceFields{0, TraceFields::kCopyCalls};
  }

 private:
  using Kind = TraceReads::Recording::Kind;
  using Batch = TraceReads::Recording::Batch;
  template <typename T>
  void Keep(std::span<const T> rows, Kind kind, std::vector<T> Batch::*kept,
            const StringPool& names) {
    for (size_t id = out_.names.size(); id < names.size(); ++id) {
      out_.names.Intern(names.Get(static_cast<NameId>(id)));
    }
    Batch& batch = out_.batches.emplace_back();
    batch.kind = kind;
    (batch.*kept).assign(rows.begin(), rows.end());
  }
  TraceReads::Recording& out_;
};

}  // namespace

namespace {

// The same input: the same file or the same bytes in memory, read as the same kind under the
// same name.
bool SameInput(const TraceInput& a, const TraceInput& b) {
  const bool same_bytes =
      a.bytes.has_value() == b.bytes.has_value() &&
      (!a.bytes || (a.bytes->data() == b.bytes->data() && a.bytes->size() == b.bytes->size()));
  return same_bytes && a.path == b.path && a.kind == b.kind && a.display_name == b.display_name;
}

}  // namespace

TraceReads::TraceReads() = default;
TraceReads::~TraceReads() = default;

Result<const TraceReads::Recording*> TraceReads::RecordingOf(const TraceInput& input) {
  if (!ParsedOnceAndReplayed(input.kind)) return nullptr;
  for (const auto& [kept, recording] : recordings_) {
    if (SameInput(kept, input)) return recording.get();
  }
  auto recording = std::make_unique<Recording>();
  Recorder recorder(*recording);
  ASSIGN_OR_RETURN(recording->report, ReadInput(input, recorder));
  recordings_.emplace_back(input, std::move(recording));
  return recordings_.back().second.get();
}

bool TraceReads::Keeps(const TraceInput& input) const {
  for (const auto& [kept, recording] : recordings_) {
    if (SameInput(kept, input)) return true;
  }
  return false;
}

Result<ReadReport> TraceReads::Whole(const TraceInput& input, TraceSink& sink) {
  ASSIGN_OR_RETURN(const Recording* recording, RecordingOf(input));
  if (recording) return recording->Replay(sink);
  return ReadInput(input, sink);
}

Result<ReadReport> TraceReads::GpuSide(const TraceInput& input, TraceSink& sink) {
  if (ReadByQueries(input.kind)) return ReadGpuSide(input, sink);
  if (OpsAreItsLaunchRows(input.kind)) {
    LaunchedKernelsSink launched(sink, /*forward_launch_calls=*/false);
    return ReadInput(input, launched);
  }
  return Whole(input, sink);
}

Result<ReadReport> TraceReads::LaunchSide(const TraceInput& input, TraceSink& sink) {
  if (ReadByQueries(input.kind)) return ReadLaunchSide(input, sink);
  return Whole(input, sink);
}

}  // namespace stepstat
