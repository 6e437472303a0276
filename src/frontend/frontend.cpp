// parse_program and select_entry: run the stages in order and turn their
// diagnostics into one CompileError.
#include "frontend/frontend.hpp"

#include <algorithm>

#include "frontend/lexer.hpp"
#include "frontend/parser.hpp"
#include "frontend/preprocess.hpp"

namespace croq::frontend {

std::unique_ptr<ast::Program> parse_program(std::string_view source, const CompileOptions& options) {
  auto program = std::make_unique<ast::Program>();
  program->source = std::string(source);
  program->source_name = options.source_name;

  std::vector<Diagnostic> diagnostics;
  std::vector<Token> tokens = tokenize(program->source, diagnostics);
  PreprocessedTokens pre = preprocess(tokens, options.defines, diagnostics);
  program->defines = std::move(pre.defines);
  Parser parser(std::move(pre.tokens), program->source, diagnostics);
  parser.parse(*program);

  std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.line == 0 || b.line == 0) return a.line != 0 && b.line == 0;  // unlocated notes last
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  bool has_error = std::any_of(diagnostics.begin(), diagnostics.end(),
                               [](const Diagnostic& d) { return d.severity == Severity::error; });
  if (has_error) throw CompileError(std::move(diagnostics), program->source, options.source_name);
  program->warnings = std::move(diagnostics);
  return program;
}

static std::string function_list(const ast::Program& program) {
  std::string names;
  for (const ast::Function& f : program.functions) {
    if (!names.empty()) names += ", ";
    names += "`" + f.name + "`";
  }
  return names;
}

const ast::Function& select_entry(const ast::Program& program, const CompileOptions& options,
                                  const std::string& source) {
  auto error = [&](std::string message, std::string hint) -> CompileError {
    Diagnostic d;
    d.message = std::move(message);
    d.hint = std::move(hint);
    return CompileError({d}, source, options.source_name);
  };
  if (program.functions.empty())
    throw error("no __co__ function in the source", "a kernel starts with `__co__`");
  if (!options.entry.empty()) {
    if (const ast::Function* f = program.find_function(options.entry)) return *f;
    throw error("no __co__ function named `" + options.entry + "`; the source defines " + function_list(program),
                "set CompileOptions::entry to one of them");
  }
  if (program.functions.size() > 1)
    throw error("the source defines several __co__ functions (" + function_list(program) +
                    "); choose one with the entry option",
                "set CompileOptions::entry (or `--entry NAME`)");
  return program.functions.front();
}

}  // namespace croq::frontend
