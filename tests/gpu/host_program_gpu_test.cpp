// A Croqtile file with a host program runs through `croq host` and g++ and
// prints what its checks say (tests/data/host/host_program.co).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

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

// Sub-byte tensors pass to kernels and come back a byte per element.
TEST(HostProgramGpu, SubByteTypesRunTheirKernels) {
  CROQ_REQUIRE_GPU();
  test::TempDir dir;
  test::HostProgram p =
      test::build_host_program(CROQ_TEST_DATA_DIR "/host/subbyte_types.co", dir.path(), "subbyte_types", true);
  ASSERT_EQ(p.generated.exit_code, 0) << p.generated.err;
  ASSERT_EQ(p.built.exit_code, 0) << p.built.err;
  test::ProcessResult ran = test::run_process({p.binary}, {}, dir.path());
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, "host types ok\nmixed_sum ok\nnibble_difference ok\nstage_pairs ok\n") << ran.err;
}

// The blocks print in any order, all before the host's line after the call.
TEST(HostProgramGpu, PrintlnOnAStreamComesBeforeTheHostGoesOn) {
  CROQ_REQUIRE_GPU();
  test::TempDir dir;
  test::HostProgram p =
      test::build_host_program(CROQ_TEST_DATA_DIR "/host/stream_print.co", dir.path(), "stream_print", true);
  ASSERT_EQ(p.generated.exit_code, 0) << p.generated.err;
  ASSERT_EQ(p.built.exit_code, 0) << p.built.err;
  test::ProcessResult ran = test::run_process({p.binary}, {}, dir.path());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::vector<std::string> lines;
  std::istringstream out(ran.out);
  for (std::string line; std::getline(out, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << ran.out;
  EXPECT_EQ(lines.back(), "after the call");
  lines.pop_back();
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"block 0: 10 true 1.500000", "block 1: 11 true 0.500000",
                                             "block 2: 12 false -0.500000", "block 3: 13 false -1.500000"}))
      << ran.out;
}

}  // namespace
}  // namespace croq
