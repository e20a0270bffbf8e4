// Where the ledger is, which commit a run was measured at, and what its inputs were.
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/content_hash.h"
#include "io/input_stream.h"
#include "io/sources.h"
#include "stepstat/ledger.h"
#include "stepstat/platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> FirstLine(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

bool IsCommitId(std::string_view text) {
  return text.size() == 40 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

/// The .git folder of the work tree holding `dir`: a folder, or for a linked worktree or a
/// submodule a file "gitdir: <path>".
std::optional<fs::path> GitDir(fs::path dir) {
  std::error_code error;
  dir = fs::absolute(dir, error);
  for (; !dir.empty(); dir = dir.parent_path()) {
    fs::path dot_git = dir / ".git";
    if (fs::is_directory(dot_git, error)) return dot_git;
    if (fs::is_regular_file(dot_git, error)) {
      std::optional<std::string> line = FirstLine(dot_git);
      if (!line || !line->starts_with("gitdir: ")) return std::nullopt;
      fs::path target = line->substr(8);
      return target.is_absolute() ? target : dir / target;
    }
    if (dir == dir.parent_path()) break;
  }
  return std::nullopt;
}

}  // namespace

fs::path ResolveLedgerPath(const std::optional<std::string>& flag, const char* env,
                           const fs::path& cwd) {
  if (flag) return PathFromUtf8(*flag);  // UTF-8, as every argument (exact on Windows too)
  if (env && *env) return env;
  return cwd / ".stepstat" / "ledger.sqlite";
}

std::optional<std::string> GitCommitOf(const fs::path& dir) {
  std::optional<fs::path> git_dir = GitDir(dir);
  if (!git_dir) return std::nullopt;
  std::optional<std::string> head = FirstLine(*git_dir / "HEAD");
  if (!head) return std::nullopt;
  if (IsCommitId(*head)) return head;  // detached
  if (!head->starts_with("ref: ")) return std::nullopt;
  const std::string ref = head->substr(5);
  // A linked worktree keeps its HEAD; branches live in the common folder it points to.
  fs::path common = *git_dir;
  if (std::optional<std::string> shared = FirstLine(*git_dir / "commondir")) {
    common = fs::path(*shared).is_absolute() ? fs::path(*shared) : *git_dir / *shared;
  }
  for (const fs::path& base : {*git_dir, common}) {
    if (std::optional<std::string> id = FirstLine(base / ref); id && IsCommitId(*id)) return id;
  }
  std::ifstream packed(common / "packed-refs");
  std::string line;
  while (std::getline(packed, line)) {  // "<id> <ref>", comments '#', peeled tags '^'
    if (line.size() > 41 && line[40] == ' ' && line.substr(41) == ref &&
        IsCommitId(line.substr(0, 40))) {
      return line.substr(0, 40);
    }
  }
  return std::nullopt;
}

namespace {

// Feeds one file's bytes to `hash`; their count. Read as the readers read a plain file (the
// same OS calls and errors), into one reused buffer that stays in the cache.
Result<uint64_t> HashFileBytes(const fs::path& file, ContentHash& hash) {
  ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileStream(file, PathToUtf8(file)));
  std::vector<char> buffer(kReadBufferBytes);
  uint64_t size = 0;
  for (;;) {
    ASSIGN_OR_RETURN(size_t got, stream->Read(buffer.data(), buffer.size()));
    if (got == 0) return size;
    hash.Update(std::string_view(buffer.data(), got));
    size += got;
  }
}

}  // namespace

Result<std::string> HashInputFiles(const std::vector<fs::path>& files) {
  ContentHash hash;
  for (const fs::path& file : files) {
    ASSIGN_OR_RETURN(uint64_t size, HashFileBytes(file, hash));
    // Each file's size after its bytes: "ab"+"c" differs from "a"+"bc".
    std::string size_bytes(8, '\0');
    for (size_t i = 0; i < 8; ++i) size_bytes[i] = static_cast<char>((size >> (8 * i)) & 0xFF);
    hash.Update(size_bytes);
  }
  return fmt::format("{:016x}", hash.Value());
}

}  // namespace stepstat
