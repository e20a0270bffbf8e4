#include "csv/structural_mask.h"

#include <bit>
#include <cstring>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define STEPSTAT_MASK_SSE2 1
#if defined(__GNUC__) && !defined(_WIN32)
#include <immintrin.h>
#define STEPSTAT_MASK_AVX2 1  // chosen at run time on a CPU that has it
#endif
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#define STEPSTAT_MASK_NEON 1
#endif

namespace stepstat {

namespace {

MaskPath forced_path = MaskPath::kBest;

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;

// Eight bytes with the first one in the low byte, whatever the machine's byte order.
inline uint64_t Load8(const char* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  if constexpr (std::endian::native == std::endian::big) {
    uint64_t swapped = 0;
    for (int i = 0; i < 8; ++i) swapped |= ((word >> (8 * i)) & 0xFF) << (8 * (7 - i));
    word = swapped;
  }
  return word;
}

// 0x80 in every byte of x that is zero, 0 elsewhere (exact: no false positives).
inline uint64_t ZeroBytes(uint64_t x) { return ~(((x & kLow7) + kLow7) | x | kLow7); }

// 0x80 bytes → one bit per byte: the multiply moves byte k's bit to bit 56 + k, and the
// partial products of different bytes never reach (or carry into) bits 56-63.
inline uint64_t PackHighBits(uint64_t x) { return ((x >> 7) * 0x0102040810204080ull) >> 56; }

// The NUL bits of a 64-byte block, byte by byte (only called for blocks holding a NUL).
[[maybe_unused]] uint64_t NulBits(const char* p) {
  uint64_t bits = 0;
  for (int i = 0; i < 64; ++i) bits |= uint64_t{p[i] == '\0'} << i;
  return bits;
}

#if STEPSTAT_MASK_SSE2
inline void ClassifyNative(const char* p, size_t count, StructuralMasks* out) {
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i zero = _mm_setzero_si128();
  for (size_t b = 0; b < count; ++b, p += 64) {
    uint64_t any = 0, quotes = 0, newlines = 0;
    __m128i nul_seen = zero;
    for (int i = 0; i < 4; ++i) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      __m128i q = _mm_cmpeq_epi8(v, quote);
      __m128i n = _mm_cmpeq_epi8(v, newline);
      __m128i z = _mm_cmpeq_epi8(v, zero);
      nul_seen = _mm_or_si128(nul_seen, z);
      __m128i a = _mm_or_si128(_mm_or_si128(q, n), _mm_or_si128(z, _mm_cmpeq_epi8(v, comma)));
      const int shift = 16 * i;
      any |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(a))} << shift;
      quotes |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(q))} << shift;
      newlines |= uint64_t{static_cast<uint16_t>(_mm_movemask_epi8(n))} << shift;
    }
    // NUL bytes are an error, so their exact mask is only worked out when one is there.
    uint64_t nuls = _mm_movemask_epi8(nul_seen) == 0 ? 0 : NulBits(p);
    out[b] = {any, quotes, newlines, nuls};
  }
}
#if STEPSTAT_MASK_AVX2
// 32 bytes a compare: half the instructions of the SSE2 loop, on the blocks of each row.
__attribute__((target("avx2"))) void ClassifyAvx2(const char* p, size_t count,
                                                  StructuralMasks* out) {
  const __m256i comma = _mm256_set1_epi8(',');
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i newline = _mm256_set1_epi8('\n');
  const __m256i zero = _mm256_setzero_si256();
  for (size_t b = 0; b < count; ++b, p += 64) {
    uint64_t any = 0, quotes = 0, newlines = 0;
    __m256i nul_seen = zero;
    for (int i = 0; i < 2; ++i) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * i));
      __m256i q = _mm256_cmpeq_epi8(v, quote);
      __m256i n = _mm256_cmpeq_epi8(v, newline);
      __m256i z = _mm256_cmpeq_epi8(v, zero);
      nul_seen = _mm256_or_si256(nul_seen, z);
      __m256i a =
          _mm256_or_si256(_mm256_or_si256(q, n), _mm256_or_si256(z, _mm256_cmpeq_epi8(v, comma)));
      const int shift = 32 * i;
      any |= uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(a))} << shift;
      quotes |= uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(q))} << shift;
      newlines |= uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(n))} << shift;
    }
    uint64_t nuls = _mm256_movemask_epi8(nul_seen) == 0 ? 0 : NulBits(p);
    out[b] = {any, quotes, newlines, nuls};
  }
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif
#elif STEPSTAT_MASK_NEON
// NEON has no movemask: keep one distinct bit per lane, then add neighbouring lanes
// pairwise until each byte of the result holds the 8 bits of 8 input bytes.
inline uint64_t Movemask64(uint8x16_t m0, uint8x16_t m1, uint8x16_t m2, uint8x16_t m3) {
  const uint8x16_t bits = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  uint8x16_t s0 = vpaddq_u8(vandq_u8(m0, bits), vandq_u8(m1, bits));
  uint8x16_t s1 = vpaddq_u8(vandq_u8(m2, bits), vandq_u8(m3, bits));
  s0 = vpaddq_u8(s0, s1);
  s0 = vpaddq_u8(s0, s0);
  return vgetq_lane_u64(vreinterpretq_u64_u8(s0), 0);
}

inline void ClassifyNative(const char* p, size_t count, StructuralMasks* out) {
  const uint8x16_t comma = vdupq_n_u8(',');
  const uint8x16_t quote = vdupq_n_u8('"');
  const uint8x16_t newline = vdupq_n_u8('\n');
  for (size_t b = 0; b < count; ++b, p += 64) {
    uint8x16_t q[4], n[4], z[4], a[4];
    for (int i = 0; i < 4; ++i) {
      uint8x16_t v = vld1q_u8(reinterpret_cast<const uint8_t*>(p + 16 * i));
      q[i] = vceqq_u8(v, quote);
      n[i] = vceqq_u8(v, newline);
      z[i] = vceqzq_u8(v);
      a[i] = vorrq_u8(vorrq_u8(q[i], n[i]), vorrq_u8(z[i], vceqq_u8(v, comma)));
    }
    out[b] = {Movemask64(a[0], a[1], a[2], a[3]), Movemask64(q[0], q[1], q[2], q[3]),
              Movemask64(n[0], n[1], n[2], n[3]), Movemask64(z[0], z[1], z[2], z[3])};
  }
}
#endif

}  // namespace

void ClassifyBlocksPortable(const char* p, size_t count, StructuralMasks* out) {
  for (size_t b = 0; b < count; ++b, p += 64) {
    StructuralMasks m{0, 0, 0, 0};
    for (int i = 0; i < 8; ++i) {
      uint64_t word = Load8(p + 8 * i);
      uint64_t quotes = ZeroBytes(word ^ (kOnes * '"'));
      uint64_t newlines = ZeroBytes(word ^ (kOnes * '\n'));
      uint64_t nuls = ZeroBytes(word);
      uint64_t commas = ZeroBytes(word ^ (kOnes * ','));
      m.any |= PackHighBits(quotes | newlines | nuls | commas) << (8 * i);
      m.quote |= PackHighBits(quotes) << (8 * i);
      m.newline |= PackHighBits(newlines) << (8 * i);
      m.nul |= PackHighBits(nuls) << (8 * i);
    }
    out[b] = m;
  }
}

void ClassifyBlocks(const char* p, size_t count, StructuralMasks* out) {
#if STEPSTAT_MASK_SSE2 || STEPSTAT_MASK_NEON
#if STEPSTAT_MASK_AVX2
  if (forced_path == MaskPath::kBest && HasAvx2()) return ClassifyAvx2(p, count, out);
#endif
  if (forced_path != MaskPath::kPortable) return ClassifyNative(p, count, out);
#endif
  ClassifyBlocksPortable(p, count, out);
}

const char* StructuralMaskKind() {
  if (forced_path == MaskPath::kPortable) return "swar";
#if STEPSTAT_MASK_AVX2
  if (forced_path == MaskPath::kBest && HasAvx2()) return "avx2";
#endif
#if STEPSTAT_MASK_SSE2
  return "sse2";
#elif STEPSTAT_MASK_NEON
  return "neon";
#else
  return "swar";
#endif
}

void ForceStructuralMaskPath(MaskPath path) { forced_path = path; }

}  // namespace stepstat
