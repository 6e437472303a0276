// Golden AST tests: every tests/data/frontend/golden/*.co and corpus/*.co is
// parsed and printed; the text must equal the stored .ast file exactly.
// CROQ_UPDATE_GOLDEN=1 rewrites the .ast files instead (review the diff).
#include <cstdlib>
#include <functional>
#include <set>

#include "common/golden.hpp"
#include "frontend_test_util.hpp"

namespace croq::frontend::testing {
namespace {

struct GoldenCase {
  std::filesystem::path input;
  std::filesystem::path expected;
  CompileOptions options;
};

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  for (const auto& input : files_in(data_dir() / "golden", ".co")) {
    cases.push_back({input, std::filesystem::path(input).replace_extension(".ast"), {}});
  }
  // The same preprocessing input with option defines: they override the source.
  CompileOptions overriding;
  overriding.defines["M"] = std::int64_t{64};
  overriding.defines["HALF"] = 0.25;
  overriding.defines["USE_DMA"] = std::int64_t{1};
  overriding.defines["USE_TMA"] = std::int64_t{0};
  cases.push_back({data_dir() / "golden" / "preprocess.co", data_dir() / "golden" / "preprocess_options.ast",
                   overriding});
  for (const auto& input : files_in(data_dir() / "corpus", ".co")) {
    cases.push_back({input, data_dir() / "golden" / "corpus" / input.filename().replace_extension(".ast"), {}});
  }
  return cases;
}

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.input.filename() << " -> " << c.expected.filename(); }

class GoldenAst : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenAst, PrintsExpectedTree) {
  const GoldenCase& c = GetParam();
  CompileOptions options = c.options;
  options.source_name = c.input.filename().string();
  auto program = parse_ok(read_file(c.input), options);
  ASSERT_NE(program, nullptr);
  std::string actual = print_ast(*program);
  SCOPED_TRACE("AST of " + c.input.string());
  CROQ_EXPECT_GOLDEN(actual, c.expected);
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& info) {
  std::string name = info.param.expected.parent_path().filename().string() + "_" +
                     info.param.expected.stem().string();
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Frontend, GoldenAst, ::testing::ValuesIn(golden_cases()), case_name);

// Every golden test (AST, IR, CUDA) rewrites its files only when
// CROQ_UPDATE_GOLDEN is exactly "1"; "0", "yes" or an empty value compare.
TEST(GoldenFiles, OnlyTheValueOneRewrites) {
  const char* saved = std::getenv("CROQ_UPDATE_GOLDEN");
  const std::string before = saved ? saved : "";
  for (const char* value : {"0", "yes", "true", "", " 1", "10"}) {
    ::setenv("CROQ_UPDATE_GOLDEN", value, 1);
    EXPECT_FALSE(croq::test::update_golden()) << "CROQ_UPDATE_GOLDEN='" << value << "'";
  }
  ::unsetenv("CROQ_UPDATE_GOLDEN");
  EXPECT_FALSE(croq::test::update_golden());
  ::setenv("CROQ_UPDATE_GOLDEN", "1", 1);
  EXPECT_TRUE(croq::test::update_golden());
  if (saved) ::setenv("CROQ_UPDATE_GOLDEN", before.c_str(), 1);
  else ::unsetenv("CROQ_UPDATE_GOLDEN");
}

TEST(GoldenAst, CoversEveryStatementKind) {
  // Each alternative of ast::Stmt::node appears in at least one golden input.
  std::vector<bool> seen(std::variant_size_v<decltype(ast::Stmt::node)>, false);
  std::function<void(const ast::Stmt&)> visit = [&](const ast::Stmt& s) {
    seen[s.node.index()] = true;
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          if constexpr (std::is_same_v<T, ast::Block>) {
            for (const auto& c : n.statements) visit(*c);
          } else if constexpr (std::is_same_v<T, ast::If>) {
            if (n.then_branch) visit(*n.then_branch);
            if (n.else_branch) visit(*n.else_branch);
          } else if constexpr (requires { n.body; }) {
            if (n.body) visit(*n.body);
          }
        },
        s.node);
  };
  for (const auto& input : files_in(data_dir() / "golden", ".co")) {
    auto program = parse_ok(read_file(input));
    ASSERT_NE(program, nullptr);
    for (const auto& f : program->functions) visit(*f.body);
  }
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_TRUE(seen[i]) << "statement kind #" << i << " has no golden case";
}

// Marks the kind of `e` and of every expression below it.
void mark_expressions(const ast::Expr& e, std::vector<bool>& seen) {
  seen[e.node.index()] = true;
  auto walk = [&](const ast::ExprPtr& child) {
    if (child) mark_expressions(*child, seen);
  };
  auto walk_all = [&](const ast::ExprList& list) {
    for (const auto& child : list) walk(child);
  };
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::Unary> || std::is_same_v<T, ast::ElementCount>) walk(n.operand);
        if constexpr (std::is_same_v<T, ast::Binary>) {
          walk(n.lhs);
          walk(n.rhs);
        }
        if constexpr (std::is_same_v<T, ast::Conditional>) {
          walk(n.condition);
          walk(n.then_value);
          walk(n.else_value);
        }
        if constexpr (std::is_same_v<T, ast::Call>) {
          walk(n.callee);
          walk_all(n.template_args);
          walk_all(n.args);
        }
        if constexpr (std::is_same_v<T, ast::Convert>) walk(n.operand);
        if constexpr (std::is_same_v<T, ast::Member>) {
          walk(n.object);
          walk_all(n.args);
        }
        if constexpr (std::is_same_v<T, ast::Subscript>) {
          walk(n.object);
          walk_all(n.indices);
        }
        if constexpr (std::is_same_v<T, ast::ITuple>) walk_all(n.elements);
        if constexpr (std::is_same_v<T, ast::ShapeList>) walk_all(n.dims);
        if constexpr (std::is_same_v<T, ast::Range>) {
          walk(n.start);
          walk(n.end);
          walk(n.stride);
        }
      },
      e.node);
}

TEST(GoldenAst, CoversEveryExpressionKindAndOperator) {
  // expressions.co alone holds every alternative of ast::Expr::node, every
  // binary operator and every unary operator.
  auto program = parse_ok(read_file(data_dir() / "golden" / "expressions.co"));
  ASSERT_NE(program, nullptr);
  std::vector<bool> kinds(std::variant_size_v<decltype(ast::Expr::node)>, false);
  std::set<std::string> operators;
  std::function<void(const ast::Expr&)> collect = [&](const ast::Expr& e) {
    if (const auto* b = std::get_if<ast::Binary>(&e.node)) {
      operators.insert(std::string("binary ") + ast::binary_op_name(b->op));
      collect(*b->lhs);
      collect(*b->rhs);
    } else if (const auto* u = std::get_if<ast::Unary>(&e.node)) {
      operators.insert(std::string("unary ") + ast::unary_op_name(u->op));
      collect(*u->operand);
    }
  };
  std::function<void(const ast::Stmt&)> visit = [&](const ast::Stmt& s) {
    if (const auto* block = std::get_if<ast::Block>(&s.node))
      for (const auto& c : block->statements) visit(*c);
    if (const auto* p = std::get_if<ast::Parallel>(&s.node)) visit(*p->body);
    if (const auto* l = std::get_if<ast::Loop>(&s.node)) visit(*l->body);
    if (const auto* a = std::get_if<ast::Assignment>(&s.node)) {
      mark_expressions(*a->value, kinds);
      collect(*a->value);
    }
  };
  visit(*program->functions[0].body);
  for (size_t i = 0; i < kinds.size(); ++i) EXPECT_TRUE(kinds[i]) << "expression kind #" << i << " is not covered";
  for (int op = 0; op <= static_cast<int>(ast::BinaryOp::logical_or); ++op)
    EXPECT_TRUE(operators.count(std::string("binary ") + ast::binary_op_name(static_cast<ast::BinaryOp>(op))))
        << ast::binary_op_name(static_cast<ast::BinaryOp>(op));
  for (int op = 0; op <= static_cast<int>(ast::UnaryOp::post_decrement); ++op)
    EXPECT_TRUE(operators.count(std::string("unary ") + ast::unary_op_name(static_cast<ast::UnaryOp>(op))))
        << ast::unary_op_name(static_cast<ast::UnaryOp>(op));
}

}  // namespace
}  // namespace croq::frontend::testing
