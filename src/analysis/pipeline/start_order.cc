#include "analysis/pipeline/start_order.h"

#include <string_view>

namespace stepstat {

namespace {

constexpr std::string_view kOutOfStartOrder = "rows out of start order: read again, held";

// One comparison per row; a Status is made only at the break.
template <typename Row, typename StartOf>
std::optional<int64_t> FirstOutOfOrder(std::span<const Row> rows, std::optional<int64_t>& last,
                                       const StartOf& start_of) {
  if (rows.empty()) return std::nullopt;
  int64_t previous = last.value_or(start_of(rows.front()));
  for (const Row& row : rows) {
    const int64_t start = start_of(row);
    if (start < previous) return row.line;
    previous = start;
  }
  last = previous;
  return std::nullopt;
}

}  // namespace

std::string OrderBreakNote(const OrderBreak& order_break) {
  return order_break.file + ":" + std::to_string(order_break.line) + ": " + order_break.rows +
         " are not in start order from this row on (it starts before the row above it); the "
         "figures are exact, measured with every interval held and sorted";
}

Status StartOrderSink::Broke(int64_t line, const char* rows) {
  broke_ = OrderBreak{file_, line, rows};
  if (stop_at_break_) return OutOfStartOrder();
  hold_ = true;  // watching: the first break is the one to report
  return Status::Ok();
}

Status StartOrderSink::OnGpuOps(std::span<const GpuOp> ops, const StringPool& names) {
  if (!hold_) {
    auto start = [](const GpuOp& op) { return op.start_ns; };
    if (auto line = FirstOutOfOrder(ops, ops_last_start_, start)) {
      RETURN_IF_ERROR(Broke(*line, "GPU operations"));
    }
  }
  return next_.OnGpuOps(ops, names);
}

Status StartOrderSink::OnLaunchCalls(std::span<const LaunchCall> calls, const StringPool& names) {
  if (!hold_) {
    auto start = [](const LaunchCall& call) { return call.api_start_ns; };
    if (auto line = FirstOutOfOrder(calls, calls_last_start_, start)) {
      RETURN_IF_ERROR(Broke(*line, "launch calls"));
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
