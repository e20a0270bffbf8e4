// OpenByteSource / OpenMemoryByteSource: sniff the magic bytes, then pick a decoder, a
// buffer or (bytes already in memory) a view of them.
#include "io/byte_source.h"

#include <algorithm>
#include <string>

#include "io/read_counts.h"
#include "io/read_progress.h"
#include "io/sources.h"

namespace stepstat {

namespace {

bool StartsWith(std::string_view bytes, std::string_view magic) {
  return bytes.substr(0, magic.size()) == magic;
}

// Reads up to `n` bytes from the front of `stream` (fewer only at its end).
Result<std::string> ReadFront(InputStream& stream, size_t n) {
  std::string front(n, '\0');
  size_t have = 0;
  while (have < n) {
    ASSIGN_OR_RETURN(size_t got, stream.Read(front.data() + have, n - have));
    if (got == 0) break;
    have += got;
  }
  front.resize(have);
  return front;
}

// Bytes in memory as a stream, for the decoders (which read streams).
class MemoryStream final : public InputStream {
 public:
  explicit MemoryStream(std::string_view bytes) : rest_(bytes) {}
  Result<size_t> Read(char* dest, size_t capacity) override {
    size_t n = std::min(capacity, rest_.size());
    rest_.copy(dest, n);
    rest_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view rest_;
};

bool NeedsDecoding(std::string_view magic) {
  return StartsWith(magic, "\x1f\x8b") || StartsWith(magic, "\x28\xb5\x2f\xfd") ||
         StartsWith(magic, "\xff\xfe") || StartsWith(magic, "\xfe\xff");
}

// `magic` (the first bytes, already read) followed by the rest of `stream`, decoded.
std::unique_ptr<ByteSource> DecodedSource(std::string magic, std::unique_ptr<InputStream> stream,
                                          std::string_view display_name) {
  // Any of them may hold UTF-16 text: what Windows PowerShell's `>` writes (then perhaps
  // compressed). It is transcoded so that every reader sees the UTF-8 text nsys writes.
  if (StartsWith(magic, "\x1f\x8b")) {
    return BufferedSource(TextFromMaybeUtf16(
        GzipStream(PrefixedStream(std::move(magic), std::move(stream)), display_name),
        display_name));
  }
  if (StartsWith(magic, "\x28\xb5\x2f\xfd")) {
    return BufferedSource(TextFromMaybeUtf16(
        ZstdStream(PrefixedStream(std::move(magic), std::move(stream)), display_name),
        display_name));
  }
  if (StartsWith(magic, "\xff\xfe") || StartsWith(magic, "\xfe\xff")) {
    const bool big_endian = magic[0] == '\xfe';
    return BufferedSource(
        Utf16ToUtf8(PrefixedStream(std::move(magic), std::move(stream)), big_endian, display_name),
        kReadBufferBytes);
  }
  // Plain files are read into one reused 256 KiB buffer rather than mapped: measured on a
  // 900 MB gpu trace (bench/results/csv-reader-*.md) the scanner spends ~35% less CPU when
  // its input sits in L2 than when it walks mapped page-cache pages, even counting the
  // kernel's copy, and resident memory stays at the buffer size. OpenMappedFile remains for
  // callers that want random access to a window.
  return BufferedSource(PrefixedStream(std::move(magic), std::move(stream)), kReadBufferBytes);
}

}  // namespace

Result<std::unique_ptr<ByteSource>> OpenByteSource(const std::filesystem::path& path,
                                                   std::string_view display_name) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileStream(path, display_name));
  // Counted as stored, under any decoder: a .gz's progress is its compressed bytes.
  stream = ProgressCountedStream(path, std::move(stream));
  // Read the magic through the stream so pipes work too; it is put back in front after.
  ASSIGN_OR_RETURN(std::string magic, ReadFront(*stream, 4));
  return CountedSource(path, DecodedSource(std::move(magic), std::move(stream), display_name));
}

Result<std::unique_ptr<ByteSource>> OpenMemoryByteSource(std::string_view bytes,
                                                         std::string_view display_name) {
  // Plain text is viewed where it is: no copy, whatever its size.
  if (!NeedsDecoding(bytes.substr(0, 4))) return MemoryByteSource(bytes);
  std::string_view magic = bytes.substr(0, 4);
  return DecodedSource(std::string(magic),
                       std::make_unique<MemoryStream>(bytes.substr(magic.size())), display_name);
}

}  // namespace stepstat
