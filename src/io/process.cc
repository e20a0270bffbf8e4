#include "io/process.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#if !defined(_WIN32)
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
  const char* path_env = std::getenv("PATH");
  if (path_env == nullptr) return std::nullopt;
  std::string_view dirs(path_env);
  while (true) {
    size_t separator = dirs.find(kPathSeparator);
    std::string_view dir = dirs.substr(0, separator);
    if (!dir.empty()) {
      std::filesystem::path candidate = std::filesystem::path(dir) / program;
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

Result<ProcessResult> RunProcess(const std::vector<std::string>& argv) {
  return Status::Error("running " + (argv.empty() ? std::string("a program") : argv[0]) +
                       " is not supported on Windows yet; run it yourself");
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
