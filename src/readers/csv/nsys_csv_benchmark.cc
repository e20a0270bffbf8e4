// Reader throughput on a generated cuda_gpu_trace (2024+ layout): in memory, and from a
// temporary file through OpenByteSource (mapped window). Generates its own input.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/byte_source.h"
#include "readers/csv/nsys_csv_readers.h"

namespace stepstat {
namespace {

const char* const kNames[] = {
    "\"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params, int "
    "*)\"",
    "\"void at::native::vectorized_elementwise_kernel<4, "
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase &, "
    "at::native::GeluType)::[lambda() (instance 1)]::operator ()() const::[lambda() (instance "
    "2)]::operator ()() "
    "const::[lambda(float) (instance 1)], at::detail::Array<char *, 2>>(int, T2, T3)\"",
    "\"qk_int8_sv_f8_attn_kernel<128, 64, 4, 8>(int8_t *, int8_t *, __nv_fp8_e4m3 *, float *)\"",
    "[CUDA memcpy Host-to-Device]",
    "[CUDA memset]",
    "\"genScoreKernel(int, float *, int *, float *)\"",
};

std::string MakeGpuTrace(size_t rows) {
  std::string text =
      "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n";
  int64_t start = 1484266659;
  for (size_t i = 0; i < rows; ++i) {
    start += 1000 + static_cast<int64_t>(i % 977);
    size_t which = (i * 7) % 6;
    std::string common = std::to_string(start) + "," + std::to_string(1000 + i % 50000) + "," +
                         std::to_string(124 + i) + ",";
    if (which == 3 || which == 4) {
      text += common + ",,,,,,,,,26.997,3308109.214,Device,,NVIDIA H100 NVL (0),1,,7," +
              kNames[which] + "\n";
    } else {
      text += common + "586,1,1,256,1,1,32,0.000,0.000,,,,,NVIDIA H100 NVL (0),1,,7," +
              kNames[which] + "\n";
    }
  }
  return text;
}

class CountingSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    for (const GpuOp& op : ops) total += op.duration_ns;
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall>, const StringPool&) override {
    return Status::Ok();
  }
  int64_t total = 0;
};

void BM_ReadGpuTraceInMemory(benchmark::State& state) {
  std::string text = MakeGpuTrace(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto source = MemoryByteSource(text);
    CountingSink sink;
    auto report = ReadNsysGpuTrace(*source, "bench.csv", sink);
    if (!report.ok()) state.SkipWithError(report.status().message().c_str());
    benchmark::DoNotOptimize(sink.total);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ReadGpuTraceInMemory)->Arg(300000)->Unit(benchmark::kMillisecond);

void BM_ReadGpuTraceFromFile(benchmark::State& state) {
  auto path = std::filesystem::temp_directory_path() / "stepstat_nsys_csv_benchmark.csv";
  std::string text = MakeGpuTrace(static_cast<size_t>(state.range(0)));
  std::ofstream(path, std::ios::binary) << text;
  for (auto _ : state) {
    auto source = OpenByteSource(path, "bench.csv");
    CountingSink sink;
    auto report = ReadNsysGpuTrace(**source, "bench.csv", sink);
    if (!report.ok()) state.SkipWithError(report.status().message().c_str());
    benchmark::DoNotOptimize(sink.total);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
  std::filesystem::remove(path);
}
BENCHMARK(BM_ReadGpuTraceFromFile)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace stepstat
