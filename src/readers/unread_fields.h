// The fields a reader leaves unread because no sink reads them (TraceFields), and a test
// hook that fills them with poison: run a pass with it on and off, and any sink that reads a
// field it did not declare changes the answer instead of silently reading a default.
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

/// Test hook: the readers that honour TraceFields poison the fields they leave unread.
void PoisonUnreadFieldsForTesting(bool poison);
bool PoisoningUnreadFields();

/// Overwrites every field outside `fields` (not `line`, not GpuOp::kind) with `number` or,
/// for a name, `name`.
void OverwriteUnread(std::span<GpuOp> ops, TraceFields fields, int64_t number, NameId name);
void OverwriteUnread(std::span<LaunchCall> calls, TraceFields fields, int64_t number, NameId name);

}  // namespace stepstat
