// Scanner throughput on an in-memory gpu-trace-like CSV (2024+ layout, quoted kernel names).
#include <benchmark/benchmark.h>

#include <string>

#include "csv/csv_scanner.h"
#include "io/sources.h"

namespace stepstat {
namespace {

std::string MakeTrace(size_t rows) {
  std::string text =
      "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n";
  int64_t start = 1484266659;
  for (size_t i = 0; i < rows; ++i) {
    start += 1000 + static_cast<int64_t>(i % 977);
    if (i % 4 == 0) {
      text += std::to_string(start) + ",8161," + std::to_string(124 + i) +
              ",,,,,,,,,,26.997,3308109.214,Device,,NVIDIA H100 NVL (0),1,,7,[CUDA memset]\n";
    } else {
      text += std::to_string(start) + "," + std::to_string(1000 + i % 5000) + "," +
              std::to_string(124 + i) +
              ",586,1,1,256,1,1,32,0.000,0.000,,,,,NVIDIA H100 NVL (0),1,,7,"
              "\"void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>("
              "Params, int *)\"\n";
    }
  }
  return text;
}

void BM_ScanGpuTrace(benchmark::State& state) {
  std::string text = MakeTrace(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto source = ChunkedMemoryByteSource(text, 16 << 20);
    CsvScanner scanner(*source, "bench.csv");
    size_t fields = 0;
    while (scanner.NextRow().value()) fields += scanner.fields().size();
    benchmark::DoNotOptimize(fields);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ScanGpuTrace)->Arg(200000);

}  // namespace
}  // namespace stepstat
