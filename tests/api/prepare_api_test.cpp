// Kernel::prepare, Kernel::params and LaunchOptions::output without a GPU:
// what a signature returns and writes is known before any launch (framework
// bindings allocate the result with their own allocator), and a caller's
// output that does not fit is refused before any device work.
#include <gtest/gtest.h>

#include "common/error_text.hpp"
#include "croq/croq.hpp"

namespace croq {
namespace {

const char* kAddRows = R"(__co__ f32 [M, N] add(f32 [M, N] lhs, f32 [M, N] rhs) {
  f32 [lhs.span] output;
  parallel {i, j} by [M, N]
    output.at(i, j) = lhs.at(i, j) + rhs.at(i, j);
  return output;
}
)";

const char* kScale = R"(__co__ void scale(f32 [N] x, f32 [N] y, float factor, int unused) {
  parallel i by N
    y.at(i) = x.at(i) * factor;
}
)";

// A view that only describes a signature: no data.
TensorView spec_view(DType dtype, Shape shape, MemoryKind memory = MemoryKind::device) {
  return TensorView::contiguous(nullptr, dtype, shape, memory, 0);
}

using test::error_of;

TEST(PrepareApi, ParamsDescribeTheDeclaration) {
  CompileOptions options;
  options.dynamic_dims = {"M"};
  Kernel add = compile(kAddRows, options);
  std::vector<ParamInfo> params = add.params();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].name, "lhs");
  EXPECT_TRUE(params[0].is_tensor);
  EXPECT_EQ(params[0].type, "f32");
  EXPECT_EQ(params[0].rank, 2);
  EXPECT_EQ(params[0].dynamic, (std::vector<bool>{true, false}));
  EXPECT_EQ(params[1].name, "rhs");
  EXPECT_TRUE(add.returns_tensor());

  Kernel scale = compile(kScale);
  params = scale.params();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[1].dynamic, (std::vector<bool>{false}));
  EXPECT_FALSE(params[2].is_tensor);
  EXPECT_EQ(params[2].name, "factor");
  EXPECT_EQ(params[2].type, "float");
  EXPECT_EQ(params[3].type, "int");
  EXPECT_TRUE(params[3].dynamic.empty());
  EXPECT_FALSE(scale.returns_tensor());
  EXPECT_TRUE(Kernel().params().empty());
}

TEST(PrepareApi, ResultShapeAndDtypeFromViewsWithoutData) {
  Kernel add = compile(kAddRows);
  std::array<Arg, 2> args{Arg(spec_view(DType::f32, {37, 129})), Arg(spec_view(DType::f32, {37, 129}))};
  CallInfo info = add.prepare(args);
  EXPECT_TRUE(info.has_result);
  EXPECT_EQ(info.result_dtype, DType::f32);
  EXPECT_EQ(info.result_shape, (Shape{37, 129}));
  EXPECT_EQ(info.result_extent_sources, (std::vector<std::pair<int, int>>{{-1, -1}, {-1, -1}}));
  EXPECT_EQ(info.argument_written, (std::vector<bool>{false, false}));
}

TEST(PrepareApi, DynamicResultDimsComeFromTheArguments) {
  CompileOptions options;
  options.dynamic_dims = {"M"};
  Kernel add = compile(kAddRows, options);
  for (std::size_t m : {std::size_t{5}, std::size_t{1000}}) {
    std::array<Arg, 2> args{Arg(spec_view(DType::f32, {m, 64})), Arg(spec_view(DType::f32, {m, 64}))};
    CallInfo info = add.prepare(args);
    EXPECT_EQ(info.result_shape, (Shape{m, 64}));
    EXPECT_EQ(info.result_extent_sources, (std::vector<std::pair<int, int>>{{0, 0}, {-1, -1}}));
  }
}

TEST(PrepareApi, WrittenArgumentsAndScalars) {
  Kernel scale = compile(kScale);
  std::array<Arg, 4> args{Arg(spec_view(DType::f32, {100})), Arg(spec_view(DType::f32, {100})), Arg(2.5), Arg(7)};
  CallInfo info = scale.prepare(args);
  EXPECT_FALSE(info.has_result);
  EXPECT_EQ(info.argument_written, (std::vector<bool>{false, true, false, false}));
}

TEST(PrepareApi, ChecksArgumentsLikeALaunch) {
  Kernel add = compile(kAddRows);
  std::array<Arg, 2> args{Arg(spec_view(DType::f32, {4, 8})), Arg(spec_view(DType::f32, {4, 9}))};
  EXPECT_EQ(error_of([&] { add.prepare(args); }),
            "argument 2 'rhs': dimension 1 is N, bound to 8 by an earlier argument, but got f32 [4, 9]");
  std::array<Arg, 2> wrong_dtype{Arg(spec_view(DType::f16, {4, 8})), Arg(spec_view(DType::f32, {4, 8}))};
  EXPECT_EQ(error_of([&] { add.prepare(wrong_dtype); }), "argument 1 'lhs': expected f32 [M, N], got f16 [4, 8]");
  EXPECT_EQ(error_of([&] { Kernel().prepare({}); }), "croq::Kernel: preparing an empty kernel (use croq::compile)");
  // A launch still needs data.
  EXPECT_EQ(error_of([&] { add.launch(args); }), "argument 1 'lhs': null data pointer");
}

TEST(PrepareApi, OutputThatDoesNotFitTheResultIsRefused) {
  Kernel add = compile(kAddRows);
  auto lhs = make_spandata<float>(4, 8), rhs = make_spandata<float>(4, 8);
  std::array<Arg, 2> args{Arg(lhs.view()), Arg(rhs.view())};
  auto wrong_shape = make_spandata<float>(8, 4);
  TensorView out = wrong_shape.view();
  LaunchOptions options;
  options.output = &out;
  EXPECT_EQ(error_of([&] { add.launch(args, options); }),
            "`add`: LaunchOptions::output f32 [8, 4] (host) does not fit the result, f32 [4, 8]");
  auto wrong_dtype = make_spandata<s32>(4, 8);
  out = wrong_dtype.view();
  EXPECT_EQ(error_of([&] { add.launch(args, options); }),
            "`add`: LaunchOptions::output s32 [4, 8] (host) does not fit the result, f32 [4, 8]");
  // Host arguments: the output must be host memory too.
  out = spec_view(DType::f32, {4, 8});
  out.data = wrong_shape.data();
  EXPECT_EQ(error_of([&] { add.launch(args, options); }),
            "`add`: LaunchOptions::output f32 [4, 8] (device 0) must be in host memory, as the arguments are");
  auto good = make_spandata<float>(4, 8);
  out = good.view();
  out.strides[0] = 1;
  out.strides[1] = 4;
  EXPECT_EQ(error_of([&] { add.launch(args, options); }),
            "`add`: LaunchOptions::output f32 [4, 8] (host) is not contiguous (row-major)");
}

TEST(PrepareApi, OutputForAFunctionWithoutResultIsRefused) {
  Kernel scale = compile(kScale);
  auto x = make_spandata<float>(16), y = make_spandata<float>(16);
  std::array<Arg, 4> args{Arg(x.view()), Arg(y.view()), Arg(1.0), Arg(0)};
  TensorView out = y.view();
  LaunchOptions options;
  options.output = &out;
  EXPECT_EQ(error_of([&] { scale.launch(args, options); }),
            "`scale`: LaunchOptions::output is given, but the function returns no tensor");
}

}  // namespace
}  // namespace croq
