// Table-driven negative tests: a source and exactly the diagnostics it must
// produce (line, column, message, hint of each).
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "croq/error.hpp"
#include "frontend/frontend.hpp"

namespace croq::frontend::testing {

struct Expected {
  int line;
  int column;
  std::string message;
  std::string hint;
};

struct ErrorCase {
  std::string name;
  std::string source;
  std::vector<Expected> diagnostics;
};

inline void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

inline std::string error_case_name(const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; }

// Parses c.source and checks its diagnostics against c.diagnostics.
inline void expect_exact_diagnostics(const ErrorCase& c) {
  std::vector<Diagnostic> actual;
  try {
    parse_program(c.source, {});
    FAIL() << "expected errors, the source parsed:\n" << c.source;
  } catch (const CompileError& e) {
    actual = e.diagnostics();
  }
  ASSERT_EQ(actual.size(), c.diagnostics.size()) << render_diagnostics(actual, c.source, c.name);
  for (size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE("diagnostic " + std::to_string(i));
    EXPECT_EQ(actual[i].severity, Severity::error);
    EXPECT_EQ(actual[i].line, c.diagnostics[i].line);
    EXPECT_EQ(actual[i].column, c.diagnostics[i].column);
    EXPECT_EQ(actual[i].message, c.diagnostics[i].message);
    EXPECT_EQ(actual[i].hint, c.diagnostics[i].hint);
    EXPECT_GE(actual[i].length, 1);
  }
}

}  // namespace croq::frontend::testing
