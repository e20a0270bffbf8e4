#include "synth/trace_writer.h"

#include <algorithm>
#include <string>
#include <utility>

#include "synth/trace_rows.h"

namespace stepstat::synth {

std::string CsvField(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

TraceWriter::TraceWriter(const StepPlan& plan)
    : plan_(plan), device_(std::string(kDeviceName) + " (" + std::to_string(kDeviceId) + ")") {
  for (const KernelKind& kind : AllKinds()) quoted_names_.push_back(CsvField(kind.name));
}

void TraceWriter::GpuTraceHeader(TextOut& out) {
  out.Text(
      "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,"
      "Name\n");
}

void TraceWriter::KernExecHeader(TextOut& out) {
  out.Text(
      "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),Kernel Dur "
      "(ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n");
}

void TraceWriter::NvtxHeader(TextOut& out) {
  out.Text(
      "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
      "NumChild,RangeId,ParentId,RangeStack,NameTree\n");
}

Status TraceWriter::AppendNvtxStep(int64_t step, int64_t start_ns, int64_t end_ns, TextOut& out) {
  const int64_t duration = end_ns - start_ns;
  out.Int(start_ns);
  out.Char(',');
  out.Int(end_ns);
  out.Char(',');
  out.Int(duration);
  out.Text(",0,");
  out.Int(duration);
  out.Text(",");
  out.Text(kStepRangeName);
  out.Char(',');
  out.Int(kProcessId);
  out.Char(',');
  out.Int(kProcessId);
  out.Text(",0,0,");
  out.Int(step + 1);
  out.Text(",,:");
  out.Int(step + 1);
  out.Char(',');
  out.Text(kStepRangeName);
  out.Char('\n');
  return out.MaybeFlush();
}

Status TraceWriter::AppendGpuTrace(const StepRows& rows, TextOut& out) {
  const uint32_t kernel_count = static_cast<uint32_t>(rows.kernels.size());
  OrderGpuOpsByStart(rows, order_);
  for (const auto& [start, index] : order_) {
    if (index < kernel_count) {
      const KernelRow& row = rows.kernels[index];
      const Kind kind = plan_.kernels[row.plan_index].kind;
      const KernelKind& info = KindInfo(kind);
      out.Int(row.start);
      out.Char(',');
      out.Int(row.duration);
      out.Char(',');
      out.Int(row.correlation_id);
      for (uint32_t g : info.grid) {
        out.Char(',');
        out.Int(g);
      }
      for (uint32_t b : info.block) {
        out.Char(',');
        out.Int(b);
      }
      out.Char(',');
      out.Int(info.registers_per_thread);
      out.Char(',');
      out.Fixed3((info.static_shared_bytes + 500) / 1000);
      out.Char(',');
      out.Fixed3((info.dynamic_shared_bytes + 500) / 1000);
      out.Text(",,,,,");
      out.Text(device_);
      out.Char(',');
      out.Int(kContextId);
      out.Text(",,");
      out.Int(StreamId(row.stream));
      out.Char(',');
      out.Text(quoted_names_[static_cast<int>(kind)]);
    } else {
      const MemopRow& row = rows.memops[index - kernel_count];
      const PlannedMemop& memop = plan_.memops[row.plan_index];
      out.Int(row.start);
      out.Char(',');
      out.Int(row.duration);
      out.Char(',');
      out.Int(row.correlation_id);
      out.Text(",,,,,,,,,,");
      out.Fixed3((memop.bytes + 500) / 1000);
      out.Char(',');
      out.Fixed3((memop.bytes * 1'000'000 + row.duration / 2) / std::max<int64_t>(1, row.duration));
      out.Char(',');
      out.Text(MemopSourceKind(memop.kind));
      out.Char(',');
      out.Text(MemopDestinationKind(memop.kind));
      out.Char(',');
      out.Text(device_);
      out.Char(',');
      out.Int(kContextId);
      out.Text(",,");
      out.Int(StreamId(row.stream));
      out.Char(',');
      out.Text(MemopName(memop.kind));
    }
    out.Char('\n');
    RETURN_IF_ERROR(out.MaybeFlush());
  }
  return Status::Ok();
}

Status TraceWriter::AppendKernExec(const StepRows& rows, TextOut& out) {
  for (const KernelRow& row : rows.kernels) {
    const Kind kind = plan_.kernels[row.plan_index].kind;
    const KernelKind& info = KindInfo(kind);
    const int64_t api_end = row.api_start + row.api_duration;
    out.Int(row.api_start);
    out.Char(',');
    out.Int(row.api_duration);
    out.Char(',');
    out.Int(api_end);
    out.Char(',');
    out.Int(row.start - api_end);
    out.Char(',');
    out.Int(row.start);
    out.Char(',');
    out.Int(row.duration);
    out.Char(',');
    out.Int(row.start + row.duration - row.api_start);
    out.Char(',');
    out.Int(kProcessId);
    out.Char(',');
    out.Int(kProcessId);
    out.Text(",0,");
    out.Text(info.api_function);
    out.Char(',');
    for (const auto* dims : {&info.grid, &info.block}) {
      for (size_t d = 0; d < 3; ++d) {
        if (d > 0) out.Char(' ');
        out.Padded((*dims)[d], 4);
      }
      out.Char(',');
    }
    out.Text(quoted_names_[static_cast<int>(kind)]);
    out.Char('\n');
    RETURN_IF_ERROR(out.MaybeFlush());
  }
  return Status::Ok();
}

}  // namespace stepstat::synth
