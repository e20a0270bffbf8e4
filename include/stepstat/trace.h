// The trace model that every input format ends in, delivered as a stream of batches.
// Readers push GpuOp and LaunchCall batches into a TraceSink; analyses are sinks. Nothing
// here holds a whole trace: memory grows with distinct names, not with rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stepstat/status.h"

namespace stepstat {

using NameId = uint32_t;

/// Interns strings and hands out dense ids from 0. Views returned by Get() stay valid for the
/// pool's lifetime (strings are stored in stable blocks). Not thread-safe: one pool per reader.
class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) noexcept;
  StringPool& operator=(StringPool&&) noexcept;
  ~StringPool();

  NameId Intern(std::string_view text);
  std::string_view Get(NameId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }

 private:
  // The index and the blocks behind the views live in string_pool.cc; the views stay here
  // so that Get, called per row, is inline.
  struct Storage;
  std::vector<std::string_view> views_;
  std::unique_ptr<Storage> storage_;
};

enum class OpKind : uint8_t { kKernel, kMemcpy, kMemset };

/// One kernel, memcpy or memset on the GPU: the interval [start_ns, start_ns + duration_ns).
/// Readers guarantee start_ns >= 0, duration_ns >= 0 and that the end fits in int64.
struct GpuOp {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  int64_t stream = -1;          ///< -1 when the format does not say
  int64_t bytes = -1;           ///< memory operations; -1 when unknown
  int64_t correlation_id = -1;  ///< links to the LaunchCall; -1 when unknown
  int64_t line = 0;             ///< where the row starts in its file (1-based), for messages
  NameId name = 0;              ///< kernel name, or "[CUDA memcpy HtoD]" etc.
  NameId device = 0;            ///< device name as the format spells it ("NVIDIA GB10 (0)")
  OpKind kind = OpKind::kKernel;
  /// The process whose work it is (-1 when the format does not say). Stream ids are per
  /// process: two processes' "stream 7" on one GPU are two streams. 32 bits keep GpuOp at
  /// 64 bytes (OS pids fit; nsys packs them in 24 bits).
  int32_t pid = -1;

  int64_t end_ns() const { return start_ns + duration_ns; }
};

/// What a LaunchCall issued: kernels, or a copy or memset (cudaMemcpyAsync, cudaMemsetAsync...).
/// Readers hand copy calls only to a sink that asks for them (TraceFields::kCopyCalls), so a
/// sink that counts launches never sees one unless it asked.
enum class CallKind : uint8_t { kKernelLaunch, kCopy };

/// One CPU API call that launched GPU work (cudaLaunchKernel, cuLaunchKernel, cudaGraphLaunch...),
/// or, when asked, one that issued a copy or memset.
struct LaunchCall {
  int64_t api_start_ns = 0;
  int64_t api_duration_ns = 0;
  int64_t queue_duration_ns =
      -1;                        ///< time from the API call's end to the kernel's start; -1 unknown
  int64_t kernel_start_ns = -1;  ///< -1 when the source has no GPU side (cuda_api_trace)
  int64_t kernel_duration_ns = -1;
  int64_t pid = -1;
  int64_t tid = -1;
  int64_t correlation_id = -1;
  int64_t line = 0;
  NameId api_name = 0;     ///< "cudaLaunchKernel"
  NameId kernel_name = 0;  ///< the launched kernel's name; an empty string when unknown
  NameId device = 0;       ///< the launched kernel's device ("GPU 3"); an empty string when unknown
  CallKind kind = CallKind::kKernelLaunch;

  int64_t api_end_ns() const { return api_start_ns + api_duration_ns; }
};

/// A CPU-side time range: an NVTX push/pop or start/end range, or a PyTorch
/// `ProfilerStep#N` annotation. Steps are cut from these.
struct CpuRange {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t pid = -1;
  int64_t tid = -1;
  int64_t depth = -1;  ///< nesting level when the source says (0 = outermost); -1 unknown
  int64_t line = 0;
  NameId name = 0;  ///< range text, with the NVTX domain prefix as nsys prints it ("dom:text")
};

/// The GpuOp and LaunchCall fields a sink reads (TraceSink::reads). A reader may leave every
/// other field at its default and skip the column it comes from, neither converting nor
/// checking it: a summary has no use for a call's queue time, so a malformed Queue Dur does
/// not stop it (a pass that reads queue times still says where the field is wrong). `line`
/// and GpuOp::kind are always set; a reader may fill more than is asked. A sink that reads no
/// field of one kind (`op` or `call` 0) wants none of those rows: a reader may skip their
/// table (the nsys SQLite reader does), so such a sink must not count them either.
struct TraceFields {
  enum Op : uint32_t {
    kOpStart = 1u << 0,
    kOpDuration = 1u << 1,
    kOpStream = 1u << 2,
    kOpBytes = 1u << 3,
    kOpCorrelation = 1u << 4,
    kOpName = 1u << 5,
    kOpDevice = 1u << 6,
    kOpPid = 1u << 7,
    kAllOp = (1u << 8) - 1,
  };
  enum Call : uint32_t {
    kApiStart = 1u << 0,
    kApiDuration = 1u << 1,
    kQueueDuration = 1u << 2,
    kKernelStart = 1u << 3,
    kKernelDuration = 1u << 4,
    kCallPid = 1u << 5,
    kCallTid = 1u << 6,
    kCallCorrelation = 1u << 7,
    kApiName = 1u << 8,
    kKernelName = 1u << 9,
    kCallDevice = 1u << 10,
    kAllCall = (1u << 11) - 1,
    /// Not a field but a wish: the copy and memset calls too (CallKind::kCopy), in the same
    /// batches as the launches. Outside kAllCall, so that All() does not ask for them.
    kCopyCalls = 1u << 11,
  };
  uint32_t op = kAllOp;
  uint32_t call = kAllCall;

  static constexpr TraceFields All() { return {}; }
  static constexpr TraceFields None() { return {0, 0}; }
  bool has(Op field) const { return (op & field) != 0; }
  bool has(Call field) const { return (call & field) != 0; }
  friend constexpr TraceFields operator|(TraceFields a, TraceFields b) {
    return {a.op | b.op, a.call | b.call};
  }
  friend bool operator==(TraceFields, TraceFields) = default;
  /// What a sink that wraps `inner` reads: inner's fields and `own`, but only for the kinds
  /// of row inner reads at all (a wrapper reads its fields off rows it passes on; it does not
  /// make a reader produce rows nobody wants).
  static constexpr TraceFields Wrapping(TraceFields inner, TraceFields own) {
    return {inner.op == 0 ? 0 : inner.op | own.op, inner.call == 0 ? 0 : inner.call | own.call};
  }
};

/// Receives a trace as batches. A reader calls the sink from one thread; the spans and the
/// pool's views are valid during the call only (the pool's views live as long as the pool).
///
/// The contract of one read: the sink is ready when constructed; then batches, in file
/// order; then, only if every batch and the reader succeeded, exactly one OnFinish(), called
/// by the read's entry point (ReadInput, the SQLite side readers, a replay). A read that
/// fails stops there: OnFinish is not called, and whatever the sink holds is partial and
/// must not be used. So no pipeline finishes a sink by hand, and a sink that wraps another
/// passes OnFinish on.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual Status OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) = 0;
  virtual Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) = 0;
  /// CPU ranges (NVTX, ProfilerStep). Most analyses ignore them.
  virtual Status OnRanges(std::span<const CpuRange> /*ranges*/, const StringPool& /*names*/) {
    return Status::Ok();
  }
  /// The read is complete: close what is open (the last union component, a held batch).
  /// An error here fails the read.
  virtual Status OnFinish() { return Status::Ok(); }
  /// The fields this sink, and every sink it passes rows on to, reads; asked once, before
  /// the first batch. Every field unless a sink says less: only a sink that names exactly
  /// what it reads may override this, and a sink that wraps others adds theirs.
  virtual TraceFields reads() const { return TraceFields::All(); }
};

/// The kernel launches of `calls`: `calls` itself when it holds no copy call, else the
/// launches copied into `scratch`. For a sink that hands batches on to one that did not ask
/// for copy calls.
inline std::span<const LaunchCall> WithoutCopyCalls(std::span<const LaunchCall> calls,
                                                    std::vector<LaunchCall>& scratch) {
  auto is_copy = [](const LaunchCall& call) { return call.kind == CallKind::kCopy; };
  if (std::none_of(calls.begin(), calls.end(), is_copy)) return calls;
  scratch.clear();
  std::remove_copy_if(calls.begin(), calls.end(), std::back_inserter(scratch), is_copy);
  return scratch;
}

}  // namespace stepstat
