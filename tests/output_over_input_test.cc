// Issue 13: `stepstat summarize run -o run_cuda_gpu_trace.csv` overwrote the trace with its
// own summary. Every command with -o must refuse an output that is one of its inputs (by
// name, symbolic link, hard link or the nsys base's files): exit 2, one line naming the
// file, the input untouched. The binary runs in a scratch copy, so a regression damages no
// fixture of the repository.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_platform.h"

namespace {

namespace fs = std::filesystem;
namespace testing_support = stepstat::testing_support;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

class OutputOverInput : public testing::Test {
 protected:
  void SetUp() override {
    // The process id too: other worktrees on this machine run the same tests in the same /tmp.
    dir_ = fs::temp_directory_path() /
           ("stepstat_output_over_input_" +
            std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(testing_support::ProcessId()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::path golden = fs::path(STEPSTAT_SOURCE_DIR) / "tests" / "golden" / "steps-nvtx-table";
    for (const char* name :
         {"run_cuda_gpu_trace.csv", "run_cuda_kern_exec_trace.csv", "run_nvtx_pushpop_trace.csv"}) {
      fs::copy_file(golden / name, dir_ / name);
    }
    // Windows creates symbolic links only with a privilege (Developer Mode) and wine not at
    // all: there the link cases are left out, saying so, and the rest still run.
    std::error_code link_error;
    fs::create_symlink(dir_ / "run_cuda_gpu_trace.csv", dir_ / "link.csv", link_error);
    symlinks_ = !link_error;
    if (!symlinks_)
      std::printf("no symbolic links here (%s): link cases skipped\n",
                  link_error.message().c_str());
    fs::create_hard_link(dir_ / "run_cuda_kern_exec_trace.csv", dir_ / "hard.csv");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs stepstat in the scratch folder; returns the exit code, stderr in `err`.
  int Run(const std::string& args, std::string* err) {
    fs::path err_file = dir_ / "stderr.txt";
    testing_support::ShellCommand command;
    command.dir = dir_.string();
    command.argv = {STEPSTAT_BINARY};
    for (std::string& word : testing_support::SplitShellWords(args)) {
      command.argv.push_back(std::move(word));
    }
    command.discard_stdout = true;
    command.stderr_file = err_file.string();
    int exit_code = testing_support::RunShell(command);
    *err = ReadAll(err_file);
    fs::remove(err_file);
    return exit_code;
  }

  fs::path dir_;
  bool symlinks_ = true;
};

TEST_F(OutputOverInput, EveryCommandRefusesAndLeavesTheInputAlone) {
  const std::string gpu = ReadAll(dir_ / "run_cuda_gpu_trace.csv");
  const std::string kexec = ReadAll(dir_ / "run_cuda_kern_exec_trace.csv");
  const std::string nvtx = ReadAll(dir_ / "run_nvtx_pushpop_trace.csv");
  struct Case {
    std::string args;
    std::string victim;  ///< what the message names
  };
  for (const Case& c : {
           Case{"summarize run -o run_cuda_gpu_trace.csv", "run_cuda_gpu_trace.csv"},
           Case{"summarize run -o run_cuda_kern_exec_trace.csv", "run_cuda_kern_exec_trace.csv"},
           Case{"summarize run -o ./link.csv", "./link.csv"},
           Case{"summarize run -o hard.csv", "hard.csv"},
           Case{"summarize run --details --format markdown -o run_cuda_gpu_trace.csv",
                "run_cuda_gpu_trace.csv"},
           Case{"summarize run run_nvtx_pushpop_trace.csv --steps train_step --step 1 -o "
                "run_nvtx_pushpop_trace.csv",
                "run_nvtx_pushpop_trace.csv"},
           Case{"steps run run_nvtx_pushpop_trace.csv --steps train_step -o "
                "run_nvtx_pushpop_trace.csv",
                "run_nvtx_pushpop_trace.csv"},
           Case{"steps run --format json -o link.csv", "link.csv"},
           Case{"classify run_cuda_gpu_trace.csv --format csv -o run_cuda_gpu_trace.csv",
                "run_cuda_gpu_trace.csv"},
       }) {
    if (!symlinks_ && c.args.find("link.csv") != std::string::npos) continue;
    std::string err;
    EXPECT_EQ(Run(c.args, &err), 2) << c.args;
    EXPECT_EQ(err.rfind("stepstat: " + c.victim + ": is an input of this run", 0), 0u)
        << c.args << "\n"
        << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(ReadAll(dir_ / "run_cuda_gpu_trace.csv"), gpu) << c.args;
    EXPECT_EQ(ReadAll(dir_ / "run_cuda_kern_exec_trace.csv"), kexec) << c.args;
    EXPECT_EQ(ReadAll(dir_ / "run_nvtx_pushpop_trace.csv"), nvtx) << c.args;
    if (symlinks_) {
      EXPECT_TRUE(fs::is_symlink(dir_ / "link.csv")) << c.args;
    }
  }
  // A new file beside the inputs is fine.
  std::string err;
  EXPECT_EQ(Run("summarize run -o stats.json", &err), 0) << err;
  EXPECT_TRUE(fs::exists(dir_ / "stats.json"));
}

}  // namespace
