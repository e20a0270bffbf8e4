#include "analysis/pipeline/start_order.h"

#include <string_view>

namespace stepstat {

namespace {

constexpr std::string_view kOutOfStartOrder = "rows out of start order: read again, held";

}  // namespace

std::string OrderBreakNote(const OrderBreak& order_break) {
  return order_break.file + ":" + std::to_string(order_break.line) + ": " + order_break.rows +
         " are not in start order from this row on (it starts before the row above it); the "
         "figures are exact, measured with every interval held and sorted";
}

Status StartOrderSink::Check(Side& side, int64_t start, int64_t line, const char* rows) {
  if (side.last_start && start < *side.last_start) {
    broke_ = OrderBreak{file_, line, rows};
    return OutOfStartOrder();
  }
  side.last_start = start;
  return Status::Ok();
}

Status StartOrderSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  if (!hold_) {
    for (const GpuOp& op : ops)
      RETURN_IF_ERROR(Check(ops_, op.start_ns, op.line, "GPU operations"));
  }
  return next_.OnGpuOps(ops, names);
}

Status StartOrderSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) {
  if (!hold_) {
    for (const LaunchCall& call : calls) {
      RETURN_IF_ERROR(Check(calls_, call.api_start_ns, call.line, "launch calls"));
    }
  }
  return next_.OnLaunchCalls(calls, names);
}

Status OutOfStartOrder() { return Status::Error(std::string(kOutOfStartOrder)); }

bool IsOutOfStartOrder(const Status& status) {
  return !status.ok() && status.message() == kOutOfStartOrder;
}

void StartOrder::Learn(const std::optional<OrderBreak>& stage_break) {
  if (!first_break_ && stage_break) first_break_ = stage_break;
}

}  // namespace stepstat
