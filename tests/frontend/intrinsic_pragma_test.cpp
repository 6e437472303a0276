// `#pragma croq intrinsic prefix|namespace NAME`: which bare calls the
// parser marks as intrinsics, by the scope of each registration (file,
// function, block), and the malformed forms.
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

// Each bare call of the program's statement lists (blocks and parallel
// bodies): its callee and whether the parser marked it an intrinsic.
void collect_calls(const ast::Stmt& s, std::vector<std::pair<std::string, bool>>& out) {
  if (const auto* b = std::get_if<ast::Block>(&s.node))
    for (const auto& inner : b->statements) collect_calls(*inner, out);
  if (const auto* p = std::get_if<ast::Parallel>(&s.node)) collect_calls(*p->body, out);
  if (const auto* e = std::get_if<ast::ExprStatement>(&s.node))
    if (const auto* c = std::get_if<ast::Call>(&e->expr->node))
      out.emplace_back(std::get<ast::Name>(c->callee->node).name, c->intrinsic);
}

std::vector<std::pair<std::string, bool>> calls_of(const ast::Program& program) {
  std::vector<std::pair<std::string, bool>> out;
  for (const auto& f : program.functions) collect_calls(*f.body, out);
  return out;
}

TEST(IntrinsicPragma, RegistrationsHoldToTheEndOfTheirStatementList) {
  auto program = parse_ok(R"(#pragma croq intrinsic prefix file_
#pragma croq intrinsic namespace filelib
__co__ void first(s32 [8] a) {
  #pragma croq intrinsic prefix func_
  parallel by 1 {
    #pragma croq intrinsic namespace inner
    filelib::init();
    file_go(0);
    func_go(1);
    inner::go(2);
    vendor::go(3);
  }
  func_after();
  inner::after();
}
__co__ void second(s32 [8] a) {
  parallel by 1 {
    file_go(0);
    func_go(1);
    filelib(2);
  }
}
)");
  ASSERT_NE(program, nullptr);
  const std::vector<std::pair<std::string, bool>> expected = {
      {"filelib::init", true}, {"file_go", true},  {"func_go", true},   {"inner::go", true},
      {"vendor::go", false},   {"func_after", true}, {"inner::after", false},
      {"file_go", true},       {"func_go", false},  {"filelib", false}};
  EXPECT_EQ(calls_of(*program), expected);
  ASSERT_EQ(program->intrinsic_pragmas.size(), 4u);
  EXPECT_EQ(program->intrinsic_pragmas[1].name, "filelib");
  EXPECT_TRUE(program->intrinsic_pragmas[1].is_namespace);
  EXPECT_EQ(program->intrinsic_pragmas[1].location.line, 2);
  EXPECT_EQ(program->intrinsic_pragmas[1].location.column, 34);
}

TEST(IntrinsicPragma, APrefixMayEndWithANamespaceSeparator) {
  auto program = parse_ok(R"(#pragma croq intrinsic prefix vendor::
__co__ void f(s32 [8] a) {
  parallel by 1 {
    vendor::fence();
    vendors::fence();
  }
}
)");
  ASSERT_NE(program, nullptr);
  const std::vector<std::pair<std::string, bool>> expected = {{"vendor::fence", true}, {"vendors::fence", false}};
  EXPECT_EQ(calls_of(*program), expected);
}

TEST(IntrinsicPragma, OtherPragmasAreTheHostCompilers) {
  auto program = parse_ok("#pragma once\n#pragma unroll\n__co__ void f(s32 [8] a) {\n  parallel by 1 {\n    go(1);\n  }\n}\n");
  ASSERT_NE(program, nullptr);
  EXPECT_TRUE(program->intrinsic_pragmas.empty());
}

TEST(IntrinsicPragma, MalformedRegistrationsAreSyntaxErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"#pragma croq unroll 4\n", "unknown `#pragma croq` directive: expected `intrinsic`"},
      {"#pragma croq intrinsic suffix _hw\n", "expected `prefix` or `namespace` after `#pragma croq intrinsic`"},
      {"#pragma croq intrinsic namespace\n", "expected a namespace (`arch`) after `#pragma croq intrinsic namespace`"},
      {"#pragma croq intrinsic namespace arch::\n",
       "expected a namespace (`arch`) after `#pragma croq intrinsic namespace`"},
      {"#pragma croq intrinsic prefix hw_ 2\n",
       "expected a name prefix (`hw_`, `vendor::`) after `#pragma croq intrinsic prefix`"},
  };
  for (const auto& [pragma, message] : cases) {
    const auto errors = parse_errors(std::string(pragma) + "__co__ void f(s32 [8] a) { parallel by 1 { } }\n");
    ASSERT_EQ(errors.size(), 1u) << pragma;
    EXPECT_EQ(errors[0].message, message) << pragma;
    EXPECT_EQ(errors[0].line, 1) << pragma;
    EXPECT_EQ(errors[0].hint,
              "write `#pragma croq intrinsic prefix hw_` or `#pragma croq intrinsic namespace arch`")
        << pragma;
  }
}

}  // namespace
}  // namespace croq::frontend::testing
