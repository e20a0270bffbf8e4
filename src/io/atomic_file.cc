#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include "stepstat/output.h"

#if defined(_WIN32)
#include <windows.h>

#include "io/windows_text.h"
#endif

namespace stepstat {

namespace {

std::FILE* OpenForWriting(const std::filesystem::path& path) {
#if defined(_WIN32)
  return _wfopen(path.c_str(), L"wb");  // fopen() would read a UTF-8 name in the ANSI code page
#else
  return std::fopen(path.c_str(), "wb");
#endif
}

// Puts the finished temp file in the target's place in one step. POSIX rename() replaces the
// target atomically. Windows' rename refuses an existing target; MoveFileEx with
// MOVEFILE_REPLACE_EXISTING replaces it in one metadata operation (both names are in one
// folder, so it never falls back to a copy). It fails while another program has the target
// open without FILE_SHARE_DELETE (an editor, a virus scanner's quick look): retried for about
// two seconds, then an error, and the target keeps its old bytes.
Status MoveIntoPlace(const std::filesystem::path& temp, const std::filesystem::path& path) {
#if defined(_WIN32)
  for (int attempt = 0;; ++attempt) {
    if (MoveFileExW(temp.c_str(), path.c_str(),
                    MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
      return Status::Ok();
    }
    const DWORD error = GetLastError();
    const bool busy = error == ERROR_ACCESS_DENIED || error == ERROR_SHARING_VIOLATION ||
                      error == ERROR_LOCK_VIOLATION;
    if (!busy || attempt == 40) {
      return ErrorAt(path.string(), 0,
                     busy ? "cannot replace the output file: another program has it open"
                          : "cannot write the output file");
    }
    Sleep(50);
  }
#else
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) return ErrorAt(path.string(), 0, "cannot write the output file");
  return Status::Ok();
#endif
}

std::string TempSuffix() {
  std::random_device random;
  return ".tmp" + std::to_string(random() % 1000000);
}

// A device or pipe (-o /dev/null, a FIFO, /dev/stdout on a pipe; -o NUL on Windows) is written in
// place: a temp file renamed over it would replace it with a regular file (as root, /dev/null
// itself).
bool WrittenInPlace(const std::filesystem::path& path) {
#if defined(_WIN32)
  // Devices have names, not folders there: NUL (and NUL.txt, CON, COM1, ...) in any folder,
  // \\.\pipe\NAME; std::filesystem does not call them devices. Ask what the handle is.
  HANDLE handle =
      CreateFileW(path.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                  OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return false;
  const bool device = GetFileType(handle) != FILE_TYPE_DISK;
  CloseHandle(handle);
  return device;
#else
  std::error_code ec;
  const std::filesystem::file_status target = std::filesystem::status(path, ec);
  return !ec && std::filesystem::exists(target) && !std::filesystem::is_regular_file(target) &&
         !std::filesystem::is_directory(target);
#endif
}

}  // namespace

Result<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Open(
    const std::filesystem::path& path) {
  const bool in_place = WrittenInPlace(path);
  std::filesystem::path temp = path;
  if (!in_place) temp += TempSuffix();
  std::FILE* file = OpenForWriting(temp);
  if (file == nullptr) {
    return ErrorAt(path.string(), 0, std::string("cannot write: ") + std::strerror(errno));
  }
  return std::unique_ptr<AtomicFileWriter>(
      new AtomicFileWriter(path, std::move(temp), file, in_place));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  if (in_place_) return;
  std::error_code ignored;
  std::filesystem::remove(temp_, ignored);
}

bool AtomicFileWriter::Append(std::string_view bytes) {
  ok_ = ok_ && std::fwrite(bytes.data(), 1, bytes.size(), file_) == bytes.size();
  return ok_;
}

Status AtomicFileWriter::Commit() {
  bool ok = (std::fclose(file_) == 0) && ok_;
  file_ = nullptr;
  if (in_place_) return ok ? Status::Ok() : ErrorAt(path_.string(), 0, "cannot write the output");
  Status moved =
      ok ? MoveIntoPlace(temp_, path_) : ErrorAt(path_.string(), 0, "cannot write the output file");
  if (!moved.ok()) {
    std::error_code ignored;
    std::filesystem::remove(temp_, ignored);
  }
  return moved;
}

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes) {
  ASSIGN_OR_RETURN(std::unique_ptr<AtomicFileWriter> file, AtomicFileWriter::Open(path));
  file->Append(bytes);
  return file->Commit();
}

bool WriteStdout(std::string_view bytes) {
#if defined(_WIN32)
  // A console would show these UTF-8 bytes through its code page (437, 1252, ...), garbling
  // table bars and any name outside ASCII: it is handed UTF-16 instead.
  if (StdoutIsConsoleHandle()) return std::fflush(stdout) == 0 && WriteConsoleUtf8(bytes);
#endif
  return std::fwrite(bytes.data(), 1, bytes.size(), stdout) == bytes.size() &&
         std::fflush(stdout) == 0;
}

}  // namespace stepstat
