#include "hostile/hostile_support.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "stepstat/step_stats.h"
#include "test_platform.h"

namespace stepstat::hostile {

namespace fs = std::filesystem;

namespace {

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Control bytes and DEL shown as \xNN, so a failure message does not garble the terminal.
std::string Visible(std::string_view text, size_t limit = 300) {
  std::string out;
  for (char c : text.substr(0, limit)) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  if (text.size() > limit) out += "...";
  return out;
}

std::string CheckMessageLine(std::string_view message) {
  for (char c : message) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return "control byte in the message: " + Visible(message);
  }
  return "";
}

}  // namespace

ScratchDir::ScratchDir(std::string_view name) {
  static std::atomic<int> counter{0};
  path_ = fs::temp_directory_path() /
          ("stepstat-hostile-" + std::string(name) + "-" +
           std::to_string(testing_support::ProcessId()) + "-" + std::to_string(counter++));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path ScratchDir::Write(std::string_view name, std::string_view bytes) const {
  fs::path path = path_ / fs::path(std::string(name));
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

RunResult Summarize(const ScratchDir& dir, const std::vector<std::string>& args) {
  fs::path out = dir.path() / "out.json";
  fs::path err = dir.path() / "stderr.txt";
  fs::remove(out);
  // `timeout` only so a hang fails the case instead of stalling the suite; 300 s is far past
  // what any case needs even under the sanitizers on a loaded machine.
  testing_support::ShellCommand command;
  command.dir = dir.path().string();
  command.timeout_seconds = 300;
  command.argv = {STEPSTAT_BINARY, "summarize"};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.argv.insert(command.argv.end(), {"-o", "out.json"});
  command.discard_stdout = true;
  command.stderr_file = err.string();
  RunResult run;
  run.exit_code = testing_support::RunShell(command);
  run.wrote_output = fs::exists(out);
  if (run.wrote_output) run.out = ReadAll(out);
  run.err = ReadAll(err);
  fs::remove(out);
  fs::remove(err);
  return run;
}

std::string CheckOutcome(const RunResult& run) {
  if (run.exit_code == 0) {
    // A success may warn (several GPUs, coarse timestamps) or hint at a better-fitting
    // built-in policy: whole lines of their own kind, clean of the file's bytes like any message.
    for (size_t at = 0; at < run.err.size();) {
      size_t end = run.err.find('\n', at);
      std::string_view line(run.err.data() + at,
                            (end == std::string::npos ? run.err.size() : end) - at);
      if (end == std::string::npos ||
          !(line.starts_with("stepstat: warning: ") || line.starts_with("stepstat: hint: "))) {
        return "exit 0 but stderr: " + Visible(run.err);
      }
      if (std::string problem = CheckMessageLine(line); !problem.empty()) return problem;
      at = end + 1;
    }
    if (!run.wrote_output) return "exit 0 but no output file";
    if (run.out.substr(0, 2) != "{\n" || run.out.substr(run.out.size() - 2) != "}\n") {
      return "exit 0 but the output is not a JSON object: " + Visible(run.out);
    }
    // json.dumps(ensure_ascii) with indent: printable ASCII and newlines, nothing else.
    for (size_t i = 0; i < run.out.size(); ++i) {
      auto byte = static_cast<unsigned char>(run.out[i]);
      if ((byte < 0x20 && byte != '\n') || byte >= 0x7f) {
        return "raw byte " + Visible(run.out.substr(i, 1)) + " in the JSON at offset " +
               std::to_string(i) + ": ..." + Visible(run.out.substr(i > 40 ? i - 40 : 0, 80)) +
               "...";
      }
    }
    return "";
  }
  if (run.exit_code != 2)
    return "exit " + std::to_string(run.exit_code) + ", stderr: " + Visible(run.err);
  if (run.wrote_output) return "exit 2 but an output file was written";
  if (run.err.substr(0, 10) != "stepstat: ")
    return "stderr does not start with 'stepstat: ': " + Visible(run.err);
  if (run.err.back() != '\n' || run.err.find('\n') != run.err.size() - 1) {
    return "stderr is not exactly one line: " + Visible(run.err);
  }
  return CheckMessageLine(std::string_view(run.err).substr(0, run.err.size() - 1));
}

std::string SummarizeInProcess(const fs::path& path, const Policy& policy) {
  Result<StepStats> stats = Status::Error("unset");
  Result<SummaryInputs> inputs = ResolveInputs({path.string()});
  if (inputs.ok()) stats = stepstat::Summarize(inputs.value(), policy);
  Status status = inputs.ok() ? stats.status() : inputs.status();
  if (status.ok()) return "";
  const std::string& message = status.message();
  if (message.substr(0, path.string().size() + 1) != path.string() + ":") {
    return "BAD: the message does not start with the file name: " + Visible(message);
  }
  if (std::string bad = CheckMessageLine(message); !bad.empty()) return "BAD: " + bad;
  return message;
}

std::string ReadSourceFile(std::string_view relative_path) {
  return ReadAll(fs::path(STEPSTAT_SOURCE_DIR) / fs::path(std::string(relative_path)));
}

}  // namespace stepstat::hostile
