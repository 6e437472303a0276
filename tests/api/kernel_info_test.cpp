// Kernel::info on the samples' kernels: each kernel's registers and stack
// are those the cubin records (its .nv.info EIATTR records, which the
// driver reads), the spills are ptxas's report, the launch shape and image
// are the specialization's; without a device the figures say they are
// NVRTC's (ptxas's report), with one the driver's. The text `croq compile
// --emit info` prints.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "../../samples/attention_source.hpp"
#include "common/arg_signature.hpp"
#include "common/cubin_attributes.hpp"
#include "croq/croq.hpp"
#include "api/specialization.hpp"
#include "pipeline/pipeline.hpp"
#include "common/specialize_test_util.hpp"

namespace croq {
namespace {

using pipeline::test::sample_source;
using test::signature_of;

TensorView spec(DType dtype, Shape shape) { return TensorView::contiguous(nullptr, dtype, shape); }

// Checks each kernel of `info` against the image the pipeline compiled.
void expect_matches_images(const KernelInfo& info, const pipeline::Built& built, std::size_t kernels) {
  EXPECT_EQ(info.specialization.arch, "sm_90a");
  EXPECT_EQ(info.specialization.images, static_cast<int>(kernels));
  EXPECT_EQ(info.device.empty(), !cuda_available());
  EXPECT_EQ(info.kernels.size(), kernels);
  EXPECT_EQ(built.compiled.size(), kernels);
  for (std::size_t i = 0; i < info.kernels.size() && i < built.compiled.size(); ++i) {
    const KernelImageInfo& k = info.kernels[i];
    const jit::CompiledKernel& image = *built.compiled[i];
    const pipeline::GeneratedKernel& generated = built.generated.kernels[i];
    SCOPED_TRACE(k.entry);
    EXPECT_EQ(k.entry, image.entry);
    EXPECT_EQ(k.figures, cuda_available() ? FigureSource::driver : FigureSource::nvrtc);
    // What the cubin records for the entry is what every source reports.
    const test::CubinAttributes cubin = test::cubin_attributes(image.cubin, image.entry);
    ASSERT_TRUE(cubin.registers.has_value());
    EXPECT_EQ(k.registers, cubin.registers);
    EXPECT_GT(*k.registers, 0);
    EXPECT_EQ(k.local_bytes, cubin.frame_bytes);
    ASSERT_TRUE(k.static_shared_bytes.has_value());
    // The spills are ptxas's report, whatever the figures' source.
    ASSERT_TRUE(image.resources.has_value());
    EXPECT_EQ(k.spill_store_bytes, image.resources->spill_store_bytes);
    EXPECT_EQ(k.spill_load_bytes, image.resources->spill_load_bytes);
    if (k.figures == FigureSource::nvrtc) {
      EXPECT_EQ(k.static_shared_bytes, image.resources->shared_bytes);
      EXPECT_FALSE(k.max_threads_per_block.has_value());
      EXPECT_FALSE(k.blocks_per_sm.has_value());
      EXPECT_FALSE(k.constant_bytes.has_value());
    } else {
      EXPECT_TRUE(k.max_threads_per_block.has_value());
      EXPECT_TRUE(k.blocks_per_sm.has_value());
    }
    // The launch shape of the call, and the image.
    EXPECT_EQ(k.block, generated.launch.block);
    EXPECT_EQ(k.cluster, generated.launch.cluster);
    EXPECT_EQ(k.dynamic_shared_bytes, generated.launch.shared_bytes);
    EXPECT_EQ(k.arch, "sm_90a");
    EXPECT_FALSE(k.image_is_ptx);
    EXPECT_EQ(k.image_bytes, image.cubin.size());
  }
}

// Kernel::info for `source` called with `args`, checked against the images
// the pipeline compiled (a memory hit: the same images).
KernelInfo checked_info(const std::string& source, const std::vector<Arg>& args, std::size_t kernels) {
  CompileOptions options;
  options.arch = "sm_90a";
  Kernel kernel = compile(source, options);
  const KernelInfo info = kernel.info(args);
  const auto checked = pipeline::check(source, options);
  const pipeline::Built built =
      pipeline::build(*checked, signature_of(args), pipeline::choose_target(options.arch, 0));
  EXPECT_EQ(info.function, kernel.name());
  expect_matches_images(info, built, kernels);
  return info;
}

TEST(KernelInfo, PersistentGemmSample) {
  const std::vector<Arg> args{spec(DType::f16, {512, 256}), spec(DType::f16, {384, 256}), spec(DType::f16, {512, 384})};
  const KernelInfo info = checked_info(sample_source("matmul_persistent"), args, 1);
  const KernelImageInfo& k = info.kernels.at(0);
  EXPECT_EQ(k.grid, (std::array<unsigned, 3>{132, 1, 1}));  // NUM_SMS blocks
  EXPECT_EQ(k.block, (std::array<unsigned, 3>{384, 1, 1}));  // 3 warpgroups
  EXPECT_EQ(k.spill_store_bytes, 0u);
  EXPECT_EQ(k.spill_load_bytes, 0u);
  // Its tiles: 3 stages of 128 x 64 and 256 x 64 f16, and a 128 x 256 output tile.
  EXPECT_GE(k.dynamic_shared_bytes + k.static_shared_bytes.value_or(0), (3u * (128 + 256) * 64 + 128 * 256) * 2);
}

TEST(KernelInfo, AttentionSample) {
  const std::vector<Arg> args{spec(DType::f16, {1, 2, 256, 128}), spec(DType::f16, {1, 2, 256, 128}),
                              spec(DType::f16, {1, 2, 256, 128}), spec(DType::f16, {1, 2, 256, 128}), Arg(1)};
  const KernelInfo info = checked_info(attention::source("f16", 128), args, 1);
  const KernelImageInfo& k = info.kernels.at(0);
  EXPECT_EQ(k.grid, (std::array<unsigned, 3>{1 * 2 * 2, 1, 1}));  // B * H * cdiv(S, BM)
  EXPECT_EQ(k.block, (std::array<unsigned, 3>{384, 1, 1}));     // a producer and two consumer warpgroups
}

TEST(KernelInfo, ProgramOfSeveralKernels) {
  const KernelInfo info = checked_info(sample_source("row_scale"), {spec(DType::f32, {300, 517})}, 3);
  for (const KernelImageInfo& k : info.kernels) {
    EXPECT_EQ(k.spill_store_bytes, 0u) << k.entry;
    EXPECT_EQ(k.static_shared_bytes, 0u) << k.entry;
  }
  EXPECT_NE(info.kernels[0].entry, info.kernels[1].entry);
}

TEST(KernelInfo, AKernelBuiltToSpillReportsItsSpills) {
  const KernelInfo info = checked_info(pipeline::test::read_file(CROQ_TEST_DATA_DIR "/info/spill.co"), {spec(DType::f64, {1024, 160})}, 1);
  const KernelImageInfo& k = info.kernels.at(0);
  EXPECT_GT(k.spill_store_bytes.value_or(0), 0u);
  EXPECT_GT(k.spill_load_bytes.value_or(0), 0u);
  EXPECT_GE(k.local_bytes.value_or(0), 160u * 8);  // the array lives in local memory
  const std::string text = format_kernel_info(info);
  EXPECT_NE(text.find("  spills: " + std::to_string(*k.spill_store_bytes) + " bytes stored, " +
                      std::to_string(*k.spill_load_bytes) + " bytes loaded per thread (nvrtc)\n"),
            std::string::npos)
      << text;
}

TEST(KernelInfo, LaunchShapeFollowsDynamicDims) {
  const std::string source = R"(
__co__ f32 [M, N] scale(f32 [M, N] x) {
  f32 [x.span] out;
  parallel {i, j} by [M, N]
    out.at(i, j) = x.at(i, j) * 2.0f;
  return out;
})";
  CompileOptions options;
  options.dynamic_dims = {"M"};
  options.arch = "sm_90a";
  Kernel kernel = compile(source, options);
  const KernelInfo small = kernel.info(spec(DType::f32, {8, 64}));
  const KernelInfo large = kernel.info(spec(DType::f32, {800, 64}));
  ASSERT_EQ(small.kernels.size(), 1u);
  ASSERT_EQ(large.kernels.size(), 1u);
  EXPECT_EQ(small.kernels[0].entry, large.kernels[0].entry);  // one specialization
  EXPECT_EQ(kernel.stats().specializations.size(), 1u);
  EXPECT_GT(large.kernels[0].grid[0], small.kernels[0].grid[0]);
  EXPECT_EQ(small.kernels[0].grid[0] * small.kernels[0].block[0] * 100,
            large.kernels[0].grid[0] * large.kernels[0].block[0]);
}

TEST(KernelInfo, WhereTheImageCameFrom) {
  const std::string source = "__co__ void fill(s32 [64] x) {\n  parallel i by 64\n    x.at(i) = 3;\n}\n";
  CompileOptions options;
  options.arch = "sm_90a";
  const KernelInfo first = compile(source, options).info(spec(DType::s32, {64}));
  // Another Kernel of the same code finds the images in this process.
  const KernelInfo again = compile(source, options).info(spec(DType::s32, {64}));
  EXPECT_NE(first.kernels.at(0).source, ImageSource::memory);
  EXPECT_EQ(again.kernels.at(0).source, ImageSource::memory);
  EXPECT_EQ(again.specialization.source, ImageSource::memory);
  EXPECT_EQ(again.kernels.at(0).registers, first.kernels.at(0).registers);
  EXPECT_EQ(again.kernels.at(0).spill_store_bytes, first.kernels.at(0).spill_store_bytes);
}

TEST(KernelInfo, PtxImagesHaveNoFiguresWithoutADevice) {
  if (cuda_available()) GTEST_SKIP() << "with a device the driver gives the figures of a PTX image";
  CompileOptions options;
  options.arch = "compute_90";
  const KernelInfo info =
      compile("__co__ void fill(s32 [64] x) {\n  parallel i by 64\n    x.at(i) = 3;\n}\n", options)
          .info(spec(DType::s32, {64}));
  const KernelImageInfo& k = info.kernels.at(0);
  EXPECT_EQ(k.figures, FigureSource::none);
  EXPECT_FALSE(k.registers.has_value());
  EXPECT_FALSE(k.spill_store_bytes.has_value());
  EXPECT_TRUE(k.image_is_ptx);
  EXPECT_GT(k.image_bytes, 0u);
  const std::string text = format_kernel_info(info);
  EXPECT_NE(text.find("  registers: unknown (a PTX image: ptxas runs when the driver loads it)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  image: compute_90 PTX, "), std::string::npos) << text;
}

TEST(KernelInfo, WhichArchsADeviceLoads) {
  EXPECT_TRUE(detail::image_loads_on("sm_90a", 9, 0));
  EXPECT_FALSE(detail::image_loads_on("sm_90a", 10, 0));
  EXPECT_TRUE(detail::image_loads_on("sm_90", 9, 0));
  EXPECT_TRUE(detail::image_loads_on("sm_80", 8, 6));
  EXPECT_FALSE(detail::image_loads_on("sm_86", 8, 0));
  EXPECT_FALSE(detail::image_loads_on("sm_80", 9, 0));  // cubins run within their major version only
  EXPECT_TRUE(detail::image_loads_on("compute_80", 9, 0));
  EXPECT_FALSE(detail::image_loads_on("compute_90", 8, 9));
  EXPECT_FALSE(detail::image_loads_on("compute_90a", 10, 0));
  EXPECT_TRUE(detail::image_loads_on("sm_100f", 10, 3));
}

TEST(KernelInfo, ArgumentErrorsAreTheCallsErrors) {
  Kernel kernel = compile("__co__ void fill(s32 [64] x) {\n  parallel i by 64\n    x.at(i) = 3;\n}\n");
  try {
    kernel.info(spec(DType::s32, {32}));
    FAIL() << "no error";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 1 'x'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Kernel().info(), Error);
}

TEST(KernelInfo, Text) {
  KernelInfo info;
  info.function = "matmul";
  info.specialization.signature = "f16 [512, 256], f16 [384, 256], f16 [512, 384]";
  info.specialization.arch = "sm_90a";
  info.specialization.source = ImageSource::disk;
  info.no_driver_reason = "no CUDA device";
  KernelImageInfo k;
  k.entry = "croq_matmul";
  k.grid = {132, 1, 1};
  k.block = {384, 1, 1};
  k.cluster = {2, 1, 1};
  k.dynamic_shared_bytes = 213248;
  k.figures = FigureSource::nvrtc;
  k.registers = 168;
  k.static_shared_bytes = 0;
  k.local_bytes = 16;
  k.spill_store_bytes = 8;
  k.spill_load_bytes = 12;
  k.arch = "sm_90a";
  k.image_bytes = 53120;
  k.source = ImageSource::disk;
  info.kernels.push_back(k);
  EXPECT_EQ(format_kernel_info(info),
            "specialization: matmul(f16 [512, 256], f16 [384, 256], f16 [512, 384]) for sm_90a\n"
            "source: disk\n"
            "figures: nvrtc (ptxas's report of the compile; no CUDA device)\n"
            "kernel 1 of 1: croq_matmul\n"
            "  launch: grid [132, 1, 1], block [384, 1, 1], cluster [2, 1, 1]\n"
            "  registers: 168 per thread (nvrtc)\n"
            "  spills: 8 bytes stored, 12 bytes loaded per thread (nvrtc)\n"
            "  local memory: 16 bytes per thread (nvrtc)\n"
            "  shared memory: 0 bytes static (nvrtc), 213248 bytes dynamic per block\n"
            "  constant memory: unknown (needs a CUDA device)\n"
            "  max threads per block: unknown (needs a CUDA device)\n"
            "  occupancy: unknown (needs a CUDA device)\n"
            "  image: sm_90a cubin, 53120 bytes, disk\n");
  info.device = "NVIDIA H100 80GB HBM3";
  info.no_driver_reason.clear();
  k.figures = FigureSource::driver;
  k.constant_bytes = 0;
  k.max_threads_per_block = 384;
  k.blocks_per_sm = 1;
  k.active_clusters = 66;
  info.kernels[0] = k;
  const std::string text = format_kernel_info(info);
  EXPECT_NE(text.find("figures: driver (NVIDIA H100 80GB HBM3)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  registers: 168 per thread (driver)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  spills: 8 bytes stored, 12 bytes loaded per thread (nvrtc)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  max threads per block: 384 (driver)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  occupancy: 1 blocks per SM (driver), 66 clusters on the device (driver)\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace croq
