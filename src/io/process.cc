#include "io/process.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#if defined(_WIN32)
#include <windows.h>

#include "io/windows_text.h"
#else
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;
#endif

namespace stepstat {
namespace {

constexpr size_t kMaxOutput = 64 * 1024;

#if defined(_WIN32)
constexpr char kPathSeparator = ';';
#else
constexpr char kPathSeparator = ':';
#endif

bool IsExecutableFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
#if defined(_WIN32)
  return true;
#else
  return access(path.c_str(), X_OK) == 0;
#endif
}

}  // namespace

std::optional<std::filesystem::path> FindOnPath(std::string_view program) {
#if defined(_WIN32)
  // Read as UTF-16: getenv() gives PATH in the ANSI code page, losing other characters.
  const std::wstring path_env = WideEnv(L"PATH");
  if (path_env.empty()) return std::nullopt;
  std::wstring_view dirs(path_env);
  const std::filesystem::path name(WideFromUtf8(program));
#else
  const char* path_env = std::getenv("PATH");
  if (path_env == nullptr) return std::nullopt;
  std::string_view dirs(path_env);
  const std::filesystem::path name(program);
#endif
  while (true) {
    size_t separator = dirs.find(kPathSeparator);
    auto dir = dirs.substr(0, separator);
    if (!dir.empty()) {
      std::filesystem::path candidate = std::filesystem::path(dir) / name;
      if (IsExecutableFile(candidate)) return candidate;
#if defined(_WIN32)
      candidate += ".exe";
      if (IsExecutableFile(candidate)) return candidate;
#endif
    }
    if (separator == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(separator + 1);
  }
}

#if defined(_WIN32)

namespace {

std::string WindowsError(DWORD error) { return "error " + std::to_string(error); }

// Closes a handle when it goes out of scope.
struct OwnedHandle {
  HANDLE handle = nullptr;
  OwnedHandle() = default;
  explicit OwnedHandle(HANDLE h) : handle(h) {}
  OwnedHandle(const OwnedHandle&) = delete;
  OwnedHandle& operator=(const OwnedHandle&) = delete;
  ~OwnedHandle() { Close(); }
  void Close() {
    if (handle != nullptr && handle != INVALID_HANDLE_VALUE) CloseHandle(handle);
    handle = nullptr;
  }
};

}  // namespace

std::wstring WindowsCommandLine(const std::vector<std::string>& argv) {
  std::wstring line;
  for (const std::string& arg : argv) {
    if (!line.empty()) line += L' ';
    const std::wstring wide = WideFromUtf8(arg);
    if (!wide.empty() && wide.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
      line += wide;
      continue;
    }
    // The rule CommandLineToArgvW and the C runtime parse by: backslashes are literal except
    // before a quote, where 2n (+1 for a quote of the argument's own) stand for n.
    line += L'"';
    size_t backslashes = 0;
    for (wchar_t c : wide) {
      if (c == L'\\') {
        ++backslashes;
        continue;
      }
      if (c == L'"') backslashes = 2 * backslashes + 1;
      line.append(backslashes, L'\\');
      backslashes = 0;
      line += c;
    }
    line.append(2 * backslashes, L'\\');
    line += L'"';
  }
  return line;
}

Result<ProcessResult> RunProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) return Status::Error("RunProcess: no program given");
  // One pipe for the child's stdout and stderr; only its write end is inherited.
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  OwnedHandle read_end, write_end;
  if (!CreatePipe(&read_end.handle, &write_end.handle, &inherit, 0)) {
    return Status::Error("cannot run " + argv[0] + ": pipe: " + WindowsError(GetLastError()));
  }
  SetHandleInformation(read_end.handle, HANDLE_FLAG_INHERIT, 0);
  OwnedHandle null_in(CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
                                  &inherit, OPEN_EXISTING, 0, nullptr));

  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = null_in.handle;
  startup.hStdOutput = write_end.handle;
  startup.hStdError = write_end.handle;
  PROCESS_INFORMATION process{};
  std::wstring command_line = WindowsCommandLine(argv);
  // No application name: CreateProcessW searches the program's folder, the system folders and
  // PATH, and appends .exe, as a console does.
  if (!CreateProcessW(nullptr, command_line.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW,
                      nullptr, nullptr, &startup, &process)) {
    const DWORD error = GetLastError();
    return Status::Error("cannot run " + argv[0] + ": " +
                         (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND
                              ? std::string("no such program")
                              : WindowsError(error)));
  }
  OwnedHandle process_handle(process.hProcess), thread_handle(process.hThread);
  write_end.Close();  // else the pipe never reports its end

  ProcessResult result;
  char buffer[8192];
  DWORD n = 0;
  while (ReadFile(read_end.handle, buffer, sizeof buffer, &n, nullptr) && n > 0) {
    result.output.append(buffer, n);
    if (result.output.size() > 2 * kMaxOutput)
      result.output.erase(0, result.output.size() - kMaxOutput);
  }
  if (result.output.size() > kMaxOutput) result.output.erase(0, result.output.size() - kMaxOutput);
  WaitForSingleObject(process_handle.handle, INFINITE);
  DWORD exit_code = 0;
  if (!GetExitCodeProcess(process_handle.handle, &exit_code)) {
    return Status::Error("waiting for " + argv[0] + ": " + WindowsError(GetLastError()));
  }
  result.exit_code = static_cast<int>(exit_code);
  return result;
}

#else

Result<ProcessResult> RunProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) return Status::Error("RunProcess: no program given");
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    return Status::Error("cannot run " + argv[0] + ": pipe: " + std::strerror(errno));
  }
  // Neither end may leak into this or any other child: a stray write end means no EOF here.
  fcntl(pipe_fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(pipe_fds[1], F_SETFD, FD_CLOEXEC);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawn_error = posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawn_error != 0) {
    close(pipe_fds[0]);
    return Status::Error("cannot run " + argv[0] + ": " + std::strerror(spawn_error));
  }

  ProcessResult result;
  char buffer[8192];
  for (;;) {
    ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
    if (result.output.size() > 2 * kMaxOutput)
      result.output.erase(0, result.output.size() - kMaxOutput);
  }
  close(pipe_fds[0]);
  if (result.output.size() > kMaxOutput) result.output.erase(0, result.output.size() - kMaxOutput);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return Status::Error("waiting for " + argv[0] + ": " + std::strerror(errno));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

#endif

}  // namespace stepstat
