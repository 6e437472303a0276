// Lowering of `.modspan(...)`: the remainder of each extent, known once the
// dims are bound (the tiles themselves run in tests/interp/modspan_interp_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "common/specialize_test_util.hpp"
#include "pipeline/specialize.hpp"

namespace croq::pipeline {
namespace {

using test::tensor;

TEST(ModspanLowering, ADynamicDimIsRefusedAtTheModspan) {
  const std::string source =
      "__co__ void f(s32 [M, 32] a, s32 [4, 32] out) {\n"
      "  parallel p by 1 : block {\n"
      "    t = dma.copy a.modspan(8, 32).at(0, 0) => shared;\n"
      "    dma.copy t.data => out.subspan(1, 32).at(0, 0);\n"
      "  }\n"
      "}\n";
  CompileOptions options;
  options.source_name = "sample.co";
  auto program = frontend::parse_program(source, options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  try {
    test::generate_cuda(*program, fn, {tensor(DType::s32, {-1, 32}), tensor(DType::s32, {4, 32})}, 227 * 1024, {"M"});
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u) << e.what();
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.message, "`.modspan` of dimension 0, the dynamic dim `M`, has a remainder known only at run time");
    EXPECT_EQ(d.hint, "use `subspan(T, ...).at(...)` with a constant tile extent");
    EXPECT_EQ(d.line, 3);
    EXPECT_EQ(d.column, 20);  // `modspan`
  }
}

}  // namespace
}  // namespace croq::pipeline
