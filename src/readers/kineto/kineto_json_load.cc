// ReadKinetoJson: a plain file is parsed where it is mapped (no copy: fresh memory costs
// more to touch than parsing costs), its pages mapped in ahead of the parse and released
// behind it; compressed files and pipes go through a ByteSource into one buffer, because
// simdjson parses a whole padded document.
#include <simdjson.h>

#include <string>
#include <system_error>

#include "io/byte_source.h"
#include "io/padded_file_map.h"
#include "readers/kineto/kineto_json.h"
#include "readers/kineto/kineto_json_internal.h"

namespace stepstat {

namespace {

bool LooksCompressed(std::string_view bytes) {
  return bytes.starts_with("\x1f\x8b") || bytes.starts_with("\x28\xb5\x2f\xfd");
}

// The whole of `source` in one buffer (`size_hint`: its expected size, 0 unknown), parsed.
Result<ReadReport> ParseWholeSource(ByteSource& source, size_t size_hint,
                                    std::string_view display_name, TraceSink& sink,
                                    const SpillOptions& spill = {}) {
  std::string json;
  if (size_hint > 0) json.reserve(size_hint + simdjson::SIMDJSON_PADDING);
  size_t consumed = 0;
  for (;;) {
    ASSIGN_OR_RETURN(std::string_view view, source.Next(consumed));
    json.append(view);
    consumed = view.size();
    if (source.exhausted()) break;
  }
  return kineto::ParseKinetoJsonWith(json, display_name, sink, spill);
}

}  // namespace

Result<ReadReport> ReadKinetoJson(const std::filesystem::path& path, std::string_view display_name,
                                  TraceSink& sink) {
  return kineto::ReadKinetoJsonWith(path, display_name, sink, {});
}

Result<ReadReport> kineto::ReadKinetoJsonWith(const std::filesystem::path& path,
                                              std::string_view display_name, TraceSink& sink,
                                              const SpillOptions& spill,
                                              const ChunkOptions& chunks) {
  Result<std::unique_ptr<PaddedFileMap>> mapped =
      PaddedFileMap::Open(path, display_name, simdjson::SIMDJSON_PADDING);
  if (mapped.ok() && !LooksCompressed(mapped.value()->bytes())) {
    const PaddedFileMap& map = *mapped.value();
    // Chunks are read from the file into the parse buffers (where the OS offers it), so
    // their pages are not mapped in: the mapping serves the cuts, the whole parse a failed
    // cut falls back to, and the rare views that outlive a chunk. What is mapped is dropped
    // behind the parse: resident memory holds a window of the file, not all of it.
    kineto::DocumentWindow window;
    window.read = [&map](size_t offset, char* out, size_t size) {
      return map.ReadAt(offset, out, size);
    };
    const bool reads = map.ReadAt(0, nullptr, 0);  // a read of nothing: whether it reads
    window.ahead = [&map, reads](size_t begin, size_t end) {
      if (reads) {
        map.CountRead(end);
      } else {
        map.Prefetch(begin, end);
      }
    };
    window.behind = [&map](size_t end) { map.Release(0, end); };
    return kineto::ParsePaddedJson(map.bytes(), map.readable_size(), display_name, sink, window,
                                   spill, chunks);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path, display_name));
  std::error_code ec;
  uintmax_t file_size = std::filesystem::file_size(path, ec);
  return ParseWholeSource(*source, ec ? 0 : static_cast<size_t>(file_size), display_name, sink,
                          spill);
}

Result<ReadReport> ReadKinetoJsonBytes(std::string_view bytes, std::string_view display_name,
                                       TraceSink& sink) {
  // simdjson wants its padding after the document, which the caller's bytes lack: copied.
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenMemoryByteSource(bytes, display_name));
  return ParseWholeSource(*source, bytes.size(), display_name, sink);
}

}  // namespace stepstat
