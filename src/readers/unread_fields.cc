#include "readers/unread_fields.h"

#include <atomic>

namespace stepstat {

namespace {

// Set by a test before a run's threads start; read by the readers.
std::atomic<UnreadFieldsHook> hook{UnreadFieldsHook::kNone};

bool Poisoning() { return hook.load(std::memory_order_relaxed) == UnreadFieldsHook::kPoison; }

template <typename Row, typename Field, typename Value>
void Overwrite(bool read, Row& row, Field Row::*field, Value value) {
  if (!read) row.*field = static_cast<Field>(value);
}

}  // namespace

void SetUnreadFieldsHookForTesting(UnreadFieldsHook value) { hook.store(value); }

TraceFields FieldsToRead(const TraceSink& sink) {
  if (hook.load(std::memory_order_relaxed) == UnreadFieldsHook::kReadEverything) {
    return TraceFields::All();
  }
  return sink.reads();
}

void OverwriteUnread(std::span<GpuOp> ops, TraceFields fields, int64_t number, NameId name) {
  using F = TraceFields;
  for (GpuOp& op : ops) {
    Overwrite(fields.has(F::kOpStart), op, &GpuOp::start_ns, number);
    Overwrite(fields.has(F::kOpDuration), op, &GpuOp::duration_ns, number);
    Overwrite(fields.has(F::kOpStream), op, &GpuOp::stream, number);
    Overwrite(fields.has(F::kOpBytes), op, &GpuOp::bytes, number);
    Overwrite(fields.has(F::kOpCorrelation), op, &GpuOp::correlation_id, number);
    Overwrite(fields.has(F::kOpName), op, &GpuOp::name, name);
    Overwrite(fields.has(F::kOpDevice), op, &GpuOp::device, name);
    Overwrite(fields.has(F::kOpPid), op, &GpuOp::pid, number);
  }
}

void OverwriteUnread(std::span<LaunchCall> calls, TraceFields fields, int64_t number, NameId name) {
  using F = TraceFields;
  for (LaunchCall& call : calls) {
    Overwrite(fields.has(F::kApiStart), call, &LaunchCall::api_start_ns, number);
    Overwrite(fields.has(F::kApiDuration), call, &LaunchCall::api_duration_ns, number);
    Overwrite(fields.has(F::kQueueDuration), call, &LaunchCall::queue_duration_ns, number);
    Overwrite(fields.has(F::kKernelStart), call, &LaunchCall::kernel_start_ns, number);
    Overwrite(fields.has(F::kKernelDuration), call, &LaunchCall::kernel_duration_ns, number);
    Overwrite(fields.has(F::kCallPid), call, &LaunchCall::pid, number);
    Overwrite(fields.has(F::kCallTid), call, &LaunchCall::tid, number);
    Overwrite(fields.has(F::kCallCorrelation), call, &LaunchCall::correlation_id, number);
    Overwrite(fields.has(F::kApiName), call, &LaunchCall::api_name, name);
    Overwrite(fields.has(F::kKernelName), call, &LaunchCall::kernel_name, name);
    Overwrite(fields.has(F::kCallDevice), call, &LaunchCall::device, name);
  }
}

void PoisonUnreadIfHooked(std::span<GpuOp> ops, TraceFields fields, StringPool& pool) {
  if (Poisoning()) OverwriteUnread(ops, fields, kUnreadPoison, pool.Intern(kUnreadName));
}

void PoisonUnreadIfHooked(std::span<LaunchCall> calls, TraceFields fields, StringPool& pool) {
  if (Poisoning()) OverwriteUnread(calls, fields, kUnreadPoison, pool.Intern(kUnreadName));
}

}  // namespace stepstat
