// The pages SQLite reads of an nsys export, counted into the installed progress meter
// (io/read_progress.h): SQLite reads the file itself, past src/io's streams.
#pragma once

struct sqlite3;

namespace stepstat {

class FileProgress;

/// The name of a VFS to open the export with while a meter is installed, else null (the
/// default VFS, nothing wrapped). The VFS forwards every call to the default one and counts
/// what xRead returns of the main database file, up to the file's size per open (a page
/// read twice counts once as far as the size allows; what an open leaves unread is given
/// back when it closes).
const char* ProgressVfsName();

/// The share of the meter that `db`'s open of its main file counts into, when `db` was
/// opened through this VFS with a meter installed; else null. For a reader of the same file
/// on the connection's thread (the page reader) to count what it reads where the connection
/// already planned the file's bytes, instead of planning them once more.
FileProgress* ConnectionProgress(sqlite3* db);

}  // namespace stepstat
