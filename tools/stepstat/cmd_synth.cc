// `stepstat synth`: writes the deterministic DiT-step example (or a larger trace for
// benchmarks) as an nsys CSV pair, an nsys SQLite export or a Kineto JSON trace.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "stepstat/platform.h"
#include "stepstat/synth.h"

namespace stepstat::cli {

void AddSynthCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<synth::SynthOptions>();
  auto out = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("csv");
  auto slower = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "synth",
      "Write a deterministic diffusion-transformer step trace (nsys CSV pair, nsys SQLite\n"
      "export or PyTorch profiler JSON). With the defaults it is examples/gb10-dit-step:\n"
      "`stepstat summarize` on it prints the reference GB10 step statistics exactly. More steps\n"
      "or streams make benchmark inputs; every format of one run gives the same summary.");
  command
      ->add_option("--out", *out,
                   "Output base: writes BASE_cuda_gpu_trace.csv and "
                   "BASE_cuda_kern_exec_trace.csv (csv), BASE.sqlite or BASE.pt.trace.json")
      ->required();
  command
      ->add_option("--format", *format,
                   "csv: nsys stats CSV pair; sqlite: as `nsys export --type sqlite`; "
                   "kineto: a torch.profiler trace")
      ->check(CLI::IsMember({"csv", "sqlite", "kineto"}))
      ->capture_default_str();
  command->add_option("--steps", options->steps, "Denoising steps, back to back")
      ->capture_default_str();
  command
      ->add_option("--streams", options->streams,
                   "CUDA streams to spread work over (1: the reference layout)")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "Random seed (the default gives the example)")
      ->capture_default_str();
  command->add_flag("--nvtx", options->nvtx,
                    "Also write step ranges: BASE_nvtx_pushpop_trace.csv with one 'denoise_step' "
                    "range per step (csv; `stepstat steps BASE BASE_nvtx_pushpop_trace.csv "
                    "--steps denoise`), NVTX_EVENTS (sqlite), ProfilerStep#N (kineto)");
  command->add_option("--slower", *slower,
                      "COMPONENT=PCT: every kernel of that component of the default policy "
                      "takes PCT % longer (negative: shorter), later work shifting; a known "
                      "change to check `stepstat diff` with");
  command->footer(
      "Examples:\n"
      "  stepstat synth --out /tmp/step                        # the bundled example\n"
      "  stepstat synth --out /tmp/big --steps 1000            # 2.8M GPU rows, about 1.9 GB\n"
      "  stepstat synth --out /tmp/run --steps 20 --nvtx       # then: stepstat steps /tmp/run "
      "/tmp/run_nvtx_pushpop_trace.csv --steps denoise\n"
      "  stepstat synth --out /tmp/big --steps 200 --format kineto   # about 0.6 GB\n"
      "  stepstat synth --out /tmp/cand --steps 20 --nvtx --slower nvfp4_gemms=10");
  command->callback([&action, options, out, format, slower] {
    action = [options, out, format, slower] {
      options->out_base = PathFromUtf8(*out);
      if (!slower->empty()) {
        size_t equals = slower->find('=');
        int64_t percent = 0;
        const char* end = slower->data() + slower->size();
        auto parsed = equals == std::string::npos
                          ? std::from_chars(end, end, percent)
                          : std::from_chars(slower->data() + equals + 1, end, percent);
        if (equals == std::string::npos || parsed.ec != std::errc() || parsed.ptr != end) {
          std::fprintf(stderr, "stepstat: --slower: expected COMPONENT=PCT, got '%s'\n",
                       slower->c_str());
          return 2;
        }
        options->slower_component = slower->substr(0, equals);
        options->slower_percent = percent;
      }
      options->format = synth::ParseSynthFormat(*format).value_or(synth::SynthFormat::kCsv);
      Result<synth::SynthResult> result = synth::WriteSynthTraces(*options);
      if (!result.ok()) {
        std::fprintf(stderr, "stepstat: %s\n", result.status().message().c_str());
        return 2;
      }
      // "a, b and c": every file written, the NVTX report too.
      std::vector<std::string> written = {PathToUtf8(result->gpu_trace)};
      for (const std::filesystem::path& also : {result->kern_exec_trace, result->nvtx_trace}) {
        if (!also.empty()) written.push_back(PathToUtf8(also));
      }
      std::string files = written.front();
      for (size_t i = 1; i < written.size(); ++i) {
        files += (i + 1 == written.size() ? " and " : ", ") + written[i];
      }
      std::fprintf(stderr, "wrote %s (%lld GPU rows, %lld launches, %.1f MB)\n", files.c_str(),
                   static_cast<long long>(result->gpu_rows),
                   static_cast<long long>(result->kern_exec_rows),
                   static_cast<double>(result->bytes) / 1e6);
      return 0;
    };
  });
}

}  // namespace stepstat::cli
