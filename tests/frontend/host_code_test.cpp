// frontend/host_code.hpp: which functions are host programs, their launches
// and the numbering of their host scalars (which sema, the kernels'
// lowering and the host program's lowering share).
#include <gtest/gtest.h>

#include "frontend/frontend.hpp"
#include "frontend/host_code.hpp"

namespace croq::frontend::ast {
namespace {

struct Parsed {
  std::unique_ptr<Program> program;
  const Function& fn() const { return program->functions.front(); }
};

Parsed parse(const std::string& source) { return Parsed{parse_program(source, CompileOptions{})}; }

TEST(HostCode, FunctionsWithoutHostWorkAreNotHostPrograms) {
  // Kernels in order with declarations between them: a program, as before.
  EXPECT_FALSE(is_host_program(parse("__co__ void f(f32 [8] a) {\n  int n = 4;\n  parallel p by 8 a.at(p) = n;\n"
                                     "  parallel q by 8 a.at(q) = 1;\n}\n").fn()));
  // Device work at the host level and no parallel statement: one kernel of one thread, as before.
  EXPECT_FALSE(is_host_program(parse("__co__ void f(s32 [4] a) {\n  a.at(0) = 1;\n  println(a.at(0));\n}\n").fn()));
  // A binding is not a mutation.
  EXPECT_FALSE(is_host_program(parse("__co__ void f(f32 [8] a) {\n  x = 3;\n  parallel p by 8 a.at(p) = x;\n}\n").fn()));
}

TEST(HostCode, PrintsMutationsAndLoopsAroundKernelsMakeHostPrograms) {
  EXPECT_TRUE(is_host_program(parse("__co__ void f() {\n  println(\"Hello\");\n}\n").fn()));
  EXPECT_TRUE(is_host_program(parse("__co__ void f(f32 [8] a) {\n  foreach i in [3]\n    parallel p by 8\n"
                                    "      a.at(p) = i;\n}\n").fn()));
  EXPECT_TRUE(is_host_program(parse("__co__ void f(f32 [8] a) {\n  mutable int s = 1;\n  s = s * 2;\n"
                                    "  parallel p by 8 a.at(p) = s;\n}\n").fn()));
}

TEST(HostCode, LaunchesAndKernelCountFollowTheHostLevel) {
  Parsed p = parse("__co__ void f(f32 [8] a) {\n  foreach i in [3] {\n    parallel p by 8 a.at(p) = i;\n"
                   "    if (i > 1) { parallel q by 8 a.at(q) = 0; }\n  }\n}\n");
  ASSERT_EQ(launches(p.fn()).size(), 2u);
  EXPECT_EQ(launches(p.fn())[1]->location.line, 4);
  EXPECT_EQ(kernel_count(p.fn()), 2);
  EXPECT_EQ(kernel_count(parse("__co__ void f() {\n  println(\"Hello\");\n}\n").fn()), 0);
}

TEST(HostCode, HostScalarsInSourceOrderWithWhatKernelsRecompute) {
  Parsed p = parse("__co__ void f(f32 [8] a, f32 k) {\n  int n = 4;\n  mutable int t = n;\n  int u = t + 1;\n"
                   "  auto w = k * 2;\n  foreach i in [n] {\n    int j = i;\n    parallel p by 8 a.at(p) = j;\n"
                   "    t += 1;\n  }\n}\n");
  const std::vector<HostScalar> s = host_scalars(p.fn());
  ASSERT_EQ(s.size(), 6u);
  const char* names[] = {"n", "t", "u", "w", "i", "j"};
  const bool replicated[] = {true, false, false, true, false, false};
  const bool floating[] = {false, false, false, true, false, false};
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i].name, names[i]);
    EXPECT_EQ(s[i].replicated, replicated[i]) << names[i];
    EXPECT_EQ(s[i].is_float, floating[i]) << names[i];
  }
}

TEST(HostCode, HostStatementProblemsNameTheConstruct) {
  Parsed p = parse("__co__ void f(s32 [4] a, s32 [4] b) {\n  a.data = 1;\n  dma.copy a => shared;\n  println(a.at(1));\n"
                   "  foreach i in a.span { }\n  int x = 3;\n}\n");
  const auto& body = std::get<Block>(p.fn().body->node).statements;
  EXPECT_EQ(host_statement_problem(*body[0]), "this store (the host stores elements: `t.at(i) = v;`)");
  EXPECT_EQ(host_statement_problem(*body[1]), "this copy (the host copies with a synchronous `dma.copy a => b;`)");
  EXPECT_EQ(host_statement_problem(*body[2]), "printing this value (only strings and scalars)");
  EXPECT_EQ(host_statement_problem(*body[3]), "this loop's bound (write `in [n, ...]`)");
  EXPECT_EQ(host_statement_problem(*body[4]), "");
}

}  // namespace
}  // namespace croq::frontend::ast
