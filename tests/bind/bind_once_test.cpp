// Binding runs once per specialization: a call's real extents go in, a
// dynamic dim is checked against its extent like any other dim (so the
// messages name the extent, not `?`) and then unbound, so the kernel is the
// one every extent shares.
#include <gtest/gtest.h>

#include "bind/bind.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "common/specialize_test_util.hpp"

namespace croq::bind {
namespace {

using pipeline::test::generate_cuda;
using pipeline::test::tensor;

const char* kScale = R"(__co__ void scale(f32 [M, 96] x, f32 [M, 96] z) {
  parallel {i, j} by [M, 96] z.at(i, j) = x.at(i, j) * 2.0f;
}
)";

struct Parsed {
  std::unique_ptr<frontend::ast::Program> program;
  const frontend::ast::Function* fn = nullptr;
};

Parsed parse(const char* source) {
  CompileOptions options;
  options.source_name = "bind.co";
  Parsed p;
  p.program = frontend::parse_program(source, options);
  p.fn = &frontend::select_entry(*p.program, options, p.program->source);
  return p;
}

TEST(BindOnce, ADynamicDimIsCheckedWithItsExtentThenUnbound) {
  Parsed p = parse(kScale);
  BoundFunction bound =
      bind_function(*p.program, *p.fn, {tensor(DType::f32, {100, 96}), tensor(DType::f32, {100, 96})}, {"M"});
  EXPECT_EQ(bound.dims.count("M"), 0u);
  EXPECT_EQ(bound.dim_sources.count("M"), 0u);
  ASSERT_EQ(bound.args.size(), 2u);
  EXPECT_EQ(bound.args[0].shape, (std::vector<std::int64_t>{-1, 96}));
  EXPECT_EQ(bound.args[1].shape, (std::vector<std::int64_t>{-1, 96}));
  ASSERT_EQ(bound.dynamic.count("M"), 1u);
  EXPECT_EQ(bound.dynamic.at("M").size(), 2u);
}

TEST(BindOnce, AMismatchOfADynamicDimNamesTheRealExtents) {
  Parsed p = parse(kScale);
  try {
    bind_function(*p.program, *p.fn, {tensor(DType::f32, {100, 96}), tensor(DType::f32, {50, 96})}, {"M"});
    ADD_FAILURE() << "a mismatch of M accepted";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 2 'z': dimension 0 is M, bound to 100 by an earlier argument, but got "
                                         "f32 [50, 96]"),
              std::string::npos)
        << e.what();
  }
}

TEST(BindOnce, RealExtentsAndUnknownOnesGiveTheSameKernel) {
  Parsed p = parse(kScale);
  const auto real = generate_cuda(*p.program, *p.fn, {tensor(DType::f32, {100, 96}), tensor(DType::f32, {100, 96})},
                                  227 * 1024, {"M"});
  const auto unknown = generate_cuda(*p.program, *p.fn, {tensor(DType::f32, {-1, 96}), tensor(DType::f32, {-1, 96})},
                                     227 * 1024, {"M"});
  EXPECT_EQ(real.cuda_source, unknown.cuda_source);
  EXPECT_EQ(real.launch.grid, unknown.launch.grid);
  EXPECT_TRUE(real.runtime_grid.dynamic());
}

}  // namespace
}  // namespace croq::bind
