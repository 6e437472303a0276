// The generated index arithmetic past 2^31 elements, checked without a GPU:
// each kernel's CUDA is compiled as host C++ (a CUDA thread is a
// std::thread, __syncthreads a std::barrier) and the blocks that reach the
// head and the tail of u8 tensors of 2^31 + 4099 elements run on random
// data in sparse mappings, against a host reference, the output poisoned
// first. The 32-bit kernels of before stored before the buffer here.
// (tests/gpu/large_tensor_gpu_test.cpp runs the same kernels on a device.)
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"
#include "common/large_tensor_kernels.hpp"
#include "common/process.hpp"
#include "common/test_seed.hpp"
#include "frontend/frontend.hpp"

namespace croq::pipeline {
namespace {

using test::generate_cuda;

constexpr std::int64_t kLarge = (std::int64_t{1} << 31) + 4099;

// Declarations the kernels use, for a host compiler.
const char* kShim = R"(#include <barrier>
struct croq_dim3 { unsigned x = 0, y = 0, z = 0; };
inline thread_local croq_dim3 threadIdx, blockIdx;
inline croq_dim3 blockDim, gridDim;
inline std::barrier<>* croq_block_barrier = nullptr;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
// The vector types of 16-, 8- and 4-byte accesses (vectorize_elementwise).
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) int2 { int x, y; };
inline void __syncthreads() { croq_block_barrier->arrive_and_wait(); }
alignas(128) unsigned char croq_smem[1 << 16];
)";

// Runs blocks of the kernel (KERNEL, launched as LAUNCH) on u8 tensors of
// n elements, the view covering `valid` of them:
//   emu n valid grid block check_from check_to first:last...
// and prints how many of out[check_from, check_to) differ from a + b
// (the poison past `valid`). Only the head and tail MiB hold data.
const char* kHarness = R"(#include "shim.hpp"
#include <sys/mman.h>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>
#include "kernel.cu"
int main(int argc, char** argv) {
  const long long n = std::atoll(argv[1]), valid = std::atoll(argv[2]);
  gridDim.x = std::atoll(argv[3]);
  blockDim.x = std::atoll(argv[4]);
  auto map = [&] {
    void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { std::puts("no memory"); std::exit(2); }
    return static_cast<unsigned char*>(p);
  };
  unsigned char *a = map(), *b = map(), *out = map();
  std::mt19937 rng(SEED);  // the test's seed (common/test_seed.hpp), as -DSEED
  const long long region = 1 << 20;
  for (long long from : {0LL, n - region})
    for (long long i = from; i < from + region; ++i) { a[i] = rng(); b[i] = rng(); out[i] = 0xa5; }
  for (int arg = 7; arg < argc; ++arg) {
    long long first = 0, last = 0;
    std::sscanf(argv[arg], "%lld:%lld", &first, &last);
    for (long long block = first; block <= last; ++block) {
      std::barrier<> barrier(blockDim.x);
      croq_block_barrier = &barrier;
      std::vector<std::thread> threads;
      for (unsigned t = 0; t < blockDim.x; ++t)
        threads.emplace_back([&, t] { threadIdx.x = t; blockIdx.x = block; LAUNCH; });
      for (auto& thread : threads) thread.join();
    }
  }
  long long wrong = 0;
  for (long long i = std::atoll(argv[5]); i < std::atoll(argv[6]); ++i)
    wrong += out[i] != (i < valid ? (unsigned char)(a[i] + b[i]) : 0xa5);
  std::printf("wrong %lld\n", wrong);
}
)";

struct EmulationCase {
  std::string name;
  std::string source;
  std::vector<std::int64_t> shape;  // -1: the dynamic dim N
  std::vector<std::string> args;    // valid grid block check_from check_to blocks...
};

class LargeIndexEmulation : public ::testing::TestWithParam<EmulationCase> {};

TEST_P(LargeIndexEmulation, HeadAndTailMatchTheHostReference) {
  const EmulationCase& c = GetParam();
  // The harness maps 3 x 2 GiB without reserving it; where overcommit is
  // off that fails, and the test cannot run.
  void* probe = mmap(nullptr, 3 * static_cast<std::size_t>(kLarge), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (probe == MAP_FAILED) GTEST_SKIP() << "cannot map 6 GiB of sparse memory here";
  munmap(probe, 3 * static_cast<std::size_t>(kLarge));

  CompileOptions options;
  auto program = frontend::parse_program(c.source, options);
  const bool dynamic = c.shape[0] < 0;
  std::vector<ArgSignature> args(3, test::tensor(DType::u8, c.shape));
  GeneratedKernel k = generate_cuda(*program, frontend::select_entry(*program, options, program->source), args,
                                    227 * 1024, dynamic ? std::vector<std::string>{"N"} : std::vector<std::string>{});
  // The launch the runtime would make (a dynamic grid as computed at launch).
  const std::string grid = c.args[1];
  if (!dynamic) EXPECT_EQ(std::to_string(k.launch.grid[0]), grid);
  EXPECT_EQ(std::to_string(k.launch.block[0]), c.args[2]);

  croq::test::TempDir dir;
  std::ofstream(dir.path() / "shim.hpp") << kShim;
  std::ofstream(dir.path() / "kernel.cu") << k.cuda_source;
  std::ofstream(dir.path() / "emu.cpp") << kHarness;
  const std::string launch = dynamic ? "croq_add(a, b, out, n)" : "croq_add(a, b, out)";
  const std::string binary = (dir.path() / "emu").string();
  croq::test::ProcessResult built = croq::test::run_process(
      {CROQ_HOST_CXX, "-std=c++20", "-O1", "-pthread", "-w", "-DLAUNCH=" + launch,
       "-DSEED=" + std::to_string(croq::test::next_seed()) + "u", (dir.path() / "emu.cpp").string(), "-o", binary},
      {}, dir.path());
  ASSERT_EQ(built.exit_code, 0) << built.err << "\n" << k.cuda_source;
  std::vector<std::string> argv = {binary, std::to_string(kLarge)};
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  croq::test::ProcessResult ran = croq::test::run_process(argv, {}, dir.path());
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err << "\n" << k.cuda_source;
  EXPECT_EQ(ran.out, "wrong 0\n") << k.cuda_source;
}

using croq::test::kLargeBlockAdd;
using croq::test::kLargeFlatAdd;
using croq::test::kLargeTiledAdd;
using croq::test::kLargeTwoDimAdd;

std::string at(std::int64_t v) { return std::to_string(v); }

INSTANTIATE_TEST_SUITE_P(
    Codegen, LargeIndexEmulation,
    ::testing::Values(
        // 16 elements a thread (vectorize_elementwise): 524289 blocks of 256
        // threads take the 134217984 whole vectors, the last 2 blocks the last
        // 8192 elements; the 3 past the last vector go to the first threads
        // (block 0 runs too).
        EmulationCase{"FlatTail", kLargeFlatAdd, {kLarge}, {at(kLarge), "524289", "256", at(kLarge - 8192), at(kLarge), "0:0", "524286:524288"}},
        EmulationCase{"FlatHead", kLargeFlatAdd, {kLarge}, {at(kLarge), "524289", "256", "0", "1024", "0:0"}},
        EmulationCase{"FlatDynamicTail", kLargeFlatAdd, {-1}, {at(kLarge), "8388625", "256", at(kLarge - 8192), at(kLarge), "8388576:8388624"}},
        // 2^31 - 1 blocks of 1 thread: blocks 0..4099 also take the last 4100
        // elements on their second pass; the blocks before cover 100 more.
        EmulationCase{"BlockPerElementTail", kLargeBlockAdd, {kLarge},
                      {at(kLarge), "2147483647", "1", at(kLarge - 4200), at(kLarge), "0:4099", "2147483547:2147483646"}},
        EmulationCase{"BlockPerElementDynamicTail", kLargeBlockAdd, {-1},
                      {at(kLarge), "2147483647", "1", at(kLarge - 4200), at(kLarge), "0:4099", "2147483547:2147483646"}},
        EmulationCase{"TiledTail", kLargeTiledAdd, {kLarge},
                      {at(kLarge), "524290", "256", at(std::int64_t{524286} * 4096), at(kLarge), "524286:524289"}},
        // [524289, 4096] = 2^31 + 4096 elements, 16 a thread; the 3 bytes past
        // it keep the poison.
        EmulationCase{"TwoDimensionalTail", kLargeTwoDimAdd, {524289, 4096},
                      {at(std::int64_t{524289} * 4096), "524289", "256", at(std::int64_t{524289} * 4096 - 12288), at(kLarge),
                       "524286:524288"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace croq::pipeline
