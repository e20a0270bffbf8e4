#include <gtest/gtest.h>

#include <string>

#include "stepstat/trace.h"

namespace stepstat {
namespace {

TEST(StringPool, InternsOnceAndKeepsViewsStable) {
  StringPool pool;
  EXPECT_EQ(pool.Get(0), "");
  NameId a = pool.Intern("kernel_a");
  std::string_view view = pool.Get(a);
  for (int i = 0; i < 100000; ++i) pool.Intern("name" + std::to_string(i));
  EXPECT_EQ(pool.Intern("kernel_a"), a);
  EXPECT_EQ(view, "kernel_a");  // still valid after many more names
  std::string long_name(100000, 'x');
  NameId l = pool.Intern(long_name);
  EXPECT_EQ(pool.Get(l), long_name);
  EXPECT_EQ(pool.Intern("after_long"), pool.Intern("after_long"));
  EXPECT_EQ(pool.Get(a), "kernel_a");
}

}  // namespace
}  // namespace stepstat
