// The Kineto format: one PyTorch profiler trace (torch.profiler export_chrome_trace, the
// layout of PyTorch 2.x), written as a stream of events. "ts"/"dur" are microseconds with
// three decimals relative to baseTimeNanoseconds, so every nanosecond survives exactly.
#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "synth/format_writer.h"
#include "synth/kernel_catalog.h"
#include "synth/pending_file.h"
#include "synth/text_out.h"
#include "synth/trace_rows.h"

namespace stepstat::synth {
namespace {

// The profiler started this long before the first step, and its clock's zero is the
// (fixed, so output is deterministic) wall time baseTimeNanoseconds.
constexpr int64_t kProfilerStartNs = kFirstStepOriginNs - 1'000'000'000;
constexpr int64_t kBaseTimeNanoseconds = 1'764'700'000'000'000'000;

// `text` as a JSON string, quotes included.
std::string JsonString(std::string_view text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      constexpr char kHex[] = "0123456789abcdef";
      quoted += "\\u00";
      quoted += kHex[(c >> 4) & 0xF];
      quoted += kHex[c & 0xF];
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

// Kineto's memcpy and memset names.
std::string_view KinetoMemopName(MemopKind kind) {
  switch (kind) {
    case MemopKind::kHostToDevice: return "Memcpy HtoD (Pageable -> Device)";
    case MemopKind::kDeviceToDevice: return "Memcpy DtoD (Device -> Device)";
    case MemopKind::kDeviceToHost: return "Memcpy DtoH (Device -> Pageable)";
    case MemopKind::kMemset: return "Memset (Device)";
  }
  return "Memset (Device)";
}

// CUPTI callback ids of the launch APIs, as Kineto puts them in args.cbid.
int64_t CallbackId(std::string_view api) {
  if (api == "cudaLaunchKernel") return 211;
  if (api == "cuLaunchKernel") return 307;
  if (api == "cuLaunchKernelEx") return 652;
  return 0;
}

class KinetoWriter final : public FormatWriter {
 public:
  KinetoWriter(const StepPlan& plan, const SynthOptions& options)
      : plan_(plan), file_(WithSuffix(options.out_base, ".pt.trace.json")) {
    for (const KernelKind& kind : AllKinds()) {
      names_.push_back(JsonString(kind.name));
      api_names_.push_back(JsonString(kind.api_function));
    }
    for (MemopKind kind : {MemopKind::kHostToDevice, MemopKind::kDeviceToDevice,
                           MemopKind::kDeviceToHost, MemopKind::kMemset}) {
      memop_names_[static_cast<size_t>(kind)] = JsonString(KinetoMemopName(kind));
    }
  }

  Status Open() {
    RETURN_IF_ERROR(file_.Open());
    out_.emplace(file_.get(), file_.final_path().string());
    TextOut& out = *out_;
    out.Text("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": ");
    out.Int(kDeviceId);
    out.Text(", \"name\": ");
    out.Text(JsonString(kDeviceName));
    out.Text(
        ", \"totalGlobalMem\": 128526143488,\n      \"computeMajor\": 12, \"computeMinor\": 1,\n"
        "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 1536,\n"
        "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n      \"sharedMemPerBlock\": 49152, "
        "\"numSms\": 48\n    }\n  ],\n  \"cupti_version\": 26,\n  \"cuda_runtime_version\": "
        "12080,\n  \"cuda_driver_version\": 13000,\n  \"trace_id\": "
        "\"5C1E6A2B0F3D4E8A9B7C6D5E4F3A2B1C\",\n  \"displayTimeUnit\": \"ms\",\n"
        "  \"baseTimeNanoseconds\": ");
    out.Int(kBaseTimeNanoseconds);
    out.Text(",\n  \"traceEvents\": [");
    return out.MaybeFlush();
  }

  Status AppendStep(const StepRows& rows) override {
    TextOut& out = *out_;
    for (const KernelRow& row : rows.kernels) {  // the launching thread, in launch order
      const Kind kind = plan_.kernels[row.plan_index].kind;
      std::string_view api = KindInfo(kind).api_function;
      BeginEvent(api.starts_with("cuda") ? "cuda_runtime" : "cuda_driver",
                 api_names_[static_cast<size_t>(kind)], kProcessId, kProcessId, row.api_start,
                 row.api_duration);
      out.Text("\n    \"args\": {\n      \"External id\": ");
      out.Int(row.correlation_id);
      out.Text(",\n      \"cbid\": ");
      out.Int(CallbackId(api));
      out.Text(", \"correlation\": ");
      out.Int(row.correlation_id);
      out.Text("\n    }\n  }");
      Flow('s', row.correlation_id, kProcessId, kProcessId, row.api_start);
      RETURN_IF_ERROR(out.MaybeFlush());
    }
    OrderGpuOpsByStart(rows, order_);
    const size_t kernel_count = rows.kernels.size();
    for (const auto& [start, index] : order_) {
      if (index < kernel_count) {
        AppendKernel(rows.kernels[index]);
      } else {
        AppendMemop(rows.memops[index - kernel_count]);
      }
      RETURN_IF_ERROR(out.MaybeFlush());
    }
    return Status::Ok();
  }

  Status AppendStepRange(int64_t step, int64_t start_ns, int64_t end_ns) override {
    TextOut& out = *out_;
    const std::string name = JsonString("ProfilerStep#" + std::to_string(step));
    BeginEvent("user_annotation", name, kProcessId, kProcessId, start_ns, end_ns - start_ns);
    out.Text("\n    \"args\": {\n      \"External id\": ");
    out.Int(step + 1);
    out.Text(",\n      \"Record function id\": 0, \"Ev Idx\": ");
    out.Int(step);
    out.Text("\n    }\n  }");
    return out.MaybeFlush();
  }

  Status Commit(SynthResult& result) override {
    TextOut& out = *out_;
    // Kineto ends with the track names and the record window's end.
    Metadata("process_name", kProcessId, 0, "\"python\"");
    Metadata("thread_name", kProcessId, kProcessId, "\"thread 70412 (python)\"");
    Metadata("process_name", kDeviceId, 0, "\"GPU 0\"");
    for (int64_t stream : streams_) {
      Metadata("thread_name", kDeviceId, stream, JsonString("stream " + std::to_string(stream)));
    }
    NextEvent();
    out.Text(
        "\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
        "    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
    out.Fixed3(last_end_ns_ - kProfilerStartNs);
    out.Text("\n  }\n  ],\n  \"traceName\": ");
    out.Text(JsonString(file_.final_path().filename().string()));
    out.Text("\n}\n");
    RETURN_IF_ERROR(out.Flush());
    result.bytes = out.bytes_written();
    RETURN_IF_ERROR(file_.Commit());
    result.gpu_trace = file_.final_path();
    return Status::Ok();
  }

 private:
  // `{"ph": "X", "cat", "name", "pid", "tid", "ts", "dur",` of a complete event; the caller
  // adds "args" and the closing brace. `quoted_name` is a JSON string.
  void BeginEvent(std::string_view category, std::string_view quoted_name, int64_t pid, int64_t tid,
                  int64_t start_ns, int64_t duration_ns) {
    TextOut& out = *out_;
    NextEvent();
    out.Text("\n    \"ph\": \"X\", \"cat\": \"");
    out.Text(category);
    out.Text("\", \"name\": ");
    out.Text(quoted_name);
    out.Text(", \"pid\": ");
    out.Int(pid);
    out.Text(", \"tid\": ");
    out.Int(tid);
    out.Text(",\n    \"ts\": ");
    out.Fixed3(start_ns - kProfilerStartNs);
    out.Text(", \"dur\": ");
    out.Fixed3(duration_ns);
    out.Char(',');
    last_end_ns_ = std::max(last_end_ns_, start_ns + duration_ns);
  }

  // Opens the next element of traceEvents.
  void NextEvent() {
    out_->Text(first_event_ ? "\n  {" : ",\n  {");
    first_event_ = false;
  }

  // The arrow from a launch call to its kernel ("ac2g": async CPU to GPU).
  void Flow(char phase, int64_t id, int64_t pid, int64_t tid, int64_t ts_ns) {
    TextOut& out = *out_;
    NextEvent();
    out.Text("\n    \"ph\": \"");
    out.Char(phase);
    out.Text("\", \"id\": ");
    out.Int(id);
    out.Text(", \"pid\": ");
    out.Int(pid);
    out.Text(", \"tid\": ");
    out.Int(tid);
    out.Text(", \"ts\": ");
    out.Fixed3(ts_ns - kProfilerStartNs);
    out.Text(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
    out.Text(phase == 'f' ? ", \"bp\": \"e\"\n  }" : "\n  }");
  }

  // The args a GPU event opens with, as PyTorch writes them (kernels also say "queued").
  void GpuEventArgs(int64_t correlation_id, int64_t stream, bool queued) {
    TextOut& out = *out_;
    out.Text("\n    \"args\": {\n      \"External id\": ");
    out.Int(correlation_id);
    out.Text(queued ? ",\n      \"queued\": 0, \"device\": " : ",\n      \"device\": ");
    out.Int(kDeviceId);
    out.Text(", \"context\": ");
    out.Int(kContextId);
    out.Text(",\n      \"stream\": ");
    out.Int(stream);
    out.Text(", \"correlation\": ");
    out.Int(correlation_id);
  }

  void AppendKernel(const KernelRow& row) {
    TextOut& out = *out_;
    const Kind kind = plan_.kernels[row.plan_index].kind;
    const KernelKind& info = KindInfo(kind);
    const int64_t stream = StreamId(row.stream);
    streams_.insert(stream);
    BeginEvent("kernel", names_[static_cast<size_t>(kind)], kDeviceId, stream, row.start,
               row.duration);
    GpuEventArgs(row.correlation_id, stream, /*queued=*/true);
    out.Text(",\n      \"registers per thread\": ");
    out.Int(info.registers_per_thread);
    out.Text(",\n      \"shared memory\": ");
    out.Int(info.static_shared_bytes + info.dynamic_shared_bytes);
    out.Text(",\n      \"grid\": [");
    Dims(info.grid);
    out.Text("],\n      \"block\": [");
    Dims(info.block);
    out.Text("]\n    }\n  }");
    Flow('f', row.correlation_id, kDeviceId, stream, row.start);
  }

  void AppendMemop(const MemopRow& row) {
    TextOut& out = *out_;
    const PlannedMemop& memop = plan_.memops[row.plan_index];
    const int64_t stream = StreamId(row.stream);
    streams_.insert(stream);
    BeginEvent(memop.kind == MemopKind::kMemset ? "gpu_memset" : "gpu_memcpy",
               memop_names_[static_cast<size_t>(memop.kind)], kDeviceId, stream, row.start,
               row.duration);
    GpuEventArgs(row.correlation_id, stream, /*queued=*/false);
    out.Text(",\n      \"bytes\": ");
    out.Int(memop.bytes);
    out.Text(", \"memory bandwidth (GB/s)\": ");
    out.Fixed3(memop.bytes * 1000 / std::max<int64_t>(1, row.duration));  // bytes/ns = GB/s
    out.Text("\n    }\n  }");
  }

  void Dims(const std::array<uint32_t, 3>& dims) {
    for (size_t d = 0; d < 3; ++d) {
      if (d > 0) out_->Text(", ");
      out_->Int(dims[d]);
    }
  }

  void Metadata(std::string_view what, int64_t pid, int64_t tid, std::string_view quoted_name) {
    TextOut& out = *out_;
    NextEvent();
    out.Text("\n    \"name\": \"");
    out.Text(what);
    out.Text("\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": ");
    out.Int(pid);
    out.Text(", \"tid\": ");
    out.Int(tid);
    out.Text(",\n    \"args\": {\n      \"name\": ");
    out.Text(quoted_name);
    out.Text("\n    }\n  }");
  }

  const StepPlan& plan_;
  PendingFile file_;
  std::optional<TextOut> out_;
  // JSON strings, quoted once: kernel and launch API names per Kind, memop names per MemopKind.
  std::vector<std::string> names_;
  std::vector<std::string> api_names_;
  std::array<std::string, 4> memop_names_;
  std::vector<std::pair<int64_t, uint32_t>> order_;
  std::set<int64_t> streams_;
  bool first_event_ = true;
  int64_t last_end_ns_ = kProfilerStartNs;
};

}  // namespace

Result<std::unique_ptr<FormatWriter>> OpenKinetoWriter(const StepPlan& plan,
                                                       const SynthOptions& options) {
  auto writer = std::make_unique<KinetoWriter>(plan, options);
  RETURN_IF_ERROR(writer->Open());
  return std::unique_ptr<FormatWriter>(std::move(writer));
}

}  // namespace stepstat::synth
