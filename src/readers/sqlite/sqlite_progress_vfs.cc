#include "readers/sqlite/sqlite_progress_vfs.h"

#include <sqlite3.h>

#include <memory>
#include <mutex>
#include <new>

#include "io/read_progress.h"

namespace stepstat {

namespace {

constexpr const char* kVfsName = "stepstat-progress";

sqlite3_vfs* real_vfs = nullptr;  // set once, before the wrapper is registered

// Our file: SQLite allocates szOsFile bytes; the default VFS's file lives after ours.
struct CountedFile {
  sqlite3_file base;  // first: SQLite reads pMethods here
  FileProgress* progress;
  sqlite3_file* real;
};

sqlite3_file* Real(sqlite3_file* file) { return reinterpret_cast<CountedFile*>(file)->real; }

int Close(sqlite3_file* file) {
  auto* counted = reinterpret_cast<CountedFile*>(file);
  delete counted->progress;  // gives back what this open left unread
  counted->progress = nullptr;
  return counted->real->pMethods->xClose(counted->real);
}

int Read(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
  auto* counted = reinterpret_cast<CountedFile*>(file);
  const int rc = counted->real->pMethods->xRead(counted->real, buffer, amount, offset);
  if (rc == SQLITE_OK && counted->progress != nullptr) counted->progress->ReadWithin(amount);
  return rc;
}

int Write(sqlite3_file* f, const void* b, int n, sqlite3_int64 o) {
  return Real(f)->pMethods->xWrite(Real(f), b, n, o);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) { return Real(f)->pMethods->xSync(Real(f), flags); }
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int lock) { return Real(f)->pMethods->xLock(Real(f), lock); }
int Unlock(sqlite3_file* f, int lock) { return Real(f)->pMethods->xUnlock(Real(f), lock); }
int CheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}
int ShmMap(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int remove) { return Real(f)->pMethods->xShmUnmap(Real(f), remove); }
int Fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  return Real(f)->pMethods->xFetch(Real(f), offset, amount, out);
}
int Unfetch(sqlite3_file* f, sqlite3_int64 offset, void* page) {
  return Real(f)->pMethods->xUnfetch(Real(f), offset, page);
}

// Forwarding methods of each version the default VFS's file may have; the version given
// to SQLite is the real file's, so it calls only what the real file offers.
sqlite3_io_methods MethodsOfVersion(int version) {
  sqlite3_io_methods methods{};
  methods.iVersion = version;
  methods.xClose = Close;
  methods.xRead = Read;
  methods.xWrite = Write;
  methods.xTruncate = Truncate;
  methods.xSync = Sync;
  methods.xFileSize = FileSize;
  methods.xLock = Lock;
  methods.xUnlock = Unlock;
  methods.xCheckReservedLock = CheckReservedLock;
  methods.xFileControl = FileControl;
  methods.xSectorSize = SectorSize;
  methods.xDeviceCharacteristics = DeviceCharacteristics;
  if (version >= 2) {
    methods.xShmMap = ShmMap;
    methods.xShmLock = ShmLock;
    methods.xShmBarrier = ShmBarrier;
    methods.xShmUnmap = ShmUnmap;
  }
  if (version >= 3) {
    methods.xFetch = Fetch;
    methods.xUnfetch = Unfetch;
  }
  return methods;
}

const sqlite3_io_methods kMethods[] = {MethodsOfVersion(1), MethodsOfVersion(2),
                                       MethodsOfVersion(3)};

int Open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  auto* counted = reinterpret_cast<CountedFile*>(file);
  counted->base.pMethods = nullptr;
  counted->progress = nullptr;
  counted->real = reinterpret_cast<sqlite3_file*>(counted + 1);
  const int rc = real_vfs->xOpen(real_vfs, name, counted->real, flags, out_flags);
  // A real file with methods is closed by SQLite through ours, even after a failed open.
  if (counted->real->pMethods == nullptr) return rc;
  const int version = counted->real->pMethods->iVersion;
  counted->base.pMethods = &kMethods[version < 1 ? 0 : version > 3 ? 2 : version - 1];
  if (rc != SQLITE_OK) return rc;
  ProgressMeter* meter = InstalledProgress();
  sqlite3_int64 size = 0;
  if (meter != nullptr && (flags & SQLITE_OPEN_MAIN_DB) != 0 &&
      counted->real->pMethods->xFileSize(counted->real, &size) == SQLITE_OK && size > 0) {
    counted->progress = new (std::nothrow) FileProgress(*meter, static_cast<uint64_t>(size));
  }
  return SQLITE_OK;
}

}  // namespace

FileProgress* ConnectionProgress(sqlite3* db) {
  sqlite3_file* file = nullptr;
  if (db == nullptr ||
      sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr) {
    return nullptr;
  }
  for (const sqlite3_io_methods& methods : kMethods) {
    if (file->pMethods == &methods) return reinterpret_cast<CountedFile*>(file)->progress;
  }
  return nullptr;  // another VFS's file
}

const char* ProgressVfsName() {
  if (InstalledProgress() == nullptr) return nullptr;
  static std::once_flag registered;
  static bool ok = false;
  std::call_once(registered, [] {
    real_vfs = sqlite3_vfs_find(nullptr);
    if (real_vfs == nullptr) return;
    static sqlite3_vfs wrapper = *real_vfs;  // every other call as the default VFS makes it
    wrapper.szOsFile = static_cast<int>(sizeof(CountedFile)) + real_vfs->szOsFile;
    wrapper.zName = kVfsName;
    wrapper.pNext = nullptr;
    wrapper.xOpen = Open;
    ok = sqlite3_vfs_register(&wrapper, /*makeDflt=*/0) == SQLITE_OK;
  });
  return ok ? kVfsName : nullptr;
}

}  // namespace stepstat
