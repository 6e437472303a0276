// CROQ_INTERPRET_RACES: `croq run --interpret` of a kernel with a data race
// on shared memory fails with the race at its line by default, and runs
// with CROQ_INTERPRET_RACES=0 (the variable is read once per process).
#include <gtest/gtest.h>

#include <fstream>

#include "cli/npy.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"

namespace {

// Each thread writes its element, then reads its neighbour's: no barrier.
const char* kRacy = R"croq(__co__ void neighbours(s32 [64] input, s32 [64] output) {
  parallel b by 1 : block {
    shared s32 [64] tile;
    parallel t by 64 : thread {
      tile.at(t) = input.at(t);
      output.at(t) = tile.at((t + 1) % 64);
    }
  }
}
)croq";

croq::test::ProcessResult run_racy(const croq::test::TempDir& dir, std::map<std::string, std::string> env) {
  std::ofstream(dir.path() / "racy.co") << kRacy;
  croq::Tensor input = croq::Tensor::empty(croq::DType::s32, {64}, croq::MemoryKind::host);
  for (int i = 0; i < 64; ++i) static_cast<std::int32_t*>(input.data())[i] = i + 1;
  croq::cli::write_npy((dir.path() / "input.npy").string(), input);
  croq::cli::write_npy((dir.path() / "output.npy").string(), input);
  const std::vector<std::string> argv = {std::string(CROQ_BINARY_DIR) + "/croq", "run", (dir.path() / "racy.co").string(),
                                         "--interpret", "--arg", "input=" + (dir.path() / "input.npy").string(),
                                         "--arg", "output=" + (dir.path() / "output.npy").string()};
  return croq::test::run_process(argv, env, dir.path());
}

TEST(InterpretRacesSwitch, ARaceIsAnErrorByDefault) {
  croq::test::TempDir dir;
  auto r = run_racy(dir, {});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE(r.err.find("racy.co:5:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data race on shared `tile` (element 1): thread 0 reads it at line 6 and thread 1 writes it "
                       "at line 5"),
            std::string::npos)
      << r.err;
}

TEST(InterpretRacesSwitch, ZeroTurnsTheReportOff) {
  croq::test::TempDir dir;
  auto r = run_racy(dir, {{"CROQ_INTERPRET_RACES", "0"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
