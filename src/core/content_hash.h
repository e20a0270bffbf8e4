// ContentHash: a fast 64-bit hash of a byte stream, to tell whether two runs read the same
// input files (the ledger keeps it with every run). Not cryptographic: it guards against
// recording the same capture twice, not against an adversary. Four independent lanes of
// multiply-rotate over 8-byte words keep a core's multipliers busy, so hashing a trace costs
// about as much as copying it, not the byte-at-a-time loop's 2 ns a byte. The value depends
// only on the bytes, never on how they were split into Update calls or on the machine:
// ledgers travel between x86, aarch64 and Windows machines.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stepstat {

class ContentHash {
 public:
  ContentHash();

  void Update(std::string_view bytes);

  /// The hash of every byte given so far (the object stays usable: more bytes may follow).
  uint64_t Value() const;

 private:
  static constexpr size_t kBlockBytes = 32;  // one 8-byte word for each of the four lanes

  void ConsumeBlock(const unsigned char* block);

  std::array<uint64_t, 4> lanes_;
  std::array<unsigned char, kBlockBytes> pending_{};  // the start of an unfinished block
  size_t pending_size_ = 0;
  uint64_t total_bytes_ = 0;
};

}  // namespace stepstat
