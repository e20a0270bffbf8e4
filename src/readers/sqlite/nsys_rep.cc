#include "readers/sqlite/nsys_rep.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "io/install_paths.h"
#include "io/process.h"
#include "readers/sqlite/nsys_sqlite.h"

namespace stepstat {
namespace {

constexpr std::string_view kRepExtensions[] = {".nsys-rep", ".qdrep"};

std::filesystem::path SqlitePathFor(const std::filesystem::path& rep) {
  std::string name = rep.filename().string();
  for (std::string_view extension : kRepExtensions) {
    if (name.size() > extension.size() && name.ends_with(extension)) {
      name.resize(name.size() - extension.size());
      break;
    }
  }
  return rep.parent_path() / (name + ".sqlite");
}

// <stem>-<hash of the absolute path>.sqlite: reports of the same name in different folders
// must not share an export. FNV-1a, so the name is the same on every run and platform.
std::string CacheNameFor(const std::filesystem::path& rep) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(rep, ec);
  uint64_t hash = 14695981039346656037ull;
  for (char c : (ec ? rep : absolute).string()) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return SqlitePathFor(rep).stem().string() + "-" + hex + ".sqlite";
}

// Shell-safe enough for a message: quote when there is anything but plain characters.
std::string QuoteForMessage(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-./+:=@%,") == std::string::npos) {
    return text;
  }
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

bool IsNsysRepPath(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  for (std::string_view extension : kRepExtensions) {
    if (name.size() > extension.size() && name.ends_with(extension)) return true;
  }
  return false;
}

Result<std::filesystem::path> SqliteForNsysRep(const std::filesystem::path& rep,
                                               std::string_view display_name,
                                               const NsysExportOptions& options) {
  std::error_code ec;
  auto rep_time = std::filesystem::last_write_time(rep, ec);
  if (ec) return ErrorAt(display_name, 0, "cannot read: " + ec.message());
  std::filesystem::path sqlite = SqlitePathFor(rep);
  // Same mtime counts as up to date: `nsys stats` writes the export right after the report.
  auto up_to_date = [&rep_time](const std::filesystem::path& path, bool* exists) {
    std::error_code time_ec;
    auto time = std::filesystem::last_write_time(path, time_ec);
    *exists = !time_ec;
    return *exists && time >= rep_time;
  };
  bool sqlite_exists = false;
  if (up_to_date(sqlite, &sqlite_exists)) return sqlite;
  // A report in a read-only folder (a shared archive) is exported to the user's cache.
  bool cached = false;
  const std::filesystem::path folder =
      sqlite.parent_path().empty() ? std::filesystem::path(".") : sqlite.parent_path();
  if (!options.writable(folder)) {
    std::optional<std::filesystem::path> cache = UserCacheDir();
    if (!cache) {
      return ErrorAt(display_name, 0,
                     "its folder is read-only and there is no cache folder (set "
                     "XDG_CACHE_HOME or HOME) to export it to");
    }
    std::filesystem::create_directories(*cache, ec);
    sqlite = *cache / CacheNameFor(rep);
    if (up_to_date(sqlite, &sqlite_exists)) return sqlite;
    cached = true;
  }

  std::optional<std::filesystem::path> nsys = FindProgram("nsys", options.nsys_places);
  if (!nsys) {
    return ErrorAt(display_name, 0,
                   "reading .nsys-rep needs nsys (looked on PATH and in the standard install "
                   "folders); export it with: nsys export --type sqlite --output " +
                       QuoteForMessage(sqlite.string()) + " " + QuoteForMessage(rep.string()));
  }
  // nsys takes from seconds to minutes; say what is happening, and where the export goes
  // when it is not beside the report.
  std::fprintf(stderr, "stepstat: %s: exporting to %s with %s%s...\n",
               std::string(display_name).c_str(), sqlite.string().c_str(), nsys->string().c_str(),
               cached ? " (the report's folder is read-only)" : "");
  std::vector<std::string> argv = {nsys->string(), "export", "--type", "sqlite"};
  if (sqlite_exists) {  // stale: nsys refuses to overwrite without being told to
    argv.insert(argv.end(), {"--force-overwrite", "true"});
  }
  argv.insert(argv.end(), {"--output", sqlite.string(), rep.string()});
  ASSIGN_OR_RETURN(ProcessResult run, RunProcess(argv));
  if (run.exit_code != 0) {
    std::string output = run.output;
    while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
    return ErrorAt(display_name, 0,
                   "nsys export failed (exit code " + std::to_string(run.exit_code) + ")" +
                       (output.empty() ? std::string() : ":\n" + output));
  }
  if (!std::filesystem::exists(sqlite, ec)) {
    return ErrorAt(display_name, 0, "nsys export succeeded but wrote no " + sqlite.string());
  }
  return sqlite;
}

Result<ReadReport> ReadNsysRep(const std::filesystem::path& rep, std::string_view display_name,
                               TraceSink& sink) {
  ASSIGN_OR_RETURN(std::filesystem::path sqlite, SqliteForNsysRep(rep, display_name));
  return ReadNsysSqlite(sqlite, display_name, sink);
}

}  // namespace stepstat
