#include "analysis/pipeline/device_filter_sink.h"

#include <string>

#include "stepstat/status.h"

namespace stepstat {

namespace {

bool AllDigits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

/// "NVIDIA GB10 (1)" → "1"; "" when the name does not end in a parenthesized device id.
std::string_view TrailingId(std::string_view name) {
  if (name.size() < 3 || name.back() != ')') return {};
  size_t open = name.rfind(" (");
  if (open == std::string_view::npos) return {};
  std::string_view id = name.substr(open + 2, name.size() - open - 3);
  return AllDigits(id) ? id : std::string_view();
}

}  // namespace

bool DeviceFilterSink::Matches(NameId id, const StringPool& names) {
  if (pool_ != &names) {  // another pool: its ids mean other names
    pool_ = &names;
    match_.clear();
    launch_match_.clear();
  }
  if (id >= match_.size()) match_.resize(names.size(), -1);
  if (match_[id] < 0) match_[id] = names.Get(id) == device_ ? 1 : 0;
  return match_[id] == 1;
}

bool DeviceFilterSink::LaunchMatches(NameId id, const StringPool& names) {
  if (Matches(id, names)) return true;
  if (id >= launch_match_.size()) launch_match_.resize(names.size(), -1);
  if (launch_match_[id] < 0) {
    std::string_view name = names.Get(id);
    std::string_view device_id = TrailingId(device_);
    launch_match_[id] = name.size() > 4 && name.substr(0, 4) == "GPU " &&
                                AllDigits(name.substr(4)) && name.substr(4) == device_id
                            ? 1
                            : 0;
  }
  return launch_match_[id] == 1;
}

Status DeviceFilterSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  ops_.clear();
  for (const GpuOp& op : ops) {
    if (Matches(op.device, names)) ops_.push_back(op);
  }
  return ops_.empty() ? Status::Ok() : inner_.OnGpuOps(ops_, names);
}

Status DeviceFilterSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) {
  calls_.clear();
  for (const LaunchCall& call : calls) {
    // A copy call names no device, and reaches only a sink that joins GPU operations to
    // their calls by id: one whose operation is on another device joins nothing here.
    if (call.kind == CallKind::kCopy || LaunchMatches(call.device, names)) {
      calls_.push_back(call);
    } else if (names.Get(call.device).empty() && call.kernel_start_ns >= 0) {
      return ErrorAt(source_, call.line,
                     "this launch's kernel is known but not its device: the trace cannot be "
                     "split by device");
    }
  }
  return calls_.empty() ? Status::Ok() : inner_.OnLaunchCalls(calls_, names);
}

Status DeviceNamesSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  if (pool_ != &names) {
    pool_ = &names;
    seen_.clear();
  }
  for (const GpuOp& op : ops) {
    if (op.device >= seen_.size()) seen_.resize(names.size(), false);
    if (seen_[op.device]) continue;
    seen_[op.device] = true;
    std::string name(names.Get(op.device));
    bool known = false;
    for (const std::string& device : devices_) known = known || device == name;
    if (!known) devices_.push_back(std::move(name));
  }
  return Status::Ok();
}

}  // namespace stepstat
