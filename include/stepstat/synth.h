// `stepstat synth`: writes a deterministic DiT-step trace of any size, as an nsys CSV pair, an
// nsys SQLite export or a PyTorch profiler (Kineto) JSON trace. With the defaults (one step,
// one stream, the default seed) it is the bundled example, whose summary equals the
// reference GB10 step exactly; more steps repeat the step model back to back with a little
// variation, more streams spread work over concurrent streams. Every format of one run holds
// the same operations, launches and step ranges, so their summaries agree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "stepstat/status.h"

namespace stepstat::synth {

inline constexpr uint64_t kDefaultSeed = 1;
/// Where the first step starts on the nsys clock (a warmed step, well into the profile).
inline constexpr int64_t kFirstStepOriginNs = 41'793'482'336;

enum class SynthFormat {
  kCsv,     ///< <base>_cuda_gpu_trace.csv + <base>_cuda_kern_exec_trace.csv
  kSqlite,  ///< <base>.sqlite, as `nsys export --type sqlite` (2025.3 schema)
  kKineto,  ///< <base>.pt.trace.json, as torch.profiler's export_chrome_trace
};

/// "csv", "sqlite", "kineto" → the format; nullopt for anything else.
std::optional<SynthFormat> ParseSynthFormat(std::string_view name);

struct SynthOptions {
  std::filesystem::path out_base;  ///< the output files are named from it (see SynthFormat)
  SynthFormat format = SynthFormat::kCsv;
  int64_t steps = 1;
  int streams = 1;
  uint64_t seed = kDefaultSeed;
  /// Step ranges, from the step's first launch call to the host's sync after its last GPU
  /// operation: for CSV <base>_nvtx_pushpop_trace.csv with one "denoise_step" range per step;
  /// in SQLite NVTX_EVENTS push/pop ranges; in Kineto `ProfilerStep#N` user annotations.
  bool nvtx = false;
  /// A known change to measure (`stepstat diff`): every kernel that the default policy puts
  /// in this component ("nvfp4_gemms", ...) takes `slower_percent` % longer, in every step,
  /// and the work after it starts that much later. Empty: no change. Step 0 then stays the
  /// reference step's layout with those kernels stretched, not the reference exactly.
  std::string slower_component;
  int64_t slower_percent = 0;  ///< from -90 (faster) to 1000
};

struct SynthResult {
  /// The file with the GPU operations: the CSV gpu trace, or the one SQLite/Kineto file
  /// (which also holds the launches and, with --nvtx, the step ranges).
  std::filesystem::path gpu_trace;
  std::filesystem::path kern_exec_trace;  ///< CSV only
  std::filesystem::path nvtx_trace;       ///< CSV with SynthOptions::nvtx only
  int64_t gpu_rows = 0;                   ///< GPU operations (kernels, memcpys, memsets)
  int64_t kern_exec_rows = 0;             ///< kernel-launch calls
  int64_t bytes = 0;  ///< the trace's files (CSV: the pair, without the NVTX file)
};

/// Whether step 0 is fitted to the reference summary (one stream and the default seed).
bool FitsReference(const SynthOptions& options);

/// Writes the trace through temporary files renamed into place, so a failure leaves no
/// partial output. Memory stays bounded: one step is generated and written at a time.
Result<SynthResult> WriteSynthTraces(const SynthOptions& options);

}  // namespace stepstat::synth
