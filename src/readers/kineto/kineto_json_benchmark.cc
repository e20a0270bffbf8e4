// Kineto JSON parse throughput on a synthetic trace shaped like PyTorch's: per step, CPU ops
// with shape args, a launch call, its kernel, flow events; some memcpys. The document is built
// once in memory, so this measures parsing, not disk or first-touch page faults.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <utility>

#include "readers/kineto/kineto_json.h"

namespace stepstat {
namespace {

class CountingSink : public TraceSink {
 public:
  Status OnGpuOps(std::span<const GpuOp> ops, const StringPool&) override {
    ops_ += static_cast<int64_t>(ops.size());
    return Status::Ok();
  }
  Status OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool&) override {
    calls_ += static_cast<int64_t>(calls.size());
    return Status::Ok();
  }
  int64_t ops_ = 0;
  int64_t calls_ = 0;
};

std::string SyntheticTrace(size_t target_bytes, bool decimal_times) {
  std::string json =
      "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, "
      "\"name\": \"NVIDIA H100 80GB HBM3\"}],\n  \"traceEvents\": [\n";
  const char* kernels[] = {
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3>)",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
      "segment_k_off_kernel__5x_cublas",
      "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
      "cutlass::bfloat16_t> >(Flash_fwd_params)"};
  char buffer[1024];
  int64_t ts = 1712867402000000;
  for (int64_t i = 0; json.size() < target_bytes; ++i, ts += 20) {
    const char* frac = decimal_times ? ".123" : "";
    std::snprintf(
        buffer, sizeof buffer,
        "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": "
        "4037, \"tid\": 4037, \"ts\": %lld%s, \"dur\": 15%s, \"args\": {\"External id\": "
        "%lld, \"Record function id\": 0, \"Sequence number\": %lld, \"Fwd thread id\": 0, "
        "\"Input Dims\": [[8, 1024, 4096], [4096, 4096], [4096]], \"Input type\": "
        "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]}},\n",
        static_cast<long long>(ts), frac, frac, static_cast<long long>(i),
        static_cast<long long>(i));
    json += buffer;
    std::snprintf(buffer, sizeof buffer,
                  "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                  "\"pid\": 4037, \"tid\": 4037, \"ts\": %lld%s, \"dur\": 4%s, \"args\": "
                  "{\"External id\": %lld, \"cbid\": 211, \"correlation\": %lld}},\n",
                  static_cast<long long>(ts + 2), frac, frac, static_cast<long long>(i),
                  static_cast<long long>(i));
    json += buffer;
    std::snprintf(buffer, sizeof buffer,
                  "  {\"ph\": \"s\", \"id\": %lld, \"pid\": 4037, \"tid\": 4037, \"ts\": %lld, "
                  "\"cat\": \"ac2g\", \"name\": \"ac2g\"},\n",
                  static_cast<long long>(i), static_cast<long long>(ts + 2));
    json += buffer;
    if (i % 16 == 15) {
      std::snprintf(
          buffer, sizeof buffer,
          "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pageable "
          "-> Device)\", \"pid\": 0, \"tid\": 7, \"ts\": %lld%s, \"dur\": 3%s, \"args\": "
          "{\"External id\": %lld, \"device\": 0, \"context\": 1, \"stream\": 7, "
          "\"correlation\": %lld, \"bytes\": 92928, \"memory bandwidth (GB/s)\": 7.7}},\n",
          static_cast<long long>(ts + 9), frac, frac, static_cast<long long>(i),
          static_cast<long long>(i + 1000000000));
      json += buffer;
    }
    std::snprintf(
        buffer, sizeof buffer,
        "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
        "\"ts\": %lld%s, \"dur\": 12%s, \"args\": {\"External id\": %lld, \"queued\": 0, "
        "\"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": %lld, "
        "\"registers per thread\": 32, \"shared memory\": 0, \"blocks per SM\": 1.5, "
        "\"warps per SM\": 12, \"grid\": [8, 16, 5], \"block\": [128, 1, 1], "
        "\"est. achieved occupancy %%\": 25}},\n",
        kernels[i % 3], static_cast<long long>(ts + 7), frac, frac, static_cast<long long>(i),
        static_cast<long long>(i));
    json += buffer;
  }
  json +=
      "  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", "
      "\"tid\": \"\", \"ts\": 1}\n  ],\n  \"traceName\": \"synthetic.json\"\n}\n";
  return json;
}

void BM_ParseKinetoJson(benchmark::State& state) {
  // Built once per argument pair: Google Benchmark calls this function several times.
  static std::map<std::pair<int64_t, int64_t>, std::string> documents;
  std::string& json = documents[{state.range(0), state.range(1)}];
  if (json.empty()) {
    json = SyntheticTrace(static_cast<size_t>(state.range(0)) << 20, state.range(1) != 0);
    // One untimed parse grows the thread's simdjson parser: its first touch (4 bytes of
    // structural index per token) would otherwise land in the first repetition only.
    CountingSink warm_up;
    if (!ParseKinetoJson(json, "synthetic.json", warm_up).ok()) json.clear();
  }
  CountingSink sink;
  for (auto _ : state) {
    Result<ReadReport> report = ParseKinetoJson(json, "synthetic.json", sink);
    if (!report.ok()) {
      state.SkipWithError(report.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(report->rows);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(json.size()));
  state.counters["gpu_ops"] =
      static_cast<double>(sink.ops_) / static_cast<double>(state.iterations());
}
// Args: document size in MiB, decimal ("us.nnn") times or not.
BENCHMARK(BM_ParseKinetoJson)->Args({256, 0})->Args({256, 1})->Unit(benchmark::kMillisecond);

// What one `stepstat` run pays: each parse on a new thread, so simdjson's parser (kept per
// thread) and its structural index (4 bytes per JSON token) are fresh memory every time.
void BM_ParseKinetoJsonFreshParser(benchmark::State& state) {
  static std::string json;
  if (json.empty()) json = SyntheticTrace(static_cast<size_t>(state.range(0)) << 20, true);
  for (auto _ : state) {
    Status status = Status::Ok();
    std::thread parse([&] {
      CountingSink sink;
      Result<ReadReport> report = ParseKinetoJson(json, "synthetic.json", sink);
      if (!report.ok()) status = report.status();
    });
    parse.join();
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      return;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(json.size()));
}
// Real time: the parse runs on another thread, whose CPU time the benchmark thread does not see.
BENCHMARK(BM_ParseKinetoJsonFreshParser)->Arg(256)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace stepstat
