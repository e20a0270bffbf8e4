// StructuralMasks: 64-byte blocks of CSV text → one bit per byte for the characters the
// scanner stops at. The only file with SIMD intrinsics (SSE2 on x86-64, with AVX2 chosen at
// run time on a CPU that has it (GCC and Clang, not Windows); NEON on aarch64); every other
// target uses the portable SWAR code. Tests can force each path.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stepstat {

/// Bit i describes byte i of a 64-byte block (whatever the machine's byte order).
struct StructuralMasks {
  uint64_t any;      // ',' '"' '\n' or NUL
  uint64_t quote;    // '"'
  uint64_t newline;  // '\n'
  uint64_t nul;      // '\0'
};

/// Classifies `count` consecutive 64-byte blocks at `p` (count * 64 readable bytes) into out[].
void ClassifyBlocks(const char* p, size_t count, StructuralMasks* out);

/// The SWAR version ClassifyBlocks falls back to; same results on every machine.
void ClassifyBlocksPortable(const char* p, size_t count, StructuralMasks* out);

/// "avx2", "sse2", "neon" or "swar": what ClassifyBlocks runs here.
const char* StructuralMaskKind();

/// Which code ClassifyBlocks runs: the best this CPU has, the target's baseline SIMD (SSE2,
/// NEON), or the portable SWAR code.
enum class MaskPath { kBest, kBaseline, kPortable };

/// Test hook: makes ClassifyBlocks run `path` (kBest unless a test says otherwise).
void ForceStructuralMaskPath(MaskPath path);

}  // namespace stepstat
