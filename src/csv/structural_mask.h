// StructuralMasks: 64-byte blocks of CSV text → one bit per byte for the characters the
// scanner stops at. The only file with SIMD intrinsics (SSE2 on x86-64, NEON on aarch64);
// every other target uses the portable SWAR code, which tests can force.
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

/// "sse2", "neon" or "swar": what ClassifyBlocks runs here (unless forced portable).
const char* StructuralMaskKind();

/// Test hook: makes ClassifyBlocks use the portable code (true) or the native one (false).
void ForcePortableStructuralMasks(bool portable);

}  // namespace stepstat
