// The CSV format: TraceWriter's rows into the two (three with --nvtx) nsys CSV reports.
#include <optional>
#include <system_error>

#include "synth/format_writer.h"
#include "synth/pending_file.h"
#include "synth/trace_writer.h"

namespace stepstat::synth {
namespace {

class CsvWriter final : public FormatWriter {
 public:
  CsvWriter(const StepPlan& plan, const SynthOptions& options)
      : rows_(plan),
        gpu_file_(WithSuffix(options.out_base, "_cuda_gpu_trace.csv")),
        exec_file_(WithSuffix(options.out_base, "_cuda_kern_exec_trace.csv")) {
    if (options.nvtx) nvtx_file_.emplace(WithSuffix(options.out_base, "_nvtx_pushpop_trace.csv"));
  }

  Status Open() {
    RETURN_IF_ERROR(gpu_file_.Open());
    RETURN_IF_ERROR(exec_file_.Open());
    gpu_out_.emplace(gpu_file_.get(), gpu_file_.final_path().string());
    exec_out_.emplace(exec_file_.get(), exec_file_.final_path().string());
    TraceWriter::GpuTraceHeader(*gpu_out_);
    TraceWriter::KernExecHeader(*exec_out_);
    if (nvtx_file_) {
      RETURN_IF_ERROR(nvtx_file_->Open());
      nvtx_out_.emplace(nvtx_file_->get(), nvtx_file_->final_path().string());
      TraceWriter::NvtxHeader(*nvtx_out_);
    }
    return Status::Ok();
  }

  Status AppendStep(const StepRows& rows) override {
    RETURN_IF_ERROR(rows_.AppendGpuTrace(rows, *gpu_out_));
    return rows_.AppendKernExec(rows, *exec_out_);
  }

  Status AppendStepRange(int64_t step, int64_t start_ns, int64_t end_ns) override {
    if (!nvtx_out_) return Status::Error("synth: a step range without --nvtx");
    return TraceWriter::AppendNvtxStep(step, start_ns, end_ns, *nvtx_out_);
  }

  Status Commit(SynthResult& result) override {
    RETURN_IF_ERROR(gpu_out_->Flush());
    RETURN_IF_ERROR(exec_out_->Flush());
    if (nvtx_out_) RETURN_IF_ERROR(nvtx_out_->Flush());
    result.bytes = gpu_out_->bytes_written() + exec_out_->bytes_written();
    result.gpu_trace = gpu_file_.final_path();
    result.kern_exec_trace = exec_file_.final_path();
    if (nvtx_file_) {
      RETURN_IF_ERROR(nvtx_file_->Commit());
      result.nvtx_trace = nvtx_file_->final_path();
    }
    RETURN_IF_ERROR(gpu_file_.Commit());
    if (Status status = exec_file_.Commit(); !status.ok()) {
      std::error_code ignored;
      std::filesystem::remove(result.gpu_trace, ignored);
      return status;
    }
    return Status::Ok();
  }

 private:
  TraceWriter rows_;
  PendingFile gpu_file_;
  PendingFile exec_file_;
  std::optional<PendingFile> nvtx_file_;
  std::optional<TextOut> gpu_out_;
  std::optional<TextOut> exec_out_;
  std::optional<TextOut> nvtx_out_;
};

}  // namespace

Result<std::unique_ptr<FormatWriter>> OpenCsvWriter(const StepPlan& plan,
                                                    const SynthOptions& options) {
  auto writer = std::make_unique<CsvWriter>(plan, options);
  RETURN_IF_ERROR(writer->Open());
  return std::unique_ptr<FormatWriter>(std::move(writer));
}

}  // namespace stepstat::synth
