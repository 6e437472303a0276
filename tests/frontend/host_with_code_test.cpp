// frontend/host_code.hpp for host `with`: its names are host scalars, a
// `foreach` of them adds none, a `with` whose names a kernel loops over stays
// the kernel's, and a binding in one scope does not hide a binding of the
// same name in a later, separate scope.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontend/frontend.hpp"
#include "frontend/host_code.hpp"

namespace croq::frontend::ast {
namespace {

std::unique_ptr<Program> parse(const std::string& source) { return parse_program(source, CompileOptions{}); }

std::vector<std::string> scalar_names(const Function& fn) {
  std::vector<std::string> names;
  for (const HostScalar& h : host_scalars(fn)) names.push_back(h.name);
  return names;
}

TEST(HostWithCode, TheNamesOfAWithAreHostScalarsAndItsForeachAddsNone) {
  auto p = parse("__co__ void f(f32 [8] a) {\n  with index = {x, y} in [2, 3], k in 4 {\n    foreach index, k\n"
                 "      parallel q by 8 a.at(q) = x + y + k;\n  }\n}\n");
  EXPECT_TRUE(is_host_program(p->functions.front()));
  EXPECT_EQ(scalar_names(p->functions.front()), (std::vector<std::string>{"x", "y", "k"}));
}

TEST(HostWithCode, AWithWhoseNamesAKernelLoopsOverStaysTheKernels) {
  auto p = parse("__co__ void f(f32 [8] a) {\n  with {x} in [2] {\n    parallel q by 8\n      foreach x\n"
                 "        a.at(q) = x;\n  }\n}\n");
  const Stmt& with = *std::get<Block>(p->functions.front().body->node).statements.front();
  EXPECT_EQ(host_statement_problem(with), "this `with` (its names looped over inside a kernel)");
  EXPECT_FALSE(is_host_program(p->functions.front()));
}

// A `with` that only prints its index (Croqtile's debug_rtti_GDB_types.co,
// whose bound is an ituple) is device work: the function stays one kernel.
TEST(HostWithCode, AWithWithoutKernelsOrHostLoopsStaysDeviceWork) {
  auto p = parse("__co__ void f(f32 [8] a, s32 x) {\n  ituple<2> b = {1, x};\n  with idx in [b] {\n"
                 "    println(1, idx);\n  }\n  parallel q by 8\n    a.at(q) = 1.0f;\n}\n");
  const Stmt& with = *std::get<Block>(p->functions.front().body->node).statements.at(1);
  EXPECT_EQ(host_statement_problem(with), "this `with` (no kernel or host `foreach` of its names inside)");
  EXPECT_FALSE(is_host_program(p->functions.front()));
}

// Between two kernels, a `with` that holds host code alone is the host's
// (run once); a tensor declared in it keeps it device work.
TEST(HostWithCode, AWithOfHostCodeBetweenKernelsIsHostCode) {
  auto p = parse("__co__ void f(f32 [8] a) {\n  parallel q by 8 a.at(q) = 1.0f;\n  with b in [2] { i = 3; println(i); }\n"
                 "  parallel r by 8 a.at(r) = 2.0f;\n}\n");
  const Stmt& with = *std::get<Block>(p->functions.front().body->node).statements.at(1);
  EXPECT_EQ(host_statement_problem(with, true), "");
  EXPECT_EQ(host_statement_problem(with, false), "this `with` (no kernel or host `foreach` of its names inside)");
  EXPECT_TRUE(is_host_program(p->functions.front()));
  auto q = parse("__co__ void f(f32 [8] a) {\n  parallel q by 8 a.at(q) = 1.0f;\n  with b in [2] { f32 [4] t; }\n"
                 "  parallel r by 8 a.at(r) = 2.0f;\n}\n");
  EXPECT_FALSE(is_host_program(q->functions.front()));
}

TEST(HostWithCode, ANameBoundInAClosedScopeIsBoundAgain) {
  auto p = parse("__co__ void f(f32 [8] a) {\n  with b in [2] i = 3;\n  with d in [2] foreach d i = 4;\n}\n");
  EXPECT_EQ(scalar_names(p->functions.front()), (std::vector<std::string>{"b", "i", "d", "i"}));
}

// A `with` of an unnamed tuple (`with index in [n, m]`) whose `foreach
// index` loops over its elements is host code.
TEST(HostWithCode, AWithOfAnUnnamedTupleLoopedOverRunsOnTheHost) {
  auto p = parse("__co__ void f() {\n  with index in [2, 3] {\n    foreach index { }\n  }\n}\n");
  const Stmt& with = *std::get<Block>(p->functions.front().body->node).statements.front();
  EXPECT_EQ(host_statement_problem(with), "");
}

}  // namespace
}  // namespace croq::frontend::ast
