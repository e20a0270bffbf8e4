// `stepstat synth`: writes the deterministic DiT-step example (or a larger trace for
// benchmarks) as an nsys cuda_gpu_trace + cuda_kern_exec_trace CSV pair.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "synth/synth.h"

namespace stepstat::cli {

void AddSynthCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<synth::SynthOptions>();
  auto out = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "synth",
      "Write a deterministic diffusion-transformer step trace (nsys CSV pair).\n"
      "With the defaults it is examples/gb10-dit-step: `stepstat summarize` on it prints the\n"
      "reference GB10 step statistics exactly. More steps or streams make benchmark inputs.\n"
      "Example: stepstat synth --out /tmp/big --steps 1000   (2.8M GPU rows, about 1.9 GB)");
  command
      ->add_option("--out", *out,
                   "Output base: writes BASE_cuda_gpu_trace.csv and "
                   "BASE_cuda_kern_exec_trace.csv")
      ->required();
  command->add_option("--steps", options->steps, "Denoising steps, back to back")
      ->capture_default_str();
  command
      ->add_option("--streams", options->streams,
                   "CUDA streams to spread work over (1: the reference layout)")
      ->capture_default_str();
  command->add_option("--seed", options->seed, "Random seed (the default gives the example)")
      ->capture_default_str();
  command->callback([&action, options, out] {
    action = [options, out] {
      options->out_base = *out;
      Result<synth::SynthResult> result = synth::WriteSynthTraces(*options);
      if (!result.ok()) {
        std::fprintf(stderr, "stepstat: %s\n", result.status().message().c_str());
        return 2;
      }
      std::fprintf(stderr, "wrote %s and %s (%lld GPU rows, %lld launches, %.1f MB)\n",
                   result->gpu_trace.string().c_str(), result->kern_exec_trace.string().c_str(),
                   static_cast<long long>(result->gpu_rows),
                   static_cast<long long>(result->kern_exec_rows),
                   static_cast<double>(result->bytes) / 1e6);
      return 0;
    };
  });
}

}  // namespace stepstat::cli
