#include "synth/trace_writer.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace stepstat::synth {
namespace {

constexpr std::string_view kDevice = "NVIDIA GB10 (0)";
constexpr int64_t kContext = 1;
constexpr int64_t kProcessId = 70'412;
// nsys numbers PyTorch's default stream 7 and streams created later from 13 on.
int64_t StreamId(uint32_t stream) { return stream == 0 ? 7 : 12 + stream; }

}  // namespace

CsvOut::CsvOut(std::FILE* file, std::string name) : file_(file), name_(std::move(name)) {
  Grow(kFlushAt + (size_t{1} << 16));
}

void CsvOut::Grow(size_t length) {
  size_t capacity = std::max(capacity_ * 2, size_ + length);
  auto bigger = std::make_unique<char[]>(capacity);
  if (size_ > 0) std::memcpy(bigger.get(), buffer_.get(), size_);
  buffer_ = std::move(bigger);
  capacity_ = capacity;
}

void CsvOut::Int(int64_t value) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof digits, value);
  Append(digits, static_cast<size_t>(result.ptr - digits));
}

void CsvOut::Fixed3(int64_t thousandths) {
  if (thousandths < 0) {
    Char('-');
    thousandths = -thousandths;
  }
  Int(thousandths / 1000);
  int64_t fraction = thousandths % 1000;
  char digits[4] = {'.', static_cast<char>('0' + fraction / 100),
                    static_cast<char>('0' + fraction / 10 % 10),
                    static_cast<char>('0' + fraction % 10)};
  Append(digits, 4);
}

void CsvOut::Padded(int64_t value, int width) {
  char digits[24];
  auto result = std::to_chars(digits, digits + sizeof digits, value);
  int length = static_cast<int>(result.ptr - digits);
  for (int pad = length; pad < width; ++pad) Char(' ');
  Append(digits, static_cast<size_t>(length));
}

Status CsvOut::Flush() {
  if (size_ == 0) return Status::Ok();
  size_t written = std::fwrite(buffer_.get(), 1, size_, file_);
  bytes_written_ += static_cast<int64_t>(written);
  bool ok = written == size_;
  size_ = 0;
  return ok ? Status::Ok() : Status::Error("cannot write " + name_ + " (disk full?)");
}

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

TraceWriter::TraceWriter(const StepPlan& plan) : plan_(plan) {
  for (const KernelKind& kind : AllKinds()) quoted_names_.push_back(CsvField(kind.name));
}

void TraceWriter::GpuTraceHeader(CsvOut& out) {
  out.Text(
      "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,"
      "Name\n");
}

void TraceWriter::KernExecHeader(CsvOut& out) {
  out.Text(
      "API Start (ns),API Dur (ns),Queue Start (ns),Queue Dur (ns),Kernel Start (ns),Kernel Dur "
      "(ns),Total Dur (ns),PID,TID,DevId,API Function,GridXYZ,BlockXYZ,Kernel Name\n");
}

Status TraceWriter::AppendGpuTrace(const StepRows& rows, CsvOut& out) {
  const uint32_t kernel_count = static_cast<uint32_t>(rows.kernels.size());
  order_.clear();
  for (uint32_t i = 0; i < kernel_count; ++i) order_.emplace_back(rows.kernels[i].start, i);
  for (uint32_t m = 0; m < rows.memops.size(); ++m) {
    order_.emplace_back(rows.memops[m].start, kernel_count + m);
  }
  std::sort(order_.begin(), order_.end());
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
      out.Text(kDevice);
      out.Char(',');
      out.Int(kContext);
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
      out.Text(kDevice);
      out.Char(',');
      out.Int(kContext);
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

Status TraceWriter::AppendKernExec(const StepRows& rows, CsvOut& out) {
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
