#include "synth/synth.h"

#include <cstdio>
#include <memory>
#include <string>
#include <system_error>

#include "synth/prng.h"
#include "synth/reference_fit.h"
#include "synth/step_plan.h"
#include "synth/step_timeline.h"
#include "synth/trace_writer.h"

namespace stepstat::synth {
namespace {

constexpr int64_t kMaxSteps = 1'000'000;
constexpr int kMaxStreams = 64;

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::filesystem::path WithSuffix(const std::filesystem::path& base, std::string_view suffix) {
  std::filesystem::path path = base;
  path += std::string(suffix);
  return path;
}

// A file written under a temporary name, renamed into place by Commit() and removed otherwise.
class PendingFile {
 public:
  explicit PendingFile(std::filesystem::path final_path)
      : final_path_(std::move(final_path)), temp_path_(WithSuffix(final_path_, ".tmp")) {}
  ~PendingFile() {
    file_.reset();
    if (!committed_) {
      std::error_code ignored;
      std::filesystem::remove(temp_path_, ignored);
    }
  }
  Status Open() {
    file_.reset(std::fopen(temp_path_.string().c_str(), "wb"));
    if (!file_) return Status::Error("cannot create " + temp_path_.string());
    return Status::Ok();
  }
  std::FILE* get() const { return file_.get(); }
  Status Commit() {
    if (std::fclose(file_.release()) != 0)
      return Status::Error("cannot write " + temp_path_.string());
    std::error_code error;
    std::filesystem::rename(temp_path_, final_path_, error);
    if (error)
      return Status::Error("cannot rename to " + final_path_.string() + ": " + error.message());
    committed_ = true;
    return Status::Ok();
  }

 private:
  std::filesystem::path final_path_;
  std::filesystem::path temp_path_;
  File file_;
  bool committed_ = false;
};

}  // namespace

bool FitsReference(const SynthOptions& options) {
  return options.streams == 1 && options.seed == kDefaultSeed;
}

Result<SynthResult> WriteSynthTraces(const SynthOptions& options) {
  if (options.out_base.empty()) return Status::Error("synth needs an output base (--out)");
  if (options.steps < 1 || options.steps > kMaxSteps) {
    return Status::Error("--steps must be between 1 and " + std::to_string(kMaxSteps));
  }
  if (options.streams < 1 || options.streams > kMaxStreams) {
    return Status::Error("--streams must be between 1 and " + std::to_string(kMaxStreams));
  }
  SynthResult result;
  result.gpu_trace = WithSuffix(options.out_base, "_cuda_gpu_trace.csv");
  result.kern_exec_trace = WithSuffix(options.out_base, "_cuda_kern_exec_trace.csv");
  PendingFile gpu_file(result.gpu_trace);
  PendingFile exec_file(result.kern_exec_trace);
  RETURN_IF_ERROR(gpu_file.Open());
  RETURN_IF_ERROR(exec_file.Open());
  CsvOut gpu_out(gpu_file.get(), result.gpu_trace.string());
  CsvOut exec_out(exec_file.get(), result.kern_exec_trace.string());
  TraceWriter::GpuTraceHeader(gpu_out);
  TraceWriter::KernExecHeader(exec_out);

  const StepPlan plan = BuildDitStepPlan();
  TraceWriter writer(plan);
  Prng prng(options.seed);
  StepRows rows;
  TimelineParams params;
  params.streams = options.streams;
  params.gpu_origin_ns = kFirstStepOriginNs;
  for (int64_t step = 0; step < options.steps; ++step) {
    // Steps differ a little in pace (clocks, thermals); the fitted first step runs at 1000.
    int64_t pace = step == 0 ? 1000 : prng.Uniform(985, 1015);
    StepDraw draw = DrawStep(plan, prng, pace);
    if (step == 0 && FitsReference(options)) {
      RETURN_IF_ERROR(FitReferenceStep(plan, draw, params, rows));
    } else {
      params.queue_depth = 1024;
      params.host_pace_permille = prng.Uniform(1400, 1800);
      RETURN_IF_ERROR(SimulateStep(plan, draw, params, rows));
    }
    RETURN_IF_ERROR(writer.AppendGpuTrace(rows, gpu_out));
    RETURN_IF_ERROR(writer.AppendKernExec(rows, exec_out));
    result.gpu_rows += static_cast<int64_t>(rows.kernels.size() + rows.memops.size());
    result.kern_exec_rows += static_cast<int64_t>(rows.kernels.size());
    // The host synchronizes at the end of a step, then starts the next one.
    params.gpu_origin_ns = RoundToTick(rows.end_ns + prng.Uniform(1'500'000, 3'000'000));
    params.first_correlation_id = rows.next_correlation_id + prng.Uniform(2, 9);
  }
  RETURN_IF_ERROR(gpu_out.Flush());
  RETURN_IF_ERROR(exec_out.Flush());
  result.bytes = gpu_out.bytes_written() + exec_out.bytes_written();
  RETURN_IF_ERROR(gpu_file.Commit());
  if (Status status = exec_file.Commit(); !status.ok()) {
    std::error_code ignored;
    std::filesystem::remove(result.gpu_trace, ignored);
    return status;
  }
  return result;
}

}  // namespace stepstat::synth
