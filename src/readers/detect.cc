// DetectInputKind: what a file (or bytes in memory) is, from its first bytes (decompressed
// when .gz/.zst).
#include <memory>
#include <optional>
#include <string>

#include "csv/csv_scanner.h"
#include "io/byte_source.h"
#include "readers/csv/nsys_csv_header.h"
#include "readers/sqlite/nsys_rep.h"
#include "stepstat/read.h"

namespace stepstat {

namespace {

constexpr std::string_view kSqliteMagic("SQLite format 3\0", 16);
constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// `{`, or `[` followed by `{` or `]`: a JSON document. A bare `[` is not enough: console
// output saved to a file starts with progress lines like "[1/8] Executing ...".
bool LooksLikeJson(std::string_view bytes) {
  if (bytes.substr(0, kBom.size()) == kBom) bytes.remove_prefix(kBom.size());
  size_t i = 0;
  while (i < bytes.size() && IsSpace(bytes[i])) ++i;
  if (i == bytes.size()) return false;
  if (bytes[i] == '{') return true;
  if (bytes[i] != '[') return false;
  ++i;
  while (i < bytes.size() && IsSpace(bytes[i])) ++i;
  return i < bytes.size() && (bytes[i] == '{' || bytes[i] == ']');
}

Result<InputKind> DetectFromSource(ByteSource& source, std::string_view display_name) {
  ASSIGN_OR_RETURN(std::string_view head, source.Next(0));
  while (head.size() < 4096 && !source.exhausted()) {
    ASSIGN_OR_RETURN(head, source.Next(0));
  }
  if (head.empty()) return ErrorAt(display_name, 0, "empty file");
  if (head.substr(0, kSqliteMagic.size()) == kSqliteMagic) return InputKind::kNsysSqlite;
  if (LooksLikeJson(head)) return InputKind::kKinetoJson;

  CsvScanner scanner(source, display_name);
  std::optional<InputKind> kind;
  std::optional<std::string> summary;
  auto found = scanner.SkipLinesUntil([&kind, &summary](std::string_view line) {
    kind = ClassifyNsysCsvHeader(line);
    if (!kind) summary = NsysUnusableSummaryReport(line);
    return kind.has_value() || summary.has_value();
  });
  if (found.ok() && found.value() && kind) return *kind;
  if (found.ok() && found.value() && summary) {
    return ErrorAt(display_name, 0, SummaryIsNotATrace(*summary));
  }
  return ErrorAt(display_name, 0,
                 "unknown format (expected an nsys cuda_gpu_trace, cuda_kern_exec_trace or "
                 "cuda_api_trace CSV, an nsys SQLite export or a PyTorch profiler JSON trace)");
}

}  // namespace

Result<InputKind> DetectInputKind(const std::filesystem::path& path,
                                  std::string_view display_name) {
  // The one kind known by name: a .nsys-rep is readable only through nsys itself.
  if (IsNsysRepPath(path)) return InputKind::kNsysRep;
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path, display_name));
  return DetectFromSource(*source, display_name);
}

Result<InputKind> DetectInputKindOfBytes(std::string_view bytes, std::string_view display_name) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenMemoryByteSource(bytes, display_name));
  return DetectFromSource(*source, display_name);
}

}  // namespace stepstat
