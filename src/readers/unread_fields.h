// The fields a reader leaves unread because no sink reads them (TraceFields), and the test
// hooks that check the declarations: a pass run as is, with every field read whatever the
// sinks say (what passes read before TraceFields), and with the unread fields poisoned must
// give the same answer, or some sink reads a field it did not declare.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "stepstat/trace.h"

namespace stepstat {

/// What the test hook writes into unread fields: numbers a reader never gives (positive and
/// plausible, so a sink that reads one computes a wrong number rather than fail), and a name.
inline constexpr int64_t kUnreadPoison = 777'777'777;
inline constexpr std::string_view kUnreadName = "<not read by this pass>";

/// Test hook for the readers that honour TraceFields.
enum class UnreadFieldsHook {
  kNone,
  kPoison,          ///< the fields no sink reads get kUnreadPoison and kUnreadName
  kReadEverything,  ///< every field is read, whatever the sinks say
};
void SetUnreadFieldsHookForTesting(UnreadFieldsHook hook);

/// What a reader reads for `sink`: sink.reads(), unless the test hook says everything.
TraceFields FieldsToRead(const TraceSink& sink);

/// Overwrites every field outside `fields` (not `line`, not GpuOp::kind) with `number` or,
/// for a name, `name`.
void OverwriteUnread(std::span<GpuOp> ops, TraceFields fields, int64_t number, NameId name);
void OverwriteUnread(std::span<LaunchCall> calls, TraceFields fields, int64_t number, NameId name);

/// What a reader calls on a batch before handing it to the sink: under the kPoison hook,
/// OverwriteUnread with kUnreadPoison and kUnreadName (interned in `pool`); else nothing.
void PoisonUnreadIfHooked(std::span<GpuOp> ops, TraceFields fields, StringPool& pool);
void PoisonUnreadIfHooked(std::span<LaunchCall> calls, TraceFields fields, StringPool& pool);

}  // namespace stepstat
