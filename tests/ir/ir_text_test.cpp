// The IR's text form: the parser (ir/parser.hpp) reads back what the
// printer prints, byte for byte, for every golden file, for every sample's
// kernels after every stage in both levels of detail, and a pass run on
// the parsed full text does exactly what it does in the pipeline (so the
// pass golden tests of tests/passes/ test the passes the pipeline runs).
#include <gtest/gtest.h>

#include <filesystem>

#include "common/golden.hpp"
#include "croq/error.hpp"
#include "ir/builder.hpp"
#include "ir/parser.hpp"
#include "ir/printer.hpp"
#include "common/sample_cases.hpp"
#include "passes/passes.hpp"

namespace croq::ir {
namespace {

// ---- the golden files and the samples ------------------------------------------------------------

TEST(IrText, EveryGoldenFileRoundTrips) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CROQ_TEST_DATA_DIR) + "/ir")) {
    if (entry.path().extension() != ".ir") continue;
    SCOPED_TRACE(entry.path().string());
    const std::string text = croq::test::read_golden(entry.path());
    EXPECT_EQ(print_kernel(parse_kernel(text)), text);
    ++files;
  }
  EXPECT_EQ(files, static_cast<int>(test::golden_cases().size()));
}

class IrTextSamples : public ::testing::TestWithParam<test::SampleCase> {};

// "lower" and every pass, in order.
std::vector<std::string> stages() {
  std::vector<std::string> out{std::string(passes::kLowered)};
  for (const passes::Pass& p : passes::pass_list()) out.emplace_back(p.name);
  return out;
}

TEST_P(IrTextSamples, EveryStageRoundTripsInBothDetails) {
  for (const std::string& stage : stages()) {
    SCOPED_TRACE("after " + stage);
    const pipeline::GeneratedProgram full = test::generate_case(GetParam(), stage, IrDetail::full);
    const pipeline::GeneratedProgram summary = test::generate_case(GetParam(), stage, IrDetail::summary);
    ASSERT_EQ(full.kernels.size(), summary.kernels.size());
    for (std::size_t k = 0; k < full.kernels.size(); ++k) {
      const Kernel from_full = parse_kernel(full.kernels[k].ir);
      EXPECT_EQ(print_kernel(from_full, IrDetail::full), full.kernels[k].ir);
      // The full text holds the summary's facts too.
      EXPECT_EQ(print_kernel(from_full, IrDetail::summary), summary.kernels[k].ir);
      EXPECT_EQ(print_kernel(parse_kernel(summary.kernels[k].ir)), summary.kernels[k].ir);
    }
  }
}

TEST_P(IrTextSamples, EachPassOnTheParsedTextDoesWhatItDoesInThePipeline) {
  const test::SampleCase& c = GetParam();
  const passes::PassContext context{target::parse_target(c.arch), 227 * 1024};
  std::string before_stage(passes::kLowered);
  for (const passes::Pass& pass : passes::pass_list()) {
    SCOPED_TRACE(std::string(pass.name));
    const pipeline::GeneratedProgram before = test::generate_case(c, before_stage, IrDetail::full);
    const pipeline::GeneratedProgram after = test::generate_case(c, std::string(pass.name), IrDetail::full);
    for (std::size_t k = 0; k < before.kernels.size(); ++k) {
      Kernel kernel = parse_kernel(before.kernels[k].ir);
      pass.run(kernel, context);
      EXPECT_EQ(print_kernel(kernel, IrDetail::full), after.kernels[k].ir);
    }
    before_stage = pass.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, IrTextSamples, ::testing::ValuesIn(test::sample_cases()),
                         [](const auto& info) { return info.param.name; });

// ---- forms the samples may not show ---------------------------------------------------------------

Kernel small_kernel() {
  Kernel k;
  k.entry = "croq_f";
  k.function = "f";
  Buffer tile;
  tile.name = "tile_0";
  tile.dtype = DType::f32;
  tile.space = Space::shared;
  tile.dims = {Extent{4, ""}, Extent{8, ""}};
  k.buffers.push_back(tile);
  Buffer view = tile;  // a view of the same storage, of another rank, under the same name
  view.dims = {Extent{32, ""}};
  view.alias_of = 0;
  k.buffers.push_back(view);
  Buffer dynamic;
  dynamic.name = "arg_x";
  dynamic.dims = {Extent{-1, "dim_N"}};
  dynamic.align_bytes = 4;
  dynamic.argument = 0;
  k.buffers.push_back(dynamic);
  k.params.push_back(Param{abi::KernelParam::Kind::tensor, "arg_x", Type::element(DType::f32), 2});
  abi::KernelParam abi_param;
  abi_param.argument = 0;
  abi_param.name = "arg_x";
  k.abi.params.push_back(abi_param);
  return k;
}

TEST(IrText, FullFormTellsApartWhatTheSummaryDoesNot) {
  Kernel k = small_kernel();
  StmtList inner;
  inner.push_back(make_stmt(Let{"a_1", Type::i64(), true, int_const(-5, Type::i64())}, {3, 7, 2}));
  inner.push_back(make_stmt(Let{"b_2", Type::element(DType::f32), false, float_literal("3")}));
  inner.push_back(make_stmt(Let{"c_3", Type::f32(), false, nullptr}));
  StmtList nested;  // an unbraced list inside a list
  nested.push_back(make_stmt(Assign{element(1, DType::f32, nullptr, {var("a_1", Type::i64())}), "=",
                                    unary("-", var("b_2", Type::element(DType::f32))), nullptr}));
  inner.push_back(make_stmt(Seq{std::move(nested), false}));
  inner.push_back(make_stmt(Eval{select(binary("<", int_const(-5), var("a_1", Type::i64())), int_const(1),
                                        convert(element(0, DType::f32, nullptr, {int_const(0), int_const(1)}),
                                                Type::i32()))}));
  StmtList braced_only;
  braced_only.push_back(make_stmt(Seq{{}, true}));
  For loop{"i_4", Type::i32(), int_const(0), int_const(4), nullptr, make_stmt(Seq{std::move(braced_only), false}), false};
  inner.push_back(make_stmt(std::move(loop)));
  InlineAsm text_asm;
  text_asm.text = "mov.u32 %0, %1;\n\t// \"quoted\" \\ \x01";
  text_asm.outputs.push_back({"=r", var("c_3", Type{Type::Kind::u32, DType::u32})});  // not its declared type
  text_asm.inputs.push_back({"n", int_const(7)});
  text_asm.memory = true;
  inner.push_back(make_stmt(std::move(text_asm)));
  k.body = make_stmt(Seq{std::move(inner), false});

  const std::string full = print_kernel(k, IrDetail::full);
  for (const char* expected :
       {"let i64 a_1 = -5:i64 {pos=3:7+2}", "var element.f32 b_2 = float(3)",
        "var f32 c_3 = 0 {no_init}", "  seq:\n", "tile_0#1[a_1]", "(-b_2)", "seq braced:",
        "asm \"mov.u32 %0, %1;\\n\\t// \\\"quoted\\\" \\\\ \\x01\" : =r(c_3:u32) : n(7) : memory",
        "buffer tile_0: shared f32 [32] at -1 (view of tile_0#0)", "buffer arg_x: global f32 [dim_N] {argument=0, align=4}",
        "param arg_x {type=element.f32, buffer=arg_x}", "kernel croq_f: grid 1, block 1, shared 0 bytes {function=\"f\"}"})
    EXPECT_NE(full.find(expected), std::string::npos) << expected << "\n" << full;
  EXPECT_EQ(print_kernel(parse_kernel(full), IrDetail::full), full);
  const std::string summary = print_kernel(k);
  EXPECT_EQ(print_kernel(parse_kernel(summary)), summary);
  EXPECT_EQ(print_kernel(parse_kernel(full)), summary);
}

// ---- malformed text ------------------------------------------------------------------------------

std::string parse_error(const std::string& text) {
  try {
    parse_kernels(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(IrText, MalformedTextNamesTheLineAndColumn) {
  const std::string head = "kernel croq_f: grid 1, block 32, shared 0 bytes\n  buffer t_0: shared f32 [4] at 0\n";
  EXPECT_EQ(parse_error("kernels\n"), "IR text, line 1: expected `kernel ENTRY: ...`");
  EXPECT_EQ(parse_error(head + "  alloc u_1\n"), "IR text, line 3, column 9: no buffer `u_1`, found `u_1`");
  EXPECT_EQ(parse_error(head + "  alloc t_0 {pos=1:2, colour=3}\n"),
            "IR text, line 3, column 32: unknown attribute `colour`, found the end of the line");
  EXPECT_EQ(parse_error(head + "  let i32 x_1 = (1 + 2\n"),
            "IR text, line 3, column 23: expected `)`, found the end of the line");
  EXPECT_EQ(parse_error(head + "  barrier block\n      barrier block\n"), "IR text, line 4: unexpected indentation");
  EXPECT_EQ(parse_error(head + "   fence block\n"), "IR text, line 3: indentation is not a multiple of two spaces");
  EXPECT_EQ(parse_error(head + "  {\n    fence block\n"), "IR text: a `{` is not closed");
  EXPECT_EQ(parse_error(head + "  let i32 x_1 = 99999999999999999999\n"),
            "IR text, line 3, column 17: expected a 64-bit integer, found `99999999999999999999`");
  EXPECT_EQ(parse_error(head + "  print \"a\\q\"\n"),
            "IR text, line 3, column 12: unknown escape in a string, found `q\"`");
  try {
    parse_kernel(head + head);
    ADD_FAILURE() << "two kernels parsed as one";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "IR text: expected one kernel, found 2");
  }
}

}  // namespace
}  // namespace croq::ir
