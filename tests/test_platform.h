// What tests need from the OS, the same on POSIX and Windows: the process id, setting the
// environment, and running the real binary through the platform's shell (sh, or cmd.exe under
// Windows) with a working folder, environment, redirections and its exit code.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(_WIN32)
#include <process.h>
#else
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace stepstat::testing_support {

inline int ProcessId() {
#if defined(_WIN32)
  return _getpid();
#else
  return static_cast<int>(getpid());
#endif
}

inline void SetEnv(const char* name, const std::string& value) {
#if defined(_WIN32)
  _putenv_s(name, value.c_str());
#else
  setenv(name, value.c_str(), 1);
#endif
}

inline void UnsetEnv(const char* name) {
#if defined(_WIN32)
  _putenv_s(name, "");  // an empty value removes the variable on Windows
#else
  unsetenv(name);
#endif
}

/// A run of a program through the shell.
struct ShellCommand {
  std::vector<std::string> argv;  ///< the program, then its arguments (each quoted)
  std::string dir;                ///< cd here first, when not empty
  std::vector<std::pair<std::string, std::string>> env;  ///< set for the run
  std::vector<std::string> unset;                        ///< removed for the run
  std::string stdout_file;                               ///< redirected there when not empty
  std::string stderr_file;                               ///< redirected there when not empty
  bool discard_stdout = false;                           ///< to the null device
  int timeout_seconds = 0;  ///< POSIX only (timeout(1)): a hang fails instead of stalling
};

/// `word` quoted for the shell: single quotes for sh, double quotes for cmd.exe (where
/// arguments hold no double quote of their own).
inline std::string ShellWord(std::string_view word) {
#if defined(_WIN32)
  return "\"" + std::string(word) + "\"";
#else
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
#endif
}

inline std::string ShellLine(const ShellCommand& command) {
  std::string line;
#if defined(_WIN32)
  if (!command.dir.empty()) line += "cd /d " + ShellWord(command.dir) + " && ";
  for (const std::string& name : command.unset) line += "set \"" + name + "=\" && ";
  for (const auto& [name, value] : command.env) line += "set \"" + name + "=" + value + "\" && ";
#else
  if (!command.dir.empty()) line += "cd " + ShellWord(command.dir) + " && ";
  if (!command.env.empty() || !command.unset.empty()) {
    line += "env";
    for (const std::string& name : command.unset) line += " -u " + name;
    for (const auto& [name, value] : command.env) line += " " + ShellWord(name + "=" + value);
    line += " ";
  }
  if (command.timeout_seconds > 0)
    line += "timeout " + std::to_string(command.timeout_seconds) + " ";
#endif
  for (size_t i = 0; i < command.argv.size(); ++i) {
    line += (i == 0 ? "" : " ") + ShellWord(command.argv[i]);
  }
#if defined(_WIN32)
  const std::string null_device = "NUL";
#else
  const std::string null_device = "/dev/null";
#endif
  if (command.discard_stdout) line += " >" + null_device;
  if (!command.stdout_file.empty()) line += " >" + ShellWord(command.stdout_file);
  if (!command.stderr_file.empty()) line += " 2>" + ShellWord(command.stderr_file);
#if defined(_WIN32)
  // cmd /c drops the first and the last quote of a line that starts with one: give it a pair.
  line = "\"" + line + "\"";
#endif
  return line;
}

/// Runs the command; its exit code (128 when it did not exit normally).
inline int RunShell(const ShellCommand& command) {
#if defined(_WIN32)
  // As UTF-16: system() would pass the line through the ANSI code page, losing characters
  // outside it before stepstat could see them. (The path type converts UTF-8 exactly; no
  // windows.h here, whose macros would rename the tests' own TextOut and the like.)
  const std::string line = ShellLine(command);
  const std::wstring wide =
      std::filesystem::path(
          std::u8string_view(reinterpret_cast<const char8_t*>(line.data()), line.size()))
          .native();
  return _wsystem(wide.c_str());
#else
  const int raw = std::system(ShellLine(command).c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
#endif
}

/// Splits a command written as for sh (the golden cases' `cmd` files): words separated by
/// spaces, single or double quotes around a word's parts.
inline std::vector<std::string> SplitShellWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

/// What a run of a program printed, and how it ended.
struct CapturedRun {
  int exit_code = 0;
  std::string out;
  std::string err;
};

/// Runs `program ARGS` (ARGS written as for sh) in `dir` with `env` set; its stdout and
/// stderr go through stdout.txt and stderr.txt in `dir` (overwritten) and come back whole.
inline CapturedRun RunCapturing(const std::string& program, const std::filesystem::path& dir,
                                std::string_view args,
                                std::vector<std::pair<std::string, std::string>> env = {}) {
  const std::filesystem::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  ShellCommand command;
  command.dir = dir.string();
  command.env = std::move(env);
  command.argv = {program};
  for (std::string& word : SplitShellWords(args)) command.argv.push_back(std::move(word));
  command.stdout_file = out.string();
  command.stderr_file = err.string();
  CapturedRun run;
  run.exit_code = RunShell(command);
  for (auto [path, text] : {std::pair{out, &run.out}, std::pair{err, &run.err}}) {
    std::ifstream in(path, std::ios::binary);
    text->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return run;
}

}  // namespace stepstat::testing_support
