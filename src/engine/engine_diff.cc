// RunDiff: a side from traces (cut into steps through RunSteps, its kernel table
// through RunKernels, and its whole-run summary only when the other side needs one), from a
// JSON that stepstat wrote, or from a ledger run.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>

#include "engine/engine_sides.h"
#include "stepstat/engine_compare.h"
#include "stepstat/platform.h"

namespace stepstat {

namespace {

namespace fs = std::filesystem;

bool IsReference(std::string_view arg) {
  return arg.starts_with('@') || arg.starts_with("label:") || arg.starts_with("baseline:");
}

// A JSON that stepstat wrote, told from a Kineto trace (also .json) by its first keys: a
// summary opens with "source_gpu_trace", steps and the other outputs with a stepstat schema.
std::optional<std::string> StepstatJson(const std::string& arg) {
  std::error_code ec;
  if (!fs::is_regular_file(PathFromUtf8(arg), ec)) return std::nullopt;
  std::ifstream file(PathFromUtf8(arg), std::ios::binary);
  char head[512] = {};
  file.read(head, sizeof head);
  std::string_view start(head, static_cast<size_t>(file.gcount()));
  if (start.find("\"source_gpu_trace\"") == std::string_view::npos &&
      start.find("\"schema\": \"stepstat.") == std::string_view::npos) {
    return std::nullopt;
  }
  file.clear();
  file.seekg(0);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// A side and, for a trace side, the trace files it read (a whole-run summary reads them
// again when the other side cannot be compared step by step).
struct LoadedSide {
  Side side;
  std::vector<fs::path> trace_files;
  std::string ledger_label;  ///< the label it is (or would be) recorded under
  bool from_ledger = false;
};

Result<LoadedSide> Load(const std::vector<std::string>& args, const DiffRunOptions& options,
                        std::vector<std::string>* warnings) {
  if (args.empty()) return Status::Error("a diff side needs an input");
  if (args.size() == 1 && IsReference(args.front())) {
    ASSIGN_OR_RETURN(Ledger ledger, Ledger::Open(options.ledger));
    ASSIGN_OR_RETURN(int64_t id, ledger.ResolveReference(args.front()));
    ASSIGN_OR_RETURN(Side side, ledger.LoadRunAsSide(id));
    side.meta.label = args.front() == "@" + std::to_string(id)
                          ? args.front()
                          : args.front() + " (@" + std::to_string(id) + ")";
    ASSIGN_OR_RETURN(std::string label, LabelOfRun(ledger, id));
    return LoadedSide{std::move(side), {}, std::move(label), true};
  }
  if (args.size() == 1) {
    if (std::optional<std::string> json = StepstatJson(args.front())) {
      Result<Side> side = SideFromJson(*json, PathToUtf8(PathFromUtf8(args.front()).filename()));
      if (!side.ok()) return ErrorAt(args.front(), 0, side.status().message());
      return LoadedSide{std::move(side).value(), {}, {}, false};
    }
  }
  for (const std::string& arg : args) {
    if (IsReference(arg) || StepstatJson(arg)) {
      return ErrorAt(arg, 0,
                     "a ledger reference or a stepstat JSON is a side on its own; only traces "
                     "combine into one side (--base F... / --cand F...)");
    }
  }
  ASSIGN_OR_RETURN(TraceRun trace,
                   ReadTraceRun(options.run, args, /*whole_run=*/false, /*hash_inputs=*/true));
  if (warnings) warnings->insert(warnings->end(), trace.warnings.begin(), trace.warnings.end());
  LoadedSide loaded{std::move(trace.side), {}, LabelOf(args), false};
  for (const ResolvedInput& input : trace.inputs) loaded.trace_files.push_back(input.path);
  // The bytes' hash, as the ledger keeps it (empty when an input is bytes in memory): the
  // same capture is recognised wherever it lies (a copy, another machine, a ledger run of
  // it), and the diff's output does not change with the folder the traces sit in.
  loaded.side.meta.input_hash = std::move(trace.input_hash);
  return loaded;
}

}  // namespace

Result<DiffRun> RunDiff(const DiffRunOptions& options) {
  DiffRun run;
  ASSIGN_OR_RETURN(LoadedSide base, Load(options.base, options, &run.warnings));
  ASSIGN_OR_RETURN(LoadedSide cand, Load(options.cand, options, &run.warnings));
  // A side with too few steps compares as a whole run: the other side then needs its
  // whole-run values too (a trace side read in steps has only per-step ones).
  const int64_t min_steps = options.diff.min_steps;
  if (SteadySteps(base.side) < min_steps || SteadySteps(cand.side) < min_steps) {
    for (LoadedSide* side : {&base, &cand}) {
      if (HasRunValues(side->side) || side->trace_files.empty()) continue;
      RunOptions whole = options.run;
      whole.inputs = side->trace_files;
      whole.output.clear();  // refused already
      RETURN_IF_ERROR(AddRunValues(whole, &side->side));
    }
  }
  DiffOptions judged = options.diff;
  std::error_code ec;
  if (fs::exists(options.ledger, ec)) {  // measured floors come from a ledger, never make one
    ASSIGN_OR_RETURN(Ledger ledger, Ledger::Open(options.ledger));
    // The label whose runs measure the noise: a ledger side's, else the one `record` would
    // give the candidate.
    const LoadedSide* labelled = cand.from_ledger || !base.from_ledger ? &cand : &base;
    if (labelled->ledger_label.empty()) labelled = labelled == &cand ? &base : &cand;
    RETURN_IF_ERROR(ApplyMeasuredFloor(ledger, labelled->ledger_label, &judged));
  }
  ASSIGN_OR_RETURN(run.diff, Diff(base.side, cand.side, judged));
  run.base_side = std::move(base.side);
  run.cand_side = std::move(cand.side);
  return run;
}

}  // namespace stepstat
