// A function with several top-level parallel statements is a program: one
// kernel per statement, launched in order, sharing the arguments, the
// output and its `global` function-scope buffers (scratch).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/program_sources.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::pipeline {
namespace {

using test::integer_scalar;
using test::stream_argument;
using test::tensor;


GeneratedProgram generate_program_of(const std::string& source, const std::vector<ArgSignature>& args) {
  CompileOptions options;
  options.source_name = "program.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  GenerateOptions generate;
  generate.verify_ir = true;
  generate.keep_ir = true;
  return generate_program(*program, fn, args, target::parse_target("sm_90a"), generate);
}

TEST(Program, OneKernelPerTopLevelParallelSharingTheGlobalBuffer) {
  GeneratedProgram p = generate_program_of(croq::test::kReverseTwice, {tensor(DType::f32, {1000}), tensor(DType::f32, {1000})});
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].entry, "croq_twice_0");
  EXPECT_EQ(p.kernels[1].entry, "croq_twice_1");
  for (const GeneratedKernel& k : p.kernels) {
    ASSERT_EQ(k.scratch.size(), 1u);
    EXPECT_EQ(k.scratch[0].name, "tmp");
    EXPECT_EQ(k.scratch[0].dtype, DType::f32);
    EXPECT_EQ(k.scratch[0].shape, (std::vector<std::int64_t>{1000}));
    EXPECT_TRUE(k.has_output);
    // a, b, the output and the scratch buffer, each kernel.
    ASSERT_EQ(k.params.size(), 4u);
    EXPECT_EQ(k.params[3].kind, KernelParam::Kind::scratch);
    EXPECT_EQ(k.params[3].argument, 0);
    EXPECT_NE(k.ir.find("buffer croq_global_tmp: global f32 [1000]"), std::string::npos) << k.ir;
  }
  // The first writes tmp and not the output; the second reads tmp.
  EXPECT_NE(p.kernels[0].ir.find("-> croq_global_tmp at ("), std::string::npos) << p.kernels[0].ir;  // vector stores
  EXPECT_EQ(p.kernels[0].ir.find("croq_output["), std::string::npos) << p.kernels[0].ir;
  EXPECT_NE(p.kernels[1].ir.find("croq_output["), std::string::npos) << p.kernels[1].ir;
  for (const GeneratedKernel& k : p.kernels) {
    jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "program.cu", k.entry, {"sm_90a", false, {}});
    EXPECT_FALSE(out.cubin.empty()) << k.entry;
  }
}

TEST(Program, OneTopLevelParallelStaysOneKernelWithItsName) {
  const std::string source =
      "__co__ void f(f32 [N] a) {\n  global f32 [N] tmp;\n  parallel i by N {\n    tmp.at(i) = a.at(i);\n"
      "    a.at(i) = tmp.at(i) + 1.0;\n  }\n}\n";
  GeneratedProgram p = generate_program_of(source, {tensor(DType::f32, {64})});
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].entry, "croq_f");
  EXPECT_EQ(p.kernels[0].scratch.size(), 1u);
}

TEST(Program, AsyncRegionsAreKernelsInOrderAndSyncGlobalEmitsNothing) {
  GeneratedProgram p = generate_program_of(
      croq::test::kAsyncRegions, {tensor(DType::f32, {300}), tensor(DType::f32, {300}), tensor(DType::f32, {300})});
  ASSERT_EQ(p.kernels.size(), 3u);
  // The `: device(cpu)` region holds no parallel level: one thread loops.
  EXPECT_EQ(p.kernels[0].launch.grid[0], 1);
  EXPECT_EQ(p.kernels[0].launch.block[0], 1);
  EXPECT_NE(p.kernels[0].ir.find("for i_"), std::string::npos) << p.kernels[0].ir;
  // The `: device(gpu)` level adds nothing: its `: block` level is the grid.
  EXPECT_EQ(p.kernels[1].launch.grid[0], 300);
  EXPECT_NE(p.kernels[2].ir.find("arg_c["), std::string::npos) << p.kernels[2].ir;
  // Every argument is written by some region, the reference ones included.
  for (const GeneratedKernel& k : p.kernels) {
    jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "program.cu", k.entry, {"sm_90a", false, {}});
    EXPECT_FALSE(out.cubin.empty()) << k.entry;
  }
  EXPECT_TRUE(p.kernels[0].argument_written[0]);
  EXPECT_TRUE(p.kernels[1].argument_written[1]);
  EXPECT_TRUE(p.kernels[2].argument_written[2]);
}

TEST(Program, ASyncGlobalAfterOneKernelKeepsItOneKernel) {
  const std::string source =
      "__co__ void f(f32 [N] a) {\n  parallel.async by 1 : device(gpu) {\n    parallel i by N : block\n"
      "      a.at(i) = 1.0;\n  }\n  sync.global;\n}\n";
  GeneratedProgram p = generate_program_of(source, {tensor(DType::f32, {64})});
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].entry, "croq_f");
  EXPECT_EQ(p.kernels[0].launch.grid[0], 64);
}

TEST(Program, CooperativeBlocksLaunchTogetherAndCountInAProgramBuffer) {
  GeneratedProgram p = generate_program_of(croq::test::kCooperativeExchange, {tensor(DType::s32, {64, 128})});
  ASSERT_EQ(p.kernels.size(), 1u);
  const GeneratedKernel& k = p.kernels[0];
  EXPECT_TRUE(k.launch.cooperative);
  EXPECT_EQ(k.launch.grid[0], 64u);
  // The counter comes first, then `a` and `c` (tensors at function scope are global).
  ASSERT_EQ(k.scratch.size(), 3u);
  EXPECT_EQ(k.scratch[0].dtype, DType::u32);
  EXPECT_EQ(k.scratch[0].shape, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(k.scratch[1].name, "a");
  EXPECT_EQ(k.scratch[2].name, "c");
  // `sync.barrier : block` and `: device` both wait for the grid.
  std::size_t barriers = 0;
  for (std::size_t at = k.ir.find("barrier grid counting in croq_grid_barrier"); at != std::string::npos;
       at = k.ir.find("barrier grid counting in croq_grid_barrier", at + 1))
    ++barriers;
  EXPECT_EQ(barriers, 2u) << k.ir;
  EXPECT_NE(k.cuda_source.find("croq_grid_sync(croq_grid_barrier);"), std::string::npos) << k.cuda_source;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "program.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

// Every kernel of a program numbers its buffers alike: the counter is
// there in the kernel that is not cooperative too.
TEST(Program, TheGridBarrierCounterIsInEveryKernelOfTheProgram) {
  const std::string source =
      "__co__ void f(s32 [8] x) {\n  parallel b by 8 : block\n    x.at(b) = 1;\n"
      "  global s32 [8] y;\n  parallel b by 8 : block<cooperative> {\n    y.at(b) = x.at(b);\n"
      "    sync.barrier : block;\n    x.at(b) = y.at(7 - b);\n  }\n}\n";
  GeneratedProgram p = generate_program_of(source, {tensor(DType::s32, {8})});
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_FALSE(p.kernels[0].launch.cooperative);
  EXPECT_TRUE(p.kernels[1].launch.cooperative);
  for (const GeneratedKernel& k : p.kernels) {
    ASSERT_EQ(k.scratch.size(), 2u);
    EXPECT_EQ(k.scratch[0].dtype, DType::u32);
    EXPECT_EQ(k.scratch[1].name, "y");
  }
}

// What the runtime fills before a call: the declared initial values (one
// element's bytes), zero where the program updates a buffer in place
// without one, nothing where it writes before it reads.
TEST(Program, GlobalTensorsStartAsDeclaredAndPlainOnesAreNotFilled) {
  GeneratedProgram p = generate_program_of(croq::test::kInitialValues, {tensor(DType::f32, {100})});
  ASSERT_EQ(p.kernels.size(), 2u);
  auto bytes = [](auto v) {
    std::vector<std::uint8_t> out(sizeof v);
    std::memcpy(out.data(), &v, sizeof v);
    return out;
  };
  const std::vector<std::uint8_t> half_minus_two{0x00, 0xc0};  // f16 -2.0
  for (const GeneratedKernel& k : p.kernels) {
    ASSERT_EQ(k.scratch.size(), 4u);
    EXPECT_TRUE(k.scratch[0].fill.empty()) << k.scratch[0].name;  // plain
    EXPECT_EQ(k.scratch[2].fill, half_minus_two);
    EXPECT_EQ(k.scratch[3].fill, bytes(1.25));
  }
  // The atomics are in the first kernel, the update of `out` in the second.
  EXPECT_EQ(p.kernels[0].scratch[1].fill, bytes(std::int32_t{0}));
  EXPECT_EQ(p.kernels[1].output_fill, bytes(0.5f));
  // The grid barrier's counter starts at zero.
  GeneratedProgram coop = generate_program_of(croq::test::kCooperativeExchange, {tensor(DType::s32, {64, 128})});
  EXPECT_EQ(coop.kernels[0].scratch[0].fill, bytes(std::uint32_t{0}));
  EXPECT_TRUE(coop.kernels[0].scratch[1].fill.empty());
}

// Shared tiles with an initial value are filled by the block's threads
// (then a barrier), local arrays by each thread; nothing for the runtime.
TEST(Program, SharedAndLocalTilesAreFilledInTheKernel) {
  GeneratedProgram p = generate_program_of(croq::test::kInitialTiles, {tensor(DType::f32, {3, 64}), tensor(DType::f32, {3, 64})});
  ASSERT_EQ(p.kernels.size(), 1u);
  const GeneratedKernel& k = p.kernels[0];
  EXPECT_TRUE(k.scratch.empty());
  EXPECT_NE(k.cuda_source.find("fill"), std::string::npos) << k.cuda_source;
  EXPECT_NE(k.cuda_source.find("< 256; fill"), std::string::npos) << k.cuda_source;  // 4 x 64 elements
  EXPECT_NE(k.cuda_source.find("< 128; fill"), std::string::npos) << k.cuda_source;  // 2 slots of 64
  EXPECT_NE(k.cuda_source.find("< 8; ++fill"), std::string::npos) << k.cuda_source;  // the local array
  EXPECT_NE(k.cuda_source.find("__syncthreads();"), std::string::npos) << k.cuda_source;
  jit::NvrtcOutput out = jit::nvrtc_compile(k.cuda_source, "program.cu", k.entry, {"sm_90a", false, {}});
  EXPECT_FALSE(out.cubin.empty());
}

TEST(Program, KernelsOfParallelOnAStreamNameTheirStreamArgument) {
  const ArgSignature stream = stream_argument();
  GeneratedProgram p =
      generate_program_of(croq::test::kTwoStreams, {tensor(DType::f32, {256}), tensor(DType::f32, {256}), stream, stream});
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].stream_argument, 2);
  EXPECT_EQ(p.kernels[1].stream_argument, 3);
  // A stream is where a kernel runs, not one of its parameters.
  for (const GeneratedKernel& k : p.kernels)
    for (const KernelParam& kp : k.params) EXPECT_TRUE(kp.argument < 2) << kp.name;
  // A scalar where the stream goes is an argument error.
  EXPECT_THROW(generate_program_of(croq::test::kTwoStreams,
                                   {tensor(DType::f32, {256}), tensor(DType::f32, {256}), integer_scalar(), stream}),
               ArgumentError);
}

std::string error_of(const std::string& source, const std::vector<ArgSignature>& args,
                     const std::vector<std::string>& dynamic = {}) {
  CompileOptions options;
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  GenerateOptions generate;
  generate.dynamic_dims = dynamic;
  try {
    generate_program(*program, fn, args, target::parse_target("sm_90a"), generate);
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    return std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message;
  }
  return "";
}

TEST(Program, WhatIsNotSupportedYetIsACompileErrorAtIt) {
  const std::string host_code =
      "__co__ void f(f32 [N] a) {\n  parallel i by N\n    a.at(i) = 1.0;\n  println(a.at(0));\n"
      "  parallel j by N\n    a.at(j) = 3.0;\n}\n";
  EXPECT_EQ(error_of(host_code, {tensor(DType::f32, {8})}),
            "4:3: printing this value (only strings and scalars) is not supported in host code yet");
  const std::string dynamic_global =
      "__co__ void f(f32 [N] a) {\n  global f32 [N] tmp;\n  parallel i by N\n    tmp.at(i) = a.at(i);\n}\n";
  EXPECT_EQ(error_of(dynamic_global, {tensor(DType::f32, {-1})}, {"N"}),
            "2:15: this shape involves the dynamic dim `N`, but it must be known when the kernel is compiled");
  const std::string dynamic_cooperative =
      "__co__ void f(s32 [N] x) {\n  parallel b by N : block<cooperative> {\n    x.at(b) = 1;\n"
      "    sync.barrier : block;\n  }\n}\n";
  EXPECT_EQ(error_of(dynamic_cooperative, {tensor(DType::s32, {-1})}, {"N"}),
            "2:17: the blocks of a cooperative launch are counted at compile time, one per index, and are not clustered");
}

// generate() is for functions of one kernel.
TEST(Program, GenerateRefusesAProgramOfSeveralKernels) {
  CompileOptions options;
  auto program = frontend::parse_program(croq::test::kReverseTwice, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  EXPECT_THROW(generate(*program, fn, {tensor(DType::f32, {8}), tensor(DType::f32, {8})}, target::parse_target("sm_90a")),
               Error);
}

}  // namespace
}  // namespace croq::pipeline
