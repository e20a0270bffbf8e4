#include "io/install_paths.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "io/process.h"

#if defined(_WIN32)
#include <io.h>

#include "io/windows_text.h"
#else
#include <unistd.h>
#endif

namespace stepstat {

namespace {

namespace fs = std::filesystem;

#if !defined(_WIN32)
const char* Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}
#endif

bool IsExecutable(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
#if defined(_WIN32)
  return true;
#else
  return access(path.c_str(), X_OK) == 0;
#endif
}

}  // namespace

std::vector<InstallPlace> StandardNsysPlaces() {
#if defined(_WIN32)
  return {{"C:\\Program Files\\NVIDIA Corporation", "Nsight Systems ", "target-windows-x64"}};
#else
  return {{"/opt/nvidia/nsight-systems", "", "bin"}, {"/usr/local", "cuda", "bin"}};
#endif
}

std::optional<fs::path> FindProgram(std::string_view program,
                                    const std::vector<InstallPlace>& places) {
  if (std::optional<fs::path> on_path = FindOnPath(program)) return on_path;
  std::string file(program);
#if defined(_WIN32)
  file += ".exe";
#endif
  for (const InstallPlace& place : places) {
    std::vector<fs::path> candidates;
    std::error_code ec;
    for (fs::directory_iterator it(place.parent, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().starts_with(place.prefix)) {
        candidates.push_back(it->path() / place.subdir / file);
      }
    }
    // Version folders ("2024.6.1", "2025.1.1", "cuda-12.8") sort by name: newest last.
    // A plain name compare ranks "2025.10" below "2025.9", which NVIDIA's year.minor
    // numbering has not produced yet.
    std::sort(candidates.rbegin(), candidates.rend());
    for (const fs::path& candidate : candidates) {
      if (IsExecutable(candidate)) return candidate;
    }
  }
  return std::nullopt;
}

std::optional<fs::path> UserCacheDir() {
#if defined(_WIN32)
  // As UTF-16: a user name outside the ANSI code page is common in this folder's path.
  if (std::wstring local = WideEnv(L"LOCALAPPDATA"); !local.empty()) {
    return fs::path(local) / "stepstat";
  }
#else
  if (const char* xdg = Env("XDG_CACHE_HOME")) return fs::path(xdg) / "stepstat";
  if (const char* home = Env("HOME")) return fs::path(home) / ".cache" / "stepstat";
#endif
  return std::nullopt;
}

bool IsWritableDirectory(const fs::path& dir) {
  std::error_code ec;
  const fs::path folder = dir.empty() ? fs::path(".") : dir;
  if (!fs::is_directory(folder, ec)) return false;
#if defined(_WIN32)
  return _waccess(folder.c_str(), 2) == 0;
#else
  return access(folder.c_str(), W_OK) == 0;
#endif
}

}  // namespace stepstat
