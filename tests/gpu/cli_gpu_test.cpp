// `croq run` and `croq bench` on a real device.
#include <gtest/gtest.h>

#include "cli/npy.hpp"
#include "common/croq_command.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"

namespace croq::cli {
namespace {

TEST(GpuCli, RunReadsNpyInputsAndWritesTheResult) {
  CROQ_REQUIRE_GPU();
  TempDir dir;
  auto lhs = make_spandata<float>(37, 129), rhs = make_spandata<float>(37, 129);
  lhs.fill_random(-10, 10, croq::test::next_seed());
  rhs.fill_random(-10, 10, croq::test::next_seed());
  std::string lp = (dir.path() / "lhs.npy").string(), rp = (dir.path() / "rhs.npy").string(),
              out = (dir.path() / "out.npy").string();
  write_npy(lp, Tensor::copy_of(lhs.view(), MemoryKind::host));
  write_npy(rp, Tensor::copy_of(rhs.view(), MemoryKind::host));
  auto r = run_process({kCroq, "run", kAdd, "--arg", "lhs=" + lp, "--arg", "rhs=" + rp, "--out", out}, {}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("result: f32 [37, 129]"), std::string::npos) << r.out;
  Tensor res = read_npy(out);
  ASSERT_EQ(res.shape(), (Shape{37, 129}));
  for (std::size_t i = 0; i < 37; ++i)
    for (std::size_t j = 0; j < 129; ++j)
      ASSERT_EQ(res[i][j], static_cast<float>(lhs[i][j]) + static_cast<float>(rhs[i][j]));
}

TEST(GpuCli, RunWithRandomInputsAndBench) {
  CROQ_REQUIRE_GPU();
  TempDir dir;
  auto r = run_process({kCroq, "run", kAdd, "--random", "7", "--shape", "M=64", "--shape", "N=64"}, {}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("run: 'lhs' is random f32 [64, 64]"), std::string::npos) << r.err;
  auto b = run_process({kCroq, "bench", kAdd, "--shape", "M=4096", "--shape", "N=4096", "--reps", "10",
                        "--flops", "16777216"}, {}, dir.path());
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.out.find("add: f32 [4096, 4096] f32 [4096, 4096]"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("GB/s"), std::string::npos) << b.out;
  EXPECT_NE(b.out.find("TFLOP/s"), std::string::npos) << b.out;
}

}  // namespace
}  // namespace croq::cli
