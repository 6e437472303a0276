// croq bench --tune: parsing NAME=V1,V2,... into the cross product of
// configurations, and the per-configuration table (with or without a GPU).
#include <gtest/gtest.h>

#include <fstream>

#include "common/croq_command.hpp"
#include "common/tune_sources.hpp"
#include "croq/croq.hpp"

namespace croq::cli {
namespace {

using croq::test::kTunedAdd;

class BenchTune : public ::testing::Test {
 protected:
  BenchTune() { std::ofstream(source_) << kTunedAdd; }
  test::ProcessResult bench(std::vector<std::string> extra) {
    std::vector<std::string> argv{kCroq, "bench", source_, "--shape", "M=64", "--shape", "N=64", "--reps", "3"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_process(argv, {{"CROQ_CACHE_DIR", (dir_.path() / "cache").string()}}, dir_.path());
  }

  TempDir dir_;
  std::string source_ = (dir_.path() / "tuned_add.co").string();
};

TEST_F(BenchTune, MalformedTuneOptionsAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--tune", "TM"}, "--tune needs NAME=V1,V2,..., got `TM`"},
      {{"--tune", "TM="}, "--tune needs NAME=V1,V2,..., got `TM=`"},
      {{"--tune", "TM=16,,32"}, "--tune TM: empty value in `16,,32`"},
      {{"--tune", "TM=16,"}, "--tune TM: empty value in `16,`"},
      {{"--tune", "TM=16,x"}, "--tune TM: `x` is not a number"},
      {{"--tune", "1TM=16"}, "`1TM` is not a name"},
      {{"--tune", "TM=16", "--tune", "TM=32"}, "--tune TM is given twice"},
      {{"--tune"}, "--tune needs a value"},
  };
  for (const auto& [extra, message] : cases) {
    auto r = bench(extra);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

// The cross product, first --tune slowest, and a configuration that does not
// compile (TM=0 divides by zero) reported as such. Without a GPU the others
// are compiled and reported as not run; with one they are timed and the
// fastest is chosen.
TEST_F(BenchTune, TriesTheCrossProductAndReportsEachConfiguration) {
  auto r = bench({"--tune", "TM=16,0,8", "--tune", "TN=16,32"});
  const std::string table = r.out + r.err;
  EXPECT_NE(r.out.find("tuning 6 configurations"), std::string::npos) << table;
  std::vector<std::size_t> at;
  for (const char* config : {"TM=16 TN=16", "TM=16 TN=32", "TM=0 TN=16", "TM=0 TN=32", "TM=8 TN=16", "TM=8 TN=32"}) {
    // Each row starts with two spaces, or "* " for the chosen one.
    at.push_back(table.find(std::string(" ") + config + " "));
    EXPECT_NE(at.back(), std::string::npos) << config << "\n" << table;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end())) << table;
  for (const char* bad : {"TM=0 TN=16", "TM=0 TN=32"}) {
    std::size_t line = table.find(std::string("  ") + bad + " ");
    ASSERT_NE(line, std::string::npos);
    std::string row = table.substr(line, table.find('\n', line) - line);
    EXPECT_NE(row.find("compile failed"), std::string::npos) << row;
    EXPECT_NE(row.find("divides by zero"), std::string::npos) << row;
  }
  std::string why;
  if (!cuda_available(&why)) {
    EXPECT_EQ(r.exit_code, 1) << table;
    EXPECT_NE(r.err.find("no configuration can be timed without a CUDA device"), std::string::npos) << table;
    EXPECT_NE(r.err.find("not run"), std::string::npos) << table;
    return;
  }
  EXPECT_EQ(r.exit_code, 0) << table;
  EXPECT_NE(r.out.find("chosen: TM="), std::string::npos) << table;
  EXPECT_NE(r.out.find("median"), std::string::npos) << table;
  // A second run finds the record and times nothing.
  auto again = bench({"--tune", "TM=16,0,8", "--tune", "TN=16,32"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("nothing timed"), std::string::npos) << again.out;
}

TEST_F(BenchTune, HelpNamesTheOption) {
  auto r = run_process({kCroq, "bench", "--help"}, {}, dir_.path());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--tune N=V1,V2"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace croq::cli
