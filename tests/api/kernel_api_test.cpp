// croq::compile and argument checking; everything here runs without a GPU
// (errors are reported before any device work).
#include <gtest/gtest.h>

#include "common/error_text.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

const char* kAdd = R"(__co__ s32 [M, N] add(s32 [M, N] lhs, s32 [M, N] rhs) {
  s32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) + rhs.at(i, j);
  return output;
}
)";

const char* kMatmul = R"(__co__ s32 [128, 256] matmul(s32 [128, 256] lhs, s32 [256, 256] rhs) {
  s32 [lhs.span(0), rhs.span(1)] output;
  parallel {p, q} by [16, 64] {
    foreach {m, n, k} in [128 / #p, 256 / #q, 256]
      output.at(p#m, q#n) += lhs.at(p#m, k) * rhs.at(k, q#n);
  }
  return output;
}
)";

using test::error_of;

TEST(KernelApi, CompileNamesTheFunction) {
  Kernel k = compile(kAdd);
  EXPECT_TRUE(k.valid());
  EXPECT_EQ(k.name(), "add");
  EXPECT_FALSE(Kernel().valid());
  EXPECT_EQ(error_of([] { Kernel()(1); }), "croq::Kernel: calling an empty kernel (use croq::compile)");
}

TEST(KernelApi, WrongShapeNamesArgumentAndBothShapes) {
  Kernel k = compile(kMatmul);
  auto lhs = make_spandata<s32>(128, 256);
  auto rhs = make_spandata<s32>(256, 128);
  EXPECT_EQ(error_of([&] { k(lhs.view(), rhs.view()); }),
            "argument 2 'rhs': expected s32 [256, 256], got s32 [256, 128]");
}

TEST(KernelApi, WrongDtypeNamesArgument) {
  Kernel k = compile(kMatmul);
  auto lhs = make_spandata<float>(128, 256);
  auto rhs = make_spandata<s32>(256, 256);
  EXPECT_EQ(error_of([&] { k(lhs.view(), rhs.view()); }),
            "argument 1 'lhs': expected s32 [128, 256], got f32 [128, 256]");
}

TEST(KernelApi, SymbolicDimsMustAgree) {
  Kernel k = compile(kAdd);
  auto lhs = make_spandata<s32>(4, 8);
  auto rhs = make_spandata<s32>(4, 9);
  EXPECT_EQ(error_of([&] { k(lhs.view(), rhs.view()); }),
            "argument 2 'rhs': dimension 1 is N, bound to 8 by an earlier argument, but got s32 [4, 9]");
}

TEST(KernelApi, ArgumentCountAndKinds) {
  Kernel k = compile(kAdd);
  auto a = make_spandata<s32>(4, 8);
  EXPECT_EQ(error_of([&] { k(a.view()); }), "`add` takes 2 arguments, got 1");
  EXPECT_EQ(error_of([&] { k(a.view(), 3); }), "argument 2 'rhs': expected a tensor s32 [M, N], got a scalar");
}

TEST(KernelApi, NonContiguousAndMisalignedViewsAreRejected) {
  Kernel k = compile(kAdd);
  auto a = make_spandata<s32>(4, 8);
  TensorView strided = a.view();
  strided.strides[0] = 16;
  EXPECT_EQ(error_of([&] { k(strided, a.view()); }),
            "argument 1 'lhs': s32 [4, 8] (host) is not contiguous (row-major); pass a contiguous copy");
  TensorView misaligned = a.view();
  misaligned.data = reinterpret_cast<char*>(a.data()) + 1;
  std::string e = error_of([&] { k(a.view(), misaligned); });
  EXPECT_NE(e.find("argument 2 'rhs': data pointer"), std::string::npos) << e;
  EXPECT_NE(e.find("is not aligned to its 4-byte elements"), std::string::npos) << e;
}

// Source errors carry the Croqtile line and column. Those that do not
// depend on the argument shapes are raised by croq::compile (sema, with the
// rule's id); the others at the first call, when bind and lowering see the shapes.
enum class Raised { at_compile, at_call };

struct CodegenErrorCase {
  std::string source;
  int line, column;
  std::string message;
  Raised when = Raised::at_compile;
};

class CodegenErrors : public ::testing::TestWithParam<CodegenErrorCase> {};

TEST_P(CodegenErrors, ReportMessageAndLocation) {
  const auto& c = GetParam();
  auto a = make_spandata<s32>(64, 64);
  Raised raised = Raised::at_compile;
  try {
    Kernel k = compile(c.source);
    raised = Raised::at_call;
    k(a.view());
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_EQ(raised, c.when) << e.what();
    EXPECT_EQ(e.diagnostics()[0].message, c.message);
    EXPECT_EQ(e.diagnostics()[0].line, c.line);
    EXPECT_EQ(e.diagnostics()[0].column, c.column);
    EXPECT_EQ(e.diagnostics()[0].rule.empty(), raised == Raised::at_call) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kernel, CodegenErrors,
    ::testing::Values(
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 64\n    a.at(i, i, i) = 1;\n}\n", 3, 7,
                         "`.at` on a rank-2 tensor takes 2 indices, got 3"},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 64\n    a.at(i, 70) = 1;\n}\n", 3, 13,
                         "index 70 is out of range for dimension 1 of extent 64"},
        CodegenErrorCase{"__co__ void f(s32 [M, N] a) {\n  parallel i by 64\n    a.at(i, 70) = 1;\n}\n", 3, 13,
                         "index 70 is out of range for dimension 1 of extent 64", Raised::at_call},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 4 : block {\n    t = dma.copy a.chunkat(i, 3) => shared;\n  }\n}\n",
                         3, 31, "`chunkat` takes parallel or loop indices (or `_`), got `3`"},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 2 : block {\n    t = dma.copy a => shared;\n    wait t;\n  }\n}\n",
                         4, 10, "waiting on a synchronous copy: `t` was not started with `.async`"},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 2 : block\n    parallel j by 2048 : thread\n      a.at(0, 0) = j;\n}\n",
                         3, 14, "this parallel level needs 2048 threads in a block; a block has at most 1024"},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 2 : block {\n    t = tma.copy.swiz<128> a => shared;\n  }\n}\n",
                         3, 28, "tma.copy.swiz<128> needs tile rows of exactly 128 bytes (32 s32), got 256", Raised::at_call},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 64\n    a.at(i, q) = 1;\n}\n", 3, 13,
                         "unknown name `q`"},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 2 : block {\n    t = dma.copy a.chunkat(i, _) => shared;\n"
                         "    u = t.data.span_as([64, 31]);\n  }\n}\n",
                         4, 16, "`.span_as` sees the 2048 elements of `t.data` as [64, 31], which has 1984"},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 2 : block {\n    t = dma.copy a.chunkat(i, _) => shared;\n"
                         "    a.at(0, 0) = t.data.span_as([2, 32, 32]).at(0, 0);\n  }\n}\n",
                         4, 46, "`.at` on a rank-3 tensor takes 3 indices, got 2"},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 2 : block {\n    u = a.chunkat(i, _).span_as([2048]);\n  }\n}\n",
                         3, 25, "`.span_as` of a window into a larger tensor is not supported yet by libcroqjit"},
        CodegenErrorCase{"__co__ void f(s32 [64, 64] a) {\n  parallel i by 2 : block {\n    t = dma.pad<{1, 1}, {1}, {0, 0}, 0> a => shared;\n  }\n}\n",
                         3, 25, "dma.pad on a rank-2 tile takes 2 `high` paddings, got 1"}));

TEST(KernelApi, SharedMemoryOverTheLimitIsAnError) {
  Kernel k = compile("__co__ void f(f32 [512, 512] a) {\n  parallel i by 2 : block {\n    t = dma.copy a => shared;\n  }\n}\n");
  auto a = make_spandata<float>(512, 512);
  std::string e = error_of([&] { k(a.view()); });
  // Where the tile is made, not at the function (issue 30).
  EXPECT_NE(e.find("<source>:3:5: error: this shared tile (1048576 bytes) brings the shared memory of `f` to 1048576 "
                   "bytes per block for this specialization"),
            std::string::npos)
      << e;
}

// A malformed arch is named as such by croq::compile, not taken for an arch
// below sm_90 (which would report that tma.copy needs sm_90).
TEST(KernelApi, MalformedArchIsNamedBeforeCodegen) {
  const char* source = R"croq(
__co__ void copy(global f32 [N] x, global f32 [N] y) {
  parallel b by cdiv(N, 128) : block {
    t = tma.copy x.subspan(128).at(b) => shared;
    dma.copy t.data => y.subspan(128).at(b);
  }
}
)croq";
  try {
    croq::compile(source, CompileOptions{.arch = "sm90a"});
    ADD_FAILURE() << "expected a CompileError for sm90a";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].message,
              "malformed architecture `sm90a`: expected sm_XY, sm_XYa, compute_XY or compute_XYa (for example sm_90a)");
  }
}

// croq::compile checks the function before any call and reports every
// shape-independent error at once, each with its rule.
TEST(KernelApi, CompileReportsEverySemanticError) {
  const char* source = R"croq(__co__ void f(s32 [64, 64] a, f32 [64, 64] b) {
  parallel i by 2 : block {
    t = dma.copy a.chunkat(i) => shared;
    dma.copy a.chunkat(i, _) => b.chunkat(i, _);
    wait t;
  }
}
)croq";
  try {
    croq::compile(source);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].rule, "chunkat-arity");
    EXPECT_EQ(e.diagnostics()[0].line, 3);
    EXPECT_EQ(e.diagnostics()[1].rule, "copy-element-type");
    EXPECT_EQ(e.diagnostics()[1].message, "copy between different element types (s32 to f32)");
    EXPECT_EQ(e.diagnostics()[1].line, 4);
    EXPECT_NE(std::string(e.what()).find("[copy-element-type]"), std::string::npos) << e.what();
  }
}

// What libcroqjit cannot run yet is refused by croq::compile, naming it.
TEST(KernelApi, CompileRefusesUnsupportedConstructs) {
  try {
    croq::compile("__co__ void f(s32 [8] a) {\n  apply i in [8] { }\n}\n");
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].message, "`apply` loops are not supported yet by libcroqjit");
    EXPECT_EQ(e.diagnostics()[0].rule, "unsupported-loop");
  }
}

// Arch rules run at compile when the options name the arch; otherwise at
// the first call, for the device's arch.
TEST(KernelApi, ArchRulesAtCompileWhenTheArchIsGiven) {
  const char* source = R"croq(__co__ void f(global f16 [128, 64] x, global f16 [128, 64] y) {
  parallel b by 2 : block {
    t = tma.copy x.subspan(64, 64).at(b, 0) => shared;
    dma.copy t.data => y.subspan(64, 64).at(b, 0);
  }
}
)croq";
  EXPECT_NO_THROW(croq::compile(source));
  EXPECT_NO_THROW(croq::compile(source, CompileOptions{.arch = "sm_90a"}));
  try {
    croq::compile(source, CompileOptions{.arch = "sm_86"});
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    EXPECT_EQ(e.diagnostics()[0].message, "tma.copy needs sm_90 (Hopper); use dma.copy (compiling for sm_86)");
    EXPECT_EQ(e.diagnostics()[0].rule, "needs-sm90");
    EXPECT_EQ(e.diagnostics()[0].line, 3);
  }
}

}  // namespace
}  // namespace croq
