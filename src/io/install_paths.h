// Where programs and caches live on this machine: the standard install places of nsys, the
// user's cache folder, and whether a folder takes new files. The OS-specific bits (the
// environment, access()) stay here, in src/io.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stepstat {

/// A family of install folders: every child of `parent` whose name starts with `prefix`,
/// newest (highest name) first, each with `subdir` appended. E.g. /opt/nvidia/nsight-systems
/// + "" + "bin" finds /opt/nvidia/nsight-systems/2025.1.1/bin.
struct InstallPlace {
  std::filesystem::path parent;
  std::string prefix;
  std::filesystem::path subdir;
};

/// Where NVIDIA installs nsys: /opt/nvidia/nsight-systems/*/bin, /usr/local/cuda*/bin,
/// and on Windows C:\Program Files\NVIDIA Corporation\Nsight Systems *\target-windows-x64.
std::vector<InstallPlace> StandardNsysPlaces();

/// `program` on PATH, else in the first of `places` that holds it (".exe" on Windows).
std::optional<std::filesystem::path> FindProgram(std::string_view program,
                                                 const std::vector<InstallPlace>& places);

/// The user's cache folder for stepstat: $XDG_CACHE_HOME/stepstat, else ~/.cache/stepstat
/// (on Windows %LOCALAPPDATA%\stepstat); nullopt when none of these is set.
std::optional<std::filesystem::path> UserCacheDir();

/// Whether new files can be created in `dir` (it exists and is writable by this user).
bool IsWritableDirectory(const std::filesystem::path& dir);

}  // namespace stepstat
