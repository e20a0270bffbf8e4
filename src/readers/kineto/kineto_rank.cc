#include "readers/kineto/kineto_rank.h"

#include <string>

#include "io/byte_source.h"

namespace stepstat {

std::optional<int64_t> KinetoRankInPrefix(std::string_view json) {
  size_t at = json.find("\"distributedInfo\"");
  if (at == std::string_view::npos) return std::nullopt;
  size_t open = json.find('{', at);
  size_t close = open == std::string_view::npos ? open : json.find('}', open);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view info = json.substr(open, close - open);
  size_t key = info.find("\"rank\"");
  if (key == std::string_view::npos) return std::nullopt;
  size_t i = key + 6;
  while (i < info.size() && (info[i] == ' ' || info[i] == '\t' || info[i] == '\n' ||
                             info[i] == '\r' || info[i] == ':')) {
    ++i;
  }
  size_t start = i;
  while (i < info.size() && info[i] >= '0' && info[i] <= '9') ++i;
  // 15 digits at most: a rank, not a number that could overflow.
  if (i == start || i - start > 15) return std::nullopt;
  return std::stoll(std::string(info.substr(start, i - start)));
}

Result<std::optional<int64_t>> KinetoRankOfFile(const std::filesystem::path& path,
                                                std::string_view display_name) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path, display_name));
  std::string_view view;
  while (true) {
    ASSIGN_OR_RETURN(view, source->Next(0));
    if (source->exhausted() || view.size() >= kKinetoRankPrefixBytes) break;
  }
  return KinetoRankInPrefix(view.substr(0, kKinetoRankPrefixBytes));
}

}  // namespace stepstat
