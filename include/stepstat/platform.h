// What main() needs from the OS before anything else, and text ↔ path: the command line as
// UTF-8, standard streams that pass bytes unchanged, and paths made from UTF-8 text. Every
// string in stepstat is UTF-8; these are where that meets Windows' UTF-16 and code pages.
// Implemented in src/io/ (platform.cc), except the inline path conversions.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace stepstat {

/// The program's arguments as UTF-8. On Windows the narrow argv of main() is in the ANSI
/// code page (characters outside it become '?'), so the wide command line is converted
/// instead; elsewhere argv is kept as it is. argv() stays valid while this object lives.
class ProgramArguments {
 public:
  ProgramArguments(int argc, char** argv);
  ProgramArguments(const ProgramArguments&) = delete;
  ProgramArguments& operator=(const ProgramArguments&) = delete;
  int argc() const { return static_cast<int>(args_.size()); }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> pointers_;  ///< into args_, then a null pointer
};

/// Puts stdout and stderr in binary mode on Windows, where text mode writes "\r\n" for each
/// "\n": every platform then prints the same bytes (JSON with LF line ends). Nothing elsewhere.
void UseBinaryStandardStreams();

/// A path from UTF-8 text (an argument, a name built from one). On Windows
/// std::filesystem::path(std::string) decodes with the C library's locale, not UTF-8, and
/// mangles anything outside ASCII; from char8_t it converts exactly. Elsewhere: the same bytes.
inline std::filesystem::path PathFromUtf8(std::string_view utf8) {
  return std::filesystem::path(
      std::u8string_view(reinterpret_cast<const char8_t*>(utf8.data()), utf8.size()));
}

/// Each of `utf8` (arguments) as a path, by PathFromUtf8.
inline std::vector<std::filesystem::path> PathsFromUtf8(const std::vector<std::string>& utf8) {
  std::vector<std::filesystem::path> paths;
  paths.reserve(utf8.size());
  for (const std::string& text : utf8) paths.push_back(PathFromUtf8(text));
  return paths;
}

/// The path as UTF-8 text (for messages and output).
inline std::string PathToUtf8(const std::filesystem::path& path) {
  const std::u8string text = path.u8string();
  return std::string(text.begin(), text.end());
}

}  // namespace stepstat
