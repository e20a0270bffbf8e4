// .nsys-rep reports are readable only by nsys itself: export them to SQLite with
// `nsys export` (when nsys is on PATH) and read the export.
#pragma once

#include <filesystem>
#include <string_view>

#include "stepstat/read.h"
#include "stepstat/status.h"
#include "stepstat/trace.h"

namespace stepstat {

/// True for a ".nsys-rep" (or older ".qdrep") name: the one input kind known by extension,
/// since its content cannot be read without nsys anyway.
bool IsNsysRepPath(const std::filesystem::path& path);

/// The SQLite export beside `rep` (<base>.sqlite), made with `nsys export --type sqlite`
/// unless one newer than `rep` is already there (as `nsys stats` leaves it). Without nsys on
/// PATH, an error that says which command to run.
Result<std::filesystem::path> SqliteForNsysRep(const std::filesystem::path& rep,
                                               std::string_view display_name);

/// SqliteForNsysRep, then ReadNsysSqlite on the export (messages still name `display_name`).
Result<ReadReport> ReadNsysRep(const std::filesystem::path& rep, std::string_view display_name,
                               TraceSink& sink);

}  // namespace stepstat
