#include "analysis/pipeline/start_order.h"

#include <gtest/gtest.h>

#include <vector>

#include "analysis/pipeline/test_starts_sink.h"

namespace stepstat {
namespace {

std::vector<GpuOp> Ops(std::initializer_list<int64_t> starts, int64_t first_line) {
  std::vector<GpuOp> ops;
  for (int64_t start : starts) {
    GpuOp op;
    op.start_ns = start;
    op.duration_ns = 5;
    op.line = first_line++;
    ops.push_back(op);
  }
  return ops;
}

std::vector<LaunchCall> Calls(std::initializer_list<int64_t> starts, int64_t first_line) {
  std::vector<LaunchCall> calls;
  for (int64_t start : starts) {
    LaunchCall call;
    call.api_start_ns = start;
    call.api_duration_ns = 3;
    call.line = first_line++;
    calls.push_back(call);
  }
  return calls;
}

TEST(StartOrderSink, PassesRowsInStartOrderThrough) {
  StringPool names;
  StartsSink next;
  StartOrderSink stage(next, "gpu.csv", /*hold=*/false);
  ASSERT_TRUE(stage.OnGpuOps(Ops({10, 10, 20}, 2), names).ok());
  ASSERT_TRUE(stage.OnGpuOps(Ops({20, 35}, 5), names).ok());  // equal starts are in order
  ASSERT_TRUE(stage.OnFinish().ok());
  EXPECT_EQ(next.op_starts, (std::vector<int64_t>{10, 10, 20, 20, 35}));
  EXPECT_TRUE(next.finished);
  EXPECT_FALSE(stage.broke().has_value());
}

TEST(StartOrderSink, StopsAtTheFirstRowOutOfOrderAndSaysWhere) {
  StringPool names;
  StartsSink next;
  StartOrderSink stage(next, "gpu.csv", /*hold=*/false);
  ASSERT_TRUE(stage.OnGpuOps(Ops({10, 20}, 2), names).ok());
  Status status = stage.OnGpuOps(Ops({30, 25, 5}, 4), names);  // line 5 starts before line 4
  EXPECT_TRUE(IsOutOfStartOrder(status));
  ASSERT_TRUE(stage.broke().has_value());
  EXPECT_EQ(stage.broke()->file, "gpu.csv");
  EXPECT_EQ(stage.broke()->line, 5);
  EXPECT_EQ(stage.broke()->rows, "GPU operations");
  // The batch that broke order never reached the sinks.
  EXPECT_EQ(next.op_starts, (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(OrderBreakNote(*stage.broke()).rfind("gpu.csv:5: GPU operations are not in", 0), 0u);
}

TEST(StartOrderSink, EachSideHasItsOwnOrder) {
  StringPool names;
  StartsSink next;
  StartOrderSink stage(next, "trace.json", /*hold=*/false);
  ASSERT_TRUE(stage.OnGpuOps(Ops({100, 200}, 1), names).ok());
  ASSERT_TRUE(stage.OnLaunchCalls(Calls({50, 90}, 10), names).ok());  // before the ops: fine
  Status status = stage.OnLaunchCalls(Calls({80}, 12), names);
  EXPECT_TRUE(IsOutOfStartOrder(status));
  ASSERT_TRUE(stage.broke().has_value());
  EXPECT_EQ(stage.broke()->line, 12);
  EXPECT_EQ(stage.broke()->rows, "launch calls");
}

TEST(StartOrderSink, HoldingPassesEverythingThrough) {
  StringPool names;
  StartsSink next;
  StartOrderSink stage(next, "gpu.csv", /*hold=*/true);
  ASSERT_TRUE(stage.OnGpuOps(Ops({30, 10, 20}, 2), names).ok());
  ASSERT_TRUE(stage.OnFinish().ok());
  EXPECT_EQ(next.op_starts, (std::vector<int64_t>{30, 10, 20}));
  EXPECT_FALSE(stage.broke().has_value());
}

TEST(StartOrderSink, WatchingRecordsTheFirstBreakAndPassesEverything) {
  StringPool names;
  StartsSink next;
  StartOrderSink stage(next, "gpu.csv", /*hold=*/false, /*stop_at_break=*/false);
  ASSERT_TRUE(stage.OnGpuOps(Ops({10, 30, 20}, 2), names).ok());
  ASSERT_TRUE(stage.OnGpuOps(Ops({15, 40}, 5), names).ok());
  ASSERT_TRUE(stage.OnFinish().ok());
  EXPECT_EQ(next.op_starts, (std::vector<int64_t>{10, 30, 20, 15, 40}));
  ASSERT_TRUE(stage.broke().has_value());
  EXPECT_EQ(stage.broke()->line, 4);
}

// A pass as the pipelines write one: a stage in front of its sinks, what it saw learned.
struct CountingPass {
  std::vector<GpuOp> ops;
  std::vector<bool> holds;  // one entry per run of the pass
  int Run(StartOrder& order, bool hold) {
    holds.push_back(hold);
    StringPool names;
    StartsSink next;
    StartOrderSink stage(next, "gpu.csv", hold);
    Status read = stage.OnGpuOps(ops, names);
    order.Learn(stage.broke());
    return read.ok() ? static_cast<int>(next.op_starts.size()) : -1;
  }
};

TEST(RunInStartOrder, SortedInputRunsOnceStreaming) {
  StartOrder order;
  CountingPass pass{Ops({1, 2, 3}, 1), {}};
  int seen = RunInStartOrder<int>(order, [&](bool hold) { return pass.Run(order, hold); });
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(pass.holds, (std::vector<bool>{false}));
  EXPECT_FALSE(order.hold());
}

TEST(RunInStartOrder, ABreakRunsThePassAgainHoldingAndLaterPassesHoldAtOnce) {
  StartOrder order;
  CountingPass first{Ops({1, 3, 2}, 7), {}};
  int seen = RunInStartOrder<int>(order, [&](bool hold) { return first.Run(order, hold); });
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(first.holds, (std::vector<bool>{false, true}));
  ASSERT_TRUE(order.hold());
  EXPECT_EQ(order.first_break()->line, 9);

  CountingPass second{Ops({5, 4}, 1), {}};
  seen = RunInStartOrder<int>(order, [&](bool hold) { return second.Run(order, hold); });
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(second.holds, (std::vector<bool>{true}));
  EXPECT_EQ(order.first_break()->line, 9);  // the first break is the one the run reports
}

}  // namespace
}  // namespace stepstat
