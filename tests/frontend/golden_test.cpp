// Golden AST tests: every tests/data/frontend/golden/*.co and corpus/*.co is
// parsed and printed; the text must equal the stored .ast file exactly.
// CROQ_UPDATE_GOLDEN=1 rewrites the .ast files instead (review the diff).
#include <cstdlib>

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
  auto program = parse_ok(read_text(c.input), options);
  ASSERT_NE(program, nullptr);
  std::string actual = print_ast(*program);
  const char* update = std::getenv("CROQ_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::filesystem::create_directories(c.expected.parent_path());
    std::ofstream(c.expected, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << c.expected;
  }
  ASSERT_TRUE(std::filesystem::exists(c.expected))
      << c.expected << " is missing; run with CROQ_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(actual, read_text(c.expected)) << "AST of " << c.input << " differs from " << c.expected;
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& info) {
  std::string name = info.param.expected.parent_path().filename().string() + "_" +
                     info.param.expected.stem().string();
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Frontend, GoldenAst, ::testing::ValuesIn(golden_cases()), case_name);

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
    auto program = parse_ok(read_text(input));
    ASSERT_NE(program, nullptr);
    for (const auto& f : program->functions) visit(*f.body);
  }
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_TRUE(seen[i]) << "statement kind #" << i << " has no golden case";
}

}  // namespace
}  // namespace croq::frontend::testing
