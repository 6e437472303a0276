// Kernel::info on a device: its figures are the driver's for the GEMM
// (samples/matmul_persistent) and attention (samples/attention_source.hpp)
// kernels, checked against cuFuncGetAttribute and the occupancy calls on a
// module this test loads itself from the same image; and ptxas's report,
// which info gives without a device, agrees with the driver.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "../../samples/attention_source.hpp"
#include "common/arg_signature.hpp"
#include "common/process.hpp"
#include "croq/croq.hpp"
#include "gpu_test_util.hpp"
#include "jit/jit_compiler.hpp"
#include "pipeline/pipeline.hpp"
#include "common/specialize_test_util.hpp"

namespace croq {
namespace {

using pipeline::test::sample_source;

TensorView spec(DType dtype, Shape shape) { return TensorView::contiguous(nullptr, dtype, shape); }

// The function of `image` in a module of its own.
class OwnFunction {
 public:
  explicit OwnFunction(const jit::CompiledKernel& image) {
    CROQ_CU(cuModuleLoadData, &module_, image.cubin.data());
    CROQ_CU(cuModuleGetFunction, &fn_, module_, image.entry.c_str());
  }
  ~OwnFunction() { jit::driver().cuModuleUnload(module_); }
  CUfunction get() const { return fn_; }
  int attribute(CUfunction_attribute a) const {
    int v = -1;
    CROQ_CU(cuFuncGetAttribute, &v, a, fn_);
    return v;
  }

 private:
  CUmodule module_ = nullptr;
  CUfunction fn_ = nullptr;
};

void expect_driver_figures(const std::string& source, const std::vector<Arg>& args) {
  Kernel kernel = compile(source);
  const KernelInfo info = kernel.info(args);
  EXPECT_EQ(info.device, jit::device_info(0).name);
  // The same images, from this process's memory layer.
  const auto checked = pipeline::check(source, {});
  const pipeline::Built built = pipeline::build(*checked, test::signature_of(args), pipeline::choose_target("", 0));
  ASSERT_EQ(info.kernels.size(), built.compiled.size());
  for (std::size_t i = 0; i < info.kernels.size(); ++i) {
    const KernelImageInfo& k = info.kernels[i];
    const jit::CompiledKernel& image = *built.compiled[i];
    SCOPED_TRACE(k.entry);
    EXPECT_EQ(k.figures, FigureSource::driver);
    OwnFunction fn(image);
    EXPECT_EQ(k.registers, fn.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS));
    EXPECT_EQ(k.local_bytes, static_cast<std::uint64_t>(fn.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)));
    EXPECT_EQ(k.static_shared_bytes, static_cast<std::uint64_t>(fn.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)));
    EXPECT_EQ(k.constant_bytes, static_cast<std::uint64_t>(fn.attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)));
    EXPECT_EQ(k.max_threads_per_block, fn.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    // Occupancy at the call's launch shape.
    const int threads = static_cast<int>(k.block[0] * k.block[1] * k.block[2]);
    CROQ_CU(cuFuncSetAttribute, fn.get(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            static_cast<int>(k.dynamic_shared_bytes));
    int blocks = -1;
    CROQ_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &blocks, fn.get(), threads, k.dynamic_shared_bytes);
    EXPECT_EQ(k.blocks_per_sm, blocks);
    EXPECT_GE(blocks, 1);  // the kernel launches
    // ptxas's report (the figures without a device) agrees with the driver.
    ASSERT_TRUE(image.resources.has_value());
    EXPECT_EQ(image.resources->registers, fn.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS));
    EXPECT_EQ(image.resources->stack_bytes, static_cast<std::uint64_t>(fn.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)));
    EXPECT_EQ(image.resources->shared_bytes, static_cast<std::uint64_t>(fn.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)));
    EXPECT_EQ(k.spill_store_bytes, image.resources->spill_store_bytes);
    std::cout << format_kernel_info(info);
  }
}

TEST(KernelInfoGpu, GemmSampleFiguresAreTheDrivers) {
  CROQ_REQUIRE_HOPPER("the persistent WGMMA GEMM");
  expect_driver_figures(sample_source("matmul_persistent"),
                        {spec(DType::f16, {4096, 4096}), spec(DType::f16, {4096, 4096}), spec(DType::f16, {4096, 4096})});
}

TEST(KernelInfoGpu, AttentionSampleFiguresAreTheDrivers) {
  CROQ_REQUIRE_HOPPER("the WGMMA attention");
  const Shape qkv{4, 16, 4096, 128};
  expect_driver_figures(attention::source("f16", 128),
                        {spec(DType::f16, qkv), spec(DType::f16, qkv), spec(DType::f16, qkv), spec(DType::f16, qkv), Arg(0)});
}

TEST(KernelInfoGpu, ProgramOfSeveralKernels) {
  CROQ_REQUIRE_GPU();
  expect_driver_figures(sample_source("row_scale"), {spec(DType::f32, {300, 517})});
}

// The samples' kernels spill nothing; this one does (tests/api/kernel_info_test.cpp).
TEST(KernelInfoGpu, CroqtileKernelThatSpills) {
  CROQ_REQUIRE_GPU();
  expect_driver_figures(pipeline::test::read_file(CROQ_TEST_DATA_DIR "/info/spill.co"), {spec(DType::f64, {1024, 160})});
}

// A kernel capped at 32 registers below its live values: the driver's
// registers and local memory are ptxas's, whose spills info reports.
TEST(KernelInfoGpu, SpillingKernelMatchesPtxasReport) {
  CROQ_REQUIRE_GPU();
  jit::JitRequest request;
  request.cuda_source = pipeline::test::read_file(CROQ_TEST_DATA_DIR "/jit/spills.cu");
  request.entry = "spills";
  auto image = jit::JitCompiler::global().compile(request);
  ASSERT_TRUE(image->resources.has_value());
  EXPECT_GT(image->resources->spill_store_bytes, 0u);
  OwnFunction fn(*image);
  EXPECT_EQ(image->resources->registers, fn.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS));
  EXPECT_EQ(image->resources->stack_bytes, static_cast<std::uint64_t>(fn.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)));
  EXPECT_EQ(fn.attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
}

// croq compile --emit info with a device: every figure is the driver's.
TEST(KernelInfoGpu, CompileEmitInfoPrintsTheDriversFigures) {
  CROQ_REQUIRE_GPU();
  test::TempDir dir;
  auto r = test::run_process({CROQ_BINARY_DIR "/croq", "compile", CROQ_TEST_DATA_DIR "/cli/add.co", "--shape", "M=16",
                              "--shape", "N=32", "--emit", "info"},
                             {{"CROQ_CACHE_DIR", dir.str()}, {"CROQ_ARCH", ""}}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("figures: driver (" + jit::device_info(0).name + ")\n"), std::string::npos) << r.out;
  for (const char* line : {"  registers: ", " per thread (driver)\n", "  max threads per block: ",
                           " blocks per SM (driver)\n", "  spills: 0 bytes stored, 0 bytes loaded per thread (nvrtc)\n"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << r.out;
  EXPECT_EQ(r.out.find("needs a CUDA device"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace croq
