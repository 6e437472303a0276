// Codegen golden tests: each sample's kernel, specialized for the shapes
// its host code uses, must produce exactly the reviewed CUDA in
// tests/data/codegen/<sample>.cu (CROQ_UPDATE_GOLDEN=1 rewrites them) and
// that CUDA must compile with NVRTC for sm_90a.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "codegen/kernel_codegen.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace croq::codegen {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The Croqtile source embedded in a sample as R"croq( ... )croq".
std::string sample_source(const std::string& sample) {
  std::string text = read_file(std::string(CROQ_SAMPLES_DIR) + "/" + sample + ".cpp");
  std::size_t begin = text.find("R\"croq(");
  std::size_t end = text.find(")croq\"");
  EXPECT_NE(begin, std::string::npos) << sample;
  return text.substr(begin + 7, end - begin - 7);
}

ArgSignature tensor(DType t, std::vector<std::int64_t> shape) {
  ArgSignature a;
  a.dtype = t;
  a.shape = std::move(shape);
  return a;
}

GeneratedKernel generate(const std::string& source, const std::vector<ArgSignature>& args,
                         const std::string& name = "sample.co") {
  CompileOptions options;
  options.source_name = name;
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  return generate_cuda(*program, fn, args, 227 * 1024);
}

struct SampleCase {
  std::string sample;
  std::vector<ArgSignature> args;
  std::array<unsigned, 3> grid, block;
  unsigned shared_bytes;
};

class SampleCodegen : public ::testing::TestWithParam<SampleCase> {};

TEST_P(SampleCodegen, MatchesGoldenAndCompiles) {
  const SampleCase& c = GetParam();
  GeneratedKernel k = generate(sample_source(c.sample), c.args, c.sample + ".co");
  std::string golden_path = std::string(CROQ_TEST_DATA_DIR) + "/codegen/" + c.sample + ".cu";
  if (std::getenv("CROQ_UPDATE_GOLDEN")) std::ofstream(golden_path) << k.cuda_source;
  EXPECT_EQ(k.cuda_source, read_file(golden_path)) << "regenerate with CROQ_UPDATE_GOLDEN=1 and review the diff";
  EXPECT_EQ(k.launch.grid, c.grid);
  EXPECT_EQ(k.launch.block, c.block);
  EXPECT_EQ(k.launch.shared_bytes, c.shared_bytes);
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, c.sample + ".cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Samples, SampleCodegen,
    ::testing::Values(
        SampleCase{"ele_add", {tensor(DType::s32, {100, 300}), tensor(DType::s32, {100, 300})}, {118, 1, 1}, {256, 1, 1}, 0},
        SampleCase{"tiled_add", {tensor(DType::s32, {64, 128}), tensor(DType::s32, {64, 128})}, {32, 1, 1}, {1, 1, 1}, 2048},
        SampleCase{"matmul_scalar", {tensor(DType::s32, {128, 256}), tensor(DType::s32, {256, 256})}, {4, 1, 1}, {256, 1, 1}, 0},
        SampleCase{"matmul_dma", {tensor(DType::s32, {128, 256}), tensor(DType::s32, {256, 256})}, {128, 1, 1}, {256, 1, 1}, 2048},
        SampleCase{"transpose", {tensor(DType::f32, {256, 512})}, {128, 1, 1}, {1, 1, 1}, 4096},
        SampleCase{"view_from", {tensor(DType::f32, {300, 70}), tensor(DType::f32, {8})}, {8, 1, 1}, {1, 1, 1}, 12288}),
    [](const auto& info) { return info.param.sample; });

}  // namespace
}  // namespace croq::codegen
