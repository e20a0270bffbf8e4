#include "synth/synth.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
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
// How long before its first GPU operation a step's NVTX range opens (--nvtx).
constexpr int64_t kNvtxLeadNs = 20'000;

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
  std::optional<PendingFile> nvtx_file;
  std::optional<CsvOut> nvtx_out;
  if (options.nvtx) {
    result.nvtx_trace = WithSuffix(options.out_base, "_nvtx_pushpop_trace.csv");
    nvtx_file.emplace(result.nvtx_trace);
    RETURN_IF_ERROR(nvtx_file->Open());
    nvtx_out.emplace(nvtx_file->get(), result.nvtx_trace.string());
    TraceWriter::NvtxHeader(*nvtx_out);
  }
  // The previous step's range: it ends at the host's sync, or where the next step's first
  // launch starts if that comes sooner.
  int64_t range_start = -1, range_end = -1;

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
    if (nvtx_out && !rows.kernels.empty()) {
      // The host issues the step's first copies before they run: the range opens before
      // both its first launch and its first GPU operation.
      int64_t first_launch = rows.kernels.front().api_start;
      int64_t last_api_end = 0;
      for (const KernelRow& k : rows.kernels) {
        first_launch = std::min(first_launch, k.api_start);
        last_api_end = std::max(last_api_end, k.api_start + k.api_duration);
      }
      for (const MemopRow& m : rows.memops) first_launch = std::min(first_launch, m.start);
      first_launch -= kNvtxLeadNs;
      if (range_start >= 0) {
        RETURN_IF_ERROR(TraceWriter::AppendNvtxStep(step - 1, range_start,
                                                    std::min(range_end, first_launch), *nvtx_out));
      }
      range_start = first_launch;
      range_end = std::max(last_api_end, rows.end_ns);
    }
    result.gpu_rows += static_cast<int64_t>(rows.kernels.size() + rows.memops.size());
    result.kern_exec_rows += static_cast<int64_t>(rows.kernels.size());
    // The host synchronizes at the end of a step, then starts the next one.
    params.gpu_origin_ns = RoundToTick(rows.end_ns + prng.Uniform(1'500'000, 3'000'000));
    params.first_correlation_id = rows.next_correlation_id + prng.Uniform(2, 9);
  }
  if (nvtx_out && range_start >= 0) {
    RETURN_IF_ERROR(
        TraceWriter::AppendNvtxStep(options.steps - 1, range_start, range_end, *nvtx_out));
  }
  RETURN_IF_ERROR(gpu_out.Flush());
  RETURN_IF_ERROR(exec_out.Flush());
  if (nvtx_out) RETURN_IF_ERROR(nvtx_out->Flush());
  result.bytes = gpu_out.bytes_written() + exec_out.bytes_written();
  if (nvtx_file) RETURN_IF_ERROR(nvtx_file->Commit());
  RETURN_IF_ERROR(gpu_file.Commit());
  if (Status status = exec_file.Commit(); !status.ok()) {
    std::error_code ignored;
    std::filesystem::remove(result.gpu_trace, ignored);
    return status;
  }
  return result;
}

}  // namespace stepstat::synth
