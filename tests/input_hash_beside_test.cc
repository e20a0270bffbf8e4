// The hash computed beside the steps is the hash of the files asked for: of those it was
// started on when they are the ones asked for, else of the files asked for, computed then.
#include "engine/input_hash_beside.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "stepstat/ledger.h"
#include "test_platform.h"

namespace stepstat {
namespace {

namespace fs = std::filesystem;

TEST(InputHashBeside, IsTheHashOfTheFilesAskedFor) {
  const fs::path dir = fs::temp_directory_path() /
                       ("stepstat_hash_beside_" + std::to_string(testing_support::ProcessId()));
  fs::create_directories(dir);
  const fs::path a = dir / "a.csv", b = dir / "b.csv";
  std::ofstream(a, std::ios::binary) << "Start (ns),Duration (ns)\n1,2\n";
  std::ofstream(b, std::ios::binary) << "another file\n";
  const std::string hash_a = HashInputFiles({a}).value();
  const std::string hash_ab = HashInputFiles({a, b}).value();
  ASSERT_NE(hash_a, HashInputFiles({b}).value());

  InputHashBeside same({a, b});
  EXPECT_EQ(same.Take({a, b}).value(), hash_ab);
  InputHashBeside other({a});  // started on other files than those read in the end
  EXPECT_EQ(other.Take({a, b}).value(), hash_ab);
  InputHashBeside none({});  // the files were not known before reading
  EXPECT_EQ(none.Take({a}).value(), hash_a);
  {
    InputHashBeside unread({a, b});  // never taken (the side failed): joined on the way out
  }
  InputHashBeside missing({dir / "gone.csv"});
  EXPECT_FALSE(missing.Take({dir / "gone.csv"}).ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stepstat
