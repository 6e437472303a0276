// Shared by the sema tests: kernel shells for rule cases, and running sema
// on a source the way croq::compile does (parse, then check).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "croq/error.hpp"
#include "frontend/frontend.hpp"
#include "sema/sema.hpp"
#include "target/target.hpp"

namespace croq::sema::test {

// A parsed source and what sema made of it (every function checked).
struct CheckedSource {
  std::unique_ptr<frontend::ast::Program> program;
  CheckedProgram checked;
};

inline CheckedSource check_source(const std::string& source, const Options& options = {}) {
  CheckedSource c;
  c.program = frontend::parse_program(source, {});
  c.checked = check(*c.program, {}, options);
  return c;
}

// A kernel with tensors of several element types and ranks; `body` starts on line 2.
inline std::string fn(const std::string& body) {
  return "__co__ void f(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] out, s32 [64, 64] a, "
         "bf16 [M, K] lhs_b, int n) {\n" +
         body + "}\n";
}

// `body` inside a block level over {bm, bn}; starts on line 3.
inline std::string blk(const std::string& body) {
  return fn("  parallel {bm, bn} by [2, 4] : block {\n" + body + "  }\n");
}

// `body` inside one warpgroup with an f32 accumulator `mc` and two 128B
// swizzled shared tiles, ta [64, 64] and tb [128, 64]; starts on line 7.
inline std::string wg(const std::string& body) {
  return blk("    parallel p by 1 : group-4 {\n"
             "      mc = mma.fill.f32 0.0f;\n"
             "      ta = tma.copy.swiz<128> lhs.subspan(64, 64).at(bm, 0) => shared;\n"
             "      tb = tma.copy.swiz<128> rhs.subspan(128, 64).at(bn, 0) => shared;\n" +
             body + "    }\n");
}

// One rule violation: the only diagnostic its source gets.
struct RuleCase {
  std::string name;     // test name
  std::string rule;     // the rule id
  std::string source;
  int line = 0;
  std::string at;       // the caret's column is where this text starts on `line`
  std::string message;
  std::string hint = "";
  std::string arch = "";  // CompileOptions::arch, for the target rules
  // The construct also needs a limitation (dma.any): it stays a warning,
  // as in `croq check`, and the case's error is the only error.
  bool limitations_as_warnings = false;
};

inline void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.name; }

// The CompileError sema raises for `source` (all functions), or none.
inline std::optional<CompileError> sema_error(const std::string& source, const Options& options = {},
                                              const std::string& name = "rules.co") {
  CompileOptions parse;
  parse.source_name = name;
  try {
    // Constant faults are found while parsing (the same rule ids).
    auto program = frontend::parse_program(source, parse);
    check(*program, {}, options);
  } catch (const CompileError& e) {
    return e;
  }
  return std::nullopt;
}

namespace sm90a {
// `source` passes sema for sm_90a: no error, no limitation.
inline void expect_clean(const std::string& source) {
  Options options;
  options.target = target::parse_target("sm_90a");
  auto e = sema_error(source, options);
  EXPECT_FALSE(e.has_value()) << (e ? e->what() : "") << "\n" << source;
}
}  // namespace sm90a

// The text of 1-based line `line` of `source`.
inline std::string line_of(const std::string& source, int line) {
  std::size_t start = 0;
  for (int l = 1; l < line && start != std::string::npos; ++l) {
    start = source.find('\n', start);
    if (start != std::string::npos) ++start;
  }
  if (start == std::string::npos) return {};
  return source.substr(start, source.find('\n', start) - start);
}

// Every case, from the files of this folder (one function per area).
std::vector<RuleCase> expression_cases();
std::vector<RuleCase> statement_cases();
std::vector<RuleCase> parallel_cases();
std::vector<RuleCase> copy_cases();
std::vector<RuleCase> event_and_mma_cases();
std::vector<RuleCase> unsupported_cases();
std::vector<RuleCase> form_cases();
std::vector<RuleCase> declaration_cases();
std::vector<RuleCase> upstream_rule_cases();
std::vector<RuleCase> audit_rule_cases();
std::vector<RuleCase> construct_cases();
std::vector<RuleCase> reliability_cases();
std::vector<RuleCase> message_cases();
std::vector<RuleCase> call_cases();
std::vector<RuleCase> device_function_call_cases();  // device_call_cxx_cases.cpp
std::vector<RuleCase> strided_view_cases();
std::vector<RuleCase> mma_form_cases();
std::vector<RuleCase> value_cases();

// All of them, in that order (rules_test.cpp checks them; the documentation's
// error reference shows them, tests/docs/rule_examples.cpp).
inline std::vector<RuleCase> all_rule_cases() {
  std::vector<RuleCase> all;
  for (auto part : {expression_cases, statement_cases, parallel_cases, copy_cases, event_and_mma_cases,
                    unsupported_cases, form_cases, declaration_cases, upstream_rule_cases, audit_rule_cases,
                    construct_cases, reliability_cases, message_cases, call_cases, strided_view_cases,
                    mma_form_cases, device_function_call_cases, value_cases}) {
    auto cases = part();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

// The options a case is checked under: the target rules need
// CompileOptions::arch (sm_XY, as croq::compile builds it).
inline Options rule_case_options(const RuleCase& c) {
  Options o;
  if (!c.arch.empty()) o.target = target::parse_target(c.arch);
  o.limitations_are_errors = !c.limitations_as_warnings;
  return o;
}

}  // namespace croq::sema::test
