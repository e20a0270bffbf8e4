#include "analysis/pipeline/trace_reads.h"

#include <type_traits>

#include "analysis/pipeline/launched_kernels_sink.h"
#include "io/temp_file.h"
#include "readers/input_traits.h"
#include "readers/read_sides.h"

namespace stepstat {

// One parse's records in the order the reader gave them, and its names with their ids.
// The rows go to a scratch file (io/temp_file.h), batch after batch, and every replay reads
// them back through one batch-sized buffer: what the command holds stays the size of a batch
// however long the trace (kept in memory, the rows of a 357 MB trace took 51 MB, four times
// that at four times the size), and a file in the page cache reads back far faster than the
// JSON parses. (The Kineto reader needs the temporary folder already, to sort.)
struct TraceReads::Recording {
  enum class Kind { kOps, kCalls, kRanges };
  struct Batch {
    Kind kind;
    uint64_t offset = 0;  // in `spill`
    size_t rows = 0;
  };
  StringPool names;
  std::unique_ptr<TempFile> spill;
  std::vector<Batch> batches;
  ReadReport report;

  /// Which rows a replay hands out: all, or one side's (as an SQLite export's sides are read).
  enum class Rows { kAll, kGpuSide, kLaunchSide };
  /// The copy calls were recorded for the sinks that ask for them; the others get none.
  Result<ReadReport> Replay(TraceSink& sink, Rows which = Rows::kAll) const {
    const bool copy_calls = sink.reads().has(TraceFields::kCopyCalls);
    std::vector<GpuOp> ops;
    std::vector<LaunchCall> calls, scratch;
    std::vector<CpuRange> ranges;
    for (const Batch& batch : batches) {
      const bool wanted =
          which == Rows::kAll ||
          (which == Rows::kGpuSide ? batch.kind == Kind::kOps : batch.kind == Kind::kCalls);
      if (!wanted) continue;
      switch (batch.kind) {
        case Kind::kOps: {
          ASSIGN_OR_RETURN(std::span<const GpuOp> rows, RowsOf(batch, ops));
          RETURN_IF_ERROR(sink.OnGpuOps(rows, names));
          break;
        }
        case Kind::kCalls: {
          ASSIGN_OR_RETURN(std::span<const LaunchCall> kept, RowsOf(batch, calls));
          if (!copy_calls) kept = WithoutCopyCalls(kept, scratch);
          if (!kept.empty()) RETURN_IF_ERROR(sink.OnLaunchCalls(kept, names));
          break;
        }
        case Kind::kRanges: {
          ASSIGN_OR_RETURN(std::span<const CpuRange> rows, RowsOf(batch, ranges));
          RETURN_IF_ERROR(sink.OnRanges(rows, names));
          break;
        }
      }
    }
    RETURN_IF_ERROR(sink.OnFinish());
    return report;
  }

 private:
  // The batch's rows, read back into `buffer`.
  template <typename T>
  Result<std::span<const T>> RowsOf(const Batch& batch, std::vector<T>& buffer) const {
    buffer.resize(batch.rows);
    RETURN_IF_ERROR(spill->ReadAt(batch.offset, buffer.data(), batch.rows * sizeof(T)));
    return std::span<const T>(buffer);
  }
};

namespace {

// Keeps a read's batches. The reader's names are copied in id order as they appear, so
// the kept pool hands out the very ids the rows carry (both pools start with "" as id 0).
class Recorder : public TraceSink {
 public:
  explicit Recorder(TraceReads::Recording& out) : out_(out) {}
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) override {
    return Keep(ops, Kind::kOps, names);
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) override {
    return Keep(calls, Kind::kCalls, names);
  }
  Status OnRanges(std::span<const CpuRange> ranges, const StringPool& names) override {
    return Keep(ranges, Kind::kRanges, names);
  }
  /// Every field, and the copy calls, for whichever replay asks.
  TraceFields reads() const override {
    return TraceFields::All() | TraceFields{0, TraceFields::kCopyCalls};
  }

 private:
  using Kind = TraceReads::Recording::Kind;
  using Batch = TraceReads::Recording::Batch;
  template <typename T>
  Status Keep(std::span<const T> rows, Kind kind, const StringPool& names) {
    for (size_t id = out_.names.size(); id < names.size(); ++id) {
      out_.names.Intern(names.Get(static_cast<NameId>(id)));
    }
    static_assert(std::is_trivially_copyable_v<T>, "rows are spilled as their bytes");
    Batch& batch = out_.batches.emplace_back();
    batch.kind = kind;
    batch.rows = rows.size();
    batch.offset = out_.spill->size();
    return out_.spill->Append(rows.data(), rows.size_bytes());
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
  ASSIGN_OR_RETURN(recording->spill, TempFile::Create());
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

Status TraceReads::Prepare(const TraceInput& input) { return RecordingOf(input).status(); }

Result<ReadReport> TraceReads::Whole(const TraceInput& input, TraceSink& sink) {
  ASSIGN_OR_RETURN(const Recording* recording, RecordingOf(input));
  if (recording) return recording->Replay(sink);
  return ReadInput(input, sink);
}

Result<ReadReport> TraceReads::GpuSide(const TraceInput& input, TraceSink& sink) {
  if (ReadByQueries(input.kind)) return ReadGpuSide(input, sink);
  ASSIGN_OR_RETURN(const Recording* recording, RecordingOf(input));
  if (recording) return recording->Replay(sink, Recording::Rows::kGpuSide);
  if (OpsAreItsLaunchRows(input.kind)) {
    LaunchedKernelsSink launched(sink, /*forward_launch_calls=*/false);
    return ReadInput(input, launched);
  }
  return Whole(input, sink);
}

Result<ReadReport> TraceReads::LaunchSide(const TraceInput& input, TraceSink& sink) {
  if (ReadByQueries(input.kind)) return ReadLaunchSide(input, sink);
  ASSIGN_OR_RETURN(const Recording* recording, RecordingOf(input));
  if (recording) return recording->Replay(sink, Recording::Rows::kLaunchSide);
  return Whole(input, sink);
}

}  // namespace stepstat
