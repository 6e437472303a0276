// Helpers shared by the frontend tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/files.hpp"
#include "croq/error.hpp"
#include "frontend/frontend.hpp"

namespace croq::frontend::testing {

inline std::filesystem::path data_dir() { return std::filesystem::path(CROQ_TEST_DATA_DIR) / "frontend"; }

using croq::test::read_file;

// Files with `extension` directly in `dir`, sorted by name.
inline std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir, const std::string& extension) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == extension) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Parses `source`; on a CompileError the test fails with the rendered errors.
inline std::unique_ptr<ast::Program> parse_ok(const std::string& source, CompileOptions options = {}) {
  try {
    return parse_program(source, options);
  } catch (const CompileError& e) {
    ADD_FAILURE() << "unexpected errors:\n" << e.what();
    return nullptr;
  }
}

// The diagnostics of a source that must fail to parse.
inline std::vector<Diagnostic> parse_errors(const std::string& source, CompileOptions options = {}) {
  try {
    parse_program(source, options);
  } catch (const CompileError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected errors, the source parsed:\n" << source;
  return {};
}

// The only statement of the body of the only function.
inline const ast::Stmt& first_statement(const ast::Program& program) {
  const auto& block = std::get<ast::Block>(program.functions.at(0).body->node);
  return *block.statements.at(0);
}

}  // namespace croq::frontend::testing
