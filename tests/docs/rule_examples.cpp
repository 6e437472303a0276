// Prints the sema rule cases (tests/sema/*_cases.cpp) as JSON for the
// documentation's error reference (docs/tools/gen_rules.py): for each case
// its rule, source, the arch it needs, and the diagnostics croq::compile
// renders for it. The cases are tested by croq_sema_tests (exact rule,
// message, hint and caret); this tool only shows them.
//
//   sema_rule_examples > cases.json
#include <iostream>
#include <nlohmann/json.hpp>

#include "sema/sema_test_util.hpp"

namespace croq::sema::test {
namespace {

nlohmann::json case_json(const RuleCase& c) {
  auto error = sema_error(c.source, rule_case_options(c));
  return {{"name", c.name},
          {"rule", c.rule},
          {"source", c.source},
          {"line", c.line},
          {"message", c.message},
          {"hint", c.hint},
          {"arch", c.arch},
          {"limitations_as_warnings", c.limitations_as_warnings},
          {"rendered", error ? std::string(error->what()) : std::string()}};
}

}  // namespace
}  // namespace croq::sema::test

int main() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : croq::sema::test::all_rule_cases()) out.push_back(croq::sema::test::case_json(c));
  std::cout << out.dump(1) << "\n";
  return std::cout.good() ? 0 : 1;
}
