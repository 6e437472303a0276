// Every sema rule with a minimal kernel that breaks it: the test asserts the
// rule id, the exact message and hint, and the line and column of the one
// diagnostic the kernel gets. The cases live in *_cases.cpp, one file per
// area; EveryRuleHasACase keeps the table complete.
#include <set>

#include "sema/rules.hpp"
#include "sema_test_util.hpp"

namespace croq::sema::test {
namespace {

class Rules : public ::testing::TestWithParam<RuleCase> {};

TEST_P(Rules, ExactRuleMessageHintAndLocation) {
  const RuleCase& c = GetParam();
  auto e = sema_error(c.source, rule_case_options(c));
  ASSERT_TRUE(e.has_value()) << "no error for:\n" << c.source;
  std::vector<Diagnostic> errors;
  for (const Diagnostic& d : e->diagnostics())
    if (d.severity == Severity::error) errors.push_back(d);
  ASSERT_EQ(errors.size(), 1u) << e->what();
  const Diagnostic& d = errors[0];
  EXPECT_EQ(d.severity, Severity::error);
  EXPECT_EQ(d.rule, c.rule) << e->what();
  EXPECT_EQ(d.message, c.message) << e->what();
  EXPECT_EQ(d.hint, c.hint) << e->what();
  EXPECT_EQ(d.line, c.line) << e->what();
  // `at` may mark the caret with ^ inside some context: "=> ^s".
  const std::string line = line_of(c.source, c.line);
  std::string context = c.at;
  std::size_t caret = context.find('^');
  if (caret == std::string::npos) caret = 0;
  else context.erase(caret, 1);
  const std::size_t found = line.find(context);
  ASSERT_NE(found, std::string::npos) << "`" << context << "` is not on line " << c.line << ": " << line;
  EXPECT_EQ(d.column, static_cast<int>(found + caret + 1)) << e->what();
}

std::string case_name(const ::testing::TestParamInfo<RuleCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Expressions, Rules, ::testing::ValuesIn(expression_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Statements, Rules, ::testing::ValuesIn(statement_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Parallel, Rules, ::testing::ValuesIn(parallel_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Copies, Rules, ::testing::ValuesIn(copy_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(EventsAndMma, Rules, ::testing::ValuesIn(event_and_mma_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Unsupported, Rules, ::testing::ValuesIn(unsupported_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(StatementForms, Rules, ::testing::ValuesIn(form_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Declarations, Rules, ::testing::ValuesIn(declaration_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Upstream, Rules, ::testing::ValuesIn(upstream_rule_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Audit, Rules, ::testing::ValuesIn(audit_rule_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Constructs, Rules, ::testing::ValuesIn(construct_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Reliability, Rules, ::testing::ValuesIn(reliability_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Messages, Rules, ::testing::ValuesIn(message_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Calls, Rules, ::testing::ValuesIn(call_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(StridedViews, Rules, ::testing::ValuesIn(strided_view_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(MmaForms, Rules, ::testing::ValuesIn(mma_form_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(DeviceFunctionCalls, Rules, ::testing::ValuesIn(device_function_call_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Values, Rules, ::testing::ValuesIn(value_cases()), case_name);

TEST(RuleTable, EveryRuleHasACase) {
  std::set<std::string> covered;
  for (const RuleCase& c : all_rule_cases()) covered.insert(c.rule);
  for (const RuleInfo& r : all_rules()) EXPECT_TRUE(covered.count(r.id)) << "no case for rule " << r.id;
}

TEST(RuleTable, CasesNameKnownRules) {
  std::set<std::string> ids;
  for (const RuleInfo& r : all_rules()) ids.insert(r.id);
  for (const RuleCase& c : all_rule_cases()) EXPECT_TRUE(ids.count(c.rule)) << c.name << ": unknown rule " << c.rule;
}

TEST(RuleTable, IdsAreUniqueKebabCaseWithSummaries) {
  std::set<std::string> ids;
  for (const RuleInfo& r : all_rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
    EXPECT_EQ(std::string(r.id).find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"), std::string::npos) << r.id;
    EXPECT_GT(std::string(r.summary).size(), 10u) << r.id;
    EXPECT_STREQ(rule_id(r.rule), r.id);
  }
}

}  // namespace
}  // namespace croq::sema::test
