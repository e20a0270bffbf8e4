#include "analysis/pipeline/trace_reads.h"

#include "analysis/pipeline/launched_kernels_sink.h"
#include "readers/input_traits.h"
#include "readers/read_sides.h"

namespace stepstat {

// One parse's records in the order the reader gave them, and its names with their ids.
struct TraceReads::Recording {
  enum class Kind { kOps, kCalls, kRanges };
  struct Batch {
    Kind kind;
    size_t begin, end;
  };
  StringPool names;
  std::vector<GpuOp> ops;
  std::vector<LaunchCall> calls;
  std::vector<CpuRange> ranges;
  std::vector<Batch> batches;
  ReadReport report;

  /// The copy calls were recorded for the sinks that ask for them; the others get none.
  Result<ReadReport> Replay(TraceSink& sink) const {
    const bool copy_calls = sink.reads().has(TraceFields::kCopyCalls);
    std::vector<LaunchCall> scratch;
    for (const Batch& batch : batches) {
      switch (batch.kind) {
        case Kind::kOps: RETURN_IF_ERROR(sink.OnGpuOps(Span(ops, batch), names)); break;
        case Kind::kCalls: {
          std::span<const LaunchCall> kept = Span(calls, batch);
          if (!copy_calls) kept = WithoutCopyCalls(kept, scratch);
          if (!kept.empty()) RETURN_IF_ERROR(sink.OnLaunchCalls(kept, names));
          break;
        }
        case Kind::kRanges: RETURN_IF_ERROR(sink.OnRanges(Span(ranges, batch), names)); break;
      }
    }
    RETURN_IF_ERROR(sink.OnFinish());
    return report;
  }

 private:
  template <typename T>
  static std::span<const T> Span(const std::vector<T>& rows, const Batch& batch) {
    return std::span<const T>(rows).subspan(batch.begin, batch.end - batch.begin);
  }
};

namespace {

// Keeps a read's batches. The reader's names are copied in id order as they appear, so
// the kept pool hands out the very ids the rows carry (both pools start with "" as id 0).
class Recorder : public TraceSink {
 public:
  explicit Recorder(TraceReads::Recording& out) : out_(out) {}
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    Keep(out_.ops, ops, Kind::kOps, names);
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    Keep(out_.calls, calls, Kind::kCalls, names);
    return Status::Ok();
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    Keep(out_.ranges, ranges, Kind::kRanges, names);
    return Status::Ok();
  }
  /// Every field, and the copy calls, for whichever replay asks.
  TraceFields reads() const override {
    return TraceFields::All() | TraceFields{0, TraceFields::kCopyCalls};
  }

 private:
  using Kind = TraceReads::Recording::Kind;
  template <typename T>
  void Keep(std::vector<T>& rows, std::span<const T> batch, Kind kind, const StringPool& names) {
    for (size_t id = out_.names.size(); id < names.size(); ++id) {
      out_.names.Intern(names.Get(static_cast<NameId>(id)));
    }
    out_.batches.push_back({kind, rows.size(), rows.size() + batch.size()});
    rows.insert(rows.end(), batch.begin(), batch.end());
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
