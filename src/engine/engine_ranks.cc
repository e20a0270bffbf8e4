// RunRanks, RunPartial, MergePartialFiles: many traces, one job. Each trace is a RunSummary
// of its own turned into a partial on the pool (ranks/thread_pool.h); the partials merge in
// one thread afterwards, so nothing about the schedule can reach the output.
#include "stepstat/engine_ranks.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "engine/engine_inputs.h"
#include "engine/engine_progress.h"
#include "io/read_progress.h"
#include "ranks/thread_pool.h"
#include "readers/nsys_base.h"
#include "stepstat/output.h"
#include "stepstat/platform.h"

namespace stepstat {

namespace fs = std::filesystem;

namespace {

/// A partial file is small (a few hundred bytes a rank): past this it is not one.
constexpr uintmax_t kMaxPartialBytes = uintmax_t{256} << 20;

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsWholeTrace(const std::string& name) {
  for (std::string_view ending :
       {".sqlite", ".pt.trace.json", ".pt.trace.json.gz", ".pt.trace.json.zst"}) {
    if (EndsWith(name, ending)) return true;
  }
  return false;
}

/// The traces of a directory (see RanksOptions::inputs), in natural order.
Result<std::vector<fs::path>> TracesIn(const fs::path& directory) {
  std::vector<fs::path> traces;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string name = PathToUtf8(it->path().filename());
    if (std::string base = NsysBaseOfGpuTrace(name); !base.empty()) {
      fs::path path = directory / PathFromUtf8(base);
      if (std::find(traces.begin(), traces.end(), path) == traces.end()) traces.push_back(path);
    } else if (IsWholeTrace(name)) {
      traces.push_back(it->path());
    }
  }
  if (ec) return ErrorAt(directory.string(), 0, "cannot list the directory: " + ec.message());
  std::sort(traces.begin(), traces.end(), [](const fs::path& a, const fs::path& b) {
    return NaturalLess(a.string(), b.string());
  });
  return traces;
}

/// The bytes a trace will make the pool read, to start the largest first (a base: its GPU
/// trace; unknown sizes count as 0).
uintmax_t TraceBytes(const fs::path& trace) {
  std::error_code ec;
  if (fs::is_regular_file(trace, ec)) return fs::file_size(trace, ec);
  if (auto gpu = FindNsysBaseFiles(PathToUtf8(trace)).gpu_trace) {
    uintmax_t size = fs::file_size(PathFromUtf8(*gpu), ec);
    if (!ec) return size;
  }
  return 0;
}

/// What one task of the pool leaves in its slot.
struct RankOutcome {
  std::optional<Partial> partial;
  std::optional<RankError> error;
  std::vector<std::string> warnings;
  std::optional<PolicyHint> hint;
};

}  // namespace

Result<std::vector<std::string>> ListTraceDevices(const RunOptions& options) {
  ASSIGN_OR_RETURN(SummaryInputs inputs, ResolveSummaryInputs(options));
  ASSIGN_OR_RETURN(std::vector<std::string> devices, ListDevices(inputs));
  std::sort(devices.begin(), devices.end(), [](const std::string& a, const std::string& b) {
    return NaturalLess(a, b) || (!NaturalLess(b, a) && a < b);
  });
  return devices;
}

Result<Partial> RunPartial(const RunOptions& options, const std::string& rank_regex,
                           std::vector<std::string>* warnings, bool per_device,
                           std::optional<PolicyHint>* hint) {
  if (warnings) warnings->clear();
  if (hint) hint->reset();
  std::vector<std::string> devices = {""};
  if (per_device) {
    ASSIGN_OR_RETURN(devices, ListTraceDevices(options));
    if (devices.empty()) devices = {""};  // no GPU operation: RunSummary says so
  }
  // One device: the whole trace is that device's (and a launch source that names no device,
  // a cuda_api_trace, still counts).
  const bool split = devices.size() > 1;
  Partial trace;
  for (const std::string& device : devices) {
    RunOptions one = options;
    if (split) one.device = device;
    one.policy_hint = !split && hint != nullptr;  // one device's would read the names again
    ASSIGN_OR_RETURN(SummaryResult summary, RunSummary(one));
    if (hint && !split) *hint = summary.context.policy_hint;
    if (warnings) {
      for (std::string& warning : summary.context.warnings) {
        if (std::find(warnings->begin(), warnings->end(), warning) == warnings->end()) {
          warnings->push_back(std::move(warning));
        }
      }
    }
    ASSIGN_OR_RETURN(Partial partial, PartialOfSummary(summary, rank_regex));
    if (per_device) partial.ranks.front().device = device;
    ASSIGN_OR_RETURN(trace, MergePartials(std::move(trace), std::move(partial)));
  }
  return trace;
}

Result<Partial> PartialOfSummary(const SummaryResult& summary, const std::string& rank_regex) {
  ASSIGN_OR_RETURN(std::optional<int64_t> rank,
                   RankFromPath(summary.stats.source_gpu_trace, rank_regex));
  std::string_view source = rank ? kRankFromRegex : std::string_view();
  if (!rank) {
    // A PyTorch profiler trace may say which rank it is (torch.distributed's).
    for (const ResolvedInput& input : summary.context.inputs) {
      if (input.path.empty()) continue;
      ASSIGN_OR_RETURN(rank, RankStatedInFile(input.path, input.name, input.kind));
      if (rank) {
        source = kRankFromContent;
        break;
      }
    }
  }
  return MakePartial(summary.stats, summary.context.policy, rank, source);
}

Result<std::vector<fs::path>> ListRankTraces(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> traces;
  for (const fs::path& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      ASSIGN_OR_RETURN(std::vector<fs::path> found, TracesIn(input));
      traces.insert(traces.end(), found.begin(), found.end());
    } else {
      traces.push_back(input);
    }
  }
  if (traces.empty()) {
    return Status::Error(
        "no traces: the directories given hold no nsys base, .sqlite or .pt.trace.json");
  }
  return traces;
}

Result<RanksRun> RunRanks(const RanksOptions& options) {
  ProgressScope progress(options.progress);
  // The policy and the regex are checked once, up front, rather than once per trace.
  RETURN_IF_ERROR(ChoosePolicy(options.policy).status());
  RETURN_IF_ERROR(RankFromPath("rank0", options.rank_regex).status());

  ASSIGN_OR_RETURN(std::vector<fs::path> traces, ListRankTraces(options.inputs));

  if (!options.partials_dir.empty()) {
    std::error_code ec;
    fs::create_directories(options.partials_dir, ec);
    if (ec) {
      return ErrorAt(options.partials_dir.string(), 0, "cannot create the folder: " + ec.message());
    }
  }

  // Largest first, so that the last task to finish is a short one.
  std::vector<std::pair<uintmax_t, size_t>> order;
  for (size_t i = 0; i < traces.size(); ++i) order.emplace_back(TraceBytes(traces[i]), i);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });

  // Every trace planned now, so the total does not wait for the last task to start
  // (split by device, the runs plan their own reads: see below).
  if (ProgressMeter* meter = InstalledProgress()) {
    meter->AddFiles(static_cast<int64_t>(traces.size()));
    if (!options.per_device) {
      for (const fs::path& trace : traces) meter->AddPlanned(InputArgumentBytes(trace));
    }
  }
  std::vector<RankOutcome> outcomes(traces.size());
  size_t jobs =
      options.jobs != 0 ? options.jobs : std::max<size_t>(1, std::thread::hardware_concurrency());
  RunIndexed(traces.size(), jobs, [&](size_t task) {
    const size_t i = order[task].second;
    RankOutcome& outcome = outcomes[i];  // this task's slot alone
    RunOptions run;
    run.inputs = {traces[i]};
    run.policy = options.policy;
    run.output = options.output;
    run.progress = options.progress;
    // Split by device, a trace is read once per device and once to list them: each of
    // those runs plans its own reads, so the total grows as traces start (never shrinks).
    std::optional<PlannedByCaller> planned;
    if (!options.per_device) planned.emplace();
    Result<Partial> partial =
        RunPartial(run, options.rank_regex, &outcome.warnings, options.per_device, &outcome.hint);
    if (options.progress != nullptr) options.progress->FileDone();
    if (!partial.ok()) {
      outcome.error = RankError{traces[i].string(), partial.status().message()};
      return;
    }
    if (!options.partials_dir.empty()) {
      fs::path file = options.partials_dir / (traces[i].filename().string() + ".partial.json");
      if (Status written = WriteFileAtomically(file, PartialToJson(*partial)); !written.ok()) {
        outcome.error = RankError{traces[i].string(), written.message()};
        return;
      }
    }
    outcome.partial = std::move(partial).value();
  });

  Partial job;
  std::vector<RankError> errors;
  RanksRun run;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    RankOutcome& outcome = outcomes[i];
    if (outcome.hint) {
      ++run.hinted_traces;
      // The worst first; among equals, the first trace as listed.
      if (!run.policy_hint ||
          outcome.hint->current_other_percent > run.policy_hint->current_other_percent) {
        run.policy_hint = outcome.hint;
        run.policy_hint_trace = PathToUtf8(traces[i]);
      }
    }
    if (outcome.error) errors.push_back(std::move(*outcome.error));
    for (std::string& warning : outcome.warnings) run.warnings.push_back(std::move(warning));
    if (outcome.partial) {
      ASSIGN_OR_RETURN(job, MergePartials(std::move(job), std::move(*outcome.partial)));
    }
  }
  run.report = FinishRanks(job, std::move(errors));
  return run;
}

Result<RanksReport> MergePartialFiles(const std::vector<fs::path>& files) {
  Partial job;
  for (const fs::path& file : files) {
    std::error_code ec;
    uintmax_t size = fs::file_size(file, ec);
    if (ec) return ErrorAt(file.string(), 0, "cannot read: " + ec.message());
    if (size > kMaxPartialBytes) {
      return ErrorAt(file.string(), 0, "over 256 MiB: not a partial stepstat wrote");
    }
    std::ifstream stream(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    if (!stream.good() && !stream.eof()) return ErrorAt(file.string(), 0, "cannot read");
    ASSIGN_OR_RETURN(Partial partial, PartialFromJson(text, file.string()));
    ASSIGN_OR_RETURN(job, MergePartials(std::move(job), std::move(partial)));
  }
  return FinishRanks(job);
}

}  // namespace stepstat
