// `stepstat synth`: writes a deterministic DiT-step trace pair of any size. With the defaults
// (one step, one stream, the default seed) it is the bundled example, whose summary equals
// the reference GB10 step exactly; more steps repeat the step model back to back with a
// little variation, more streams spread work over concurrent streams.
#pragma once

#include <cstdint>
#include <filesystem>

#include "stepstat/status.h"

namespace stepstat::synth {

inline constexpr uint64_t kDefaultSeed = 1;
/// Where the first step starts on the nsys clock (a warmed step, well into the profile).
inline constexpr int64_t kFirstStepOriginNs = 41'793'482'336;

struct SynthOptions {
  std::filesystem::path
      out_base;  ///< writes <base>_cuda_gpu_trace.csv and <base>_cuda_kern_exec_trace.csv
  int64_t steps = 1;
  int streams = 1;
  uint64_t seed = kDefaultSeed;
};

struct SynthResult {
  std::filesystem::path gpu_trace;
  std::filesystem::path kern_exec_trace;
  int64_t gpu_rows = 0;
  int64_t kern_exec_rows = 0;
  int64_t bytes = 0;  ///< both files together
};

/// Whether step 0 is fitted to the reference summary (one stream and the default seed).
bool FitsReference(const SynthOptions& options);

/// Writes the pair through temporary files renamed into place, so a failure leaves no
/// partial output. Memory stays bounded: one step is generated and written at a time.
Result<SynthResult> WriteSynthTraces(const SynthOptions& options);

}  // namespace stepstat::synth
