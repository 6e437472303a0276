// The frontend's entry points: source text -> ast::Program.
//   tokenize (lexer.cpp) -> preprocess (preprocess.cpp) -> parse (parser*.cpp)
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "croq/error.hpp"
#include "croq/options.hpp"
#include "frontend/ast.hpp"

namespace croq::frontend {

// Lexes, preprocesses and parses; throws croq::CompileError with every error
// found (the parser recovers at `;` and `}`, so one run reports many).
// Warnings are returned in program->warnings and not thrown.
std::unique_ptr<ast::Program> parse_program(std::string_view source, const CompileOptions& options);

// Picks the __co__ function to compile: options.entry if set (an error names
// the available functions when it is missing), else the only one (an error
// lists them when there are several, or says there is none).
const ast::Function& select_entry(const ast::Program& program, const CompileOptions& options,
                                  const std::string& source);

// The AST printer used by golden tests and `croq compile --emit ast`.
std::string print_ast(const ast::Program& program);
std::string print_expression(const ast::Expr& expr);
// An expression as the user wrote it, for messages: its text in the
// program's source (each run of whitespace as one space); the printed form
// where the parser kept no text.
std::string source_text(const ast::Program& program, const ast::Expr& expr);

// Whether the statement starting at `where` in the program's source (a
// braced block up to its matching `}`, else up to its `;`) names
// `identifier` as a token of its own.
bool statement_mentions(const ast::Program& program, const ast::SourceLocation& where, const std::string& identifier);

}  // namespace croq::frontend
