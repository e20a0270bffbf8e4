// ReadKinetoJson: the whole input through a ByteSource (so .gz and .zst work) into one
// buffer, because simdjson parses a whole padded document.
#include <simdjson.h>

#include <string>
#include <system_error>

#include "io/byte_source.h"
#include "readers/kineto_json.h"

namespace stepstat {

Result<ReadReport> ReadKinetoJson(const std::filesystem::path& path, std::string_view display_name,
                                  TraceSink& sink) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path, display_name));
  std::string json;
  std::error_code ec;
  uintmax_t file_size = std::filesystem::file_size(path, ec);
  if (!ec) json.reserve(static_cast<size_t>(file_size) + simdjson::SIMDJSON_PADDING);
  size_t consumed = 0;
  for (;;) {
    ASSIGN_OR_RETURN(std::string_view view, source->Next(consumed));
    json.append(view);
    consumed = view.size();
    if (source->exhausted()) break;
  }
  return ParseKinetoJson(json, display_name, sink);
}

}  // namespace stepstat
