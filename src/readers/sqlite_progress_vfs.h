// The pages SQLite reads of an nsys export, counted into the installed progress meter
// (io/read_progress.h): SQLite reads the file itself, past src/io's streams.
#pragma once

namespace stepstat {

/// The name of a VFS to open the export with while a meter is installed, else null (the
/// default VFS, nothing wrapped). The VFS forwards every call to the default one and counts
/// what xRead returns of the main database file, up to the file's size per open (a page
/// read twice counts once as far as the size allows; what an open leaves unread is given
/// back when it closes).
const char* ProgressVfsName();

}  // namespace stepstat
