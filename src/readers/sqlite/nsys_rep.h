// .nsys-rep reports are readable only by nsys itself: export them to SQLite with
// `nsys export` (nsys on PATH or in its standard install folders) and read the export.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "io/install_paths.h"
#include "stepstat/read.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat {

/// True for a ".nsys-rep" (or older ".qdrep") name: the one input kind known by extension,
/// since its content cannot be read without nsys anyway.
bool IsNsysRepPath(const std::filesystem::path& path);

/// The SQLite export beside `rep` (<base>.sqlite), made with `nsys export --type sqlite`
/// unless one newer than `rep` is already there (as `nsys stats` leaves it). When `rep`'s
/// folder is read-only the export goes to the user's cache folder (UserCacheDir). nsys is
/// looked for on PATH, then in the install places; without it, an error that says which command
/// to run. Says on stderr that it is exporting, and where.
struct NsysExportOptions {
  std::vector<InstallPlace> nsys_places = StandardNsysPlaces();
  /// Whether a folder takes new files (a seam for tests: root may write anywhere).
  std::function<bool(const std::filesystem::path&)> writable = IsWritableDirectory;
};
Result<std::filesystem::path> SqliteForNsysRep(const std::filesystem::path& rep,
                                               std::string_view display_name,
                                               const NsysExportOptions& options = {});

/// SqliteForNsysRep, then ReadNsysSqlite on the export (messages still name `display_name`).
Result<ReadReport> ReadNsysRep(const std::filesystem::path& rep, std::string_view display_name,
                               TraceSink& sink);

}  // namespace stepstat
