// Between the stages of pipeline::generate_program: the verifier after
// every pass (naming the pass that broke the IR, with the IR), in release
// builds under CROQ_VERIFY_IR=1; CROQ_PRINT_IR_AFTER; the IR text kept
// after a chosen stage.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "croq/error.hpp"
#include "ir/builder.hpp"
#include "common/sample_cases.hpp"
#include "ir/walk.hpp"
#include "passes/passes.hpp"

namespace croq::ir {
namespace {

// Sets an environment variable for the test's scope (and restores it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

test::SampleCase tiled_add() {
  for (test::SampleCase& c : test::sample_cases())
    if (c.name == "tiled_add") return c;
  ADD_FAILURE() << "no tiled_add sample";
  return {};
}

// tiled_add through the pass list with a faulty pass after vectorize_copies
// that takes a copy's access width away again.
std::vector<passes::Pass> faulty_pass_list() {
  std::vector<passes::Pass> list(passes::pass_list().begin(), passes::pass_list().end());
  const passes::Pass faulty{"forget_copy_widths",
                            [](Kernel& k, const passes::PassContext&) {
                              for_each<CopyTiles>(*k.body, [](CopyTiles& c, Stmt&) { c.vector = 0; });
                            },
                            Decisions::none()};
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i].name == "vectorize_copies") list.insert(list.begin() + static_cast<std::ptrdiff_t>(i) + 1, faulty);
  return list;
}

pipeline::GeneratedProgram generate(const test::SampleCase& c, bool verify, std::span<const passes::Pass> list = {}) {
  CompileOptions options;
  options.source_name = "kernel.co";
  auto program = frontend::parse_program(test::case_source(c), options);
  const auto& fn = frontend::select_entry(*program, options, program->source);
  pipeline::GenerateOptions g;
  g.verify_ir = verify;
  g.passes = list;
  return pipeline::generate_program(*program, fn, c.args, target::parse_target(c.arch), g);
}

TEST(IrStages, TheVerifierNamesThePassThatBrokeTheIrAndPrintsIt) {
  const std::vector<passes::Pass> list = faulty_pass_list();
  try {
    generate(tiled_add(), true, list);
    FAIL() << "the verifier let a copy without an access width through";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    const Diagnostic& d = e.diagnostics()[0];
    EXPECT_EQ(d.message.substr(0, d.message.find(" (and")),
              "internal error: invalid IR for `tiled_add_2d` after pass `forget_copy_widths`: a copy has no access width");
    ASSERT_FALSE(d.notes.empty());
    const std::string& ir = d.notes.back();
    EXPECT_EQ(ir.substr(0, ir.find('\n')), "the IR after pass `forget_copy_widths`:");
    EXPECT_NE(ir.find("\nkernel croq_tiled_add_2d: grid "), std::string::npos) << ir;
    EXPECT_NE(ir.find(" vector 0"), std::string::npos) << ir;
  }
}

// The verifier also reads the IR's full text back: a kernel whose text is
// not what the parser reads (here an operator the printer writes with a
// space in it) is reported naming the pass, with the parser's complaint.
TEST(IrStages, TheVerifierNamesThePassWhoseIrTextDoesNotReadBack) {
  const passes::Pass garble{"garble_an_operator",
                            [](Kernel& k, const passes::PassContext&) {
                              auto e = std::make_shared<Expr>();
                              e->kind = ExprKind::binary;
                              e->type = Type::i32();
                              e->op = "+ +";
                              e->operands = {int_const(1), int_const(2)};
                              std::get<Seq>(k.body->node).body.push_back(make_stmt(Eval{e}));
                            },
                            Decisions::none()};
  // The passes that leave the kernel's text short enough for the note.
  const std::vector<passes::Pass> list{*passes::find_pass("choose_index_width"),
                                       *passes::find_pass("place_shared_barriers"), garble};
  try {
    generate(tiled_add(), true, list);
    FAIL() << "a kernel whose text does not read back went through";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    const std::string& message = e.diagnostics()[0].message;
    EXPECT_EQ(message.substr(0, message.find(", line ")),
              "internal error: invalid IR for `tiled_add_2d` after pass `garble_an_operator`: its text does not read "
              "back: IR text") << message;
    EXPECT_NE(message.find("expected an expression, found `+ 2)`"), std::string::npos) << message;
    EXPECT_NE(e.diagnostics()[0].notes.back().find("  eval (1 + + 2)\n"), std::string::npos);
  }
}

TEST(IrStages, ReleaseBuildsVerifyUnderCroqVerifyIr) {
  const std::vector<passes::Pass> list = faulty_pass_list();
  {
    ScopedEnv on("CROQ_VERIFY_IR", "1");
    EXPECT_THROW(generate(tiled_add(), false, list), CompileError);
  }
#ifdef NDEBUG
  ScopedEnv off("CROQ_VERIFY_IR", nullptr);
  EXPECT_NO_THROW(generate(tiled_add(), false, list)) << "a release build without CROQ_VERIFY_IR skips the verifier";
  ScopedEnv no("CROQ_VERIFY_IR", "0");
  EXPECT_NO_THROW(generate(tiled_add(), false, list));
#endif
}

TEST(IrStages, PrintIrAfterOneStageOrAll) {
  {
    ScopedEnv after("CROQ_PRINT_IR_AFTER", "vectorize_copies");
    ::testing::internal::CaptureStderr();
    generate(tiled_add(), true);
    const std::string err = ::testing::internal::GetCapturedStderr();
    const std::string full = test::generate_case(tiled_add(), "vectorize_copies", IrDetail::full).kernels[0].ir;
    EXPECT_EQ(err, "// CROQ_PRINT_IR_AFTER: after vectorize_copies\n" + full);
  }
  {
    ScopedEnv all("CROQ_PRINT_IR_AFTER", "all");
    ::testing::internal::CaptureStderr();
    generate(tiled_add(), true);
    const std::string err = ::testing::internal::GetCapturedStderr();
    std::string expected = "// CROQ_PRINT_IR_AFTER: after lower\n";
    for (const passes::Pass& p : passes::pass_list())
      EXPECT_NE(err.find("// CROQ_PRINT_IR_AFTER: after " + std::string(p.name) + "\nkernel croq_tiled_add_2d"),
                std::string::npos)
          << p.name;
    EXPECT_EQ(err.substr(0, expected.size()), expected);
  }
  ScopedEnv wrong("CROQ_PRINT_IR_AFTER", "vectorise");
  try {
    generate(tiled_add(), true);
    FAIL() << "an unknown stage printed nothing and said nothing";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "CROQ_PRINT_IR_AFTER=vectorise names no stage; the stages are " +
                                         passes::stage_names());
  }
}

TEST(IrStages, StageNamesAreLowerAndThePassList) {
  EXPECT_EQ(passes::stage_names(),
            "lower, pipeline_k_loops, choose_index_width, place_shared_barriers, select_mma_instructions, complete_mma_groups, "
            "pin_overlapped_waits, "
            "count_event_arrivals, reallocate_registers, tile_transposes, "
            "vectorize_elementwise, vectorize_copies, remove_redundant_barriers, lay_out_shared_memory");
  for (const passes::Pass& p : passes::pass_list()) EXPECT_EQ(passes::find_pass(p.name), &p);
  EXPECT_EQ(passes::find_pass("lower"), nullptr);
}

TEST(IrStages, KeptIrIsTheTextAfterTheChosenStage) {
  const test::SampleCase c = tiled_add();
  const std::string lowered = test::generate_case(c, "lower").kernels[0].ir;
  const std::string vectorized = test::generate_case(c, "vectorize_copies").kernels[0].ir;
  const std::string last = test::generate_case(c).kernels[0].ir;
  EXPECT_NE(lowered.find(" vector 0"), std::string::npos) << lowered;
  EXPECT_EQ(vectorized.find(" vector 0"), std::string::npos) << vectorized;
  EXPECT_EQ(test::generate_case(c, "lay_out_shared_memory").kernels[0].ir, last);
  EXPECT_THROW(test::generate_case(c, "vectorise"), Error);
}

}  // namespace
}  // namespace croq::ir
