// `stepstat diff BASE CAND`: did the change help? Per-step statistics when both sides have
// steps, gates for CI. The output is written before a failed gate's exit code 1.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "progress_on_stderr.h"
#include "stepstat/engine_compare.h"
#include "stepstat/output.h"

namespace stepstat::cli {

namespace {

struct DiffFlags {
  std::vector<std::string> sides;  // BASE CAND
  std::vector<std::string> base, cand;
  std::string policy;
  std::string steps_regex;
  std::optional<std::string> ledger;
  DiffOptions diff;
  std::optional<std::string> fail_if_slower;
  std::vector<std::string> fail_if;
  std::string output = "-";
  std::string format;
  bool noise_floor_given = false;
};

int RunDiffCommand(DiffFlags flags) {
  DiffRunOptions options;
  if (!flags.base.empty() || !flags.cand.empty()) {
    if (flags.base.empty() || flags.cand.empty() || !flags.sides.empty()) {
      return Fail(Status::Error("diff: give BASE CAND, or --base F... and --cand F..., not both"));
    }
    options.base = flags.base;
    options.cand = flags.cand;
  } else if (flags.sides.size() == 2) {
    options.base = {flags.sides[0]};
    options.cand = {flags.sides[1]};
  } else {
    return Fail(Status::Error("diff: expected two sides, BASE and CAND (or --base/--cand)"));
  }
  options.run.policy = flags.policy;
  options.run.steps.range_regex = flags.steps_regex;
  options.run.output = OutputToRefuse(flags.output);
  options.run.progress = CommandProgress();
  options.ledger = ResolveLedgerPath(flags.ledger, std::getenv("STEPSTAT_LEDGER"),
                                     std::filesystem::current_path());
  options.diff = flags.diff;
  if (flags.noise_floor_given) options.diff.noise_floor_source = "given";
  if (flags.fail_if_slower) {
    Result<GateSpec> gate = SlowerGate(*flags.fail_if_slower);
    if (!gate.ok()) return Fail(gate.status());
    options.diff.gates.push_back(std::move(gate).value());
  }
  for (const std::string& spec : flags.fail_if) {
    Result<GateSpec> gate = ParseGate(spec);
    if (!gate.ok()) return Fail(gate.status());
    options.diff.gates.push_back(std::move(gate).value());
  }

  Result<DiffRun> run = RunDiff(options);
  if (!run.ok()) return Fail(run.status());
  PrintWarnings(run->warnings);
  const DiffResult& diff = run->diff;
  std::string text;
  if (flags.format == "html") return EmitDiffHtml(*run, flags.sides, flags.output);
  switch (ChooseFormat(flags.format, flags.output)) {
    case OutputFormat::kTable: {
      TextStyle style = StdoutTextStyle(flags.output);
      text = DiffToTable(diff,
                         {style.unicode, flags.output == "-" && StdoutAllowsColor(), style.width});
      break;
    }
    case OutputFormat::kMarkdown: text = DiffToMarkdown(diff); break;
    case OutputFormat::kCsv:  // not offered by --format
    case OutputFormat::kJson: text = DiffToJson(diff); break;
  }
  int written = Emit(text, flags.output);
  if (written != 0) return written;
  return diff.gates_failed() ? 1 : 0;
}

}  // namespace

void AddDiffCommand(CLI::App& app, Action& action) {
  auto flags = std::make_shared<DiffFlags>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two runs, cand against base: faster, slower, or noise? (CI gates too)");
  cmd->add_option("BASE CAND", flags->sides, "The two sides")->expected(0, 2);
  cmd->add_option("--base", flags->base, "Several files for the base side (one trace)");
  cmd->add_option("--cand", flags->cand, "Several files for the candidate side");
  cmd->add_option("--policy", flags->policy,
                  "Classification policy for trace sides: a TOML file or a built-in name");
  cmd->add_option("--steps", flags->steps_regex,
                  "Cut trace sides at NVTX ranges whose text matches this regex (as `steps`)");
  cmd->add_option("--min-steps", flags->diff.min_steps,
                  "Steady steps each side needs for per-step statistics")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000000));
  cmd->add_option("--alpha", flags->diff.alpha, "Significance level of the Mann-Whitney test")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  CLI::Option* floor =
      cmd->add_option("--noise-floor", flags->diff.noise_floor_pct,
                      "Smaller changes (%) never decide the verdict: steps of one capture share "
                      "one clock state and miss the noise between runs (default: measured from "
                      "the ledger's runs of one commit or --tag when it has 3, else 2)")
          ->capture_default_str()
          ->check(CLI::Range(0.0, 100.0));
  cmd->add_flag("--allow-different", flags->diff.allow_different,
                "Judge two runs that look like different programs (kernel time in shared "
                "names, kernel counts) or policies anyway");
  cmd->add_option("--top", flags->diff.top_kernels, "Kernel rows (by |Δ total time|)")
      ->capture_default_str();
  cmd->add_option("--fail-if-slower", flags->fail_if_slower,
                  "Exit 1 when the step span (median step, or the whole run) is significantly "
                  "more than PCT % slower");
  cmd->add_option("--fail-if", flags->fail_if,
                  "METRIC:LIMIT, repeatable: exit 1 on a significant change past LIMIT (+5%, "
                  "+2ms, -0.5pp, changed); METRIC a summary key path such as "
                  "components.nvfp4_gemms.milliseconds");
  cmd->add_option("--ledger", flags->ledger,
                  "The ledger references resolve in (default $STEPSTAT_LEDGER, else "
                  ".stepstat/ledger.sqlite)");
  cmd->add_option("-o,--output", flags->output,
                  "Write the result here ('-' for stdout); written before a failed gate exits");
  cmd->add_option("--format", flags->format,
                  "table, json, markdown or html (a page: report_html.cc; default: table on a "
                  "terminal, json otherwise)")
      ->check(CLI::IsMember({"table", "json", "markdown", "html"}));
  cmd->footer(
      "Δ = cand − base everywhere. Each side is an INPUT as `steps` takes it (an nsys base also\n"
      "picks up its BASE_nvtx_pushpop_trace.csv), a summary or steps JSON that stepstat wrote,\n"
      "or a ledger reference (@ID, @latest, @prev, label:L, baseline:NAME). With >= --min-steps\n"
      "steady steps on both sides each metric gets its median, a 95 % interval, the\n"
      "Hodges-Lehmann shift and a Mann-Whitney p. With fewer, the runs compare whole and each\n"
      "kernel's calls are compared instead (Mann-Whitney on per-call durations).\n"
      "Verdict: regression, improvement, mixed, inconclusive, neutral or not_comparable, read\n"
      "from the step span, every component and (whole runs) every kernel: a row decides when\n"
      "p < --alpha, beyond --noise-floor and at least 0.5 % of the step (docs/diff.md).\n"
      "A gate fails on a significant change past its own limit, whatever the floor.\n"
      "Exit codes: 0 no gate failed, 1 a gate failed (or the pair is not comparable while\n"
      "gating), 2 bad usage or input.\n"
      "Examples:\n"
      "  stepstat diff before after                        # two nsys bases\n"
      "  stepstat diff before.json after.json --format markdown   # for a pull request\n"
      "  stepstat diff baseline:main run --fail-if-slower 2 --fail-if "
      "components.attention.milliseconds:+5%");
  cmd->callback([flags, floor, &action] {
    flags->noise_floor_given = floor->count() > 0;
    action = [flags] { return RunDiffCommand(*flags); };
  });
}

}  // namespace stepstat::cli
