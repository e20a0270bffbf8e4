#include "readers/nsys_rep.h"

#include <string>
#include <system_error>
#include <vector>

#include "io/process.h"
#include "readers/nsys_sqlite.h"

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
                                               std::string_view display_name) {
  std::error_code ec;
  auto rep_time = std::filesystem::last_write_time(rep, ec);
  if (ec) return ErrorAt(display_name, 0, "cannot read: " + ec.message());
  const std::filesystem::path sqlite = SqlitePathFor(rep);
  auto sqlite_time = std::filesystem::last_write_time(sqlite, ec);
  const bool sqlite_exists = !ec;
  // Same mtime counts as up to date: `nsys stats` writes the export right after the report.
  if (sqlite_exists && sqlite_time >= rep_time) return sqlite;

  std::optional<std::filesystem::path> nsys = FindOnPath("nsys");
  if (!nsys) {
    return ErrorAt(display_name, 0,
                   "reading .nsys-rep needs nsys on PATH; export it with: nsys export --type "
                   "sqlite --output " +
                       QuoteForMessage(sqlite.string()) + " " + QuoteForMessage(rep.string()));
  }
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
