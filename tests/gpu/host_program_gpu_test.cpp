// A Croqtile file with a host program runs through `croq host` and g++ and
// prints what its checks say (tests/data/host/host_program.co).
#include <gtest/gtest.h>

#include "common/host_program.hpp"
#include "gpu/gpu_test_util.hpp"

namespace croq {
namespace {

TEST(HostProgramGpu, GeneratedProgramRunsItsKernels) {
  CROQ_REQUIRE_GPU();
  test::TempDir dir;
  test::HostProgram p =
      test::build_host_program(CROQ_TEST_DATA_DIR "/host/host_program.co", dir.path(), "host_program", true);
  ASSERT_EQ(p.generated.exit_code, 0) << p.generated.err;
  ASSERT_EQ(p.built.exit_code, 0) << p.built.err;
  test::ProcessResult ran = test::run_process({p.binary}, {}, dir.path());
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, "host code ran: 6\nadd_one ok\ntwice ok\nfill_seven ok\n") << ran.err;
}

}  // namespace
}  // namespace croq
