// The gzip and zstd decoders under a BufferedSource, on arbitrary compressed bytes (the first
// byte picks the decoder and a read size; the seeds are real .gz/.zst files). Checks: the
// stream ends or fails with a message that follows the rules, output stays bounded, and
// the source's offsets add up.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "fuzz_check.h"
#include "io/input_stream.h"
#include "io/sources.h"

namespace {

constexpr std::string_view kName = "fuzz.gz";

// Hands out the input `step` bytes at a time, like a slow pipe.
class MemoryStream final : public stepstat::InputStream {
 public:
  MemoryStream(std::string_view bytes, size_t step) : bytes_(bytes), step_(step) {}
  stepstat::Result<size_t> Read(char* dest, size_t capacity) override {
    size_t n = std::min({capacity, step_, bytes_.size()});
    if (n > 0) std::memcpy(dest, bytes_.data(), n);
    bytes_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view bytes_;
  size_t step_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool zstd = (data[0] & 1) != 0;
  const size_t step = (data[0] & 2) != 0 ? size : 1 + (data[0] >> 2) % 17;
  std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  auto memory = std::make_unique<MemoryStream>(input, step);
  std::unique_ptr<stepstat::InputStream> decoder =
      zstd ? stepstat::ZstdStream(std::move(memory), kName)
           : stepstat::GzipStream(std::move(memory), kName);
  std::unique_ptr<stepstat::ByteSource> source = stepstat::BufferedSource(std::move(decoder), 64);
  // Consume all but the last byte of each view, so the window keeps sliding and growing.
  size_t consumed = 0;
  size_t rest = 0;  // unconsumed bytes of the last view
  uint64_t total = 0;
  constexpr uint64_t kMaxOutput = uint64_t{64} << 20;  // bombs: stop early, that is fine
  for (int views = 0; views < 1 << 20; ++views) {
    stepstat::Result<std::string_view> view = source->Next(consumed);
    if (!view.ok()) {
      stepstat::fuzz::CheckErrorMessage(view.status(), kName);
      return 0;
    }
    FUZZ_CHECK(source->offset() == total);
    if (source->exhausted()) {
      total += view->size();
      break;
    }
    FUZZ_CHECK(view->size() > rest);  // ByteSource: a longer view unless exhausted
    consumed = view->size() > 1 ? view->size() - 1 : 0;
    rest = view->size() - consumed;
    total += consumed;
    if (total > kMaxOutput) break;
  }
  return 0;
}
