// Dynamic dims through the public API, without a GPU: one specialization
// (one jit request) serves every value of the dim; occurrences that
// disagree and names that are not dims are clear errors.
#include <gtest/gtest.h>

#include "croq/croq.hpp"
#include "jit/jit_compiler.hpp"

namespace croq {
namespace {

const char* kScaleRows = R"(__co__ f32 [M, 32] scale(f32 [M, 32] x, f32 [M, 32] y) {
  f32 [x.span] out;
  parallel t by cdiv(M, 16) : block {
    a = dma.copy x.subspan(16, 32).at(t, 0) => shared;
    b = dma.copy y.subspan(16, 32).at(t, 0) => shared;
    parallel r by 16 : thread {
      foreach c in [32]
        out.subspan(16, 32).at(t, 0).at(r, c) = a.data.at(r, c) + b.data.at(r, c);
    }
  }
  return out;
}
)";

std::uint64_t jit_requests() {
  auto s = jit::JitCompiler::global().stats();
  return s.nvrtc_compiles + s.memory_hits + s.disk_hits;
}

TEST(DynamicDimsApi, TwoValuesOfTheDimShareOneSpecialization) {
  CompileOptions options;
  options.dynamic_dims = {"M"};
  Kernel k = compile(kScaleRows, options);
  std::uint64_t before = jit_requests();
  for (int m : {100, 37, 4096}) {
    auto x = make_spandata<float>(m, 32), y = make_spandata<float>(m, 32);
    try {
      k(x.view(), y.view());  // compiles, then needs a device to run
    } catch (const CudaError&) {
    }
  }
  EXPECT_EQ(jit_requests() - before, 1u) << "every M must reuse the first specialization";

  // Without the option each M is its own specialization.
  Kernel fixed = compile(kScaleRows);
  before = jit_requests();
  for (int m : {100, 37}) {
    auto x = make_spandata<float>(m, 32), y = make_spandata<float>(m, 32);
    try {
      fixed(x.view(), y.view());
    } catch (const CudaError&) {
    }
  }
  EXPECT_EQ(jit_requests() - before, 2u);
}

TEST(DynamicDimsApi, OccurrencesThatDisagreeNameBothArguments) {
  CompileOptions options;
  options.dynamic_dims = {"M"};
  Kernel k = compile(kScaleRows, options);
  auto x = make_spandata<float>(100, 32), y = make_spandata<float>(50, 32);
  try {
    k(x.view(), y.view());
    FAIL() << "expected an ArgumentError";
  } catch (const ArgumentError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("argument 2 'y': dimension 0 is M, bound to 100 by argument 1 'x', but got f32 [50, 32]"),
              std::string::npos)
        << m;
  }
}

TEST(DynamicDimsApi, StaticDimsAreStillChecked) {
  CompileOptions options;
  options.dynamic_dims = {"M"};
  Kernel k = compile(kScaleRows, options);
  auto x = make_spandata<float>(100, 32), y = make_spandata<float>(100, 16);
  try {
    k(x.view(), y.view());
    FAIL() << "expected an ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 2 'y': expected f32 [M, 32], got f32 [100, 16]"), std::string::npos)
        << e.what();
  }
}

TEST(DynamicDimsApi, UnknownNamesAreCompileErrors) {
  CompileOptions options;
  options.dynamic_dims = {"Q"};
  try {
    compile(kScaleRows, options);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("CompileOptions::dynamic_dims names `Q`, but no tensor parameter of `scale` has it"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace croq
